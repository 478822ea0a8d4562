/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The node-local state file. See statefile.h for the on-disk contract. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "log.h"
#include "statefile.h"

#define SMALL_READ 4096

/* The plugin runs as root; tests run as whoever runs them. Only the
 * effective user, or root, may own what it trusts: a user's `spank-ebpf
 * report` reads root's state. */
static int check_owner_mode(const struct stat *st, const char *what,
			    const char *path)
{
	static uid_t euid = (uid_t)-1;

	if (euid == (uid_t)-1)
		euid = geteuid(); /* once per process: it does not change */
	if (st->st_uid != euid && st->st_uid != 0) {
		log_msg(LOG_ERROR, "refusing %s \"%s\": owned by uid %u, not uid %u",
			what, path, (unsigned)st->st_uid, (unsigned)euid);
		return -1;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		log_msg(LOG_ERROR, "refusing %s \"%s\": writable by group or others (mode %04o)",
			what, path, (unsigned)(st->st_mode & 07777));
		return -1;
	}
	return 0;
}

/* The files list every opted-in job, its user and sets: root's alone
 * (0600). One left by an older release (0644) is made so when a locked
 * writer first reads it, so no upgrade step is needed. */
static void statefile_tighten(int fd, const struct stat *st, const char *what, const char *path)
{
	if (!(st->st_mode & 077))
		return;
	if (fchmod(fd, st->st_mode & 0700) < 0)
		log_msg(LOG_ERROR, "cannot make %s \"%s\" private (mode %04o): %s", what, path,
			(unsigned)(st->st_mode & 07777), strerror(errno));
	else
		log_msg(LOG_INFO, "%s \"%s\" was mode %04o: now %04o, as this release keeps it", what,
			path, (unsigned)(st->st_mode & 07777), (unsigned)(st->st_mode & 0700));
}

/* Checks an open file; *size (if not NULL) gets its size. tighten: the
 * lock is held, a readable-by-others file is made private. */
static int check_file(int fd, const char *what, const char *path, off_t *size, bool tighten)
{
	struct stat st;

	if (fstat(fd, &st) < 0) {
		log_msg(LOG_ERROR, "cannot stat %s \"%s\": %s", what, path, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		log_msg(LOG_ERROR, "refusing %s \"%s\": not a regular file", what, path);
		return -1;
	}
	if (st.st_nlink != 1) {
		log_msg(LOG_ERROR, "refusing %s \"%s\": it has %lu hard links",
			what, path, (unsigned long)st.st_nlink);
		return -1;
	}
	if (size)
		*size = st.st_size;
	if (check_owner_mode(&st, what, path) < 0)
		return -1;
	if (tighten)
		statefile_tighten(fd, &st, what, path);
	return 0;
}

static void refuse_open(const char *what, const char *path, int err)
{
	struct stat st;

	/* O_NOFOLLOW on a symlink: ELOOP, or ENOTDIR with O_DIRECTORY. */
	if (err == ELOOP || (err == ENOTDIR && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)))
		log_msg(LOG_ERROR, "refusing %s \"%s\": it is a symbolic link", what, path);
	else
		log_msg(LOG_ERROR, "cannot open %s \"%s\": %s", what, path, strerror(err));
}

static int open_dir(struct statefile *sf)
{
	const char *slash = strrchr(sf->path, '/');
	char dir[CONFIG_PATH_MAX];
	struct stat st;

	/* config.c guarantees an absolute path naming a file. */
	snprintf(dir, sizeof(dir), "%.*s", slash == sf->path ? 1 : (int)(slash - sf->path),
		 sf->path);
	snprintf(sf->base, sizeof(sf->base), "%s", slash + 1);
	snprintf(sf->lockname, sizeof(sf->lockname), "%s.lock", sf->base);
	snprintf(sf->tmpname, sizeof(sf->tmpname), "%s.tmp", sf->base);
	snprintf(sf->corruptname, sizeof(sf->corruptname), "%s.corrupt", sf->base);

	sf->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sf->dirfd < 0) {
		refuse_open("state directory", dir, errno);
		return -1;
	}
	if (fstat(sf->dirfd, &st) < 0) {
		log_msg(LOG_ERROR, "cannot stat state directory \"%s\": %s", dir, strerror(errno));
		return -1;
	}
	return check_owner_mode(&st, "state directory", dir);
}

static void sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

/* This process's lock figures (statefile_lock_times). */
static struct lock_times lock_times;

void statefile_lock_times(struct lock_times *out)
{
	*out = lock_times;
}

void statefile_lock_times_reset(void)
{
	memset(&lock_times, 0, sizeof(lock_times));
}

/* flock() has no timeout: poll with a short, growing sleep. The cap keeps
 * the added latency under a millisecond when the lock is busy. */
static int lock_bounded(struct statefile *sf, unsigned int timeout_ms)
{
	long long t0 = clock_us(), deadline = t0 + (long long)timeout_ms * 1000;
	long delay = 20;

	for (;;) {
		if (flock(sf->lockfd, LOCK_EX | LOCK_NB) == 0) {
			sf->locked_at_us = clock_us();
			lock_times.wait_us += sf->locked_at_us - t0;
			return 0;
		}
		if (errno != EWOULDBLOCK && errno != EINTR) {
			log_msg(LOG_ERROR, "cannot lock \"%s.lock\": %s", sf->path, strerror(errno));
			return -1;
		}
		if (clock_us() >= deadline) {
			log_msg(LOG_ERROR,
				"gave up waiting %u s for the lock on \"%s.lock\": another process holds it (see lock_timeout=)",
				timeout_ms / 1000, sf->path);
			return -1;
		}
		sleep_us(delay);
		if (delay < 1000)
			delay *= 2;
	}
}

/* For messages: the lock file's full path. */
static const char *lockpath(const struct statefile *sf)
{
	static char buf[CONFIG_PATH_MAX + 16];

	snprintf(buf, sizeof(buf), "%s.lock", sf->path);
	return buf;
}

int statefile_open(struct statefile *sf, const char *path)
{
	sf->path = path;
	sf->dirfd = sf->lockfd = -1;
	sf->locked_at_us = 0;
	return open_dir(sf);
}

int statefile_open_locked(struct statefile *sf, const char *path,
			  unsigned int timeout_ms)
{
	if (statefile_open(sf, path) < 0)
		return -1;
	sf->lockfd = openat(sf->dirfd, sf->lockname,
			    O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
	if (sf->lockfd < 0) {
		refuse_open("lock file", lockpath(sf), errno);
		return -1;
	}
	if (check_file(sf->lockfd, "lock file", lockpath(sf), NULL, false) < 0)
		return -1;
	return lock_bounded(sf, timeout_ms);
}

void statefile_close(struct statefile *sf)
{
	if (sf->lockfd >= 0)
		close(sf->lockfd); /* releases the flock */
	if (sf->locked_at_us)
		lock_times.held_us += clock_us() - sf->locked_at_us;
	if (sf->dirfd >= 0)
		close(sf->dirfd);
	sf->lockfd = sf->dirfd = -1;
	sf->locked_at_us = 0;
}

/* Reads at most JOBSET_MAX_BYTES + 1 bytes: enough to tell "too large".
 * A file known to fit in small (size from fstat, stable under the lock
 * since writers only ever rename) takes one read. */
static char *read_all(int fd, char *small, off_t size, size_t *len)
{
	size_t cap = SMALL_READ, off = 0;
	char *buf = small;

	if (size >= 0 && size < SMALL_READ) {
		ssize_t n;

		do
			n = read(fd, small, SMALL_READ);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			return NULL;
		*len = (size_t)n;
		return small;
	}
	for (;;) {
		ssize_t n;

		if (off == cap) {
			char *bigger;

			if (cap > JOBSET_MAX_BYTES)
				break;
			cap *= 4;
			bigger = buf == small ? malloc(cap) : realloc(buf, cap);
			if (!bigger)
				goto fail;
			if (buf == small)
				memcpy(bigger, small, off);
			buf = bigger;
		}
		n = read(fd, buf + off, cap - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		off += (size_t)n;
	}
	*len = off;
	return buf;
fail:
	if (buf != small)
		free(buf);
	return NULL;
}

static int write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Keeps the damaged bytes for the admin as <state>.corrupt: a copy, never
 * a hard link, so the state file keeps its single link and the next
 * update can use it whatever it changes. */
static void keep_corrupt(struct statefile *sf, const char *buf, size_t len)
{
	int fd, err = 0;

	if (unlinkat(sf->dirfd, sf->corruptname, 0) < 0 && errno != ENOENT)
		err = errno;
	fd = err ? -1 : openat(sf->dirfd, sf->corruptname,
			       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write_all(fd, buf, len) < 0)
		err = errno;
	if (fd >= 0 && close(fd) < 0 && !err)
		err = errno;
	if (err)
		log_msg(LOG_ERROR, "cannot keep a copy of the damaged state as \"%s.corrupt\": %s",
			sf->path, strerror(err));
}

int statefile_load(struct statefile *sf, struct jobset *set)
{
	char small[SMALL_READ], why[160];
	char *buf;
	size_t len = 0;
	off_t size = -1;
	int fd, rc;

	jobset_free(set);
	fd = openat(sf->dirfd, sf->base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT)
		return 0;
	if (fd < 0) {
		refuse_open("state file", sf->path, errno);
		return -1;
	}
	if (check_file(fd, "state file", sf->path, &size, sf->lockfd >= 0) < 0) {
		close(fd);
		return -1;
	}
	buf = read_all(fd, small, size, &len);
	close(fd);
	if (!buf) {
		log_msg(LOG_ERROR, "cannot read state file \"%s\": %s", sf->path, strerror(errno));
		return -1;
	}
	rc = jobset_parse(set, buf, len, why, sizeof(why));
	if (rc < 0) {
		if (buf != small)
			free(buf);
		log_msg(LOG_ERROR, "out of memory reading state file \"%s\"", sf->path);
		return -1;
	}
	if (rc == 2) {
		if (buf != small)
			free(buf);
		log_msg(LOG_ERROR,
			"state file \"%s\" was written by a newer release of the plugin (%s): refusing it, left as it is; install that release again, or remove the file once no job holds the exporter",
			sf->path, why);
		return -1;
	}
	if (rc > 0 && sf->lockfd >= 0) {
		keep_corrupt(sf, buf, len);
		log_msg(LOG_ERROR,
			"state file \"%s\" is damaged (%s); kept as \"%s.corrupt\", continuing with the %zu valid job IDs it holds",
			sf->path, why, sf->path, set->n);
	} else if (rc > 0) {
		log_msg(LOG_ERROR, "state file \"%s\" is damaged (%s); it holds %zu valid job IDs",
			sf->path, why, set->n);
	}
	if (buf != small)
		free(buf);
	return rc;
}

/* Atomically replaces <state><suffix> with buf: write <state><suffix>.tmp,
 * rename it over. The lock must be held (the .tmp is shared by writers). */
static int replace(struct statefile *sf, const char *suffix, const char *what,
		   const char *buf, size_t len)
{
	char aux[CONFIG_PATH_MAX + 16], auxtmp[CONFIG_PATH_MAX + 24];
	const char *name = sf->base, *tmpname = sf->tmpname, *step = "write";
	int fd = -1, err;

	if (suffix[0]) { /* the state's own names are made once, in open_dir */
		snprintf(aux, sizeof(aux), "%s%s", sf->base, suffix);
		snprintf(auxtmp, sizeof(auxtmp), "%s%s.tmp", sf->base, suffix);
		name = aux;
		tmpname = auxtmp;
	}
	/* A leftover from a killed writer is ours to replace: the lock is held. */
	if (unlinkat(sf->dirfd, tmpname, 0) < 0 && errno != ENOENT) {
		step = "remove stale";
		goto fail;
	}
	step = "create";
	fd = openat(sf->dirfd, tmpname,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		goto fail;
	/* No fsync(): the state lives on tmpfs and a reboot ends every job it
	 * names. rename() alone makes the update atomic for any process crash. */
	step = "write";
	if (fchmod(fd, 0600) < 0 || write_all(fd, buf, len) < 0)
		goto fail;
	step = "close";
	err = close(fd);
	fd = -1;
	if (err < 0)
		goto fail;
	step = "rename";
	if (renameat(sf->dirfd, tmpname, sf->dirfd, name) < 0)
		goto fail;
	return 0;
fail:
	err = errno;
	if (fd >= 0)
		close(fd);
	unlinkat(sf->dirfd, tmpname, 0);
	log_msg(LOG_ERROR, "cannot update %s file \"%s%s\" (%s of \"%s%s.tmp\" failed: %s); previous %s kept",
		what, sf->path, suffix, step, sf->path, suffix, strerror(err), what);
	return -1;
}

int statefile_store(struct statefile *sf, const struct jobset *set)
{
	char small[SMALL_READ];
	size_t cap = jobset_text_size(set), len;
	char *buf = cap <= sizeof(small) ? small : malloc(cap);
	int rc;

	if (!buf) {
		log_msg(LOG_ERROR, "out of memory writing state file \"%s\"", sf->path);
		return -1;
	}
	len = jobset_format(set, buf, cap);
	rc = replace(sf, "", "state", buf, len);
	if (buf != small)
		free(buf);
	return rc;
}

int statefile_read_aux(struct statefile *sf, const char *suffix, char *buf,
		       size_t cap, size_t *len)
{
	char name[CONFIG_PATH_MAX + 16], path[2 * CONFIG_PATH_MAX + 16];
	ssize_t n;
	int fd;

	snprintf(name, sizeof(name), "%s%s", sf->base, suffix);
	snprintf(path, sizeof(path), "%s%s", sf->path, suffix);
	*len = 0;
	buf[0] = '\0';
	fd = openat(sf->dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 && errno == ENOENT)
		return 1;
	if (fd < 0) {
		refuse_open("file", path, errno);
		return -1;
	}
	if (check_file(fd, "file", path, NULL, sf->lockfd >= 0) < 0) {
		close(fd);
		return -1;
	}
	do
		n = read(fd, buf, cap - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 0) {
		log_msg(LOG_ERROR, "cannot read \"%s\": %s", path, strerror(errno));
		return -1;
	}
	*len = (size_t)n;
	buf[n] = '\0';
	return 0;
}

int statefile_write_aux(struct statefile *sf, const char *suffix, const char *what,
			const char *buf, size_t len)
{
	return replace(sf, suffix, what, buf, len);
}

int statefile_remove_aux(struct statefile *sf, const char *suffix)
{
	char name[CONFIG_PATH_MAX + 16];

	snprintf(name, sizeof(name), "%s%s", sf->base, suffix);
	if (unlinkat(sf->dirfd, name, 0) == 0)
		return 1;
	if (errno != ENOENT)
		log_msg(LOG_ERROR, "cannot remove \"%s%s\": %s", sf->path, suffix, strerror(errno));
	return 0;
}

int statefile_has_aux(struct statefile *sf, const char *suffix)
{
	char name[CONFIG_PATH_MAX + 16];
	struct stat st;

	snprintf(name, sizeof(name), "%s%s", sf->base, suffix);
	return fstatat(sf->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

int statefile_on_tmpfs(const char *path)
{
	const char *slash = strrchr(path, '/');
	char dir[CONFIG_PATH_MAX];
	struct statfs fs;

	snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 : (int)(slash - path), path);
	if (statfs(dir, &fs) < 0)
		return -1;
	return fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC;
}

int statefile_peek(const char *path, uint32_t job)
{
	char small[SMALL_READ];
	struct jobset set;
	ssize_t n;
	int fd, found;

	/* Runs in the epilog of every job that did not ask for the exporter:
	 * open, one read, close. A state larger than one read is rare
	 * (hundreds of jobs holding it); then take the locked path. */
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return 0;
	n = read(fd, small, sizeof(small));
	close(fd);
	if (n == (ssize_t)sizeof(small))
		return 1;
	if (n <= 0)
		return 0;
	jobset_init(&set);
	/* A damaged file may still name the job: let the locked path decide. */
	found = jobset_parse(&set, small, (size_t)n, NULL, 0) >= 0 &&
		jobset_contains(&set, job);
	jobset_free(&set);
	return found;
}
