/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The contract between the project's ebpf_exporter configs
 * (probes/spank-NAME.bpf.c) and the plugin that admits jobs to them. Plain
 * C: the BPF programs and the plugin's C code both include it. Nothing
 * here may change without changing both sides.
 *
 * Every config object (spank-io, spank-sched, spank-sched-detail,
 * spank-net, spank-oom, spank-fs, spank-fs-nfs) has its
 * own copy of each map below: an exporter process that loads several
 * configs holds several maps named SPANK_JOBS_MAP. The plugin updates
 * every one of them (found through /proc/<pid>/fdinfo of the exporter:
 * map_id, then BPF_MAP_GET_FD_BY_ID and BPF_OBJ_GET_INFO_BY_FD for the
 * name, key and value sizes).
 *
 * SPANK_JOBS_MAP (BPF_MAP_TYPE_HASH, SPANK_JOBS_KEYS entries)
 *   key   struct spank_job_key: the NAME of the job's cgroup v2 directory,
 *         zero-padded to 64 bytes: "job_<id>" (Slurm's layout) or, with
 *         Slurm 26.05's default, the job's SLUID ("sEKNKTV3WPV500"). A
 *         job may have both keys at once.
 *   value struct spank_job_val: the job ID, and the configs that may
 *         observe it (SPANK_JOB_IO | SPANK_JOB_SCHED | ...).
 *   A job without an entry, or whose entry lacks a config's bit, is not
 *   recorded at all by that config: the programs drop its events in the
 *   kernel.
 *
 * SPANK_JOBS_GEN_MAP (BPF_MAP_TYPE_ARRAY, 1 entry, SPANK_JOBS_GEN_FLAGS)
 *   key __u32 0, value __u64: a generation. The plugin increments it
 *   AFTER every change of SPANK_JOBS_MAP (update or delete): the programs
 *   keep a per-cgroup cache of their lookups (SPANK_JOB_CACHE_MAP) that is
 *   valid only for the generation it was made in. The increment is an
 *   atomic add on the map's memory (mmap'ed: the map is BPF_F_MMAPABLE),
 *   never a lookup then an update: two processes change the filter at
 *   once (a starting instance's lock-free admit beside a prolog under the
 *   lock), and a read-then-write from both loses a change or moves the
 *   generation back to a value an answer was cached in, which makes that
 *   stale answer valid again. So every change gives a value never held
 *   before.
 *
 * SPANK_JOB_CACHE_MAP (BPF_MAP_TYPE_LRU_HASH): the programs' own; the
 *   plugin leaves it alone.
 *
 * Metric maps: every map whose name starts with SPANK_METRIC_PREFIX and
 * not with SPANK_FILTER_PREFIX is a metric (its name is the metric's name
 * in the config's YAML; ebpf_exporter prefixes "ebpf_exporter_"). The key
 * of every metric map begins with the job ID (__u32, host byte order): the
 * plugin deletes a job's series by deleting every key whose first 4 bytes
 * are that ID. Scratch maps of the programs never start with "spank_".
 *
 * Capacity: a node observes at most SPANK_JOBS_MAX jobs per config at
 * once; every metric map holds SPANK_JOBS_MAX x its per-job bound (the
 * most keys one job can make there), so one job never takes another's
 * room. The plugin reads the capacity of the running build from
 * SPANK_JOBS_MAP's max_entries (SPANK_JOBS_KEYS: two names per job) and
 * admits no user's job beyond half of it (observe.c). An update that
 * fails all the same (a map full) is counted, never silent, in the
 * config's spank_<config>_dropped_total map: key struct
 * spank_dropped_key, value __u64. Its key does not begin with a job ID:
 * the plugin leaves the SPANK_*_DROPPED maps alone.
 *
 * The kernel keeps only the first 15 characters of a map's name
 * (BPF_OBJ_NAME_LEN - 1): compare kernel names with strncmp over at most
 * SPANK_MAP_NAME_KERNEL_LEN characters. The three filter names are short
 * enough to be kept whole.
 */
#ifndef SPANK_JOB_MAP_H
#define SPANK_JOB_MAP_H

#include <linux/types.h>

#define SPANK_JOBS_MAP "spank_jobs"
#define SPANK_JOBS_GEN_MAP "spank_jobs_gen"
#define SPANK_JOB_CACHE_MAP "spank_job_cache"
#define SPANK_FILTER_PREFIX "spank_job"
#define SPANK_METRIC_PREFIX "spank_"
#define SPANK_MAP_NAME_KERNEL_LEN 15

/* Jobs observed at once per config; `make probes-tiny` builds with 4. */
#ifndef SPANK_JOBS_MAX
#define SPANK_JOBS_MAX 1024
#endif
#define SPANK_JOBS_KEYS (2 * SPANK_JOBS_MAX) /* "job_<id>" and the SLUID */
/* BPF_F_MMAPABLE (linux/bpf.h; kernel 5.5+), spelled out: this header
 * includes no BPF header. */
#define SPANK_JOBS_GEN_FLAGS (1U << 10)
#define SPANK_JOB_NAME_LEN 64

/* The project's configs (ebpf_exporter --config.names) and their bits in
 * spank_job_val.configs. */
#define SPANK_CONFIG_IO "spank-io"
#define SPANK_CONFIG_SCHED "spank-sched"
#define SPANK_CONFIG_NET "spank-net"
#define SPANK_CONFIG_OOM "spank-oom"
#define SPANK_CONFIG_SCHED_DETAIL "spank-sched-detail"
#define SPANK_CONFIG_FS "spank-fs"
#define SPANK_CONFIG_FS_NFS "spank-fs-nfs" /* the fs set's NFS RPCs: same bit */
#define SPANK_JOB_IO (1u << 0)
#define SPANK_JOB_SCHED (1u << 1)
#define SPANK_JOB_NET (1u << 2)
#define SPANK_JOB_OOM (1u << 3)
#define SPANK_JOB_SCHED_DETAIL (1u << 4)
#define SPANK_JOB_FS (1u << 5) /* spank-fs and spank-fs-nfs */

/* The configs' drop counters (metric names; the kernel keeps 15
 * characters). */
#define SPANK_IO_DROPPED "spank_io_dropped_total"
#define SPANK_SCHED_DROPPED "spank_sched_dropped_total"
#define SPANK_NET_DROPPED "spank_net_dropped_total"
#define SPANK_OOM_DROPPED "spank_oom_dropped_total"
#define SPANK_SCHED_DETAIL_DROPPED "spank_sched_detail_dropped_total"
#define SPANK_FS_DROPPED "spank_fs_dropped_total" /* both fs configs' */
/* spank_dropped_key.reason */
#define SPANK_DROP_FULL 0 /* the map was full: an update failed */
#define SPANK_DROP_UNATTRIBUTED 1 /* no job could be found for it (spank-fs-nfs) */

struct spank_dropped_key {
	__u32 map; /* the config's own numbering, named in its YAML */
	__u32 reason;
};

struct spank_job_key {
	char name[SPANK_JOB_NAME_LEN];
};

struct spank_job_val {
	__u32 job;
	__u32 configs;
};

#endif
