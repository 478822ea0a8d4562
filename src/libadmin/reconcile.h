/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Healing a node's holds: under the same lock and atomic-write protocol as
 * the plugin's hooks, ask Slurm about every held job, drop the ones it
 * says are gone (a leaked hold: an epilog that gave up, a node that
 * crashed mid-epilog), then bring the unit in line with what is left
 * (stop it when nobody holds it, start it when held and dead). Any doubt
 * (Slurm or systemd cannot answer) changes nothing. */
#ifndef SPANK_EBPF_RECONCILE_H
#define SPANK_EBPF_RECONCILE_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "jobset.h"
#include "slurmjobs.h"
#include "unit.h"

/* One unit reconciled: unit=, or a probe set's instance. */
struct reconcile_target {
	char name[JOBSET_NAME_MAX + 1]; /* "-" or the set's name */
	char unit_name[CONFIG_UNIT_MAX];
	size_t held;            /* jobs holding it, after the removals */
	enum unit_state unit;   /* what systemd said, before any action */
	int events;             /* event bits: what was (would be) done */
	long linger_left;       /* seconds left in its window, or -1 */
};

struct reconcile_report {
	size_t held;            /* jobs in the state when it started */
	size_t removed;         /* removed (or that would be, dry run) */
	bool damaged;           /* the state file was damaged (salvaged) */
	enum unit_state unit;   /* the first target's (unit= without sets) */
	int unit_events;        /* every target's event bits, together */
	long linger_left;       /* the first target's window, or -1 */
	int ntargets;
	struct reconcile_target targets[JOBSET_SETS_MAX];
	char why[400];          /* when it could not tell: why */
};

/* Returns 0 when the node is in line (whether or not anything changed), 1
 * when it could not tell (nothing changed), -1 when the state is unusable
 * (logged). dry_run: reads without the lock, decides, changes nothing. */
int reconcile_run(const struct config *cfg, struct slurm_ask *ask, bool dry_run,
		  struct reconcile_report *rep);

#endif
