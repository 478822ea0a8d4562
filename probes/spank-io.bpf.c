// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * spank-io: block I/O of the jobs that asked for it (sbatch --ebpf=SET
 * with a set holding spank-io): request latency and bytes, per job and
 * operation (read, write, other). The latency is iostat's await: from
 * the request's allocation to its completion, queued and on the device.
 *
 * A request belongs to the task that submitted it: block_getrq runs in
 * the submitting task when a request is allocated for its bio, and the
 * job found there is kept by bio. The completion (interrupt context, or
 * whatever context) takes the job from the request's first bio, never
 * from the current task: a request is never counted for a job that did
 * not submit it. The start is the kernel's own stamp (rq->start_time_ns,
 * taken at allocation whenever the queue keeps I/O statistics, the
 * default, or has an I/O scheduler), so no hook runs at issue and one
 * clock read per request is saved (about 110 ns in a paravirtualised
 * guest). A request without the stamp counts its bytes, not its latency.
 * I/O submitted by kernel threads (buffered writeback by the flusher)
 * belongs to no job and is not recorded; a bio merged into another's
 * request counts with that request; a request whose first bio changed
 * (a front merge) is not recorded.
 */
#include "spank_job.bpf.h"

#define SPANK_IO_OP_READ 0
#define SPANK_IO_OP_WRITE 1
#define SPANK_IO_OP_OTHER 2

/* 27: 2^27 us, about 134 s; values above go to that bucket. */
#define SPANK_IO_MAX_BUCKET 27

/* REQ_OP_* are the low bits of cmd_flags (include/linux/blk_types.h). */
#define SPANK_REQ_OP_MASK 0xff
#define SPANK_REQ_OP_READ 0
#define SPANK_REQ_OP_WRITE 1

struct bio;

struct request {
	unsigned int cmd_flags;
	unsigned int __data_len;
	struct bio *bio;
	__u64 start_time_ns;
} __attribute__((preserve_access_index));

extern int LINUX_KERNEL_VERSION __kconfig;

/* The job that submitted a bio, from its request's allocation to its
 * completion (scratch: not a metric).
 *
 * A plain hash map, not an LRU one: an LRU hash evicts before it is full
 * (its free lists are per CPU), and lost 10 of a job's 2000 direct writes
 * here beside another job's 6000. A plain hash is bounded by max_entries:
 * when it is full an update fails and that one request goes unrecorded.
 * A record is lost, never given to another job; a stale entry goes at the
 * next getrq of the same bio, or the completion of a request whose first
 * bio has its address. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64); /* struct bio * */
	__type(value, __u32);
} io_bios SEC(".maps");

struct spank_io_latency_key {
	__u32 job;
	__u32 op;
	__u64 bucket;
};

struct spank_io_bytes_key {
	__u32 job;
	__u32 op;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct spank_io_latency_key);
	__type(value, __u64);
} spank_io_latency_seconds SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct spank_io_bytes_key);
	__type(value, __u64);
} spank_io_bytes_total SEC(".maps");

static __always_inline __u32 spank_io_op(struct request *rq)
{
	__u32 op = BPF_CORE_READ(rq, cmd_flags) & SPANK_REQ_OP_MASK;

	if (op == SPANK_REQ_OP_READ)
		return SPANK_IO_OP_READ;
	if (op == SPANK_REQ_OP_WRITE)
		return SPANK_IO_OP_WRITE;
	return SPANK_IO_OP_OTHER;
}

/* Before 5.11 block_getrq had a request_queue first; 5.10.137 and later
 * are taken to have the 5.11 form, as ebpf_exporter's biolatency does for
 * block_rq_issue. Were its arguments still the old ones there, the bio
 * read would match no request: no I/O would be recorded, never a wrong
 * one. block_rq_complete has always had the request first. */
static __always_inline int spank_io_old_args(void)
{
	return LINUX_KERNEL_VERSION < KERNEL_VERSION(5, 10, 137);
}

SEC("raw_tp/block_getrq")
int spank_io_getrq(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 bio = spank_io_old_args() ? ctx->args[1] : ctx->args[0];
	__u32 job;

	if (!bio)
		return 0;
	job = spank_job_of_current(SPANK_JOB_IO);
	if (job)
		bpf_map_update_elem(&io_bios, &bio, &job, BPF_ANY);
	else /* a job's bio at this address that never reached issue is gone */
		bpf_map_delete_elem(&io_bios, &bio);
	return 0;
}

SEC("raw_tp/block_rq_complete")
int spank_io_complete(struct bpf_raw_tracepoint_args *ctx)
{
	struct spank_io_latency_key lat = {};
	struct spank_io_bytes_key bytes = {};
	struct request *rq = (struct request *)ctx->args[0];
	__u64 bio, start, now;
	__u32 *job;

	/* The first completion of a request, partial or whole: later partial
	 * ones find its next bio, which is not in io_bios. */
	bio = (__u64)BPF_CORE_READ(rq, bio);
	job = bpf_map_lookup_elem(&io_bios, &bio);
	if (!job)
		return 0;
	lat.job = bytes.job = *job;
	bpf_map_delete_elem(&io_bios, &bio);
	lat.op = bytes.op = spank_io_op(rq);
	spank_add(&spank_io_bytes_total, &bytes, BPF_CORE_READ(rq, __data_len));
	start = BPF_CORE_READ(rq, start_time_ns);
	if (!start)
		return 0;
	now = bpf_ktime_get_ns();
	now = now > start ? (now - start) / 1000 : 0;
	SPANK_HIST_EXP2(spank_io_latency_seconds, lat, now, SPANK_IO_MAX_BUCKET);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
