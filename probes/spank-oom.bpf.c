// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * spank-oom: OOM kills of the jobs that asked for it, counted for the
 * VICTIM's job (oom:mark_victim), not for the task whose allocation made
 * the kernel choose one.
 *
 * Where the tracepoint passes the victim task (the kernels whose
 * mark_victim event records uid, total_vm, rss...: after 6.8, which still
 * passes an int pid; 6.18 passes the task), its job is counted at once.
 * Where it passes only the victim's thread ID, a task could be had from
 * it only through the bpf_task_from_pid kfunc: 6.2 and later, typed
 * (tp_btf) programs only, and a guarded use of it needs libbpf 1.2 and
 * (bpf_ksym_exists) kernel 6.3. Instead the ID is noted, and counted for
 * its job when that thread exits (sched_process_exit, where it is the
 * current task; SIGKILL makes it exit at once), which works on every
 * kernel. Which of the two runs is decided when the object is loaded
 * (CO-RE); the other returns at once.
 */
#define SPANK_DROPPED spank_oom_dropped_total
#include "spank_job.bpf.h"

/* spank_oom_dropped_total's map label (spank-oom.yaml). */
#define SPANK_OOM_MAP_KILLS 0

/* Only the existence of this field is asked: it came with the task
 * argument. */
struct trace_event_raw_mark_victim___task {
	__u32 uid;
} __attribute__((preserve_access_index));

/* The kernel's own mark of an OOM victim (tsk_is_oom_victim(), 4.9+). */
struct signal_struct {
	void *oom_mm;
} __attribute__((preserve_access_index));

struct task_struct___signal {
	struct signal_struct *signal;
} __attribute__((preserve_access_index));

/* Victims' thread IDs waiting for their exit (scratch: not a metric). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u8);
} oom_victims SEC(".maps");

struct spank_oom_key {
	__u32 job;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SPANK_JOBS_MAX); /* one key per job */
	__type(key, struct spank_oom_key);
	__type(value, __u64);
} spank_oom_kills_total SEC(".maps");

/* The tracepoint passes the task (1), or only its thread ID (0).
 * SPANK_OOM_TEST_PID_PATH forces 0, so that the other path can be tested
 * on a kernel that passes the task. */
static __always_inline int spank_oom_has_task(void)
{
#ifdef SPANK_OOM_TEST_PID_PATH
	return 0;
#else
	return bpf_core_field_exists(struct trace_event_raw_mark_victim___task, uid);
#endif
}

static __always_inline void spank_oom_count(struct task_struct *victim)
{
	struct spank_oom_key key = {};

	key.job = spank_job_of_task(victim, SPANK_JOB_OOM);
	if (key.job)
		spank_add(&spank_oom_kills_total, &key, 1, SPANK_OOM_MAP_KILLS);
}

SEC("raw_tp/mark_victim")
int spank_oom_mark_victim(struct bpf_raw_tracepoint_args *ctx)
{
	__u8 one = 1;
	__u32 pid;

	if (spank_oom_has_task()) {
		spank_oom_count((struct task_struct *)ctx->args[0]);
		return 0;
	}
#ifdef SPANK_OOM_TEST_PID_PATH
	pid = BPF_CORE_READ((struct task_struct *)ctx->args[0], pid);
#else
	pid = (__u32)ctx->args[0];
#endif
	bpf_map_update_elem(&oom_victims, &pid, &one, BPF_ANY);
	return 0;
}

SEC("raw_tp/sched_process_exit")
int spank_oom_exit(struct bpf_raw_tracepoint_args *ctx)
{
	struct task_struct *t;
	__u32 pid;

	if (spank_oom_has_task())
		return 0;
	t = (struct task_struct *)ctx->args[0];
	pid = BPF_CORE_READ(t, pid);
	if (!bpf_map_lookup_elem(&oom_victims, &pid))
		return 0;
	bpf_map_delete_elem(&oom_victims, &pid);
	/* The kernel sends SIGKILL before it marks the victim: a victim that
	 * exited first left its ID here for a later task that reuses the ID.
	 * Such a task is no OOM victim: not counted. */
	if (!BPF_CORE_READ((struct task_struct___signal *)t, signal, oom_mm))
		return 0;
	spank_oom_count(t);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
