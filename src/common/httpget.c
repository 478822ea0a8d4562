/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A GET of /metrics, bounded in time and size. See httpget.h. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "httpget.h"

/* "HOST:PORT" into a numeric host (wildcards made loopback) and port. */
static int httpget_split(const char *listen, char *host, size_t hlen, char *port, size_t plen)
{
	const char *colon = strrchr(listen, ':');
	size_t n;

	if (!colon || !colon[1] || strlen(colon + 1) >= plen)
		return -1;
	snprintf(port, plen, "%s", colon + 1);
	n = (size_t)(colon - listen);
	if (n >= 2 && listen[0] == '[' && listen[n - 1] == ']') {
		listen++;
		n -= 2;
	}
	if (n >= hlen)
		return -1;
	memcpy(host, listen, n);
	host[n] = '\0';
	if (n == 0 || !strcmp(host, "0.0.0.0"))
		snprintf(host, hlen, "127.0.0.1");
	else if (!strcmp(host, "::"))
		snprintf(host, hlen, "::1");
	return 0;
}

char *http_get_metrics(const char *listen, unsigned int timeout_ms, size_t cap, char *err,
		       size_t errlen)
{
	struct addrinfo hints, *ai = NULL;
	long long deadline = clock_us() + (long long)timeout_ms * 1000;
	char host[80], port[16], req[160], *buf = NULL, *body;
	size_t len = 0;
	int fd = -1, soerr = 0, rc;
	socklen_t sl = sizeof(soerr);
	ssize_t n;

	if (httpget_split(listen, host, sizeof(host), port, sizeof(port)) < 0) {
		snprintf(err, errlen, "\"%s\" is not HOST:PORT", listen);
		return NULL;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(host, port, &hints, &ai);
	if (rc != 0) {
		snprintf(err, errlen, "\"%s\" is not a numeric address and port: %s", listen, gai_strerror(rc));
		return NULL;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS)) {
		snprintf(err, errlen, "cannot connect to %s: %s", listen, strerror(errno));
		goto fail;
	}
	if (clock_wait_fd(fd, POLLOUT, deadline) <= 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0 || soerr) {
		snprintf(err, errlen, "cannot connect to %s: %s", listen,
			 soerr ? strerror(soerr) : "timed out");
		goto fail;
	}
	snprintf(req, sizeof(req), "GET /metrics HTTP/1.0\r\nHost: %s\r\nAccept: text/plain\r\n\r\n", listen);
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) != (ssize_t)strlen(req)) {
		snprintf(err, errlen, "cannot send to %s: %s", listen, strerror(errno));
		goto fail;
	}
	buf = malloc(cap + 1);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	for (;;) {
		if (clock_wait_fd(fd, POLLIN, deadline) <= 0) {
			snprintf(err, errlen, "%s did not answer within %u ms", listen, timeout_ms);
			goto fail;
		}
		n = recv(fd, buf + len, cap - len, 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			snprintf(err, errlen, "reading from %s: %s", listen, strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len == cap) {
			snprintf(err, errlen, "%s answered more than %zu bytes", listen, cap);
			goto fail;
		}
	}
	buf[len] = '\0';
	if (strncmp(buf, "HTTP/1.", 7) || strncmp(buf + 8, " 200", 4)) {
		snprintf(err, errlen, "%s answered \"%.*s\"", listen, (int)strcspn(buf, "\r\n"), buf);
		goto fail;
	}
	body = strstr(buf, "\r\n\r\n");
	if (!body) {
		snprintf(err, errlen, "%s sent no body", listen);
		goto fail;
	}
	body += 4;
	memmove(buf, body, len - (size_t)(body - buf) + 1);
	close(fd);
	freeaddrinfo(ai);
	return buf;
fail:
	free(buf);
	if (fd >= 0)
		close(fd);
	freeaddrinfo(ai);
	return NULL;
}
