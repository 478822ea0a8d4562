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

/* SPANK_FS_SEEN(label, sb): what a config does the first time a job's
 * call is counted on a file system (its label's seen is 0 then). */
#ifndef SPANK_FS_SEEN
#define SPANK_FS_SEEN(l, sb) ((void)0)
#endif

/* SPANK_FS_EXITED(st, label, sb, job): what a config does after each
 * counted metadata call, with the thread's fs_start (st). A config may
 * give fs_start a field of its own, `more`, of the struct named by
 * SPANK_FS_START_MORE. */
#ifndef SPANK_FS_EXITED
#define SPANK_FS_EXITED(st, l, sb, job) ((void)0)
#endif

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

/* The hooks, for fs_starts' slots. */
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
#define SPANK_FS_HOOK_OPEN3 15 /* spank-fs-nfs: NFSv3's opens */
#define SPANK_FS_HOOKS 16

/* A thread's metadata calls in flight (scratch): per hook, the start of
 * its call (0: none) and its job. Task storage (5.11+), not a hash by
 * thread: the thread's own slot is found without hashing, no element is
 * made and freed per call (an LRU hash's update and delete, each under
 * locks), and it goes with the thread.
 * A start whose call failed where no hook sees it (an NFS open, which
 * starts in one hook and ends in another) stays until the thread's next
 * call of that hook replaces it. */
struct fs_start {
	__u64 ns[SPANK_FS_HOOKS];
	__u32 job[SPANK_FS_HOOKS];
#ifdef SPANK_FS_START_MORE
	struct SPANK_FS_START_MORE more;
#endif
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, SPANK_F_NO_PREALLOC);
	__type(key, int);
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

	if (ret < 0 || !f)
		return 0;
	job = spank_job_of_current(SPANK_JOB_FS);
	if (!job)
		return 0;
	inode = f->f_inode;
	if (!inode)
		return 0;
	mode = inode->i_mode & SPANK_S_IFMT;
	if (mode != SPANK_S_IFREG && mode != SPANK_S_IFDIR)
		return 0;
	l = spank_fs_label(job, inode->i_sb, SPANK_FS_MAP_MOUNTS);
	if (!l)
		return job;
	if (!l->seen)
		SPANK_FS_SEEN(l, inode->i_sb);
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

/* The thread's calls in flight; made when create (a call starting). */
static __always_inline struct fs_start *spank_fs_starts(int create)
{
	return bpf_task_storage_get(&fs_starts, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* fentry: a job's call starts (keep: keep the start of a call already
 * under way in this thread). */
static __always_inline int spank_fs_enter_as(__u32 hook, int keep)
{
	struct fs_start *st;
	__u32 job = spank_job_of_current(SPANK_JOB_FS);

	if (!job)
		return 0;
	st = spank_fs_starts(1);
	if (!st) {
		spank_drop(SPANK_FS_MAP_STARTS, SPANK_DROP_FULL);
		return 0;
	}
	hook &= SPANK_FS_HOOKS - 1;
	if (keep && st->ns[hook])
		return 0;
	st->job[hook] = job;
	st->ns[hook] = bpf_ktime_get_ns();
	return 0;
}

static __always_inline int spank_fs_enter(__u32 hook)
{
	return spank_fs_enter_as(hook, 0);
}

/* The call of hook failed before any file system was known: its start
 * goes, uncounted. */
static __always_inline int spank_fs_forget(__u32 hook)
{
	struct fs_start *st = spank_fs_starts(0);

	if (st)
		st->ns[hook & (SPANK_FS_HOOKS - 1)] = 0;
	return 0;
}

/* Of hooks a and b, the one whose call in flight started last (a when
 * neither has one). */
static __always_inline __u32 spank_fs_latest(__u32 a, __u32 b)
{
	struct fs_start *st = spank_fs_starts(0);

	if (!st)
		return a;
	return st->ns[a & (SPANK_FS_HOOKS - 1)] >= st->ns[b & (SPANK_FS_HOOKS - 1)] ? a : b;
}

/* fexit: the call of hook on sb's file system returned: op counted,
 * its latency in class. */
static __always_inline int spank_fs_exit(__u32 hook, struct super_block *sb, __u32 op, __u32 class)
{
	struct spank_fs_latency_key lat;
	struct spank_fs_label *l;
	struct spank_fs_key k;
	struct fs_start *st = spank_fs_starts(0);
	__u64 start, now, us;
	__u32 job;

	if (!st)
		return 0;
	hook &= SPANK_FS_HOOKS - 1;
	start = st->ns[hook];
	if (!start)
		return 0;
	now = bpf_ktime_get_ns();
	st->ns[hook] = 0;
	job = st->job[hook];
	us = now > start ? (now - start) / 1000 : 0;
	l = spank_fs_label(job, sb, SPANK_FS_MAP_MOUNTS);
	if (!l)
		return 0;
	if (!l->seen)
		SPANK_FS_SEEN(l, sb);
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
	SPANK_FS_EXITED(st, l, sb, job);
	return 0;
}

/* A hook's file, inode or dentry: their super block, read directly (the
 * hooks' arguments are typed: spank_fs_label). */
static __always_inline struct super_block *spank_fs_file_sb(struct file *f)
{
	struct inode *inode = f ? f->f_inode : 0;

	return inode ? inode->i_sb : 0;
}

static __always_inline struct super_block *spank_fs_inode_sb(struct inode *inode)
{
	return inode ? inode->i_sb : 0;
}

static __always_inline struct super_block *spank_fs_dentry_sb(struct dentry *d)
{
	return d ? d->d_sb : 0;
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
