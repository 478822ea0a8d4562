/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A job's hold on the exporter. See hold.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "hold.h"
#include "jobset.h"
#include "linger.h"
#include "log.h"
#include "unit.h"

int hold_update(const struct config *cfg, uint32_t job, enum hold_op op,
		int *events)
{
	struct statefile sf;
	struct jobset set;
	size_t before;
	int changed, damaged, ev = 0, rc = -1;

	jobset_init(&set);
	if (statefile_open_locked(&sf, cfg->state, cfg->lock_timeout * 1000) < 0 ||
	    (damaged = statefile_load(&sf, &set)) < 0)
		goto out;

	before = set.n;
	changed = op == HOLD_ACQUIRE ? jobset_add(&set, job) : jobset_remove(&set, job);
	if (changed < 0) {
		log_msg(LOG_ERROR, "cannot add the job: the state already holds %zu jobs, the most it takes",
			set.n);
		goto out;
	}
	if (changed == 0) {
		log_msg(LOG_INFO, op == HOLD_ACQUIRE ?
			"the job already holds %s; refcount stays %zu" :
			"the job holds no reference on %s; refcount stays %zu",
			cfg->unit, set.n);
		/* A damaged file is rewritten clean even when nothing changed,
		 * so that its damage is reported once. */
		if (damaged && statefile_store(&sf, &set) == 0)
			ev |= EV_CHANGED;
		rc = 0;
		goto out;
	}
	if (statefile_store(&sf, &set) < 0)
		goto out;
	ev |= EV_CHANGED;
	rc = 0;
	log_msg(LOG_INFO, "refcount now %zu", set.n);

	if (before == 0 && set.n > 0) {
		if (linger_close(&sf, cfg) && !unit_is_dead(cfg)) {
			log_msg(LOG_INFO, "joined within the linger window: %s keeps running",
				cfg->unit);
			ev |= EV_KEPT;
		} else {
			ev |= transition_run(&sf, cfg, TRANSITION_START);
		}
	} else if (before > 0 && set.n == 0) {
		if (cfg->linger > 0 && linger_open(&sf, cfg) == 0) {
			char display[CONFIG_UNIT_MAX];

			config_unit_display(cfg, display, sizeof(display));
			log_msg(LOG_INFO, "keeping %s for %u s", display, cfg->linger);
			ev |= EV_LINGERING;
		} else {
			ev |= transition_run(&sf, cfg, TRANSITION_STOP);
		}
	} else if (op == HOLD_ACQUIRE && unit_is_dead(cfg)) {
		log_msg(LOG_ERROR, "%s is not running although %zu other jobs hold it; starting it again",
			cfg->unit, before);
		ev |= transition_run(&sf, cfg, TRANSITION_RESTART);
	}
out:
	statefile_close(&sf);
	jobset_free(&set);
	if (events)
		*events = ev;
	return rc;
}

int hold_is_held(const struct config *cfg, uint32_t job)
{
	return statefile_peek(cfg->state, job);
}
