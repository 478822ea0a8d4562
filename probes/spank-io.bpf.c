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
 * guest). A request without the stamp has no latency.
 *
 * Bytes are counted by bio, in the task that submits it: when a request
 * is allocated for it (block_getrq) or when it is merged into one that
 * is queued (block_bio_backmerge, block_bio_frontmerge), whoever's that
 * request is. A job's bytes are then exactly what it submitted: another
 * job's bio merged into its request (adjacent sectors, both queued at
 * once) is counted for the other job, not inflating this one's.
 *
 * I/O submitted by kernel threads (buffered writeback by the flusher)
 * belongs to no job and is not recorded; a request whose first bio
 * changed (a front merge) has no latency, and leaves nothing another
 * request could be counted by (io_bios).
 */
#define SPANK_DROPPED spank_io_dropped_total
#include "spank_job.bpf.h"

/* spank_io_dropped_total's map label (spank-io.yaml). */
#define SPANK_IO_MAP_LATENCY 0
#define SPANK_IO_MAP_BYTES 1
#define SPANK_IO_MAP_BIOS 2

#define SPANK_IO_OP_READ 0
#define SPANK_IO_OP_WRITE 1
#define SPANK_IO_OP_OTHER 2

/* 27: 2^27 us, about 134 s; values above go to that bucket. */
#define SPANK_IO_MAX_BUCKET 27

/* The most keys one job makes: 3 operations x (28 buckets + the sum),
 * and 3 operations. */
#define SPANK_IO_LATENCY_PER_JOB (3 * (SPANK_IO_MAX_BUCKET + 2))
#define SPANK_IO_BYTES_PER_JOB 3

/* REQ_OP_* are the low bits of cmd_flags (include/linux/blk_types.h). */
#define SPANK_REQ_OP_MASK 0xff
#define SPANK_REQ_OP_READ 0
#define SPANK_REQ_OP_WRITE 1

struct request_queue;

struct gendisk {
	struct request_queue *queue;
} __attribute__((preserve_access_index));

struct block_device {
	struct gendisk *bd_disk;
} __attribute__((preserve_access_index));

struct bvec_iter {
	__u64 bi_sector;
	unsigned int bi_size;
} __attribute__((preserve_access_index));

/* The device: bi_bdev from 5.12, bi_disk before. */
struct bio {
	struct block_device *bi_bdev;
	unsigned int bi_opf;
	struct bvec_iter bi_iter;
} __attribute__((preserve_access_index));

struct bio___pre512 {
	struct gendisk *bi_disk;
} __attribute__((preserve_access_index));

struct request {
	struct request_queue *q;
	unsigned int cmd_flags;
	__u64 __sector;
	struct bio *bio;
	__u64 start_time_ns;
} __attribute__((preserve_access_index));

extern int LINUX_KERNEL_VERSION __kconfig;

/* The job that submitted a bio, from its request's allocation to its
 * completion (scratch: not a metric), and what the request must still
 * be at its completion for the entry to be its: on the bio's queue, at
 * its sector, allocated no later than SPANK_IO_SLACK_NS after the
 * entry was made.
 *
 * A plain hash map, not an LRU one: an LRU hash evicts before it is full
 * (its free lists are per CPU), and lost 10 of a job's 2000 direct writes
 * here beside another job's 6000. A plain hash is bounded by max_entries:
 * when it is full an update fails and that one request's latency goes
 * unrecorded (its bytes are counted apart). A record is lost, never given
 * to another job.
 *
 * An entry goes at its request's completion, or when its address comes
 * back: at the next getrq of a bio there, or when a bio there is front-
 * merged into another request. A front merge makes the new bio the
 * request's first: the request's own entry (its old first bio) is left
 * behind, and the bio slab hands its address out again at once, often
 * to a bio front-merged into another job's request, which would then be
 * counted for this job (seen: 1 in 150 such requests of another job).
 * Hence the deletion at front merge and, for whatever other way an
 * entry outlives its request, the queue, sector and age checks. */
struct io_bio {
	__u64 queue;  /* struct request_queue * */
	__u64 sector; /* the bio's first sector: the request's while it is first */
	__u64 ns;     /* when getrq ran, bpf_ktime_get_ns() */
	__u32 job;
	__u32 pad;
};

/* rq->start_time_ns is taken just before block_getrq runs for the same
 * request; the slack allows for the two clock reads' distance. */
#define SPANK_IO_SLACK_NS 10000000ULL

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64); /* struct bio * */
	__type(value, struct io_bio);
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
	__uint(max_entries, SPANK_JOBS_MAX * SPANK_IO_LATENCY_PER_JOB);
	__type(key, struct spank_io_latency_key);
	__type(value, __u64);
} spank_io_latency_seconds SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SPANK_JOBS_MAX * SPANK_IO_BYTES_PER_JOB);
	__type(key, struct spank_io_bytes_key);
	__type(value, __u64);
} spank_io_bytes_total SEC(".maps");

/* The operation of a bio's flags (bio->bi_opf, as rq->cmd_flags). */
static __always_inline __u32 spank_io_op(__u32 flags)
{
	__u32 op = flags & SPANK_REQ_OP_MASK;

	if (op == SPANK_REQ_OP_READ)
		return SPANK_IO_OP_READ;
	if (op == SPANK_REQ_OP_WRITE)
		return SPANK_IO_OP_WRITE;
	return SPANK_IO_OP_OTHER;
}

/* A bio's bytes, for JOB, which submitted it. */
static __always_inline void spank_io_count_bytes(struct bio *bio, __u32 job)
{
	struct spank_io_bytes_key key = {};

	key.job = job;
	key.op = spank_io_op(BPF_CORE_READ(bio, bi_opf));
	spank_add(&spank_io_bytes_total, &key, BPF_CORE_READ(bio, bi_iter.bi_size), SPANK_IO_MAP_BYTES);
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

/* The queue a bio is for. */
static __always_inline __u64 spank_io_bio_queue(struct bio *bio)
{
	if (bpf_core_field_exists(bio->bi_bdev))
		return (__u64)BPF_CORE_READ(bio, bi_bdev, bd_disk, queue);
	return (__u64)BPF_CORE_READ((struct bio___pre512 *)bio, bi_disk, queue);
}

SEC("raw_tp/block_getrq")
int spank_io_getrq(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 bio = spank_io_old_args() ? ctx->args[1] : ctx->args[0];
	struct io_bio e = {};

	if (!bio)
		return 0;
	e.job = spank_job_of_current(SPANK_JOB_IO);
	if (!e.job) { /* a job's bio at this address that never reached issue is gone */
		bpf_map_delete_elem(&io_bios, &bio);
		return 0;
	}
	spank_io_count_bytes((struct bio *)bio, e.job);
	e.queue = spank_io_bio_queue((struct bio *)bio);
	e.sector = BPF_CORE_READ((struct bio *)bio, bi_iter.bi_sector);
	e.ns = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&io_bios, &bio, &e, BPF_ANY))
		spank_drop(SPANK_IO_MAP_BIOS, SPANK_DROP_FULL);
	return 0;
}

/* A bio merged into a queued request: its bytes are its submitter's (the
 * current task's), whoever's the request is. */
static __always_inline void spank_io_merged(__u64 bio)
{
	__u32 job = spank_job_of_current(SPANK_JOB_IO);

	if (job)
		spank_io_count_bytes((struct bio *)bio, job);
}

/* Before 5.11 the merge tracepoints had the queue and the request first,
 * as block_getrq. */
SEC("raw_tp/block_bio_backmerge")
int spank_io_backmerge(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 bio = spank_io_old_args() ? ctx->args[2] : ctx->args[0];

	if (bio)
		spank_io_merged(bio);
	return 0;
}

/* A bio front-merged into a request becomes its first: an entry at its
 * address is another request's, stale (see io_bios). */
SEC("raw_tp/block_bio_frontmerge")
int spank_io_frontmerge(struct bpf_raw_tracepoint_args *ctx)
{
	__u64 bio = spank_io_old_args() ? ctx->args[2] : ctx->args[0];

	if (!bio)
		return 0;
	bpf_map_delete_elem(&io_bios, &bio);
	spank_io_merged(bio);
	return 0;
}

/* The entry is this request's: same queue and sector, made when it was
 * allocated (give or take the slack), not before. */
static __always_inline int spank_io_entry_is(const struct io_bio *e, struct request *rq, __u64 start)
{
	if (e->queue != (__u64)BPF_CORE_READ(rq, q) || e->sector != BPF_CORE_READ(rq, __sector))
		return 0;
	return !start || e->ns + SPANK_IO_SLACK_NS >= start;
}

SEC("raw_tp/block_rq_complete")
int spank_io_complete(struct bpf_raw_tracepoint_args *ctx)
{
	struct spank_io_latency_key lat = {};
	struct request *rq = (struct request *)ctx->args[0];
	__u64 bio, start, now;
	struct io_bio *e;
	int ours;

	/* The first completion of a request, partial or whole: later partial
	 * ones find its next bio, which is not in io_bios. */
	bio = (__u64)BPF_CORE_READ(rq, bio);
	e = bpf_map_lookup_elem(&io_bios, &bio);
	if (!e)
		return 0;
	start = BPF_CORE_READ(rq, start_time_ns);
	ours = spank_io_entry_is(e, rq, start);
	lat.job = e->job;
	bpf_map_delete_elem(&io_bios, &bio);
	if (!ours || !start)
		return 0;
	lat.op = spank_io_op(BPF_CORE_READ(rq, cmd_flags));
	now = bpf_ktime_get_ns();
	now = now > start ? (now - start) / 1000 : 0;
	SPANK_HIST_EXP2(spank_io_latency_seconds, lat, now, SPANK_IO_MAX_BUCKET, SPANK_IO_MAP_LATENCY);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
