/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Asking Slurm which held jobs still run on this node. slurmctld is the
 * authority: never the job cgroups (Slurm 26.05 names them by SLUID, not
 * job ID), never slurmd's own view (a job between its prolog and its
 * first step has no step there). One squeue call, bounded in time, by
 * absolute path; any doubt (unreachable, timeout, output it cannot
 * parse) is reported as "cannot tell" and must change nothing. */
#ifndef SPANK_EBPF_SLURMJOBS_H
#define SPANK_EBPF_SLURMJOBS_H

#include <stddef.h>
#include <stdint.h>

#include "jobset.h"

#define SLURMJOBS_MAX 4096   /* IDs in one query: squeue's argument and output */
#define SLURMJOBS_STATE_MAX 24

enum job_where {
	JOB_HERE,   /* Slurm lists it on this node in a live state (or one we do not know) */
	JOB_GONE,   /* not on this node, or ended (a final state, or pending again) */
};

struct job_answer {
	enum job_where where;
	char state[SLURMJOBS_STATE_MAX]; /* squeue's word, or "" when not listed */
};

#define SLURMJOBS_NODE_MAX 128

struct slurm_ask {
	const char *squeue;    /* absolute path; sinfo is beside it */
	const char *node;      /* this node's NodeName; NULL: ask Slurm (below) */
	const char *slurm_conf; /* passed on as SLURM_CONF when not NULL */
	unsigned int timeout;  /* seconds */
	char asked_node[SLURMJOBS_NODE_MAX]; /* the answer, once asked */
};

/* This node's NodeName: ask->node when given; else asked once, each call
 * bounded, of slurmd itself (`scontrol show slurmd`, beside squeue: its
 * "Hostname" is its NodeName), else, when slurmd does not answer, of
 * slurmctld (`sinfo`: the one node whose NodeHostname is this host's
 * name, short or full). NULL when neither can tell (why says why): a
 * guessed name could be another node's, whose jobs would look gone. */
const char *slurmjobs_node(struct slurm_ask *ask, char *why, size_t whylen);

/* The parser of slurmd's answer: the NodeName on its "Hostname = NAME"
 * line into out. Returns 0, or -1 when there is no such line. */
int slurmjobs_parse_slurmd(const char *text, char *out, size_t outlen);

/* The parser of slurmctld's answer: sinfo's "<NodeName>|<NodeHostname>"
 * lines. Puts the one NodeName of host (or short, its first label) in
 * out; returns 1 when found, 0 when no line names this host, -1 when
 * several do or the answer cannot be parsed (why says which). */
int slurmjobs_parse_nodes(const char *text, const char *host, const char *short_host,
			  char *out, size_t outlen, char *why, size_t whylen);

/* Fills ans[i] for set->ids[i]. Returns 0 when Slurm answered, -1 when it
 * could not tell (why says what happened; ans is then meaningless). */
int slurmjobs_ask(struct slurm_ask *ask, const struct jobset *set,
		  struct job_answer *ans, char *why, size_t whylen);

/* The parser behind slurmjobs_ask: squeue's output, "<jobid>|<STATE>" per
 * line; anything else makes the whole answer void (-1, why says which
 * line). ans[i] must start as JOB_GONE with an empty state. */
int slurmjobs_parse(const char *out, const struct jobset *set, struct job_answer *ans,
		    char *why, size_t whylen);

/* How long job has run, in seconds, as slurmctld counts it (squeue's
 * %M, its suspended time left out). Returns 0 and *secs, or -1 when
 * Slurm cannot tell (no such job any more, unreachable: why says). */
int slurmjobs_elapsed(struct slurm_ask *ask, uint32_t job, long long *secs, char *why,
		      size_t whylen);

/* The parser behind it: "[D-][H:]M:S" (or "INVALID", refused). Returns
 * the seconds, or -1. */
long long slurmjobs_parse_elapsed(const char *text);

/* A job as Slurm tells its caller (privacy: asked as the caller, so
 * PrivateData decides what they see): for a report from a login node. */
struct job_range {
	long long start;  /* Unix seconds; 0: not started */
	long long end;    /* Unix seconds; 0: still running */
	long long uid;
	char user[64];
	char state[SLURMJOBS_STATE_MAX];
	char nodes[1024]; /* Slurm's host list expression, as given */
};

/* Job's range, owner, state and nodes: from accounting (sacct, beside
 * squeue: jobs of any age), else from slurmctld (squeue --states=all:
 * running and recently ended jobs). Returns 1 and *r, 0 when neither
 * lists the job (none, or not the caller's to see), -1 when Slurm could
 * not be asked (why says). */
int slurmjobs_range(struct slurm_ask *ask, uint32_t job, struct job_range *r, char *why,
		    size_t whylen);

/* The parser behind it: lines "JOBID|UID|USER|START|END|STATE|NODES"
 * (times as Unix seconds, SLURM_TIME_FORMAT=%s; "Unknown" or "None" for
 * none), the first whose JOBID is job. Returns 1 and *r, 0 when no line
 * is job's, -1 when its line cannot be read (why says). */
int slurmjobs_parse_range(const char *text, uint32_t job, struct job_range *r, char *why,
			  size_t whylen);

/* A job's accounting record, for its summary (stored at its end, read by
 * the report): its ID as sacctmgr selects it (sacct's JobID: "42", or
 * "40_2" for an array's task), whether accounting has its end yet, its
 * AdminComment. */
struct job_acct {
	char selector[32];
	int ended;
	char *field; /* the caller's buffer */
	size_t len;
	int cut;     /* the field did not fit len: field holds its start */
	size_t full; /* the field's whole length */
};
/* From sacct, as the caller (SlurmUser or root: every job; a user: what
 * slurmdbd's PrivateData lets them see). 1 and *a, 0 when accounting does
 * not list the job (yet, or to the caller), -1 when it cannot be asked. */
int slurmjobs_acct_record(struct slurm_ask *ask, uint32_t job, struct job_acct *a, char *why,
			  size_t whylen);
/* The parser behind it: records "JOBIDRAW|JOBID|STATE|ADMINCOMMENT|JOBIDRAW"
 * (sacct prints the comment raw: it may hold '|' and newlines; the ID
 * after it tells where it ends), the one whose JOBIDRAW is job. 1, or 0
 * when none is, its JobID is not one or its record is cut short. */
int slurmjobs_parse_acct_record(const char *text, uint32_t job, struct job_acct *a);
/* sacctmgr -i modify job where jobid=SELECTOR set AdminComment=FIELD
 * (SlurmUser or root): the one way to write an ended job's field. 0, or
 * -1 (why says). */
int slurmjobs_set_admin_comment(struct slurm_ask *ask, const char *selector, const char *field,
				char *why, size_t whylen);

/* A running job as squeue tells its caller, for `spank-ebpf top`. */
struct running_job {
	uint32_t job;
	long long uid;
	char user[64];
	char partition[64];
	char nodes[1024]; /* Slurm's host list expression, as given */
};

/* What `top` asks squeue for: Slurm's own filters (NULL: none). */
struct running_ask {
	const char *user;      /* --user: a name or uid */
	const char *partition; /* --partition */
	const char *node;      /* --nodelist */
};

/* The running jobs the caller may see (squeue as the caller:
 * PrivateData=jobs applies), narrowed by q, into *jobs (malloc'd, *n of
 * them; free()). 0, or -1 when Slurm could not be asked or its answer
 * does not read (why says). Bounded by squeue's output
 * (RUNCMD_OUTPUT_MAX: about 700 jobs of long node lists). */
int slurmjobs_running(struct slurm_ask *ask, const struct running_ask *q, struct running_job **jobs,
		      size_t *n, char *why, size_t whylen);

/* The parser behind it: lines "JOBID|UID|USER|PARTITION|NODES"; any
 * other line voids the answer (-1, why says which). */
int slurmjobs_parse_running(const char *text, struct running_job **jobs, size_t *n, char *why,
			    size_t whylen);

/* Is user one of Slurm's operators or administrators (sacctmgr's
 * AdminLevel)? 1 yes, 0 no or cannot tell (why says when it could not
 * be asked): a doubt shows the caller less, never more. */
int slurmjobs_is_operator(struct slurm_ask *ask, const char *user, char *why, size_t whylen);
/* The parser behind it: sacctmgr's "AdminLevel" line. */
int slurmjobs_parse_admin_level(const char *text);

/* Does this squeue state word mean the job no longer runs anywhere? */
int slurmjobs_state_is_over(const char *state);

#endif
