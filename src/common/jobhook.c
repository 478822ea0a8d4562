/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The job prolog/epilog rule. See jobhook.h. */
#include <stdlib.h>

#include "clock.h"
#include "jobhook.h"
#include "jobset.h"
#include "log.h"

/* SPANK_PLUGIN()'s first argument and the option's name, with "SPANK_"
 * prepended where the job's environment reaches the prolog. */
#define OPTION_VAR "_SLURM_SPANK_OPTION_spank_ebpf_ebpf"

bool jobhook_asked(void)
{
	return getenv("SPANK_" OPTION_VAR) || getenv(OPTION_VAR);
}

uint32_t jobhook_env_job_id(void)
{
	const char *env = getenv("SLURM_JOB_ID");
	unsigned long v;
	char *end;

	if (!env || !*env)
		return 0;
	v = strtoul(env, &end, 10);
	return (*end == '\0' && v <= UINT32_MAX) ? (uint32_t)v : 0;
}

void jobhook_run(const struct config *cfg, uint32_t job, bool asked, enum hold_op op)
{
	const char *hook = op == HOLD_ACQUIRE ? "prolog" : "epilog";
	long long t0;

	asked = asked || cfg->mode == MODE_ALWAYS;
	if (!asked && op == HOLD_ACQUIRE) {
		log_msg(LOG_DEBUG, "prolog job %u: no --ebpf, nothing to do", job);
		return;
	}
	if (!jobset_valid_id(job)) {
		log_msg(LOG_ERROR, "%s: no valid job ID from Slurm; nothing done", hook);
		return;
	}
	/* The epilog sees the job's own options, but a prolog run for an
	 * `srun --ebpf` step sees the step's: such a job may hold the
	 * exporter without showing --ebpf here. A lock-free look at the
	 * state settles it without taking the lock for every job. */
	if (!asked && !hold_is_held(cfg, job)) {
		log_msg(LOG_DEBUG, "epilog job %u: no --ebpf and no hold, nothing to do", job);
		return;
	}
	log_msg(LOG_INFO, "%s job %u", hook, job);
	t0 = clock_us();
	hold_update(cfg, job, op, NULL);
	/* What the job waited for (the lock, and a start with start=wait):
	 * the figure to look at when a prolog seems slow. */
	log_msg(LOG_VERBOSE, "%s job %u done in %.1f ms", hook, job, (double)(clock_us() - t0) / 1000.0);
}
