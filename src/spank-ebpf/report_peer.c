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
 * at most (OFD locks on slot files in the unit's RuntimeDirectory=, taken
 * before the request is read, so idle connections count), and a request
 * must arrive within 2 s.
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
	if (answer && peer_write_all(fd, req, strlen(req), deadline) == 0)
		len = peer_read_all(fd, answer, PEER_ANSWER_MAX, deadline, false);
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
