/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A job's hold on the exporter. See hold.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "hold.h"
#include "jobset.h"
#include "linger.h"
#include "log.h"
#include "observe.h"
#include "unit.h"

/* The sets file, read once per hook (a prolog or epilog is a process of
 * its own): static, it is too big for the stack of a prolog. */
static struct sets loaded_sets;

/* The sets file, or NULL: none configured, or it cannot be read (said). */
static const struct sets *load_sets(const struct config *cfg, bool *unreadable)
{
	char err[600];

	*unreadable = false;
	if (!cfg->sets[0])
		return NULL;
	if (sets_load(cfg->sets, &loaded_sets, err, sizeof(err)) == 0)
		return &loaded_sets;
	log_msg(LOG_ERROR, "%s", err);
	*unreadable = true;
	return NULL;
}

/* "io 1, sched 2": the holders of each target the mask names. */
static void holders_text(const struct jobset *set, uint32_t mask, char *buf, size_t len)
{
	size_t n = 0;
	int b;

	buf[0] = '\0';
	for (b = 0; b < set->nnames && n < len; b++)
		if (mask & (1u << b))
			n += (size_t)snprintf(buf + n, len - n, "%s%s %zu", n ? ", " : "",
					      set->names[b], jobset_holders(set, b));
}

/* The refcount line: the jobs, and with probe sets each set's holders. */
static void log_refcount(const struct jobset *set, uint32_t mask)
{
	char per[400];

	if (set->nnames == 1 && !strcmp(set->names[0], JOBSET_LEGACY)) {
		log_msg(LOG_INFO, "refcount now %zu", set->n);
		return;
	}
	holders_text(set, mask, per, sizeof(per));
	log_msg(LOG_INFO, "refcount now %zu; %s", set->n, per);
}

/* The request as bits of set's table: "-" without probe sets; else the
 * sets of the job's --ebpf value (default= when plain), or always= for a
 * job that did not ask, under mode=always. Unknown names are refused:
 * the node never trusts the submit host's check. */
static uint32_t request_mask(const struct config *cfg, const struct sets *sets,
			     struct jobset *set, const char *value, bool always)
{
	char bad[64], allowed[400];
	uint32_t want = 0, mask = 0;
	int i, bit;

	if (!cfg->sets[0]) {
		bit = jobset_bit(set, JOBSET_LEGACY, 1);
		return bit < 0 ? 0 : 1u << bit;
	}
	if (!sets)
		return 0;
	if (always) {
		want = sets->always_mask;
	} else if (sets_request(sets, value, &want, bad, sizeof(bad)) < 0) {
		sets_allowed(sets, allowed, sizeof(allowed));
		if (bad[0])
			log_msg(LOG_ERROR, "unknown probe set \"%s\"; allowed: %s: not held", bad, allowed);
		else
			log_msg(LOG_ERROR, "an empty probe set name (a stray comma); allowed: %s: not held",
				allowed);
	}
	for (i = 0; i < sets->n; i++) {
		if (!(want & (1u << i)))
			continue;
		bit = jobset_bit(set, sets->set[i].name, strlen(sets->set[i].name));
		if (bit < 0)
			log_msg(LOG_ERROR, "cannot hold set %s: the state already names %d sets",
				sets->set[i].name, JOBSET_SETS_MAX);
		else
			mask |= 1u << bit;
	}
	return mask;
}

/* The job newly holds the target of bit: its unit starts with the first
 * holder (or stays, inside its linger window), and is started again if
 * it died under the holders before it. */
static int join_target(struct statefile *sf, const struct config *cfg, const struct sets *sets,
		       const struct jobset *set, int bit, size_t before)
{
	struct target t;

	target_of(cfg, sets, set->names[bit], &t);
	/* Running (or lingering, or dead under its holders): the one started. */
	target_recorded(sf, &t);
	if (before == 0) {
		if (linger_close(sf, &t) && !unit_is_dead(cfg, t.unit)) {
			log_msg(LOG_INFO, "joined within the linger window: %s keeps running", t.unit);
			return EV_KEPT;
		}
		return transition_run(sf, cfg, &t, TRANSITION_START);
	}
	if (unit_is_dead(cfg, t.unit)) {
		log_msg(LOG_ERROR, "%s is not running although %zu other job%s it; starting it again",
			t.unit, before, before == 1 ? " holds" : "s hold");
		return transition_run(sf, cfg, &t, TRANSITION_RESTART);
	}
	return 0;
}

/* The last holder of the target of bit left: a linger window, or a stop. */
static int leave_target(struct statefile *sf, const struct config *cfg, const struct sets *sets,
			const struct jobset *set, int bit)
{
	char display[CONFIG_UNIT_MAX];
	struct target t;

	target_of(cfg, sets, set->names[bit], &t);
	/* The unit started, whatever the sets file says now; one never
	 * noted (started by hand, or by a release before the notes) is not
	 * this epilog's to stop: reconcile stops it if nobody holds it. */
	if (strcmp(t.name, JOBSET_LEGACY) && !target_recorded(sf, &t)) {
		log_msg(LOG_INFO, "set %s: no unit noted as started for it; left for spank-ebpf reconcile",
			t.name);
		return 0;
	}
	if (t.linger > 0 && linger_open(sf, cfg, &t) == 0) {
		unit_display(t.unit, display, sizeof(display));
		log_msg(LOG_INFO, "keeping %s for %u s", display, t.linger);
		return EV_LINGERING;
	}
	return transition_run(sf, cfg, &t, TRANSITION_STOP);
}

int hold_acquire(const struct config *cfg, uint32_t job, const char *value, bool always,
		 int *events)
{
	return hold_acquire_as(cfg, job, NULL, value, always, events);
}

int hold_acquire_as(const struct config *cfg, uint32_t job, const struct job_who *who,
		    const char *value, bool always, int *events)
{
	size_t before[JOBSET_SETS_MAX];
	const struct sets *sets;
	struct statefile sf;
	struct jobset set;
	uint32_t mask, had;
	char names[400];
	bool unreadable;
	int changed, damaged, b, ev = 0, rc = -1;

	jobset_init(&set);
	sets = load_sets(cfg, &unreadable);
	if (unreadable) {
		log_msg(LOG_ERROR, "without its probe sets the job holds nothing");
		goto out_unlocked;
	}
	if (statefile_open_locked(&sf, cfg->state, cfg->lock_timeout * 1000) < 0 ||
	    (damaged = statefile_load(&sf, &set)) < 0)
		goto out;
	mask = request_mask(cfg, sets, &set, value, always);
	if (mask == 0) {
		rc = 0;
		goto out;
	}
	had = jobset_mask(&set, job);
	for (b = 0; b < set.nnames; b++)
		before[b] = jobset_holders(&set, b);
	changed = jobset_hold(&set, job, mask);
	if (changed < 0) {
		log_msg(LOG_ERROR, "cannot add the job: the state already holds %zu jobs, the most it takes",
			set.n);
		goto out;
	}
	if (changed == 0) {
		jobset_names_text(&set, mask, names, sizeof(names));
		log_msg(LOG_INFO, "the job already holds %s; refcount stays %zu",
			cfg->sets[0] ? names : cfg->unit, set.n);
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
	log_refcount(&set, mask);
	for (b = 0; b < set.nnames; b++)
		if ((mask & ~had) & (1u << b))
			ev |= join_target(&sf, cfg, sets, &set, b, before[b]);
	observe_join(&sf, cfg, sets, &set, job, who, mask & ~had);
out:
	statefile_close(&sf);
out_unlocked:
	jobset_free(&set);
	if (events)
		*events = ev;
	return rc;
}

int hold_release(const struct config *cfg, uint32_t job, int *events)
{
	const struct sets *sets;
	struct statefile sf;
	struct jobset set;
	uint32_t mask;
	bool unreadable;
	int damaged, b, ev = 0, rc = -1;

	jobset_init(&set);
	/* Unreadable, the sets file still lets the job go: its units are the
	 * default template's, and the line's linger applies. */
	sets = load_sets(cfg, &unreadable);
	if (statefile_open_locked(&sf, cfg->state, cfg->lock_timeout * 1000) < 0 ||
	    (damaged = statefile_load(&sf, &set)) < 0)
		goto out;
	mask = jobset_mask(&set, job);
	if (mask == 0) {
		log_msg(LOG_INFO, "the job holds no reference on %s; refcount stays %zu",
			cfg->sets[0] ? "any probe set" : cfg->unit, set.n);
		if (damaged && statefile_store(&sf, &set) == 0)
			ev |= EV_CHANGED;
		rc = 0;
		goto out;
	}
	jobset_release(&set, job, ~0u);
	if (statefile_store(&sf, &set) < 0)
		goto out;
	ev |= EV_CHANGED;
	rc = 0;
	log_refcount(&set, mask);
	observe_leave(&sf, cfg, sets, &set, job, mask);
	for (b = 0; b < set.nnames; b++)
		if ((mask & (1u << b)) && jobset_holders(&set, b) == 0)
			ev |= leave_target(&sf, cfg, sets, &set, b);
out:
	statefile_close(&sf);
	jobset_free(&set);
	if (events)
		*events = ev;
	return rc;
}

int hold_update(const struct config *cfg, uint32_t job, enum hold_op op, int *events)
{
	return op == HOLD_ACQUIRE ? hold_acquire(cfg, job, NULL, false, events) :
				    hold_release(cfg, job, events);
}

int hold_is_held(const struct config *cfg, uint32_t job)
{
	return statefile_peek(cfg->state, job);
}
