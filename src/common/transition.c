/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The start/stop step. See transition.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "stats.h"
#include "transition.h"
#include "unit.h"

void target_of(const struct config *cfg, const struct sets *sets, const char *name,
	       struct target *t)
{
	static const struct sets fallback = { .unit = "spank-ebpf-exporter@.service" };
	int i = sets ? sets_find(sets, name, strlen(name)) : -1;

	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "%s", name);
	if (!strcmp(name, JOBSET_LEGACY)) {
		snprintf(t->unit, sizeof(t->unit), "%s", cfg->unit);
		t->linger = cfg->linger;
		return;
	}
	sets_unit(sets ? sets : &fallback, name, t->unit, sizeof(t->unit));
	snprintf(t->aux, sizeof(t->aux), ".%s", name);
	t->linger = i >= 0 && sets->set[i].linger_given ? sets->set[i].linger : cfg->linger;
}

int target_names(const struct config *cfg, const struct sets *sets, struct jobset *set)
{
	int i;

	if (!cfg->sets[0])
		jobset_bit(set, JOBSET_LEGACY, 1);
	for (i = 0; sets && i < sets->n; i++)
		jobset_bit(set, sets->set[i].name, strlen(sets->set[i].name));
	return set->nnames;
}

int transition_run(struct statefile *sf, const struct config *cfg, const struct target *t,
		   enum transition what)
{
	bool start = what != TRANSITION_STOP;
	struct stats add = { { 0 } };
	unsigned long ms = 0;
	int ev = start ? EV_STARTED : EV_STOPPED;

	if (what == TRANSITION_RESTART) {
		ev |= EV_RESTARTED;
		add.v[STAT_RESTARTS] = 1;
	}
	add.v[start ? STAT_STARTS : STAT_STOPS] = 1;
	if (unit_action(cfg, t->unit, start ? "start" : "stop", &ms) < 0) {
		ev |= EV_UNIT_FAILED;
		add.v[start ? STAT_START_FAILURES : STAT_STOP_FAILURES] = 1;
		stats_update_of(sf, t->aux, &add, STAT_COUNT, 0);
	} else {
		stats_update_of(sf, t->aux, &add, start ? STAT_LAST_START_MS : STAT_LAST_STOP_MS, ms);
	}
	return ev;
}
