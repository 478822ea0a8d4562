/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A GET of /metrics, bounded in time and size, by libcurl. See httpget.h. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <curl/curl.h>

#include "httpget.h"

/* CURLOPT_PROTOCOLS_STR came with 7.85.0 and CURLOPT_PROTOCOLS is
 * deprecated since (a warning, so an error under -Werror). */
static CURLcode httpget_set_protocols(CURL *c, bool tls)
{
	CURLcode e;

#if LIBCURL_VERSION_NUM >= 0x075500
	const char *p = tls ? "http,https" : "http";

	e = curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, p);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, p);
#else
	long p = CURLPROTO_HTTP | (tls ? CURLPROTO_HTTPS : 0);

	e = curl_easy_setopt(c, CURLOPT_PROTOCOLS, p);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_REDIR_PROTOCOLS, p);
#endif
	return e;
}

void *http_curl_handle(bool tls, char *err, size_t errlen)
{
	static bool global_done;
	CURLcode e;
	CURL *c;

	if (!global_done) {
		e = curl_global_init(CURL_GLOBAL_DEFAULT);
		if (e != CURLE_OK) {
			snprintf(err, errlen, "libcurl cannot start: %s", curl_easy_strerror(e));
			return NULL;
		}
		global_done = true;
	}
	c = curl_easy_init();
	if (!c) {
		snprintf(err, errlen, "libcurl cannot make a handle");
		return NULL;
	}
	e = httpget_set_protocols(c, tls);
	/* A redirect is an answer of its own, never followed. */
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_MAXREDIRS, 0L);
	/* http_proxy and the like in a caller's environment would send the
	 * request, and what it carries, elsewhere. */
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_PROXY, "");
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_NOPROGRESS, 1L);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_USERAGENT, HTTPGET_USER_AGENT);
#if LIBCURL_VERSION_NUM >= 0x074000
	/* A reply without a status line is no HTTP answer (the default
	 * since 7.66; older ones took it). */
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_HTTP09_ALLOWED, 0L);
#endif
	if (e == CURLE_OK && tls) {
		e = curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
		if (e == CURLE_OK)
			e = curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	}
	if (e != CURLE_OK) {
		snprintf(err, errlen, "libcurl cannot be set up: %s", curl_easy_strerror(e));
		curl_easy_cleanup(c);
		return NULL;
	}
	return c;
}

struct httpget_answer {
	struct sockaddr_storage to; /* the one address a socket may go to */
	char *buf;
	size_t len, cap, limit;
	bool too_big, oom, status_next;
	char status[200]; /* the last status line, as sent */
};

/* libcurl's socket: only to the parsed address, whatever the URL came
 * to (it is numeric: this is the proof). */
static curl_socket_t httpget_open_socket(void *arg, curlsocktype purpose, struct curl_sockaddr *sa)
{
	const struct httpget_answer *ans = arg;
	const struct sockaddr_storage *to = &ans->to;
	bool same = false;

	if (purpose != CURLSOCKTYPE_IPCXN || sa->family != to->ss_family)
		return CURL_SOCKET_BAD;
	if (sa->family == AF_INET) {
		const struct sockaddr_in *a = (const void *)&sa->addr, *b = (const void *)to;

		same = a->sin_port == b->sin_port && a->sin_addr.s_addr == b->sin_addr.s_addr;
	} else if (sa->family == AF_INET6) {
		const struct sockaddr_in6 *a = (const void *)&sa->addr, *b = (const void *)to;

		same = a->sin6_port == b->sin6_port &&
		       !memcmp(&a->sin6_addr, &b->sin6_addr, sizeof(b->sin6_addr));
	}
	if (!same)
		return CURL_SOCKET_BAD;
	return socket(sa->family, sa->socktype | SOCK_CLOEXEC, sa->protocol);
}

/* Each header line; the status line (the first after a blank one) kept
 * for the error message. */
static size_t httpget_header(char *data, size_t size, size_t nmemb, void *arg)
{
	struct httpget_answer *ans = arg;
	size_t n = size * nmemb, k = n;

	while (k && (data[k - 1] == '\n' || data[k - 1] == '\r'))
		k--;
	if (ans->status_next) {
		if (k >= sizeof(ans->status))
			k = sizeof(ans->status) - 1;
		memcpy(ans->status, data, k);
		ans->status[k] = 0;
		ans->status_next = false;
	} else if (k == 0) {
		ans->status_next = true;
	}
	return n;
}

/* The body, refused once it reaches limit bytes, whatever the headers
 * said it would be. */
static size_t httpget_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct httpget_answer *ans = arg;
	size_t n = size * nmemb;

	if (n >= ans->limit - ans->len) {
		ans->too_big = true;
		return 0;
	}
	if (ans->len + n + 1 > ans->cap) {
		size_t cap = ans->cap ? ans->cap : 16384;
		char *nb;

		while (cap < ans->len + n + 1)
			cap *= 2;
		if (cap > ans->limit + 1)
			cap = ans->limit + 1;
		nb = realloc(ans->buf, cap);
		if (!nb) {
			ans->oom = true;
			return 0;
		}
		ans->buf = nb;
		ans->cap = cap;
	}
	memcpy(ans->buf + ans->len, data, n);
	ans->len += n;
	ans->buf[ans->len] = 0;
	return n;
}

char *http_get_metrics(const struct listen_addr *a, unsigned int timeout_ms, size_t cap,
		       char *err, size_t errlen)
{
	struct httpget_answer ans = { .limit = cap, .status_next = true };
	const char *listen = a->text;
	char host[INET6_ADDRSTRLEN], url[INET6_ADDRSTRLEN + 32], cerr[CURL_ERROR_SIZE] = "";
	long code = 0, oserr = 0;
	curl_off_t connect_us = 0;
	CURLcode e;
	CURL *c;

	listenaddr_sockaddr(a, true, &ans.to);
	/* The parsed address, never the text again, and written as numbers:
	 * no name is looked up (what check-config accepted is what is read,
	 * listenaddr.h); the socket callback holds libcurl to it. */
	if (!inet_ntop(a->family,
		       a->family == AF_INET6 ? (const void *)&((struct sockaddr_in6 *)&ans.to)->sin6_addr
					     : (const void *)&((struct sockaddr_in *)&ans.to)->sin_addr,
		       host, sizeof(host))) {
		snprintf(err, errlen, "cannot connect to %s: not an address", listen);
		return NULL;
	}
	snprintf(url, sizeof(url), a->family == AF_INET6 ? "http://[%s]:%u/metrics" : "http://%s:%u/metrics", host,
		 a->port);
	c = http_curl_handle(false, err, errlen);
	if (!c)
		return NULL;
	e = curl_easy_setopt(c, CURLOPT_URL, url);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, httpget_open_socket);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, &ans);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, httpget_header);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_HEADERDATA, &ans);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, httpget_body);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_WRITEDATA, &ans);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	if (e == CURLE_OK)
		e = curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
	if (e != CURLE_OK) {
		snprintf(err, errlen, "libcurl cannot be set up: %s", curl_easy_strerror(e));
		goto fail;
	}
	e = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_getinfo(c, CURLINFO_OS_ERRNO, &oserr);
	curl_easy_getinfo(c, CURLINFO_CONNECT_TIME_T, &connect_us);
	if (ans.too_big) {
		snprintf(err, errlen, "%s answered more than %zu bytes", listen, cap);
		goto fail;
	}
	if (ans.oom) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (e == CURLE_COULDNT_CONNECT) {
		snprintf(err, errlen, "cannot connect to %s: %s", listen,
			 oserr ? strerror((int)oserr) : cerr[0] ? cerr : curl_easy_strerror(e));
		goto fail;
	}
	if (e == CURLE_OPERATION_TIMEDOUT) {
		if (connect_us == 0)
			snprintf(err, errlen, "cannot connect to %s: timed out", listen);
		else
			snprintf(err, errlen, "%s did not answer within %u ms", listen, timeout_ms);
		goto fail;
	}
	if (e != CURLE_OK && !code) {
		snprintf(err, errlen, "reading from %s: %s", listen, cerr[0] ? cerr : curl_easy_strerror(e));
		goto fail;
	}
	if (code != 200) {
		/* As sent: the caller makes it printable. */
		snprintf(err, errlen, "%s answered \"%s\"", listen, ans.status);
		goto fail;
	}
	if (e != CURLE_OK) {
		snprintf(err, errlen, "reading from %s: %s", listen, cerr[0] ? cerr : curl_easy_strerror(e));
		goto fail;
	}
	curl_easy_cleanup(c);
	if (!ans.buf)
		ans.buf = calloc(1, 1);
	if (!ans.buf)
		snprintf(err, errlen, "out of memory");
	return ans.buf;
fail:
	curl_easy_cleanup(c);
	free(ans.buf);
	return NULL;
}
