// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * spank-sched-detail: run-queue latency of the jobs that asked for it: how long
 * a job's runnable task waited for a CPU, from being enqueued (its wakeup,
 * or being switched out while still runnable) to being switched in.
 *
 * The kernel measures that wait already, for /proc/PID/schedstat: at
 * every switch-in it adds the wait to task->sched_info.run_delay (ns,
 * from the run queue's clock) and counts the arrival in pcount
 * (CONFIG_SCHED_INFO, which every major distribution enables). So one
 * program, at sched_switch, reads the two counters of the task being
 * switched out (prev: it ran since its last wait, so the difference from
 * the values seen at its previous switch-out is that one wait), and no
 * wakeup hook or clock read is needed: in a paravirtualised guest a clock
 * read costs about 110 ns, and a wakeup hook ran on every wakeup of the
 * node.
 *
 * Behind whom: when a job's task is switched in (its wait ends), the
 * task switched out on that CPU is the one it waited behind last; the
 * wait is classed by it: the job's own task, another Slurm job's (any
 * job, asked or not: a directory under Slurm's scope), a process outside
 * any job (a daemon, a kernel thread), or nobody (the CPU was idle: the
 * wait was the wakeup's own latency). The class, never the other job's
 * ID or user, is a label: the series stay the job's own.
 *
 * A task of an admitted job keeps, in its own BPF storage (task-local:
 * 5.11+), the counters last seen, its job, cached with the cgroup and
 * the filter's generation it was resolved for, and the class of its last
 * wait; any other task costs a flag test and a cache lookup or two
 * (spank_job.bpf.h). This runs at every context switch of the node: its
 * cost grows with the switch rate (docs/BENCHMARKS.md, part 8); the
 * spank-sched config gives the totals without that.
 */
#define SPANK_DROPPED spank_sched_detail_dropped_total
#include "spank_job.bpf.h"
#include "spank_sched.bpf.h"

/* spank_sched_detail_dropped_total's map label (spank-sched-detail.yaml). */
#define SPANK_SCHED_MAP_LATENCY 0
#define SPANK_SCHED_MAP_SEEN 1

/* 26: 2^26 us, about 67 s. */
#define SPANK_SCHED_MAX_BUCKET 26
/* The classes of a wait (the "behind" label, spank-sched-detail.yaml). */
#define SPANK_BEHIND_OWN 0
#define SPANK_BEHIND_OTHER_JOBS 1
#define SPANK_BEHIND_OUTSIDE 2
#define SPANK_BEHIND_IDLE 3
#define SPANK_BEHIND_CLASSES 4
/* The most keys one job makes: 27 buckets and the sum, per class. */
#define SPANK_SCHED_LATENCY_PER_JOB (SPANK_BEHIND_CLASSES * (SPANK_SCHED_MAX_BUCKET + 2))
/* Cgroups remembered as in a Slurm job or not (their IDs are never
 * reused: no generation needed). */
#define SPANK_IN_JOB_CACHE_MAX 8192
/* What a job's task had waited when last switched out (scratch: not a
 * metric). valid is 0 until then, and again once the task left the job. */
struct runq_seen {
	__u64 run_delay;
	__u64 pcount;
	__u64 cgid;
	__u64 gen;
	__u32 job;
	__u32 valid;
	__u32 behind; /* the class of the wait that ended at its last switch-in */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct runq_seen);
} runq_seen SEC(".maps");

struct spank_sched_latency_key {
	__u32 job;
	__u32 behind;
	__u64 bucket;
};

/* cgroup ID -> 1 when in a Slurm job's directory, else 0. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SPANK_IN_JOB_CACHE_MAX);
	__type(key, __u64);
	__type(value, __u32);
} sched_in_job SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SPANK_JOBS_MAX * SPANK_SCHED_LATENCY_PER_JOB);
	__type(key, struct spank_sched_latency_key);
	__type(value, __u64);
} spank_sched_runq_latency_seconds SEC(".maps");

/* The job of a task in cgroup cgid (directory kn): from the task's
 * storage s when it was resolved for this cgroup and generation, else
 * from the cache. */
static __always_inline __u32 spank_sched_job(struct runq_seen *s, struct kernfs_node *kn,
					     __u64 cgid, __u64 gen)
{
	__u32 job;

	if (s && s->valid && s->gen == gen && s->cgid == cgid)
		return s->job;
	if (spank_cached(cgid, gen, SPANK_JOB_SCHED_DETAIL, &job))
		return job;
	return spank_resolve(kn, cgid, gen, SPANK_JOB_SCHED_DETAIL);
}

/* In some Slurm job's directory: below a directory, other than
 * "system" (slurmstepd's own), whose parent is Slurm's scope. */
static __always_inline __u32 spank_sched_in_job(struct kernfs_node *kn, __u64 cgid)
{
	struct kernfs_node *parent;
	__u32 *c = bpf_map_lookup_elem(&sched_in_job, &cgid), in = 0;
	char name[8];
	int i;

	if (c)
		return *c;
#pragma unroll
	for (i = 0; i < SPANK_WALK_LEVELS; i++) {
		if (!kn)
			break;
		parent = spank_kn_parent(kn);
		if (!parent)
			break;
		if (spank_kn_is_stepd_scope(parent)) {
			in = bpf_probe_read_kernel_str(name, sizeof(name), BPF_CORE_READ(kn, name)) != 7 ||
			     name[0] != 's' || name[1] != 'y' || name[2] != 's' || name[3] != 't' ||
			     name[4] != 'e' || name[5] != 'm';
			break;
		}
		kn = parent;
	}
	bpf_map_update_elem(&sched_in_job, &cgid, &in, BPF_ANY);
	return in;
}

/* The class of a wait of job's task that ends now, behind prev. */
static __always_inline __u32 spank_sched_behind(struct task_struct *prev, __u32 job)
{
	struct task_struct___sched *ps = (struct task_struct___sched *)prev;
	struct kernfs_node *kn;
	__u64 cgid;

	if (prev->pid == 0)
		return SPANK_BEHIND_IDLE;
	if (ps->flags & SPANK_PF_KTHREAD)
		return SPANK_BEHIND_OUTSIDE;
	kn = prev->cgroups->dfl_cgrp->kn;
	if (!kn)
		return SPANK_BEHIND_OUTSIDE;
	cgid = kn->id;
	if (spank_sched_job(0, kn, cgid, spank_gen()) == job)
		return SPANK_BEHIND_OWN;
	return spank_sched_in_job(kn, cgid) ? SPANK_BEHIND_OTHER_JOBS : SPANK_BEHIND_OUTSIDE;
}

/* n waits of delay_ns in all: n in the bucket of their mean, all of it in
 * the sum (n is 1 unless switches were missed). */
static __always_inline void spank_sched_record(__u32 job, __u32 behind, __u64 delay_ns, __u64 n)
{
	struct spank_sched_latency_key key = {};
	__u64 us = delay_ns / 1000;

	key.job = job;
	key.behind = behind < SPANK_BEHIND_CLASSES ? behind : SPANK_BEHIND_OUTSIDE;
	key.bucket = spank_exp2_bucket(us / n);
	if (key.bucket > SPANK_SCHED_MAX_BUCKET)
		key.bucket = SPANK_SCHED_MAX_BUCKET;
	spank_add(&spank_sched_runq_latency_seconds, &key, n, SPANK_SCHED_MAP_LATENCY);
	key.bucket = SPANK_SCHED_MAX_BUCKET + 1;
	spank_add(&spank_sched_runq_latency_seconds, &key, us, SPANK_SCHED_MAP_LATENCY);
}

/* prev, switched out: its waits since it was last switched out (the
 * last of them, unless switches were missed), under the class its
 * switch-in noted. */
static __always_inline void spank_sched_out(struct task_struct *prev)
{
	struct task_struct___sched *ps = (struct task_struct___sched *)prev;
	struct kernfs_node *kn;
	struct runq_seen *s;
	__u64 cgid, gen, total, delay, count, n;
	__u32 job;

	/* Kernel threads (and the idle task) switch often: their flags are
	 * in the task's first cache line, their cgroup three loads away. */
	if (ps->flags & SPANK_PF_KTHREAD)
		return;
	kn = prev->cgroups->dfl_cgrp->kn;
	if (!kn)
		return;
	cgid = kn->id;
	gen = spank_gen();
	s = bpf_task_storage_get(&runq_seen, prev, 0, 0);
	job = spank_sched_job(s, kn, cgid, gen);
	if (!job) {
		if (s)
			s->valid = 0;
		return;
	}
	if (!s) {
		s = bpf_task_storage_get(&runq_seen, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!s) {
			spank_drop(SPANK_SCHED_MAP_SEEN, SPANK_DROP_FULL);
			return;
		}
		s->behind = SPANK_BEHIND_OUTSIDE;
	}
	total = ps->sched_info.run_delay;
	count = ps->sched_info.pcount;
	/* First seen in a job (or back in one): a task that has run once
	 * since it was made has waited only for that (its counters started
	 * at 0); any other gives its counters as the base for the next. */
	if (!s->valid && count > 1)
		n = 0;
	else if (!s->valid)
		n = count;
	else
		n = count - s->pcount;
	delay = s->valid ? total - s->run_delay : total;
	s->run_delay = total;
	s->pcount = count;
	s->cgid = cgid;
	s->gen = gen;
	s->job = job;
	s->valid = 1;
	if (n && n < (1ULL << 32))
		spank_sched_record(job, s->behind, delay, n);
}

/* next, switched in after prev: if it is a job's task, its wait ends
 * here, behind prev. */
static __always_inline void spank_sched_in(struct task_struct *prev, struct task_struct *next)
{
	struct task_struct___sched *ns = (struct task_struct___sched *)next;
	struct kernfs_node *kn;
	struct runq_seen *s;
	__u64 cgid;
	__u32 job;

	if (ns->flags & SPANK_PF_KTHREAD)
		return;
	kn = next->cgroups->dfl_cgrp->kn;
	if (!kn)
		return;
	cgid = kn->id;
	s = bpf_task_storage_get(&runq_seen, next, 0, 0);
	job = spank_sched_job(s, kn, cgid, spank_gen());
	if (!job)
		return;
	if (!s) {
		s = bpf_task_storage_get(&runq_seen, next, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!s) {
			spank_drop(SPANK_SCHED_MAP_SEEN, SPANK_DROP_FULL);
			return;
		}
	}
	s->behind = spank_sched_behind(prev, job);
}

SEC("tp_btf/sched_switch")
int spank_sched_switch(__u64 *ctx)
{
	struct task_struct *prev = (struct task_struct *)ctx[1];
	struct task_struct *next = (struct task_struct *)ctx[2];

	if (!bpf_core_field_exists(((struct task_struct___sched *)prev)->sched_info))
		return 0;
	spank_sched_out(prev);
	spank_sched_in(prev, next);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
