/* The core logic against the recording systemctl double: transitions,
 * idempotence, epilog without prolog, requeue, failing and hanging
 * systemctl, a unit that died, damaged states. One function per case;
 * each starts from fresh(): no state, no calls logged, no log lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hold.h"
#include "unit.h"
#include "tap.h"
#include "testutil.h"

static struct config cfg;
static char dir[128];

/* How many times NEEDLE stands in S (a call log: how many such calls). */
static int occurrences(const char *s, const char *needle)
{
	int n = 0;

	while ((s = strstr(s, needle))) {
		n++;
		s += strlen(needle);
	}
	return n;
}

/* The hook's update of the state, as a face makes it: the events or -1. */
static int update(uint32_t job, enum hold_op op)
{
	return tu_hold(&cfg, job, op);
}

/* No state, the double's call log empty and BEHAVIOUR its behaviour, no
 * log lines. */
static void fresh(const char *behaviour)
{
	char p[600];

	unlink(cfg.state);
	snprintf(p, sizeof(p), "%s/bin/calls.log", dir);
	unlink(p);
	tu_double_set(dir, behaviour);
	tu_clear_logs();
}

/* dir/cgroup/system.slice, made if missing: the double makes a unit's
 * cgroup on start only when it is there. */
static const char *make_system_slice(void)
{
	static char slice[300];

	snprintf(slice, sizeof(slice), "%s/cgroup/system.slice", dir);
	mkdir(cfg.cgroup_root, 0755);
	mkdir(slice, 0755);
	return slice;
}

/* From now on the double's systemctl is-active answers "inactive". */
static void systemd_says_inactive(void)
{
	char p[600];

	snprintf(p, sizeof(p), "%s/bin/active", dir);
	unlink(p);
}

static void setup(void)
{
	tu_capture_logs();
	snprintf(dir, sizeof(dir), "%s", tu_scratch());
	tu_double(&cfg, dir, "ok");
}

/* Two overlapping jobs: 0 -> 1 -> 2 -> 1 -> 0, one start, one stop. */
static void test_two_overlapping_jobs(void)
{
	char *log;

	fresh("ok");
	ok(update(101, HOLD_ACQUIRE) == (EV_CHANGED | EV_STARTED), "first prolog starts the unit");
	ok(tu_state_is(&cfg, "1\n101\n"), "state shows 1");
	ok(tu_logged("info: spank_ebpf: prolog job 101: refcount now 1") &&
	   tu_logged("info: spank_ebpf: prolog job 101: starting ebpf_exporter\n"),
	   "logs \"refcount now 1\" and \"starting ebpf_exporter\"");
	ok(tu_logged("info: spank_ebpf: prolog job 101: ebpf_exporter started in ") &&
	   strstr(tu_logs(), "starting ebpf_exporter\n") <
	   strstr(tu_logs(), "ebpf_exporter started in "),
	   "then logs how long the start took, after it");
	ok(update(102, HOLD_ACQUIRE) == EV_CHANGED, "second prolog joins, no call");
	ok(tu_state_is(&cfg, "2\n101\n102\n"), "state shows 2");
	ok(update(101, HOLD_RELEASE) == EV_CHANGED, "first epilog leaves, no call");
	ok(tu_state_is(&cfg, "1\n102\n"), "state back to 1");
	tu_clear_logs();
	ok(update(102, HOLD_RELEASE) == (EV_CHANGED | EV_STOPPED), "last epilog stops");
	ok(tu_logged("refcount now 0") && tu_logged("stopping ebpf_exporter\n"),
	   "logs \"refcount now 0\" and \"stopping ebpf_exporter\"");
	ok(tu_logged("info: spank_ebpf: epilog job 102: ebpf_exporter stopped in "),
	   "and how long the stop took");
	ok(tu_state_is(&cfg, "0\n"), "state empty");
	log = tu_double_log(dir);
	ok(!strcmp(log,
		   "start ebpf_exporter.service count=1 locked=yes\n"
		   "stop ebpf_exporter.service count=0 locked=yes\n"),
	   "double saw exactly: start (count 1, under lock), stop (count 0, under lock)");
	free(log);
}

/* Epilog without prolog never touches another job's hold. */
static void test_epilog_without_prolog(void)
{
	fresh("ok");
	update(201, HOLD_ACQUIRE);
	ok(update(999, HOLD_RELEASE) == 0, "epilog of a job that never ran its prolog: no-op");
	ok(tu_logged("epilog job 999: the job holds no reference"), "... and says so");
	ok(tu_state_is(&cfg, "1\n201\n"), "the running job keeps its hold");
}

/* Repeated prolog / epilog, and requeue (same ID again), from job 201
 * holding the unit (started). */
static void test_repeated_hooks_and_requeue(void)
{
	char *log;

	fresh("ok");
	update(201, HOLD_ACQUIRE);
	ok(update(201, HOLD_ACQUIRE) == 0 && tu_logged("prolog job 201: the job already holds"),
	   "repeated prolog: no change");
	ok(update(201, HOLD_RELEASE) == (EV_CHANGED | EV_STOPPED), "epilog stops");
	ok(update(201, HOLD_RELEASE) == 0, "repeated epilog: no change, no second stop");
	ok(update(201, HOLD_ACQUIRE) == (EV_CHANGED | EV_STARTED), "requeued job: prolog again starts");
	ok(update(201, HOLD_RELEASE) == (EV_CHANGED | EV_STOPPED), "requeued job: epilog stops");
	log = tu_double_log(dir);
	ok(occurrences(log, "start ") == 2 && occurrences(log, "stop ") == 2,
	   "two starts, two stops in all");
	free(log);
}

/* A failing systemctl: logged with the cause, the state still moves. */
static void test_failing_systemctl(void)
{
	fresh("fail");
	ok(update(301, HOLD_ACQUIRE) == (EV_CHANGED | EV_STARTED | EV_UNIT_FAILED),
	   "failed start reported, hold recorded");
	ok(tu_logged("error: spank_ebpf: prolog job 301: failed to start ebpf_exporter.service:") &&
	   tu_logged("exited with status 1"), "error names the unit and the exit status");
	ok(tu_logged("systemctl: Job for ebpf_exporter.service failed"),
	   "systemctl's own message is in the log");
	ok(!tu_logged("started in"), "no \"started in\" line for a failed start");
	ok(update(301, HOLD_RELEASE) == (EV_CHANGED | EV_STOPPED | EV_UNIT_FAILED), "failed stop reported");
}

/* A hanging systemctl: killed at timeout=, the hook goes on. */
static void test_hanging_systemctl(void)
{
	struct timespec a, b;
	int ev;

	fresh("hang");
	cfg.timeout = 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	ev = update(401, HOLD_ACQUIRE);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ok(ev == (EV_CHANGED | EV_STARTED | EV_UNIT_FAILED), "hanging start reported");
	ok(tu_logged("timed out after 1 s and was killed"), "error says it timed out");
	ok(b.tv_sec - a.tv_sec < 20, "returned at the timeout, not after the double's 300 s");
	cfg.timeout = TU_TIMEOUT;
}

static void test_missing_systemctl(void)
{
	fresh("ok");
	snprintf(cfg.systemctl, sizeof(cfg.systemctl), "%s/bin/no-such-systemctl", dir);
	ok(update(501, HOLD_ACQUIRE) == (EV_CHANGED | EV_STARTED | EV_UNIT_FAILED) &&
	   tu_logged("could not be executed: No such file or directory"),
	   "missing systemctl: clear error");
	snprintf(cfg.systemctl, sizeof(cfg.systemctl), "%s/bin/systemctl", dir);
}

/* A state that cannot be used: nothing called, error, hook goes on. */
static void test_unusable_state(void)
{
	char *log;

	fresh("ok");
	if (symlink("/etc/hostname", cfg.state) < 0)
		return;
	ok(update(601, HOLD_ACQUIRE) < 0, "unusable state: update refused");
	log = tu_double_log(dir);
	ok(!strcmp(log, ""), "... and systemctl not called");
	free(log);
	unlink(cfg.state);
}

/* The unit died under its jobs: the next join notices and restarts it;
 * while it runs, joins call nothing. */
static void test_unit_died_restarted(void)
{
	char unitdir[400], *log;

	fresh("ok");
	snprintf(unitdir, sizeof(unitdir), "%s/ebpf_exporter.service", make_system_slice());
	ok(update(701, HOLD_ACQUIRE) == (EV_CHANGED | EV_STARTED) &&
	   access(unitdir, F_OK) == 0, "start creates the unit's cgroup (double)");
	ok(update(702, HOLD_ACQUIRE) == EV_CHANGED, "join while it runs: no call");
	/* The exporter crashed: its cgroup is gone, systemd says inactive. */
	rmdir(unitdir);
	systemd_says_inactive();
	tu_clear_logs();
	ok(update(703, HOLD_ACQUIRE) == (EV_CHANGED | EV_STARTED | EV_RESTARTED),
	   "join after the unit died: started again");
	ok(tu_logged("ebpf_exporter.service is not running although 2 other jobs hold it; starting it again"),
	   "... and says so");
	ok(update(701, HOLD_RELEASE) == EV_CHANGED && update(702, HOLD_RELEASE) == EV_CHANGED,
	   "leaves of a busy set: no call");
	ok(update(703, HOLD_RELEASE) == (EV_CHANGED | EV_STOPPED) &&
	   access(unitdir, F_OK) < 0, "last leave stops it");
	log = tu_double_log(dir);
	ok(occurrences(log, "start ") == 2 && occurrences(log, "stop ") == 1 &&
	   occurrences(log, "is-active ") == 1,
	   "calls: start, is-active (the cgroup was gone: systemd asked), start again, stop");
	free(log);
}

/* A template instance lives in its own slice: a join finds it there and
 * neither asks systemd nor restarts it. */
static void test_template_unit(void)
{
	char unitdir[400], *log;

	fresh("ok");
	snprintf(unitdir, sizeof(unitdir), "%s/system-ebpf\\x2dexporter.slice/ebpf-exporter@gpu.service",
		 make_system_slice());
	snprintf(cfg.unit, sizeof(cfg.unit), "ebpf-exporter@gpu.service");
	ok(update(801, HOLD_ACQUIRE) == (EV_CHANGED | EV_STARTED),
	   "template unit: first job starts it");
	ok(access(unitdir, F_OK) == 0, "... its cgroup is in system-ebpf\\x2dexporter.slice");
	ok(update(802, HOLD_ACQUIRE) == EV_CHANGED, "template unit: a join calls nothing");
	ok(!tu_logged("is not running although"), "... and does not call it dead");
	update(801, HOLD_RELEASE);
	ok(update(802, HOLD_RELEASE) == (EV_CHANGED | EV_STOPPED), "... the last job stops it");
	log = tu_double_log(dir);
	ok(!strcmp(log, "start ebpf-exporter@gpu.service count=1 locked=yes\n"
			"stop ebpf-exporter@gpu.service count=0 locked=yes\n"),
	   "template unit: one start, one stop, no other call");
	free(log);
	snprintf(cfg.unit, sizeof(cfg.unit), "ebpf_exporter.service");
}

/* A unit in a slice of its own (Slice=): the cheap look cannot tell,
 * systemd is asked, and only its answer counts. */
static void test_unit_in_own_slice(void)
{
	char p[600], custom[400], *log;

	fresh("ok");
	make_system_slice();
	snprintf(p, sizeof(p), "%s/bin/slice", dir);
	tu_write(p, "monitoring.slice", 16);
	snprintf(custom, sizeof(custom), "%s/cgroup/monitoring.slice", dir);
	mkdir(custom, 0755);
	update(901, HOLD_ACQUIRE);
	tu_clear_logs();
	ok(update(902, HOLD_ACQUIRE) == EV_CHANGED && !tu_logged("is not running"),
	   "unit in its own slice, running: a join asks systemd, which says active: no restart");
	systemd_says_inactive();
	ok(update(903, HOLD_ACQUIRE) == (EV_CHANGED | EV_STARTED | EV_RESTARTED),
	   "... after it died, systemd says inactive: started again");
	/* systemctl cannot answer: no action on a guess. */
	systemd_says_inactive();
	tu_double_set(dir, "hang");
	cfg.timeout = 1;
	tu_clear_logs();
	ok(update(904, HOLD_ACQUIRE) == EV_CHANGED &&
	   tu_logged("cannot tell whether ebpf_exporter.service runs (") &&
	   tu_logged("timed out after 1 s"),
	   "... systemd does not answer: nothing started, and it says why");
	cfg.timeout = TU_TIMEOUT;
	tu_double_set(dir, "ok");
	update(901, HOLD_RELEASE);
	update(902, HOLD_RELEASE);
	update(903, HOLD_RELEASE);
	update(904, HOLD_RELEASE);
	unlink(p);
	log = tu_double_log(dir);
	ok(occurrences(log, "is-active ") == 3 && occurrences(log, "start ") == 2 &&
	   occurrences(log, "stop ") == 1,
	   "calls: start, is-active x3, one restart, stop");
	free(log);
	rmdir(custom);
}

/* After the three cases above: their stops removed every cgroup their
 * starts made, and only the slices they made themselves are left. */
static void test_cgroup_tree_gone(void)
{
	char slice[300], template_slice[400];

	snprintf(slice, sizeof(slice), "%s/cgroup/system.slice", dir);
	snprintf(template_slice, sizeof(template_slice), "%s/system-ebpf\\x2dexporter.slice", slice);
	rmdir(template_slice);
	ok(rmdir(slice) == 0, "the test's cgroup tree is gone again");
}

/* unit_cgroup_memo_begin/end (what a hook does around its hold): the
 * hierarchy is looked for once, and looked for again after the end. */
static void test_cgroup_memo(void)
{
	char path[600], unitdir[400];
	const char *slice;

	snprintf(unitdir, sizeof(unitdir), "%s/cgroup/system.slice/memo.service", dir);
	unit_cgroup_memo_begin();
	ok(unit_cgroup(&cfg, "memo.service", path, sizeof(path)) == -1,
	   "memo: no systemd tree (no system.slice)");
	slice = make_system_slice();
	mkdir(unitdir, 0755);
	ok(unit_cgroup(&cfg, "memo.service", path, sizeof(path)) == -1,
	   "memo: a tree made under the hook is not looked for again");
	unit_cgroup_memo_end();
	ok(unit_cgroup(&cfg, "memo.service", path, sizeof(path)) == 1 && !strcmp(path, unitdir),
	   "memo ended: looked for at every call again (the unit's cgroup found)");
	unit_cgroup_memo_begin();
	ok(unit_cgroup(&cfg, "memo.service", path, sizeof(path)) == 1,
	   "memo begun again: looked for afresh (found)");
	rmdir(unitdir);
	ok(unit_cgroup(&cfg, "memo.service", path, sizeof(path)) == 0,
	   "memo: the unit's own cgroup is still looked at each time (gone: 0)");
	unit_cgroup_memo_end();
	ok(rmdir(slice) == 0, "memo: the test's cgroup tree is gone again");
}

/* A state of a newer form: no hold taken or dropped, nothing started or
 * stopped, the file kept for the release that wrote it. */
static void test_newer_state_refused(void)
{
	static const char text[] = "spank_ebpf state 3\n55 io\n";
	char *log;

	fresh("ok");
	tu_write(cfg.state, text, sizeof(text) - 1);
	ok(update(56, HOLD_ACQUIRE) < 0 && update(55, HOLD_RELEASE) < 0,
	   "newer state: prolog and epilog refused");
	ok(tu_logged("was written by a newer release of the plugin"), "... in words");
	ok(tu_state_is(&cfg, text), "... the file left as it is");
	log = tu_double_log(dir);
	ok(!strcmp(log, ""), "... and systemctl not called");
	free(log);
}

/* A damaged file is salvaged, then used. */
static void test_damaged_state_salvaged(void)
{
	fresh("ok");
	tu_write(cfg.state, "7\n55\nbogus\n", 11);
	ok(update(56, HOLD_ACQUIRE) == EV_CHANGED, "damaged state with a live job: join, no start");
	ok(tu_state_is(&cfg, "2\n55\n56\n"), "salvaged job kept, file rewritten clean");
}

/* start=background: systemd is asked to start the unit without waiting;
 * the stop still waits (systemd's queue orders it after a start still
 * running). A start that fails later is found by the next join, which
 * asks systemd and starts it again. */
static void test_start_background(void)
{
	const char *slice;
	char p[600], *s;

	fresh("ok");
	cfg.start = START_BACKGROUND;
	slice = make_system_slice();
	ok(update(1001, HOLD_ACQUIRE) == (EV_CHANGED | EV_STARTED), "start=background: first job starts");
	ok(tu_logged("info: spank_ebpf: prolog job 1001: ebpf_exporter start queued in ") &&
	   tu_logged("(start=background: the job does not wait for it)"),
	   "... and says the start was only queued");
	s = tu_double_log(dir);
	ok(!strcmp(s, "start --no-block ebpf_exporter.service count=1 locked=yes\n"),
	   "... systemctl start --no-block, under the lock: %s", s);
	free(s);
	/* It failed in the background: no cgroup, systemd says failed. */
	systemd_says_inactive();
	snprintf(p, sizeof(p), "%s/ebpf_exporter.service", slice);
	ok(rmdir(p) == 0, "(the double had made its cgroup)");
	tu_clear_logs();
	ok(update(1002, HOLD_ACQUIRE) == (EV_CHANGED | EV_STARTED | EV_RESTARTED) &&
	   tu_logged("is not running although 1 other job holds it"),
	   "a start that failed in the background: the next join notices and starts it again");
	update(1001, HOLD_RELEASE);
	ok(update(1002, HOLD_RELEASE) == (EV_CHANGED | EV_STOPPED), "the last job stops it");
	s = tu_double_log(dir);
	ok(strstr(s, "\nstop ebpf_exporter.service count=0 locked=yes\n") != NULL, "... with a plain (waiting) stop: %s", s);
	free(s);
	cfg.start = START_WAIT;
	ok(rmdir(slice) == 0, "the test's cgroup tree is gone again");
}

/* A damaged file whose update changes nothing (an epilog of a job that
 * holds nothing) must not wedge the state: the next job still gets
 * through, and so does every one after it. */
static void test_damaged_state_not_wedged(void)
{
	char p[600], *s;
	int ev;

	fresh("ok");
	tu_write(cfg.state, "2\n5\n", 4);
	ok(update(7, HOLD_RELEASE) == EV_CHANGED,
	   "damaged state, epilog of a job holding nothing: no transition, file rewritten clean");
	ev = update(8, HOLD_ACQUIRE);
	ok(ev == EV_CHANGED, "next prolog goes through (events %d)", ev);
	ok(!tu_logged("hard links"), "no hard-link refusal");
	ok(tu_state_is(&cfg, "2\n5\n8\n"), "state holds the salvaged job and the new one");
	ok(occurrences(tu_logs(), "is damaged") == 1, "the damage is reported once");
	snprintf(p, sizeof(p), "%s.corrupt", cfg.state);
	s = tu_slurp(p);
	ok(s && !strcmp(s, "2\n5\n"), "the damaged bytes are kept in .corrupt");
	free(s);
	ok(update(5, HOLD_RELEASE) == EV_CHANGED && update(8, HOLD_RELEASE) == (EV_CHANGED | EV_STOPPED),
	   "and later jobs leave normally");
}

int main(void)
{
	setup();
	test_two_overlapping_jobs();
	test_epilog_without_prolog();
	test_repeated_hooks_and_requeue();
	test_failing_systemctl();
	test_hanging_systemctl();
	test_missing_systemctl();
	test_unusable_state();
	test_unit_died_restarted();
	test_template_unit();
	test_unit_in_own_slice();
	test_cgroup_tree_gone();
	test_cgroup_memo();
	test_damaged_state_salvaged();
	test_newer_state_refused();
	test_start_background();
	test_damaged_state_not_wedged();
	return tap_done();
}
