/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which Slurm job a task or a cgroup belongs to, for the project's
 * ebpf_exporter configs; and the filter that keeps every job that did not
 * ask out of their maps. Included once by each probes/spank-*.bpf.c.
 *
 * A task belongs to job J for config C when, walking up its cgroup v2
 * directory (the default hierarchy, task->cgroups->dfl_cgrp, which is
 * also bpf_get_current_cgroup_id()'s) at most SPANK_WALK_LEVELS levels,
 * the first directory whose name is a key of spank_jobs
 *   - has a parent whose name ends with "slurmstepd.scope" (Slurm's
 *     "slurmstepd.scope" and "<node>_slurmstepd.scope"), and
 *   - is, like that parent, owned by root (uid 0 in the initial user
 *     namespace): a directory made by a user in a cgroup tree delegated
 *     to them is owned by that user (cgroup_kn_set_ugid()), so a user
 *     cannot pose as job J with a directory named "job_J" of their own;
 * and that key's value has C's bit. Otherwise the answer is 0: do not
 * record. The answer for a cgroup is cached per config object in
 * spank_job_cache for as long as spank_jobs_gen does not change.
 *
 * The kernel types are declared here, only the fields used, with
 * preserve_access_index: libbpf relocates every access against the
 * running kernel's BTF (CO-RE), and the objects build without a
 * vmlinux.h, bpftool or /sys/kernel/btf on the build host. Headers
 * needed: the kernel's UAPI (linux-libc-dev) and libbpf's (1.1 or newer).
 */
#ifndef SPANK_JOB_BPF_H
#define SPANK_JOB_BPF_H

#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "spank_job_map.h"

/* Levels walked up from a task's cgroup: Slurm puts tasks at
 * job/step/user/task_N (3 levels below the job) and its own processes at
 * job/step/slurm (2). */
#define SPANK_WALK_LEVELS 8
/* The longest parent name whose suffix is checked (the NUL included):
 * "<node>_slurmstepd.scope" for node names of up to 110 characters. */
#define SPANK_SCOPE_NAME_MAX 128
#define SPANK_SCOPE_SUFFIX "slurmstepd.scope"
#define SPANK_SCOPE_SUFFIX_LEN 16
#define SPANK_JOB_CACHE_MAX 8192

/* ---- kernel types (CO-RE) ------------------------------------------ */

typedef struct {
	__u32 val;
} kuid_t;

struct kernfs_iattrs {
	kuid_t ia_uid;
} __attribute__((preserve_access_index));

/* Before 5.1, the owner was in an embedded struct iattr. */
struct iattr___spank {
	kuid_t ia_uid;
} __attribute__((preserve_access_index));

struct kernfs_iattrs___pre51 {
	struct iattr___spank ia_iattr;
} __attribute__((preserve_access_index));

struct kernfs_node {
	const char *name;
	struct kernfs_iattrs *iattr;
	__u64 id; /* the cgroup ID of a cgroup's directory (5.5+) */
} __attribute__((preserve_access_index));

/* The parent pointer: "parent" until 6.14, "__parent" (RCU) from 6.15. */
struct kernfs_node___pre615 {
	struct kernfs_node *parent;
} __attribute__((preserve_access_index));

struct kernfs_node___615 {
	struct kernfs_node *__parent;
} __attribute__((preserve_access_index));

struct cgroup {
	struct kernfs_node *kn;
} __attribute__((preserve_access_index));

struct css_set {
	struct cgroup *dfl_cgrp;
} __attribute__((preserve_access_index));

struct task_struct {
	struct css_set *cgroups;
	int pid;
} __attribute__((preserve_access_index));

/* ---- the filter (filled by the plugin) and the cache (ours) --------- */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SPANK_JOBS_KEYS);
	__type(key, struct spank_job_key);
	__type(value, struct spank_job_val);
} spank_jobs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__uint(map_flags, SPANK_JOBS_GEN_FLAGS); /* the plugin adds atomically */
	__type(key, __u32);
	__type(value, __u64);
} spank_jobs_gen SEC(".maps");

/* cgid: the cgroup the answer is for, besides the key. An LRU hash
 * recycles a replaced or evicted element at once, without waiting for
 * readers: a program that looked up cgroup A may be reading an element
 * that now holds cgroup B's answer, made in the current generation. */
struct spank_job_cached {
	__u64 cgid;
	__u64 gen;
	__u32 job;
	__u32 configs;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, SPANK_JOB_CACHE_MAX);
	__type(key, __u64); /* cgroup ID */
	__type(value, struct spank_job_cached);
} spank_job_cache SEC(".maps");

/* ---- the walk ------------------------------------------------------ */

static __always_inline struct kernfs_node *spank_kn_parent(struct kernfs_node *kn)
{
	if (bpf_core_field_exists(struct kernfs_node___615, __parent))
		return BPF_CORE_READ((struct kernfs_node___615 *)kn, __parent);
	return BPF_CORE_READ((struct kernfs_node___pre615 *)kn, parent);
}

/* Owned by root: never given an owner (no iattr: made by root and never
 * chown'ed), or given uid 0. */
static __always_inline int spank_kn_root_owned(struct kernfs_node *kn)
{
	struct kernfs_iattrs *ia = BPF_CORE_READ(kn, iattr);
	__u32 uid = 1;

	if (!ia)
		return 1;
	if (bpf_core_field_exists(ia->ia_uid))
		uid = BPF_CORE_READ(ia, ia_uid.val);
	else if (bpf_core_field_exists(struct kernfs_iattrs___pre51, ia_iattr))
		uid = BPF_CORE_READ((struct kernfs_iattrs___pre51 *)ia, ia_iattr.ia_uid.val);
	return uid == 0;
}

/* The directory's name ends with "slurmstepd.scope". */
static __always_inline int spank_kn_is_stepd_scope(struct kernfs_node *kn)
{
	char buf[SPANK_SCOPE_NAME_MAX];
	char tail[SPANK_SCOPE_SUFFIX_LEN];
	const char *name = BPF_CORE_READ(kn, name);
	long n;
	int i;

	/* n: the name's length + 1; a name that fills buf may be longer. */
	n = bpf_probe_read_kernel_str(buf, sizeof(buf), name);
	if (n <= SPANK_SCOPE_SUFFIX_LEN || n >= (long)sizeof(buf))
		return 0;
	if (bpf_probe_read_kernel(tail, sizeof(tail), name + n - 1 - SPANK_SCOPE_SUFFIX_LEN))
		return 0;
#pragma unroll
	for (i = 0; i < SPANK_SCOPE_SUFFIX_LEN; i++)
		if (tail[i] != SPANK_SCOPE_SUFFIX[i])
			return 0;
	return 1;
}

/* The job whose directory kn is in (or is), and its configs; 0 when none. */
static __always_inline __u32 spank_walk(struct kernfs_node *kn, __u32 *configs)
{
	struct kernfs_node *hit = 0, *hit_parent = 0, *parent;
	struct spank_job_key key;
	struct spank_job_val *v;
	__u32 job = 0, cfg = 0;
	int i;

	*configs = 0;
#pragma unroll
	for (i = 0; i < SPANK_WALK_LEVELS; i++) {
		if (!kn)
			break;
		parent = spank_kn_parent(kn);
		if (!parent) /* the hierarchy's root: never a job */
			break;
		__builtin_memset(&key, 0, sizeof(key));
		if (bpf_probe_read_kernel_str(key.name, sizeof(key.name), BPF_CORE_READ(kn, name)) > 1) {
			v = bpf_map_lookup_elem(&spank_jobs, &key);
			if (v) {
				job = v->job;
				cfg = v->configs;
				hit = kn;
				hit_parent = parent;
				break;
			}
		}
		kn = parent;
	}
	/* The first directory named like an admitted job decides: it must be
	 * Slurm's (see above), else nothing is recorded. */
	if (!hit || !spank_kn_is_stepd_scope(hit_parent) || !spank_kn_root_owned(hit) ||
	    !spank_kn_root_owned(hit_parent))
		return 0;
	*configs = cfg;
	return job;
}

static __always_inline __u64 spank_gen(void)
{
	__u32 zero = 0;
	__u64 *gen = bpf_map_lookup_elem(&spank_jobs_gen, &zero);

	return gen ? *gen : 0;
}

static __always_inline __u32 spank_answer(__u32 job, __u32 configs, __u32 config_bit)
{
	return (configs & config_bit) ? job : 0;
}

/* A cached answer for cgid in this generation: 1 and *job set, or 0. */
static __always_inline int spank_cached(__u64 cgid, __u64 gen, __u32 config_bit, __u32 *job)
{
	struct spank_job_cached *c = bpf_map_lookup_elem(&spank_job_cache, &cgid);
	__u32 j, cfg;

	if (!c)
		return 0;
	/* The answer first, then whose and when it is: an element recycled
	 * for another cgroup meanwhile fails the check (see above). */
	j = *(volatile __u32 *)&c->job;
	cfg = *(volatile __u32 *)&c->configs;
	if (*(volatile __u64 *)&c->cgid != cgid || *(volatile __u64 *)&c->gen != gen)
		return 0;
	*job = spank_answer(j, cfg, config_bit);
	return 1;
}

/* Walks from kn and caches the answer for cgid. The generation is read
 * before the walk: a change of spank_jobs during the walk is followed by
 * a newer generation, so the entry made here is redone at the next call. */
static __always_inline __u32 spank_resolve(struct kernfs_node *kn, __u64 cgid, __u64 gen,
					   __u32 config_bit)
{
	struct spank_job_cached fresh = {};

	fresh.cgid = cgid;
	fresh.gen = gen;
	fresh.job = spank_walk(kn, &fresh.configs);
	bpf_map_update_elem(&spank_job_cache, &cgid, &fresh, BPF_ANY);
	return spank_answer(fresh.job, fresh.configs, config_bit);
}

/* The job of a cgroup (v2) for the config whose bit is config_bit, or 0:
 * do not record. */
static __always_inline __u32 spank_job_of_cgroup(struct cgroup *cgrp, __u32 config_bit)
{
	struct kernfs_node *kn;
	__u64 cgid, gen;
	__u32 job;

	if (!cgrp)
		return 0;
	kn = BPF_CORE_READ(cgrp, kn);
	if (!kn)
		return 0;
	cgid = BPF_CORE_READ(kn, id);
	gen = spank_gen();
	if (spank_cached(cgid, gen, config_bit, &job))
		return job;
	return spank_resolve(kn, cgid, gen, config_bit);
}

/* The job of a task (any task: its cgroup v2 directory), or 0. */
static __always_inline __u32 spank_job_of_task(struct task_struct *t, __u32 config_bit)
{
	if (!t)
		return 0;
	return spank_job_of_cgroup(BPF_CORE_READ(t, cgroups, dfl_cgrp), config_bit);
}

/* The job of the current task, or 0; a cache hit costs no memory read. */
static __always_inline __u32 spank_job_of_current(__u32 config_bit)
{
	__u64 cgid = bpf_get_current_cgroup_id();
	__u64 gen = spank_gen();
	struct task_struct *t;
	struct kernfs_node *kn;
	__u32 job;

	if (spank_cached(cgid, gen, config_bit, &job))
		return job;
	t = (struct task_struct *)bpf_get_current_task();
	kn = BPF_CORE_READ(t, cgroups, dfl_cgrp, kn);
	if (!kn)
		return 0;
	return spank_resolve(kn, cgid, gen, config_bit);
}

/* ---- metrics ------------------------------------------------------- */

/* The config's drop counter: SPANK_DROPPED is its map's name, defined by
 * the config before it includes this header (spank_<config>_dropped_total,
 * spank_job_map.h). Its keys: a few maps x reasons. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, struct spank_dropped_key);
	__type(value, __u64);
} SPANK_DROPPED SEC(".maps");

/* Something the config's map map_id could not hold: counted, not silent. */
static __always_inline void spank_drop(__u32 map_id, __u32 reason)
{
	struct spank_dropped_key k = { .map = map_id, .reason = reason };
	__u64 one = 1, *v = bpf_map_lookup_elem(&SPANK_DROPPED, &k);

	if (v)
		__sync_fetch_and_add(v, 1);
	else if (bpf_map_update_elem(&SPANK_DROPPED, &k, &one, BPF_NOEXIST))
		if ((v = bpf_map_lookup_elem(&SPANK_DROPPED, &k)))
			__sync_fetch_and_add(v, 1); /* made meanwhile by another CPU */
}

/* Adds n to the u64 at key in map (the config's map map_id), creating it
 * at 0 first; a map full counts a drop. */
static __always_inline void spank_add(void *map, const void *key, __u64 n, __u32 map_id)
{
	__u64 *v = bpf_map_lookup_elem(map, key);

	if (!v) {
		__u64 zero = 0;

		bpf_map_update_elem(map, key, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(map, key);
		if (!v) {
			spank_drop(map_id, SPANK_DROP_FULL);
			return;
		}
	}
	__sync_fetch_and_add(v, n);
}

/* ceil(log2(v)), 0 for v <= 1: the exp2 bucket whose upper bound (2^b)
 * is the first >= v, as ebpf_exporter's exp2 histograms read it. */
static __always_inline __u64 spank_exp2_bucket(__u64 v)
{
	__u64 b = 0;

	if (v <= 1)
		return 0;
	v--;
	if (v >> 32) {
		v >>= 32;
		b += 32;
	}
	if (v >> 16) {
		v >>= 16;
		b += 16;
	}
	if (v >> 8) {
		v >>= 8;
		b += 8;
	}
	if (v >> 4) {
		v >>= 4;
		b += 4;
	}
	if (v >> 2) {
		v >>= 2;
		b += 2;
	}
	if (v >> 1)
		b += 1;
	return b + 1;
}

/* One observation of value into an exp2 histogram map whose key (a
 * struct variable) ends with "__u64 bucket": the bucket's count, and the
 * sum at bucket max + 1 (ebpf_exporter's optional sum key). */
#define SPANK_HIST_EXP2(map, key, value, max, map_id)           \
	do {                                                    \
		__u64 spank_v_ = (value);                       \
		(key).bucket = spank_exp2_bucket(spank_v_);     \
		if ((key).bucket > (max))                       \
			(key).bucket = (max);                   \
		spank_add(&(map), &(key), 1, (map_id));         \
		(key).bucket = (max) + 1;                       \
		spank_add(&(map), &(key), spank_v_, (map_id));  \
	} while (0)

#endif
