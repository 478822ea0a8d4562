/* Loads the built spank_ebpf.so the way slurmstepd does (dlopen, then the
 * job prolog/epilog symbols) with a minimal stand-in for the SPANK API, and
 * times the hooks in a loop.
 *
 *   hook_bench SO noopt  ITER ARGS...   job without --ebpf, opt-in mode
 *   hook_bench SO join   ITER ARGS...   opted-in job joining/leaving a busy set
 *   hook_bench SO cycle  ITER ARGS...   idle -> busy -> idle (systemctl= a no-op)
 *   hook_bench SO contention PROCS PAIRS ARGS...
 *   hook_bench SO private PROCS PAIRS ARGS...  the same, but each process
 *                                       on its own state file: no shared
 *                                       lock, only the CPUs are shared
 *   hook_bench SO load   ITER           dlopen + dlsym + dlclose, as every
 *                                       prolog/epilog process loads it afresh
 *
 * SO may be "shell:DIR" to time the shell alternative instead
 * (DIR/shell-prolog.sh and DIR/shell-epilog.sh, run per call with fork +
 * exec as Slurm runs Prolog=/Epilog= scripts).
 *
 * ARGS are the plugstack arguments (state=..., systemctl=..., sets=...).
 * An opted-in job's --ebpf value is BENCH_EBPF_VALUE (default empty: plain
 * --ebpf; "io,sched,net" asks for three probe sets). Prints one line of
 * figures per run. */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <slurm/spank.h>

#include "spank-stub.h"

#define OPTION_VAR "SPANK__SLURM_SPANK_OPTION_spank_ebpf_ebpf"

/* The job the stand-in SPANK API answers for (tests/face/spank-stub.c). */
#define current_job spank_stub_job

typedef int (*hook_fn)(spank_t, int, char **);
static hook_fn prolog, epilog;

static char script_dir[512];

/* The opted-in jobs' --ebpf value, as slurmstepd passes it. */
static void opt_in(void)
{
	const char *v = getenv("BENCH_EBPF_VALUE");

	setenv(OPTION_VAR, v ? v : "", 1);
}

/* The shell alternative: one fork + exec per hook, like slurmd's. */
static int run_script(const char *name, int argc, char **argv)
{
	char path[600], job[16];
	pid_t pid;
	int i;

	snprintf(path, sizeof(path), "%s/%s", script_dir, name);
	snprintf(job, sizeof(job), "%u", current_job);
	pid = fork();
	if (pid == 0) {
		setenv("SLURM_JOB_ID", job, 1);
		for (i = 0; i < argc; i++) {
			if (!strncmp(argv[i], "state=", 6))
				setenv("BENCH_STATE", argv[i] + 6, 1);
			else if (!strncmp(argv[i], "systemctl=", 10))
				setenv("BENCH_SYSTEMCTL", argv[i] + 10, 1);
		}
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	return 0;
}

static int script_prolog(spank_t sp, int argc, char **argv)
{
	(void)sp;
	return run_script("shell-prolog.sh", argc, argv);
}

static int script_epilog(spank_t sp, int argc, char **argv)
{
	(void)sp;
	return run_script("shell-epilog.sh", argc, argv);
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

static void call(hook_fn fn, uint32_t job, int argc, char **argv)
{
	current_job = job;
	fn(NULL, argc, argv);
}

int main(int argc, char **argv)
{
	void *so = NULL;
	const char *mode;
	long iter, i;
	long long t0, tp = 0, te = 0;
	int pargc;
	char **pargv;

	if (argc < 4) {
		fprintf(stderr, "usage: %s SO MODE ITER [ARGS...]\n", argv[0]);
		return 2;
	}
	spank_stub_verbose = getenv("BENCH_VERBOSE") != NULL;
	if (!strncmp(argv[1], "shell:", 6)) {
		snprintf(script_dir, sizeof(script_dir), "%s", argv[1] + 6);
		prolog = script_prolog;
		epilog = script_epilog;
	} else {
		so = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
		if (!so) {
			fprintf(stderr, "dlopen: %s\n", dlerror());
			return 1;
		}
		prolog = (hook_fn)dlsym(so, "slurm_spank_job_prolog");
		epilog = (hook_fn)dlsym(so, "slurm_spank_job_epilog");
	}
	mode = argv[2];
	iter = atol(argv[3]);

	if (!strcmp(mode, "load")) {
		if (!so)
			return 2;
		dlclose(so); /* so that each dlopen() below maps it again */
		for (i = 0; i < iter; i++) {
			void *h;

			t0 = now_ns();
			h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
			if (!h || !dlsym(h, "slurm_spank_job_prolog")) {
				fprintf(stderr, "dlopen: %s\n", dlerror());
				return 1;
			}
			dlclose(h);
			tp += now_ns() - t0;
		}
		if (iter > 0)
			printf("load iter=%ld load_ns=%.0f\n", iter, (double)tp / (double)iter);
		return 0;
	}

	if (!strcmp(mode, "contention") || !strcmp(mode, "private")) {
		int private = !strcmp(mode, "private");
		int procs = atoi(argv[3]), pairs = atoi(argv[4]), p;
		long long *lat = mmap(NULL, sizeof(long long) * 2 * (size_t)procs * (size_t)pairs,
				      PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		size_t n = (size_t)procs * (size_t)pairs;
		long long wall;
		int ready[2], go[2], done[2];
		char c;

		pargc = argc - 5;
		pargv = argv + 5;
		opt_in();
		call(prolog, 1, pargc, pargv); /* the anchor: the set stays busy */
		/* All processes start their timed loops together, once set up. */
		if (pipe(ready) < 0 || pipe(go) < 0 || pipe(done) < 0)
			return 1;
		for (p = 0; p < procs; p++) {
			if (fork() == 0) {
				uint32_t job = 1000 + (uint32_t)p;
				char mine[600];
				int a;

				close(go[1]);

				if (private) {
					/* state=PATH becomes state=PATH.<p>, with its own anchor. */
					for (a = 0; a < pargc; a++)
						if (!strncmp(pargv[a], "state=", 6)) {
							snprintf(mine, sizeof(mine), "%s.%d", pargv[a], p);
							pargv[a] = mine;
						}
					call(prolog, 1, pargc, pargv);
				}
				if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) < 0)
					_exit(1);
				for (i = 0; i < pairs; i++) {
					size_t k = (size_t)p * (size_t)pairs + (size_t)i;

					t0 = now_ns();
					call(prolog, job, pargc, pargv);
					lat[k] = now_ns() - t0;
					t0 = now_ns();
					call(epilog, job, pargc, pargv);
					lat[n + k] = now_ns() - t0;
				}
				if (write(done[1], "d", 1) != 1)
					_exit(1);
				if (private)
					call(epilog, 1, pargc, pargv);
				_exit(0);
			}
		}
		for (p = 0; p < procs; p++)
			if (read(ready[0], &c, 1) != 1)
				return 1;
		wall = now_ns();
		close(go[1]); /* go: every child's read() returns */
		for (p = 0; p < procs; p++)
			if (read(done[0], &c, 1) != 1)
				return 1;
		wall = now_ns() - wall;
		while (wait(NULL) > 0)
			;
		call(epilog, 1, pargc, pargv);
		qsort(lat, n, sizeof(*lat), cmp_ll);
		qsort(lat + n, n, sizeof(*lat), cmp_ll);
		printf("%s procs=%d hooks_per_s=%.0f prolog_p50_us=%.1f prolog_p99_us=%.1f epilog_p50_us=%.1f epilog_p99_us=%.1f\n",
		       mode, procs, 2.0 * (double)n / ((double)wall / 1e9),
		       lat[n / 2] / 1e3, lat[n * 99 / 100] / 1e3,
		       lat[n + n / 2] / 1e3, lat[n + n * 99 / 100] / 1e3);
		return 0;
	}

	pargc = argc - 4;
	pargv = argv + 4;
	if (!strcmp(mode, "noopt")) {
		unsetenv(OPTION_VAR);
	} else {
		opt_in();
		if (!strcmp(mode, "join"))
			call(prolog, 1, pargc, pargv); /* the anchor */
	}
	for (i = 0; i < iter; i++) {
		uint32_t job = 1000 + (uint32_t)(i % 1000);

		t0 = now_ns();
		call(prolog, job, pargc, pargv);
		tp += now_ns() - t0;
		t0 = now_ns();
		call(epilog, job, pargc, pargv);
		te += now_ns() - t0;
	}
	if (!strcmp(mode, "join"))
		call(epilog, 1, pargc, pargv);
	if (iter > 0)
		printf("%s iter=%ld prolog_ns=%.0f epilog_ns=%.0f\n", mode, iter,
		       (double)tp / (double)iter, (double)te / (double)iter);
	return 0;
}
