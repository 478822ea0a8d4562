/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "httpurl.h"

/* A host as libcurl and the resolver read it: what inet_aton takes is an
 * address to them ("0x7f.1", "010.0.0.1" and "2130706433" included, in
 * hex, octal or one number), so it must be one inet_pton reads the same
 * (a plain dotted quad); else a name of letters, digits, '-' and '.'; or
 * an IPv6 address in brackets. */
static int httpurl_host_check(const char *h, size_t len, char *why, size_t whylen)
{
	char buf[HTTPURL_MAX];
	unsigned char addr[16];
	struct in_addr any;
	size_t i;

	if (!len || len >= sizeof(buf)) {
		snprintf(why, whylen, "no host");
		return -1;
	}
	memcpy(buf, h, len);
	buf[len] = 0;
	if (buf[0] == '[') {
		if (len < 3 || buf[len - 1] != ']') {
			snprintf(why, whylen, "an IPv6 host needs its closing ']'");
			return -1;
		}
		buf[len - 1] = 0;
		if (inet_pton(AF_INET6, buf + 1, addr) != 1) {
			snprintf(why, whylen, "the host in brackets is not an IPv6 address as inet_pton reads it");
			return -1;
		}
		return 0;
	}
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)buf[i];

		if (!isalnum(c) && c != '-' && c != '.') {
			snprintf(why, whylen, "the host has a character a host name cannot have (letters, digits, '-' and '.')");
			return -1;
		}
	}
	if (inet_aton(buf, &any) && inet_pton(AF_INET, buf, addr) != 1) {
		snprintf(why, whylen, "the host reads as a number, but not as an IPv4 address as inet_pton reads it (four decimal numbers 0-255 without leading zeros): resolvers would read it in hex or octal");
		return -1;
	}
	return 0;
}

/* The port of the authority h..end: after the last ':' not inside
 * brackets (an IPv6 address's), or NULL. */
static const char *httpurl_port(const char *h, const char *end)
{
	size_t i;

	for (i = (size_t)(end - h); i > 0; i--) {
		if (h[i - 1] == ']')
			return NULL;
		if (h[i - 1] == ':')
			return h + i;
	}
	return NULL;
}

int httpurl_check(const char *url, char *why, size_t whylen)
{
	const char *h, *end, *port;
	size_t i, len = strlen(url);
	unsigned long p;

	if (len >= HTTPURL_MAX) {
		snprintf(why, whylen, "longer than %d bytes", HTTPURL_MAX - 1);
		return -1;
	}
	if (!strncmp(url, "http://", 7))
		h = url + 7;
	else if (!strncmp(url, "https://", 8))
		h = url + 8;
	else {
		snprintf(why, whylen, "not an http:// or https:// URL");
		return -1;
	}
	for (i = 0; i < len; i++)
		if ((unsigned char)url[i] <= ' ' || url[i] == 0x7f || url[i] == '\\') {
			snprintf(why, whylen, "a URL has no spaces, control characters or backslashes");
			return -1;
		}
	end = h + strcspn(h, "/?#");
	if (*end == '?' || *end == '#' || strpbrk(end, "?#")) {
		snprintf(why, whylen, "no query or fragment: the queries are the command's own");
		return -1;
	}
	if (memchr(h, '@', (size_t)(end - h))) {
		snprintf(why, whylen, "no user or password in the URL: give them in the prometheus_netrc= file");
		return -1;
	}
	port = httpurl_port(h, end);
	if (httpurl_host_check(h, port ? (size_t)(port - 1 - h) : (size_t)(end - h), why, whylen) < 0)
		return -1;
	if (port) {
		char *e;

		errno = 0;
		p = strtoul(port, &e, 10);
		if (port == end || !isdigit((unsigned char)*port) || e != end || errno || p < 1 ||
		    p > 65535) {
			snprintf(why, whylen, "the port is not a decimal number 1-65535");
			return -1;
		}
	}
	return 0;
}

/* Does host (len bytes, as httpurl_check took it) name this host in
 * every resolver's and curl's reading: localhost and its subdomains (RFC
 * 6761; curl answers them itself), 127.0.0.0/8, ::1, the unspecified
 * addresses (a connect to them reaches this host) and IPv4-mapped forms
 * of those. Decided from the text alone, without resolving: the plugin
 * parses the line in every job, and the verdict must be the same on
 * every host that reads it. */
static bool httpurl_host_is_local(const char *h, size_t len)
{
	static const char lh[] = "localhost";
	const size_t lhl = sizeof(lh) - 1;
	char buf[HTTPURL_MAX];
	unsigned char a[16];

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, h, len);
	buf[len] = 0;
	if (len && buf[len - 1] == '.')
		buf[--len] = 0;
	if (len >= lhl && !strcasecmp(buf + len - lhl, lh) && (len == lhl || buf[len - lhl - 1] == '.'))
		return true;
	if (inet_pton(AF_INET, buf, a) == 1)
		return a[0] == 127 || a[0] == 0;
	if (buf[0] == '[' && len > 2) {
		static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

		buf[len - 1] = 0;
		if (inet_pton(AF_INET6, buf + 1, a) != 1)
			return false;
		if (IN6_IS_ADDR_LOOPBACK((struct in6_addr *)(void *)a) ||
		    IN6_IS_ADDR_UNSPECIFIED((struct in6_addr *)(void *)a))
			return true;
		return !memcmp(a, mapped, sizeof(mapped)) && (a[12] == 127 || a[12] == 0);
	}
	return false;
}

int httpurl_check_local(const char *url, bool have_ca, char *why, size_t whylen)
{
	bool https = !strncmp(url, "https://", 8);
	const char *h = url + (https ? 8 : 7), *end = h + strcspn(h, "/"), *port;
	unsigned long p = https ? 443 : 80;

	if (https && have_ca)
		return 0;
	port = httpurl_port(h, end);
	if (port)
		p = strtoul(port, NULL, 10);
	if (p < HTTPURL_PORT_UNPRIVILEGED ||
	    !httpurl_host_is_local(h, port ? (size_t)(port - 1 - h) : (size_t)(end - h)))
		return 0;
	snprintf(why, whylen,
		 "prometheus is on this host (loopback) at port %lu, which any local user may bind first: put Prometheus on a privileged port (below %d), or use https with prometheus_ca=",
		 p, HTTPURL_PORT_UNPRIVILEGED);
	return -1;
}
