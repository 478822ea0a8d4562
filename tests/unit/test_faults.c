/* Faults around the state and around systemctl, as root: a full tmpfs, a
 * read-only mount, and a systemctl that hangs with children, crashes,
 * floods its output or is missing. Each must give a clear error, leave
 * the previous state intact, and leave no process, zombie or descriptor
 * behind. One function per fault; each sets up the double (and the file
 * system) it needs. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hold.h"
#include "tap.h"
#include "testutil.h"

static struct config cfg;
static char dir[128], mnt[200];

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d)))
		n++;
	closedir(d);
	return n;
}

/* Live (non-zombie) processes that are our children (want == 'c') or
 * members of process group pgid (want == 'g'). Zombies are left out: an
 * orphan's zombie is init's to reap, and this sandbox's init may not. */
static int live_procs(char want, int pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	while ((e = readdir(d))) {
		char path[300], buf[512], *p, state = 0;
		int pid = atoi(e->d_name), pgrp = 0, ppid = 0;
		FILE *f;

		if (pid <= 0 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')))
			sscanf(p + 2, "%c %d %d", &state, &ppid, &pgrp);
		fclose(f);
		if (state == 'Z' && want == 'g')
			continue;
		if ((want == 'c' && ppid == getpid()) || (want == 'g' && pgrp == pgid))
			n++;
	}
	closedir(d);
	return n;
}

/* The double records its PID, which is also its process group. */
static int group_alive(void)
{
	char path[300], *s;
	int pgid, i;

	snprintf(path, sizeof(path), "%s/bin/last.pid", dir);
	s = tu_slurp(path);
	pgid = s ? atoi(s) : 0;
	free(s);
	if (pgid <= 0)
		return 0;
	/* SIGKILL delivery is asynchronous, slower on a busy machine: wait
	 * up to 10 s for the group to go (a leak never goes). */
	for (i = 0; i < 500 && live_procs('g', pgid) > 0; i++)
		usleep(20000);
	return live_procs('g', pgid) > 0;
}

/* The double as every systemctl fault starts: fresh, with timeout=1. */
static void systemctl_setup(void)
{
	tu_double(&cfg, dir, "ok");
	cfg.timeout = 1;
}

/* A 64 KiB tmpfs at dir/mnt holding the state, the double fresh; or a
 * failed point and -1. */
static int mount_state_fs(void)
{
	tu_double(&cfg, dir, "ok");
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	mkdir(mnt, 0755);
	snprintf(cfg.state, sizeof(cfg.state), "%s/state", mnt);
	if (mount("tmpfs", mnt, "tmpfs", 0, "size=64k,mode=0755") < 0) {
		ok(0, "mount a 64 KiB tmpfs: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Hang, crash, 8 MiB of output, failure: each said, nothing left. */
static void test_systemctl_faults(void)
{
	static const struct {
		const char *behaviour, *expect;
	} faults[] = {
		{ "hang", "timed out after 1 s and was killed" },
		{ "crash", "was killed by signal 11" },
		{ "spew", "starting ebpf_exporter" },
		{ "fail", "exited with status 1" },
	};
	size_t i;

	systemctl_setup();
	for (i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
		int fds = open_fds(), ev = 0;
		struct timespec t;

		tu_double_set(dir, faults[i].behaviour);
		/* timeout=1 only where it is what is tested (the hang): a
		 * crash, spew or failure under it raced the bound on a loaded
		 * machine (a crash taking over 1 s was logged as a timeout). */
		cfg.timeout = strcmp(faults[i].behaviour, "hang") ? TU_TIMEOUT : 1;
		tu_clear_logs();
		clock_gettime(CLOCK_MONOTONIC, &t);
		hold_update(&cfg, 100 + (uint32_t)i, HOLD_ACQUIRE, &ev);
		/* The hang's bound: timeout=1 s + RUNCMD_REAP_MS, with room
		 * for a busy machine, far from the double's 300 s; the others
		 * end on their own, within TU_TIMEOUT. */
		ok(tu_seconds_since(&t) < 20.0 && tu_logged(faults[i].expect),
		   "systemctl %s: %.2f s, \"%s\"", faults[i].behaviour, tu_seconds_since(&t), faults[i].expect);
		ok(open_fds() == fds, "... no descriptor leaked (%d -> %d)", fds, open_fds());
		ok(live_procs('c', 0) == 0 && waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD,
		   "... no child or zombie left");
		ok(!group_alive(), "... nothing left of systemctl's own process group");
		hold_update(&cfg, 100 + (uint32_t)i, HOLD_RELEASE, &ev);
	}
}

/* "spew" succeeded: its 8 MiB were drained, 4 KiB kept. */
static void test_spew_keeps_log_small(void)
{
	systemctl_setup();
	tu_double_set(dir, "spew");
	tu_clear_logs();
	hold_update(&cfg, 200, HOLD_ACQUIRE, NULL);
	ok(strlen(tu_logs()) < 64 * 1024, "8 MiB of systemctl output: log stays small (%zu bytes)",
	   strlen(tu_logs()));
	hold_update(&cfg, 200, HOLD_RELEASE, NULL);
}

static void test_systemctl_missing(void)
{
	systemctl_setup();
	snprintf(cfg.systemctl, sizeof(cfg.systemctl), "/nonexistent/systemctl");
	tu_clear_logs();
	hold_update(&cfg, 300, HOLD_ACQUIRE, NULL);
	ok(tu_logged("could not be executed: No such file or directory"),
	   "systemctl missing: clear error");
	ok(live_procs('c', 0) == 0 && !group_alive(), "... nothing left behind");
	hold_update(&cfg, 300, HOLD_RELEASE, NULL);
}

/* Jobs 1 and 2 held, then the file system full: the update of job 3 is
 * refused and the state kept; with space back it goes through. */
static void test_full_file_system(void)
{
	char *before, *after, filler[300];
	static char block[4096];
	int fd, ev;

	if (mount_state_fs() < 0)
		return;
	hold_update(&cfg, 1, HOLD_ACQUIRE, &ev);
	hold_update(&cfg, 2, HOLD_ACQUIRE, &ev);
	before = tu_state_text(&cfg);
	snprintf(filler, sizeof(filler), "%s/filler", mnt);
	fd = open(filler, O_WRONLY | O_CREAT, 0600);
	memset(block, 'x', sizeof(block));
	while (write(fd, block, sizeof(block)) > 0)
		;
	close(fd);
	tu_clear_logs();
	ok(hold_update(&cfg, 3, HOLD_ACQUIRE, &ev) < 0 && !(ev & EV_STARTED),
	   "full file system: update refused, nothing started");
	ok(tu_logged("No space left on device") && tu_logged("previous state kept"),
	   "... clear error: %s", strstr(tu_logs(), "cannot update") ? strstr(tu_logs(), "cannot update") : "");
	after = tu_state_text(&cfg);
	ok(!strcmp(before, after), "... previous state intact");
	free(after);
	unlink(filler);
	ok(hold_update(&cfg, 3, HOLD_ACQUIRE, &ev) == 0, "space back: the next update works");
	free(before);
	umount2(mnt, MNT_DETACH);
}

/* The state as the full file system case left it (jobs 1 to 3), then
 * the file system read-only. */
static void test_read_only_file_system(void)
{
	char *before, *after;
	int ev;

	if (mount_state_fs() < 0)
		return;
	hold_update(&cfg, 1, HOLD_ACQUIRE, &ev);
	hold_update(&cfg, 2, HOLD_ACQUIRE, &ev);
	hold_update(&cfg, 3, HOLD_ACQUIRE, &ev);
	before = tu_state_text(&cfg);
	if (mount("tmpfs", mnt, "tmpfs", MS_REMOUNT | MS_RDONLY, "size=64k,mode=0755") < 0) {
		ok(0, "remount read-only: %s", strerror(errno));
	} else {
		tu_clear_logs();
		ok(hold_update(&cfg, 4, HOLD_ACQUIRE, &ev) < 0 && tu_logged("Read-only file system"),
		   "read-only file system: clear error");
		after = tu_state_text(&cfg);
		ok(!strcmp(before, after), "... previous state intact");
		free(after);
		mount("tmpfs", mnt, "tmpfs", MS_REMOUNT, "size=64k,mode=0755");
	}
	free(before);
	umount2(mnt, MNT_DETACH);
}

/* The state's directory gone (the mount point removed). */
static void test_missing_state_directory(void)
{
	int ev;

	tu_double(&cfg, dir, "ok");
	snprintf(mnt, sizeof(mnt), "%s/mnt", dir);
	snprintf(cfg.state, sizeof(cfg.state), "%s/state", mnt);
	rmdir(mnt);
	tu_clear_logs();
	ok(hold_update(&cfg, 5, HOLD_ACQUIRE, &ev) < 0 && tu_logged("cannot open state directory") &&
	   tu_logged("No such file or directory"), "missing directory: clear error");
}

/* As root (mounts): else skipped by hand, a failure in CI. */
static void setup(void)
{
	if (geteuid() != 0) {
		if (getenv("CI")) {
			printf("Bail out! test_faults needs root in CI\n");
			exit(1);
		}
		printf("1..0 # SKIP needs root (mounts)\n");
		exit(0);
	}
	tu_capture_logs();
	snprintf(dir, sizeof(dir), "%s", tu_scratch());
}

int main(void)
{
	setup();
	test_systemctl_faults();
	test_spew_keeps_log_small();
	test_systemctl_missing();
	test_full_file_system();
	test_read_only_file_system();
	test_missing_state_directory();
	return tap_done();
}
