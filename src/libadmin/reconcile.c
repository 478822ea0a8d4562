/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Healing a node's holds. See reconcile.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "linger.h"
#include "log.h"
#include "observe.h"
#include "reconcile.h"
#include "statefile.h"
#include "stats.h"
#include "transition.h"
#include "unit.h"

static void count_run(struct statefile *sf, bool dry_run, bool failed, size_t removed)
{
	struct stats add = { { 0 } };

	if (dry_run)
		return;
	add.v[STAT_RECONCILE_RUNS] = 1;
	add.v[STAT_RECONCILE_FAILURES] = failed;
	add.v[STAT_RECONCILE_REMOVED] = removed;
	stats_update(sf, &add, STAT_COUNT, 0);
}

/* Drops the jobs Slurm says are gone. Returns how many, or -1 (unsure). */
static long drop_gone(struct slurm_ask *ask, struct jobset *set, bool dry_run,
		      struct reconcile_report *rep)
{
	struct job_answer *ans;
	struct jobset gone;
	size_t i;
	long n = 0;

	if (set->n == 0)
		return 0;
	ans = calloc(set->n, sizeof(*ans));
	if (!ans) {
		snprintf(rep->why, sizeof(rep->why), "out of memory");
		return -1;
	}
	if (slurmjobs_ask(ask, set, ans, rep->why, sizeof(rep->why)) < 0) {
		free(ans);
		return -1;
	}
	jobset_init(&gone);
	for (i = 0; i < set->n; i++) {
		if (ans[i].where != JOB_GONE)
			continue;
		log_msg(LOG_INFO, "%s job %u from the state: Slurm %s%s%s",
			dry_run ? "would remove" : "removing", set->ids[i],
			ans[i].state[0] ? "says it is " : "does not list it on node ",
			ans[i].state[0] ? ans[i].state : slurmjobs_node(ask, rep->why, sizeof(rep->why)),
			ans[i].state[0] ? "" : " any more");
		if (jobset_add(&gone, set->ids[i]) < 0) {
			snprintf(rep->why, sizeof(rep->why), "out of memory");
			n = -1;
			break;
		}
	}
	for (i = 0; n >= 0 && i < gone.n; i++, n++)
		jobset_remove(set, gone.ids[i]);
	jobset_free(&gone);
	free(ans);
	return n;
}

/* An open window's end comes from its timer: the plugin's record says
 * which; systemd says whether it is still there. If not (stopped by hand,
 * lost), another is armed, so the window ends on time, not at the window's
 * next look. */
static void check_linger_timer(struct statefile *sf, const struct config *cfg,
			       const struct target *t, bool dry_run)
{
	char name[160], unit[170], word[200];
	long due_in = 0;
	enum unit_state st = UNIT_INACTIVE;

	if (linger_timer(sf, t, name, sizeof(name), &due_in) == 0 && due_in > 0) {
		snprintf(unit, sizeof(unit), "%s.timer", name);
		st = unit_query_unit(cfg, unit, word, sizeof(word));
		if (st == UNIT_ACTIVE)
			return;
		if (st == UNIT_UNKNOWN) {
			log_msg(LOG_ERROR, "cannot tell whether the linger timer %s is there (%s); leaving it as it is",
				unit, word);
			return;
		}
		log_msg(LOG_INFO, "the linger timer %s is gone (systemd says %s): %s", unit, word,
			dry_run ? "would arm another" : "arming another");
	} else {
		log_msg(LOG_INFO, "the linger window of %s has no pending timer: %s", t->unit,
			dry_run ? "would arm one" : "arming one");
	}
	if (!dry_run)
		linger_rearm(sf, cfg, t);
}

/* One target in line with its holders: a unit running for nobody is
 * stopped (outside its linger window), a held one not running is started.
 * Returns 0, or 1 when systemd cannot tell (nothing done). */
static int reconcile_target(struct statefile *sf, const struct config *cfg, const struct target *t,
			    size_t held, bool dry_run, struct reconcile_target *rt,
			    char *why, size_t whylen)
{
	char word[200];

	snprintf(rt->name, sizeof(rt->name), "%s", t->name);
	snprintf(rt->unit_name, sizeof(rt->unit_name), "%s", t->unit);
	rt->held = held;
	rt->linger_left = -1;
	rt->unit = unit_query_unit(cfg, t->unit, word, sizeof(word));
	if (rt->unit == UNIT_UNKNOWN) {
		snprintf(why, whylen, "cannot tell whether %.150s runs: %.200s", t->unit, word);
		log_msg(LOG_ERROR, "%s; leaving it as it is", why);
		return 1;
	}
	if (held == 0 && rt->unit == UNIT_ACTIVE && (rt->linger_left = linger_left(sf, t)) > 0) {
		log_msg(LOG_INFO, "%s runs with no job in its linger window (%ld s left): left as it is",
			t->unit, rt->linger_left);
		check_linger_timer(sf, cfg, t, dry_run);
	} else if (held == 0 && rt->unit == UNIT_ACTIVE) {
		/* No window, or one whose timer was lost: the backstop. */
		if (!dry_run)
			linger_forget(sf, t);
		log_msg(LOG_INFO, "%s is running but no job holds it: %s", t->unit,
			dry_run ? "would stop it" : "stopping it");
		rt->events = dry_run ? EV_STOPPED : transition_run(sf, cfg, t, TRANSITION_STOP);
	} else if (held == 0 && rt->unit == UNIT_INACTIVE && !dry_run) {
		target_forget(sf, t); /* stopped already: nothing left to note */
	} else if (held > 0 && rt->unit == UNIT_INACTIVE) {
		log_msg(LOG_INFO, "%s is not running although %zu jobs hold it: %s", t->unit,
			held, dry_run ? "would start it" : "starting it");
		rt->events = dry_run ? EV_STARTED | EV_RESTARTED :
				       transition_run(sf, cfg, t, TRANSITION_RESTART);
	}
	return 0;
}

int reconcile_run(const struct config *cfg, struct slurm_ask *ask, bool dry_run,
		  struct reconcile_report *rep)
{
	static struct sets sets_file;
	const struct sets *sets = NULL;
	struct statefile sf;
	struct jobset set;
	char err[600];
	long removed;
	int loaded, b, n, rc = -1;

	memset(rep, 0, sizeof(*rep));
	rep->linger_left = -1;
	jobset_init(&set);
	if ((dry_run ? statefile_open(&sf, cfg->state) :
		       statefile_open_locked(&sf, cfg->state, cfg->lock_timeout * 1000)) < 0 ||
	    (loaded = statefile_load(&sf, &set)) < 0)
		goto out;
	rep->held = set.n;
	rep->damaged = loaded > 0;

	/* Slurm first: what is left decides what the units should be. */
	removed = drop_gone(ask, &set, dry_run, rep);
	if (removed < 0) {
		log_msg(LOG_ERROR, "cannot tell which of the %zu held jobs still run here (%s); nothing changed",
			rep->held, rep->why);
		count_run(&sf, dry_run, true, 0);
		rc = 1;
		goto out;
	}
	rep->removed = (size_t)removed;
	if (!dry_run && (removed > 0 || rep->damaged) && statefile_store(&sf, &set) < 0)
		goto out;
	if (removed > 0 && dry_run)
		log_msg(LOG_INFO, "would leave %zu job%s in the state", set.n, set.n == 1 ? "" : "s");
	else if (removed > 0)
		log_msg(LOG_INFO, "refcount now %zu", set.n);

	/* Unreadable, the sets file still lets held sets be brought in line
	 * (the default template's units); its declared idle ones are unknown. */
	if (cfg->sets[0] && sets_load(cfg->sets, &sets_file, err, sizeof(err)) == 0)
		sets = &sets_file;
	else if (cfg->sets[0])
		log_msg(LOG_ERROR, "%s", err);
	rc = 0;
	/* Jobs dropped leave their filters while their units still run. */
	if (!dry_run)
		observe_prune(&sf, cfg, sets, &set);
	target_names(cfg, sets, &set);
	/* And every set whose unit was started, declared or not (transition.h). */
	n = target_recorded_names(&sf, &set);
	for (b = 0; b < n && rep->ntargets < JOBSET_SETS_MAX; b++) {
		struct reconcile_target *rt = &rep->targets[rep->ntargets++];
		struct target t;
		char why[400];

		target_of(cfg, sets, set.names[b], &t);
		target_recorded(&sf, &t);
		if (reconcile_target(&sf, cfg, &t, jobset_holders(&set, b), dry_run, rt, why, sizeof(why))) {
			snprintf(rep->why, sizeof(rep->why), "%s", why);
			rc = 1;
		}
		rep->unit_events |= rt->events;
	}
	/* The first target's (unit= without sets) as before sets existed. */
	if (rep->ntargets) {
		rep->unit = rep->targets[0].unit;
		rep->linger_left = rep->targets[0].linger_left;
	}
	count_run(&sf, dry_run, rc != 0, rep->removed);
out:
	statefile_close(&sf);
	jobset_free(&set);
	return rc;
}
