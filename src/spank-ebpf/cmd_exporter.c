/* SPDX-License-Identifier: GPL-2.0-or-later */
/* exporter SET: what the template unit spank-ebpf-exporter@.service runs
 * for a probe set. It reads the plugin's line (its sets=) and the sets
 * file, checks the set and its configs, and becomes ebpf_exporter with
 * them (execv: the same process, so systemd's Type=notify gets the
 * exporter's own READY=1, sent once its probes are attached):
 *
 *   <exporter> --config.dir=<config_dir> --config.names=<configs>
 *       --web.listen-address=<listen> --config.strict --capabilities.keep=none
 *
 * --config.strict: a config whose probe cannot attach fails the unit
 * instead of running half-blind; --capabilities.keep=none: the exporter
 * drops every capability once attached. Needs no root: the unit runs it
 * as its own user, with only the capabilities loading needs. Any problem
 * is one line on standard error (the unit's journal) and exit status 1. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sets.h"
#include "spank-ebpf.h"

int cmd_exporter(struct cmd *cmd)
{
	static struct sets sets;
	static char dir[SETS_PATH_MAX + 20], names[sizeof(sets.set[0].configs) + 20], listen[120];
	const char *vals[1], *pos[1];
	char err[700];
	char *argv[8];
	int npos, rc, i;

	rc = parse_options(cmd, vals, pos, 1, &npos);
	if (rc)
		return rc;
	if (npos != 1)
		return usage_error(cmd, "which probe set?");
	if (load_config(cmd) < 0)
		return EXIT_ANOMALY;
	if (!cmd->cfg.sets[0]) {
		fprintf(stderr, "spank-ebpf: exporter: the plugin's line in \"%s\" has no sets=: no probe set to run\n",
			cmd->config_path);
		return EXIT_ANOMALY;
	}
	if (sets_load(cmd->cfg.sets, &sets, err, sizeof(err)) < 0) {
		fprintf(stderr, "spank-ebpf: exporter: %s\n", err);
		return EXIT_ANOMALY;
	}
	i = sets_find(&sets, pos[0], strlen(pos[0]));
	if (i < 0) {
		char allowed[400];

		sets_allowed(&sets, allowed, sizeof(allowed));
		fprintf(stderr, "spank-ebpf: exporter: unknown probe set \"%.40s\"; declared in \"%s\": %s\n",
			pos[0], cmd->cfg.sets, allowed);
		return EXIT_ANOMALY;
	}
	/* Only this set's configs: another set's missing one is not ours. */
	sets.n = 1;
	sets.set[0] = sets.set[i];
	if (sets_check_configs(&sets, err, sizeof(err)) < 0) {
		fprintf(stderr, "spank-ebpf: exporter: %s\n", err);
		return EXIT_ANOMALY;
	}
	snprintf(dir, sizeof(dir), "--config.dir=%s", sets.config_dir);
	snprintf(names, sizeof(names), "--config.names=%s", sets.set[0].configs);
	snprintf(listen, sizeof(listen), "--web.listen-address=%s", sets.set[0].listen);
	argv[0] = sets.exporter;
	argv[1] = dir;
	argv[2] = names;
	argv[3] = listen;
	argv[4] = "--config.strict";
	argv[5] = "--capabilities.keep=none";
	argv[6] = NULL;
	fprintf(stderr, "spank-ebpf: exporter: set %s: %s %s %s %s %s %s\n", sets.set[0].name, argv[0],
		argv[1], argv[2], argv[3], argv[4], argv[5]);
	fflush(stderr);
	execv(argv[0], argv);
	fprintf(stderr, "spank-ebpf: exporter: cannot run \"%s\": %s\n", argv[0], strerror(errno));
	return EXIT_ANOMALY;
}
