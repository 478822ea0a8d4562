/* SPDX-License-Identifier: GPL-2.0-or-later */
/* check-config FILE|-: the plugin's line in FILE, accepted or refused with
 * the plugin's own words. What config management runs before it puts a
 * file in place; needs no root and touches nothing. */
#include <stdio.h>
#include <string.h>

#include "conffile.h"
#include "spank-ebpf.h"

int cmd_check_config(struct cmd *cmd)
{
	static const char *const opts[] = { NULL };
	const char *vals[1], *pos[1];
	char err[700];
	int npos, rc;

	rc = parse_options(cmd, opts, vals, pos, 1, &npos);
	if (rc)
		return rc;
	if (npos != 1)
		return usage_error(cmd, "which file? (FILE, or - for standard input)");
	if (conffile_load(pos[0], &cmd->cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "spank-ebpf: check-config: %s\n", err);
		return EXIT_ANOMALY;
	}
	printf("%s: valid: mode=%s unit=%s state=%s systemctl=%s timeout=%us lock_timeout=%us start=%s linger=%us\n",
	       strcmp(pos[0], "-") ? pos[0] : "(standard input)", config_mode_name(cmd->cfg.mode), cmd->cfg.unit, cmd->cfg.state,
	       cmd->cfg.systemctl, cmd->cfg.timeout, cmd->cfg.lock_timeout,
	       config_start_name(cmd->cfg.start), cmd->cfg.linger);
	return EXIT_OK;
}
