/* SPDX-License-Identifier: GPL-2.0-or-later */
/* reconcile [--dry-run]: heal the node's holds (see reconcile.h). Every
 * change goes to syslog with its reason, and to stderr. */
#include <stdio.h>

#include "hold.h"
#include "reconcile.h"
#include "spank-ebpf.h"

enum { OPT_DRY_RUN, OPT_NODE, OPT_SQUEUE, NOPTS };
const struct option_spec reconcile_options[] = {
	[OPT_DRY_RUN] = { "dry-run", NULL, "say what would change, change nothing", 0 },
	[OPT_NODE] = { "node", "NAME", "this node's Slurm NodeName (see spank-ebpf --help)", 0 },
	[OPT_SQUEUE] = { "squeue", "PATH", "the squeue to ask slurmctld with", 0 },
	[NOPTS] = { NULL, NULL, NULL, 0 },
};

int cmd_reconcile(struct cmd *cmd)
{
	struct reconcile_report rep;
	bool dry = cmd->opt[OPT_DRY_RUN] != NULL;
	int rc;

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
