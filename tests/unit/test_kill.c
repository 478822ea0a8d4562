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

/* With probe sets, what job j asks for: always the same, so the state
 * can be checked against it. Names in alphabetical order, as written. */
static const char *const requests[] = { "io", "net", "sched", "io,net", "io,sched", "net,sched",
					"io,net,sched" };

static const char *request_of(int job)
{
	return requests[job % 7];
}

static void worker(const struct config *cfg, struct model *m, unsigned int seed)
{
	log_set_sink(log_nothing);
	m->ready = 1;
	for (;;) {
		int job = 1 + (int)(rand_r(&seed) % NJOBS);
		int op = (int)(rand_r(&seed) % 2);
		int rc;

		m->pending_op = op;
		m->pending_job = job;
		__sync_synchronize();
		if (cfg->sets[0] && op)
			rc = hold_acquire(cfg, (uint32_t)job, request_of(job), false, NULL);
		else
			rc = hold_update(cfg, (uint32_t)job, op ? HOLD_ACQUIRE : HOLD_RELEASE, NULL);
		if (rc == 0)
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

/* Does job j hold exactly the sets it asks for (by name)? */
static int holds_its_request(int j)
{
	uint32_t mask = jobset_mask(&set, (uint32_t)j);
	char names[64] = "";
	size_t n = 0;
	int b, k, order[JOBSET_SETS_MAX];

	/* The names of its bits, alphabetically, as request_of() spells them. */
	for (k = 0; k < set.nnames; k++) {
		for (b = k; b > 0 && strcmp(set.names[order[b - 1]], set.names[k]) > 0; b--)
			order[b] = order[b - 1];
		order[b] = k;
	}
	for (k = 0; k < set.nnames; k++)
		if (mask & (1u << order[k]))
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", n ? "," : "",
					      set.names[order[k]]);
	return !strcmp(names, request_of(j));
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

		if (have && cfg.sets[0] && !holds_its_request(j)) {
			k->wrong++;
			tap_diag("trial %d: job %d holds other sets than %s", i, j, request_of(j));
		}
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
	cfg.lock_timeout = TU_LOCK_TIMEOUT;
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

/* The same with probe sets: each job asks for its own sets (request_of),
 * the anchor for io; after every kill each held job holds exactly its
 * sets. Half as many trials. */
static void test_random_sigkills_sets(void)
{
	char path[200];
	const char *text = "unit = ebpf_exporter@.service\ndefault = io\n"
			   "[io]\ndescription = a\nconfigs = a\nlisten = :941\n"
			   "[net]\ndescription = b\nconfigs = b\nlisten = :942\n"
			   "[sched]\ndescription = c\nconfigs = c\nlisten = :943\n";

	hold_update(&cfg, ANCHOR, HOLD_RELEASE, NULL);
	snprintf(path, sizeof(path), "%s/sets.conf", dir);
	tu_write(path, text, strlen(text));
	snprintf(cfg.sets, sizeof(cfg.sets), "%s", path);
	memset(m, 0, sizeof(*m));
	unlink(cfg.state);
	trials /= 2;
	tap_diag("with probe sets: %d trials", trials);
	test_random_sigkills();
}

int main(int argc, char **argv)
{
	setup(argc, argv);
	test_random_sigkills();
	test_random_sigkills_sets();
	return tap_done();
}
