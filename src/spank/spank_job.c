/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slurm_spank_job_prolog / _epilog: a fresh process per call, as root,
 * with a fresh dlopen of the plugin; no state survives between calls. */
#include <stdint.h>

#include "config.h"
#include "jobhook.h"
#include "log.h"
#include "plugin.h"

static uint32_t job_id(spank_t sp)
{
	uint32_t id = 0;

	if (spank_get_item(sp, S_JOB_ID, &id) == ESPANK_SUCCESS && id)
		return id;
	return jobhook_env_job_id();
}

int ctx_job(spank_t sp, int argc, char **argv, enum hold_op op)
{
	struct config cfg;
	char err[512];

	if (config_parse(&cfg, argc, argv, err, sizeof(err)) < 0) {
		log_set_context("%s", op == HOLD_ACQUIRE ? "prolog" : "epilog");
		log_msg(LOG_ERROR, "%s; plugin disabled, nothing done", err);
		return 0;
	}
	/* The option first: a job without --ebpf in opt-in mode costs no
	 * more than this getenv() in its prolog. */
	jobhook_run(&cfg, job_id(sp), jobhook_request(), op);
	return 0;
}
