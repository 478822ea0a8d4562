// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The floor of bench/probecost.sh and bench/probepair.sh: the hooks of
 * one shipped probe set (-DFLOOR_IO, -DFLOOR_SCHED, -DFLOOR_SCHED_DETAIL,
 * -DFLOOR_NET or -DFLOOR_FS, as in
 * probes/spank-*.bpf.c, same section strings) with programs that return
 * at once. A workload run under it measures
 * what calling any program at those hooks costs on this kernel and
 * machine, apart from what the set's programs do there.
 */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

/* ebpf_exporter wants a metric; nothing ever counts in it. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} spank_floor_total SEC(".maps");

#ifdef FLOOR_IO
SEC("raw_tp/block_getrq")
int floor_io_getrq(void *ctx)
{
	return 0;
}

SEC("raw_tp/block_bio_backmerge")
int floor_io_backmerge(void *ctx)
{
	return 0;
}

SEC("raw_tp/block_bio_frontmerge")
int floor_io_frontmerge(void *ctx)
{
	return 0;
}

SEC("raw_tp/block_rq_complete")
int floor_io_complete(void *ctx)
{
	return 0;
}
#endif

#ifdef FLOOR_SCHED
/* spank-sched's tick: every hrtimer expiry. */
SEC("tp_btf/hrtimer_expire_entry")
int floor_sched_tick(__u64 *ctx)
{
	return 0;
}

SEC("tp_btf/sched_process_exit")
int floor_sched_exit(__u64 *ctx)
{
	return 0;
}
#endif

#ifdef FLOOR_SCHED_DETAIL
SEC("tp_btf/sched_switch")
int floor_sched_switch(__u64 *ctx)
{
	return 0;
}
#endif

#ifdef FLOOR_NET
SEC("raw_tp/inet_sock_set_state")
int floor_net_set_state(void *ctx)
{
	return 0;
}

SEC("raw_tp/tcp_retransmit_skb")
int floor_net_retransmit(void *ctx)
{
	return 0;
}
#endif

#if defined(FLOOR_FS) || defined(FLOOR_FS_NFS) || defined(FLOOR_IDLE)
/* spank-fs's or spank-fs-nfs's fentry/fexit pairs (data calls: fexit
 * alone), each program returning at once: the trampolines' cost at those
 * functions. */
#define FLOOR_FS_ENTRY(fn)                       \
	SEC("fentry/" #fn)                       \
	int floor_fs_in_##fn(__u64 *ctx)         \
	{                                        \
		return 0;                        \
	}
#define FLOOR_FS_TP_BTF(tp)                      \
	SEC("tp_btf/" #tp)                       \
	int floor_fs_tp_##tp(void *ctx)          \
	{                                        \
		return 0;                        \
	}
#define FLOOR_FS_EXIT(fn)                        \
	SEC("fexit/" #fn)                        \
	int floor_fs_out_##fn(__u64 *ctx)        \
	{                                        \
		return 0;                        \
	}
#define FLOOR_FS_PAIR(fn) FLOOR_FS_ENTRY(fn) FLOOR_FS_EXIT(fn)

#endif

#ifdef FLOOR_FS
FLOOR_FS_EXIT(vfs_read)
FLOOR_FS_EXIT(vfs_write)
FLOOR_FS_EXIT(vfs_readv)
FLOOR_FS_EXIT(vfs_writev)
FLOOR_FS_PAIR(do_filp_open)
FLOOR_FS_PAIR(vfs_getattr_nosec)
FLOOR_FS_PAIR(notify_change)
FLOOR_FS_PAIR(vfs_unlink)
FLOOR_FS_PAIR(vfs_rmdir)
FLOOR_FS_PAIR(vfs_mkdir)
FLOOR_FS_PAIR(vfs_symlink)
FLOOR_FS_PAIR(vfs_mknod)
FLOOR_FS_PAIR(vfs_rename)
FLOOR_FS_PAIR(vfs_link)
FLOOR_FS_PAIR(iterate_dir)
FLOOR_FS_PAIR(vfs_fsync_range)
FLOOR_FS_PAIR(fcntl_setlk)
#endif

#ifdef FLOOR_FS_NFS
FLOOR_FS_EXIT(nfs_file_read)
FLOOR_FS_EXIT(nfs_file_write)
FLOOR_FS_ENTRY(nfs_check_flags)
FLOOR_FS_PAIR(nfs_create)
FLOOR_FS_ENTRY(nfs_open)
FLOOR_FS_ENTRY(nfs_fscache_open_file)
FLOOR_FS_PAIR(nfs_opendir)
FLOOR_FS_PAIR(nfs_getattr)
FLOOR_FS_PAIR(nfs_setattr)
FLOOR_FS_PAIR(nfs_unlink)
FLOOR_FS_PAIR(nfs_rmdir)
FLOOR_FS_PAIR(nfs_mkdir)
FLOOR_FS_PAIR(nfs_symlink)
FLOOR_FS_PAIR(nfs_mknod)
FLOOR_FS_PAIR(nfs_rename)
FLOOR_FS_PAIR(nfs_link)
FLOOR_FS_PAIR(nfs_readdir)
FLOOR_FS_PAIR(nfs_file_fsync)
FLOOR_FS_PAIR(nfs_lock)
FLOOR_FS_PAIR(nfs_flock)
FLOOR_FS_TP_BTF(nfs_initiate_read)
FLOOR_FS_TP_BTF(nfs_initiate_write)
FLOOR_FS_TP_BTF(nfs_initiate_commit)
FLOOR_FS_TP_BTF(rpc_task_begin)
#endif

#ifdef FLOOR_IDLE
/* The exporter present, its one program at an NFS function that the
 * bench's workloads never call (a symlink): what the exporter process
 * alone costs a job on its CPU, apart from any hook it meets. */
FLOOR_FS_ENTRY(nfs_symlink)
#endif

char LICENSE[] SEC("license") = "GPL";
