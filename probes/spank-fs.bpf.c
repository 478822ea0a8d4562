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
/* NFS's calls are spank-fs-nfs's, counted at NFS's own entry points:
 * here its file systems are skipped as pseudo ones are (spank_fs.bpf.h). */
#define SPANK_FS_LEAVE_NFS 1
#include "spank_job.bpf.h"
#include "spank_fs.bpf.h"

/* spank_fs_dropped_total's map label (spank-fs.yaml). */
#define SPANK_FS_MAP_DATA_OPS 0
#define SPANK_FS_MAP_DATA_BYTES 1
#define SPANK_FS_MAP_META_OPS 2
#define SPANK_FS_MAP_META_LATENCY 3
#define SPANK_FS_MAP_MOUNTS 4
#define SPANK_FS_MAP_STARTS 5
#include "spank_fs_calls.bpf.h"

/* ---- data -------------------------------------------------------------- */

/* fexit: the arguments, then the return value. */
SEC("fexit/vfs_read")
int spank_fs_read(__u64 *ctx)
{
	spank_fs_data((struct file *)ctx[0], (long)ctx[4], SPANK_FS_OP_READ);
	return 0;
}

SEC("fexit/vfs_write")
int spank_fs_write(__u64 *ctx)
{
	spank_fs_data((struct file *)ctx[0], (long)ctx[4], SPANK_FS_OP_WRITE);
	return 0;
}

SEC("fexit/vfs_readv")
int spank_fs_readv(__u64 *ctx)
{
	spank_fs_data((struct file *)ctx[0], (long)ctx[5], SPANK_FS_OP_READ);
	return 0;
}

SEC("fexit/vfs_writev")
int spank_fs_writev(__u64 *ctx)
{
	spank_fs_data((struct file *)ctx[0], (long)ctx[5], SPANK_FS_OP_WRITE);
	return 0;
}

/* ---- metadata ------------------------------------------------------------ */

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

	if ((unsigned long)f >= (unsigned long)-4095L || !f) /* IS_ERR: no file system */
		return spank_fs_forget(SPANK_FS_HOOK_OPEN);
	return spank_fs_exit(SPANK_FS_HOOK_OPEN, spank_fs_file_sb(f),
			     (f->f_mode & SPANK_FMODE_CREATED) ? SPANK_FS_META_CREATE :
										 SPANK_FS_META_OPEN,
			     SPANK_FS_CLASS_OPEN);
}

/* vfs_getattr_nosec(path, stat, mask, flags) */
SPANK_FS_PAIR(vfs_getattr_nosec, SPANK_FS_HOOK_STAT,
	      spank_fs_dentry_sb(((struct path *)ctx[0])->dentry), SPANK_FS_META_STAT,
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
	      spank_fs_dentry_sb(((struct renamedata *)ctx[0])->old_dentry),
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