/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The workloads of the probe sets' cost (bench/probecost.sh): each does N
 * operations of the kind its set observes and prints the time per one.
 *
 *   probe_load read FILE N   4 KiB O_DIRECT reads of FILE, in order,
 *                            wrapping at its end (io: every read is a
 *                            block request)
 *   probe_load pipe N        N round trips of one byte between two
 *                            processes on one CPU, through two pipes
 *                            (sched: two context switches each)
 *   probe_load pingpong N    N round trips of an 8-byte message between
 *                            two processes, each pinned to its own CPU
 *                            (0 and 1), over a blocking AF_UNIX
 *                            socketpair: a 2-rank MPI-style ping-pong,
 *                            where every message wakes a process on an
 *                            otherwise idle CPU (sched: switches are the
 *                            workload, two per message)
 *   probe_load tcp N         N loopback TCP connections, each one byte
 *                            there and back, then closed (net: each one
 *                            walks the TCP states)
 *   probe_load cread FILE N  4 KiB buffered reads of FILE (read first,
 *                            untimed, so that it is in the page cache):
 *                            fs's cheapest data call, no device involved
 *   probe_load meta DIR N    N files made (open O_CREAT), stat'ed, and
 *                            unlinked in DIR, one after the other (fs: a
 *                            create, a stat and an unlink each)
 *   probe_load write FILE N  N writes of 1 MiB into FILE (wrapping at
 *                            64 MiB), then one fsync, timed with them:
 *                            on NFS the data reaches the server
 *
 * Prints "ns_per_op=X ops=N". Exits 1 with a message on any error. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_setaffinity, O_DIRECT */
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 4096
#define WRITE_SIZE (1 << 20)
#define WRITE_WRAP 64

static void die(const char *what)
{
	fprintf(stderr, "probe_load: %s: %s\n", what, strerror(errno));
	exit(1);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double load_read(const char *file, long n)
{
	struct stat st;
	off_t blocks = 0, b = 0;
	void *buf;
	double t0;
	long i;
	int fd = open(file, O_RDONLY | O_DIRECT | O_CLOEXEC);

	if (fd < 0)
		die(file);
	if (fstat(fd, &st) < 0 || (blocks = st.st_size / BLOCK) == 0) {
		errno = EINVAL;
		die("file smaller than one block");
	}
	if (posix_memalign(&buf, BLOCK, BLOCK) != 0)
		die("posix_memalign");
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (pread(fd, buf, BLOCK, b * BLOCK) != BLOCK)
			die("pread");
		b = (b + 1) % blocks;
	}
	t0 = now_ns() - t0;
	free(buf);
	close(fd);
	return t0;
}

/* fs: buffered reads of a file the page cache holds. */
static double load_cread(const char *file, long n)
{
	char buf[BLOCK];
	off_t blocks = 0, b = 0;
	struct stat st;
	double t0;
	long i;
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		die(file);
	if (fstat(fd, &st) < 0 || (blocks = st.st_size / BLOCK) == 0) {
		errno = EINVAL;
		die("file smaller than one block");
	}
	for (b = 0; b < blocks; b++) /* into the page cache, untimed */
		if (pread(fd, buf, BLOCK, b * BLOCK) != BLOCK)
			die("pread");
	b = 0;
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (pread(fd, buf, BLOCK, b * BLOCK) != BLOCK)
			die("pread");
		b = (b + 1) % blocks;
	}
	t0 = now_ns() - t0;
	close(fd);
	return t0;
}

/* fs: a metadata loop, create, stat and unlink of one file at a time. */
static double load_meta(const char *dir, long n)
{
	char path[4096];
	struct stat st;
	double t0;
	long i;
	int fd;

	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (snprintf(path, sizeof(path), "%s/probe_load.%ld", dir, i) >= (int)sizeof(path)) {
			errno = ENAMETOOLONG;
			die(dir);
		}
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0)
			die(path);
		close(fd);
		if (stat(path, &st) < 0)
			die(path);
		if (unlink(path) < 0)
			die(path);
	}
	return now_ns() - t0;
}

/* fs: large writes, flushed: what reaches the server on NFS. */
static double load_write(const char *file, long n)
{
	double t0;
	char *buf;
	long i;
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		die(file);
	buf = malloc(WRITE_SIZE);
	if (!buf)
		die("malloc");
	memset(buf, 'x', WRITE_SIZE);
	t0 = now_ns();
	for (i = 0; i < n; i++)
		if (pwrite(fd, buf, WRITE_SIZE, (off_t)(i % WRITE_WRAP) * WRITE_SIZE) != WRITE_SIZE)
			die("pwrite");
	if (fsync(fd) < 0)
		die("fsync");
	t0 = now_ns() - t0;
	free(buf);
	close(fd);
	if (unlink(file) < 0)
		die(file);
	return t0;
}

static void on_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0)
		die("sched_setaffinity");
}

static double load_pipe(long n)
{
	int there[2], back[2], status;
	char c = 'x';
	double t0;
	pid_t pid;
	long i;

	if (pipe(there) < 0 || pipe(back) < 0)
		die("pipe");
	on_cpu(0); /* both ends on one CPU: every hand-over is a switch */
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		for (i = 0; i < n; i++)
			if (read(there[0], &c, 1) != 1 || write(back[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	t0 = now_ns();
	for (i = 0; i < n; i++)
		if (write(there[1], &c, 1) != 1 || read(back[0], &c, 1) != 1)
			die("pipe round trip");
	t0 = now_ns() - t0;
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		die("pipe partner");
	return t0;
}

/* A full message each way or nothing: a stream socket may return less. */
static int pp_xfer(int fd, char *msg, size_t len, int out)
{
	size_t done = 0;

	while (done < len) {
		ssize_t r = out ? write(fd, msg + done, len - done) : read(fd, msg + done, len - done);

		if (r <= 0)
			return -1;
		done += (size_t)r;
	}
	return 0;
}

static double load_pingpong(long n)
{
	char msg[8] = "message"; /* 7 characters and the NUL: 8 bytes */
	int sv[2], status;
	double t0;
	pid_t pid;
	long i;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		die("socketpair");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		/* The other rank, on a CPU of its own: it sleeps in read()
		 * between messages, so each one is a wake-up there. */
		close(sv[0]);
		on_cpu(1);
		for (i = 0; i <= n; i++)
			if (pp_xfer(sv[1], msg, sizeof(msg), 0) < 0 ||
			    pp_xfer(sv[1], msg, sizeof(msg), 1) < 0)
				_exit(1);
		_exit(0);
	}
	close(sv[1]);
	on_cpu(0);
	/* One exchange more, untimed: both ranks are on their CPUs before t0. */
	if (pp_xfer(sv[0], msg, sizeof(msg), 1) < 0 || pp_xfer(sv[0], msg, sizeof(msg), 0) < 0)
		die("ping-pong");
	t0 = now_ns();
	for (i = 0; i < n; i++)
		if (pp_xfer(sv[0], msg, sizeof(msg), 1) < 0 || pp_xfer(sv[0], msg, sizeof(msg), 0) < 0)
			die("ping-pong");
	t0 = now_ns() - t0;
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		die("ping-pong partner");
	return t0;
}

/* The server answers each connection and closes first, so TIME_WAIT stays
 * on its side, on a port of its own for each run. */
static void tcp_serve(int lfd, long n)
{
	long i;
	char c;

	for (i = 0; i < n; i++) {
		int fd = accept(lfd, NULL, NULL);

		if (fd < 0 || read(fd, &c, 1) != 1 || write(fd, &c, 1) != 1)
			_exit(1);
		close(fd);
	}
	_exit(0);
}

static double load_tcp(long n)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);
	int lfd, status;
	double t0;
	pid_t pid;
	char c = 'x';
	long i;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(lfd, 128) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&a, &len) < 0)
		die("listen on loopback");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0)
		tcp_serve(lfd, n);
	close(lfd);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
		    write(fd, &c, 1) != 1 || read(fd, &c, 1) != 1)
			die("tcp connection");
		close(fd);
	}
	t0 = now_ns() - t0;
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		die("tcp server");
	return t0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	/* The modes that take a path before N. */
	int path_mode = !strcmp(mode, "read") || !strcmp(mode, "cread") || !strcmp(mode, "meta") ||
			!strcmp(mode, "write");
	long n = argc > 2 + path_mode ? atol(argv[2 + path_mode]) : 0;
	double ns;

	if (n <= 0 || argc != 3 + path_mode ||
	    (!path_mode && strcmp(mode, "pipe") && strcmp(mode, "pingpong") && strcmp(mode, "tcp"))) {
		fprintf(stderr, "usage: probe_load read|cread|meta|write PATH N | pipe N | pingpong N | tcp N\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (!strcmp(mode, "read"))
		ns = load_read(argv[2], n);
	else if (!strcmp(mode, "cread"))
		ns = load_cread(argv[2], n);
	else if (!strcmp(mode, "meta"))
		ns = load_meta(argv[2], n);
	else if (!strcmp(mode, "write"))
		ns = load_write(argv[2], n);
	else if (!strcmp(mode, "pipe"))
		ns = load_pipe(n);
	else if (!strcmp(mode, "pingpong"))
		ns = load_pingpong(n);
	else
		ns = load_tcp(n);
	printf("ns_per_op=%.1f ops=%ld\n", ns / (double)n, n);
	return 0;
}
