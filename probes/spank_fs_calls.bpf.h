/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the fs set's configs count alike, wherever their hooks are (the
 * VFS's for spank-fs, NFS's own entry points for spank-fs-nfs): a job's
 * data calls and bytes, its metadata calls by operation and their
 * latency by class, per file system (spank_fs.bpf.h's labels). The maps
 * and metrics have the same names and labels in each config; a file
 * system is counted by one config only (spank-fs leaves NFS to
 * spank-fs-nfs), so no series is made twice.
 *
 * Included after spank_fs.bpf.h, by a config that defined the numbers of
 * its maps in spank_fs_dropped_total (SPANK_FS_MAP_DATA_OPS,
 * SPANK_FS_MAP_DATA_BYTES, SPANK_FS_MAP_META_OPS,
 * SPANK_FS_MAP_META_LATENCY, SPANK_FS_MAP_MOUNTS, SPANK_FS_MAP_STARTS).
 */
#ifndef SPANK_FS_CALLS_BPF_H
#define SPANK_FS_CALLS_BPF_H
#define SPANK_FS_OP_READ 0
#define SPANK_FS_OP_WRITE 1

/* spank_fs_meta_ops_total's op (spank-fs.yaml). */
#define SPANK_FS_META_OPEN 0
#define SPANK_FS_META_CREATE 1
#define SPANK_FS_META_STAT 2
#define SPANK_FS_META_SETATTR 3
#define SPANK_FS_META_UNLINK 4
#define SPANK_FS_META_RMDIR 5
#define SPANK_FS_META_MKDIR 6
#define SPANK_FS_META_RENAME 7
#define SPANK_FS_META_LINK 8
#define SPANK_FS_META_SYMLINK 9
#define SPANK_FS_META_MKNOD 10
#define SPANK_FS_META_READDIR 11
#define SPANK_FS_META_FSYNC 12
#define SPANK_FS_META_LOCK 13
#define SPANK_FS_META_OPS 14

/* spank_fs_meta_latency_seconds' class. */
#define SPANK_FS_CLASS_OPEN 0
#define SPANK_FS_CLASS_STAT 1
#define SPANK_FS_CLASS_SETATTR 2
#define SPANK_FS_CLASS_NAMESPACE 3
#define SPANK_FS_CLASS_READDIR 4
#define SPANK_FS_CLASS_FSYNC 5
#define SPANK_FS_CLASS_LOCK 6
#define SPANK_FS_CLASSES 7

/* 24: 2^24 us, about 17 s; longer calls go to that bucket. */
#define SPANK_FS_MAX_BUCKET 24

/* The most keys one job makes (its SPANK_FS_MOUNTS_PER_JOB file
 * systems): the maps allocate as they fill (BPF_F_NO_PREALLOC; 6.1's
 * allocator serves tracing programs), so the bound costs only the
 * hash table's buckets. */
#define SPANK_FS_DATA_PER_JOB (2 * SPANK_FS_MOUNTS_PER_JOB)
#define SPANK_FS_META_PER_JOB (SPANK_FS_META_OPS * SPANK_FS_MOUNTS_PER_JOB)
#define SPANK_FS_LATENCY_PER_JOB (SPANK_FS_CLASSES * (SPANK_FS_MAX_BUCKET + 2) * SPANK_FS_MOUNTS_PER_JOB)
#define SPANK_F_NO_PREALLOC 1 /* BPF_F_NO_PREALLOC */

/* FMODE_CREATED (include/linux/fs.h, 4.19+): the open made the file. */
#define SPANK_FMODE_CREATED 0x100000

struct path {
	struct vfsmount *mnt;
	struct dentry *dentry;
} __attribute__((preserve_access_index));

struct file {
	struct path f_path;
	struct inode *f_inode;
	unsigned int f_mode;
} __attribute__((preserve_access_index));

struct renamedata {
	struct dentry *old_dentry;
} __attribute__((preserve_access_index));

/* One key per label: job, what, then the file system. */
struct spank_fs_key {
	__u32 job;
	__u32 op;
	char fstype[SPANK_FS_TYPE_LEN];
	char mount[SPANK_FS_MOUNT_LEN];
};

struct spank_fs_latency_key {
	__u32 job;
	__u32 class;
	char fstype[SPANK_FS_TYPE_LEN];
	char mount[SPANK_FS_MOUNT_LEN];
	__u64 bucket;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SPANK_JOBS_MAX * SPANK_FS_DATA_PER_JOB);
	__uint(map_flags, SPANK_F_NO_PREALLOC);
	__type(key, struct spank_fs_key);
	__type(value, __u64);
} spank_fs_data_ops_total SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SPANK_JOBS_MAX * SPANK_FS_DATA_PER_JOB);
	__uint(map_flags, SPANK_F_NO_PREALLOC);
	__type(key, struct spank_fs_key);
	__type(value, __u64);
} spank_fs_data_bytes_total SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SPANK_JOBS_MAX * SPANK_FS_META_PER_JOB);
	__uint(map_flags, SPANK_F_NO_PREALLOC);
	__type(key, struct spank_fs_key);
	__type(value, __u64);
} spank_fs_meta_ops_total SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SPANK_JOBS_MAX * SPANK_FS_LATENCY_PER_JOB);
	__uint(map_flags, SPANK_F_NO_PREALLOC);
	__type(key, struct spank_fs_latency_key);
	__type(value, __u64);
} spank_fs_meta_latency_seconds SEC(".maps");

/* A metadata call in flight (scratch): by thread << 32 | hook, its
 * start and job. An entry goes at the call's return; an LRU, as an NFS
 * open starts in one hook and ends in another (spank-fs-nfs), and a
 * start whose call failed where no hook sees it is left behind. */
struct fs_start {
	__u64 ns;
	__u32 job;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct fs_start);
} fs_starts SEC(".maps");

/* ---- data -------------------------------------------------------------- */

/* A data call that returned ret on f: counted. Returns the calling job
 * when the call is one of its data calls on a file (0 for no job, a
 * failed call, a pipe...), counted or not (its file system over the job's
 * share). */
static __always_inline __u32 spank_fs_data(struct file *f, long ret, __u32 op)
{
	struct spank_fs_label *l;
	struct spank_fs_key k;
	struct inode *inode;
	__u16 mode;
	__u32 job;

	if (ret < 0)
		return 0;
	job = spank_job_of_current(SPANK_JOB_FS);
	if (!job)
		return 0;
	inode = BPF_CORE_READ(f, f_inode);
	mode = BPF_CORE_READ(inode, i_mode) & SPANK_S_IFMT;
	if (mode != SPANK_S_IFREG && mode != SPANK_S_IFDIR)
		return 0;
	l = spank_fs_label(job, BPF_CORE_READ(inode, i_sb), SPANK_FS_MAP_MOUNTS);
	if (!l)
		return job;
	k.job = job;
	k.op = op;
	__builtin_memcpy(k.fstype, l->fstype, sizeof(k.fstype));
	__builtin_memcpy(k.mount, l->mount, sizeof(k.mount));
	spank_add(&spank_fs_data_ops_total, &k, 1, SPANK_FS_MAP_DATA_OPS);
	if (ret > 0)
		spank_add(&spank_fs_data_bytes_total, &k, ret, SPANK_FS_MAP_DATA_BYTES);
	return job;
}

/* ---- metadata ------------------------------------------------------------ */

/* The hooks, for fs_starts' keys. */
#define SPANK_FS_HOOK_OPEN 1
#define SPANK_FS_HOOK_STAT 2
#define SPANK_FS_HOOK_SETATTR 3
#define SPANK_FS_HOOK_UNLINK 4
#define SPANK_FS_HOOK_RMDIR 5
#define SPANK_FS_HOOK_MKDIR 6
#define SPANK_FS_HOOK_RENAME 7
#define SPANK_FS_HOOK_LINK 8
#define SPANK_FS_HOOK_SYMLINK 9
#define SPANK_FS_HOOK_MKNOD 10
#define SPANK_FS_HOOK_READDIR 11
#define SPANK_FS_HOOK_FSYNC 12
#define SPANK_FS_HOOK_LOCK 13
#define SPANK_FS_HOOK_OPENDIR 14

static __always_inline __u64 spank_fs_start_key(__u32 hook)
{
	return (bpf_get_current_pid_tgid() << 32) | hook;
}

/* fentry: a job's call starts (how: BPF_ANY, or BPF_NOEXIST to keep
 * the start of a call already under way in this thread). */
static __always_inline int spank_fs_enter_as(__u32 hook, __u64 how)
{
	struct fs_start st = {};
	__u64 key;

	st.job = spank_job_of_current(SPANK_JOB_FS);
	if (!st.job)
		return 0;
	key = spank_fs_start_key(hook);
	st.ns = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&fs_starts, &key, &st, how) && how == BPF_ANY)
		spank_drop(SPANK_FS_MAP_STARTS, SPANK_DROP_FULL);
	return 0;
}

static __always_inline int spank_fs_enter(__u32 hook)
{
	return spank_fs_enter_as(hook, BPF_ANY);
}

/* The call of hook failed before any file system was known: its start
 * goes, uncounted. */
static __always_inline int spank_fs_forget(__u32 hook)
{
	__u64 key = spank_fs_start_key(hook);

	bpf_map_delete_elem(&fs_starts, &key);
	return 0;
}

/* fexit: the call of hook on sb's file system returned: op counted,
 * its latency in class. */
static __always_inline int spank_fs_exit(__u32 hook, struct super_block *sb, __u32 op, __u32 class)
{
	struct spank_fs_latency_key lat;
	struct spank_fs_label *l;
	struct spank_fs_key k;
	struct fs_start *st;
	__u64 key = spank_fs_start_key(hook), now, us;
	__u32 job;

	st = bpf_map_lookup_elem(&fs_starts, &key);
	if (!st)
		return 0;
	job = st->job;
	now = bpf_ktime_get_ns();
	us = now > st->ns ? (now - st->ns) / 1000 : 0;
	bpf_map_delete_elem(&fs_starts, &key);
	l = spank_fs_label(job, sb, SPANK_FS_MAP_MOUNTS);
	if (!l)
		return 0;
	k.job = job;
	k.op = op;
	__builtin_memcpy(k.fstype, l->fstype, sizeof(k.fstype));
	__builtin_memcpy(k.mount, l->mount, sizeof(k.mount));
	spank_add(&spank_fs_meta_ops_total, &k, 1, SPANK_FS_MAP_META_OPS);
	lat.job = job;
	lat.class = class;
	__builtin_memcpy(lat.fstype, l->fstype, sizeof(lat.fstype));
	__builtin_memcpy(lat.mount, l->mount, sizeof(lat.mount));
	SPANK_HIST_EXP2(spank_fs_meta_latency_seconds, lat, us, SPANK_FS_MAX_BUCKET,
			SPANK_FS_MAP_META_LATENCY);
	return 0;
}

static __always_inline struct super_block *spank_fs_file_sb(struct file *f)
{
	return BPF_CORE_READ(f, f_inode, i_sb);
}

static __always_inline struct super_block *spank_fs_inode_sb(struct inode *inode)
{
	return BPF_CORE_READ(inode, i_sb);
}

static __always_inline struct super_block *spank_fs_dentry_sb(struct dentry *d)
{
	return BPF_CORE_READ(d, d_sb);
}

/* The pairs whose file system is an argument's: NAME, the hook, the
 * expression of its super block (from ctx), the op and the class. */
#define SPANK_FS_PAIR(fn, hook, sb_expr, op, class)                       \
	SEC("fentry/" #fn)                                                \
	int spank_fs_in_##fn(__u64 *ctx)                                  \
	{                                                                 \
		return spank_fs_enter(hook);                              \
	}                                                                 \
	SEC("fexit/" #fn)                                                 \
	int spank_fs_out_##fn(__u64 *ctx)                                 \
	{                                                                 \
		return spank_fs_exit(hook, (sb_expr), op, class);         \
	}

#endif
