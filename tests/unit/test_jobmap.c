/* The probes' filter generation (jobmap.h), with real BPF maps: several
 * processes change the filter at once (the lock-free observe_admit_all
 * of a starting instance beside a prolog under the state lock), and the
 * generation they leave must be one the programs never cached an answer
 * in. The maps are made here as probes/spank_job.bpf.h declares them.
 * Needs root (bpf(2)); one function per case. */
#include <errno.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpfmap.h"
#include "jobmap.h"
#include "spank_job_map.h"
#include "tap.h"

/* Filter changes per bumper: enough that two processes on two CPUs
 * interleave their read and write many times over. */
#define BUMPS 4000

static int map_create(uint32_t type, const char *name, uint32_t key, uint32_t value,
		      uint32_t max, uint32_t flags)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = key;
	a.value_size = value;
	a.max_entries = max;
	a.map_flags = flags;
	snprintf(a.map_name, sizeof(a.map_name), "%s", name);
	return (int)syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof(a));
}

/* A jobmap over one config object's filter, made here: gen_flags are the
 * generation map's flags (the probes' own, or an older build's 0). */
static int filter_made(struct jobmap *m, uint32_t gen_flags)
{
	int jobs, gen;

	memset(m, 0, sizeof(*m));
	jobs = map_create(BPF_MAP_TYPE_HASH, SPANK_JOBS_MAP, sizeof(struct spank_job_key),
			  sizeof(struct spank_job_val), 64, 0);
	gen = map_create(BPF_MAP_TYPE_ARRAY, SPANK_JOBS_GEN_MAP, 4, 8, 1, gen_flags);
	if (jobs < 0 || gen < 0) {
		if (jobs >= 0)
			close(jobs);
		return -1;
	}
	m->jobs[0] = (struct bpfmap){ .fd = jobs, .key_size = sizeof(struct spank_job_key),
				      .value_size = sizeof(struct spank_job_val) };
	m->gen[0] = (struct bpfmap){ .fd = gen, .key_size = 4, .value_size = 8 };
	snprintf(m->jobs[0].name, sizeof(m->jobs[0].name), "%s", SPANK_JOBS_MAP);
	snprintf(m->gen[0].name, sizeof(m->gen[0].name), "%s", SPANK_JOBS_GEN_MAP);
	m->njobs = m->ngen = 1;
	m->found = true;
	return 0;
}

static uint64_t generation(const struct jobmap *m)
{
	uint32_t zero = 0;
	uint64_t g = 0;

	bpfmap_lookup(&m->gen[0], &zero, &g);
	return g;
}

/* A child that admits and dismisses job job BUMPS times in all. */
static pid_t bumper(struct jobmap *m, uint32_t job)
{
	pid_t pid = fork();
	int i;

	if (pid != 0)
		return pid;
	for (i = 0; i < BUMPS; i++)
		if ((i % 2 ? jobmap_dismiss(m, job, NULL) : jobmap_admit(m, job, NULL, SPANK_JOB_IO)) < 0)
			_exit(1);
	_exit(0);
}

static int reaped_ok(pid_t pid)
{
	int st = 0;

	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* Two processes change the filter at once: every change moves the
 * generation (none is lost), so it ends 2 x BUMPS further. */
static void test_no_lost_update(void)
{
	struct jobmap m;
	uint64_t g0, g1;
	pid_t a, b;
	int ok_a, ok_b;

	if (filter_made(&m, SPANK_JOBS_GEN_FLAGS) < 0) {
		tap_skip("cannot create BPF maps here (needs root and bpf(2))");
		return;
	}
	g0 = generation(&m);
	a = bumper(&m, 1);
	b = bumper(&m, 2);
	ok_a = reaped_ok(a);
	ok_b = reaped_ok(b);
	g1 = generation(&m);
	ok(ok_a && ok_b, "both bumpers made their %d changes", BUMPS);
	ok(g1 - g0 == 2 * BUMPS, "2 x %d concurrent changes moved the generation %d times (%llu)",
	   BUMPS, 2 * BUMPS, (unsigned long long)(g1 - g0));
	jobmap_close(&m);
}

/* The programs cache an answer with the generation they read; such an
 * answer must never be valid again after a change, so the generation
 * never comes back to a value it had: seen from a third process reading
 * it all along (as the programs do), it only ever grows. */
static void test_no_value_comes_back(void)
{
	unsigned long backwards = 0, reads = 0;
	uint64_t last = 0, g, first_back = 0, first_from = 0;
	struct jobmap m;
	pid_t pids[4];
	int i, running;

	if (filter_made(&m, SPANK_JOBS_GEN_FLAGS) < 0) {
		tap_skip("cannot create BPF maps here (needs root and bpf(2))");
		return;
	}
	/* More bumpers than CPUs: one is often preempted between a read and
	 * a write while the others move on. */
	for (i = 0; i < 4; i++)
		pids[i] = bumper(&m, (uint32_t)i + 1);
	do {
		g = generation(&m);
		reads++;
		if (g < last && backwards++ == 0) {
			first_back = g;
			first_from = last;
		}
		if (g > last)
			last = g;
		for (i = running = 0; i < 4; i++)
			if (pids[i] > 0 && waitpid(pids[i], NULL, WNOHANG) == 0)
				running++;
			else
				pids[i] = 0;
	} while (running);
	ok(backwards == 0, "the generation never went back to an older value (%lu times in %lu reads; first %llu -> %llu)",
	   backwards, reads, (unsigned long long)first_from, (unsigned long long)first_back);
	jobmap_close(&m);
}

/* An exporter still running probes built before the generation map was
 * mmapable (an upgrade under a running instance): changes still move it. */
static void test_older_probes_still_bumped(void)
{
	struct jobmap m;
	uint64_t g0;
	uint64_t g1;
	int rc;

	if (filter_made(&m, 0) < 0) {
		tap_skip("cannot create BPF maps here (needs root and bpf(2))");
		return;
	}
	g0 = generation(&m);
	rc = jobmap_admit(&m, 3, NULL, SPANK_JOB_IO);
	g1 = generation(&m);
	ok(rc == 0 && g1 > g0, "a generation map without BPF_F_MMAPABLE: an admit moves it (%llu -> %llu)",
	   (unsigned long long)g0, (unsigned long long)g1);
	jobmap_close(&m);
}

/* The fs set's two configs give a job the same bit: spank-fs-nfs's
 * programs see the jobs spank-fs sees. */
static void test_fs_configs_one_bit(void)
{
	ok(jobmap_config_bits("spank-fs") == SPANK_JOB_FS, "bits: spank-fs has the fs bit");
	ok(jobmap_config_bits("spank-fs-nfs") == SPANK_JOB_FS, "bits: spank-fs-nfs has the same bit");
	ok(jobmap_config_bits("spank-io,spank-fs,spank-fs-nfs") == (SPANK_JOB_IO | SPANK_JOB_FS),
	   "bits: io and fs together, each once");
	ok(jobmap_config_bits("spank-fsx,spank-f") == 0, "bits: names only alike have none");
}

int main(void)
{
	test_fs_configs_one_bit();
	test_no_lost_update();
	test_no_value_comes_back();
	test_older_probes_still_bumped();
	return tap_done();
}
