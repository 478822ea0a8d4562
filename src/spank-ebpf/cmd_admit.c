/* SPDX-License-Identifier: GPL-2.0-or-later */
/* admit SET: the template unit's ExecStartPost, once the set's exporter
 * is READY (its probes attached, their maps created). Every job the state
 * says holds the set joins the probes' filter: those whose prolog ran
 * while the exporter was still starting (start=background) found no
 * filter to join. Lock-free (observe.h): a prolog holding the lock may be
 * waiting for this very start. It also writes when the set became ready
 * (jobinfo.h, the textfile collector's spank_ebpf_set_<set>.prom), what
 * the reports compare with each job's start on the node. */
#include <stdio.h>
#include <string.h>

#include "jobinfo.h"
#include "log.h"
#include "observe.h"
#include "sets.h"
#include "spank-ebpf.h"

int cmd_admit(struct cmd *cmd)
{
	static struct sets sets;
	const char *pos[1] = { cmd->operand };
	char err[700];
	int n;

	log_to_stderr(false);
	log_set_context("admit %s", pos[0]);
	if (!cmd->cfg.sets[0]) {
		log_msg(LOG_ERROR, "the plugin's line in \"%s\" has no sets=", cmd->config_path);
		return EXIT_UNSURE;
	}
	if (sets_load(cmd->cfg.sets, &sets, err, sizeof(err)) < 0) {
		log_msg(LOG_ERROR, "%s", err);
		return EXIT_UNSURE;
	}
	if (sets_find(&sets, pos[0], strlen(pos[0])) < 0) {
		log_msg(LOG_ERROR, "no probe set \"%s\" in \"%s\"", pos[0], cmd->cfg.sets);
		return EXIT_UNSURE;
	}
	jobinfo_store_ready(sets.textfile, sets.textfile_group, pos[0]);
	n = observe_admit_all(&cmd->cfg, &sets, pos[0]);
	if (n < 0)
		return EXIT_ANOMALY;
	log_msg(LOG_INFO, "%d job%s admitted to the probes' filter", n, n == 1 ? "" : "s");
	return EXIT_OK;
}
