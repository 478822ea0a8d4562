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
 * has one (server->client), learnt in fs_nfs_clients when an NFS
 * tracepoint sees an inode of that super block (nfs_getattr_enter,
 * nfs_lookup_enter, nfs_access_enter, nfs_atomic_open_enter and the
 * three above: one of them runs before the first RPC of any call). RPCs
 * of the client's own (the lease, on nfs_client's cl_rpcclient) have no
 * mount and are not counted, as mountstats' per-op counts leave them out.
 */
#define SPANK_DROPPED spank_fs_dropped_total
#include "spank_job.bpf.h"
#include "spank_fs.bpf.h"

/* spank_fs_dropped_total's map label (spank-fs-nfs.yaml): numbers of
 * their own, beside spank-fs's 0-5. */
#define SPANK_FS_NFS_MAP_RPCS 10
#define SPANK_FS_NFS_MAP_MOUNTS 11
#define SPANK_FS_NFS_MAP_PENDING 12

#define SPANK_FS_PROC_LEN 28
/* Procedures one job makes on one mount (NFSv4.2 has 70 or so). */
#define SPANK_FS_NFS_PROCS_PER_JOB 64
#define SPANK_F_NO_PREALLOC 1 /* BPF_F_NO_PREALLOC */
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

struct file {
	struct inode *f_inode;
} __attribute__((preserve_access_index));

struct task_struct___flags {
	unsigned int flags;
} __attribute__((preserve_access_index));

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
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);   /* struct rpc_clnt * */
	__type(value, __u64); /* struct super_block * */
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
	__u32 pad;
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

/* An inode of an NFS super block: its RPC client learnt. */
static __always_inline void spank_fs_nfs_learn(struct inode *inode)
{
	struct super_block *sb;
	struct nfs_server *server;
	__u64 clnt, sbp;

	if (!spank_fs_nfs_loaded() || !inode)
		return;
	sb = BPF_CORE_READ(inode, i_sb);
	server = (struct nfs_server *)BPF_CORE_READ(sb, s_fs_info);
	if (!server)
		return;
	clnt = (__u64)BPF_CORE_READ(server, client);
	if (!clnt || bpf_map_lookup_elem(&fs_nfs_clients, &clnt))
		return;
	sbp = (__u64)sb;
	bpf_map_update_elem(&fs_nfs_clients, &clnt, &sbp, BPF_ANY);
}

static __always_inline int spank_fs_nfs_kthread(void)
{
	struct task_struct___flags *t = (struct task_struct___flags *)bpf_get_current_task();

	return BPF_CORE_READ(t, flags) & SPANK_PF_KTHREAD;
}

/* A READ, WRITE or COMMIT of inode's about to begin in this thread: a
 * kernel thread's is credited to the file's writer. */
static __always_inline void spank_fs_nfs_initiate(struct inode *inode)
{
	struct fs_nfs_next next = {};
	struct spank_fs_file f = {};
	__u64 key;
	__u32 *w;

	if (!inode)
		return;
	spank_fs_nfs_learn(inode);
	if (!spank_fs_nfs_kthread())
		return;
	f.dev = BPF_CORE_READ(inode, i_sb, s_dev);
	f.ino = BPF_CORE_READ(inode, i_ino);
	w = bpf_map_lookup_elem(&fs_nfs_writers, &f);
	next.job = w ? *w : 0;
	next.sb = (__u64)BPF_CORE_READ(inode, i_sb);
	key = bpf_get_current_pid_tgid();
	if (bpf_map_update_elem(&fs_nfs_pending, &key, &next, BPF_ANY))
		spank_drop(SPANK_FS_NFS_MAP_PENDING, SPANK_DROP_FULL);
}

SEC("raw_tp/nfs_initiate_read")
int spank_fs_nfs_read(struct bpf_raw_tracepoint_args *ctx)
{
	if (spank_fs_nfs_loaded())
		spank_fs_nfs_initiate(BPF_CORE_READ((struct nfs_pgio_header *)ctx->args[0], inode));
	return 0;
}

SEC("raw_tp/nfs_initiate_write")
int spank_fs_nfs_write(struct bpf_raw_tracepoint_args *ctx)
{
	if (spank_fs_nfs_loaded())
		spank_fs_nfs_initiate(BPF_CORE_READ((struct nfs_pgio_header *)ctx->args[0], inode));
	return 0;
}

SEC("raw_tp/nfs_initiate_commit")
int spank_fs_nfs_commit(struct bpf_raw_tracepoint_args *ctx)
{
	if (spank_fs_nfs_loaded())
		spank_fs_nfs_initiate(BPF_CORE_READ((struct nfs_commit_data *)ctx->args[0], inode));
	return 0;
}

/* The calls that start synchronous RPCs: their inode (or directory)
 * first. */
SEC("raw_tp/nfs_getattr_enter")
int spank_fs_nfs_getattr(struct bpf_raw_tracepoint_args *ctx)
{
	spank_fs_nfs_learn((struct inode *)ctx->args[0]);
	return 0;
}

SEC("raw_tp/nfs_lookup_enter")
int spank_fs_nfs_lookup(struct bpf_raw_tracepoint_args *ctx)
{
	spank_fs_nfs_learn((struct inode *)ctx->args[0]);
	return 0;
}

SEC("raw_tp/nfs_access_enter")
int spank_fs_nfs_access(struct bpf_raw_tracepoint_args *ctx)
{
	spank_fs_nfs_learn((struct inode *)ctx->args[0]);
	return 0;
}

SEC("raw_tp/nfs_atomic_open_enter")
int spank_fs_nfs_atomic_open(struct bpf_raw_tracepoint_args *ctx)
{
	spank_fs_nfs_learn((struct inode *)ctx->args[0]);
	return 0;
}

/* rpc_task_begin(task, action) */
SEC("raw_tp/rpc_task_begin")
int spank_fs_nfs_rpc(struct bpf_raw_tracepoint_args *ctx)
{
	struct rpc_task *task = (struct rpc_task *)ctx->args[0];
	struct spank_fs_nfs_key k = {};
	struct fs_nfs_next *next;
	struct spank_fs_label *l;
	__u64 clnt, *sbp, sb = 0, key;
	__u32 job;

	if (!spank_fs_nfs_loaded())
		return 0;
	job = spank_job_of_current(SPANK_JOB_FS);
	if (!job) {
		key = bpf_get_current_pid_tgid();
		next = bpf_map_lookup_elem(&fs_nfs_pending, &key);
		if (!next)
			return 0;
		job = next->job;
		sb = next->sb;
		bpf_map_delete_elem(&fs_nfs_pending, &key);
		if (!job) {
			spank_drop(SPANK_FS_NFS_MAP_RPCS, SPANK_DROP_UNATTRIBUTED);
			return 0;
		}
	}
	if (!sb) {
		clnt = (__u64)BPF_CORE_READ(task, tk_client);
		sbp = bpf_map_lookup_elem(&fs_nfs_clients, &clnt);
		if (!sbp)
			return 0; /* the client's own (lease), or none yet */
		sb = *sbp;
	}
	l = spank_fs_label(job, (struct super_block *)sb, SPANK_FS_NFS_MAP_MOUNTS);
	if (!l)
		return 0;
	k.job = job;
	__builtin_memcpy(k.mount, l->mount, sizeof(k.mount));
	bpf_probe_read_kernel_str(k.procedure, sizeof(k.procedure), BPF_CORE_READ(task, tk_msg.rpc_proc, p_name));
	spank_add(&spank_fs_nfs_rpcs_total, &k, 1, SPANK_FS_NFS_MAP_RPCS);
	return 0;
}

/* A job's write() on an NFS file returned: the file is the job's for
 * its writeback. */
static __always_inline int spank_fs_nfs_wrote(struct file *f, long ret)
{
	struct spank_fs_file key = {};
	struct super_block *sb;
	struct inode *inode;
	char t[4];
	__u32 job;

	if (ret <= 0)
		return 0;
	job = spank_job_of_current(SPANK_JOB_FS);
	if (!job)
		return 0;
	inode = BPF_CORE_READ(f, f_inode);
	sb = BPF_CORE_READ(inode, i_sb);
	/* "nfs" or "nfs4" */
	if (bpf_probe_read_kernel(t, sizeof(t), BPF_CORE_READ(sb, s_type, name)) || t[0] != 'n' ||
	    t[1] != 'f' || t[2] != 's' || (t[3] && t[3] != '4'))
		return 0;
	key.dev = BPF_CORE_READ(sb, s_dev);
	key.ino = BPF_CORE_READ(inode, i_ino);
	bpf_map_update_elem(&fs_nfs_writers, &key, &job, BPF_ANY);
	return 0;
}

SEC("fexit/vfs_write")
int spank_fs_nfs_vfs_write(__u64 *ctx)
{
	return spank_fs_nfs_wrote((struct file *)ctx[0], (long)ctx[4]);
}

SEC("fexit/vfs_writev")
int spank_fs_nfs_vfs_writev(__u64 *ctx)
{
	return spank_fs_nfs_wrote((struct file *)ctx[0], (long)ctx[5]);
}

char LICENSE[] SEC("license") = "GPL";
