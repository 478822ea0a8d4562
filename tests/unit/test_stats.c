/* The counters file: text form both ways, damaged and hostile input, and
 * updates that only ever happen on transitions. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hold.h"
#include "stats.h"
#include "tap.h"
#include "testutil.h"

int main(void)
{
	struct stats st, back;
	struct config cfg;
	char buf[2048], p[600], *s;
	char dir[128];
	int ev;

	memset(&st, 0, sizeof(st));
	st.v[STAT_STARTS] = 3;
	st.v[STAT_LAST_STOP_MS] = 18446744073709551615ull;
	ok(stats_format(&st, buf, sizeof(buf)) > 0 && strstr(buf, "starts 3\n") &&
	   strstr(buf, "last_stop_ms 18446744073709551615\n"), "format");
	ok(stats_parse(&back, buf, strlen(buf)) == 0 && !memcmp(&st, &back, sizeof(st)),
	   "parse(format(x)) == x");
	s = "starts 2\nfuture_counter 9\nstops 1";
	ok(stats_parse(&back, s, strlen(s)) == 0 &&
	   back.v[STAT_STARTS] == 2 && back.v[STAT_STOPS] == 1,
	   "unknown names ignored, missing last newline fine");
	s = "starts -1\nstops x\n 5\nstarts\nstarts 99999999999999999999\nrestarts 4\n";
	ok(stats_parse(&back, s, strlen(s)) == 5 &&
	   back.v[STAT_STARTS] == 0 && back.v[STAT_RESTARTS] == 4,
	   "damaged lines counted and skipped, the good one kept");
	ok(stats_parse(&back, "starts 1\0stops 2\n", 17) == 1, "a NUL inside a line: damaged");
	ok(stats_format(&st, buf, 10) == 0, "a buffer too small: refused, not truncated");

	/* Under the hooks: transitions count, joins and leaves do not touch it. */
	tu_capture_logs();
	snprintf(dir, sizeof(dir), "%s", tu_scratch());
	tu_double(&cfg, dir, "ok");
	snprintf(p, sizeof(p), "%s.stats", cfg.state);
	hold_update(&cfg, 1, HOLD_ACQUIRE, &ev);
	s = tu_slurp(p);
	ok(s && strstr(s, "starts 1\n") && strstr(s, "start_failures 0\n"), "first job: a start counted");
	free(s);
	{
		struct stat a, b;

		stat(p, &a);
		hold_update(&cfg, 2, HOLD_ACQUIRE, &ev);
		hold_update(&cfg, 2, HOLD_RELEASE, &ev);
		stat(p, &b);
		ok(a.st_ino == b.st_ino && a.st_mtim.tv_nsec == b.st_mtim.tv_nsec,
		   "a join and a leave of a busy set leave the counters file alone");
	}
	tu_double_set(dir, "fail");
	hold_update(&cfg, 1, HOLD_RELEASE, &ev);
	s = tu_slurp(p);
	ok(s && strstr(s, "stops 1\n") && strstr(s, "stop_failures 1\n"), "a failed stop: counted as both");
	free(s);

	/* A hostile counters file: refused like a hostile state, jobs go on. */
	tu_double_set(dir, "ok");
	unlink(p);
	ok(symlink("/etc/passwd", p) == 0, "counters file replaced by a symlink");
	tu_clear_logs();
	ok(hold_update(&cfg, 3, HOLD_ACQUIRE, &ev) == 0 && (ev & EV_STARTED) &&
	   tu_logged("is a symbolic link"), "the job still starts the unit; the symlink is refused: logged");
	unlink(p);
	tu_write(p, "starts 5\ngarbage here\n", 22);
	tu_clear_logs();
	hold_update(&cfg, 3, HOLD_RELEASE, &ev);
	s = tu_slurp(p);
	ok(tu_logged("has damaged lines") && s && strstr(s, "starts 5\n") && strstr(s, "stops 1\n") &&
	   !strstr(s, "garbage"), "damaged counters: said, rewritten from what was readable");
	free(s);
	return tap_done();
}
