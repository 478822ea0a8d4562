// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * spank-fs: file system calls of the jobs that asked for it (sbatch
 * --ebpf=SET with a set holding spank-fs), by job, file system type and
 * mount point (spank_fs.bpf.h): data calls and their bytes, metadata
 * calls by operation, and the latency of metadata calls by class.
 *
 * Everything is counted in the calling task, at the VFS: what a job asks
 * of a file system, whatever the page cache or the server then do (for
 * NFS's RPCs, see spank-fs-nfs). fentry/fexit programs (BPF trampolines,
 * kernel 5.5+; the hooks' signatures as of 6.1):
 *   data: vfs_read, vfs_write (read, write, pread64, pwrite64, and
 *     O_DIRECT alike), vfs_readv, vfs_writev (readv, writev, preadv,
 *     pwritev and their 2 forms): a call that returned >= 0 on a regular
 *     file or a directory (not a pipe, socket or device: they return at
 *     once), its bytes what it returned;
 *   metadata, with the latency of the call (fexit - fentry, kept per
 *     thread and hook in fs_starts):
 *     open, create: do_filp_open (open, openat, openat2, creat): create
 *       when the call made the file (FMODE_CREATED), else open; a failed
 *       open has no file, so no file system: not counted;
 *     stat: vfs_getattr_nosec (stat, fstat, lstat, statx, newfstatat);
 *     setattr: notify_change (chmod, chown, utimes, truncate);
 *     unlink, rmdir, mkdir, rename, link, symlink, mknod: vfs_*;
 *     readdir: iterate_dir (getdents);
 *     fsync: vfs_fsync_range (fsync, fdatasync, sync_file_range's wait);
 *     lock: fcntl_setlk (fcntl F_SETLK, F_SETLKW, F_OFD_*: POSIX record
 *       locks; flock() is not counted).
 *
 * A thread inside one hook's call that enters the same hook again (an
 * overlay file system calling the one below) counts the inner call only.
 */
#define SPANK_DROPPED spank_fs_dropped_total
#include "spank_job.bpf.h"
#include "spank_fs.bpf.h"

/* spank_fs_dropped_total's map label (spank-fs.yaml). */
#define SPANK_FS_MAP_DATA_OPS 0
#define SPANK_FS_MAP_DATA_BYTES 1
#define SPANK_FS_MAP_META_OPS 2
#define SPANK_FS_MAP_META_LATENCY 3
#define SPANK_FS_MAP_MOUNTS 4
#define SPANK_FS_MAP_STARTS 5

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
 * start and job. An entry goes at the call's return. */
struct fs_start {
	__u64 ns;
	__u32 job;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct fs_start);
} fs_starts SEC(".maps");

/* ---- data -------------------------------------------------------------- */

static __always_inline int spank_fs_data(struct file *f, long ret, __u32 op)
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
		return 0;
	k.job = job;
	k.op = op;
	__builtin_memcpy(k.fstype, l->fstype, sizeof(k.fstype));
	__builtin_memcpy(k.mount, l->mount, sizeof(k.mount));
	spank_add(&spank_fs_data_ops_total, &k, 1, SPANK_FS_MAP_DATA_OPS);
	if (ret > 0)
		spank_add(&spank_fs_data_bytes_total, &k, ret, SPANK_FS_MAP_DATA_BYTES);
	return 0;
}

/* fexit: the arguments, then the return value. */
SEC("fexit/vfs_read")
int spank_fs_read(__u64 *ctx)
{
	return spank_fs_data((struct file *)ctx[0], (long)ctx[4], SPANK_FS_OP_READ);
}

SEC("fexit/vfs_write")
int spank_fs_write(__u64 *ctx)
{
	return spank_fs_data((struct file *)ctx[0], (long)ctx[4], SPANK_FS_OP_WRITE);
}

SEC("fexit/vfs_readv")
int spank_fs_readv(__u64 *ctx)
{
	return spank_fs_data((struct file *)ctx[0], (long)ctx[5], SPANK_FS_OP_READ);
}

SEC("fexit/vfs_writev")
int spank_fs_writev(__u64 *ctx)
{
	return spank_fs_data((struct file *)ctx[0], (long)ctx[5], SPANK_FS_OP_WRITE);
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

static __always_inline __u64 spank_fs_start_key(__u32 hook)
{
	return (bpf_get_current_pid_tgid() << 32) | hook;
}

/* fentry: a job's call starts. */
static __always_inline int spank_fs_enter(__u32 hook)
{
	struct fs_start st = {};
	__u64 key;

	st.job = spank_job_of_current(SPANK_JOB_FS);
	if (!st.job)
		return 0;
	key = spank_fs_start_key(hook);
	st.ns = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&fs_starts, &key, &st, BPF_ANY))
		spank_drop(SPANK_FS_MAP_STARTS, SPANK_DROP_FULL);
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

/* do_filp_open(dfd, name, op) returns the file, or an error pointer. */
SEC("fentry/do_filp_open")
int spank_fs_open_in(__u64 *ctx)
{
	return spank_fs_enter(SPANK_FS_HOOK_OPEN);
}

SEC("fexit/do_filp_open")
int spank_fs_open_out(__u64 *ctx)
{
	struct file *f = (struct file *)ctx[3];
	__u64 key;

	if ((unsigned long)f >= (unsigned long)-4095L || !f) { /* IS_ERR: no file system */
		key = spank_fs_start_key(SPANK_FS_HOOK_OPEN);
		bpf_map_delete_elem(&fs_starts, &key);
		return 0;
	}
	return spank_fs_exit(SPANK_FS_HOOK_OPEN, spank_fs_file_sb(f),
			     (BPF_CORE_READ(f, f_mode) & SPANK_FMODE_CREATED) ? SPANK_FS_META_CREATE :
										 SPANK_FS_META_OPEN,
			     SPANK_FS_CLASS_OPEN);
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

/* vfs_getattr_nosec(path, stat, mask, flags) */
SPANK_FS_PAIR(vfs_getattr_nosec, SPANK_FS_HOOK_STAT,
	      spank_fs_dentry_sb(BPF_CORE_READ((struct path *)ctx[0], dentry)), SPANK_FS_META_STAT,
	      SPANK_FS_CLASS_STAT)
/* notify_change(idmap, dentry, attr, delegated) */
SPANK_FS_PAIR(notify_change, SPANK_FS_HOOK_SETATTR, spank_fs_dentry_sb((struct dentry *)ctx[1]),
	      SPANK_FS_META_SETATTR, SPANK_FS_CLASS_SETATTR)
/* vfs_unlink(idmap, dir, dentry, delegated); rmdir, mkdir, symlink, mknod
 * as well: the directory second. */
SPANK_FS_PAIR(vfs_unlink, SPANK_FS_HOOK_UNLINK, spank_fs_inode_sb((struct inode *)ctx[1]),
	      SPANK_FS_META_UNLINK, SPANK_FS_CLASS_NAMESPACE)
SPANK_FS_PAIR(vfs_rmdir, SPANK_FS_HOOK_RMDIR, spank_fs_inode_sb((struct inode *)ctx[1]),
	      SPANK_FS_META_RMDIR, SPANK_FS_CLASS_NAMESPACE)
SPANK_FS_PAIR(vfs_mkdir, SPANK_FS_HOOK_MKDIR, spank_fs_inode_sb((struct inode *)ctx[1]),
	      SPANK_FS_META_MKDIR, SPANK_FS_CLASS_NAMESPACE)
SPANK_FS_PAIR(vfs_symlink, SPANK_FS_HOOK_SYMLINK, spank_fs_inode_sb((struct inode *)ctx[1]),
	      SPANK_FS_META_SYMLINK, SPANK_FS_CLASS_NAMESPACE)
SPANK_FS_PAIR(vfs_mknod, SPANK_FS_HOOK_MKNOD, spank_fs_inode_sb((struct inode *)ctx[1]),
	      SPANK_FS_META_MKNOD, SPANK_FS_CLASS_NAMESPACE)
/* vfs_rename(struct renamedata *) */
SPANK_FS_PAIR(vfs_rename, SPANK_FS_HOOK_RENAME,
	      spank_fs_dentry_sb(BPF_CORE_READ((struct renamedata *)ctx[0], old_dentry)),
	      SPANK_FS_META_RENAME, SPANK_FS_CLASS_NAMESPACE)
/* vfs_link(old_dentry, idmap, dir, new_dentry, delegated) */
SPANK_FS_PAIR(vfs_link, SPANK_FS_HOOK_LINK, spank_fs_dentry_sb((struct dentry *)ctx[0]),
	      SPANK_FS_META_LINK, SPANK_FS_CLASS_NAMESPACE)
/* iterate_dir(file, dir_context) */
SPANK_FS_PAIR(iterate_dir, SPANK_FS_HOOK_READDIR, spank_fs_file_sb((struct file *)ctx[0]),
	      SPANK_FS_META_READDIR, SPANK_FS_CLASS_READDIR)
/* vfs_fsync_range(file, start, end, datasync) */
SPANK_FS_PAIR(vfs_fsync_range, SPANK_FS_HOOK_FSYNC, spank_fs_file_sb((struct file *)ctx[0]),
	      SPANK_FS_META_FSYNC, SPANK_FS_CLASS_FSYNC)
/* fcntl_setlk(fd, file, cmd, flock) */
SPANK_FS_PAIR(fcntl_setlk, SPANK_FS_HOOK_LOCK, spank_fs_file_sb((struct file *)ctx[1]),
	      SPANK_FS_META_LOCK, SPANK_FS_CLASS_LOCK)

char LICENSE[] SEC("license") = "GPL";
