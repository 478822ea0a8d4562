/* listen= parsed once for everyone (listenaddr.h): the accepted forms and
 * what each becomes, the refused ones and why; then, in a private network
 * namespace (no real port is used), binding, a clash, and who holds a
 * listening socket. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "listenaddr.h"
#include "tap.h"
#include "testutil.h"

static const struct {
	const char *text, *addr; /* addr: inet_ntop's spelling */
	int family;
	unsigned int port;
	int any;
} good[] = {
	{ "127.0.0.1:941", "127.0.0.1", AF_INET, 941, 0 },
	{ ":941", "0.0.0.0", AF_INET, 941, 1 },
	{ "0.0.0.0:1", "0.0.0.0", AF_INET, 1, 1 },
	{ "10.1.2.3:1023", "10.1.2.3", AF_INET, 1023, 0 },
	{ "[::1]:942", "::1", AF_INET6, 942, 0 },
	{ "[::]:943", "::", AF_INET6, 943, 1 },
	{ "[fe80::1:2]:80", "fe80::1:2", AF_INET6, 80, 0 },
};

static const struct {
	const char *text, *why;
} bad[] = {
	{ "0127.0.0.1:941", "not an IPv4 address as inet_pton reads it" },   /* octal to getaddrinfo */
	{ "127.0.0.010:941", "not an IPv4 address as inet_pton reads it" },  /* 127.0.0.8 to it */
	{ "127.1:941", "not an IPv4 address as inet_pton reads it" },        /* short form */
	{ "0x7f.0.0.1:941", "host names are not accepted" },
	{ "127.0.0.1.:941", "not an IPv4 address" },
	{ "localhost:941", "host names are not accepted, localhost neither: write the address (127.0.0.1)" },
	{ "node7:941", "host names are not accepted" },
	{ "[:::::]:941", "not an IPv6 address" },
	{ "[::1%lo]:941", "not an IPv6 address" },
	{ "::1:941", "not an IPv4 address" },
	{ "[::1:941", "an IPv6 address goes in brackets" },
	{ "127.0.0.1:8941", "port 8941 is not privileged (1 to 1023): any user could bind it first" },
	{ "127.0.0.1:1024", "port 1024 is not privileged" },
	{ "127.0.0.1:0", "decimal port from 1 to 1023" },
	{ "127.0.0.1:0941", "decimal port from 1 to 1023" },
	{ "127.0.0.1:+941", "decimal port from 1 to 1023" },
	{ "127.0.0.1:", "decimal port from 1 to 1023" },
	{ "127.0.0.1", "decimal port from 1 to 1023" },
	{ "", "decimal port from 1 to 1023" },
};

static void test_accepted(void)
{
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		struct listen_addr a;
		char why[200] = "", shown[64] = "";
		int rc = listenaddr_parse(good[i].text, &a, why, sizeof(why));

		if (rc == 0)
			inet_ntop(a.family, a.addr, shown, sizeof(shown));
		ok(rc == 0 && a.family == good[i].family && a.port == good[i].port &&
		   a.any == good[i].any && !strcmp(shown, good[i].addr) && !strcmp(a.text, good[i].text),
		   "\"%s\": accepted as %s port %u%s (%s)", good[i].text, good[i].addr, good[i].port,
		   good[i].any ? ", every address" : "", rc ? why : shown);
	}
}

static void test_refused(void)
{
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct listen_addr a;
		char why[200] = "";
		int rc = listenaddr_parse(bad[i].text, &a, why, sizeof(why));

		ok(rc == -1 && strstr(why, bad[i].why), "\"%s\": refused, \"%s\" (got: %s)", bad[i].text,
		   bad[i].why, rc ? why : "accepted");
	}
}

static void test_connect_address(void)
{
	struct sockaddr_storage ss;
	struct listen_addr a;
	char why[200], shown[64] = "";

	listenaddr_parse(":941", &a, why, sizeof(why));
	listenaddr_sockaddr(&a, true, &ss);
	inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, shown, sizeof(shown));
	ok(!strcmp(shown, "127.0.0.1") && ntohs(((struct sockaddr_in *)&ss)->sin_port) == 941,
	   "\":941\" is read at 127.0.0.1:941 (%s)", shown);
	listenaddr_parse("[::]:941", &a, why, sizeof(why));
	listenaddr_sockaddr(&a, true, &ss);
	inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, shown, sizeof(shown));
	ok(!strcmp(shown, "::1"), "\"[::]:941\" is read at [::1]:941 (%s)", shown);
	listenaddr_sockaddr(&a, false, &ss);
	inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, shown, sizeof(shown));
	ok(!strcmp(shown, "::"), "... and bound at [::] (%s)", shown);
}


static void own_comm(char *buf, size_t len)
{
	int fd = open("/proc/self/comm", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
}

static struct listen_addr parsed(const char *text)
{
	struct listen_addr a;
	char why[200];

	if (listenaddr_parse(text, &a, why, sizeof(why)) < 0)
		tap_diag("%s: %s", text, why);
	return a;
}

static void test_bind_and_holders(void)
{
	struct listen_addr lo = parsed("127.0.0.1:941"), any = parsed(":941"), other = parsed("127.0.0.2:941"),
			   idle = parsed("127.0.0.1:942"), v6 = parsed("[::1]:943");
	struct listen_holder h[4], stranger;
	pid_t me = getpid(), init = 1;
	char comm[40], line[200], want[200];
	int fd, fd6, n;

	fd = listenaddr_listen(&lo);
	ok(fd >= 0, "127.0.0.1:941 bound and listening (%s)", fd < 0 ? strerror(-fd) : "ok");
	ok(listenaddr_listen(&lo) == -EADDRINUSE, "a second bind of 127.0.0.1:941: EADDRINUSE");
	ok(listenaddr_listen(&any) == -EADDRINUSE, "a bind of :941 (every address) clashes too: EADDRINUSE");
	own_comm(comm, sizeof(comm));
	n = listenaddr_holders(&lo, h, 4);
	ok(n == 1 && h[0].pid == me && h[0].uid == (unsigned int)geteuid() && !strcmp(h[0].comm, comm),
	   "its holder: this process (pid %d, uid %u, %s); found %d, pid %d", (int)me, (unsigned int)geteuid(),
	   comm, n, n > 0 ? (int)h[0].pid : 0);
	n = listenaddr_holders(&any, h, 4);
	ok(n == 1 && h[0].pid == me, "... also the holder :941 would clash with (found %d)", n);
	ok(listenaddr_holders(&other, h, 4) == 0, "127.0.0.2:941 clashes with nothing");
	ok(listenaddr_holders(&idle, h, 4) == 0, "nothing listens on 127.0.0.1:942");
	n = listenaddr_holders(&lo, h, 4);
	listenaddr_describe(&h[0], line, sizeof(line));
	snprintf(want, sizeof(want), "uid %u (", (unsigned int)geteuid());
	ok(!strncmp(line, want, strlen(want)) && strstr(line, "), pid ") && strstr(line, comm),
	   "described as \"uid U (name), pid P (comm)\": %s", line);
	ok(listenaddr_owned(&lo, &me, 1, &stranger) == 1, "owned by the unit's pids when this process is one");
	ok(listenaddr_owned(&lo, &init, 1, &stranger) == 0 && stranger.pid == me,
	   "not owned when the unit's pids are others; the stranger named (pid %d)", (int)stranger.pid);
	ok(listenaddr_owned(&idle, &me, 1, &stranger) == -1, "nothing listening: -1, never owned");
	fd6 = listenaddr_listen(&v6);
	n = listenaddr_holders(&v6, h, 4);
	ok(fd6 >= 0 && n == 1 && h[0].pid == me, "[::1]:943: bound, its holder found in /proc/net/tcp6 (%d)", n);
	if (fd6 >= 0)
		close(fd6);
	close(fd);
	ok(listenaddr_holders(&lo, h, 4) == 0, "closed: no holder left");
}

/* listenaddr_owned(a, {pid}) as uid (a caller that is not root, who
 * cannot look at other users' fds): its answer, from a child; -9 when
 * the child could not become uid. */
static int owned_as(unsigned int uid, const struct listen_addr *a, pid_t pid)
{
	struct listen_holder stranger;
	pid_t c = fork();
	int st;

	if (c == 0) {
		if (setgid(uid) < 0 || setuid(uid) < 0)
			_exit(100);
		_exit(listenaddr_owned(a, &pid, 1, &stranger) + 10);
	}
	if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) == 100)
		return -9;
	return WEXITSTATUS(st) - 10;
}

/* A unit's process whose fds the caller cannot look at holds the port
 * only when the socket is its uid's: a process of another uid (the
 * unit's, running as a user; the socket root's) is no proof. */
static void test_owned_unreadable_fds(void)
{
	struct listen_addr lo = parsed("127.0.0.1:941");
	int fd = listenaddr_listen(&lo), pipefd[2], rc;
	pid_t other;
	char c;

	if (fd < 0 || geteuid() != 0 || pipe(pipefd) < 0) {
		tap_skip("needs root and 127.0.0.1:941 in a private network namespace");
		if (fd >= 0)
			close(fd);
		return;
	}
	/* A process of uid 65533, not holding the socket (root's). */
	other = fork();
	if (other == 0) {
		close(fd);
		close(pipefd[0]);
		if (setgid(65533) < 0 || setuid(65533) < 0)
			_exit(1);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	if (other < 0 || read(pipefd[0], &c, 1) != 1) {
		ok(0, "a process of uid 65533 started");
		close(pipefd[0]);
		close(fd);
		return;
	}
	close(pipefd[0]);
	rc = owned_as(65534, &lo, other);
	ok(rc == 0, "asked by uid 65534: a unit process of uid 65533 whose fds it cannot read does not hold root's socket (0, got %d)",
	   rc);
	rc = owned_as(65534, &lo, getpid());
	ok(rc == 1, "... one of root's, the socket's owner, does (1, got %d)", rc);
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);
	close(fd);
}

static void test_unprivileged_start(void)
{
	int fd = open("/proc/sys/net/ipv4/ip_unprivileged_port_start", O_WRONLY);
	int w = fd >= 0 ? (int)write(fd, "500", 3) : -1;

	if (fd >= 0)
		close(fd);
	if (w != 3) {
		tap_skip("cannot set this namespace's ip_unprivileged_port_start");
		return;
	}
	ok(listenaddr_unprivileged_start() == 500, "ip_unprivileged_port_start read: 500");
}

int main(void)
{
	test_accepted();
	test_refused();
	test_connect_address();
	if (tu_private_net() < 0) {
		tap_skip("no private network namespace here (unshare CLONE_NEWNET)");
	} else {
		test_bind_and_holders();
		test_owned_unreadable_fds();
		test_unprivileged_start();
	}
	return tap_done();
}
