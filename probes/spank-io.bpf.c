// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * spank-io: block I/O of the jobs that asked for it (sbatch --ebpf=SET
 * with a set holding spank-io): request latency (issue to completion) and
 * bytes, per job and operation (read, write, other).
 *
 * A request belongs to the task that submitted it: block_getrq runs in
 * the submitting task when a request is allocated for its bio, and the
 * job found there is kept by bio. block_rq_issue, which runs in whatever
 * context dispatches the request (the submitter, or later a kworker, an
 * interrupt, or ANOTHER task running the hardware queue when the device
 * was busy), takes the job from the request's first bio, never from the
 * current task: a request is never counted for a job that did not
 * submit it. The completion (interrupt context) finds what issue
 * recorded for that request. I/O submitted by kernel threads (buffered
 * writeback by the flusher) belongs to no job and is not recorded; a
 * bio merged into another's request counts with that request.
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
} __attribute__((preserve_access_index));

extern int LINUX_KERNEL_VERSION __kconfig;

/* The job that submitted a bio, from allocation to issue of its request
 * (scratch: not a metric).
 *
 * io_bios and io_requests are plain hash maps, not LRU ones: an LRU hash
 * evicts before it is full (its free lists are per CPU), and lost 10 of a
 * job's 2000 direct writes here beside another job's 6000. A plain hash
 * is bounded by max_entries: when it is full an update fails and that one
 * request goes unrecorded. A record is lost, never given to another job;
 * stale entries go at the next getrq of the same bio or the completion
 * of a request at the same address (the bio check there). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64); /* struct bio * */
	__type(value, __u32);
} io_bios SEC(".maps");

/* What issue learnt about a request of a job (scratch: not a metric). */
struct io_req {
	__u64 start;
	__u64 bytes;
	__u64 bio; /* rq->bio at issue */
	__u32 job;
	__u32 op;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64); /* struct request * */
	__type(value, struct io_req);
} io_requests SEC(".maps");

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

/* Before 5.11 these tracepoints had a request_queue first; 5.10.137 and
 * later are taken to have the 5.11 form, as ebpf_exporter's biolatency
 * does for block_rq_issue. Were block_getrq's arguments still the old
 * ones there, the bio read would match no request: no I/O would be
 * recorded, never a wrong one. */
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

SEC("raw_tp/block_rq_issue")
int spank_io_issue(struct bpf_raw_tracepoint_args *ctx)
{
	struct request *rq;
	struct io_req r = {};
	__u64 key, bio;
	__u32 *job;

	rq = (struct request *)(spank_io_old_args() ? ctx->args[1] : ctx->args[0]);
	bio = (__u64)BPF_CORE_READ(rq, bio);
	job = bpf_map_lookup_elem(&io_bios, &bio);
	if (!job) /* not a job's, or issued again (requeued): keep the first */
		return 0;
	r.job = *job;
	r.bio = bio;
	bpf_map_delete_elem(&io_bios, &bio);
	r.start = bpf_ktime_get_ns();
	r.bytes = BPF_CORE_READ(rq, __data_len);
	r.op = spank_io_op(rq);
	key = (__u64)rq;
	bpf_map_update_elem(&io_requests, &key, &r, BPF_ANY);
	return 0;
}

SEC("raw_tp/block_rq_complete")
int spank_io_complete(struct bpf_raw_tracepoint_args *ctx)
{
	struct spank_io_latency_key lat = {};
	struct spank_io_bytes_key bytes = {};
	__u64 key = ctx->args[0], now, us;
	struct io_req *r;

	r = bpf_map_lookup_elem(&io_requests, &key);
	if (!r)
		return 0;
	/* A record left by a request that never completed, found by a later
	 * request at the same address: not this one's. */
	if ((__u64)BPF_CORE_READ((struct request *)key, bio) != r->bio) {
		bpf_map_delete_elem(&io_requests, &key);
		return 0;
	}
	now = bpf_ktime_get_ns(); /* only now: a clock read is not free */
	us = now > r->start ? (now - r->start) / 1000 : 0;
	lat.job = bytes.job = r->job;
	lat.op = bytes.op = r->op;
	spank_add(&spank_io_bytes_total, &bytes, r->bytes);
	bpf_map_delete_elem(&io_requests, &key);
	SPANK_HIST_EXP2(spank_io_latency_seconds, lat, us, SPANK_IO_MAX_BUCKET);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
