/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the node knows of each job holding probe sets, beyond its ID and
 * sets (the state): its user and SLUID (Slurm 25.11+ names job cgroups by
 * it), and when it ended. Kept under the state lock in <state>.jobs, one
 * line per job:
 *
 *     <jobid> <user> <sluid|-> <set>[,<set>...] <end|0> <uid|-> <start|0>
 *
 * The uid (Slurm's SLURM_JOB_UID) is who the job belongs to: the report
 * compares it with the asker's, never the name, which is for display
 * only (cleaned, two names can look alike). A line of an older release
 * has no uid: that job is root's to see only.
 *
 * A job stays listed after its end for the longest linger of its sets, so
 * that Prometheus scrapes its last interval with its labels; then its
 * series are taken out of the exporters (jobmap.h) and it is dropped.
 * The start is when the job joined its sets on this node (its prolog,
 * once the sets' units were started or given up on): what a report
 * compares with the moment each set's exporter became ready, so that a
 * job observed for part of its run on a node is said to be. A line of
 * an older release has none (0: unknown, nothing is said).
 *
 * From this list the plugin writes spank_ebpf_jobs.prom for
 * node_exporter's textfile collector (readable by its group only): per
 * listed job, spank_ebpf_job_info{jobid,user,sluid,sets} 1, the join key
 * of the probes' series, and spank_ebpf_job_start_time_seconds{jobid}
 * (Unix seconds). admit (the sets' ExecStartPost) writes one file per
 * set beside it, spank_ebpf_set_<set>.prom, with
 * spank_ebpf_set_ready_time_seconds{set}: when the set's exporter last
 * became ready. Prometheus holds both, so a report from a login node can
 * tell a partly observed job too. */
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
	long long start;                    /* boot-time seconds; 0: unknown */
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

/* A boot-time second as Unix seconds (for Prometheus), by today's
 * offset between the two clocks. */
long long jobinfo_unix(long long boot_s);

/* Writes textfile_dir/spank_ebpf_set_<set>.prom, the moment (now) the
 * set's exporter became ready, private as the job_info textfile is.
 * Nothing when textfile_dir is empty or not a directory. Lock-free: one
 * writer per set (its unit's ExecStartPost), replaced atomically. */
void jobinfo_store_ready(const char *textfile_dir, const char *textfile_group, const char *set);

#endif
