// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * spank-sched: run-queue latency of the jobs that asked for it: how long
 * a job's runnable task waited for a CPU, from its wakeup (sched_wakeup,
 * sched_wakeup_new: the woken task, not the waker) or from being switched
 * out while still runnable (preempted or yielding, at sched_switch), to
 * being switched in (sched_switch's next).
 *
 * This runs at every wakeup and context switch of the node, so it is kept
 * small: typed tracepoints (tp_btf) read task fields directly, the job is
 * looked up once per wakeup (cached per cgroup) and kept with the
 * timestamp in the task's own BPF storage (a task-local storage map:
 * 5.11+), and a task of no admitted job costs a cache lookup at its
 * wakeup and, at its switch-in, a storage lookup that finds nothing
 * (two pointer loads: no hashing, no clock read).
 */
#include "spank_job.bpf.h"

/* 26: 2^26 us, about 67 s. */
#define SPANK_SCHED_MAX_BUCKET 26
#define SPANK_TASK_RUNNING 0
/* include/linux/sched.h: a kernel thread. Not a job's task, even the few
 * attached to a cgroup (vhost workers before 6.4): never counted. */
#define SPANK_PF_KTHREAD 0x00200000

/* The task's state: "__state" (unsigned int) from 5.14, "state" (long)
 * before. */
struct task_struct___514 {
	unsigned int __state;
} __attribute__((preserve_access_index));

struct task_struct___pre514 {
	long state;
} __attribute__((preserve_access_index));

struct task_struct___flags {
	unsigned int flags;
} __attribute__((preserve_access_index));

/* When a runnable task of a job started waiting, 0 when it does not
 * (scratch: not a metric). */
struct runq_wait {
	__u64 since;
	__u32 job;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct runq_wait);
} runq_waits SEC(".maps");

struct spank_sched_latency_key {
	__u32 job;
	__u32 pad;
	__u64 bucket;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, struct spank_sched_latency_key);
	__type(value, __u64);
} spank_sched_runq_latency_seconds SEC(".maps");

/* The job of a task given by a typed tracepoint (direct loads on the
 * cache's fast path). */
static __always_inline __u32 spank_sched_job(struct task_struct *p)
{
	struct kernfs_node *kn;
	__u64 cgid, gen;
	__u32 job;

	/* Kernel threads (kworkers...) are woken often: their flags are in
	 * the task's first cache line, their cgroup three loads away. */
	if (((struct task_struct___flags *)p)->flags & SPANK_PF_KTHREAD)
		return 0;
	kn = p->cgroups->dfl_cgrp->kn;
	if (!kn)
		return 0;
	cgid = kn->id;
	gen = spank_gen();
	if (spank_cached(cgid, gen, SPANK_JOB_SCHED, &job))
		return job;
	return spank_resolve(kn, cgid, gen, SPANK_JOB_SCHED);
}

static __always_inline void spank_sched_enqueue(struct task_struct *p)
{
	struct runq_wait *w;
	__u32 job;

	job = spank_sched_job(p);
	if (!job)
		return;
	w = bpf_task_storage_get(&runq_waits, p, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!w)
		return;
	w->job = job;
	w->since = bpf_ktime_get_ns();
}

SEC("tp_btf/sched_wakeup")
int spank_sched_wakeup(__u64 *ctx)
{
	spank_sched_enqueue((struct task_struct *)ctx[0]);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int spank_sched_wakeup_new(__u64 *ctx)
{
	spank_sched_enqueue((struct task_struct *)ctx[0]);
	return 0;
}

SEC("tp_btf/sched_switch")
int spank_sched_switch(__u64 *ctx)
{
	struct task_struct *prev = (struct task_struct *)ctx[1];
	struct task_struct *next = (struct task_struct *)ctx[2];
	struct spank_sched_latency_key key = {};
	struct runq_wait *w;
	__u64 state, now;

	if (bpf_core_field_exists(struct task_struct___514, __state))
		state = ((struct task_struct___514 *)prev)->__state;
	else
		state = ((struct task_struct___pre514 *)prev)->state;
	if (state == SPANK_TASK_RUNNING)
		spank_sched_enqueue(prev);

	w = bpf_task_storage_get(&runq_waits, next, 0, 0);
	if (!w || !w->since)
		return 0;
	now = bpf_ktime_get_ns();
	key.job = w->job;
	now = now > w->since ? (now - w->since) / 1000 : 0;
	w->since = 0;
	SPANK_HIST_EXP2(spank_sched_runq_latency_seconds, key, now, SPANK_SCHED_MAX_BUCKET);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
