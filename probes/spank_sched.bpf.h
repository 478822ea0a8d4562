/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What spank-sched and spank-sched-detail read of a task: its flags and
 * the kernel's own run-queue accounting (CONFIG_SCHED_INFO, the second
 * and third fields of /proc/PID/schedstat): run_delay, the time it
 * waited runnable for a CPU (ns), and pcount, how many times it got one.
 * Included after spank_job.bpf.h.
 */
#ifndef SPANK_SCHED_BPF_H
#define SPANK_SCHED_BPF_H

/* include/linux/sched.h: a kernel thread. Not a job's task, even the few
 * attached to a cgroup (vhost workers before 6.4): never counted. */
#define SPANK_PF_KTHREAD 0x00200000

struct sched_info {
	unsigned long pcount;
	unsigned long long run_delay;
} __attribute__((preserve_access_index));

struct task_struct___sched {
	unsigned int flags;
	struct sched_info sched_info;
} __attribute__((preserve_access_index));

#endif
