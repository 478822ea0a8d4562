/* Processes killed with SIGKILL at random instants while updating the
 * state. After each kill the state must parse cleanly and hold exactly the
 * jobs whose update completed (the one in flight may have either outcome),
 * and the next update must work at once: no torn file, no stuck lock.
 *
 * Usage: test_kill [trials]   (default: $TEST_KILL_TRIALS, else 1000) */
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
};

static void quiet(enum log_level level, const char *msg)
{
	(void)level;
	(void)msg;
}

static void worker(const struct config *cfg, struct model *m, unsigned int seed)
{
	log_set_sink(quiet);
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

int main(int argc, char **argv)
{
	int trials = argc > 1 ? atoi(argv[1]) :
		     getenv("TEST_KILL_TRIALS") ? atoi(getenv("TEST_KILL_TRIALS")) : 1000;
	struct model *m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int torn = 0, wrong = 0, stuck = 0, in_flight = 0, ops = 0, i, j;
	unsigned int seed = (unsigned int)time(NULL);
	struct config cfg;
	struct jobset set;
	char dir[128], why[160];

	snprintf(dir, sizeof(dir), "%s", tu_scratch());
	/* "slow" keeps systemctl running for a while, so some kills land
	 * while it runs; the rest land on the lock, the write or the rename. */
	tu_double(&cfg, dir, "ok");
	cfg.lock_timeout = 2;
	memset(m, 0, sizeof(*m));
	jobset_init(&set);
	tap_diag("seed %u, %d trials", seed, trials);

	for (i = 0; i < trials; i++) {
		struct timespec d = { 0, (long)(rand_r(&seed) % 3000) * 1000 };
		char *text;
		pid_t pid;
		int ev;

		tu_double_set(dir, i % 4 == 0 ? "slow" : "ok");
		pid = fork();
		if (pid == 0)
			worker(&cfg, m, seed + (unsigned int)i);
		nanosleep(&d, NULL);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		ops += m->done;
		m->done = 0;

		text = tu_slurp(cfg.state);
		if (text && jobset_parse(&set, text, strlen(text), why, sizeof(why)) != 0) {
			torn++;
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
				in_flight++;
				continue;
			}
			wrong++;
			tap_diag("trial %d: job %d is %s but should not be", i, j,
				 have ? "held" : "missing");
			m->held[j] = have;
		}
		m->pending_job = 0;
		free(text);

		/* The next hook must not be blocked by the dead one. */
		log_set_sink(quiet);
		if (hold_update(&cfg, 9999, HOLD_ACQUIRE, &ev) < 0 ||
		    hold_update(&cfg, 9999, HOLD_RELEASE, &ev) < 0)
			stuck++;
	}
	tap_diag("%d operations completed across the trials; %d kills landed after the commit",
		 ops, in_flight);
	ok(torn == 0, "state parsed cleanly after all %d kills (%d damaged)", trials, torn);
	ok(wrong == 0, "state held exactly the completed jobs after every kill (%d wrong)", wrong);
	ok(stuck == 0, "the next update always went through (%d blocked)", stuck);
	ok(ops > trials, "the kills interrupted real work (%d operations)", ops);
	jobset_free(&set);
	return tap_done();
}
