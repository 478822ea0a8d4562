// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * spank-sched: how long the jobs that asked for it waited for a CPU, at a
 * cost that does not grow with the rate of context switches.
 *
 * The kernel measures each task's waits already, for /proc/PID/schedstat:
 * at every switch-in it adds the wait to task->sched_info.run_delay (ns)
 * and counts it in pcount (CONFIG_SCHED_INFO, on in every major
 * distribution); and it keeps, per cgroup, the time at least one of the
 * cgroup's tasks was runnable but not running (PSI's cpu "some" total,
 * cpu.pressure). This config only collects those counters:
 *
 *   - at the scheduler's tick, at most SPANK_SCHED_HZ times a second on
 *     each CPU: the task running there, if it is an admitted job's, gives
 *     the growth of its two counters since it was last collected, and its
 *     job's cgroup gives its PSI total. The tick is an hrtimer: the
 *     program runs at every hrtimer expiry (hrtimer_expire_entry, a
 *     tracepoint: no kprobe) and does nothing but read the clock until
 *     1/SPANK_SCHED_HZ s has passed since the CPU's last full run;
 *   - at a task's exit (sched_process_exit), its last growth and its
 *     job's PSI total.
 *
 * So the cost is one short run per hrtimer expiry (the tick: HZ per busy
 * CPU, none on an idle one), SPANK_SCHED_HZ full runs per CPU per second
 * and one per task exit, whatever the job does; nothing runs at a
 * context switch. (A perf_event sampling program would do the same, but
 * ebpf_exporter 2.5.1 crashes detaching one: SIGSEGV at every stop.) The
 * sums are exact over a task's life: nothing the kernel counted is lost,
 * it is only collected late; a task's waits show up when a tick next
 * finds it running, or at its exit at the latest. A task seen for the
 * first time brings all it waited since it was made (its counters start
 * at 0 at fork: a job's tasks are made in the job). The PSI total lags by
 * up to the kernel's PSI period (2 s) besides.
 *
 * A task's last collected values are kept in its own BPF storage (task
 * storage: 5.11+), with its job, cgroup and the filter's generation they
 * were resolved for (spank_job.bpf.h).
 */
#define SPANK_DROPPED spank_sched_dropped_total
#include "spank_job.bpf.h"
#include "spank_sched.bpf.h"

/* spank_sched_dropped_total's map label (spank-sched.yaml). */
#define SPANK_SCHED_MAP_WAIT 0
#define SPANK_SCHED_MAP_WAITS 1
#define SPANK_SCHED_MAP_PRESSURE 2
#define SPANK_SCHED_MAP_SEEN 3

/* PSI: the cgroup's group (a pointer from 6.1, embedded before), and its
 * totals, u64 total[NR_PSI_AGGREGATORS][NR_PSI_STATES - 1], whose first
 * row (PSI_AVGS) the kernel's 2 s aggregation keeps. BTF may give the
 * array flat or nested: both are declared, the running kernel's is used. */
enum psi_states { PSI_CPU_SOME = 4 };

struct psi_group___flat {
	__u64 total[10];
} __attribute__((preserve_access_index));

struct psi_group___nested {
	__u64 total[2][5];
} __attribute__((preserve_access_index));

struct psi_group {
	int spank_unused;
} __attribute__((preserve_access_index));

struct cgroup___psiptr {
	struct psi_group *psi;
} __attribute__((preserve_access_index));

struct cgroup___psiembedded {
	struct psi_group psi;
} __attribute__((preserve_access_index));

struct kernfs_node___priv {
	void *priv; /* a cgroup directory's: its struct cgroup */
} __attribute__((preserve_access_index));

/* What a job's task had waited when last collected (scratch: not a
 * metric). valid is 0 until then, and again once the task left the job. */
struct sched_seen {
	__u64 run_delay;
	__u64 pcount;
	__u64 cgid;
	__u64 gen;
	__u32 job;
	__u32 valid;
	__u32 rest_ns; /* of run_delay, below a microsecond, not yet counted */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sched_seen);
} sched_seen SEC(".maps");

struct spank_sched_key {
	__u32 job;
};

/* Per job: microseconds its tasks were runnable but not running. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SPANK_JOBS_MAX);
	__type(key, struct spank_sched_key);
	__type(value, __u64);
} spank_sched_wait_microseconds_total SEC(".maps");

/* Per job: how many waits (arrivals on a CPU after waiting). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SPANK_JOBS_MAX);
	__type(key, struct spank_sched_key);
	__type(value, __u64);
} spank_sched_waits_total SEC(".maps");

/* Per job: microseconds of wall time with at least one of its tasks
 * waiting (its cgroup's PSI cpu "some" total, as last read). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SPANK_JOBS_MAX);
	__type(key, struct spank_sched_key);
	__type(value, __u64);
} spank_sched_pressure_microseconds_total SEC(".maps");

/* The job's own directory: the one whose parent is Slurm's scope, walking
 * up from the task's kn; NULL if none within the walk. Only a task already
 * known to be an admitted job's gets here, at most SPANK_SCHED_HZ times a
 * second per CPU. */
static __always_inline struct kernfs_node *spank_sched_job_dir(struct kernfs_node *kn)
{
	struct kernfs_node *parent;
	int i;

#pragma unroll
	for (i = 0; i < SPANK_WALK_LEVELS; i++) {
		if (!kn)
			return 0;
		parent = spank_kn_parent(kn);
		if (!parent)
			return 0;
		if (spank_kn_is_stepd_scope(parent))
			return kn;
		kn = parent;
	}
	return 0;
}

/* The PSI cpu "some" total (ns) of the cgroup whose directory is kn; 0
 * when the kernel has none (no PSI, or psi=0). */
static __always_inline __u64 spank_sched_psi_some(struct kernfs_node *kn)
{
	struct cgroup *cgrp = BPF_CORE_READ((struct kernfs_node___priv *)kn, priv);
	void *psi = 0;
	__u64 off, val = 0;

	if (!cgrp)
		return 0;
	if (bpf_core_field_exists(struct cgroup___psiptr, psi))
		psi = BPF_CORE_READ((struct cgroup___psiptr *)cgrp, psi);
	else if (bpf_core_field_exists(struct cgroup___psiembedded, psi))
		psi = (void *)cgrp + bpf_core_field_offset(struct cgroup___psiembedded, psi);
	if (!psi)
		return 0;
	if (bpf_core_field_exists(struct psi_group___flat, total))
		off = bpf_core_field_offset(struct psi_group___flat, total);
	else if (bpf_core_field_exists(struct psi_group___nested, total))
		off = bpf_core_field_offset(struct psi_group___nested, total);
	else
		return 0;
	off += bpf_core_enum_value(enum psi_states, PSI_CPU_SOME) * sizeof(__u64);
	if (bpf_probe_read_kernel(&val, sizeof(val), psi + off))
		return 0;
	return val;
}

/* The job's pressure counter raised to us, never lowered: two CPUs may
 * write at once, and a counter that goes back reads as a reset. */
static __always_inline void spank_sched_pressure(__u32 job, __u64 us)
{
	struct spank_sched_key key = { .job = job };
	__u64 *v = bpf_map_lookup_elem(&spank_sched_pressure_microseconds_total, &key);
	__u64 old;
	int i;

	if (!v) {
		bpf_map_update_elem(&spank_sched_pressure_microseconds_total, &key, &us, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&spank_sched_pressure_microseconds_total, &key);
		if (!v) {
			spank_drop(SPANK_SCHED_MAP_PRESSURE, SPANK_DROP_FULL);
			return;
		}
	}
#pragma unroll
	for (i = 0; i < 4; i++) {
		old = *(volatile __u64 *)v;
		if (us <= old || __sync_val_compare_and_swap(v, old, us) == old)
			return;
	}
}

/* Collects task t's growth since it was last collected (t: running, or
 * exiting), and its job's PSI total. */
static __always_inline void spank_sched_collect(struct task_struct *t)
{
	struct task_struct___sched *ts = (struct task_struct___sched *)t;
	struct spank_sched_key key = {};
	struct kernfs_node *kn, *dir;
	struct sched_seen *s;
	__u64 cgid, gen, total, count, delay, n;
	__u32 job;

	if (!t || !bpf_core_field_exists(ts->sched_info))
		return;
	if (BPF_CORE_READ(ts, flags) & SPANK_PF_KTHREAD)
		return;
	kn = BPF_CORE_READ(t, cgroups, dfl_cgrp, kn);
	if (!kn)
		return;
	cgid = BPF_CORE_READ(kn, id);
	gen = spank_gen();
	s = bpf_task_storage_get(&sched_seen, t, 0, 0);
	if (s && s->valid && s->gen == gen && s->cgid == cgid)
		job = s->job;
	else if (!spank_cached(cgid, gen, SPANK_JOB_SCHED, &job))
		job = spank_resolve(kn, cgid, gen, SPANK_JOB_SCHED);
	if (!job) {
		if (s)
			s->valid = 0;
		return;
	}
	if (!s) {
		s = bpf_task_storage_get(&sched_seen, t, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!s) {
			spank_drop(SPANK_SCHED_MAP_SEEN, SPANK_DROP_FULL);
			return;
		}
	}
	total = BPF_CORE_READ(ts, sched_info.run_delay);
	count = BPF_CORE_READ(ts, sched_info.pcount);
	/* Back in a job after leaving one (or moved from another): its
	 * counters are the base. First seen (fresh storage): all of them. */
	if (s->valid && s->job == job) {
		delay = total - s->run_delay;
		n = count - s->pcount;
	} else if (s->job == 0 && !s->valid) {
		delay = total;
		n = count;
	} else {
		delay = 0;
		n = 0;
	}
	s->run_delay = total;
	s->pcount = count;
	s->cgid = cgid;
	s->gen = gen;
	s->job = job;
	s->valid = 1;
	key.job = job;
	if (delay < (1ULL << 40)) {
		delay += s->rest_ns;
		s->rest_ns = delay % 1000;
		if (delay >= 1000)
			spank_add(&spank_sched_wait_microseconds_total, &key, delay / 1000,
				  SPANK_SCHED_MAP_WAIT);
	}
	if (n && n < (1ULL << 32))
		spank_add(&spank_sched_waits_total, &key, n, SPANK_SCHED_MAP_WAITS);
	dir = spank_sched_job_dir(kn);
	if (dir)
		spank_sched_pressure(job, spank_sched_psi_some(dir) / 1000);
}

/* Full runs per CPU and second, at most: every 10 ms of hrtimer time. */
#define SPANK_SCHED_HZ 100
#define SPANK_SCHED_PERIOD_NS (1000000000ULL / SPANK_SCHED_HZ)

/* Per CPU: the expiry time of its last full run. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sched_last_run SEC(".maps");

/* At every hrtimer expiry (hrtimer_expire_entry): the tick among them.
 * The tracepoint's own time is its clock base's (realtime, boottime or
 * monotonic, depending on the timer), so the monotonic clock is read. */
SEC("tp_btf/hrtimer_expire_entry")
int spank_sched_tick(__u64 *ctx)
{
	__u32 zero = 0;
	__u64 *last = bpf_map_lookup_elem(&sched_last_run, &zero);
	__u64 now;

	if (!last)
		return 0;
	now = bpf_ktime_get_ns();
	if (now - *last < SPANK_SCHED_PERIOD_NS)
		return 0;
	*last = now;
	spank_sched_collect(bpf_get_current_task_btf());
	return 0;
}

SEC("tp_btf/sched_process_exit")
int spank_sched_exit(__u64 *ctx)
{
	spank_sched_collect((struct task_struct *)ctx[0]);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
