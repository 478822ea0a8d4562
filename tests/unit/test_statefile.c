/* The state file on disk: atomic replacement, the lock, and everything it
 * refuses (symlinks, hard links, wrong owner or mode) or survives. One
 * function per case; each starts from reset(): no state file, no logs. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jobset.h"
#include "statefile.h"
#include "tap.h"
#include "testutil.h"

static char dir[128], path[160];
static const uint32_t two[] = { 11, 12 };

/* The state into SET under the lock, as the hooks read it. */
static int load_state(struct jobset *set)
{
	struct statefile sf;
	int rc = statefile_open_locked(&sf, path, 2000);

	if (rc == 0)
		rc = statefile_load(&sf, set);
	statefile_close(&sf);
	return rc;
}

/* The jobs IDS[0..N) as the whole state, under the lock. */
static int store_ids(const uint32_t *ids, size_t n)
{
	struct statefile sf;
	struct jobset set;
	size_t i;
	int rc;

	jobset_init(&set);
	for (i = 0; i < n; i++)
		jobset_add(&set, ids[i]);
	rc = statefile_open_locked(&sf, path, 2000);
	if (rc == 0)
		rc = statefile_store(&sf, &set);
	statefile_close(&sf);
	jobset_free(&set);
	return rc;
}

/* No state file, no .corrupt copy, no logs. */
static void reset(void)
{
	char p[700];

	unlink(path);
	snprintf(p, sizeof(p), "%s.corrupt", path);
	unlink(p);
	tu_clear_logs();
}

static void setup(void)
{
	tu_capture_logs();
	snprintf(dir, sizeof(dir), "%s", tu_scratch());
	snprintf(path, sizeof(path), "%s/state", dir);
}

static void test_store_and_load(void)
{
	struct jobset set;
	char p[700], *text;
	struct stat st;

	jobset_init(&set);
	ok(load_state(&set) == 0 && set.n == 0, "missing state file is an empty set");
	ok(store_ids(two, 2) == 0, "store two jobs");
	text = tu_slurp(path);
	ok(text && !strcmp(text, "2\n11\n12\n"), "file holds count then IDs");
	free(text);
	ok(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600, "state file mode 0600: it lists jobs");
	ok(load_state(&set) == 0 && set.n == 2 && jobset_contains(&set, 12), "load what was stored");
	ok(statefile_peek(path, 12) == 1 && statefile_peek(path, 13) == 0,
	   "lock-free peek finds a held job and not another");
	snprintf(p, sizeof(p), "%s.tmp", path);
	ok(access(p, F_OK) < 0, "no temporary file left behind");
	jobset_free(&set);
}

static void test_peek_large_state(void)
{
	static uint32_t many[1000];
	size_t k;

	reset();
	for (k = 0; k < 1000; k++)
		many[k] = 100000 + (uint32_t)k;
	store_ids(many, 1000);
	ok(statefile_peek(path, 5) == 1,
	   "peek at a state larger than one read: a hint to take the locked path");
}

/* A stale .tmp from a killed writer is replaced, not followed. */
static void test_stale_tmp_replaced(void)
{
	char p[700];

	reset();
	store_ids(two, 2); /* the state the writer was replacing */
	snprintf(p, sizeof(p), "%s.tmp", path);
	tu_write(p, "garbage", 7);
	ok(store_ids(two, 1) == 0 && access(p, F_OK) < 0, "stale .tmp replaced");
}

/* Damaged file: salvaged, logged, kept aside. */
static void test_damaged_file_salvaged(void)
{
	struct jobset set;
	char p[700], *text;

	reset();
	jobset_init(&set);
	tu_write(path, "5\n42\nxyz\n", 9);
	ok(load_state(&set) == 1 && set.n == 1 && jobset_contains(&set, 42),
	   "damaged file: valid IDs salvaged, damage reported");
	ok(tu_logged("is damaged (count 5 disagrees") || tu_logged("is damaged (line 3"),
	   "damage logged with its reason");
	snprintf(p, sizeof(p), "%s.corrupt", path);
	text = tu_slurp(p);
	ok(text && !strcmp(text, "5\n42\nxyz\n"), "damaged file kept as .corrupt");
	free(text);
	jobset_free(&set);
}

/* A state of a newer form (a downgrade under running jobs): refused in
 * words, left as it is, no .corrupt copy; the lock-free peek finds no job. */
static void test_newer_form_refused(void)
{
	static const char text[] = "spank_ebpf state 3\n7 io\n";
	struct jobset set;
	char p[700], *s;

	reset();
	jobset_init(&set);
	tu_write(path, text, sizeof(text) - 1);
	ok(load_state(&set) == -1 && set.n == 0, "newer form: refused");
	ok(tu_logged("was written by a newer release of the plugin (line 1: \"spank_ebpf state 3\": a newer form than this release reads (1 and 2)): refusing it, left as it is"),
	   "... saying which form and what to do");
	s = tu_slurp(path);
	ok(s && !strcmp(s, text), "... the file left as it is");
	free(s);
	snprintf(p, sizeof(p), "%s.corrupt", path);
	ok(access(p, F_OK) < 0, "... no .corrupt copy: it is not damaged");
	ok(statefile_peek(path, 7) == 0, "... the lock-free peek finds no job in it");
	jobset_free(&set);
}

/* Refusals: the file is never followed or trusted. */
static void test_symlink_refused(void)
{
	struct jobset set;
	struct stat st;
	char *text;

	reset();
	jobset_init(&set);
	ok(symlink("/etc/passwd", path) == 0 && load_state(&set) < 0 &&
	   tu_logged("refusing state file") && tu_logged("symbolic link"),
	   "symlink at the state path refused");
	ok(store_ids(two, 2) == 0 && lstat(path, &st) == 0 && S_ISREG(st.st_mode),
	   "a store replaces the symlink itself, never writes through it");
	text = tu_slurp("/etc/passwd");
	ok(text && strncmp(text, "2\n", 2), "/etc/passwd untouched");
	free(text);
	jobset_free(&set);
}

static void test_hard_link_refused(void)
{
	struct jobset set;
	char p[700];

	reset();
	jobset_init(&set);
	snprintf(p, sizeof(p), "%s/other", dir);
	tu_write(p, "1\n5\n", 4);
	ok(link(p, path) == 0 && load_state(&set) < 0 && tu_logged("hard links"),
	   "hard-linked state file refused");
	unlink(p);
	jobset_free(&set);
}

static void test_world_writable_file_refused(void)
{
	struct jobset set;

	reset();
	jobset_init(&set);
	tu_write(path, "1\n5\n", 4);
	chmod(path, 0666);
	ok(load_state(&set) < 0 && tu_logged("writable by group or others"),
	   "world-writable state file refused");
	chmod(path, 0644);
	jobset_free(&set);
}

static void test_fifo_refused(void)
{
	struct jobset set;

	reset();
	jobset_init(&set);
	ok(mkfifo(path, 0644) == 0 && load_state(&set) < 0 && tu_logged("not a regular file"),
	   "FIFO at the state path refused without blocking");
	jobset_free(&set);
}

static void test_foreign_owner_refused(void)
{
	struct jobset set;

	if (geteuid() != 0) {
		ok(1, "# SKIP ownership check needs root");
		return;
	}
	reset();
	jobset_init(&set);
	tu_write(path, "1\n5\n", 4);
	ok(chown(path, 65534, 65534) == 0 && load_state(&set) < 0 &&
	   tu_logged("owned by uid 65534"), "state file owned by nobody refused");
	unlink(path);
	jobset_free(&set);
}

/* The directory itself. */
static void test_world_writable_directory_refused(void)
{
	struct jobset set;

	reset();
	jobset_init(&set);
	chmod(dir, 0777);
	ok(load_state(&set) < 0 && tu_logged("refusing state directory") &&
	   tu_logged("writable by group or others"), "world-writable directory refused");
	chmod(dir, 0755);
	jobset_free(&set);
}

static void test_directory_through_symlink_refused(void)
{
	char p[700], via[800];
	struct statefile sf;
	int rc;

	reset();
	snprintf(p, sizeof(p), "%s/link", dir);
	if (symlink(dir, p) < 0)
		return;
	snprintf(via, sizeof(via), "%s/state", p);
	rc = statefile_open_locked(&sf, via, 1000);
	statefile_close(&sf);
	ok(rc < 0 && tu_logged("symbolic link"), "directory reached through a symlink refused");
	unlink(p);
}

static void test_missing_directory(void)
{
	struct statefile sf;
	char missing[700];
	int rc;

	reset();
	snprintf(missing, sizeof(missing), "%s/nonexistent/state", dir);
	rc = statefile_open_locked(&sf, missing, 1000);
	statefile_close(&sf);
	ok(rc < 0 && tu_logged("No such file or directory"), "missing directory: clear error");
}

static void test_symlinked_lock_file_refused(void)
{
	struct jobset set;
	char p[700];

	reset();
	jobset_init(&set);
	snprintf(p, sizeof(p), "%s.lock", path);
	unlink(p);
	ok(symlink("/etc/shadow", p) == 0 && load_state(&set) < 0 && tu_logged("lock file") &&
	   tu_logged("symbolic link"), "symlinked lock file refused");
	unlink(p);
	jobset_free(&set);
}

/* A lock held by a stuck process: bounded wait, clear error. */
static void test_stuck_lock_holder(void)
{
	struct statefile sf;
	struct timespec a, b;
	char p[700], c;
	int fd, pfd[2], rc;
	pid_t pid;

	reset();
	snprintf(p, sizeof(p), "%s.lock", path);
	fd = open(p, O_RDWR | O_CREAT, 0600);
	if (pipe(pfd) < 0)
		exit(99);
	pid = fork();
	if (pid == 0) {
		flock(fd, LOCK_EX);
		if (write(pfd[1], "x", 1) < 0)
			_exit(1);
		pause();
		_exit(0);
	}
	close(fd);
	if (read(pfd[0], &c, 1) != 1)
		exit(99);
	clock_gettime(CLOCK_MONOTONIC, &a);
	rc = statefile_open_locked(&sf, path, 1000);
	statefile_close(&sf);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ok(rc < 0 && tu_logged("gave up waiting 1 s for the lock"),
	   "lock held by a stuck process: gives up with a clear error");
	ok(b.tv_sec - a.tv_sec < 20, "... at the bound, not when the holder ends (%.2f s)",
	   (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	rc = statefile_open_locked(&sf, path, 1000);
	statefile_close(&sf);
	ok(rc == 0, "lock free again once its holder is dead");
	close(pfd[0]);
	close(pfd[1]);
}

/* Read-only directory: previous state intact, clear error. */
static void test_read_only_directory(void)
{
	char *text;

	reset();
	ok(store_ids(two, 2) == 0, "state with two jobs");
	/* (Root writes through a 0555 directory; the fault tests use a
	 * read-only mount instead.) */
	if (geteuid() != 0) {
		chmod(dir, 0555);
		ok(store_ids(two, 1) < 0 && tu_logged("previous state kept"),
		   "read-only directory: store fails cleanly");
		chmod(dir, 0755);
	}
	text = tu_slurp(path);
	ok(text && !strcmp(text, "2\n11\n12\n"), "previous state intact");
	free(text);
}

/* The mode of the file at p, or -1. */
static int mode_of(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
}

/* A 0644 state left by an older release: tightened at its first locked
 * use, before a job changes it (a read, as a hold that changes nothing). */
static void test_old_state_tightened(void)
{
	struct jobset set;

	reset();
	store_ids(two, 2);
	chmod(path, 0644);
	jobset_init(&set);
	ok(load_state(&set) == 0 && set.n == 2, "an old 0644 state is read");
	ok(mode_of(path) == 0600, "... and made 0600 at its first locked use (%04o)", mode_of(path));
	jobset_free(&set);
}

/* The files beside the state (.jobs, .stats...): created 0600, and an old
 * 0644 one made 0600 when read under the lock. */
static void test_aux_files_private(void)
{
	struct statefile sf;
	char p[700], buf[64];
	size_t len;

	reset();
	snprintf(p, sizeof(p), "%s.jobs", path);
	unlink(p);
	if (statefile_open_locked(&sf, path, 2000) == 0)
		statefile_write_aux(&sf, ".jobs", "job records", "7 alice - io 0\n", 15);
	statefile_close(&sf);
	ok(mode_of(p) == 0600, "a new .jobs is 0600 (%04o)", mode_of(p));
	chmod(p, 0644);
	if (statefile_open(&sf, path) == 0)
		statefile_read_aux(&sf, ".jobs", buf, sizeof(buf), &len);
	statefile_close(&sf);
	ok(mode_of(p) == 0644, "a lock-free reader (root's status) changes nothing");
	if (statefile_open_locked(&sf, path, 2000) == 0)
		statefile_read_aux(&sf, ".jobs", buf, sizeof(buf), &len);
	statefile_close(&sf);
	ok(mode_of(p) == 0600 && !strcmp(buf, "7 alice - io 0\n"),
	   "an old 0644 .jobs read under the lock: read, and made 0600 (%04o)", mode_of(p));
	unlink(p);
}

int main(void)
{
	setup();
	test_store_and_load();
	test_peek_large_state();
	test_stale_tmp_replaced();
	test_damaged_file_salvaged();
	test_newer_form_refused();
	test_symlink_refused();
	test_hard_link_refused();
	test_world_writable_file_refused();
	test_fifo_refused();
	test_foreign_owner_refused();
	test_world_writable_directory_refused();
	test_directory_through_symlink_refused();
	test_missing_directory();
	test_symlinked_lock_file_refused();
	test_stuck_lock_holder();
	test_read_only_directory();
	test_old_state_tightened();
	test_aux_files_private();
	return tap_done();
}
