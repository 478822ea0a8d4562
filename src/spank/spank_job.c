/* SPDX-License-Identifier: GPL-2.0-or-later */
/* slurm_spank_job_prolog / _epilog: a fresh process per call, as root,
 * with a fresh dlopen of the plugin; no state survives between calls. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "config.h"
#include "jobset.h"
#include "log.h"
#include "plugin.h"

/* How Slurm hands a job's SPANK option to the prolog/epilog: as an
 * environment variable named after SPANK_PLUGIN()'s first argument and the
 * option, with "SPANK_" prepended there (22.05 through 26.05). Presence
 * counts, not the value: a flag's value is "" or "(null)". */
#define OPTION_VAR "_SLURM_SPANK_OPTION_spank_ebpf_ebpf"

static bool job_asked_for_ebpf(void)
{
	return getenv("SPANK_" OPTION_VAR) || getenv(OPTION_VAR);
}

static uint32_t job_id(spank_t sp)
{
	uint32_t id = 0;
	const char *env;
	char *end;
	unsigned long v;

	if (spank_get_item(sp, S_JOB_ID, &id) == ESPANK_SUCCESS && id)
		return id;
	env = getenv("SLURM_JOB_ID");
	if (!env)
		return 0;
	v = strtoul(env, &end, 10);
	return (*end == '\0' && v <= UINT32_MAX) ? (uint32_t)v : 0;
}

int ctx_job(spank_t sp, int argc, char **argv, enum hold_op op)
{
	const char *hook = op == HOLD_ACQUIRE ? "prolog" : "epilog";
	struct config cfg;
	char err[512];
	uint32_t job;
	bool asked;

	if (config_parse(&cfg, argc, argv, err, sizeof(err)) < 0) {
		log_msg(LOG_ERROR, "%s; plugin disabled, %s does nothing", err, hook);
		return 0;
	}
	asked = cfg.mode == MODE_ALWAYS || job_asked_for_ebpf();
	job = job_id(sp);
	if (!asked && op == HOLD_ACQUIRE) {
		log_msg(LOG_DEBUG, "prolog job %u: no --ebpf, nothing to do", job);
		return 0;
	}
	if (!jobset_valid_id(job)) {
		log_msg(LOG_ERROR, "%s: no valid job ID from Slurm; nothing done", hook);
		return 0;
	}
	/* The epilog sees the job's own options, but a prolog run for an
	 * `srun --ebpf` step sees the step's: such a job may hold the
	 * exporter without showing --ebpf here. A lock-free look at the
	 * state settles it without taking the lock for every job. */
	if (!asked && !hold_is_held(&cfg, job)) {
		log_msg(LOG_DEBUG, "epilog job %u: no --ebpf and no hold, nothing to do", job);
		return 0;
	}
	log_msg(LOG_INFO, "%s job %u", hook, job);
	hold_update(&cfg, job, op, NULL);
	return 0;
}
