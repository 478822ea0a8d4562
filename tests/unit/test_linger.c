/* linger=SECONDS: the window after the last job, its end by the timer the
 * plugin arms (systemd-run beside systemctl), a job joining inside it, a
 * later window, a timer that cannot be armed, a unit stopped by hand,
 * reconcile as the backstop, and joins racing the window's end. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hold.h"
#include "linger.h"
#include "log.h"
#include "reconcile.h"
#include "tap.h"
#include "testutil.h"

static struct config cfg;
static char dir[128];

static char *run_log(void)
{
	char p[700], *s;

	snprintf(p, sizeof(p), "%s/bin/systemd-run.log", dir);
	s = tu_slurp(p);
	return s ? s : strdup("");
}

static void bin_file(const char *name, const char *text)
{
	char p[700];

	snprintf(p, sizeof(p), "%s/bin/%s", dir, name);
	if (text)
		tu_write(p, text, strlen(text));
	else
		unlink(p);
}

static int active(void)
{
	char p[700];

	snprintf(p, sizeof(p), "%s/bin/active", dir);
	return access(p, F_OK) == 0;
}

static void expire_window(void)
{
	char p[700];

	snprintf(p, sizeof(p), "%s.linger", cfg.state);
	tu_write(p, "end 1\n", 6); /* long past */
}

static int window_file(void)
{
	char p[700];

	snprintf(p, sizeof(p), "%s.linger", cfg.state);
	return access(p, F_OK) == 0;
}

static int update(uint32_t job, enum hold_op op)
{
	return tu_hold(&cfg, job, op);
}

/* The timer's run, as spank-ebpf linger-end makes it. */
static int end_window(void)
{
	log_set_context("linger-end");
	return linger_end(&cfg);
}

int main(void)
{
	char *argv[8], err[512], src[700], dst[700], *s, *log;
	struct config plain;
	int i, bad;

	tu_capture_logs();
	snprintf(dir, sizeof(dir), "%s", tu_scratch());
	tu_double(&plain, dir, "ok");
	/* The configuration as the plugin parses it: its arguments are what
	 * the timer passes back to spank-ebpf linger-end. */
	snprintf(src, sizeof(src), "systemctl=%s", plain.systemctl);
	snprintf(dst, sizeof(dst), "state=%s", plain.state);
	argv[0] = src;
	argv[1] = dst;
	argv[2] = "timeout=2";
	argv[3] = "lock_timeout=7";
	argv[4] = "linger=30";
	ok(config_parse(&cfg, 5, argv, err, sizeof(err)) == 0 && cfg.linger == 30, "linger=30 accepted");
	snprintf(cfg.cgroup_root, sizeof(cfg.cgroup_root), "%s", plain.cgroup_root);
	snprintf(cfg.admin_cmd, sizeof(cfg.admin_cmd), "/x/sbin/spank-ebpf");
	snprintf(src, sizeof(src), "%s", getenv("SYSTEMD_RUN_DOUBLE") ? getenv("SYSTEMD_RUN_DOUBLE") :
		 "tests/bin/systemd-run-double");
	s = tu_slurp(src);
	ok(s != NULL, "systemd-run double found (%s)", src);
	snprintf(dst, sizeof(dst), "%s/bin/systemd-run", dir);
	tu_write(dst, s ? s : "", s ? strlen(s) : 0);
	chmod(dst, 0755);
	free(s);
	snprintf(src, sizeof(src), "%s/cgroup", dir);
	mkdir(src, 0755);
	snprintf(src, sizeof(src), "%s/cgroup/system.slice", dir);
	mkdir(src, 0755);

	ok(config_parse(&plain, 1, (char *[]){ "linger=86401" }, err, sizeof(err)) < 0 &&
	   strstr(err, "linger must be a whole number of seconds from 0 to 86400"), "linger=86401 refused: %s", err);

	/* The last job leaves: a window, no stop, a timer armed. */
	ok(update(1, HOLD_ACQUIRE) == (EV_CHANGED | EV_STARTED), "first job starts the unit");
	ok(update(1, HOLD_RELEASE) == (EV_CHANGED | EV_LINGERING), "last job leaves: a window opens, no stop");
	ok(tu_logged("info: spank_ebpf: epilog job 1: keeping ebpf_exporter for 30 s"), "... and says so");
	ok(active() && window_file(), "... the unit still runs, the window is recorded");
	log = run_log();
	/* Every setting, canonical (the unit with its suffix, the defaults
	 * spelled out), whatever the plugstack line left out. */
	snprintf(src, sizeof(src), " --on-active=30 --timer-property=AccuracySec=1s -- /x/sbin/spank-ebpf linger-end "
		 "mode=opt-in unit=ebpf_exporter.service state=%s systemctl=%s timeout=2 lock_timeout=7 start=wait linger=30\n",
		 cfg.state, cfg.systemctl);
	ok(strstr(log, "--quiet --collect --unit=spank-ebpf-linger-1-") && strstr(log, src),
	   "the timer runs spank-ebpf linger-end with the plugin's settings: %s", log);
	free(log);

	/* A job inside the window: neither stop nor start. */
	tu_clear_logs();
	ok(update(2, HOLD_ACQUIRE) == (EV_CHANGED | EV_KEPT), "a job joins inside the window: kept");
	ok(tu_logged("prolog job 2: joined within the linger window: ebpf_exporter.service keeps running") &&
	   !window_file(), "... says so; the window is closed");
	ok(end_window() == 0 && active() && tu_logged("a job joined, the exporter stays"),
	   "the first window's timer fires: the job holds it, nothing stopped");

	/* Two windows: the earlier timer must not end the later one. */
	ok(update(2, HOLD_RELEASE) == (EV_CHANGED | EV_LINGERING), "second job leaves: a new window");
	tu_clear_logs();
	ok(end_window() == 0 && active() && tu_logged("linger window extended by a later job"),
	   "an earlier timer fires inside the later window: nothing stopped");

	/* The window ends with no job: stopped, once. */
	expire_window();
	tu_clear_logs();
	ok(end_window() == 0 && !active() && !window_file(), "the window's end: stopped, window gone");
	ok(tu_logged("info: spank_ebpf: linger-end: stopping ebpf_exporter after 30 s without jobs"), "... and says so");
	tu_clear_logs();
	ok(end_window() == 0 && tu_logged("already closed"), "a second timer for it: nothing to do");
	s = tu_double_log(dir);
	ok(!strcmp(s, "start ebpf_exporter.service count=1 locked=yes\n"
		      "stop ebpf_exporter.service count=0 locked=yes\n"),
	   "two jobs, two windows: one start, one stop in all: %s", s);
	free(s);

	/* The unit stopped by hand inside the window: the next job starts it. */
	update(3, HOLD_ACQUIRE);
	update(3, HOLD_RELEASE);
	bin_file("active", NULL);
	snprintf(src, sizeof(src), "%s/cgroup/system.slice/ebpf_exporter.service", dir);
	rmdir(src);
	ok(update(4, HOLD_ACQUIRE) == (EV_CHANGED | EV_STARTED) && active(),
	   "unit stopped by hand in the window: the next job starts it");

	/* Reconcile: a live window is left alone; an expired one (its timer
	 * lost) is closed and the unit stopped. */
	update(4, HOLD_RELEASE);
	{
		struct slurm_ask ask;
		struct reconcile_report rep;
		int rc;

		tu_squeue(&ask, dir, "ok", "");
		/* Run first: ok()'s arguments are evaluated in no fixed order. */
		rc = reconcile_run(&cfg, &ask, false, &rep);
		ok(rc == 0 && rep.unit_events == 0 && active() && rep.linger_left > 0,
		   "reconcile inside a window: left running (%ld s left)", rep.linger_left);
		expire_window();
		ok(reconcile_run(&cfg, &ask, false, &rep) == 0 && (rep.unit_events & EV_STOPPED) &&
		   !active() && !window_file(), "reconcile after a lost timer: window closed, unit stopped");
	}

	/* The timer cannot be armed: stop at once rather than run unbounded. */
	update(5, HOLD_ACQUIRE);
	bin_file("systemd-run.behaviour", "fail");
	tu_clear_logs();
	ok(update(5, HOLD_RELEASE) == (EV_CHANGED | EV_STOPPED) && !active() && !window_file(),
	   "systemd-run fails: stopped at once, no window left");
	ok(tu_logged("cannot arm the linger timer:") && tu_logged("exited with status 1"),
	   "... and says why");
	bin_file("systemd-run.behaviour", "ok");

	/* Joins racing the window's end, many times: whatever the order, a
	 * held set has the unit running and an empty one has it stopped. */
	bad = 0;
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
	return tap_done();
}
