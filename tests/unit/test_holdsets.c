/* Holds with probe sets: each set's instance starts with its first holder
 * and stops with its last, whatever other sets other jobs hold; a running
 * instance is never restarted for another set; requests as the option
 * gives them (plain, SET,SET, unknown names, mode=always); a set's own
 * linger; a state of the release before sets (an upgrade under running
 * jobs); the sets file unreadable; a set no longer declared. One function
 * per case, each from fresh(). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hold.h"
#include "linger.h"
#include "log.h"
#include "stats.h"
#include "tap.h"
#include "testutil.h"

static struct config cfg;
static char dir[128], sets_path[200];

static const char sets_text[] =
	"unit = ebpf_exporter@.service\n"
	"default = io\n"
	"always = sched\n"
	"[io]\ndescription = Block I/O\nconfigs = a\nlisten = 127.0.0.1:941\nlinger = 30\n"
	"[sched]\ndescription = Run queue\nconfigs = b\nlisten = 127.0.0.1:942\n"
	"[net]\ndescription = TCP\nconfigs = c\nlisten = 127.0.0.1:943\n";

/* The double's calls since fresh(), without the lock and count fields:
 * "start ebpf_exporter@io.service count=1" and so on, one per line. */
static char *calls(void)
{
	char *log = tu_double_log(dir), *p;

	for (p = log; (p = strstr(p, " locked=")); )
		memmove(p, strchr(p, '\n') ? strchr(p, '\n') : p + strlen(p),
			strlen(strchr(p, '\n') ? strchr(p, '\n') : p + strlen(p)) + 1);
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

static void write_sets(const char *text)
{
	tu_write(sets_path, text, strlen(text));
	chmod(sets_path, 0644);
}

/* No job, no window, no counters; the double's log empty; the sets file
 * as declared above; mode opt-in. */
static void fresh(void)
{
	char cmd[1400];

	snprintf(cmd, sizeof(cmd), "rm -f '%s' '%s'.linger* '%s'.stats* '%s'.units '%s/bin/calls.log' '%s/bin/active'",
		 cfg.state, cfg.state, cfg.state, cfg.state, dir, dir);
	if (system(cmd) != 0)
		tap_diag("%s failed", cmd);
	write_sets(sets_text);
	cfg.mode = MODE_OPT_IN;
	tu_double_set(dir, "ok");
	tu_clear_logs();
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

static void setup(void)
{
	char p[300];

	tu_sets_scratch(&cfg, dir, sets_path);
	cfg.linger = 0;
	/* systemd's tree as the double keeps it: template instances under
	 * system.slice/system-ebpf_exporter.slice/. */
	snprintf(p, sizeof(p), "%s/cgroup", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/cgroup/system.slice", dir);
	mkdir(p, 0755);
	snprintf(cfg.admin_cmd, sizeof(cfg.admin_cmd), "/x/sbin/spank-ebpf");
}

/* A job asking io,sched overlapping a job asking sched: sched starts once
 * and stops once, io only around the first job. */
static void test_overlap(void)
{
	fresh();
	ok(acquire(1, "io,sched") == (EV_CHANGED | EV_STARTED), "job 1 (io,sched): both start");
	ok(acquire(2, "sched") == EV_CHANGED, "job 2 (sched) joins a running sched: no call");
	ok(release(1) == (EV_CHANGED | EV_LINGERING), "job 1 leaves: io lingers (its linger=30), sched stays");
	ok(release(2) == (EV_CHANGED | EV_STOPPED), "job 2 leaves: sched stops (no linger of its own)");
	ok(calls_are("start ebpf_exporter@io.service count=1\n"
		     "start ebpf_exporter@sched.service count=1\n"
		     "stop ebpf_exporter@sched.service count=0\n"),
	   "one start each, sched's one stop, each under its own count");
	ok(tu_logged("epilog job 1: keeping ebpf_exporter@io for 30 s"), "io's window is io's");
	ok(tu_logged("prolog job 2: refcount now 2; sched 2"), "the refcount line names each set's holders");
}

/* A running instance is never restarted because another job asked for
 * another set; a job adding a set (a second step's --ebpf=net) starts
 * only that one. */
static void test_no_restart_for_other_sets(void)
{
	fresh();
	cfg.linger = 0;
	acquire(1, "sched");
	ok(acquire(2, "net") == (EV_CHANGED | EV_STARTED) && acquire(3, "sched,net") == EV_CHANGED,
	   "jobs asking net, then sched,net: net started once, nothing else");
	ok(acquire(1, "net") == EV_CHANGED, "job 1 adds net (a step's --ebpf=net): joins, no call");
	ok(acquire(1, "sched") == 0 && tu_logged("prolog job 1: the job already holds sched; refcount stays 3"),
	   "job 1 asking sched again: nothing, said");
	ok(calls_are("start ebpf_exporter@sched.service count=1\nstart ebpf_exporter@net.service count=1\n"),
	   "two starts in all, no restart");
	release(1);
	release(2);
	release(3);
}

static void test_requests(void)
{
	fresh();
	ok(acquire(5, NULL) == (EV_CHANGED | EV_STARTED) && acquire(6, "(null)") == EV_CHANGED &&
	   acquire(7, "") == EV_CHANGED, "plain --ebpf, however it arrives: the default set (io)");
	ok(calls_are("start ebpf_exporter@io.service count=1\n"), "... io started once");
	ok(acquire(8, "iox,net") == 0 &&
	   tu_logged("prolog job 8: unknown probe set \"iox\"; allowed: io, sched, net: not held"),
	   "an unknown set beside a known one: nothing held, as sbatch refuses it, the name said");
	ok(calls_are("start ebpf_exporter@io.service count=1\n"), "... net was not started");
	tu_clear_logs();
	ok(acquire(9, "bogus") == 0 && tu_logged("unknown probe set \"bogus\"") && !tu_logged("refcount"),
	   "only unknown sets: nothing held");
	ok(acquire(11, "net,") == 0 && acquire(12, ",net") == 0 && acquire(13, "net,,sched") == 0 &&
	   tu_logged("prolog job 13: an empty probe set name (a stray comma); allowed: io, sched, net: not held") &&
	   !tu_logged("refcount"), "empty names (net, / ,net / net,,sched): nothing held, said");
	ok(!hold_is_held(&cfg, 8) && !hold_is_held(&cfg, 11) && !hold_is_held(&cfg, 12) &&
	   !hold_is_held(&cfg, 13), "the state names none of the refused jobs");
	cfg.mode = MODE_ALWAYS;
	log_set_context("prolog job 10");
	{
		int ev = 0;

		ok(hold_acquire(&cfg, 10, NULL, true, &ev) == 0 && ev == (EV_CHANGED | EV_STARTED),
		   "mode=always, no --ebpf: the always= set (sched) started");
	}
	ok(calls_are("start ebpf_exporter@io.service count=1\nstart ebpf_exporter@sched.service count=1\n"),
	   "io, sched: each once; net never (only refused requests named it)");
	cfg.mode = MODE_OPT_IN;
	release(5);
	release(6);
	release(7);
	release(8);
	release(10);
}

/* Counters per set, beside the state. */
static void test_counters_per_set(void)
{
	struct statefile sf;
	struct stats io, sched, plain;

	fresh();
	acquire(1, "io,sched");
	release(1);
	memset(&io, 0xff, sizeof(io));
	if (statefile_open(&sf, cfg.state) == 0) {
		stats_load_of(&sf, ".io", &io);
		stats_load_of(&sf, ".sched", &sched);
		stats_load(&sf, &plain);
	}
	statefile_close(&sf);
	ok(io.v[STAT_STARTS] == 1 && io.v[STAT_STOPS] == 0 && sched.v[STAT_STARTS] == 1 &&
	   sched.v[STAT_STOPS] == 1 && plain.v[STAT_STARTS] == 0,
	   "starts and stops counted in <state>.stats.io and .stats.sched, none in .stats");
}

/* The state a release before sets wrote, under a running job, read by
 * this one with sets declared: the job's epilog releases unit= itself. */
static void test_upgrade_under_running_job(void)
{
	char *s;

	fresh();
	tu_write(cfg.state, "1\n77\n", 5);
	ok(acquire(78, "io") == (EV_CHANGED | EV_STARTED), "a job asking io beside the old job 77");
	s = tu_state_text(&cfg);
	ok(s && !strcmp(s, "spank_ebpf state 2\n77 -\n78 io\n"), "the state: 77 holds unit= (\"-\"), 78 io: %s", s);
	free(s);
	ok(release(77) == (EV_CHANGED | EV_STOPPED), "the old job's epilog: unit= stopped");
	ok(calls_are("start ebpf_exporter@io.service count=1\nstop ebpf_exporter.service count=0\n"),
	   "its unit was unit= itself, the io instance untouched");
	ok(release(78) == (EV_CHANGED | EV_LINGERING), "the new job's epilog: io lingers");
}

static void test_sets_file_unreadable(void)
{
	fresh();
	acquire(1, "sched");
	chmod(sets_path, 0666);
	tu_clear_logs();
	ok(acquire(2, "sched") == -1 && tu_logged("refusing the probe sets file") &&
	   tu_logged("without its probe sets the job holds nothing"),
	   "a sets file others may write: the prolog holds nothing, says why");
	ok(release(1) == (EV_CHANGED | EV_STOPPED), "... the epilog still releases");
	ok(calls_are("start ebpf_exporter@sched.service count=1\nstop ebpf_exporter@sched.service count=0\n"),
	   "... stopping the instance it started (the custom template's), not the default's");
}

/* The plugin's line loses sets= while a job holds a set of a custom
 * template: its epilog stops the instance started, by its exact name. */
static void test_sets_switched_off(void)
{
	char saved[sizeof(cfg.sets)];

	fresh();
	acquire(1, "sched");
	memcpy(saved, cfg.sets, sizeof(saved));
	cfg.sets[0] = '\0';
	ok(release(1) == (EV_CHANGED | EV_STOPPED), "sets= gone: the epilog still releases the job");
	memcpy(cfg.sets, saved, sizeof(saved));
	ok(calls_are("start ebpf_exporter@sched.service count=1\nstop ebpf_exporter@sched.service count=0\n"),
	   "... and stops ebpf_exporter@sched, the unit started");
}

/* The sets file's template changed under a running job: the old
 * instance, the one started, is stopped. */
static void test_template_changed(void)
{
	char units[300], *text;
	struct stat st;

	fresh();
	acquire(1, "sched");
	snprintf(units, sizeof(units), "%s.units", cfg.state);
	text = tu_slurp(units);
	ok(text && strstr(text, "sched ebpf_exporter@sched.service\n") && stat(units, &st) == 0 &&
		   (st.st_mode & 0777) == 0600,
	   "the start noted in <state>.units, root's alone: %s", text ? text : "(none)");
	free(text);
	write_sets("unit = other@.service\ndefault = sched\n"
		   "[sched]\ndescription = Run queue\nconfigs = b\nlisten = 127.0.0.1:942\n");
	ok(release(1) == (EV_CHANGED | EV_STOPPED) &&
	   calls_are("start ebpf_exporter@sched.service count=1\nstop ebpf_exporter@sched.service count=0\n"),
	   "unit= changed to other@: the epilog stops ebpf_exporter@sched all the same");
	ok(access(units, F_OK) < 0, "stopped: nothing noted any more");
}

/* io lingers (its linger=30) when sets= goes: the window's end, as
 * linger-end runs it without the sets file, stops ebpf_exporter@io. */
static void test_linger_end_sets_off(void)
{
	char saved[sizeof(cfg.sets)], p[300];
	struct target t;

	fresh();
	acquire(1, "io");
	ok(release(1) == (EV_CHANGED | EV_LINGERING), "job 1 leaves: io lingers");
	memcpy(saved, cfg.sets, sizeof(saved));
	cfg.sets[0] = '\0';
	snprintf(p, sizeof(p), "%s.linger.io", cfg.state);
	tu_write(p, "end 1\n", 6);
	target_of(&cfg, NULL, "io", &t);
	log_set_context("linger-end");
	ok(linger_end(&cfg, NULL, &t) == 0 &&
	   calls_are("start ebpf_exporter@io.service count=1\nstop ebpf_exporter@io.service count=0\n"),
	   "sets= gone, the window over: ebpf_exporter@io, the unit started, stopped");
	memcpy(cfg.sets, saved, sizeof(saved));
}

/* A set's unit the plugin never noted (started by hand, or before the
 * notes existed) is not a job's epilog to stop: reconcile's. */
static void test_never_noted_left_alone(void)
{
	fresh();
	tu_write(cfg.state, "spank_ebpf state 2\n5 sched\n", 27);
	ok(release(5) == EV_CHANGED && calls_are(""),
	   "job 5 held sched, no start noted: released, nothing stopped");
	ok(tu_logged("set sched: no unit noted as started for it; left for spank-ebpf reconcile"),
	   "... said");
}

/* A set removed from the file while jobs hold it: its instance is still
 * stopped by its last holder. */
static void test_set_no_longer_declared(void)
{
	fresh();
	acquire(1, "net");
	write_sets("unit = ebpf_exporter@.service\ndefault = io\n"
		   "[io]\ndescription = Block I/O\nconfigs = a\nlisten = 127.0.0.1:941\n");
	ok(release(1) == (EV_CHANGED | EV_STOPPED) &&
	   calls_are("start ebpf_exporter@net.service count=1\nstop ebpf_exporter@net.service count=0\n"),
	   "net removed from the file: its last holder still stops its instance");
}

int main(void)
{
	setup();
	test_overlap();
	test_no_restart_for_other_sets();
	test_requests();
	test_counters_per_set();
	test_upgrade_under_running_job();
	test_sets_file_unreadable();
	test_set_no_longer_declared();
	test_sets_switched_off();
	test_template_changed();
	test_never_noted_left_alone();
	test_linger_end_sets_off();
	return tap_done();
}
