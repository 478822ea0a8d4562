/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reconcile [--dry-run]: heal the node's holds (see reconcile.h). Every
 * change goes to syslog with its reason, and to stderr. */
#include <stdio.h>

#include "hold.h"
#include "reconcile.h"
#include "spank-ebpf.h"

int cmd_reconcile(struct cmd *cmd)
{
	static const char *const opts[] = { "dry-run", "node=", "squeue=", NULL };
	const char *vals[3] = { NULL, NULL, NULL }, *pos[1];
	struct reconcile_report rep;
	bool dry;
	int npos, rc;

	rc = parse_options(cmd, opts, vals, pos, 0, &npos);
	if (rc)
		return rc;
	dry = vals[0] != NULL;
	rc = prepare_slurm_command(cmd, vals[1], vals[2]);
	if (rc)
		return rc;
	log_to_stderr(!dry);

	rc = reconcile_run(&cmd->cfg, &cmd->ask, dry, &rep);
	if (rc < 0) {
		fprintf(stderr, "spank-ebpf: reconcile: the state \"%s\" cannot be used; nothing changed\n",
			cmd->cfg.state);
		return EXIT_UNSURE;
	}
	printf("%s%zu held, %zu %s; unit %s%s%s\n", dry ? "dry run: " : "", rep.held,
	       rep.removed, dry ? "would be removed" : "removed",
	       rep.unit == UNIT_ACTIVE ? "active" : rep.unit == UNIT_INACTIVE ? "inactive" : "unknown",
	       rep.unit_events & EV_STOPPED ? (dry ? ", would stop it" : ", stopped") :
	       rep.unit_events & EV_STARTED ? (dry ? ", would start it" : ", started") : "",
	       rep.unit_events & EV_UNIT_FAILED ? " (failed)" : "");
	if (rc > 0) {
		printf("cannot tell: %s; %s\n", rep.why,
		       rep.removed && !dry ? "the unit was left as it is" : "nothing changed");
		return EXIT_UNSURE;
	}
	return rep.unit_events & EV_UNIT_FAILED ? EXIT_ANOMALY : EXIT_OK;
}
