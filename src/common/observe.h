/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A held job as its probe sets see it: its record (jobinfo.h: user,
 * SLUID, sets, the textfile's join key) and its place in each set's
 * probe filter (jobmap.h). Only with probe sets; the hold (hold.h) calls
 * these under the state lock, after the state is committed and the units
 * started, so the filter is filled once the probes exist:
 *
 *   join   the record is written; the job is admitted to the running
 *          instance of each set it newly holds (an instance starting in
 *          the background admits its holders itself: observe_admit_all);
 *   leave  the record gets its end; the job leaves every filter, so the
 *          probes drop whatever it still does;
 *   prune  records ended longer ago than the longest linger of their
 *          sets go, with their series in the instances still running:
 *          Prometheus then sees them go stale.
 *
 * None of this can fail a job: errors are logged, the hold goes on. */
#ifndef SPANK_EBPF_OBSERVE_H
#define SPANK_EBPF_OBSERVE_H

#include <stdint.h>

#include "config.h"
#include "jobset.h"
#include "sets.h"
#include "statefile.h"

/* Who the job is, as Slurm's prolog environment says (jobhook.h). */
struct job_who {
	const char *user;   /* SLURM_JOB_USER, or NULL */
	const char *sluid;  /* SLURM_JOB_SLUID (Slurm 25.11+), or NULL */
	const char *uid;    /* SLURM_JOB_UID, or NULL (last: older initializers) */
};

/* set: the committed state; mask: the targets the job newly holds. */
void observe_join(struct statefile *sf, const struct config *cfg, const struct sets *sets,
		  const struct jobset *set, uint32_t job, const struct job_who *who,
		  uint32_t mask);
/* mask: the targets the job held. */
void observe_leave(struct statefile *sf, const struct config *cfg, const struct sets *sets,
		   const struct jobset *set, uint32_t job, uint32_t mask);
/* Also run by reconcile; a record whose job the state no longer names
 * (dropped without its epilog) ends now. Returns how many records went. */
int observe_prune(struct statefile *sf, const struct config *cfg, const struct sets *sets,
		  const struct jobset *set);

/* The instance of set_name just started (its ExecStartPost): every job
 * the state says holds the set is admitted to its filter. Lock-free: a
 * prolog holding the lock may be waiting for this very start. Returns
 * how many jobs were admitted, -1 when the instance's filter is not
 * found (logged). */
int observe_admit_all(const struct config *cfg, const struct sets *sets, const char *set_name);

#endif
