// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * spank-fs-nfs: the NFS RPCs the fs set's jobs caused, by job, mount
 * point and procedure (the names /proc/self/mountstats gives: GETATTR,
 * LOOKUP, READ, WRITE...). A config of its own beside spank-fs, with the
 * same job bit: its programs are on the sunrpc and nfs modules'
 * tracepoints, which exist only while the modules are loaded (a node
 * that mounts NFS); spank-fs runs on every node.
 *
 * An RPC is counted when it begins (sunrpc:rpc_task_begin, in the task
 * that runs rpc_execute()):
 *   - in a job's task: for that job. Synchronous RPCs (GETATTR, LOOKUP,
 *     ACCESS, OPEN, CLOSE, CREATE, REMOVE, SETATTR...) run there, and so
 *     do the reads, direct writes and commits a job's calls start
 *     (readahead, O_DIRECT, fsync), even where rpciod then runs them;
 *   - in a kernel thread (the flusher's writeback, the write-behind of a
 *     closed file): for the job that last wrote the file, when its READ,
 *     WRITE or COMMIT is started (nfs:nfs_initiate_read, _write,
 *     _commit, just before rpc_run_task in the same thread): the file
 *     (device, file ID) -> job in fs_nfs_writers, filled when a job's
 *     write() on NFS returns, an LRU of 16384 files. A file no job wrote
 *     (or forgotten) counts in spank_fs_dropped_total{reason=
 *     "unattributed"}; other RPCs of kernel threads (the lease's
 *     SEQUENCE, RENEW) are no job's and not counted.
 *   - in a task of no observed job: not counted.
 * The mount point is the RPC client's: each NFS super block's nfs_server
 * has one (server->client), learnt in fs_nfs_clients the first time a
 * job's call on that super block is counted (below), one of the three
 * tracepoints above sees a file of it, or a job's task begins an RPC on
 * it while walking a path on that super block (the task's nameidata: the
 * walk's LOOKUP, ACCESS, GETATTR, an open's OPEN). Until then a job's
 * RPC on it outside a walk (the LOOKUP of a namespace call's last name,
 * its MKDIR or REMOVE...) is held in the thread's fs_start, four at the
 * most, and counted at the thread's next counted call on that mount:
 * most often the call it was part of. One that no counted call of its
 * thread follows there (a lookup that failed, and nothing after) is not
 * counted. So a job's RPCs on a mount are counted from its first one,
 * without a program at the nfs tracepoints of lookups and access
 * checks (three runs per create on NFSv4). RPCs of the client's own
 * (the lease, on nfs_client's cl_rpcclient) have no mount and are not
 * counted, as mountstats' per-op counts leave them out.
 */
#define SPANK_DROPPED spank_fs_dropped_total
#include "spank_job.bpf.h"
#include "spank_fs.bpf.h"

/* spank_fs_dropped_total's map label (spank-fs-nfs.yaml): numbers of
 * their own, beside spank-fs's 0-5. */
#define SPANK_FS_NFS_MAP_RPCS 10
#define SPANK_FS_NFS_MAP_MOUNTS 11
#define SPANK_FS_NFS_MAP_PENDING 12
#define SPANK_FS_MAP_DATA_OPS 13
#define SPANK_FS_MAP_DATA_BYTES 14
#define SPANK_FS_MAP_META_OPS 15
#define SPANK_FS_MAP_META_LATENCY 16
#define SPANK_FS_MAP_MOUNTS SPANK_FS_NFS_MAP_MOUNTS
#define SPANK_FS_MAP_STARTS 17
struct spank_fs_label;
static __always_inline void spank_fs_nfs_seen(struct spank_fs_label *l, struct super_block *sb);
#define SPANK_FS_SEEN(l, sb) spank_fs_nfs_seen((l), (sb))

/* A thread's RPCs held back: begun by a job's task on an RPC client not
 * yet learnt, outside a path walk; counted at the thread's next counted
 * call on that client's mount (SPANK_FS_EXITED), most often the call
 * they were part of (a namespace call's LOOKUP, its REMOVE...). A slot
 * is free when its clnt is 0. */
#define SPANK_FS_NFS_HELD 4
struct fs_nfs_held {
	__u64 clnt[SPANK_FS_NFS_HELD]; /* struct rpc_clnt * */
	__u64 name[SPANK_FS_NFS_HELD]; /* its procedure's p_name (static) */
	__u32 n;
	__u32 pad;
};
#define SPANK_FS_START_MORE fs_nfs_held
struct fs_start;
static __always_inline void spank_fs_nfs_exited(struct fs_start *st, struct spank_fs_label *l,
						struct super_block *sb, __u32 job);
#define SPANK_FS_EXITED(st, l, sb, job) spank_fs_nfs_exited((st), (l), (sb), (job))
#include "spank_fs_calls.bpf.h"

#define SPANK_FS_PROC_LEN 28
/* Procedures one job makes on one mount (NFSv4.2 has 70 or so). */
#define SPANK_FS_NFS_PROCS_PER_JOB 64
#define SPANK_PF_KTHREAD 0x00200000

struct rpc_clnt;

struct rpc_procinfo {
	const char *p_name;
} __attribute__((preserve_access_index));

struct rpc_message {
	const struct rpc_procinfo *rpc_proc;
} __attribute__((preserve_access_index));

struct rpc_task {
	struct rpc_message tk_msg;
	struct rpc_clnt *tk_client;
} __attribute__((preserve_access_index));

struct nfs_server {
	struct rpc_clnt *client;
} __attribute__((preserve_access_index));

struct nfs_pgio_header {
	struct inode *inode;
} __attribute__((preserve_access_index));

struct nfs_commit_data {
	struct inode *inode;
} __attribute__((preserve_access_index));

struct task_struct___flags {
	unsigned int flags;
} __attribute__((preserve_access_index));

/* fs/namei.c's walk of a path, on the walking task (6.1 and 6.12 alike):
 * path is where the walk is. */
struct nameidata {
	struct path path;
} __attribute__((preserve_access_index));

struct task_struct___walk {
	struct nameidata *nameidata;
} __attribute__((preserve_access_index));

#define SPANK_NFS_SUPER_MAGIC 0x6969

struct spank_fs_nfs_key {
	__u32 job;
	char mount[SPANK_FS_MOUNT_LEN];
	char procedure[SPANK_FS_PROC_LEN];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SPANK_JOBS_MAX * SPANK_FS_MOUNTS_PER_JOB * SPANK_FS_NFS_PROCS_PER_JOB);
	__uint(map_flags, SPANK_F_NO_PREALLOC);
	__type(key, struct spank_fs_nfs_key);
	__type(value, __u64);
} spank_fs_nfs_rpcs_total SEC(".maps");

/* RPC client -> its NFS super block (scratch). */
struct fs_nfs_client {
	__u64 sb;  /* struct super_block * */
	__u32 dev; /* its s_dev */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64); /* struct rpc_clnt * */
	__type(value, struct fs_nfs_client);
} fs_nfs_clients SEC(".maps");

struct spank_fs_file {
	__u32 dev;
	__u32 pad;
	__u64 ino;
};

/* An NFS file -> the job that last wrote it (scratch). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct spank_fs_file);
	__type(value, __u32);
} fs_nfs_writers SEC(".maps");

/* The RPC a kernel thread is about to begin for a file: its job (0: no
 * job's file) and super block, by thread (scratch). */
struct fs_nfs_next {
	__u64 sb;
	__u32 job;
	__u32 dev; /* the super block's s_dev */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64); /* pid_tgid */
	__type(value, struct fs_nfs_next);
} fs_nfs_pending SEC(".maps");

static __always_inline int spank_fs_nfs_loaded(void)
{
	return bpf_core_type_exists(struct rpc_task) && bpf_core_type_exists(struct nfs_server);
}

/* An NFS super block's RPC client (0 for none). */
static __always_inline __u64 spank_fs_nfs_client(struct super_block *sb)
{
	struct nfs_server *server;

	if (!spank_fs_nfs_loaded() || !sb)
		return 0;
	server = (struct nfs_server *)sb->s_fs_info;
	if (!server)
		return 0;
	/* s_fs_info is a void *: the verifier knows no type behind it, so
	 * server's field is read through a helper. */
	return (__u64)BPF_CORE_READ(server, client);
}

/* An NFS super block (a pointer of a hook's argument): its RPC client
 * learnt. */
static __always_inline void spank_fs_nfs_learn(struct super_block *sb)
{
	struct fs_nfs_client c = {};
	struct fs_nfs_client *had;
	__u64 clnt = spank_fs_nfs_client(sb);

	if (!clnt)
		return;
	c.sb = (__u64)sb;
	c.dev = sb->s_dev;
	had = bpf_map_lookup_elem(&fs_nfs_clients, &clnt);
	if (had && had->sb == c.sb && had->dev == c.dev)
		return;
	bpf_map_update_elem(&fs_nfs_clients, &clnt, &c, BPF_ANY);
}

/* A job's first counted call on sb's file system (SPANK_FS_SEEN). */
static __always_inline void spank_fs_nfs_seen(struct spank_fs_label *l, struct super_block *sb)
{
	spank_fs_nfs_learn(sb);
	l->seen = 1;
}

/* The NFS super block whose RPC client is clnt, when this task is
 * walking a path on it (the walk's LOOKUP, ACCESS, GETATTR, and an
 * open's OPEN, which runs before the walk ends), else 0. Only for an
 * RPC whose client is not yet learnt: it costs nothing once it is. */
static __always_inline struct super_block *spank_fs_nfs_walking(__u64 clnt)
{
	struct task_struct___walk *t = (struct task_struct___walk *)bpf_get_current_task_btf();
	struct nameidata *nd = t->nameidata;
	struct super_block *sb;
	struct dentry *d;

	if (!nd)
		return 0;
	d = nd->path.dentry;
	sb = d ? d->d_sb : 0;
	/* Another file system's s_fs_info is not an nfs_server. */
	if (!sb || sb->s_magic != SPANK_NFS_SUPER_MAGIC)
		return 0;
	return spank_fs_nfs_client(sb) == clnt ? sb : 0;
}

/* An RPC of a job's task whose client is not yet learnt: held in the
 * thread's fs_start until a counted call shows its mount. */
static __always_inline void spank_fs_nfs_hold(__u64 clnt, const char *name)
{
	struct fs_start *st = spank_fs_starts(1);
	int i;

	if (!st) {
		spank_drop(SPANK_FS_MAP_STARTS, SPANK_DROP_FULL);
		return;
	}
	for (i = 0; i < SPANK_FS_NFS_HELD; i++) {
		if (st->more.clnt[i])
			continue;
		st->more.clnt[i] = clnt;
		st->more.name[i] = (__u64)name;
		st->more.n++;
		return;
	}
	spank_drop(SPANK_FS_NFS_MAP_RPCS, SPANK_DROP_FULL);
}

/* An RPC of job's on the mount labelled l, by procedure (name: its
 * rpc_procinfo's p_name). */
static __always_inline void spank_fs_nfs_count(__u32 job, struct spank_fs_label *l, const char *name)
{
	struct spank_fs_nfs_key k = {};

	k.job = job;
	__builtin_memcpy(k.mount, l->mount, sizeof(k.mount));
	if (name)
		bpf_probe_read_kernel_str(k.procedure, sizeof(k.procedure), name);
	spank_add(&spank_fs_nfs_rpcs_total, &k, 1, SPANK_FS_NFS_MAP_RPCS);
}

/* The thread's held RPCs on clnt, counted for job under l. */
static __always_inline void spank_fs_nfs_release(struct fs_start *st, struct spank_fs_label *l,
						 __u64 clnt, __u32 job)
{
	int i;

	for (i = 0; i < SPANK_FS_NFS_HELD; i++) {
		if (!clnt || st->more.clnt[i] != clnt)
			continue;
		spank_fs_nfs_count(job, l, (const char *)st->more.name[i]);
		st->more.clnt[i] = 0;
		if (st->more.n)
			st->more.n--;
	}
}

/* After a counted call on sb (SPANK_FS_EXITED): the RPCs this thread
 * held for sb's client, counted. One load when it holds none. */
static __always_inline void spank_fs_nfs_exited(struct fs_start *st, struct spank_fs_label *l,
						struct super_block *sb, __u32 job)
{
	if (st->more.n)
		spank_fs_nfs_release(st, l, spank_fs_nfs_client(sb), job);
}

static __always_inline int spank_fs_nfs_kthread(void)
{
	struct task_struct___flags *t = (struct task_struct___flags *)bpf_get_current_task_btf();

	return t->flags & SPANK_PF_KTHREAD;
}

/* A READ, WRITE or COMMIT of inode's about to begin in this thread: a
 * kernel thread's is credited to the file's writer. */
static __always_inline void spank_fs_nfs_initiate(struct inode *inode)
{
	struct fs_nfs_next next = {};
	struct spank_fs_file f = {};
	__u64 key;
	__u32 *w;

	if (!inode || !inode->i_sb)
		return;
	spank_fs_nfs_learn(inode->i_sb);
	if (!spank_fs_nfs_kthread())
		return;
	next.sb = (__u64)inode->i_sb;
	next.dev = inode->i_sb->s_dev;
	f.dev = next.dev;
	f.ino = inode->i_ino;
	w = bpf_map_lookup_elem(&fs_nfs_writers, &f);
	next.job = w ? *w : 0;
	key = bpf_get_current_pid_tgid();
	if (bpf_map_update_elem(&fs_nfs_pending, &key, &next, BPF_ANY))
		spank_drop(SPANK_FS_NFS_MAP_PENDING, SPANK_DROP_FULL);
}

SEC("tp_btf/nfs_initiate_read")
int spank_fs_nfs_read(__u64 *ctx)
{
	struct nfs_pgio_header *d = (struct nfs_pgio_header *)ctx[0];

	if (spank_fs_nfs_loaded() && d)
		spank_fs_nfs_initiate(d->inode);
	return 0;
}

SEC("tp_btf/nfs_initiate_write")
int spank_fs_nfs_write(__u64 *ctx)
{
	struct nfs_pgio_header *d = (struct nfs_pgio_header *)ctx[0];

	if (spank_fs_nfs_loaded() && d)
		spank_fs_nfs_initiate(d->inode);
	return 0;
}

SEC("tp_btf/nfs_initiate_commit")
int spank_fs_nfs_commit(__u64 *ctx)
{
	struct nfs_commit_data *d = (struct nfs_commit_data *)ctx[0];

	if (spank_fs_nfs_loaded() && d)
		spank_fs_nfs_initiate(d->inode);
	return 0;
}

/* rpc_task_begin(task, action) */
SEC("tp_btf/rpc_task_begin")
int spank_fs_nfs_rpc(__u64 *ctx)
{
	struct rpc_task *task = (struct rpc_task *)ctx[0];
	const struct rpc_procinfo *proc;
	const char *name = 0;
	struct super_block *walked = 0;
	struct fs_nfs_client *c;
	struct fs_nfs_next *next;
	struct spank_fs_label *l;
	struct fs_start *st;
	__u64 clnt = 0, sb = 0, key;
	__u32 job, dev = 0;

	if (!spank_fs_nfs_loaded() || !task)
		return 0;
	job = spank_job_of_current(SPANK_JOB_FS);
	if (!job) {
		key = bpf_get_current_pid_tgid();
		next = bpf_map_lookup_elem(&fs_nfs_pending, &key);
		if (!next)
			return 0;
		job = next->job;
		sb = next->sb;
		dev = next->dev;
		bpf_map_delete_elem(&fs_nfs_pending, &key);
		if (!job) {
			spank_drop(SPANK_FS_NFS_MAP_RPCS, SPANK_DROP_UNATTRIBUTED);
			return 0;
		}
	}
	proc = task->tk_msg.rpc_proc;
	if (proc)
		name = proc->p_name;
	if (!sb) {
		clnt = (__u64)task->tk_client;
		c = bpf_map_lookup_elem(&fs_nfs_clients, &clnt);
		if (c) {
			sb = c->sb;
			dev = c->dev;
		} else {
			/* Not learnt yet: a job's call before its first
			 * counted one on this mount. */
			walked = spank_fs_nfs_walking(clnt);
			if (!walked) {
				spank_fs_nfs_hold(clnt, name);
				return 0;
			}
			spank_fs_nfs_learn(walked);
			sb = (__u64)walked;
			/* Through a helper: a direct load here is merged
			 * with c->dev's, which the verifier refuses (a map
			 * value and a kernel pointer in one instruction). */
			dev = BPF_CORE_READ(walked, s_dev);
		}
	}
	l = spank_fs_label_dev(job, sb, dev, SPANK_FS_NFS_MAP_MOUNTS);
	if (!l)
		return 0;
	spank_fs_nfs_count(job, l, name);
	if (walked) {
		st = spank_fs_starts(0);
		if (st && st->more.n)
			spank_fs_nfs_release(st, l, clnt, job);
	}
	return 0;
}

/* ---- a job's calls, at NFS's entry points ------------------------------
 *
 * fentry/fexit programs on the nfs module's functions: the VFS calls them
 * for NFS files alone, so no other call of the node meets a trampoline
 * of this config. libbpf finds a module's BTF (the functions' types) only
 * with CAP_SYS_ADMIN (BPF_BTF_GET_NEXT_ID): spank-ebpf exporter keeps it
 * for a set with this config until the exporter has attached. */

struct kiocb {
	struct file *ki_filp;
} __attribute__((preserve_access_index));

/* F_GETLK and F_OFD_GETLK ask, lock nothing: no lock call. */
#define SPANK_F_GETLK 5
#define SPANK_F_OFD_GETLK 36

/* nfs_file_read(iocb, to) returns bytes read: every read call on NFS
 * (read, pread, readv, preadv, O_DIRECT alike, and the kernel's reads
 * for a job: an exec of a program on NFS). */
SEC("fexit/nfs_file_read")
int spank_fs_nfs_file_read(__u64 *ctx)
{
	struct kiocb *iocb = (struct kiocb *)ctx[0];

	if (iocb)
		spank_fs_data(iocb->ki_filp, (long)ctx[2], SPANK_FS_OP_READ);
	return 0;
}

/* nfs_file_write(iocb, from): the same for writes; and the file is the
 * job's for the writeback the kernel's threads do later
 * (fs_nfs_writers). */
SEC("fexit/nfs_file_write")
int spank_fs_nfs_file_write(__u64 *ctx)
{
	struct kiocb *iocb = (struct kiocb *)ctx[0];
	struct spank_fs_file key = {};
	long ret = (long)ctx[2];
	struct inode *inode;
	struct file *f;
	__u32 job, *w;

	if (!iocb)
		return 0;
	f = iocb->ki_filp;
	job = spank_fs_data(f, ret, SPANK_FS_OP_WRITE);
	if (ret <= 0 || !job)
		return 0;
	inode = f->f_inode;
	if (!inode || !inode->i_sb)
		return 0;
	key.dev = inode->i_sb->s_dev;
	key.ino = inode->i_ino;
	/* An LRU's update makes a new element even for a key it has: the
	 * file's writer is written once, not at each of its writes. */
	w = bpf_map_lookup_elem(&fs_nfs_writers, &key);
	if (!w || *w != job)
		bpf_map_update_elem(&fs_nfs_writers, &key, &job, BPF_ANY);
	return 0;
}

/* Opens: every successful open of an NFS file ends in
 * nfs_fscache_open_file(inode, file), whichever path it took. It starts
 *   - NFSv4: in nfs_check_flags, the first call of the directory's
 *     nfs_atomic_open (a name not in the dentry cache, or O_CREAT; 6.1
 *     and 6.12 alike), which opens the file itself, and of the file's
 *     nfs4_file_open (in the nfsv4 module);
 *   - NFSv3: in nfs_open (nfs_file_open's, where nfs_check_flags is
 *     inlined), or before it in nfs_create (O_CREAT), whose start
 *     nfs_open keeps.
 * The two have a start each (a thread may open on NFSv3 and NFSv4
 * mounts), and the end takes the later: the open under way. It counts
 * as create when the open made the file. A start whose open failed is
 * left unused: the thread's next open on that version replaces it (but
 * nfs_create's, which nfs_open would keep, goes at its return). So an
 * NFSv4 open pays two programs, and no fexit. */
SEC("fentry/nfs_check_flags")
int spank_fs_nfs_check_flags_in(__u64 *ctx)
{
	return spank_fs_enter(SPANK_FS_HOOK_OPEN);
}

SEC("fentry/nfs_create")
int spank_fs_nfs_create_in(__u64 *ctx)
{
	return spank_fs_enter(SPANK_FS_HOOK_OPEN3);
}

SEC("fexit/nfs_create")
int spank_fs_nfs_create_out(__u64 *ctx)
{
	/* (idmap, dir, dentry, mode, excl) */
	return (int)ctx[5] < 0 ? spank_fs_forget(SPANK_FS_HOOK_OPEN3) : 0;
}

SEC("fentry/nfs_open")
int spank_fs_nfs_open_in(__u64 *ctx)
{
	return spank_fs_enter_as(SPANK_FS_HOOK_OPEN3, 1);
}

/* nfs_fscache_open_file(inode, file): the open's end. */
SEC("fentry/nfs_fscache_open_file")
int spank_fs_nfs_opened(__u64 *ctx)
{
	struct file *f = (struct file *)ctx[1];

	if (!f)
		return 0;
	return spank_fs_exit(spank_fs_latest(SPANK_FS_HOOK_OPEN, SPANK_FS_HOOK_OPEN3),
			     spank_fs_file_sb(f),
			     (f->f_mode & SPANK_FMODE_CREATED) ? SPANK_FS_META_CREATE : SPANK_FS_META_OPEN,
			     SPANK_FS_CLASS_OPEN);
}

/* nfs_opendir(inode, file): a directory's open (after an atomic_open
 * that left it, or a cached one). */
SPANK_FS_PAIR(nfs_opendir, SPANK_FS_HOOK_OPENDIR, spank_fs_file_sb((struct file *)ctx[1]),
	      SPANK_FS_META_OPEN, SPANK_FS_CLASS_OPEN)

/* The other operations: each NFS function the VFS calls for one. */
/* nfs_getattr(idmap, path, stat, mask, flags): stat, fstat, statx */
SPANK_FS_PAIR(nfs_getattr, SPANK_FS_HOOK_STAT,
	      spank_fs_dentry_sb(((struct path *)ctx[1])->dentry), SPANK_FS_META_STAT,
	      SPANK_FS_CLASS_STAT)
/* nfs_setattr(idmap, dentry, attr): chmod, chown, utimes, truncate */
SPANK_FS_PAIR(nfs_setattr, SPANK_FS_HOOK_SETATTR, spank_fs_dentry_sb((struct dentry *)ctx[1]),
	      SPANK_FS_META_SETATTR, SPANK_FS_CLASS_SETATTR)
/* nfs_unlink(dir, dentry), nfs_rmdir(dir, dentry) */
SPANK_FS_PAIR(nfs_unlink, SPANK_FS_HOOK_UNLINK, spank_fs_inode_sb((struct inode *)ctx[0]),
	      SPANK_FS_META_UNLINK, SPANK_FS_CLASS_NAMESPACE)
SPANK_FS_PAIR(nfs_rmdir, SPANK_FS_HOOK_RMDIR, spank_fs_inode_sb((struct inode *)ctx[0]),
	      SPANK_FS_META_RMDIR, SPANK_FS_CLASS_NAMESPACE)
/* nfs_mkdir, nfs_symlink, nfs_mknod, nfs_rename: (idmap, dir, ...) */
SPANK_FS_PAIR(nfs_mkdir, SPANK_FS_HOOK_MKDIR, spank_fs_inode_sb((struct inode *)ctx[1]),
	      SPANK_FS_META_MKDIR, SPANK_FS_CLASS_NAMESPACE)
SPANK_FS_PAIR(nfs_symlink, SPANK_FS_HOOK_SYMLINK, spank_fs_inode_sb((struct inode *)ctx[1]),
	      SPANK_FS_META_SYMLINK, SPANK_FS_CLASS_NAMESPACE)
SPANK_FS_PAIR(nfs_mknod, SPANK_FS_HOOK_MKNOD, spank_fs_inode_sb((struct inode *)ctx[1]),
	      SPANK_FS_META_MKNOD, SPANK_FS_CLASS_NAMESPACE)
SPANK_FS_PAIR(nfs_rename, SPANK_FS_HOOK_RENAME, spank_fs_inode_sb((struct inode *)ctx[1]),
	      SPANK_FS_META_RENAME, SPANK_FS_CLASS_NAMESPACE)
/* nfs_link(old_dentry, dir, dentry) */
SPANK_FS_PAIR(nfs_link, SPANK_FS_HOOK_LINK, spank_fs_dentry_sb((struct dentry *)ctx[0]),
	      SPANK_FS_META_LINK, SPANK_FS_CLASS_NAMESPACE)
/* nfs_readdir(file, dir_context): getdents */
SPANK_FS_PAIR(nfs_readdir, SPANK_FS_HOOK_READDIR, spank_fs_file_sb((struct file *)ctx[0]),
	      SPANK_FS_META_READDIR, SPANK_FS_CLASS_READDIR)
/* nfs_file_fsync(file, start, end, datasync): fsync, fdatasync */
SPANK_FS_PAIR(nfs_file_fsync, SPANK_FS_HOOK_FSYNC, spank_fs_file_sb((struct file *)ctx[0]),
	      SPANK_FS_META_FSYNC, SPANK_FS_CLASS_FSYNC)

/* nfs_lock(file, cmd, fl): fcntl's record locks (and their unlock when a
 * file that holds some is closed); nfs_flock(file, cmd, fl): flock(),
 * which NFS makes a lock on the whole file. A test (F_GETLK) is none. */
static __always_inline int spank_fs_nfs_lock_in(__u64 cmd)
{
	if ((int)cmd == SPANK_F_GETLK || (int)cmd == SPANK_F_OFD_GETLK)
		return 0;
	return spank_fs_enter(SPANK_FS_HOOK_LOCK);
}

/* NAME, nfs_lock or nfs_flock: (file, cmd, fl). */
#define SPANK_FS_NFS_LOCK(fn)                                                      \
	SEC("fentry/" #fn)                                                         \
	int spank_fs_in_##fn(__u64 *ctx)                                           \
	{                                                                          \
		return spank_fs_nfs_lock_in(ctx[1]);                               \
	}                                                                          \
	SEC("fexit/" #fn)                                                          \
	int spank_fs_out_##fn(__u64 *ctx)                                          \
	{                                                                          \
		return spank_fs_exit(SPANK_FS_HOOK_LOCK, spank_fs_file_sb((struct file *)ctx[0]), \
				     SPANK_FS_META_LOCK, SPANK_FS_CLASS_LOCK);     \
	}

SPANK_FS_NFS_LOCK(nfs_lock)
SPANK_FS_NFS_LOCK(nfs_flock)

char LICENSE[] SEC("license") = "GPL";
