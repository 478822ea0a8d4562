/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The start/stop step: what every operation of the protocol (a hold, the
 * end of a linger window, a reconcile) does to the exporter's unit once
 * it has decided, with the state lock held. It runs systemctl (unit.h),
 * logs, and counts in <state>.stats (stats.h). It knows nothing of jobs
 * or windows: the layers above it decide, this one acts. */
#ifndef SPANK_EBPF_TRANSITION_H
#define SPANK_EBPF_TRANSITION_H

#include "config.h"
#include "jobset.h"
#include "sets.h"
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

/* One unit the state's jobs hold: unit= itself ("-", without probe
 * sets), or a probe set's instance of the sets file's template. Its
 * counters and linger window are files beside the state: <state>.stats
 * and <state>.linger for "-", <state>.stats.<set> and .linger.<set> for
 * a set. */
struct target {
	char name[JOBSET_NAME_MAX + 1];  /* "-" or the set's name */
	char unit[CONFIG_UNIT_MAX];      /* the systemd unit */
	char aux[JOBSET_NAME_MAX + 2];   /* "" or ".<set>" */
	unsigned int linger;             /* seconds */
};

/* The target called name. sets: the sets file (NULL when it cannot be
 * read: a set's unit is then the default template's, its linger the
 * line's). A set no longer declared keeps its unit, to be released. */
void target_of(const struct config *cfg, const struct sets *sets, const char *name,
	       struct target *t);

/* The targets to look after, as names in set's table (returns how many):
 * every one the state names (held, or no longer), every declared set, and
 * unit= without sets. */
int target_names(const struct config *cfg, const struct sets *sets, struct jobset *set);

/* With the lock held: systemctl start or stop of the target's unit,
 * logged and counted. Returns the event bits of what happened. A probe
 * set's start first notes the unit's exact name in <state>.units; a
 * successful stop forgets it. */
int transition_run(struct statefile *sf, const struct config *cfg, const struct target *t,
		   enum transition what);

/* What the plugin started, whatever the sets file or sets= say now (a
 * custom template, a sets file changed or unreadable, sets= removed):
 * <state>.units, root's, one "<set> <unit>" per line. A stop goes to the
 * recorded name; a set's unit never recorded is never stopped by a job's
 * epilog or a linger's end (reconcile looks after it).
 *
 * target_recorded: t->unit becomes the unit started for t's set and 1 is
 * returned; 0 (t unchanged) when none is recorded or t is unit=.
 * target_forget: drops t's record (lock held).
 * target_recorded_names: registers every recorded set in set's table;
 * returns set->nnames. */
int target_recorded(struct statefile *sf, struct target *t);
void target_forget(struct statefile *sf, const struct target *t);
int target_recorded_names(struct statefile *sf, struct jobset *set);

#endif
