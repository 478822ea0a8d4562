/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the fs set's two configs (spank-fs, spank-fs-nfs) share: the
 * kernel's file system types (CO-RE, only the fields used) and the label
 * of a file system a job uses: its type and the path of its mount point.
 * Included once by each, after spank_job.bpf.h.
 *
 * The label is the super block's, not the path's the call went through:
 * half the hooks (notify_change, vfs_unlink...) see a dentry and no
 * vfsmount. A super block's mount is the first on its list of mounts
 * (sb->s_mounts: the oldest before 6.16, whose list became the
 * mnt_next_for_sb chain, the newest first), so a file system mounted at
 * several places (bind mounts) is labelled by one of them, the same for
 * every call. The label is made once per job and super block and kept in
 * spank_fs_mounts (its key begins with the job: the plugin deletes a
 * job's entries with its series); a job gets SPANK_FS_MOUNTS_PER_JOB
 * file systems, pseudo file systems (proc, sysfs, cgroup...) are not
 * recorded at all, nor the kernel's own (pipefs, sockfs, anon_inodefs...).
 */
#ifndef SPANK_FS_BPF_H
#define SPANK_FS_BPF_H

/* File systems recorded per job; a call on one more is a drop (full). */
#define SPANK_FS_MOUNTS_PER_JOB 5
/* Entries a job may make in spank_fs_mounts: its file systems and the
 * pseudo ones it touched (kept, so that they are skipped at once). */
#define SPANK_FS_LABELS_PER_JOB 16
#define SPANK_FS_TYPE_LEN 24
#define SPANK_FS_MOUNT_LEN 64
/* Steps of the mount point's walk (a component or a mount crossed). */
#define SPANK_FS_WALK 24
#define SPANK_FS_NAMES 16

/* ---- kernel types (CO-RE) ------------------------------------------ */

struct list_head {
	struct list_head *next, *prev;
} __attribute__((preserve_access_index));

struct qstr {
	const unsigned char *name;
} __attribute__((preserve_access_index));

struct file_system_type {
	const char *name;
} __attribute__((preserve_access_index));

struct super_block {
	__u32 s_dev;
	unsigned long s_magic;
	struct file_system_type *s_type;
	const char *s_subtype;
	void *s_fs_info;
} __attribute__((preserve_access_index));

/* The super block's mounts: a list before 6.16... */
struct super_block___list {
	struct list_head s_mounts;
} __attribute__((preserve_access_index));

struct inode {
	unsigned short i_mode;
	struct super_block *i_sb;
	unsigned long i_ino;
} __attribute__((preserve_access_index));

struct dentry {
	struct dentry *d_parent;
	struct qstr d_name;
	struct super_block *d_sb;
} __attribute__((preserve_access_index));

struct vfsmount {
	struct dentry *mnt_root;
} __attribute__((preserve_access_index));

struct mount {
	struct mount *mnt_parent;
	struct dentry *mnt_mountpoint;
	struct vfsmount mnt;
	struct list_head mnt_instance;
} __attribute__((preserve_access_index));

/* ... a chain from 6.16 (sb->s_mounts, mount->mnt_next_for_sb). */
struct mount___chain {
	struct mount___chain *mnt_next_for_sb;
} __attribute__((preserve_access_index));

struct super_block___chain {
	struct mount *s_mounts;
} __attribute__((preserve_access_index));

#define SPANK_S_IFMT 00170000
#define SPANK_S_IFREG 0100000
#define SPANK_S_IFDIR 0040000

/* ---- the labels ------------------------------------------------------ */

struct spank_fs_mount_key {
	__u32 job;
	__u32 pad;
	__u64 sb; /* struct super_block * */
};

struct spank_fs_label {
	char fstype[SPANK_FS_TYPE_LEN];
	char mount[SPANK_FS_MOUNT_LEN];
	__u32 dev;  /* sb->s_dev when made: a super block freed and its
		     * address reused has another */
	__u32 skip; /* a pseudo file system, or one over the job's share */
	__u32 seen; /* the config's own use (spank-fs-nfs: its RPC client learnt) */
	__u32 pad;
};

struct spank_fs_nmounts {
	__u32 mounts; /* recorded file systems */
	__u32 labels; /* entries in spank_fs_mounts */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SPANK_JOBS_MAX * SPANK_FS_LABELS_PER_JOB);
	__type(key, struct spank_fs_mount_key);
	__type(value, struct spank_fs_label);
} spank_fs_mounts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SPANK_JOBS_MAX);
	__type(key, __u32); /* job */
	__type(value, struct spank_fs_nmounts);
} spank_fs_nmounts SEC(".maps");

/* Where a label is made: too big for the stack. The walk's state is
 * here too, not on the stack: the verifier tracks no value in a map, so
 * it checks a bpf_loop step once, where from 6.7 on it follows the
 * stack's counters through every possible iteration. */
struct spank_fs_scratch {
	char buf[128];
	const unsigned char *names[SPANK_FS_NAMES];
	struct spank_fs_label label;
	struct mount *m;
	struct dentry *d;
	__u32 n;   /* names kept in names, the deepest first */
	__u32 off; /* bytes written into buf */
	int done;  /* 1: at the root; -1: too deep */
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct spank_fs_scratch);
} fs_scratch SEC(".maps");

/* File systems that are no storage: never recorded. Each name padded
 * to 16 bytes, compared as two words. */
static const char spank_fs_pseudo[][16] = {
	"proc", "sysfs", "cgroup", "cgroup2", "devpts", "devtmpfs", "mqueue", "debugfs",
	"tracefs", "securityfs", "bpf", "configfs", "pstore", "efivarfs", "binfmt_misc",
	"fusectl", "autofs", "rpc_pipefs", "nsfs", "hugetlbfs",
	/* the kernel's own, of pipes, sockets, event fds... (a stat of
	 * one, fstat of a standard output that is a pipe) */
	"pipefs", "sockfs", "anon_inodefs", "pidfs", "bdev", "dmabuf", "aio", "secretmem",
};

#ifndef SPANK_FS_LEAVE_NFS
#define SPANK_FS_LEAVE_NFS 0
#endif

/* "nfs" or "nfs4": with SPANK_FS_LEAVE_NFS, a config leaves them to
 * spank-fs-nfs (the same series must not come from two configs). */
static __always_inline int spank_fs_is_nfs(const char *fstype)
{
	return fstype[0] == 'n' && fstype[1] == 'f' && fstype[2] == 's' &&
	       (!fstype[3] || (fstype[3] == '4' && !fstype[4]));
}

static __always_inline int spank_fs_is_pseudo(const char *fstype)
{
	__u64 a = *(const __u64 *)fstype, b = *(const __u64 *)(fstype + 8);
	int i;

#pragma unroll
	for (i = 0; i < (int)(sizeof(spank_fs_pseudo) / sizeof(spank_fs_pseudo[0])); i++)
		if (*(const __u64 *)spank_fs_pseudo[i] == a &&
		    *(const __u64 *)(spank_fs_pseudo[i] + 8) == b)
			return 1;
	return 0;
}

/* The first mount of sb, or 0. */
static __always_inline struct mount *spank_fs_first_mount(struct super_block *sb)
{
	struct list_head *head, *first;

	if (bpf_core_field_exists(struct mount___chain, mnt_next_for_sb))
		return BPF_CORE_READ((struct super_block___chain *)sb, s_mounts);
	head = &((struct super_block___list *)sb)->s_mounts;
	first = BPF_CORE_READ((struct super_block___list *)sb, s_mounts.next);
	if (!first || first == head)
		return 0;
	return (struct mount *)((char *)first - bpf_core_field_offset(struct mount, mnt_instance));
}

/* "type" or "type.subtype" (fuse.sshfs) into s->label.fstype. */
static __always_inline void spank_fs_type(struct spank_fs_scratch *s, struct super_block *sb)
{
	const char *sub = BPF_CORE_READ(sb, s_subtype);
	long n;
	__u64 at;

	__builtin_memset(s->buf, 0, sizeof(s->buf));
	n = bpf_probe_read_kernel_str(s->buf, SPANK_FS_TYPE_LEN, BPF_CORE_READ(sb, s_type, name));
	if (n > 1 && sub && n < SPANK_FS_TYPE_LEN - 1) {
		/* clang 19 proves n in [2, 22] and drops a mask on n itself;
		 * the verifier, checking a copy, then sees a negative offset:
		 * the mask on a value clang knows nothing of stays. */
		at = n;
		barrier_var(at);
		at &= 63;
		s->buf[(at - 1) & 63] = '.';
		if (bpf_probe_read_kernel_str(s->buf + at, SPANK_FS_TYPE_LEN, sub) <= 1)
			s->buf[(at - 1) & 63] = 0; /* an empty subtype */
	}
	__builtin_memcpy(s->label.fstype, s->buf, SPANK_FS_TYPE_LEN);
	s->label.fstype[SPANK_FS_TYPE_LEN - 1] = 0;
}

/* The walk of a mount point's path up to the namespace's root, one step
 * a call (bpf_loop, 5.17+: the verifier checks a step once, where an
 * unrolled walk's branches multiply). The callbacks' context: */
struct spank_fs_walk {
	struct spank_fs_scratch *s;
};

static long spank_fs_walk_step(__u32 i, void *arg)
{
	struct spank_fs_scratch *s = ((struct spank_fs_walk *)arg)->s;
	struct mount *m = s->m, *parent;
	struct dentry *d = s->d, *up;
	__u32 n = s->n;

	/* Locals only in BPF_CORE_READ: its relocation covers the whole
	 * expression, and the scratch is no kernel type. */
	if (d == BPF_CORE_READ(m, mnt.mnt_root)) {
		parent = BPF_CORE_READ(m, mnt_parent);
		if (!parent || parent == m) {
			s->done = 1;
			return 1;
		}
		s->d = BPF_CORE_READ(m, mnt_mountpoint);
		s->m = parent;
		return 0;
	}
	up = BPF_CORE_READ(d, d_parent);
	if (!up || up == d) { /* a file system's root that is no mount's root */
		s->done = 1;
		return 1;
	}
	if (n >= SPANK_FS_NAMES) {
		s->done = -1;
		return 1;
	}
	s->names[n & (SPANK_FS_NAMES - 1)] = BPF_CORE_READ(d, d_name.name);
	s->n = n + 1;
	s->d = up;
	return 0;
}

/* One name, the root-most not yet written, after a '/'. */
static long spank_fs_write_step(__u32 i, void *arg)
{
	struct spank_fs_scratch *s = ((struct spank_fs_walk *)arg)->s;
	__u32 off = s->off, n = s->n;
	long r;

	if (i >= n || off >= SPANK_FS_MOUNT_LEN - 1)
		return 1;
	s->buf[off & 63] = '/';
	off++;
	r = bpf_probe_read_kernel_str(s->buf + (off & 63), 64, s->names[(n - 1 - i) & (SPANK_FS_NAMES - 1)]);
	if (r > 1)
		off += r - 1;
	s->off = off;
	return 0;
}

/* The path of m's mount point, at most 63 bytes (cut), "" when it could
 * not be walked whole. */
static __always_inline void spank_fs_mount_path(struct spank_fs_scratch *s, struct mount *m)
{
	struct spank_fs_walk w = { .s = s };
	struct mount *parent = BPF_CORE_READ(m, mnt_parent);

	__builtin_memset(s->label.mount, 0, sizeof(s->label.mount));
	if (!parent || parent == m) { /* the namespace's root */
		s->label.mount[0] = '/';
		return;
	}
	s->m = parent;
	s->d = BPF_CORE_READ(m, mnt_mountpoint);
	s->n = 0;
	s->off = 0;
	s->done = 0;
	bpf_loop(SPANK_FS_WALK, spank_fs_walk_step, &w, 0);
	if (s->done != 1)
		return;
	__builtin_memset(s->buf, 0, sizeof(s->buf));
	if (!s->n)
		s->buf[0] = '/';
	bpf_loop(SPANK_FS_NAMES, spank_fs_write_step, &w, 0);
	__builtin_memcpy(s->label.mount, s->buf, SPANK_FS_MOUNT_LEN);
	s->label.mount[SPANK_FS_MOUNT_LEN - 1] = 0;
}

/* Makes job's label of sb. Returns it, or 0: not recorded (a pseudo file
 * system, or over the job's share: then drop_map counts a drop). */
static __noinline int spank_fs_label_new(__u32 job, __u64 sbp, __u32 drop_map)
{
	struct super_block *sb = (struct super_block *)sbp;
	struct spank_fs_mount_key k = { .job = job, .sb = sbp };
	struct spank_fs_nmounts zero = {}, *nm;
	struct spank_fs_scratch *s;
	struct mount *m;
	__u32 z = 0;

	s = bpf_map_lookup_elem(&fs_scratch, &z);
	if (!s)
		return 0;
	spank_fs_type(s, sb);
	s->label.dev = BPF_CORE_READ(sb, s_dev);
	s->label.skip = spank_fs_is_pseudo(s->label.fstype) ||
			(SPANK_FS_LEAVE_NFS && spank_fs_is_nfs(s->label.fstype));
	nm = bpf_map_lookup_elem(&spank_fs_nmounts, &job);
	if (!nm) {
		bpf_map_update_elem(&spank_fs_nmounts, &job, &zero, BPF_NOEXIST);
		nm = bpf_map_lookup_elem(&spank_fs_nmounts, &job);
		if (!nm) {
			spank_drop(drop_map, SPANK_DROP_FULL);
			return 0;
		}
	}
	if (!s->label.skip) {
		if (__sync_fetch_and_add(&nm->mounts, 1) >= SPANK_FS_MOUNTS_PER_JOB)
			s->label.skip = 2;
		m = spank_fs_first_mount(sb);
		if (m)
			spank_fs_mount_path(s, m);
		else
			__builtin_memset(s->label.mount, 0, sizeof(s->label.mount));
	}
	if (__sync_fetch_and_add(&nm->labels, 1) >= SPANK_FS_LABELS_PER_JOB ||
	    bpf_map_update_elem(&spank_fs_mounts, &k, &s->label, BPF_ANY)) {
		spank_drop(drop_map, SPANK_DROP_FULL);
		return 0;
	}
	if (s->label.skip == 2)
		spank_drop(drop_map, SPANK_DROP_FULL);
	return !s->label.skip;
}

/* Job's label of sb (whose s_dev is dev), or 0: not recorded. */
static __always_inline struct spank_fs_label *spank_fs_label_dev(__u32 job, __u64 sb, __u32 dev,
								 __u32 drop_map)
{
	struct spank_fs_mount_key k = { .job = job, .sb = sb };
	struct spank_fs_label *l;

	if (!sb)
		return 0;
	l = bpf_map_lookup_elem(&spank_fs_mounts, &k);
	if (l && l->dev == dev) {
		if (l->skip == 2)
			spank_drop(drop_map, SPANK_DROP_FULL);
		return l->skip ? 0 : l;
	}
	if (!spank_fs_label_new(job, sb, drop_map))
		return 0;
	l = bpf_map_lookup_elem(&spank_fs_mounts, &k);
	return l && !l->skip ? l : 0;
}

/* The same for a super block a hook's argument led to (a pointer the
 * verifier knows the type of, BTF: read directly, as the fields below,
 * not through bpf_probe_read_kernel, a helper call per field). */
static __always_inline struct spank_fs_label *spank_fs_label(__u32 job, struct super_block *sb,
							     __u32 drop_map)
{
	if (!sb)
		return 0;
	return spank_fs_label_dev(job, (__u64)sb, sb->s_dev, drop_map);
}

#endif
