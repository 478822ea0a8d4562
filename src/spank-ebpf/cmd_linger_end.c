/* SPDX-License-Identifier: GPL-2.0-or-later */
/* linger-end [--set=NAME] ARGS...: what the transient timer armed by the
 * plugin runs when a linger window may be over (see linger.h). ARGS are
 * the plugin's own plugstack arguments, so it needs no file and acts on
 * exactly the configuration that opened the window; --set names the
 * probe set whose window it is (none: unit=). */
#include <stdio.h>
#include <string.h>

#include "jobset.h"
#include "linger.h"
#include "sets.h"
#include "spank-ebpf.h"

/* Its own parsing below (the arguments are plugstack's, passed on as
 * they are); this row is for --help and the usage lines. */
const struct option_spec linger_end_options[] = {
	{ "set", "SET", "the probe set whose window ends (none: the line's unit=)", 0 },
	{ NULL, NULL, NULL, 0 },
};

int cmd_linger_end(struct cmd *cmd)
{
	static struct sets sets;
	const struct sets *loaded;
	const char *set = JOBSET_LEGACY;
	struct target t;
	char err[600];
	int i, first = 0;

	if (cmd->argc > 0 && !strncmp(cmd->argv[0], "--set=", 6)) {
		set = cmd->argv[0] + 6;
		first = 1;
		if (!sets_valid_name(set, strlen(set)))
			return usage_error(cmd, "--set needs a probe set's name");
	}
	for (i = first; i < cmd->argc; i++)
		if (cmd->argv[i][0] == '-')
			return usage_error(cmd, "unknown option \"%s\"", cmd->argv[i]);
	if (need_root(cmd) < 0)
		return EXIT_UNSURE;
	if (config_parse(&cmd->cfg, cmd->argc - first, cmd->argv + first, err, sizeof(err)) < 0) {
		fprintf(stderr, "spank-ebpf: linger-end: %s\n", err);
		return EXIT_UNSURE;
	}
	log_to_stderr(true);
	if (strcmp(set, JOBSET_LEGACY) && !cmd->cfg.sets[0]) {
		fprintf(stderr, "spank-ebpf: linger-end: --set=%s without sets= in the arguments\n", set);
		return EXIT_UNSURE;
	}
	/* Unreadable, the sets file still lets the window end: the default
	 * template's unit, the line's linger. */
	if (cmd->cfg.sets[0] && sets_load(cmd->cfg.sets, &sets, err, sizeof(err)) < 0) {
		fprintf(stderr, "spank-ebpf: linger-end: %s\n", err);
		loaded = NULL;
	} else {
		loaded = cmd->cfg.sets[0] ? &sets : NULL;
	}
	target_of(&cmd->cfg, loaded, set, &t);
	return linger_end(&cmd->cfg, loaded, &t) < 0 ? EXIT_UNSURE : EXIT_OK;
}
