/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Counters of the exporter's transitions, kept in <state>.stats beside the
 * state file so that they outlive the short-lived prolog and epilog
 * processes (and, on tmpfs, are forgotten at reboot, as Prometheus
 * counters may be). Written under the state lock and only on transitions
 * (a start, a stop, a reconcile), never on a plain join or leave, so the
 * common path costs nothing more. Text form, one "name value" per line;
 * unknown names are ignored and damaged lines skipped, so an older or
 * newer version's file is read as far as it is understood. */
#ifndef SPANK_EBPF_STATS_H
#define SPANK_EBPF_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "statefile.h"

enum stat_id {
	STAT_STARTS,              /* systemctl start run (first job, restart, reconcile) */
	STAT_STOPS,               /* systemctl stop run */
	STAT_START_FAILURES,
	STAT_STOP_FAILURES,
	STAT_RESTARTS,            /* starts of a unit that died under its jobs */
	STAT_RECONCILE_RUNS,
	STAT_RECONCILE_FAILURES,  /* reconciles that could not tell (changed nothing) */
	STAT_RECONCILE_REMOVED,   /* job IDs removed because Slurm said they are gone */
	STAT_LAST_START_MS,       /* duration of the last successful start */
	STAT_LAST_STOP_MS,
	STAT_NOT_OBSERVED_RECORDS_FULL, /* jobs held but kept out of the set's filter:
					 * JOBINFO_MAX records already kept */
	STAT_NOT_OBSERVED_USER_SHARE, /* jobs held but kept out of the set's filter:
				       * their user's jobs had half its capacity */
	STAT_COUNT
};

struct stats {
	uint64_t v[STAT_COUNT];
};

const char *stats_name(enum stat_id id);

/* Parses the text form into *st (zeroed first). Returns the number of
 * lines it could not read. */
int stats_parse(struct stats *st, const char *buf, size_t len);
size_t stats_format(const struct stats *st, char *buf, size_t cap);

/* Reads <state>.stats (missing: all zero). Returns 0, -1 (logged) when it
 * cannot be used. */
int stats_load(struct statefile *sf, struct stats *st);
/* The same for a probe set's counters, <state>.stats<aux> (aux ".io"). */
int stats_load_of(struct statefile *sf, const char *aux, struct stats *st);

/* Under the lock: reads, adds *add, sets gauge gid to gval (when gid <
 * STAT_COUNT), writes back. Failures are logged and otherwise ignored:
 * counters never hold a job back. */
void stats_update(struct statefile *sf, const struct stats *add, enum stat_id gid,
		  uint64_t gval);
void stats_update_of(struct statefile *sf, const char *aux, const struct stats *add,
		     enum stat_id gid, uint64_t gval);

#endif
