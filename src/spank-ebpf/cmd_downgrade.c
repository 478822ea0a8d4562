/* SPDX-License-Identifier: GPL-2.0-or-later */
/* downgrade-prepare [--cancel] [--sets FILE]: the node ready for the
 * release before probe sets (downgrade.h), run by the packages' prerm
 * before an older version's files land; --cancel removes the marker it
 * leaves; --sets names the sets file when sets= is already off the line.
 * Every change goes to syslog with its reason, and to stderr; what was
 * done to stdout. */
#include <stdio.h>
#include <string.h>

#include "downgrade.h"
#include "spank-ebpf.h"

static void downgrade_print(const struct cmd *cmd, const struct downgrade_report *rep)
{
	size_t i;
	int k;

	printf("%zu job%s in the state, each keeping a hold on %s (the older release's form)",
	       rep->jobs, rep->jobs == 1 ? "" : "s", cmd->cfg.unit);
	if (rep->switched_off) {
		printf("; probe sets switched off for %zu (job%s", rep->switched_off,
		       rep->switched_off == 1 ? "" : "s");
		for (i = 0; i < rep->switched_off && i < DOWNGRADE_SHOWN_JOBS; i++)
			printf(" %u", rep->shown[i]);
		printf("%s)", rep->switched_off > DOWNGRADE_SHOWN_JOBS ? " ..." : "");
	}
	printf("\n");
	for (k = 0; k < rep->nstopped; k++)
		printf("stopped %s\n", rep->stopped[k]);
	if (rep->nfailed)
		printf("%d stop%s failed: run downgrade-prepare again before downgrading\n",
		       rep->nfailed, rep->nfailed == 1 ? "" : "s");
	if (rep->started[0])
		printf("%s %s%s\n", rep->start_failed ? "could not start" : "started", rep->started,
		       rep->start_failed ? " (the jobs keep their holds; the older release's reconcile starts it again)" : "");
	if (rep->marker)
		printf("marker %s%s left: this release, if it stays or comes back, gives those jobs no probe sets (downgrade-prepare --cancel removes it)\n",
		       cmd->cfg.state, DOWNGRADE_MARKER);
	else
		printf("marker %s%s could not be written\n", cmd->cfg.state, DOWNGRADE_MARKER);
}

enum { OPT_CANCEL, OPT_SETS, NOPTS };
const struct option_spec downgrade_options[] = {
	[OPT_CANCEL] = { "cancel", NULL, "remove the marker it left (new jobs get their sets again)", OPT_ALONE },
	[OPT_SETS] = { "sets", "FILE", "the sets file, when sets= is already off the line", 0 },
	[NOPTS] = { NULL, NULL, NULL, 0 },
};

int cmd_downgrade(struct cmd *cmd)
{
	const char **vals = cmd->opt;
	struct downgrade_report rep;
	int rc;

	if (vals[OPT_SETS] && (vals[OPT_SETS][0] != '/' || strlen(vals[OPT_SETS]) >= sizeof(cmd->cfg.sets)))
		return usage_error(cmd, "--sets needs an absolute path of at most %zu bytes",
				   sizeof(cmd->cfg.sets) - 1);
	/* sets= already off the line (the older release refuses it): the
	 * jobs' sets still have their units in the sets file they came from. */
	if (vals[OPT_SETS] && !cmd->cfg.sets[0])
		snprintf(cmd->cfg.sets, sizeof(cmd->cfg.sets), "%s", vals[OPT_SETS]);
	log_to_stderr(true);
	if (vals[OPT_CANCEL]) {
		if (downgrade_cancel(&cmd->cfg, &rep) < 0) {
			fprintf(stderr, "spank-ebpf: %s: the state \"%s\" cannot be used; nothing changed\n",
				cmd->name, cmd->cfg.state);
			return EXIT_UNSURE;
		}
		printf("marker %s%s %s\n", cmd->cfg.state, DOWNGRADE_MARKER,
		       rep.marker ? "removed: new jobs get their probe sets again; jobs switched off stay without" :
				    "was not there: nothing to cancel");
		return EXIT_OK;
	}
	rc = downgrade_prepare(&cmd->cfg, &rep);
	if (rc < 0) {
		fprintf(stderr, "spank-ebpf: %s: the state \"%s\" cannot be used; nothing changed\n",
			cmd->name, cmd->cfg.state);
		return EXIT_UNSURE;
	}
	if (rep.no_state) {
		printf("no state directory for %s: no job holds anything here, nothing to prepare\n",
			cmd->cfg.state);
		return EXIT_OK;
	}
	downgrade_print(cmd, &rep);
	return rc ? EXIT_ANOMALY : EXIT_OK;
}
