/* SPDX-License-Identifier: GPL-2.0-or-later */
/* linger-end ARGS...: what the transient timer armed by the plugin runs
 * when a linger window may be over (see linger.h). ARGS are the plugin's
 * own plugstack arguments, so it needs no file and acts on exactly the
 * configuration that opened the window. */
#include <stdio.h>

#include "linger.h"
#include "spank-ebpf.h"

int cmd_linger_end(struct cmd *cmd)
{
	char err[512];
	int i;

	for (i = 0; i < cmd->argc; i++)
		if (cmd->argv[i][0] == '-')
			return usage_error(cmd, "unknown option \"%s\"", cmd->argv[i]);
	if (need_root(cmd) < 0)
		return EXIT_UNSURE;
	if (config_parse(&cmd->cfg, cmd->argc, cmd->argv, err, sizeof(err)) < 0) {
		fprintf(stderr, "spank-ebpf: linger-end: %s\n", err);
		return EXIT_UNSURE;
	}
	log_to_stderr(true);
	return linger_end(&cmd->cfg) < 0 ? EXIT_UNSURE : EXIT_OK;
}
