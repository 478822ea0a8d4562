/* owned_get_metrics: a set's /metrics read only while its unit's
 * processes hold its address, before the GET and after the answer. In a
 * private network namespace, a stand-in exporter (a child whose pid is
 * the unit's, in a cgroup tree of the test's own) answers on
 * 127.0.0.1:941; in one case it lets the port go before it answers and
 * another process (not the unit's) takes it: that answer is not shown. */
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"
#include "listenaddr.h"
#include "ownedget.h"
#include "tap.h"
#include "testutil.h"

#define UNIT "test-exporter.service"
#define BODY "ebpf_exporter_spank_oom_kills_total{jobid=\"5\"} 1\n"


/* The unit's cgroup under root, listing pid as its one process. */
static void unit_is(const char *root, pid_t pid)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/system.slice", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/system.slice/" UNIT, root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/system.slice/" UNIT "/cgroup.procs", root);
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%d\n", (int)pid);
		fclose(f);
	}
}

/* The stand-in exporter: one answer on lfd. With handover, the listening
 * socket is closed once the request is in, the other process told (a
 * byte on to_other) to take the port, and the answer sent once it has
 * (a byte on from_other). */
static void exporter(int lfd, bool handover, int to_other, int from_other)
{
	static const char answer[] = "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n" BODY;
	char req[1024], c = 'x';
	size_t len = 0;
	int s = accept(lfd, NULL, NULL);
	ssize_t n;

	if (s < 0)
		_exit(1);
	while (len < sizeof(req) - 1 && (n = read(s, req + len, sizeof(req) - 1 - len)) > 0) {
		len += (size_t)n;
		req[len] = 0;
		if (strstr(req, "\r\n\r\n"))
			break;
	}
	if (handover) {
		close(lfd);
		if (write(to_other, &c, 1) != 1 || read(from_other, &c, 1) != 1)
			_exit(1);
	}
	if (write(s, answer, sizeof(answer) - 1) != (ssize_t)sizeof(answer) - 1)
		_exit(1);
	close(s);
	pause();
	_exit(0);
}

/* The other process: takes a once told to, says so, holds it. */
static void other(const struct listen_addr *a, int from_exporter, int to_exporter)
{
	char c;
	int fd;

	if (read(from_exporter, &c, 1) != 1)
		_exit(1);
	fd = listenaddr_listen(a);
	if (fd < 0 || write(to_exporter, &c, 1) != 1)
		_exit(1);
	pause();
	_exit(0);
}

/* One read through owned_get_metrics; handover as exporter() says. */
static char *one_read(const char *root, bool handover, char *err, size_t errlen, pid_t *other_pid)
{
	struct listen_addr a;
	struct config cfg;
	char why[100], *body;
	int p1[2], p2[2], lfd;
	pid_t e, o;

	config_parse(&cfg, 0, NULL, NULL, 0);
	snprintf(cfg.cgroup_root, sizeof(cfg.cgroup_root), "%s", root);
	if (listenaddr_parse("127.0.0.1:941", &a, why, sizeof(why)) < 0 || pipe(p1) < 0 || pipe(p2) < 0)
		return NULL;
	lfd = listenaddr_listen(&a);
	if (lfd < 0) {
		snprintf(err, errlen, "cannot listen on 127.0.0.1:941: %s", strerror(-lfd));
		return NULL;
	}
	e = fork();
	if (e == 0)
		exporter(lfd, handover, p1[1], p2[0]);
	close(lfd);
	o = fork();
	if (o == 0)
		other(&a, p1[0], p2[1]);
	*other_pid = o;
	unit_is(root, e);
	body = owned_get_metrics(&cfg, UNIT, &a, 3000, 1 << 20, err, errlen);
	kill(e, SIGKILL);
	kill(o, SIGKILL);
	waitpid(e, NULL, 0);
	waitpid(o, NULL, 0);
	close(p1[0]);
	close(p1[1]);
	close(p2[0]);
	close(p2[1]);
	return body;
}

int main(void)
{
	char root[] = "/tmp/test-ownedget.XXXXXX", err[600], want[200], *body;
	pid_t o;

	if (geteuid() != 0 || tu_private_net() < 0 || !mkdtemp(root)) {
		tap_skip("needs root and a private network namespace (unshare CLONE_NEWNET)");
		return tap_done();
	}
	err[0] = 0;
	body = one_read(root, false, err, sizeof(err), &o);
	ok(body && !strcmp(body, BODY), "the unit's exporter holds the port throughout: its answer (%s)",
	   body ? "read" : err);
	free(body);
	err[0] = 0;
	body = one_read(root, true, err, sizeof(err), &o);
	snprintf(want, sizeof(want), "its address 127.0.0.1:941 is held by uid 0 (root), pid %d (", (int)o);
	ok(!body, "the port taken by another process before the answer came: not shown (%s)",
	   body ? "shown" : "refused");
	ok(!strncmp(err, want, strlen(want)) && strstr(err, "), not by " UNIT),
	   "... said, naming who holds it now: %s", err);
	free(body);
	{
		char cmd[600];

		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		if (system(cmd) != 0)
			tap_diag("could not remove %s", root);
	}
	return tap_done();
}
