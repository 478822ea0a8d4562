/* The counters file: text form both ways, damaged and hostile input, and
 * updates that only ever happen on transitions. One function per case;
 * those under the hooks start from fresh(): no state, no counters. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hold.h"
#include "stats.h"
#include "tap.h"
#include "testutil.h"

static struct config cfg;
static char dir[128], stats_path[600];

/* starts 3, and last_stop_ms at its largest. */
static void sample_stats(struct stats *st)
{
	memset(st, 0, sizeof(*st));
	st->v[STAT_STARTS] = 3;
	st->v[STAT_LAST_STOP_MS] = 18446744073709551615ull;
}

/* No state, no counters file, the double answering "ok", no logs. */
static void fresh(void)
{
	unlink(cfg.state);
	unlink(stats_path);
	tu_double_set(dir, "ok");
	tu_clear_logs();
}

static void setup(void)
{
	tu_capture_logs();
	snprintf(dir, sizeof(dir), "%s", tu_scratch());
	tu_double(&cfg, dir, "ok");
	snprintf(stats_path, sizeof(stats_path), "%s.stats", cfg.state);
}

static void test_format_and_parse_back(void)
{
	struct stats st, back;
	char buf[2048];

	sample_stats(&st);
	ok(stats_format(&st, buf, sizeof(buf)) > 0 && strstr(buf, "starts 3\n") &&
	   strstr(buf, "last_stop_ms 18446744073709551615\n"), "format");
	ok(stats_parse(&back, buf, strlen(buf)) == 0 && !memcmp(&st, &back, sizeof(st)),
	   "parse(format(x)) == x");
}

/* What the parser does with lines it cannot use: unknown names and a
 * missing last newline are fine, damaged lines are counted and skipped. */
static void test_imperfect_input(void)
{
	const char *unknown = "starts 2\nfuture_counter 9\nstops 1";
	const char *damaged = "starts -1\nstops x\n 5\nstarts\nstarts 99999999999999999999\nrestarts 4\n";
	struct stats back;

	ok(stats_parse(&back, unknown, strlen(unknown)) == 0 &&
	   back.v[STAT_STARTS] == 2 && back.v[STAT_STOPS] == 1,
	   "unknown names ignored, missing last newline fine");
	ok(stats_parse(&back, damaged, strlen(damaged)) == 5 &&
	   back.v[STAT_STARTS] == 0 && back.v[STAT_RESTARTS] == 4,
	   "damaged lines counted and skipped, the good one kept");
	ok(stats_parse(&back, "starts 1\0stops 2\n", 17) == 1, "a NUL inside a line: damaged");
}

static void test_buffer_too_small(void)
{
	struct stats st;
	char buf[2048];

	sample_stats(&st);
	ok(stats_format(&st, buf, 10) == 0, "a buffer too small: refused, not truncated");
}

/* Under the hooks: transitions count, joins and leaves do not touch it. */
static void test_start_counted(void)
{
	char *s;
	int ev;

	fresh();
	hold_update(&cfg, 1, HOLD_ACQUIRE, &ev);
	s = tu_slurp(stats_path);
	ok(s && strstr(s, "starts 1\n") && strstr(s, "start_failures 0\n"), "first job: a start counted");
	free(s);
}

/* Job 1 holds the unit; job 2 joins and leaves. */
static void test_join_and_leave_not_counted(void)
{
	struct stat a, b;
	int ev;

	fresh();
	hold_update(&cfg, 1, HOLD_ACQUIRE, &ev);
	stat(stats_path, &a);
	hold_update(&cfg, 2, HOLD_ACQUIRE, &ev);
	hold_update(&cfg, 2, HOLD_RELEASE, &ev);
	stat(stats_path, &b);
	ok(a.st_ino == b.st_ino && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec,
	   "a join and a leave of a busy set leave the counters file alone");
}

/* Job 1 holds the unit, then leaves with systemctl failing. */
static void test_failed_stop_counted(void)
{
	char *s;
	int ev;

	fresh();
	hold_update(&cfg, 1, HOLD_ACQUIRE, &ev);
	tu_double_set(dir, "fail");
	hold_update(&cfg, 1, HOLD_RELEASE, &ev);
	s = tu_slurp(stats_path);
	ok(s && strstr(s, "stops 1\n") && strstr(s, "stop_failures 1\n"), "a failed stop: counted as both");
	free(s);
}

/* A hostile counters file: refused like a hostile state, jobs go on. */
static void test_symlinked_counters_refused(void)
{
	int ev;

	fresh();
	ok(symlink("/etc/passwd", stats_path) == 0, "counters file replaced by a symlink");
	ok(hold_update(&cfg, 3, HOLD_ACQUIRE, &ev) == 0 && (ev & EV_STARTED) &&
	   tu_logged("is a symbolic link"), "the job still starts the unit; the symlink is refused: logged");
	unlink(stats_path);
}

/* Job 3 holds the unit; its counters file is damaged before it leaves. */
static void test_damaged_counters_rewritten(void)
{
	char *s;
	int ev;

	fresh();
	hold_update(&cfg, 3, HOLD_ACQUIRE, &ev);
	unlink(stats_path);
	tu_write(stats_path, "starts 5\ngarbage here\n", 22);
	tu_clear_logs();
	hold_update(&cfg, 3, HOLD_RELEASE, &ev);
	s = tu_slurp(stats_path);
	ok(tu_logged("has damaged lines") && s && strstr(s, "starts 5\n") && strstr(s, "stops 1\n") &&
	   !strstr(s, "garbage"), "damaged counters: said, rewritten from what was readable");
	free(s);
}

int main(void)
{
	setup();
	test_format_and_parse_back();
	test_imperfect_input();
	test_buffer_too_small();
	test_start_counted();
	test_join_and_leave_not_counted();
	test_failed_stop_counted();
	test_symlinked_counters_refused();
	test_damaged_counters_rewritten();
	return tap_done();
}
