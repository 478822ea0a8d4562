/* Processes killed with SIGKILL at random instants while updating the
 * state. After each kill the state must parse cleanly and hold exactly the
 * jobs whose update completed (the one in flight may have either outcome),
 * and the next update must work at once: no torn file, no stuck lock.
 *
 * A quarter of the kills land while the worker waits for a lock held by
 * someone else, a quarter during updates that start or stop the unit
 * (systemctl running), the rest during joins and leaves (read, write,
 * rename).
 *
 * Usage: test_kill [trials]   (default: $TEST_KILL_TRIALS, else 1000) */
#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hold.h"
#include "jobset.h"
#include "log.h"
#include "tap.h"
#include "testutil.h"

#define NJOBS 16

/* Written only by the worker; read by the parent after the worker died. */
struct model {
	volatile int held[NJOBS + 1];
	volatile int pending_job;   /* 0: nothing in flight */
	volatile int pending_op;
	volatile int done;
	volatile int ready;
};

/* Counts over all trials. */
struct kill_tally {
	int torn;      /* the state did not parse cleanly */
	int wrong;     /* a job held or missing against the model */
	int stuck;     /* the next update did not go through */
	int in_flight; /* kills inside an update, after its commit */
	int mid_op;    /* kills inside an update */
	int in_wait;   /* kills while waiting for a lock held elsewhere */
	int ops;       /* updates completed */
};

/* Nothing logged: a killed update's half-said lines are expected. */
static void log_nothing(enum log_level level, const char *msg)
{
	(void)level;
	(void)msg;
}

static void worker(const struct config *cfg, struct model *m, unsigned int seed)
{
	log_set_sink(log_nothing);
	m->ready = 1;
	for (;;) {
		int job = 1 + (int)(rand_r(&seed) % NJOBS);
		int op = (int)(rand_r(&seed) % 2);

		m->pending_op = op;
		m->pending_job = job;
		__sync_synchronize();
		if (hold_update(cfg, (uint32_t)job, op ? HOLD_ACQUIRE : HOLD_RELEASE, NULL) == 0)
			m->held[job] = op;
		__sync_synchronize();
		m->pending_job = 0;
		m->done++;
	}
}

#define ANCHOR 9000 /* a job outside 1..NJOBS that keeps the set busy */

/* Mean time of one update of job 7777 (with or without transitions). */
static long long mean_update_us(const struct config *cfg)
{
	struct timespec a, b;
	int k;

	log_set_sink(log_nothing);
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (k = 0; k < 20; k++)
		hold_update(cfg, 7777, k % 2 ? HOLD_RELEASE : HOLD_ACQUIRE, NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return ((b.tv_sec - a.tv_sec) * 1000000LL + (b.tv_nsec - a.tv_nsec) / 1000) / 20 + 1;
}

static struct config cfg;
static struct model *m;
static struct jobset set; /* the state as last parsed */
static char dir[128], lockpath[300];
static int trials;
static unsigned int seed;
static long long fast_us, slow_us; /* one update: join/leave, with transitions */

/* A worker forked for trial i, killed after a random delay of up to
 * three of its updates' time; with LOCKED, while another process (this
 * one) holds the state lock. */
static void kill_worker_mid_update(int i, long long op_us, int locked, struct kill_tally *k)
{
	long long us = rand_r(&seed) % (3 * op_us + 1);
	struct timespec d = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };
	int lfd = -1;
	pid_t pid;

	if (locked) {
		lfd = open(lockpath, O_RDWR | O_CLOEXEC);
		flock(lfd, LOCK_EX);
	}
	m->ready = 0;
	pid = fork();
	if (pid == 0)
		worker(&cfg, m, seed + (unsigned int)i);
	while (!m->ready)
		sched_yield();
	nanosleep(&d, NULL);
	kill(pid, SIGKILL);
	if (lfd >= 0) {
		if (!m->done)
			k->in_wait++;
		close(lfd);
	}
	waitpid(pid, NULL, 0);
	if (m->pending_job)
		k->mid_op++;
	k->ops += m->done;
	m->done = 0;
}

/* The state parses cleanly and holds exactly the jobs the model says
 * (the one in flight either way); the model then follows the state. */
static void check_state_after_kill(int i, struct kill_tally *k)
{
	char *text = tu_slurp(cfg.state), why[160];
	int j;

	if (text && jobset_parse(&set, text, strlen(text), why, sizeof(why)) != 0) {
		k->torn++;
		tap_diag("trial %d: state damaged: %s", i, why);
	}
	if (!text)
		jobset_free(&set);
	for (j = 1; j <= NJOBS; j++) {
		int have = jobset_contains(&set, (uint32_t)j);

		if (have == m->held[j])
			continue;
		if (m->pending_job == j && have == m->pending_op) {
			m->held[j] = have; /* it committed just before the kill */
			k->in_flight++;
			continue;
		}
		k->wrong++;
		tap_diag("trial %d: job %d is %s but should not be", i, j,
			 have ? "held" : "missing");
		m->held[j] = have;
	}
	m->pending_job = 0;
	free(text);
}

/* The next hook must not be blocked by the dead one. */
static int next_update_goes_through(void)
{
	int ev;

	log_set_sink(log_nothing);
	return hold_update(&cfg, 9999, HOLD_ACQUIRE, &ev) >= 0 &&
	       hold_update(&cfg, 9999, HOLD_RELEASE, &ev) >= 0;
}

/* Trials from the arguments, else $TEST_KILL_TRIALS, else 1000; the
 * time of one update measured both ways. */
static void setup(int argc, char **argv)
{
	trials = argc > 1 ? atoi(argv[1]) :
		 getenv("TEST_KILL_TRIALS") ? atoi(getenv("TEST_KILL_TRIALS")) : 1000;
	m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	seed = (unsigned int)time(NULL);
	snprintf(dir, sizeof(dir), "%s", tu_scratch());
	tu_double(&cfg, dir, "slow");
	snprintf(lockpath, sizeof(lockpath), "%s.lock", cfg.state);
	cfg.lock_timeout = 2;
	memset(m, 0, sizeof(*m));
	/* Kill instants are drawn over a few operations' time after the
	 * worker is up, so they land inside updates however fast this
	 * machine (or slow a sanitizer) is. */
	/* Two kinds of trials: with an anchor job held, updates are joins and
	 * leaves (lock, read, write, rename: microseconds); without it, every
	 * few updates start or stop the unit, and kills land while the
	 * (slowed) systemctl double runs. */
	tu_double_set(dir, "slow");
	slow_us = mean_update_us(&cfg);
	hold_update(&cfg, ANCHOR, HOLD_ACQUIRE, NULL);
	fast_us = mean_update_us(&cfg);
	tap_diag("seed %u, %d trials; an update takes ~%lld us (join/leave), ~%lld us (with transitions)",
		 seed, trials, fast_us, slow_us);
}

/* A quarter of the trials without the anchor (kills among starts and
 * stops), a quarter with the lock held elsewhere from the start (kills
 * while the worker waits for it), the rest among joins and leaves. */
static void test_random_sigkills(void)
{
	struct kill_tally k = { 0 };
	int i;

	jobset_init(&set);
	for (i = 0; i < trials; i++) {
		int with_transitions = i % 4 == 0;

		hold_update(&cfg, ANCHOR, with_transitions ? HOLD_RELEASE : HOLD_ACQUIRE, NULL);
		kill_worker_mid_update(i, with_transitions ? slow_us : fast_us, i % 4 == 1, &k);
		check_state_after_kill(i, &k);
		if (!next_update_goes_through())
			k.stuck++;
	}
	tap_diag("%d operations completed; %d kills landed inside an update, %d of them after its commit, %d while waiting for the lock",
		 k.ops, k.mid_op, k.in_flight, k.in_wait);
	ok(k.torn == 0, "state parsed cleanly after all %d kills (%d damaged)", trials, k.torn);
	ok(k.wrong == 0, "state held exactly the completed jobs after every kill (%d wrong)", k.wrong);
	ok(k.stuck == 0, "the next update always went through (%d blocked)", k.stuck);
	ok(k.mid_op >= trials / 2, "most kills landed inside an update (%d of %d)", k.mid_op, trials);
	jobset_free(&set);
}

int main(int argc, char **argv)
{
	setup(argc, argv);
	test_random_sigkills();
	return tap_done();
}
