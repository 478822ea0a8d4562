/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A probe set's listen= address: ONE parser for every reader (the sets
 * file's check, the exporter that binds it, report and status that look
 * at it), so what is accepted is exactly what is used. Numeric only:
 *
 *     127.0.0.1:941     IPv4, as inet_pton(AF_INET) reads it (no octal,
 *                       no short forms: "0127.0.0.1", "127.1" refused)
 *     [::1]:941         IPv6, as inet_pton(AF_INET6) reads it
 *     :941              every address (IPv4)
 *
 * Host names, localhost included, are refused: what a name resolves to
 * is not the parser's to decide. The port is a decimal 1..1023, a
 * privileged port: no unprivileged user can bind it before the set's
 * unit does (spank_ebpf(8), "Who can take a set's address"). */
#ifndef SPANK_EBPF_LISTENADDR_H
#define SPANK_EBPF_LISTENADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#define LISTENADDR_PORT_MAX 1023
#define LISTENADDR_TEXT_MAX 64

struct listen_addr {
	int family;              /* AF_INET or AF_INET6 */
	unsigned char addr[16];  /* network order: 4 bytes for AF_INET */
	unsigned int port;
	bool any;                /* empty host: every address */
	char text[LISTENADDR_TEXT_MAX]; /* as written, for messages */
};

/* Parses "HOST:PORT". Returns 0, or -1 with why saying what is wrong
 * (printable, without the text itself). */
int listenaddr_parse(const char *text, struct listen_addr *a, char *why, size_t whylen);

/* The address to bind (connect false) or to connect to (connect true:
 * a wildcard host means this host's loopback). Returns its length. */
socklen_t listenaddr_sockaddr(const struct listen_addr *a, bool connect,
			      struct sockaddr_storage *ss);

/* A socket listening on a (SO_REUSEADDR, close-on-exec). Returns the
 * fd, or -errno. */
int listenaddr_listen(const struct listen_addr *a);

/* net.ipv4.ip_unprivileged_port_start of this network namespace, or -1
 * when it cannot be read. A port at or above it is any user's to bind. */
int listenaddr_unprivileged_start(void);

/* A process holding a listening socket on a's port that a bind of a
 * would clash with. */
struct listen_holder {
	unsigned long inode;  /* the socket's */
	unsigned int uid;     /* the socket's owner, from /proc/net/tcp{,6} */
	pid_t pid;            /* 0: no process of it is visible to us */
	char comm[40];        /* made printable; "" when pid is 0 */
};

/* The holders of the listening sockets a's bind would clash with (the
 * same port on the same address, or a wildcard on either side), at most
 * max. Returns how many, 0 when nothing listens there, -1 when
 * /proc/net/tcp cannot be read. */
int listenaddr_holders(const struct listen_addr *a, struct listen_holder *h, int max);

/* "uid 0 (root), pid 12 (python3)": one holder, for messages. */
void listenaddr_describe(const struct listen_holder *h, char *buf, size_t len);

/* Whether each listening socket on a is held by a process among pids
 * (the set's unit's): 1 yes; 0 no, with *stranger naming a holder of one
 * that is not (pid 0: one we cannot see), also when /proc/net/tcp cannot
 * be read; -1 nothing listens on a. A unit process whose fds the caller
 * cannot look at (not root) holds a socket owned by its uid. */
int listenaddr_owned(const struct listen_addr *a, const pid_t *pids, int npids,
		     struct listen_holder *stranger);

#endif
