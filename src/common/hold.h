/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A job's hold on the exporter: the plugin's core logic, plain C.
 *
 * acquire: add the job to the state; if the set was empty, start the unit.
 * release: remove the job; if the set became empty, stop the unit.
 * Both run entirely under the state lock, so a start and a stop never
 * cross. The state is committed before systemctl runs: it records what
 * should be, and the unit is brought in line with it.
 *
 * A job joining a busy set also makes sure the unit did not die under the
 * jobs holding it: one stat() of the unit's cgroup, which systemd removes
 * when a service stops; if it is gone, the unit is started again. */
#ifndef SPANK_EBPF_HOLD_H
#define SPANK_EBPF_HOLD_H

#include <stdint.h>

#include "config.h"
#include "statefile.h"

enum hold_op { HOLD_ACQUIRE, HOLD_RELEASE };

/* What an update did, for callers that count (tests, benchmarks). */
enum hold_event {
	HOLD_CHANGED = 1,      /* the state file was rewritten */
	HOLD_STARTED = 2,      /* systemctl start was run */
	HOLD_STOPPED = 4,      /* systemctl stop was run */
	HOLD_UNIT_FAILED = 8,  /* ... and it failed or timed out */
	HOLD_RESTARTED = 16,   /* started again: it had died under its jobs */
	HOLD_LINGERING = 32,   /* the last job left: a linger window opened, no stop */
	HOLD_KEPT = 64,        /* a job joined within the window: no start */
};

/* Returns 0 when the state was updated (or needed no update), -1 when it
 * could not be (logged). A failed start/stop is not an error here: it is
 * logged and reported through *events. events may be NULL. */
int hold_update(const struct config *cfg, uint32_t job, enum hold_op op,
		int *events);

/* For the protocol's other operations (reconcile): with the lock held,
 * run systemctl start (what = HOLD_STARTED, or HOLD_RESTARTED for a unit
 * that died under its jobs) or stop (HOLD_STOPPED), logged and counted in
 * <state>.stats. Returns the hold_event bits of what happened. */
int hold_transition(struct statefile *sf, const struct config *cfg, enum hold_event what);

/* Lock-free: does the state name this job? A hint only. */
int hold_is_held(const struct config *cfg, uint32_t job);

#endif
