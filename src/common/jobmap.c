/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The probe sets' per-job filter. See jobmap.h; the layout is the probes'
 * (probes/spank_job_map.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jobmap.h"
#include "log.h"
#include "spank_job_map.h"
#include "unit.h"

uint32_t jobmap_config_bits(const char *configs)
{
	static const struct {
		const char *name;
		uint32_t bit;
	} ours[] = {
		{ SPANK_CONFIG_IO, SPANK_JOB_IO },
		{ SPANK_CONFIG_SCHED, SPANK_JOB_SCHED },
		{ SPANK_CONFIG_NET, SPANK_JOB_NET },
		{ SPANK_CONFIG_OOM, SPANK_JOB_OOM },
		{ SPANK_CONFIG_SCHED_DETAIL, SPANK_JOB_SCHED_DETAIL },
		{ SPANK_CONFIG_FS, SPANK_JOB_FS },
		{ SPANK_CONFIG_FS_NFS, SPANK_JOB_FS },
	};
	const char *c = configs;
	uint32_t bits = 0;
	size_t i;

	while (*c) {
		size_t len = strcspn(c, ",");

		for (i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
			if (strlen(ours[i].name) == len && !strncmp(c, ours[i].name, len))
				bits |= ours[i].bit;
		c += len + (c[len] ? 1 : 0);
	}
	return bits;
}

static void init(struct jobmap *m)
{
	memset(m, 0, sizeof(*m));
}

/* A config's drop counter (spank_<config>_dropped_total, cut at 15
 * characters by the kernel): its keys do not begin with a job ID, and a
 * job's end must not take them. */
static bool jobmap_is_drop_counter(const char *name)
{
	static const char *const drops[] = { SPANK_IO_DROPPED, SPANK_SCHED_DROPPED,
					     SPANK_NET_DROPPED, SPANK_OOM_DROPPED,
					     SPANK_SCHED_DETAIL_DROPPED, SPANK_FS_DROPPED };
	size_t i, len;

	for (i = 0; i < sizeof(drops) / sizeof(drops[0]); i++) {
		len = strlen(drops[i]);
		if (len > SPANK_MAP_NAME_KERNEL_LEN)
			len = SPANK_MAP_NAME_KERNEL_LEN;
		if (strlen(name) == len && !strncmp(name, drops[i], len))
			return true;
	}
	return false;
}

/* One of the process's spank_* maps: a filter's half, or a metric. The
 * kernel cuts names at 15 characters; the filter's are shorter. */
static void take_map(struct jobmap *m, struct bpfmap *map)
{
	if (!strcmp(map->name, SPANK_JOBS_MAP) && m->njobs < JOBMAP_CONFIGS_MAX)
		m->jobs[m->njobs++] = *map;
	else if (!strcmp(map->name, SPANK_JOBS_GEN_MAP) && m->ngen < JOBMAP_CONFIGS_MAX)
		m->gen[m->ngen++] = *map;
	else if (strncmp(map->name, SPANK_FILTER_PREFIX, strlen(SPANK_FILTER_PREFIX)) &&
		 !jobmap_is_drop_counter(map->name) &&
		 m->nmetrics < JOBMAP_METRICS_MAX && map->key_size >= sizeof(uint32_t))
		m->metrics[m->nmetrics++] = *map;
	else
		bpfmap_close(map);
}

int jobmap_open(const struct config *cfg, const char *unit, struct jobmap *m)
{
	struct bpfmap found[JOBMAP_METRICS_MAX + 2 * JOBMAP_CONFIGS_MAX];
	pid_t pids[16];
	int np, i, k, n;

	init(m);
	np = unit_pids(cfg, unit, pids, 16);
	/* The exporter is the unit's process that holds the maps. */
	for (i = 0; i < np && m->njobs == 0; i++) {
		n = bpfmap_of_process(pids[i], SPANK_METRIC_PREFIX, found,
				      (int)(sizeof(found) / sizeof(found[0])));
		for (k = 0; k < n; k++)
			take_map(m, &found[k]);
	}
	for (k = 0; k < m->njobs; k++)
		if (m->jobs[k].key_size != sizeof(struct spank_job_key) ||
		    m->jobs[k].value_size != sizeof(struct spank_job_val)) {
			log_msg(LOG_ERROR, "%s's map %s is not the one this plugin knows (key %u, value %u bytes): jobs are not admitted to it",
				unit, SPANK_JOBS_MAP, m->jobs[k].key_size, m->jobs[k].value_size);
			jobmap_close(m);
			return -1;
		}
	/* Each config object has one of each: a process with one but not
	 * the other does not run the project's configs as built. */
	if (m->njobs != m->ngen) {
		log_msg(LOG_ERROR, "%s has %d maps %s but %d maps %s: jobs are not admitted to it", unit,
			m->njobs, SPANK_JOBS_MAP, m->ngen, SPANK_JOBS_GEN_MAP);
		jobmap_close(m);
		return -1;
	}
	/* The build's capacity: two names per job (SPANK_JOBS_KEYS). */
	for (k = 0; k < m->njobs; k++)
		if (k == 0 || m->jobs[k].max_entries / 2 < m->capacity)
			m->capacity = m->jobs[k].max_entries / 2;
	m->found = m->njobs > 0;
	return m->found ? 1 : 0;
}

void jobmap_close(struct jobmap *m)
{
	int i;

	for (i = 0; i < m->njobs; i++)
		bpfmap_close(&m->jobs[i]);
	for (i = 0; i < m->ngen; i++)
		bpfmap_close(&m->gen[i]);
	for (i = 0; i < m->nmetrics; i++)
		bpfmap_close(&m->metrics[i]);
	m->nmetrics = m->njobs = m->ngen = 0;
	m->found = false;
}

/* A job's keys: the cgroup directory Slurm's layouts give it. */
static void key_of_job(struct spank_job_key *k, uint32_t job)
{
	memset(k, 0, sizeof(*k));
	snprintf(k->name, sizeof(k->name), "job_%u", job);
}

static void key_of_sluid(struct spank_job_key *k, const char *sluid)
{
	memset(k, 0, sizeof(*k));
	snprintf(k->name, sizeof(k->name), "%s", sluid);
}

_Static_assert(SPANK_JOBS_GEN_FLAGS == BPF_F_MMAPABLE, "spank_jobs_gen is mmapable");

/* A change the programs must see: their cached lookups are redone. An
 * atomic add on the map's own memory, so that a change made at the same
 * time by another process (a lock-free admit_all) is neither lost nor
 * undone (spank_job_map.h). Probes built before the map was mmapable
 * (an instance started by an older release) get the old lookup and
 * update, which is racy but no worse than that release. */
static int jobmap_bump(const struct bpfmap *gen)
{
	long page = sysconf(_SC_PAGESIZE);
	uint32_t zero = 0;
	uint64_t g = 0, *p;

	p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, gen->fd, 0);
	if (p != MAP_FAILED) {
		__atomic_add_fetch(p, 1, __ATOMIC_SEQ_CST);
		munmap(p, (size_t)page);
		return 0;
	}
	if (bpfmap_lookup(gen, &zero, &g) < 0)
		g = 0;
	g++;
	return bpfmap_update(gen, &zero, &g);
}

/* Each config object's filter gets the job's keys (value != NULL) or
 * loses them, then its generation moves. */
static int filter_change(struct jobmap *m, uint32_t job, const char *sluid,
			 const struct spank_job_val *v)
{
	struct spank_job_key keys[2];
	int i, k, nkeys = 1, rc = 0;

	key_of_job(&keys[0], job);
	if (sluid && sluid[0])
		key_of_sluid(&keys[nkeys++], sluid);
	for (i = 0; i < m->njobs; i++) {
		for (k = 0; k < nkeys; k++) {
			if (v && bpfmap_update(&m->jobs[i], &keys[k], v) < 0)
				rc = -1;
			if (!v && bpfmap_delete(&m->jobs[i], &keys[k]) < 0 && errno != ENOENT)
				rc = -1;
		}
		if (jobmap_bump(&m->gen[i]) < 0)
			rc = -1;
	}
	return rc;
}

int jobmap_admit(struct jobmap *m, uint32_t job, const char *sluid, uint32_t configs)
{
	struct spank_job_val v = { .job = job, .configs = configs };

	if (!m->found)
		return 0;
	if (filter_change(m, job, sluid, &v) == 0)
		return 0;
	log_msg(LOG_ERROR, "cannot admit the job to the probes' filter (map %s): %s", SPANK_JOBS_MAP,
		strerror(errno));
	return -1;
}

int jobmap_has(const struct jobmap *m, uint32_t job)
{
	struct spank_job_val v;
	struct spank_job_key k;

	if (!m->found)
		return 0;
	key_of_job(&k, job);
	return bpfmap_lookup(&m->jobs[0], &k, &v) == 0;
}

int jobmap_dismiss(struct jobmap *m, uint32_t job, const char *sluid)
{
	if (!m->found)
		return 0;
	if (filter_change(m, job, sluid, NULL) == 0)
		return 0;
	log_msg(LOG_ERROR, "cannot take the job out of the probes' filter (map %s): %s",
		SPANK_JOBS_MAP, strerror(errno));
	return -1;
}

int jobmap_forget_series(struct jobmap *m, uint32_t job)
{
	int i, n = 0, k;

	for (i = 0; m->found && i < m->nmetrics; i++) {
		k = bpfmap_delete_prefixed(&m->metrics[i], &job, sizeof(job));
		if (k > 0)
			n += k;
	}
	return n;
}
