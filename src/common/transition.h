/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The start/stop step: what every operation of the protocol (a hold, the
 * end of a linger window, a reconcile) does to the exporter's unit once
 * it has decided, with the state lock held. It runs systemctl (unit.h),
 * logs, and counts in <state>.stats (stats.h). It knows nothing of jobs
 * or windows: the layers above it decide, this one acts. */
#ifndef SPANK_EBPF_TRANSITION_H
#define SPANK_EBPF_TRANSITION_H

#include "config.h"
#include "statefile.h"

/* What an operation did, as bits, for callers that count (the admin
 * command's report, tests, benchmarks). Never an instruction. */
enum event {
	EV_CHANGED = 1,      /* the state file was rewritten */
	EV_STARTED = 2,      /* systemctl start was run */
	EV_STOPPED = 4,      /* systemctl stop was run */
	EV_UNIT_FAILED = 8,  /* ... and it failed or timed out */
	EV_RESTARTED = 16,   /* started again: it had died under its jobs */
	EV_LINGERING = 32,   /* the last job left: a linger window opened, no stop */
	EV_KEPT = 64,        /* a job joined within the window: no start */
};

/* What to do to the unit. */
enum transition {
	TRANSITION_START,    /* the first job arrived */
	TRANSITION_RESTART,  /* jobs hold it, but it is not running */
	TRANSITION_STOP,     /* no job holds it any more */
};

/* With the lock held: systemctl start or stop, logged and counted.
 * Returns the event bits of what happened. */
int transition_run(struct statefile *sf, const struct config *cfg, enum transition what);

#endif
