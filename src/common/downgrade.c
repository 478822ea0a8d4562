/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Getting a node ready for the release before probe sets. See downgrade.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "downgrade.h"
#include "linger.h"
#include "log.h"
#include "observe.h"
#include "sets.h"
#include "transition.h"
#include "unit.h"

/* The marker's size bound: about 12000 job IDs, far above a node's. */
#define MARKER_MAX (128u << 10)

/* The sets file, when configured and readable; else NULL (said): the
 * state's sets then map to the default template's units (target_of). */
static const struct sets *downgrade_sets(const struct config *cfg)
{
	static struct sets loaded;
	char err[600];

	if (!cfg->sets[0])
		return NULL;
	if (sets_load(cfg->sets, &loaded, err, sizeof(err)) == 0)
		return &loaded;
	log_msg(LOG_ERROR, "%s; stopping the state's sets by the default template's names", err);
	return NULL;
}

/* The mask of every name in the table but unit= ("-"). */
static uint32_t downgrade_set_bits(const struct jobset *set)
{
	uint32_t mask = 0;
	int b;

	for (b = 0; b < set->nnames; b++)
		if (strcmp(set->names[b], JOBSET_LEGACY))
			mask |= 1u << b;
	return mask;
}

/* The marker's job IDs into ids (sorted, as a jobset), and the sets file
 * it names into sets_path (when not NULL; "" for none). Returns 0, or -1
 * when it cannot be read (logged). A missing marker is empty. */
static int downgrade_marker_load(struct statefile *sf, struct jobset *ids, char *sets_path)
{
	char *buf = malloc(MARKER_MAX), *p, *end;
	size_t len;
	int rc;

	if (sets_path)
		sets_path[0] = '\0';
	if (!buf)
		return -1;
	rc = statefile_read_aux(sf, DOWNGRADE_MARKER, buf, MARKER_MAX, &len);
	if (rc != 0) {
		free(buf);
		return rc < 0 ? -1 : 0;
	}
	p = strchr(buf, '\n');
	for (p = p ? p + 1 : buf + len; p < buf + len; p = end + 1) {
		unsigned long v = strtoul(p, &end, 10);

		if (end != p && *end == '\n' && jobset_valid_id(v))
			jobset_add(ids, (uint32_t)v);
		end = strchr(p, '\n');
		if (!end)
			break;
		if (sets_path && !strncmp(p, "sets /", 6) && end - p - 5 < CONFIG_PATH_MAX)
			snprintf(sets_path, CONFIG_PATH_MAX, "%.*s", (int)(end - p - 5), p + 5);
	}
	free(buf);
	return 0;
}

/* Writes the marker: the sets file the jobs' sets came from (a later run
 * with sets= already off the line still stops their own instances), and
 * the jobs it named before with those of now. */
static int downgrade_marker_store(struct statefile *sf, const char *sets_path,
				  const struct jobset *ids)
{
	size_t cap = sizeof(DOWNGRADE_MARKER_LINE) + 8 + strlen(sets_path) + ids->n * 11, off, i;
	char *buf = malloc(cap);
	int rc;

	if (!buf)
		return -1;
	off = (size_t)snprintf(buf, cap, "%s\n", DOWNGRADE_MARKER_LINE);
	if (sets_path[0])
		off += (size_t)snprintf(buf + off, cap - off, "sets %s\n", sets_path);
	for (i = 0; i < ids->n && off < cap; i++)
		off += (size_t)snprintf(buf + off, cap - off, "%u\n", ids->ids[i]);
	rc = statefile_write_aux(sf, DOWNGRADE_MARKER, "downgrade marker", buf, off < cap ? off : cap - 1);
	free(buf);
	return rc;
}

int downgrade_switched_off(struct statefile *sf, uint32_t job)
{
	struct jobset ids;
	int found;

	jobset_init(&ids);
	found = downgrade_marker_load(sf, &ids, NULL) == 0 && jobset_contains(&ids, job);
	jobset_free(&ids);
	return found;
}

/* A set's instance down for the older release: held, noted as started,
 * or still running (a linger window, a leak), it is stopped; its window
 * goes. */
static void downgrade_stop(struct statefile *sf, const struct config *cfg, const struct sets *sets,
			   const char *name, bool held, struct downgrade_report *rep)
{
	struct target t;
	char word[200];
	enum unit_state st = UNIT_ACTIVE;

	/* The unit noted as started (transition.h), else the sets file's
	 * name for it: a unit started before the notes is stopped too, since
	 * the older release never would. */
	target_of(cfg, sets, name, &t);
	if (!target_recorded(sf, &t) && !held)
		st = unit_query_unit(cfg, t.unit, word, sizeof(word));
	if (st == UNIT_INACTIVE)
		return;
	if (st == UNIT_UNKNOWN)
		log_msg(LOG_ERROR, "cannot tell whether %s runs (%s): stopping it anyway", t.unit, word);
	linger_forget(sf, &t);
	log_msg(LOG_INFO, "stopping %s for the release before probe sets", t.unit);
	if (rep->nstopped < JOBSET_SETS_MAX)
		snprintf(rep->stopped[rep->nstopped++], CONFIG_UNIT_MAX, "%s", t.unit);
	if (transition_run(sf, cfg, &t, TRANSITION_STOP) & EV_UNIT_FAILED)
		rep->nfailed++;
}

/* No state directory: the plugin never ran here (a submit host), so
 * there is nothing to prepare. */
static bool downgrade_no_state(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[CONFIG_PATH_MAX];
	struct stat st;

	snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	return lstat(dir, &st) < 0 && errno == ENOENT;
}

/* The bit of unit= ("-") in the table, or -1. */
static int downgrade_legacy_bit(const struct jobset *set)
{
	int b;

	for (b = 0; b < set->nnames; b++)
		if (!strcmp(set->names[b], JOBSET_LEGACY))
			return b;
	return -1;
}

/* unit= for jobs that held only sets: started unless it runs (a linger
 * window of its own ends). A failed start is said, not fatal: the jobs
 * keep their holds and the older release's reconcile starts it again. */
static void downgrade_start_plain(struct statefile *sf, const struct config *cfg,
				  const struct sets *sets, struct downgrade_report *rep)
{
	struct target t;
	char word[200];

	target_of(cfg, sets, JOBSET_LEGACY, &t);
	linger_close(sf, &t);
	if (unit_query_unit(cfg, t.unit, word, sizeof(word)) == UNIT_ACTIVE)
		return;
	log_msg(LOG_INFO, "starting %s for the jobs that held probe sets", t.unit);
	snprintf(rep->started, sizeof(rep->started), "%s", t.unit);
	if (transition_run(sf, cfg, &t, TRANSITION_START) & EV_UNIT_FAILED)
		rep->start_failed = true;
}

int downgrade_prepare(const struct config *cfg, struct downgrade_report *rep)
{
	size_t held[JOBSET_SETS_MAX] = { 0 }, i;
	static struct config with_path;
	char sets_path[CONFIG_PATH_MAX];
	const struct sets *sets;
	struct jobset set, off, marked;
	struct statefile sf;
	uint32_t setbits, *masks = NULL;
	size_t plain_before;
	int loaded, legacy, b, n, rc = -1;

	memset(rep, 0, sizeof(*rep));
	jobset_init(&set);
	jobset_init(&off);
	jobset_init(&marked);
	if (downgrade_no_state(cfg->state)) {
		rep->no_state = true;
		return 0;
	}
	if (statefile_open_locked(&sf, cfg->state, cfg->lock_timeout * 1000) < 0 ||
	    (loaded = statefile_load(&sf, &set)) < 0)
		goto out;
	rep->damaged = loaded > 0;
	rep->jobs = set.n;
	if (downgrade_marker_load(&sf, &marked, sets_path) < 0)
		goto out;
	/* sets= off the line since an earlier run: that run's sets file. */
	if (!cfg->sets[0] && sets_path[0]) {
		with_path = *cfg;
		snprintf(with_path.sets, sizeof(with_path.sets), "%s", sets_path);
		cfg = &with_path;
	}
	snprintf(sets_path, sizeof(sets_path), "%s", cfg->sets);
	sets = downgrade_sets(cfg);

	/* 1. Every hold kept, in the only form the older release has: a job
	 * that held sets now holds unit=, what --ebpf meant there. */
	setbits = downgrade_set_bits(&set);
	for (b = 0; b < set.nnames; b++)
		held[b] = jobset_holders(&set, b);
	legacy = downgrade_legacy_bit(&set);
	plain_before = legacy < 0 ? 0 : held[legacy];
	if (set.n && !(masks = calloc(set.n, sizeof(*masks))))
		goto out;
	for (i = 0; i < set.n; i++)
		masks[i] = set.masks[i] & setbits;
	for (i = 0; i < set.n; i++)
		if (masks[i] && (jobset_add(&off, set.ids[i]) < 0 || jobset_add(&marked, set.ids[i]) < 0))
			goto out;
	for (i = 0; i < off.n; i++) {
		jobset_release(&set, off.ids[i], setbits);
		if (jobset_add(&set, off.ids[i]) < 0)
			goto out;
		if (i < DOWNGRADE_SHOWN_JOBS)
			rep->shown[i] = off.ids[i];
	}
	rep->switched_off = off.n;
	rep->kept = set.n;
	if ((off.n || rep->damaged) && statefile_store(&sf, &set) < 0)
		goto out;
	rc = 0;
	if (off.n)
		log_msg(LOG_INFO, "probe sets switched off for %zu job%s; every job (%zu) holds %s",
			off.n, off.n == 1 ? "" : "s", set.n, cfg->unit);

	/* 2. Out of the filters while the instances still run. */
	for (i = 0, n = 0; i < rep->jobs; i++)
		if (masks[i])
			observe_leave(&sf, cfg, sets, &set, off.ids[n++], masks[i]);

	/* 3. Every set's instance: the state's, held or not, the declared
	 * ones (a linger window outlives its holders) and those noted as
	 * started. */
	target_names(cfg, sets, &set);
	n = target_recorded_names(&sf, &set);
	for (b = 0; b < n; b++)
		if (strcmp(set.names[b], JOBSET_LEGACY))
			downgrade_stop(&sf, cfg, sets, set.names[b], held[b] > 0, rep);

	/* 4. unit= for the jobs that now hold it, if none did before. */
	if (plain_before == 0 && set.n > 0)
		downgrade_start_plain(&sf, cfg, sets, rep);

	/* 5. The marker, even with nothing switched off: it says the node is
	 * ready for the older release. */
	if (downgrade_marker_store(&sf, sets_path, &marked) == 0)
		rep->marker = true;
	if (!rep->marker || rep->nfailed)
		rc = 1;
out:
	free(masks);
	statefile_close(&sf);
	jobset_free(&set);
	jobset_free(&off);
	jobset_free(&marked);
	return rc;
}

int downgrade_cancel(const struct config *cfg, struct downgrade_report *rep)
{
	struct statefile sf;
	int rc = -1, had;

	memset(rep, 0, sizeof(*rep));
	if (statefile_open_locked(&sf, cfg->state, cfg->lock_timeout * 1000) < 0)
		goto out;
	had = statefile_remove_aux(&sf, DOWNGRADE_MARKER);
	rep->marker = had == 1;
	rc = 0;
out:
	statefile_close(&sf);
	return rc;
}
