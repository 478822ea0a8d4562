/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The start/stop step. See transition.h. */
#include <stdbool.h>

#include "stats.h"
#include "transition.h"
#include "unit.h"

int transition_run(struct statefile *sf, const struct config *cfg, enum transition what)
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
	if (unit_action(cfg, start ? "start" : "stop", &ms) < 0) {
		ev |= EV_UNIT_FAILED;
		add.v[start ? STAT_START_FAILURES : STAT_STOP_FAILURES] = 1;
		stats_update(sf, &add, STAT_COUNT, 0);
	} else {
		stats_update(sf, &add, start ? STAT_LAST_START_MS : STAT_LAST_STOP_MS, ms);
	}
	return ev;
}
