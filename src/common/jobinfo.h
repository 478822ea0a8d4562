/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the node knows of each job holding probe sets, beyond its ID and
 * sets (the state): its user and SLUID (Slurm 25.11+ names job cgroups by
 * it), and when it ended. Kept under the state lock in <state>.jobs, one
 * line per job:
 *
 *     <jobid> <user> <sluid|-> <set>[,<set>...] <end|0> <uid|->
 *
 * The uid (Slurm's SLURM_JOB_UID) is who the job belongs to: the report
 * compares it with the asker's, never the name, which is for display
 * only (cleaned, two names can look alike). A line of an older release
 * has no uid: that job is root's to see only.
 *
 * A job stays listed after its end for the longest linger of its sets, so
 * that Prometheus scrapes its last interval with its labels; then its
 * series are taken out of the exporters (jobmap.h) and it is dropped.
 * From this list the plugin writes spank_ebpf_jobs.prom for
 * node_exporter's textfile collector (readable by its group only): one spank_ebpf_job_info{jobid,
 * user,sluid,sets} 1 per listed job, the join key of the probes' series. */
#ifndef SPANK_EBPF_JOBINFO_H
#define SPANK_EBPF_JOBINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "statefile.h"

#define JOBINFO_MAX 4096
#define JOBINFO_USER_MAX 64
#define JOBINFO_SLUID_MAX 32
#define JOBINFO_UID_NONE (-1LL)

struct jobinfo {
	uint32_t job;
	char user[JOBINFO_USER_MAX + 1];
	char sluid[JOBINFO_SLUID_MAX + 1];  /* "" when Slurm gave none */
	char sets[400];                     /* "io,sched" */
	long long end;                      /* boot-time seconds; 0: running */
	long long uid;                      /* the job's uid; JOBINFO_UID_NONE */
};

struct jobinfo_list {
	size_t n;
	struct jobinfo *jobs;
};

/* Reads <state>.jobs (missing: empty; a damaged line is skipped, said).
 * Returns 0, -1 (logged) when it cannot be used or memory runs out. */
int jobinfo_load(struct statefile *sf, struct jobinfo_list *l);
/* Replaces it atomically (lock held), and the textfile in textfile_dir
 * (when not NULL and the directory exists): mode 0640, group
 * textfile_group (node_exporter's), or 0600 when that group is not in
 * /etc/group (logged). Returns 0 or -1 (logged). */
int jobinfo_store(struct statefile *sf, const char *textfile_dir, const char *textfile_group,
		  const struct jobinfo_list *l);
void jobinfo_free(struct jobinfo_list *l);

/* The job's record, or NULL. */
struct jobinfo *jobinfo_find(struct jobinfo_list *l, uint32_t job);
/* Adds or updates the job's record (running, uid JOBINFO_UID_NONE until
 * the caller sets it). Returns it, or NULL. */
struct jobinfo *jobinfo_put(struct jobinfo_list *l, uint32_t job, const char *user,
			    const char *sluid, const char *sets);
/* Removes the record at index i. */
void jobinfo_drop(struct jobinfo_list *l, size_t i);

/* A user or SLUID as Slurm gives them, made safe for a label and a line:
 * what is not [A-Za-z0-9._@-] becomes '_'. */
void jobinfo_clean(const char *in, char *out, size_t len);

/* SLURM_JOB_UID's text as a uid: decimal, below (uid_t)-1; else
 * JOBINFO_UID_NONE. */
long long jobinfo_uid(const char *text);

/* Boot-time seconds, the records' clock. */
long long jobinfo_now(void);

#endif
