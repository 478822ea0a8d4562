/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The probe sets' per-job filter, seen from the plugin. The project's
 * ebpf_exporter configs (probes/) record data only for jobs named in
 * their spank_jobs map: key, the name of the job's cgroup directory
 * ("job_<id>", or its SLUID); value, the job ID and the configs that may
 * observe it. The plugin fills and empties that map in the running
 * instance of each set a job holds (found through the instance's unit:
 * its processes, their map descriptors, the map's name), under the state
 * lock, and bumps spank_jobs_gen so that the programs' cached lookups are
 * redone. A job that did not ask for a set is in none of its instance's
 * maps: its processes are never recorded there. When a job's records go
 * (after the linger of its sets), its series are deleted from the
 * instance's metric maps (spank_* maps, whose keys begin with the job
 * ID), so Prometheus sees them go stale. */
#ifndef SPANK_EBPF_JOBMAP_H
#define SPANK_EBPF_JOBMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "bpfmap.h"
#include "config.h"

#define JOBMAP_METRICS_MAX 32
#define JOBMAP_CONFIGS_MAX 8   /* each config object has its own filter */

struct jobmap {
	bool found;                 /* the instance runs and has the filter */
	int njobs, ngen;            /* one of each per config object */
	struct bpfmap jobs[JOBMAP_CONFIGS_MAX], gen[JOBMAP_CONFIGS_MAX];
	int nmetrics;
	struct bpfmap metrics[JOBMAP_METRICS_MAX];
	uint32_t capacity;          /* jobs its filter holds (the smallest's) */
};

/* The bits of the project's configs (spank-io, spank-sched, spank-net,
 * spank-oom) among "a,b" (a set's configs). */
uint32_t jobmap_config_bits(const char *configs);

/* The filter of unit's running instance. Returns 1 when found, 0 when it
 * has none (not running, or no config of the project), -1 on an error
 * (said). Close with jobmap_close() in every case. */
int jobmap_open(const struct config *cfg, const char *unit, struct jobmap *m);
void jobmap_close(struct jobmap *m);

/* The job may be observed by configs (its cgroup is "job_<id>", or sluid
 * when not empty); the generation is bumped. 0, or -1 (said). */
int jobmap_admit(struct jobmap *m, uint32_t job, const char *sluid, uint32_t configs);
/* 1 when the job is in the filter (its "job_<id>" key), else 0. */
int jobmap_has(const struct jobmap *m, uint32_t job);
/* It may not be any more. */
int jobmap_dismiss(struct jobmap *m, uint32_t job, const char *sluid);
/* Its series leave the metric maps. Returns how many went. */
int jobmap_forget_series(struct jobmap *m, uint32_t job);

#endif
