/* SPDX-License-Identifier: GPL-2.0-or-later */
/* prolog | epilog: the Prolog=/Epilog= face, for sites with
 * PrologFlags=RunInJob (Slurm 24.05+), where the extern step runs only
 * the Prolog=/Epilog= programs and no SPANK job hook. Slurm runs it with
 * the job's environment, its --ebpf included, and by path, without
 * arguments: then SLURM_SCRIPT_CONTEXT says which one it is. The same
 * rule as the plugin's hooks (jobhook.c), the plugin's own configuration
 * line, the same state: a job counted by both faces is counted once.
 * Exit status 0 whatever happens to the exporter: a failing Prolog=
 * drains the node. */
#include <stdio.h>
#include <string.h>

#include "hold.h"
#include "jobhook.h"
#include "log.h"
#include "spank-ebpf.h"

int cmd_hook(struct cmd *cmd)
{
	enum hold_op op = strcmp(cmd->name, "prolog") ? HOLD_RELEASE : HOLD_ACQUIRE;

	log_to_stderr(true);
	if (load_config(cmd) < 0) {
		log_msg(LOG_ERROR, "nothing done: the plugin's line in \"%s\" cannot be used",
			cmd->config_path);
		return EXIT_OK;
	}
	jobhook_run(&cmd->cfg, jobhook_env_job_id(), jobhook_request(), op);
	return EXIT_OK;
}
