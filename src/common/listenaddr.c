/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A probe set's listen= address. See listenaddr.h. */
#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "listenaddr.h"

int listenaddr_parse(const char *text, struct listen_addr *a, char *why, size_t whylen)
{
	const char *colon = strrchr(text, ':'), *q;
	char host[LISTENADDR_TEXT_MAX];
	size_t hlen, plen;
	unsigned long port = 0;

	memset(a, 0, sizeof(*a));
	if (strlen(text) >= sizeof(a->text)) {
		snprintf(why, whylen, "longer than %d bytes", LISTENADDR_TEXT_MAX - 1);
		return -1;
	}
	plen = colon ? strlen(colon + 1) : 0;
	if (!colon || plen == 0 || plen > 4 || strspn(colon + 1, "0123456789") != plen ||
	    colon[1] == '0') {
		snprintf(why, whylen, "must be ADDRESS:PORT with a decimal port from 1 to %d (for example 127.0.0.1:941)",
			 LISTENADDR_PORT_MAX);
		return -1;
	}
	for (q = colon + 1; *q; q++)
		port = port * 10 + (unsigned long)(*q - '0');
	if (port > LISTENADDR_PORT_MAX) {
		snprintf(why, whylen, "port %lu is not privileged (1 to %d): any user could bind it first",
			 port, LISTENADDR_PORT_MAX);
		return -1;
	}
	hlen = (size_t)(colon - text);
	snprintf(host, sizeof(host), "%.*s", (int)hlen, text);
	a->port = (unsigned int)port;
	snprintf(a->text, sizeof(a->text), "%s", text);
	if (hlen == 0) {
		a->family = AF_INET;
		a->any = true; /* addr stays 0.0.0.0 */
		return 0;
	}
	if (host[0] == '[') {
		if (hlen < 3 || host[hlen - 1] != ']') {
			snprintf(why, whylen, "an IPv6 address goes in brackets: [ADDRESS]:PORT");
			return -1;
		}
		host[hlen - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, a->addr) != 1) {
			snprintf(why, whylen, "not an IPv6 address (numeric, as inet_pton reads it)");
			return -1;
		}
		a->family = AF_INET6;
		a->any = IN6_IS_ADDR_UNSPECIFIED((const struct in6_addr *)(const void *)a->addr);
		return 0;
	}
	if (inet_pton(AF_INET, host, a->addr) == 1) {
		a->family = AF_INET;
		a->any = !memcmp(a->addr, "\0\0\0\0", 4);
		return 0;
	}
	for (q = host; *q; q++)
		if (isalpha((unsigned char)*q)) {
			snprintf(why, whylen, "host names are not accepted, localhost neither: write the address (127.0.0.1)");
			return -1;
		}
	snprintf(why, whylen, "not an IPv4 address as inet_pton reads it (four decimal numbers 0-255 without leading zeros)");
	return -1;
}

socklen_t listenaddr_sockaddr(const struct listen_addr *a, bool connect,
			      struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (a->family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)a->port);
		memcpy(&s6->sin6_addr, a->addr, 16);
		if (connect && a->any)
			s6->sin6_addr = in6addr_loopback;
		return sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)a->port);
		memcpy(&s4->sin_addr, a->addr, 4);
		if (connect && a->any)
			s4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return sizeof(*s4);
	}
}

int listenaddr_listen(const struct listen_addr *a)
{
	struct sockaddr_storage ss;
	socklen_t len = listenaddr_sockaddr(a, false, &ss);
	int fd, one = 1, e;

	fd = socket(a->family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* Restarts within TIME_WAIT of the last instance must still bind. */
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 128) < 0) {
		e = errno;
		close(fd);
		return -e;
	}
	return fd;
}

int listenaddr_unprivileged_start(void)
{
	char buf[32];
	ssize_t n;
	int fd = open("/proc/sys/net/ipv4/ip_unprivileged_port_start", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (!isdigit((unsigned char)buf[0]))
		return -1;
	return atoi(buf);
}

/* One listening socket's line of /proc/net/tcp{,6} clashes with a. */
static bool listenaddr_clashes(const struct listen_addr *a, int family, const unsigned char *addr,
			       unsigned int port)
{
	static const unsigned char zero[16];
	size_t n = family == AF_INET6 ? 16 : 4;

	if (port != a->port)
		return false;
	if (family != a->family)
		/* Only a dual-stack wildcard spans both families. */
		return family == AF_INET6 && !memcmp(addr, zero, 16);
	return a->any || !memcmp(addr, zero, n) || !memcmp(addr, a->addr, n);
}

/* The inodes of the listening sockets in one /proc/net/tcp file that
 * clash with a, with their owners' uids. Returns how many, or -1. */
static int listenaddr_scan(const char *path, int family, const struct listen_addr *a,
			   unsigned long *inodes, unsigned int *uids, int max)
{
	FILE *f = fopen(path, "re");
	char line[512];
	int n = 0;

	if (!f)
		return family == AF_INET6 && errno == ENOENT ? 0 : -1; /* no IPv6 here */
	if (!fgets(line, sizeof(line), f)) { /* the header */
		fclose(f);
		return 0;
	}
	while (fgets(line, sizeof(line), f) && n < max) {
		char local[64], st[8];
		unsigned int port, uid;
		unsigned long inode;
		unsigned char addr[16];
		size_t i, hexlen = family == AF_INET6 ? 32 : 8;

		if (sscanf(line, "%*s %63[0-9A-Fa-f]:%x %*s %7s %*s %*s %*s %u %*s %lu", local, &port, st,
			   &uid, &inode) != 5 || strlen(local) != hexlen || strcmp(st, "0A"))
			continue;
		/* The kernel prints each 32-bit word of the address as it is in
		 * memory, read as a host-order number: put the words back. */
		for (i = 0; i < hexlen / 8; i++) {
			char word[9];
			uint32_t v;

			memcpy(word, local + 8 * i, 8);
			word[8] = '\0';
			v = (uint32_t)strtoul(word, NULL, 16);
			memcpy(addr + 4 * i, &v, 4);
		}
		if (!listenaddr_clashes(a, family, addr, port))
			continue;
		inodes[n] = inode;
		uids[n++] = uid;
	}
	fclose(f);
	return n;
}

/* The process's name from /proc/PID/comm, printable. */
static void listenaddr_comm(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	size_t i;
	int fd;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0) {
		buf[0] = '\0';
		return;
	}
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	/* Any user names their process: made printable before a terminal. */
	for (i = 0; buf[i]; i++)
		if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] >= 0x7f)
			buf[i] = '?';
}

/* Whether process pid has an fd on socket inode: 1 yes, 0 no, -1 its
 * fds cannot be looked at (another user's, for a caller not root). */
static int listenaddr_pid_has(pid_t pid, unsigned long inode)
{
	char path[64], target[64], want[40];
	struct dirent *e;
	DIR *d;
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	snprintf(want, sizeof(want), "socket:[%lu]", inode);
	d = opendir(path);
	if (!d)
		return errno == EACCES || errno == EPERM ? -1 : 0;
	while (!found && (e = readdir(d))) {
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		n = readlinkat(dirfd(d), e->d_name, target, sizeof(target) - 1);
		if (n > 0) {
			target[n] = '\0';
			found = !strcmp(target, want);
		}
	}
	closedir(d);
	return found;
}

int listenaddr_holders(const struct listen_addr *a, struct listen_holder *h, int max)
{
	unsigned long inodes[16];
	unsigned int uids[16];
	int n4, n6, n, i, k = 0;

	n4 = listenaddr_scan("/proc/net/tcp", AF_INET, a, inodes, uids, 16);
	if (n4 < 0)
		return -1;
	n6 = listenaddr_scan("/proc/net/tcp6", AF_INET6, a, inodes + n4, uids + n4, 16 - n4);
	if (n6 < 0)
		return -1;
	n = n4 + n6;
	for (i = 0; i < n && k < max; i++) {
		struct dirent *e;
		DIR *proc = opendir("/proc");
		int before = k;

		while (proc && k < max && (e = readdir(proc))) {
			pid_t pid;

			if (!isdigit((unsigned char)e->d_name[0]))
				continue;
			pid = (pid_t)atoi(e->d_name);
			if (listenaddr_pid_has(pid, inodes[i]) != 1)
				continue;
			h[k].inode = inodes[i];
			h[k].uid = uids[i];
			h[k].pid = pid;
			listenaddr_comm(pid, h[k].comm, sizeof(h[k].comm));
			k++;
		}
		if (proc)
			closedir(proc);
		if (k == before && k < max) { /* nobody we can see: still a holder */
			h[k].inode = inodes[i];
			h[k].uid = uids[i];
			h[k].pid = 0;
			h[k].comm[0] = '\0';
			k++;
		}
	}
	return k;
}

void listenaddr_describe(const struct listen_holder *h, char *buf, size_t len)
{
	struct passwd *pw = getpwuid((uid_t)h->uid);
	char name[40] = "?";
	size_t i;

	/* The name only labels the uid for a reader; nothing matches on it. */
	if (pw)
		snprintf(name, sizeof(name), "%s", pw->pw_name);
	for (i = 0; name[i]; i++)
		if ((unsigned char)name[i] < 0x20 || (unsigned char)name[i] >= 0x7f)
			name[i] = '?';
	if (h->pid)
		snprintf(buf, len, "uid %u (%s), pid %d (%s)", h->uid, name, (int)h->pid, h->comm);
	else
		snprintf(buf, len, "uid %u (%s), pid unknown (not visible here)", h->uid, name);
}

/* The real uid of process pid (from /proc/PID/status, readable by
 * anyone), or -1. */
static long listenaddr_pid_uid(pid_t pid)
{
	char path[64], line[256];
	long uid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Uid:", 4)) {
			uid = strtol(line + 4, NULL, 10);
			break;
		}
	fclose(f);
	return uid;
}

int listenaddr_owned(const struct listen_addr *a, const pid_t *pids, int npids,
		     struct listen_holder *stranger)
{
	unsigned long inodes[16];
	unsigned int uids[16];
	int n4, n6, n, i, k;

	memset(stranger, 0, sizeof(*stranger));
	n4 = listenaddr_scan("/proc/net/tcp", AF_INET, a, inodes, uids, 16);
	n6 = n4 < 0 ? -1 : listenaddr_scan("/proc/net/tcp6", AF_INET6, a, inodes + n4, uids + n4, 16 - n4);
	if (n4 < 0 || n6 < 0)
		return 0; /* cannot tell: never trust it */
	n = n4 + n6;
	if (n == 0)
		return -1;
	for (i = 0; i < n; i++) {
		struct listen_holder h[8];
		int nh, mine = 0;

		/* The unit's own processes first: the usual answer, without a
		 * walk of every process. One whose fds we cannot see (a caller
		 * other than root: the unit runs as its own user) holds it when
		 * the socket's owner is its uid: on a privileged port, nobody
		 * unprivileged of another uid could be there. */
		for (k = 0; k < npids && !mine; k++) {
			int has = listenaddr_pid_has(pids[k], inodes[i]);

			mine = has == 1 || (has < 0 && listenaddr_pid_uid(pids[k]) == (long)uids[i]);
		}
		if (mine)
			continue;
		/* Someone else's: name them (the first we can see). */
		stranger->inode = inodes[i];
		stranger->uid = uids[i];
		nh = listenaddr_holders(a, h, 8);
		for (k = 0; k < nh; k++)
			if (h[k].inode == inodes[i]) {
				*stranger = h[k];
				break;
			}
		return 0;
	}
	return 1;
}
