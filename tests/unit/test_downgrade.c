/* spank-ebpf downgrade-prepare's core (downgrade.h): the state converted
 * for the release before probe sets (0b57a39), which reads only form 1
 * ("<count>\n<id>\n..."): every hold kept (a job's sets become unit=),
 * the sets' instances stopped (held or lingering), unit= started when only
 * sets were held, the marker left and honoured, --cancel; a node without
 * state; a failing stop. One function per case, each from fresh(). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "downgrade.h"
#include "hold.h"
#include "log.h"
#include "tap.h"
#include "testutil.h"

static struct config cfg;
static char dir[128], sets_path[200], marker[700];

static const char sets_text[] =
	"unit = ebpf_exporter@.service\n"
	"default = io\n"
	"[io]\ndescription = Block I/O\nconfigs = a\nlisten = 127.0.0.1:941\nlinger = 30\n"
	"[sched]\ndescription = Run queue\nconfigs = b\nlisten = 127.0.0.1:942\n";

/* The double's starts and stops, "<verb> <unit>" one a line (its
 * is-active answers left out), and forgets them. */
static char *calls(void)
{
	char *log = tu_double_log(dir), *p, *q, path[300];

	for (p = log; (p = strstr(p, " count=")); ) {
		q = strchr(p, '\n');
		memmove(p, q ? q : p + strlen(p), strlen(q ? q : p + strlen(p)) + 1);
	}
	for (p = log; *p; ) {
		q = strchr(p, '\n');
		q = q ? q + 1 : p + strlen(p);
		if (!strncmp(p, "is-active ", 10))
			memmove(p, q, strlen(q) + 1);
		else
			p = q;
	}
	snprintf(path, sizeof(path), "%s/bin/calls.log", dir);
	unlink(path);
	return log;
}

static int calls_are(const char *want)
{
	char *got = calls();
	int same = !strcmp(got, want);

	if (!same)
		tap_diag("calls: %s", got);
	free(got);
	return same;
}

static int state_is(const char *want)
{
	char *got = tu_state_text(&cfg);
	int same = got && !strcmp(got, want);

	if (!same)
		tap_diag("state: %s", got ? got : "(null)");
	free(got);
	return same;
}

/* What 0b57a39's jobset_parse accepts without complaint: a count on line
 * 1, then exactly that many lines of one decimal job ID each (1 ..
 * 0xfffffffd), no duplicates, a final newline. */
static int old_release_reads(const char *text)
{
	unsigned long long count = 0, lines = 0, prev = 0;
	const char *p = text;
	char *end;

	if (!*text || text[strlen(text) - 1] != '\n' || !isdigit((unsigned char)*p))
		return 0;
	count = strtoull(p, &end, 10);
	if (*end != '\n')
		return 0;
	for (p = end + 1; *p; p = end + 1, lines++) {
		unsigned long long v;

		if (!isdigit((unsigned char)*p))
			return 0;
		v = strtoull(p, &end, 10);
		if (*end != '\n' || v < 1 || v > 0xfffffffdull || v <= prev)
			return 0;
		prev = v;
	}
	return count == lines;
}

static int acquire(uint32_t job, const char *value)
{
	int ev = 0;

	log_set_context("prolog job %u", job);
	return hold_acquire(&cfg, job, value, false, &ev) < 0 ? -1 : ev;
}

static int release(uint32_t job)
{
	int ev = 0;

	log_set_context("epilog job %u", job);
	return hold_release(&cfg, job, &ev) < 0 ? -1 : ev;
}

static int prepare(struct downgrade_report *rep)
{
	log_set_context("downgrade-prepare");
	return downgrade_prepare(&cfg, rep);
}

static void fresh(void)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), "rm -f '%s' '%s'.linger* '%s'.stats* '%s'.jobs '%s'.sets-off '%s'.units '%s/bin/calls.log' '%s/bin/active'; rm -rf '%s/bin/active.d'",
		 cfg.state, cfg.state, cfg.state, cfg.state, cfg.state, cfg.state, dir, dir, dir);
	if (system(cmd) != 0)
		tap_diag("%s failed", cmd);
	tu_write(sets_path, sets_text, strlen(sets_text));
	chmod(sets_path, 0644);
	tu_double_set(dir, "ok");
	tu_clear_logs();
}

static void setup(void)
{
	char p[300];

	tu_sets_scratch(&cfg, dir, sets_path);
	cfg.linger = 0;
	snprintf(p, sizeof(p), "%s/cgroup", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/cgroup/system.slice", dir);
	mkdir(p, 0755);
	snprintf(cfg.admin_cmd, sizeof(cfg.admin_cmd), "/x/sbin/spank-ebpf");
	snprintf(marker, sizeof(marker), "%s%s", cfg.state, DOWNGRADE_MARKER);
}

/* Job 77 holds unit= (it came from the older release, an upgrade under
 * it), 78 io, 79 io and sched: all three hold unit= in the older
 * release's form, both instances stop, unit= runs on (77 held it). */
static void test_mixed(void)
{
	struct downgrade_report rep;
	char *m, want[400];

	fresh();
	tu_write(cfg.state, "1\n77\n", 5);
	acquire(78, "io");
	acquire(79, "io,sched");
	ok(state_is("spank_ebpf state 2\n77 -\n78 io\n79 io,sched\n"), "before: 77 unit=, 78 io, 79 io,sched");
	free(calls());
	ok(prepare(&rep) == 0, "downgrade-prepare succeeds");
	ok(state_is("3\n77\n78\n79\n"), "the state in the older release's form: all three jobs kept");
	{
		char *s = tu_state_text(&cfg);

		ok(s && old_release_reads(s), "... which 0b57a39's parser reads cleanly");
		free(s);
	}
	ok(calls_are("stop ebpf_exporter@io.service\nstop ebpf_exporter@sched.service\n"),
	   "both set instances stopped, exactly the state's units; unit= untouched");
	ok(rep.jobs == 3 && rep.kept == 3 && rep.switched_off == 2 && !rep.started[0],
	   "the report: 3 jobs, 3 kept, 2 switched off, unit= not started (it ran for 77)");
	ok(rep.nstopped == 2 && !strcmp(rep.stopped[0], "ebpf_exporter@io.service") &&
	   !strcmp(rep.stopped[1], "ebpf_exporter@sched.service") && rep.nfailed == 0,
	   "... names the two instances it stopped");
	ok(rep.shown[0] == 78 && rep.shown[1] == 79, "... and the jobs switched off");
	m = tu_slurp(marker);
	snprintf(want, sizeof(want), "spank_ebpf sets-off\nsets %s\n78\n79\n", sets_path);
	ok(m && !strcmp(m, want) && rep.marker, "the marker names the sets file and the jobs switched off");
	free(m);
	ok(release(78) == EV_CHANGED && release(79) == EV_CHANGED && calls_are(""),
	   "jobs 78 and 79 end (this release, a cancelled downgrade): unit= kept for 77");
	ok(release(77) == (EV_CHANGED | EV_STOPPED) && calls_are("stop ebpf_exporter.service\n"),
	   "job 77's epilog: unit= stops after its last holder");
}

/* Only jobs holding sets: they hold unit= now, which starts for them. */
static void test_sets_only(void)
{
	struct downgrade_report rep;

	fresh();
	acquire(5, "sched");
	free(calls());
	ok(prepare(&rep) == 0 && state_is("1\n5\n"), "sets only: job 5 holds unit= in the old form");
	ok(old_release_reads("1\n5\n") && old_release_reads("0\n"), "... which 0b57a39's parser reads (so is an empty one)");
	ok(calls_are("stop ebpf_exporter@sched.service\nstart ebpf_exporter.service\n"),
	   "... sched stopped, unit= started for it");
	ok(!strcmp(rep.started, "ebpf_exporter.service") && !rep.start_failed, "... and the report says so");
	ok(release(5) == (EV_CHANGED | EV_STOPPED) && calls_are("stop ebpf_exporter.service\n"),
	   "job 5's epilog stops unit=");
}

/* An instance lingering after its last job (io's linger=30) would run
 * forever under the older release: stopped too, its window forgotten. */
static void test_lingering_instance(void)
{
	struct downgrade_report rep;
	char p[700];
	struct stat st;

	fresh();
	acquire(1, "io");
	ok(release(1) == (EV_CHANGED | EV_LINGERING), "io lingers after job 1");
	free(calls());
	ok(prepare(&rep) == 0 && calls_are("stop ebpf_exporter@io.service\n"),
	   "downgrade-prepare stops the lingering io instance");
	snprintf(p, sizeof(p), "%s.linger.io", cfg.state);
	ok(stat(p, &st) < 0, "... and forgets its window");
	ok(rep.switched_off == 0 && rep.jobs == 0 && rep.nstopped == 1, "... no job switched off");
}

/* With the marker, this release gives a job switched off no sets again
 * (a cancelled downgrade: its filters and record are gone); other jobs
 * get theirs; --cancel removes it. */
static void test_marker_and_cancel(void)
{
	struct downgrade_report rep;
	struct stat st;

	fresh();
	acquire(78, "io");
	prepare(&rep);
	free(calls());
	tu_clear_logs();
	ok(acquire(78, "io") == 0 && state_is("1\n78\n") && calls_are(""),
	   "marker: job 78 asking again (its prolog re-run) gets no set, keeps unit=");
	ok(tu_logged("its probe sets were switched off for a downgrade"), "... and the log says why");
	ok(acquire(80, "io") == (EV_CHANGED | EV_STARTED), "another job still gets its sets");
	release(80);
	free(calls());
	log_set_context("downgrade-prepare --cancel");
	ok(downgrade_cancel(&cfg, &rep) == 0 && rep.marker && stat(marker, &st) < 0,
	   "--cancel removes the marker");
	ok(downgrade_cancel(&cfg, &rep) == 0 && !rep.marker, "... a second --cancel finds none");
	ok(acquire(78, "io") > 0 && state_is("spank_ebpf state 2\n78 -,io\n"), "without it, job 78 may hold io again");
}

/* Run twice (a retried downgrade): the marker keeps the first run's jobs. */
static void test_twice(void)
{
	struct downgrade_report rep;
	char *m, want[400];

	fresh();
	acquire(78, "io");
	prepare(&rep);
	ok(prepare(&rep) == 0 && rep.switched_off == 0 && state_is("1\n78\n"), "a second run: nothing more to switch off");
	m = tu_slurp(marker);
	snprintf(want, sizeof(want), "spank_ebpf sets-off\nsets %s\n78\n", sets_path);
	ok(m && !strcmp(m, want), "... the marker still names job 78");
	free(m);
}

/* A stop that fails: reported, non-zero; the state is converted anyway. */
static void test_stop_fails(void)
{
	struct downgrade_report rep;
	int rc;

	fresh();
	acquire(78, "io");
	tu_double_set(dir, "fail-actions");
	rc = prepare(&rep);
	ok(rc == 1 && rep.nfailed == 1 && rep.nstopped == 1 && state_is("1\n78\n") && rep.start_failed,
	   "a failing stop (and start): 1 (run it again), the state converted (rc %d, %d of %d failed)",
	   rc, rep.nfailed, rep.nstopped);
}

/* No state directory (a submit host): nothing to do, success. */
static void test_no_state(void)
{
	struct downgrade_report rep;
	struct config c = cfg;

	snprintf(c.state, sizeof(c.state), "%s/nonexistent/state", dir);
	ok(downgrade_prepare(&c, &rep) == 0 && rep.no_state, "no state directory: nothing to prepare");
}

/* Without sets= on the line (the admin removed it first, as the older
 * release needs): the state's sets stop by the unit noted as started
 * (<state>.units), else by the default template's names. */
static void test_line_without_sets(void)
{
	struct downgrade_report rep;
	struct config c = cfg;
	char p[700];

	fresh();
	acquire(78, "io");
	free(calls());
	c.sets[0] = '\0';
	ok(downgrade_prepare(&c, &rep) == 0 && state_is("1\n78\n") &&
	   calls_are("stop ebpf_exporter@io.service\nstart ebpf_exporter.service\n"),
	   "sets= removed first: the held set stops by the unit noted as started");
	fresh();
	acquire(78, "io");
	free(calls());
	snprintf(p, sizeof(p), "%s.units", cfg.state);
	unlink(p);
	ok(downgrade_prepare(&c, &rep) == 0 && state_is("1\n78\n") &&
	   calls_are("stop spank-ebpf-exporter@io.service\nstart ebpf_exporter.service\n"),
	   "... none noted (started before the notes): by the default template's name");
}

/* A first run with sets= on the line, then sets= taken off it (the older
 * release refuses it) while a job took sched in between: the second run
 * stops sched's own instance, through the sets file the marker names. */
static void test_second_run_without_sets(void)
{
	struct downgrade_report rep;
	struct config c = cfg;

	fresh();
	acquire(78, "io");
	prepare(&rep);
	acquire(79, "sched");
	free(calls());
	c.sets[0] = '\0';
	ok(downgrade_prepare(&c, &rep) == 0 && state_is("2\n78\n79\n") &&
	   calls_are("stop ebpf_exporter@sched.service\n"),
	   "sets= off the line after a first run: sched's own instance stopped (the marker's sets file)");
}

int main(void)
{
	setup();
	test_mixed();
	test_sets_only();
	test_lingering_instance();
	test_marker_and_cancel();
	test_twice();
	test_stop_fails();
	test_no_state();
	test_line_without_sets();
	test_second_run_without_sets();
	return tap_done();
}
