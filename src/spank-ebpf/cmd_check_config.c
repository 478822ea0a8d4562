/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-config FILE|-: the plugin's line in FILE, accepted or refused with
 * the plugin's own words, and the probe sets file it names (sets=).
 * check-config --sets FILE|-: a probe sets file alone (config management
 * templates it). What config management runs before it puts a file in
 * place; needs no root and touches nothing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conffile.h"
#include "listenaddr.h"
#include "sets.h"
#include "spank-ebpf.h"

static struct sets sets;

/* Reads the sets file at path ("-": standard input) into sets. */
static int read_sets(const char *path, char *err, size_t errlen)
{
	char *buf;
	size_t len = 0;
	int rc;

	if (strcmp(path, "-"))
		return sets_load(path, &sets, err, errlen);
	buf = malloc(SETS_FILE_MAX + 2);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	len = fread(buf, 1, SETS_FILE_MAX + 1, stdin);
	rc = sets_parse(buf, len, "(standard input)", &sets, err, errlen);
	free(buf);
	return rc;
}

/* On a node (config_dir here): every set's port is one users cannot
 * bind, as the exporter checks before it binds. */
static int check_ports(char *err, size_t errlen)
{
	int start = listenaddr_unprivileged_start(), i;

	for (i = 0; start >= 0 && i < sets.n; i++)
		if ((unsigned int)start <= sets.set[i].port) {
			snprintf(err, errlen, "set %s: port %u is not privileged on this node (net.ipv4.ip_unprivileged_port_start = %d): any user could bind %s first",
				 sets.set[i].name, sets.set[i].port, start, sets.set[i].listen);
			return -1;
		}
	return 0;
}

/* The configs of every set, where config_dir is on this host (a submit
 * host has none: said, not refused). */
static int check_configs(char *err, size_t errlen)
{
	struct stat st;

	if (stat(sets.config_dir, &st) < 0 && errno == ENOENT) {
		printf("note: config_dir \"%s\" is not on this host: the sets' configs were not checked\n",
		       sets.config_dir);
		return 0;
	}
	if (sets_check_configs(&sets, err, errlen) < 0)
		return -1;
	return check_ports(err, errlen);
}

static void print_sets(void)
{
	char allowed[400];
	int i;

	sets_allowed(&sets, allowed, sizeof(allowed));
	printf("probe sets: %s; template %s, exporter %s, config_dir %s\n", allowed, sets.unit,
	       sets.exporter, sets.config_dir);
	for (i = 0; i < sets.n; i++) {
		printf("set %s: configs %s on %s", sets.set[i].name, sets.set[i].configs, sets.set[i].listen);
		if (sets.set[i].linger_given)
			printf(", linger %us", sets.set[i].linger);
		printf(": %s\n", sets.set[i].description);
	}
}

enum { OPT_SETS, NOPTS };
const struct option_spec check_config_options[] = {
	[OPT_SETS] = { "sets", NULL, "FILE is a probe sets file, checked alone", 0 },
	[NOPTS] = { NULL, NULL, NULL, 0 },
};

int cmd_check_config(struct cmd *cmd)
{
	const char *pos[1] = { cmd->operand };
	char err[700];

	if (cmd->opt[OPT_SETS]) {
		if (read_sets(pos[0], err, sizeof(err)) < 0 || check_configs(err, sizeof(err)) < 0) {
			fprintf(stderr, "spank-ebpf: check-config: %s\n", err);
			return EXIT_ANOMALY;
		}
		printf("%s: valid\n", strcmp(pos[0], "-") ? pos[0] : "(standard input)");
		print_sets();
		return EXIT_OK;
	}
	if (conffile_load(pos[0], &cmd->cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "spank-ebpf: check-config: %s\n", err);
		return EXIT_ANOMALY;
	}
	if (cmd->cfg.sets[0] && (read_sets(cmd->cfg.sets, err, sizeof(err)) < 0 ||
				 check_configs(err, sizeof(err)) < 0)) {
		fprintf(stderr, "spank-ebpf: check-config: %s\n", err);
		return EXIT_ANOMALY;
	}
	printf("%s: valid: mode=%s unit=%s state=%s systemctl=%s timeout=%us lock_timeout=%us start=%s linger=%us%s%s\n",
	       strcmp(pos[0], "-") ? pos[0] : "(standard input)", config_mode_name(cmd->cfg.mode), cmd->cfg.unit, cmd->cfg.state,
	       cmd->cfg.systemctl, cmd->cfg.timeout, cmd->cfg.lock_timeout,
	       config_start_name(cmd->cfg.start), cmd->cfg.linger, cmd->cfg.sets[0] ? " sets=" : "",
	       cmd->cfg.sets);
	if (cmd->cfg.sets[0])
		print_sets();
	return EXIT_OK;
}
