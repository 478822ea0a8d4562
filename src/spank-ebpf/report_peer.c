/* SPDX-License-Identifier: GPL-2.0-or-later */
/* report's service for users (spank-ebpf-report.socket): a user's report
 * asked of root over a Unix socket. The kernel says who is asking
 * (SO_PEERCRED), so the answer holds that user's jobs only, and the sets'
 * ports can be closed to every user but root and Prometheus
 * (docs/OPERATING.md, "Who can read it") without taking report from them.
 * The uid is compared with the job's recorded uid; its name, when NSS
 * knows one, is only written in the journal.
 *
 * No user can crowd out another: each uid has PEER_SLOTS answers under way
 * at most, idle connections included, and a request must arrive within
 * 2 s. The socket (Accept=no) hands its listening socket to one server,
 * which accepts every connection at once, asks the kernel whose it is,
 * and refuses at once, without a process, one beyond its uid's slots;
 * each answer is a child of it, bounded in time. systemd's own limits
 * could not do it: with Accept=yes, MaxConnections= counts every user's
 * connections together, and systemd 252 counts MaxConnectionsPerSource=
 * by IP address, not by uid on a Unix socket: one user holding 200
 * connections made every other user's report fail. Run on a connection
 * (standard input), it answers that one, under OFD locks on slot files
 * in the unit's RuntimeDirectory= as the per-uid bound.
 *
 * One request:  "report JOBID text|json\n"
 * One answer:   "exit N\nout LEN\n" LEN bytes "err LEN\n" LEN bytes
 * (the report's standard output and error, and its exit status). */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "spank-ebpf.h"
#include "text.h"

#define PEER_REQUEST_MAX 64
#define PEER_ANSWER_MAX (4u << 20)
#define PEER_REQUEST_US 2000000LL
#define PEER_SLOTS 4
#define PEER_SLOT_DIR "/run/spank-ebpf-report" /* without $RUNTIME_DIRECTORY */
#define PEER_ANSWER_US 20000000LL
#define PEER_WRITE_US 10000000LL
#define PEER_CHILDREN_MAX 64 /* answers under way, every user's */
#define PEER_CHILD_S 30      /* one answer's bound (its child killed then) */

static int peer_write_all(int fd, const char *buf, size_t len, long long deadline)
{
	while (len > 0) {
		ssize_t n;

		if (clock_wait_fd(fd, POLLOUT, deadline) <= 0)
			return -1;
		n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Reads until EOF, at most max bytes, until deadline. Returns the length
 * (buf NUL-terminated), or -1. */
static ssize_t peer_read_all(int fd, char *buf, size_t max, long long deadline, bool line)
{
	size_t len = 0;

	while (len < max) {
		ssize_t n;

		if (clock_wait_fd(fd, POLLIN, deadline) <= 0)
			return -1;
		n = read(fd, buf + len, max - len);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		len += (size_t)n;
		if (line && memchr(buf, '\n', len))
			break;
	}
	buf[len] = '\0';
	return (ssize_t)len;
}

/* "WORD NUMBER\n" at at (before end): the number, and where the line ends;
 * NULL when it is not there. */
static const char *peer_header(const char *at, const char *end, const char *word, long long *v)
{
	size_t w = strlen(word);
	const char *c;

	if ((size_t)(end - at) < w + 2 || memcmp(at, word, w) || at[w] != ' ')
		return NULL;
	*v = 0;
	for (c = at + w + 1; c < end && *c >= '0' && *c <= '9' && *v < 1000000000; c++)
		*v = *v * 10 + (*c - '0');
	if (c == at + w + 1 || c >= end || *c != '\n')
		return NULL;
	return c + 1;
}

/* The answer's parts: exit status, standard output, standard error. */
static int peer_parse(const char *a, size_t len, int *rc, const char **out, size_t *out_len,
		      const char **err, size_t *err_len)
{
	const char *end = a + len, *at;
	long long v;

	if (!(at = peer_header(a, end, "exit", &v)) || v > 255)
		return -1;
	*rc = (int)v;
	if (!(at = peer_header(at, end, "out", &v)) || v > end - at)
		return -1;
	*out = at;
	*out_len = (size_t)v;
	if (!(at = peer_header(at + v, end, "err", &v)) || v != end - at)
		return -1;
	*err = at;
	*err_len = (size_t)v;
	return 0;
}

int report_peer_ask(const char *path, unsigned long job, bool json)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	long long deadline = clock_us() + PEER_ANSWER_US;
	const char *out, *err;
	size_t out_len, err_len;
	char req[PEER_REQUEST_MAX], *answer;
	ssize_t len = -1;
	int fd, rc;

	if (strlen(path) >= sizeof(a.sun_path)) {
		fprintf(stderr, "spank-ebpf: report: socket path \"%s\" is too long\n", path);
		return EXIT_UNSURE;
	}
	memcpy(a.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		int e = errno;

		if (fd >= 0)
			close(fd);
		if (e == ENOENT)
			return -1; /* no service here: the ports, as the user */
		fprintf(stderr, "spank-ebpf: report: the report service at \"%s\" does not answer: %s (systemctl status spank-ebpf-report.socket)\n",
			path, strerror(e));
		return EXIT_UNSURE;
	}
	snprintf(req, sizeof(req), "report %lu %s\n", job, json ? "json" : "text");
	answer = malloc(PEER_ANSWER_MAX + 1);
	/* A refusal may come before the request is read (the server closes
	 * at once): the answer is read even when the request did not go. */
	if (answer) {
		peer_write_all(fd, req, strlen(req), deadline);
		len = peer_read_all(fd, answer, PEER_ANSWER_MAX, deadline, false);
	}
	close(fd);
	if (len < 0) {
		fprintf(stderr, "spank-ebpf: report: no answer from the report service at \"%s\": %s\n",
			path, strerror(errno));
		free(answer);
		return EXIT_UNSURE;
	}
	if (peer_parse(answer, (size_t)len, &rc, &out, &out_len, &err, &err_len) < 0) {
		fprintf(stderr, "spank-ebpf: report: an answer not in its protocol from the report service at \"%s\"\n",
			path);
		free(answer);
		return EXIT_UNSURE;
	}
	fwrite(out, 1, out_len, stdout);
	fwrite(err, 1, err_len, stderr);
	free(answer);
	return rc;
}

/* Who is at the other end of fd 0: their uid (0: root, every job), and
 * for the journal their name when NSS knows it, else "uid N". A uid
 * without a name is a user like any other. -1 when the kernel cannot say. */
static int peer_who(unsigned int *uid, char *name, size_t len)
{
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	struct passwd *pw;

	if (getsockopt(STDIN_FILENO, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0)
		return -1;
	*uid = cred.uid;
	pw = getpwuid(cred.uid);
	if (pw && pw->pw_name[0]) {
		char shown[128];

		snprintf(name, len, "%s (uid %u)", text_printable(pw->pw_name, shown, sizeof(shown)),
			 (unsigned int)cred.uid);
	} else {
		snprintf(name, len, "uid %u", (unsigned int)cred.uid);
	}
	return 0;
}

/* One of uid's PEER_SLOTS slots, held (an OFD lock) until this process
 * ends: its fd; -1 when all are taken; -2 when none can be used (said:
 * the answer goes out unlimited rather than not at all). */
static int peer_slot_take(unsigned int uid)
{
	const char *dir = getenv("RUNTIME_DIRECTORY");
	char path[512];
	int k, busy = 0;

	if (!dir || dir[0] != '/')
		dir = PEER_SLOT_DIR;
	for (k = 0; k < PEER_SLOTS; k++) {
		struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
		int fd;

		/* RUNTIME_DIRECTORY may list several: the first. */
		snprintf(path, sizeof(path), "%.*s/%u.%d", (int)strcspn(dir, ":"), dir, uid, k);
		fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			continue;
		if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
			return fd;
		if (errno == EAGAIN || errno == EACCES)
			busy++;
		close(fd);
	}
	if (busy == PEER_SLOTS)
		return -1;
	fprintf(stderr, "spank-ebpf: report --peer: no slot file in \"%s\" (%s): answering without the per-user limit\n",
		dir, strerror(errno));
	return -2;
}

/* The request line: its job and format; -1 when it is not one. */
static int peer_request(const char *line, unsigned long *job, bool *json)
{
	char fmt[8], *end;
	const char *c;

	if (strncmp(line, "report ", 7))
		return -1;
	*job = strtoul(line + 7, &end, 10);
	if (end == line + 7 || *job == 0 || *job > 0xfffffffdul || *end != ' ')
		return -1;
	c = end + 1;
	if (sscanf(c, "%7[a-z]", fmt) != 1 || strcmp(c + strlen(fmt), "\n"))
		return -1;
	if (!strcmp(fmt, "json"))
		*json = true;
	else if (!strcmp(fmt, "text"))
		*json = false;
	else
		return -1;
	return 0;
}

/* A capture of fd (1 or 2) in an anonymous file, restored by peer_restore. */
static int peer_capture(int fd, int *saved)
{
	int m = memfd_create(fd == STDOUT_FILENO ? "report-out" : "report-err", MFD_CLOEXEC);

	*saved = dup(fd);
	if (m < 0 || *saved < 0 || dup2(m, fd) < 0) {
		if (m >= 0)
			close(m);
		return -1;
	}
	return m;
}

static void peer_restore(int fd, int saved)
{
	if (saved >= 0) {
		dup2(saved, fd);
		close(saved);
	}
}

/* "NAME LEN\n" and the captured bytes of m. */
static int peer_send_part(int sock, const char *name, int m, long long deadline)
{
	char head[48], buf[8192];
	off_t size = m >= 0 ? lseek(m, 0, SEEK_END) : 0, at = 0;

	if (size < 0)
		size = 0;
	snprintf(head, sizeof(head), "%s %lld\n", name, (long long)size);
	if (peer_write_all(sock, head, strlen(head), deadline) < 0)
		return -1;
	while (at < size) {
		ssize_t n = pread(m, buf, sizeof(buf), at);

		if (n <= 0 || peer_write_all(sock, buf, (size_t)n, deadline) < 0)
			return -1;
		at += n;
	}
	return 0;
}

/* The listening socket systemd passed (Accept=no: LISTEN_FDS=1 for this
 * process): fd 3; -1 when there is none (a connection on stdin). */
static int peer_listen_fd(void)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	int type = 0;
	socklen_t len = sizeof(type);

	if (!pid || !fds || strtol(pid, NULL, 10) != (long)getpid() || strcmp(fds, "1"))
		return -1;
	if (getsockopt(3, SOL_SOCKET, SO_TYPE, &type, &len) < 0 || type != SOCK_STREAM)
		return -1;
	return 3;
}

/* A connection refused by the server, without waiting on it: what the
 * client sent so far read (closing on unread data would reset the
 * connection before it reads the answer), the answer written, closed. */
static void peer_refuse_now(int fd, const char *words)
{
	char line[PEER_REQUEST_MAX], head[48];

	if (recv(fd, line, sizeof(line), MSG_DONTWAIT) < 0 && errno != EAGAIN)
		errno = 0;
	snprintf(head, sizeof(head), "exit %d\nout 0\nerr %zu\n", EXIT_UNSURE, strlen(words));
	if (send(fd, head, strlen(head), MSG_DONTWAIT | MSG_NOSIGNAL) == (ssize_t)strlen(head))
		send(fd, words, strlen(words), MSG_DONTWAIT | MSG_NOSIGNAL);
	close(fd);
}

/* The journal's line for refusals: the first of each second, with how
 * many more there were since the last line. */
static void peer_refusal_said(unsigned int uid, int under_way, bool all)
{
	static time_t last;
	static unsigned long more;
	time_t now = time(NULL);
	struct passwd *pw;
	char shown[128] = "";

	if (now == last) {
		more++;
		return;
	}
	last = now;
	pw = getpwuid(uid);
	if (pw && pw->pw_name[0])
		text_printable(pw->pw_name, shown, sizeof(shown));
	if (all)
		fprintf(stderr, "spank-ebpf: report --peer: %d reports under way, every user's: %s%suid %u%s refused (%lu more refusals before)\n",
			under_way, shown, shown[0] ? " (" : "", uid, shown[0] ? ")" : "", more);
	else
		fprintf(stderr, "spank-ebpf: report --peer: %s%suid %u%s has %d reports under way: refused (%lu more refusals before)\n",
			shown, shown[0] ? " (" : "", uid, shown[0] ? ")" : "", under_way, more);
	more = 0;
}

/* The server on the listening socket lfd: every connection accepted at
 * once; one within its uid's PEER_SLOTS (and PEER_CHILDREN_MAX in all)
 * answered by a child of its own, the others refused on the spot. */
static int peer_server(struct cmd *cmd, report_fn run, int lfd)
{
	static struct { pid_t pid; unsigned int uid; } kids[PEER_CHILDREN_MAX];
	char busy[160];
	int nk = 0;

	snprintf(busy, sizeof(busy), "spank-ebpf: report: too many reports of yours at once (%d at most): try again when one has ended\n",
		 PEER_SLOTS);
	signal(SIGPIPE, SIG_IGN);
	if (fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK) < 0)
		return EXIT_UNSURE;
	for (;;) {
		struct pollfd pl = { .fd = lfd, .events = POLLIN };
		pid_t pid;
		int st, k, batch;

		/* Woken at least every 200 ms to reap the answers ended; and
		 * they are reaped before new connections are counted. */
		poll(&pl, 1, 200);
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
			for (k = 0; k < nk; k++)
				if (kids[k].pid == pid) {
					kids[k] = kids[--nk];
					break;
				}
		for (batch = 0; batch < 256; batch++) {
			struct ucred cred;
			socklen_t clen = sizeof(cred);
			int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC), mine = 0;

			if (fd < 0)
				break;
			if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) < 0) {
				close(fd);
				continue;
			}
			for (k = 0; k < nk; k++)
				mine += kids[k].uid == cred.uid;
			if (mine >= PEER_SLOTS || nk >= PEER_CHILDREN_MAX) {
				peer_refuse_now(fd, mine >= PEER_SLOTS ? busy :
					"spank-ebpf: report: the report service is busy: try again in a few seconds\n");
				peer_refusal_said(cred.uid, mine >= PEER_SLOTS ? mine : nk, mine < PEER_SLOTS);
				continue;
			}
			pid = fork();
			if (pid == 0) {
				close(lfd);
				signal(SIGPIPE, SIG_DFL);
				if (dup2(fd, STDIN_FILENO) < 0)
					_exit(EXIT_UNSURE);
				close(fd);
				alarm(PEER_CHILD_S);
				exit(report_peer_serve(cmd, run));
			}
			close(fd);
			if (pid > 0) {
				kids[nk].pid = pid;
				kids[nk].uid = cred.uid;
				nk++;
			}
		}
	}
}

int report_peer_serve(struct cmd *cmd, report_fn run)
{
	long long deadline = clock_us() + PEER_REQUEST_US;
	char line[PEER_REQUEST_MAX + 1], who[256], head[32];
	int mout, merr, saved_out = -1, saved_err = -1, sock, rc, slot;
	unsigned long job = 0;
	unsigned int uid = 0;
	bool json = false;

	if (geteuid() != 0) {
		fprintf(stderr, "spank-ebpf: report --peer must run as root (spank-ebpf-report@.service)\n");
		return EXIT_UNSURE;
	}
	if (peer_listen_fd() >= 0) {
		/* Its children serve one connection each, on stdin. */
		unsetenv("LISTEN_PID");
		unsetenv("LISTEN_FDS");
		unsetenv("LISTEN_FDNAMES");
		return peer_server(cmd, run, 3);
	}
	if (peer_who(&uid, who, sizeof(who)) < 0) {
		fprintf(stderr, "spank-ebpf: report --peer: cannot tell who asks (%s); standard input must be the connection (StandardInput=socket)\n",
			strerror(errno ? errno : ENOENT));
		return EXIT_UNSURE;
	}
	sock = dup(STDIN_FILENO);
	if (sock < 0)
		return EXIT_UNSURE;
	slot = peer_slot_take(uid);
	if (slot == -1) {
		char busy[128];

		snprintf(busy, sizeof(busy), "spank-ebpf: report: too many reports of yours at once (%d at most): try again when one has ended\n",
			 PEER_SLOTS);

		/* What the client sent is read first: closing on unread data
		 * would reset the connection before it reads the answer. */
		peer_read_all(STDIN_FILENO, line, PEER_REQUEST_MAX, clock_us() + 200000, true);
		snprintf(head, sizeof(head), "exit %d\nout 0\nerr %zu\n", EXIT_UNSURE, strlen(busy));
		if (peer_write_all(sock, head, strlen(head), clock_us() + PEER_WRITE_US) == 0)
			peer_write_all(sock, busy, strlen(busy), clock_us() + PEER_WRITE_US);
		fprintf(stderr, "spank-ebpf: report --peer: %s has %d reports under way: refused\n", who,
			PEER_SLOTS);
		close(sock);
		return EXIT_OK;
	}
	if (peer_read_all(STDIN_FILENO, line, PEER_REQUEST_MAX, deadline, true) < 0 ||
	    peer_request(line, &job, &json) < 0) {
		fprintf(stderr, "spank-ebpf: report --peer: uid %u sent no request in the protocol within %d s\n",
			uid, (int)(PEER_REQUEST_US / 1000000));
		close(sock);
		return EXIT_UNSURE;
	}
	fflush(stdout);
	fflush(stderr);
	mout = peer_capture(STDOUT_FILENO, &saved_out);
	merr = peer_capture(STDERR_FILENO, &saved_err);
	if (mout < 0 || merr < 0) {
		rc = EXIT_UNSURE;
		fprintf(stderr, "spank-ebpf: report: the report service cannot keep its answer: %s\n",
			strerror(errno));
	} else {
		rc = run(cmd, job, json, uid);
	}
	fflush(stdout);
	fflush(stderr);
	peer_restore(STDOUT_FILENO, saved_out);
	peer_restore(STDERR_FILENO, saved_err);
	deadline = clock_us() + PEER_WRITE_US;
	snprintf(head, sizeof(head), "exit %d\n", rc);
	if (peer_write_all(sock, head, strlen(head), deadline) < 0 ||
	    peer_send_part(sock, "out", mout, deadline) < 0 ||
	    peer_send_part(sock, "err", merr, deadline) < 0)
		fprintf(stderr, "spank-ebpf: report --peer: the answer to uid %u did not go out\n", uid);
	/* One line per answer in the journal: who asked what, and the outcome. */
	fprintf(stderr, "spank-ebpf: report --peer: job %lu for %s: exit %d\n", job, who, rc);
	if (mout >= 0)
		close(mout);
	if (merr >= 0)
		close(merr);
	if (slot >= 0)
		close(slot);
	close(sock);
	return EXIT_OK;
}
