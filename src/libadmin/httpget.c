/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A GET of /metrics, bounded in time and size. See httpget.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "httpget.h"

char *http_get_metrics(const struct listen_addr *a, unsigned int timeout_ms, size_t cap,
		       char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t salen = listenaddr_sockaddr(a, true, &ss);
	long long deadline = clock_us() + (long long)timeout_ms * 1000;
	const char *listen = a->text;
	char req[160], *buf = NULL, *body;
	size_t len = 0;
	int fd = -1, soerr = 0;
	socklen_t sl = sizeof(soerr);
	ssize_t n;

	/* The parsed address, never the text again: what check-config
	 * accepted is what is read (listenaddr.h). */
	fd = socket(a->family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || (connect(fd, (struct sockaddr *)&ss, salen) < 0 && errno != EINPROGRESS)) {
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
	return buf;
fail:
	free(buf);
	if (fd >= 0)
		close(fd);
	return NULL;
}
