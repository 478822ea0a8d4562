/* Many processes doing randomized prolog/epilog sequences against one
 * state file and the recording systemctl double. Asserts: starts and stops
 * strictly alternate, every start saw count 1 and every stop count 0 (so
 * each idle->busy transition started exactly once and each busy->idle
 * stopped exactly once), all under the lock, and the set ends empty.
 *
 * Usage: test_concurrency [processes] [operations per phase] [phases] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PHASE_MS 120

#include "hold.h"
#include "log.h"
#include "tap.h"
#include "testutil.h"

struct tally {
	int starts, stops, failed;
};

static void quiet(enum log_level level, const char *msg)
{
	if (level == LOG_ERROR)
		fprintf(stderr, "%s\n", msg);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void count(struct tally *t, int ev)
{
	if (ev & EV_STARTED)
		__atomic_add_fetch(&t->starts, 1, __ATOMIC_SEQ_CST);
	if (ev & EV_STOPPED)
		__atomic_add_fetch(&t->stops, 1, __ATOMIC_SEQ_CST);
}

/* Work comes in phases, like jobs arriving in waves: in each phase a
 * worker does a burst of random operations on its own jobs
 * (base..base+3) and on shared ones (1..4), so joins, leaves, repeats and
 * epilogs without prologs all happen; then it releases everything and
 * waits for the next phase, so the set empties and fills again. */
static void worker(const struct config *cfg, int w, int ops, int phases,
		   long long t0, struct tally *t)
{
	unsigned int seed = (unsigned int)(getpid() * 2654435761u);
	int p, i, ev;

	log_set_sink(quiet);
	for (p = 0; p < phases; p++) {
		long long wait = t0 + p * PHASE_MS - now_ms();

		if (wait > 0)
			usleep((useconds_t)wait * 1000);
		usleep(rand_r(&seed) % 5000);
		for (i = 0; i < ops; i++) {
			uint32_t job = (rand_r(&seed) % 4 == 0) ? 1 + (uint32_t)rand_r(&seed) % 4
							       : (uint32_t)(1000 + w * 4 + rand_r(&seed) % 4);
			enum hold_op op = rand_r(&seed) % 2 ? HOLD_ACQUIRE : HOLD_RELEASE;

			if (hold_update(cfg, job, op, &ev) < 0)
				__atomic_add_fetch(&t->failed, 1, __ATOMIC_SEQ_CST);
			count(t, ev);
		}
		for (i = 0; i < 8; i++) {
			uint32_t job = i < 4 ? (uint32_t)(1000 + w * 4 + i) : (uint32_t)(i - 3);

			if (hold_update(cfg, job, HOLD_RELEASE, &ev) < 0)
				__atomic_add_fetch(&t->failed, 1, __ATOMIC_SEQ_CST);
			count(t, ev);
		}
	}
}

int main(int argc, char **argv)
{
	int procs = argc > 1 ? atoi(argv[1]) :
		    getenv("TEST_STRESS_PROCS") ? atoi(getenv("TEST_STRESS_PROCS")) : 32;
	int ops = argc > 2 ? atoi(argv[2]) : 6;
	int phases = argc > 3 ? atoi(argv[3]) : 12;
	long long t0;
	struct tally *t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
			       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct config cfg;
	char dir[128], *log, *line, *save, *s;
	int i, status, starts = 0, stops = 0, calls = 0, bad_count = 0, unlocked = 0;
	int alternates = 1;
	char last = 0;

	snprintf(dir, sizeof(dir), "%s", tu_scratch());
	tu_double(&cfg, dir, "ok");
	cfg.lock_timeout = 60;
	memset(t, 0, sizeof(*t));
	tap_diag("%d processes x %d phases x %d random operations, then releases",
		 procs, phases, ops);
	t0 = now_ms() + 50;

	for (i = 0; i < procs; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			worker(&cfg, i, ops, phases, t0, t);
			_exit(0);
		}
	}
	for (i = 0; i < procs; i++)
		wait(&status);

	log = tu_double_log(dir);
	for (line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		calls++;
		if (!strncmp(line, "start ", 6)) {
			starts++;
			if (!strstr(line, " count=1 "))
				bad_count++;
			if (last == 's')
				alternates = 0;
			last = 's';
		} else if (!strncmp(line, "stop ", 5)) {
			stops++;
			if (!strstr(line, " count=0 "))
				bad_count++;
			if (last != 's')
				alternates = 0;
			last = 'p';
		}
		if (!strstr(line, "locked=yes"))
			unlocked++;
	}
	free(log);
	tap_diag("%d systemctl calls: %d starts, %d stops", calls, starts, stops);
	ok(t->failed == 0, "no update failed (%d)", t->failed);
	ok(starts > 1, "the set went idle->busy several times (%d)", starts);
	ok(alternates, "starts and stops strictly alternate, first a start");
	ok(bad_count == 0, "every start saw count 1 and every stop count 0 (%d wrong)", bad_count);
	ok(unlocked == 0, "every call ran under the state lock (%d did not)", unlocked);
	ok(starts == t->starts && stops == t->stops,
	   "calls match the transitions the hooks reported (%d/%d, %d/%d)",
	   starts, t->starts, stops, t->stops);
	ok(starts == stops, "as many stops as starts");
	s = tu_slurp(cfg.state);
	ok(s && !strcmp(s, "0\n"), "state empty at the end");
	free(s);
	return tap_done();
}
