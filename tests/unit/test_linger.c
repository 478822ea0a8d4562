/* linger=SECONDS: the window after the last job, its end by the one timer
 * the plugin arms (systemd-run beside systemctl), a job joining inside
 * it, a stream of short jobs, a timer lost, a window file damaged or
 * forged, a timer that cannot be armed, a unit stopped by hand, reconcile
 * as the backstop, joins racing the window's end, readers racing its
 * writes. One function per case; each starts from no job, no window. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hold.h"
#include "linger.h"
#include "log.h"
#include "reconcile.h"
#include "tap.h"
#include "testutil.h"

static struct config cfg;
static char dir[128];

static void path_of(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "%s/bin/%s", dir, name);
}

static char *run_log(void)
{
	char p[700], *s;

	path_of(p, sizeof(p), "systemd-run.log");
	s = tu_slurp(p);
	return s ? s : strdup("");
}

static int run_calls(void)
{
	char *s = run_log(), *p;
	int n = 0;

	for (p = s; (p = strchr(p, '\n')); p++)
		n++;
	free(s);
	return n;
}

static void bin_file(const char *name, const char *text)
{
	char p[700];

	path_of(p, sizeof(p), name);
	if (text)
		tu_write(p, text, strlen(text));
	else
		unlink(p);
}

static int active(void)
{
	char p[700];

	path_of(p, sizeof(p), "active");
	return access(p, F_OK) == 0;
}

static char *window_text(void)
{
	char p[700];

	snprintf(p, sizeof(p), "%s.linger", cfg.state);
	return tu_slurp(p);
}

static void window_set(const char *text)
{
	char p[700];

	snprintf(p, sizeof(p), "%s.linger", cfg.state);
	tu_write(p, text, strlen(text));
}

/* The window's end long past, its timer record kept. */
static void expire_window(void)
{
	char *s = window_text(), *t = s ? strstr(s, "timer ") : NULL, buf[300];

	snprintf(buf, sizeof(buf), "end 1\n%s", t ? t : "");
	window_set(buf);
	free(s);
}

/* The transient timers vanish, as if stopped by hand or lost. */
static void lose_timers(void)
{
	char cmd[800];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s/bin/timers'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "# %s failed\n", cmd);
}

static int window_open(void)
{
	char *s = window_text();
	int open = s && strncmp(s, "end 0\n", 6) != 0;

	free(s);
	return open;
}

static long long boot_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (long long)ts.tv_sec;
}

static int update(uint32_t job, enum hold_op op)
{
	return tu_hold(&cfg, job, op);
}

/* The one target without probe sets: unit= itself. */
static struct target unit_target(void)
{
	struct target t;

	target_of(&cfg, NULL, JOBSET_LEGACY, &t);
	return t;
}

/* The timer's run, as spank-ebpf linger-end makes it. */
static int end_window(void)
{
	struct target t = unit_target();

	log_set_context("linger-end");
	return linger_end(&cfg, NULL, &t);
}

/* The recorded timer comes due now (its time passed), and runs. */
static int fire_timer(void)
{
	char *s = window_text(), *t = s ? strstr(s, "timer ") : NULL, *sp, buf[300];

	if (t && (sp = strrchr(t, ' '))) {
		*sp = '\0';
		snprintf(buf, sizeof(buf), "%.*s%s %lld\n", (int)(t - s), s, t, boot_now());
		window_set(buf);
	}
	free(s);
	return end_window();
}

/* Back to no job, no window, the unit stopped, the doubles' logs empty. */
static void reset(void)
{
	char p[700];

	end_window();
	unlink(cfg.state);
	snprintf(p, sizeof(p), "%s.linger", cfg.state);
	unlink(p);
	bin_file("active", NULL);
	bin_file("systemd-run.log", NULL);
	bin_file("calls.log", NULL);
	bin_file("systemd-run.behaviour", NULL);
	tu_clear_logs();
}

static void setup(void)
{
	char *argv[8], err[512], src[700], dst[700], tmo[32], ltmo[32];
	struct config plain;

	tu_capture_logs();
	snprintf(dir, sizeof(dir), "%s", tu_scratch());
	tu_double(&plain, dir, "ok");
	/* The configuration as the plugin parses it: its arguments are what
	 * the timer passes back to spank-ebpf linger-end. */
	snprintf(src, sizeof(src), "systemctl=%s", plain.systemctl);
	snprintf(dst, sizeof(dst), "state=%s", plain.state);
	argv[0] = src;
	argv[1] = dst;
	/* The doubles answer at once; a busy machine may still take seconds. */
	snprintf(tmo, sizeof(tmo), "timeout=%d", TU_TIMEOUT);
	snprintf(ltmo, sizeof(ltmo), "lock_timeout=%d", TU_LOCK_TIMEOUT);
	argv[2] = tmo;
	argv[3] = ltmo;
	argv[4] = "linger=30";
	ok(config_parse(&cfg, 5, argv, err, sizeof(err)) == 0 && cfg.linger == 30, "linger=30 accepted");
	snprintf(cfg.cgroup_root, sizeof(cfg.cgroup_root), "%s", plain.cgroup_root);
	snprintf(cfg.admin_cmd, sizeof(cfg.admin_cmd), "/x/sbin/spank-ebpf");
	tu_systemd_run(dir);
	snprintf(src, sizeof(src), "%s/cgroup", dir);
	mkdir(src, 0755);
	snprintf(src, sizeof(src), "%s/cgroup/system.slice", dir);
	mkdir(src, 0755);
	ok(config_parse(&plain, 1, (char *[]){ "linger=86401" }, err, sizeof(err)) < 0 &&
	   strstr(err, "linger must be a whole number of seconds from 0 to 86400"), "linger=86401 refused: %s", err);
}

static void test_window_opens(void)
{
	char want[900], *log;

	ok(update(1, HOLD_ACQUIRE) == (EV_CHANGED | EV_STARTED), "first job starts the unit");
	ok(update(1, HOLD_RELEASE) == (EV_CHANGED | EV_LINGERING), "last job leaves: a window opens, no stop");
	ok(tu_logged("info: spank_ebpf: epilog job 1: keeping ebpf_exporter for 30 s"), "... and says so");
	ok(active() && window_open(), "... the unit still runs, the window is recorded");
	log = run_log();
	/* Every setting, canonical (the unit with its suffix, the defaults
	 * spelled out), whatever the plugstack line left out. */
	snprintf(want, sizeof(want), " --on-active=30 --timer-property=AccuracySec=1s -- /x/sbin/spank-ebpf linger-end "
		 "mode=opt-in unit=ebpf_exporter.service state=%s systemctl=%s timeout=%d lock_timeout=%d start=wait linger=30\n",
		 cfg.state, cfg.systemctl, TU_TIMEOUT, TU_LOCK_TIMEOUT);
	ok(strstr(log, "--quiet --collect --unit=spank-ebpf-linger-ebpf_exporter-") && strstr(log, want),
	   "the timer runs spank-ebpf linger-end with the plugin's settings: %s", log);
	free(log);
	reset();
}

static void test_join_inside(void)
{
	update(1, HOLD_ACQUIRE);
	update(1, HOLD_RELEASE);
	tu_clear_logs();
	ok(update(2, HOLD_ACQUIRE) == (EV_CHANGED | EV_KEPT), "a job joins inside the window: kept");
	ok(tu_logged("prolog job 2: joined within the linger window: ebpf_exporter.service keeps running") &&
	   !window_open(), "... says so; the window is closed");
	ok(fire_timer() == 0 && active() && tu_logged("a job joined, the exporter stays"),
	   "the window's timer fires: the job holds it, nothing stopped");
	ok(update(2, HOLD_RELEASE) == (EV_CHANGED | EV_LINGERING) && run_calls() == 2,
	   "the job leaves: a window, and a timer (the last one fired)");
	reset();
}

/* Short jobs one after another: each last job opens a window, but one
 * timer is pending at any time (PID 1 is not handed one per window). */
static void test_stream_one_timer(void)
{
	uint32_t j;
	int ev_ok = 1;

	for (j = 10; j < 30; j++) {
		ev_ok &= update(j, HOLD_ACQUIRE) == (EV_CHANGED | (j == 10 ? EV_STARTED : EV_KEPT));
		ev_ok &= update(j, HOLD_RELEASE) == (EV_CHANGED | EV_LINGERING);
	}
	ok(ev_ok && active(), "20 short jobs in a row: one start, a window after each");
	ok(run_calls() == 1, "... and one timer armed in all (%d systemd-run calls)", run_calls());
	tu_clear_logs();
	ok(fire_timer() == 0 && active() && tu_logged("linger window moved on by a later job"),
	   "the timer fires inside the window the later jobs moved on: nothing stopped");
	ok(run_calls() == 2, "... and it arms the one timer for what is left (%d calls)", run_calls());
	expire_window();
	ok(end_window() == 0 && !active() && !window_text(), "that timer's run at the end: stopped, window gone");
	ok(run_calls() == 2, "... no timer armed after the end");
	reset();
}

static void test_end_with_no_job(void)
{
	char *s;

	update(1, HOLD_ACQUIRE);
	update(1, HOLD_RELEASE);
	expire_window();
	tu_clear_logs();
	ok(end_window() == 0 && !active() && !window_text(), "the window's end: stopped, window gone");
	ok(tu_logged("info: spank_ebpf: linger-end: stopping ebpf_exporter after 30 s without jobs"), "... and says so");
	tu_clear_logs();
	ok(end_window() == 0 && tu_logged("already closed"), "a second timer for it: nothing to do");
	s = tu_double_log(dir);
	ok(!strcmp(s, "start ebpf_exporter.service count=1 locked=yes\n"
		      "stop ebpf_exporter.service count=0 locked=yes\n"),
	   "one start, one stop in all: %s", s);
	free(s);
	reset();
}

static void test_stopped_by_hand(void)
{
	char p[700];

	update(3, HOLD_ACQUIRE);
	update(3, HOLD_RELEASE);
	bin_file("active", NULL);
	snprintf(p, sizeof(p), "%s/cgroup/system.slice/ebpf_exporter.service", dir);
	rmdir(p);
	ok(update(4, HOLD_ACQUIRE) == (EV_CHANGED | EV_STARTED) && active(),
	   "unit stopped by hand in the window: the next job starts it");
	update(4, HOLD_RELEASE);
	reset();
}

/* Reconcile: a live window with its timer is left alone; a lost timer is
 * replaced; an expired window (its timer lost) is closed. */
static void test_reconcile_backstop(void)
{
	struct slurm_ask ask;
	struct reconcile_report rep;
	int rc;

	tu_squeue(&ask, dir, "ok", "");
	update(4, HOLD_ACQUIRE);
	update(4, HOLD_RELEASE);
	/* Run first: ok()'s arguments are evaluated in no fixed order. */
	rc = reconcile_run(&cfg, &ask, false, &rep);
	ok(rc == 0 && rep.unit_events == 0 && active() && rep.linger_left > 0 && run_calls() == 1,
	   "reconcile inside a window, its timer there: left running (%ld s left)", rep.linger_left);
	lose_timers();
	tu_clear_logs();
	rc = reconcile_run(&cfg, &ask, false, &rep);
	ok(rc == 0 && active() && run_calls() == 2 && tu_logged("is gone (systemd says inactive): arming another"),
	   "reconcile: the recorded timer is gone: another armed");
	expire_window();
	ok(reconcile_run(&cfg, &ask, false, &rep) == 0 && (rep.unit_events & EV_STOPPED) &&
	   !active() && !window_text(), "reconcile after the window's end: window closed, unit stopped");
	reset();
}

static void test_cannot_arm(void)
{
	update(5, HOLD_ACQUIRE);
	bin_file("systemd-run.behaviour", "fail");
	tu_clear_logs();
	ok(update(5, HOLD_RELEASE) == (EV_CHANGED | EV_STOPPED) && !active() && !window_text(),
	   "systemd-run fails: stopped at once, no window left");
	ok(tu_logged("cannot arm the linger timer:") && tu_logged("exited with status 1"),
	   "... and says why");
	reset();
}

/* A window file whose end is a day away (damaged, or written by someone
 * else): the window lasts at most linger= from now. */
static void test_forged_window(void)
{
	struct target t = unit_target();
	struct statefile sf;
	char text[64];
	long left = -2;

	update(6, HOLD_ACQUIRE);
	update(6, HOLD_RELEASE);
	snprintf(text, sizeof(text), "end %lld\n", boot_now() + 86400);
	window_set(text);
	tu_clear_logs();
	if (statefile_open(&sf, cfg.state) == 0)
		left = linger_left(&sf, &t);
	statefile_close(&sf);
	ok(left >= 0 && left <= 30, "a window ending in a day: capped at linger=30 (%ld s left)", left);
	ok(tu_logged("ends in 8640") && tu_logged("beyond linger=30: capped"), "... and says so");
	window_set("end 12x\n");
	tu_clear_logs();
	if (statefile_open(&sf, cfg.state) == 0)
		left = linger_left(&sf, &t);
	statefile_close(&sf);
	ok(left == 0 && tu_logged("is damaged: treated as expired"), "a damaged window file: expired, said");
	reset();
}

/* Joins racing the window's end, many times: whatever the order, a held
 * set has the unit running and an empty one has it stopped. */
static void test_joins_race_end(void)
{
	int i, bad = 0;
	char *s;

	for (i = 0; i < 60; i++) {
		pid_t a, b;

		update(100, HOLD_ACQUIRE);
		update(100, HOLD_RELEASE);
		expire_window();
		a = fork();
		if (a == 0)
			_exit(end_window() == 0 ? 0 : 1);
		b = fork();
		if (b == 0)
			_exit(update(200 + (uint32_t)i, HOLD_ACQUIRE) < 0);
		waitpid(a, NULL, 0);
		waitpid(b, NULL, 0);
		s = tu_slurp(cfg.state);
		if (!s || strncmp(s, "1\n", 2) != 0 || !active())
			bad++;
		free(s);
		update(200 + (uint32_t)i, HOLD_RELEASE);
		expire_window();
		end_window();
		if (active())
			bad++;
	}
	ok(bad == 0, "60 joins racing the window's end: the joined job always finds the unit running, and the last end stops it (%d bad)", bad);
	reset();
}

/* Is TEXT (len bytes) a whole window file? */
static int window_whole(const char *text, ssize_t len)
{
	long long end, due;
	char name[130];
	int used = 0;

	if (len <= 0 || text[len - 1] != '\n')
		return 0;
	if (sscanf(text, "end %lld\n%n", &end, &used) != 1 || !used)
		return 0;
	if (used == len)
		return 1;
	return sscanf(text + used, "timer %129s %lld\n", name, &due) == 2;
}

/* A reader (status, metrics, reconcile's dry run: no lock) racing the
 * window's writes never sees a torn or empty file: the file is replaced
 * by a rename, never written in place. */
static void test_readers_never_torn(void)
{
	char path[700], buf[300];
	int pipefd[2], i, torn = 0, reads = 0;
	time_t deadline = time(NULL) + 20;
	volatile int *seen;
	pid_t reader;

	snprintf(path, sizeof(path), "%s.linger", cfg.state);
	seen = mmap(NULL, sizeof(*seen), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (seen == MAP_FAILED || pipe(pipefd) < 0)
		return;
	*seen = 0;
	reader = fork();
	if (reader == 0) {
		char stopfile[760];
		int counts[2] = { 0, 0 };

		close(pipefd[0]);
		snprintf(stopfile, sizeof(stopfile), "%s.stop-reader", cfg.state);
		while (access(stopfile, F_OK) < 0 && getppid() != 1) {
			int fd = open(path, O_RDONLY);
			ssize_t n;

			if (fd < 0)
				continue;
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			buf[n > 0 ? n : 0] = '\0'; /* window_whole() scans it */
			counts[0]++;
			*seen = counts[0];
			if (!window_whole(buf, n))
				counts[1]++;
		}
		_exit(write(pipefd[1], counts, sizeof(counts)) == (ssize_t)sizeof(counts) ? 0 : 1);
	}
	close(pipefd[1]);
	update(300, HOLD_ACQUIRE);
	/* The reader must be reading while the windows are written: on a
	 * loaded machine it may not run before 800 writes are done (seen:
	 * 0 reads). So at least 400 rounds, then more until it has read 200
	 * times (it counts in a shared page), within 20 s. */
	for (i = 0; i < 400 || (*seen < 200 && time(NULL) < deadline); i++) {
		update(300, HOLD_RELEASE); /* opens the window: writes it */
		update(300, HOLD_ACQUIRE); /* closes it: writes it again */
	}
	{
		char stopfile[760];
		int counts[2] = { 0, 0 };

		snprintf(stopfile, sizeof(stopfile), "%s.stop-reader", cfg.state);
		tu_write(stopfile, "", 0);
		if (read(pipefd[0], counts, sizeof(counts)) == (ssize_t)sizeof(counts)) {
			reads = counts[0];
			torn = counts[1];
		}
		waitpid(reader, NULL, 0);
		unlink(stopfile);
	}
	close(pipefd[0]);
	munmap((void *)seen, sizeof(*seen));
	ok(reads > 100 && torn == 0,
	   "a reader racing %d window writes: %d reads, %d torn or empty", 2 * i, reads, torn);
	update(300, HOLD_RELEASE);
	reset();
}

int main(void)
{
	setup();
	test_window_opens();
	test_join_inside();
	test_stream_one_timer();
	test_end_with_no_job();
	test_stopped_by_hand();
	test_reconcile_backstop();
	test_cannot_arm();
	test_forged_window();
	test_joins_race_end();
	test_readers_never_torn();
	return tap_done();
}
