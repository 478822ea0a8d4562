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

/* What the hooks reported, summed over every worker (shared memory). */
struct tally {
	int starts, stops, failed;
	int ended; /* worker-phases ended, for the barrier */
};

/* What the double's call log shows. */
struct calls {
	int calls, starts, stops;
	int bad_count; /* a start that saw no count 1, a stop no count 0 */
	int unlocked;  /* a call made without the state lock */
	int alternates; /* starts and stops strictly alternate, first a start */
};

/* Only errors, on stderr: thousands of updates would flood the log. */
static void log_errors_only(enum log_level level, const char *msg)
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

static void tally_events(struct tally *t, int ev)
{
	if (ev & EV_STARTED)
		__atomic_add_fetch(&t->starts, 1, __ATOMIC_SEQ_CST);
	if (ev & EV_STOPPED)
		__atomic_add_fetch(&t->stops, 1, __ATOMIC_SEQ_CST);
}

/* With probe sets (a sets file in cfg.sets), what a worker asks for. */
static const char *const requests[] = { NULL, "io", "sched", "net", "io,sched", "sched,net", "io,net,sched" };

static int update(const struct config *cfg, uint32_t job, enum hold_op op, unsigned int *seed,
		  int *ev)
{
	if (!cfg->sets[0] || op == HOLD_RELEASE)
		return hold_update(cfg, job, op, ev);
	return hold_acquire(cfg, job, requests[rand_r(seed) % 7], false, ev);
}

/* Before an even phase, until every worker has ended the phases before
 * it: the set is empty then, so each set empties and fills again at least
 * once per two phases however slow the machine (on a loaded one the timed
 * phases alone ran into each other and a set never emptied). The odd
 * phases begin on time only, so a join can still race the last leave. */
static void barrier_before(int p, int procs, struct tally *t)
{
	long long deadline = now_ms() + 120000;

	if (p == 0 || p % 2)
		return;
	/* 10 ms: 32 waiting workers polling every millisecond would load
	 * the machine the other tests share. */
	while (__atomic_load_n(&t->ended, __ATOMIC_SEQ_CST) < p * procs && now_ms() < deadline)
		usleep(10000);
}

/* Work comes in phases, like jobs arriving in waves: in each phase a
 * worker does a burst of random operations on its own jobs
 * (base..base+3) and on shared ones (1..4), so joins, leaves, repeats and
 * epilogs without prologs all happen; then it releases everything and
 * waits for the next phase, so the set empties and fills again. */
static void worker(const struct config *cfg, int w, int ops, int phases, int procs,
		   long long t0, struct tally *t)
{
	unsigned int seed = (unsigned int)(getpid() * 2654435761u);
	int p, i, ev;

	log_set_sink(log_errors_only);
	for (p = 0; p < phases; p++) {
		long long wait;

		barrier_before(p, procs, t);
		wait = t0 + p * PHASE_MS - now_ms();
		if (wait > 0)
			usleep((useconds_t)wait * 1000);
		usleep(rand_r(&seed) % 5000);
		for (i = 0; i < ops; i++) {
			uint32_t job = (rand_r(&seed) % 4 == 0) ? 1 + (uint32_t)rand_r(&seed) % 4
							       : (uint32_t)(1000 + w * 4 + rand_r(&seed) % 4);
			enum hold_op op = rand_r(&seed) % 2 ? HOLD_ACQUIRE : HOLD_RELEASE;

			if (update(cfg, job, op, &seed, &ev) < 0)
				__atomic_add_fetch(&t->failed, 1, __ATOMIC_SEQ_CST);
			tally_events(t, ev);
		}
		for (i = 0; i < 8; i++) {
			uint32_t job = i < 4 ? (uint32_t)(1000 + w * 4 + i) : (uint32_t)(i - 3);

			if (hold_update(cfg, job, HOLD_RELEASE, &ev) < 0)
				__atomic_add_fetch(&t->failed, 1, __ATOMIC_SEQ_CST);
			tally_events(t, ev);
		}
		__atomic_add_fetch(&t->ended, 1, __ATOMIC_SEQ_CST);
	}
}

/* The run's settings and its shared tally (the workers get them as
 * arguments). */
static struct config cfg;
static char dir[128];
static int procs, ops, phases;
static struct tally *t;

/* The double's calls of unit (NULL: any). */
static void read_calls_of(const char *unit, struct calls *c)
{
	char *log, *line, *save;
	char last = 0;

	memset(c, 0, sizeof(*c));
	c->alternates = 1;
	log = tu_double_log(dir);
	for (line = strtok_r(log, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *sp = strchr(line, ' ');

		if (unit && (!sp || strncmp(sp + 1, unit, strlen(unit)) || sp[1 + strlen(unit)] != ' '))
			continue;
		c->calls++;
		if (!strncmp(line, "start ", 6)) {
			c->starts++;
			if (!strstr(line, " count=1 "))
				c->bad_count++;
			if (last == 's')
				c->alternates = 0;
			last = 's';
		} else if (!strncmp(line, "stop ", 5)) {
			c->stops++;
			if (!strstr(line, " count=0 "))
				c->bad_count++;
			if (last != 's')
				c->alternates = 0;
			last = 'p';
		}
		if (!strstr(line, "locked=yes"))
			c->unlocked++;
	}
	free(log);
}

/* procs workers, all through the phases, from 50 ms from now. */
static void run_workers(void)
{
	long long t0 = now_ms() + 50;
	int i, status;

	for (i = 0; i < procs; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			worker(&cfg, i, ops, phases, procs, t0, t);
			_exit(0);
		}
	}
	for (i = 0; i < procs; i++)
		wait(&status);
}

/* Arguments, else $TEST_STRESS_PROCS, else the defaults. */
static void setup(int argc, char **argv)
{
	procs = argc > 1 ? atoi(argv[1]) :
		getenv("TEST_STRESS_PROCS") ? atoi(getenv("TEST_STRESS_PROCS")) : 32;
	ops = argc > 2 ? atoi(argv[2]) : 6;
	phases = argc > 3 ? atoi(argv[3]) : 12;
	t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	snprintf(dir, sizeof(dir), "%s", tu_scratch());
	tu_double(&cfg, dir, "ok");
	cfg.lock_timeout = 60;
	memset(t, 0, sizeof(*t));
}

static void read_calls(struct calls *c)
{
	read_calls_of(NULL, c);
}

static void test_random_waves(void)
{
	struct calls c;
	char *s;

	tap_diag("%d processes x %d phases x %d random operations, then releases",
		 procs, phases, ops);
	run_workers();
	read_calls(&c);
	tap_diag("%d systemctl calls: %d starts, %d stops", c.calls, c.starts, c.stops);
	ok(t->failed == 0, "no update failed (%d)", t->failed);
	ok(c.starts > 1, "the set went idle->busy several times (%d)", c.starts);
	ok(c.alternates, "starts and stops strictly alternate, first a start");
	ok(c.bad_count == 0, "every start saw count 1 and every stop count 0 (%d wrong)", c.bad_count);
	ok(c.unlocked == 0, "every call ran under the state lock (%d did not)", c.unlocked);
	ok(c.starts == t->starts && c.stops == t->stops,
	   "calls match the transitions the hooks reported (%d/%d, %d/%d)",
	   c.starts, t->starts, c.stops, t->stops);
	ok(c.starts == c.stops, "as many stops as starts");
	s = tu_slurp(cfg.state);
	ok(s && !strcmp(s, "0\n"), "state empty at the end");
	free(s);
}

/* The same with probe sets, each job asking for random ones: for each
 * set's instance on its own, starts and stops alternate, each start saw
 * its set's count 1 (the double counts the jobs holding that set) and
 * each stop 0. */
static void test_random_sets(void)
{
	static const char *const units[] = { "ebpf_exporter@io.service", "ebpf_exporter@sched.service",
					     "ebpf_exporter@net.service" };
	char path[200], log[300];
	struct calls c;
	int u, bad = 0, starts = 0, stops = 0, unlocked = 0;
	char *s;

	snprintf(path, sizeof(path), "%s/sets.conf", dir);
	s = "unit = ebpf_exporter@.service\ndefault = io\n"
	    "[io]\ndescription = a\nconfigs = a\nlisten = :941\n"
	    "[sched]\ndescription = b\nconfigs = b\nlisten = :942\n"
	    "[net]\ndescription = c\nconfigs = c\nlisten = :943\n";
	tu_write(path, s, strlen(s));
	snprintf(cfg.sets, sizeof(cfg.sets), "%s", path);
	snprintf(log, sizeof(log), "%s/bin/calls.log", dir);
	unlink(log);
	memset(t, 0, sizeof(*t));
	tap_diag("with probe sets: %d processes x %d phases x %d random operations", procs, phases, ops);
	run_workers();
	ok(t->failed == 0, "probe sets: no update failed (%d)", t->failed);
	for (u = 0; u < 3; u++) {
		read_calls_of(units[u], &c);
		tap_diag("%s: %d starts, %d stops", units[u], c.starts, c.stops);
		if (!c.alternates || c.bad_count || c.starts != c.stops || c.starts < 2)
			bad++;
		starts += c.starts;
		stops += c.stops;
		unlocked += c.unlocked;
	}
	ok(bad == 0, "each set's instance: starts and stops alternate, count 1 at each start and 0 at each stop, as many of each, several cycles");
	ok(unlocked == 0, "every call ran under the state lock (%d did not)", unlocked);
	/* A hook that starts two sets reports EV_STARTED once. */
	ok(starts >= t->starts && stops >= t->stops && t->starts > 0 && t->stops > 0,
	   "the hooks reported starts and stops, at most as many as the calls (%d/%d, %d/%d)",
	   t->starts, starts, t->stops, stops);
	s = tu_slurp(cfg.state);
	ok(s && !strcmp(s, "0\n"), "state empty at the end");
	free(s);
}

int main(int argc, char **argv)
{
	setup(argc, argv);
	test_random_waves();
	test_random_sets();
	return tap_done();
}
