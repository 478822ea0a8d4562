/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The job prolog/epilog rule. See jobhook.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "jobhook.h"
#include "jobset.h"
#include "log.h"
#include "statefile.h"
#include "unit.h"

/* SPANK_PLUGIN()'s first argument and the option's name, with "SPANK_"
 * prepended where the job's environment reaches the prolog. */
#define OPTION_VAR "_SLURM_SPANK_OPTION_spank_ebpf_ebpf"

const char *jobhook_request(void)
{
	const char *v = getenv("SPANK_" OPTION_VAR);

	return v ? v : getenv(OPTION_VAR);
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

/* The option's value as the log shows it: at most 64 printable bytes. */
static const char *printable_request(const char *v)
{
	static char shown[68];
	size_t i;

	for (i = 0; v[i] && i < 64; i++)
		shown[i] = (unsigned char)v[i] >= 0x20 && (unsigned char)v[i] < 0x7f ? v[i] : '?';
	snprintf(shown + i, sizeof(shown) - i, "%s", v[i] ? "..." : "");
	return shown;
}

void jobhook_run(const struct config *cfg, uint32_t job, const char *request, enum hold_op op)
{
	bool asked = request != NULL;
	const char *hook = op == HOLD_ACQUIRE ? "prolog" : "epilog";
	char display[CONFIG_UNIT_MAX];
	struct lock_times lt;
	long long t0;
	int ev = 0;

	bool always = cfg->mode == MODE_ALWAYS;

	if (!asked && !always && op == HOLD_ACQUIRE)
		return; /* the common case: not even a log line to format */
	if (!jobset_valid_id(job)) {
		log_set_context("%s", hook);
		log_msg(LOG_ERROR, "no valid job ID from Slurm (SLURM_JOB_ID); nothing done");
		return;
	}
	log_set_context("%s job %u", hook, job);
	/* The epilog sees the job's own options, but a prolog run for an
	 * `srun --ebpf` step sees the step's: such a job may hold the
	 * exporter without showing --ebpf here. A lock-free look at the
	 * state settles it without taking the lock for every job. */
	if (!asked && !always && !hold_is_held(cfg, job)) {
		log_msg(LOG_DEBUG, "no --ebpf and no hold, nothing to do");
		return;
	}
	config_unit_display(cfg, display, sizeof(display));
	if (op == HOLD_RELEASE)
		log_msg(LOG_INFO, "releasing its hold on %s", cfg->sets[0] ? "its probe sets" : display);
	else if (!cfg->sets[0])
		log_msg(LOG_INFO, "%s: taking a hold on %s", always ? "mode=always" : "--ebpf", display);
	else if (!asked)
		log_msg(LOG_INFO, "mode=always: taking a hold on the always= probe sets");
	else if (!request[0] || !strcmp(request, "(null)"))
		log_msg(LOG_INFO, "--ebpf: taking a hold on the default probe sets");
	else
		log_msg(LOG_INFO, "--ebpf=%s: taking a hold on its probe sets", printable_request(request));
	statefile_lock_times_reset();
	unit_cgroup_memo_begin();
	t0 = clock_us();
	if (op == HOLD_ACQUIRE) {
		/* Slurm's own words for the job's user (its uid is who it is,
		 * the name only shown) and, since 25.11, the SLUID its cgroup
		 * may be named by. */
		struct job_who who = { getenv("SLURM_JOB_USER"), getenv("SLURM_JOB_SLUID"),
				       getenv("SLURM_JOB_UID") };

		hold_acquire_as(cfg, job, &who, request, !asked, &ev);
	} else
		hold_release(cfg, job, &ev);
	unit_cgroup_memo_end();
	if (ev & EV_UNIT_FAILED)
		log_msg(LOG_ERROR, "the job is not affected: it runs without the exporter");
	/* What the job waited for (the lock, and a start with start=wait):
	 * the figures to look at when a prolog seems slow. */
	statefile_lock_times(&lt);
	log_msg(LOG_VERBOSE, "done in %.1f ms (state lock: waited %.1f ms, held %.1f ms)",
		(double)(clock_us() - t0) / 1000.0, (double)lt.wait_us / 1000.0,
		(double)lt.held_us / 1000.0);
}
