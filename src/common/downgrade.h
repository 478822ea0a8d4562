/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Getting a node ready for the release before probe sets (0b57a39), under
 * running jobs (issue 30, item 6). That release reads only form 1 of the
 * state (jobset.h: a count and job IDs, every job holding unit=), knows
 * nothing of set instances, and refuses anything else: left as it is, it
 * would keep no job, stop unit= under a running job and never stop a
 * set's instance. So, before its files land (the packages' prerm), with
 * the state lock held:
 *
 *   1. every job keeps a hold, in the only form the older release has: a
 *      job that held probe sets now holds unit= instead (what --ebpf
 *      means there), so no hold is lost; the state is stored in form 1;
 *   2. those jobs leave the sets' filters, their records end;
 *   3. every set instance jobs held, or still running (a linger window),
 *      is stopped, its window forgotten; unit= is started if only sets
 *      were held (a failed start is said, not fatal: the older release's
 *      reconcile starts a held unit again);
 *   4. the marker <state>.sets-off lists the jobs whose sets were switched
 *      off ("spank_ebpf sets-off", "sets <sets file>", then one ID a
 *      line): a cancelled downgrade, or this release installed again,
 *      never gives them their sets back (hold.c): their filters and
 *      records are gone, and their figures would only be partial. A later
 *      run with sets= already off the line (the older release refuses it)
 *      still finds the sets' own units through the file it names.
 *      `--cancel` removes it.
 *
 * Every job stays counted, so the older release stops unit= only after
 * the last of them. */
#ifndef SPANK_EBPF_DOWNGRADE_H
#define SPANK_EBPF_DOWNGRADE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "jobset.h"
#include "statefile.h"

#define DOWNGRADE_MARKER ".sets-off"
#define DOWNGRADE_MARKER_LINE "spank_ebpf sets-off"
#define DOWNGRADE_SHOWN_JOBS 16

struct downgrade_report {
	size_t jobs;              /* in the state before */
	size_t kept;              /* holding unit= after: the older release's form */
	size_t switched_off;      /* jobs whose probe sets became unit= */
	uint32_t shown[DOWNGRADE_SHOWN_JOBS]; /* the first switched-off jobs */
	int nstopped;             /* set instances stopped */
	char stopped[JOBSET_SETS_MAX][CONFIG_UNIT_MAX];
	int nfailed;              /* ... of which systemctl stop failed */
	char started[CONFIG_UNIT_MAX]; /* unit=, when started for them ("": not) */
	bool start_failed;        /* ... and its start failed */
	bool marker;              /* prepare: marker written; cancel: removed */
	bool damaged;             /* the state file was damaged (salvaged) */
	bool no_state;            /* prepare: no state directory, nothing done */
};

/* Steps 1-4 above. Returns 0 when the node is ready for the older
 * release, 1 when a set instance could not be stopped or the marker not
 * written (the state is converted all the same: run it again), -1 when
 * the state cannot be used (logged; nothing changed). Without the state's
 * directory (a submit host) it does nothing: 0, rep->no_state. */
int downgrade_prepare(const struct config *cfg, struct downgrade_report *rep);

/* Removes the marker, under the lock. Returns 0 (rep->marker: it was
 * there), -1 when the state cannot be used. */
int downgrade_cancel(const struct config *cfg, struct downgrade_report *rep);

/* With the lock held: does the marker name job (its sets were switched
 * off for a downgrade)? 1 yes, 0 no or no marker. */
int downgrade_switched_off(struct statefile *sf, uint32_t job);

#endif
