/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A held job as its probe sets see it. See observe.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "jobinfo.h"
#include "jobmap.h"
#include "log.h"
#include "observe.h"
#include "stats.h"
#include "transition.h"

#define TEXTFILE_NOTE ".textfile"

/* The records and node_exporter's textfile, written where the sets file
 * says. The place is noted in <state>.textfile ("DIR GROUP"), so that
 * with the sets file unreadable or sets= gone an ended job's line still
 * leaves the file it was written to; never noted, the file is left as it
 * is rather than guessed at. */
static void observe_store(struct statefile *sf, const struct sets *sets,
			  const struct jobinfo_list *l)
{
	char note[SETS_PATH_MAX + SETS_GROUP_MAX + 4], want[sizeof(note)], *sp;
	size_t len = 0;
	int n;

	if (statefile_read_aux(sf, TEXTFILE_NOTE, note, sizeof(note), &len) != 0)
		note[0] = '\0';
	if (sets) {
		n = snprintf(want, sizeof(want), "%s %s\n", sets->textfile, sets->textfile_group);
		if (strcmp(note, want))
			statefile_write_aux(sf, TEXTFILE_NOTE, "textfile note", want, (size_t)n);
		jobinfo_store(sf, sets->textfile, sets->textfile_group, l);
		return;
	}
	sp = strchr(note, ' ');
	if (!sp || note[0] != '/') {
		jobinfo_store(sf, NULL, NULL, l);
		return;
	}
	*sp = '\0';
	sp[1 + strcspn(sp + 1, "\n")] = '\0';
	jobinfo_store(sf, note, sp + 1, l);
}

/* The project's configs among the set's (bits of spank_job_val). */
static uint32_t observe_set_configs(const struct sets *sets, const char *name)
{
	int i = sets ? sets_find(sets, name, strlen(name)) : -1;

	return i < 0 ? 0 : jobmap_config_bits(sets->set[i].configs);
}

/* The filter of the set's instance, when it runs one: the unit started
 * for the set (transition.h), else the sets file's. */
static int observe_open_filter(struct statefile *sf, const struct config *cfg,
			       const struct sets *sets, const char *name, struct jobmap *m)
{
	struct target t;

	target_of(cfg, sets, name, &t);
	target_recorded(sf, &t);
	return jobmap_open(cfg, t.unit, m);
}

/* Records to look after: with sets=, or (sets= gone) when some are left. */
static bool observe_has_records(struct statefile *sf, const struct config *cfg)
{
	return cfg->sets[0] || statefile_has_aux(sf, ".jobs");
}

/* The set is among the record's ("io,sched"). */
static bool observe_record_holds(const struct jobinfo *j, const char *name)
{
	size_t len = strlen(name);
	const char *c = j->sets;

	while (*c) {
		size_t n = strcspn(c, ",");

		if (n == len && !strncmp(c, name, len))
			return true;
		c += n + (c[n] ? 1 : 0);
	}
	return false;
}

/* The user's running jobs in the set's filter (besides job) already take
 * half of its capacity: one user's job array must not crowd out everyone
 * else's, the maps being sized for that capacity (probes/README.md). A
 * user is a uid; a job whose uid Slurm did not give is not limited. */
static bool observe_user_share_full(const struct jobmap *m, const struct jobinfo_list *l,
				    uint32_t job, long long uid, const char *name)
{
	uint32_t n = 0, half = m->capacity / 2 ? m->capacity / 2 : 1;
	size_t i;

	if (uid == JOBINFO_UID_NONE || m->capacity == 0)
		return false;
	for (i = 0; i < l->n && n < half; i++) {
		const struct jobinfo *j = &l->jobs[i];

		if (j->job != job && j->uid == uid && j->end == 0 && observe_record_holds(j, name) &&
		    jobmap_has(m, j->job))
			n++;
	}
	return n >= half;
}

/* Held, not observed: said, and counted per set (sf locked; NULL from
 * the lock-free admit_all, where it is only said). */
static void observe_refuse_share(struct statefile *sf, const struct config *cfg,
				 const struct sets *sets, const char *name, long long uid,
				 uint32_t capacity)
{
	struct stats add = { { 0 } };
	struct target t;

	log_msg(LOG_ERROR, "not observed by set %s: uid %lld's jobs already take half of its probes' capacity (%u jobs); held, but in no probe filter",
		name, uid, capacity);
	if (!sf)
		return;
	add.v[STAT_NOT_OBSERVED_USER_SHARE] = 1;
	target_of(cfg, sets, name, &t);
	stats_update_of(sf, t.aux, &add, STAT_COUNT, 0);
}

static void observe_admit(struct statefile *sf, const struct config *cfg, const struct sets *sets,
			  const struct jobinfo_list *l, const char *name, uint32_t job,
			  const char *sluid, long long uid)
{
	uint32_t configs = observe_set_configs(sets, name);
	struct jobmap m;

	if (configs == 0)
		return; /* none of the project's configs: nothing filters by job */
	if (observe_open_filter(sf, cfg, sets, name, &m) == 1) {
		if (observe_user_share_full(&m, l, job, uid, name))
			observe_refuse_share(sf, cfg, sets, name, uid, m.capacity);
		else if (jobmap_admit(&m, job, sluid, configs) == 0)
			log_msg(LOG_VERBOSE, "admitted to the probes of set %s", name);
	}
	jobmap_close(&m);
}

/* No record, no admission: only a record says the job's SLUID key and
 * series must leave the filter and the maps when it ends. Counted per set
 * (not_observed_records_full), so the figures' gap shows in metrics. */
static void observe_not_observed(struct statefile *sf, const struct config *cfg,
				 const struct sets *sets, const struct jobset *set, uint32_t mask)
{
	struct stats add = { { 0 } };
	struct target t;
	int b;

	log_msg(LOG_ERROR, "not observed: the node already keeps %d job records (ended jobs wait out their linger); held, but in no probe filter",
		JOBINFO_MAX);
	add.v[STAT_NOT_OBSERVED_RECORDS_FULL] = 1;
	for (b = 0; b < set->nnames; b++)
		if (mask & (1u << b)) {
			target_of(cfg, sets, set->names[b], &t);
			stats_update_of(sf, t.aux, &add, STAT_COUNT, 0);
		}
}

void observe_join(struct statefile *sf, const struct config *cfg, const struct sets *sets,
		  const struct jobset *set, uint32_t job, const struct job_who *who, uint32_t mask)
{
	struct jobinfo_list l;
	struct jobinfo *j;
	char names[400];
	long long start;
	int b;

	if (!sets || jobinfo_load(sf, &l) < 0)
		return;
	jobset_names_text(set, jobset_mask(set, job), names, sizeof(names));
	j = jobinfo_find(&l, job);
	/* A running job joining again (its prolog and a RunInJob program)
	 * keeps its start; a new or requeued one starts now. */
	start = j && j->end == 0 ? j->start : jobinfo_now();
	j = jobinfo_put(&l, job, who ? who->user : NULL, who ? who->sluid : NULL, names);
	if (j) {
		j->uid = jobinfo_uid(who ? who->uid : NULL);
		j->start = start;
		observe_store(sf, sets, &l);
		for (b = 0; b < set->nnames; b++)
			if (mask & (1u << b))
				observe_admit(sf, cfg, sets, &l, set->names[b], job,
					      who ? who->sluid : NULL, j->uid);
	} else if (l.n >= JOBINFO_MAX) {
		observe_not_observed(sf, cfg, sets, set, mask);
	} else {
		log_msg(LOG_ERROR, "not observed: out of memory for the job's record");
	}
	jobinfo_free(&l);
}

void observe_leave(struct statefile *sf, const struct config *cfg, const struct sets *sets,
		   const struct jobset *set, uint32_t job, uint32_t mask)
{
	struct jobinfo_list l;
	struct jobinfo *j;
	struct jobmap m;
	int b;

	if (!observe_has_records(sf, cfg) || jobinfo_load(sf, &l) < 0)
		return;
	j = jobinfo_find(&l, job);
	for (b = 0; b < set->nnames; b++) {
		if (!(mask & (1u << b)))
			continue;
		if (observe_open_filter(sf, cfg, sets, set->names[b], &m) == 1)
			jobmap_dismiss(&m, job, j ? j->sluid : NULL);
		jobmap_close(&m);
	}
	if (j) {
		j->end = jobinfo_now();
		observe_store(sf, sets, &l);
	}
	jobinfo_free(&l);
	observe_prune(sf, cfg, sets, set);
}

/* How long an ended job's record and series stay: the longest linger of
 * its sets, so the last scrape of a lingering instance still has them. */
static unsigned int observe_grace(const struct config *cfg, const struct sets *sets,
				  const char *names)
{
	char name[JOBSET_NAME_MAX + 1];
	unsigned int grace = 0;
	const char *c = names;
	struct target t;

	while (*c) {
		size_t len = strcspn(c, ",");

		if (len <= JOBSET_NAME_MAX) {
			memcpy(name, c, len);
			name[len] = '\0';
			target_of(cfg, sets, name, &t);
			if (t.linger > grace)
				grace = t.linger;
		}
		c += len + (c[len] ? 1 : 0);
	}
	return grace;
}

/* An ended job leaves the filter of every instance of its sets, and
 * (series) its series leave them too. */
static void observe_forget(struct statefile *sf, const struct config *cfg, const struct sets *sets,
			   const struct jobinfo *j, bool series)
{
	char name[JOBSET_NAME_MAX + 1];
	const char *c = j->sets;
	struct jobmap m;
	int n;

	while (*c) {
		size_t len = strcspn(c, ",");

		if (len <= JOBSET_NAME_MAX) {
			memcpy(name, c, len);
			name[len] = '\0';
			if (observe_open_filter(sf, cfg, sets, name, &m) == 1) {
				/* Once more, in case a lock-free admit_all raced its leave. */
				jobmap_dismiss(&m, j->job, j->sluid);
				n = series ? jobmap_forget_series(&m, j->job) : 0;
				if (series)
					log_msg(LOG_VERBOSE, "job %u: %d series taken out of set %s",
						j->job, n, name);
			}
			jobmap_close(&m);
		}
		c += len + (c[len] ? 1 : 0);
	}
}

int observe_prune(struct statefile *sf, const struct config *cfg, const struct sets *sets,
		  const struct jobset *set)
{
	long long now = jobinfo_now();
	struct jobinfo_list l;
	bool changed = false;
	size_t i = 0;
	int gone = 0;

	if (!observe_has_records(sf, cfg) || jobinfo_load(sf, &l) < 0)
		return 0;
	while (i < l.n) {
		struct jobinfo *j = &l.jobs[i];

		/* Dropped from the state without its epilog (reconcile): it
		 * ends now, and leaves the filters the same way. */
		if (j->end == 0 && jobset_mask(set, j->job) == 0) {
			j->end = now;
			changed = true;
			observe_forget(sf, cfg, sets, j, false);
		}
		if (j->end == 0 || now - j->end < (long long)observe_grace(cfg, sets, j->sets)) {
			i++;
			continue;
		}
		observe_forget(sf, cfg, sets, j, true);
		jobinfo_drop(&l, i);
		gone++;
	}
	if (gone || changed)
		observe_store(sf, sets, &l);
	jobinfo_free(&l);
	return gone;
}

int observe_admit_all(const struct config *cfg, const struct sets *sets, const char *set_name)
{
	uint32_t configs = observe_set_configs(sets, set_name);
	struct jobinfo_list l = { 0, NULL };
	struct statefile sf;
	struct jobset set;
	struct jobmap m;
	int b, admitted = 0, rc;
	size_t i;

	jobset_init(&set);
	if (configs == 0) {
		log_msg(LOG_INFO, "set %s runs none of the project's configs: no job filter to fill",
			set_name);
		return 0;
	}
	if (statefile_open(&sf, cfg->state) < 0 || statefile_load(&sf, &set) < 0 ||
	    jobinfo_load(&sf, &l) < 0) {
		rc = -1;
		goto out;
	}
	rc = observe_open_filter(&sf, cfg, sets, set_name, &m);
	if (rc != 1) {
		if (rc == 0)
			log_msg(LOG_ERROR, "set %s: no running process of its unit has the probes' filter (map %s)",
				set_name, "spank_jobs");
		jobmap_close(&m);
		rc = -1;
		goto out;
	}
	for (b = 0; b < set.nnames && strcmp(set.names[b], set_name); b++)
		;
	for (i = 0; b < set.nnames && i < set.n; i++) {
		const struct jobinfo *j;

		if (!(set.masks[i] & (1u << b)))
			continue;
		j = jobinfo_find(&l, set.ids[i]);
		if (j && observe_user_share_full(&m, &l, j->job, j->uid, set_name))
			observe_refuse_share(NULL, cfg, sets, set_name, j->uid, m.capacity);
		else if (jobmap_admit(&m, set.ids[i], j ? j->sluid : NULL, configs) == 0)
			admitted++;
	}
	jobmap_close(&m);
	rc = admitted;
out:
	statefile_close(&sf);
	jobinfo_free(&l);
	jobset_free(&set);
	return rc;
}
