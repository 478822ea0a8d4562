/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One bounded HTTP GET of a probe set's /metrics, by address (no name
 * lookup), for `spank-ebpf report`; and the libcurl settings every HTTP
 * request of the admin command shares (promapi.c's too). */
#ifndef SPANK_EBPF_HTTPGET_H
#define SPANK_EBPF_HTTPGET_H

#include <stdbool.h>
#include <stddef.h>

#include "listenaddr.h"

#define HTTPGET_USER_AGENT "spank-ebpf/" PACKAGE_VERSION

/* a: the set's parsed listen= (a wildcard host means this host's
 * loopback). Returns the
 * response body (malloc'd, NUL-terminated, at most cap bytes) of a 200
 * answer within timeout_ms, or NULL with err saying why. */
char *http_get_metrics(const struct listen_addr *a, unsigned int timeout_ms, size_t cap,
		       char *err, size_t errlen);

/* A libcurl easy handle (a CURL *, void * here so that users of this
 * header need no curl.h) with what every request of the command has:
 * libcurl's global state made first (once: the command is
 * single-threaded), http only (https too when tls), no redirects, no
 * proxy from the environment, no signals, no progress meter, a fixed
 * User-Agent. NULL with err when libcurl cannot. */
void *http_curl_handle(bool tls, char *err, size_t errlen);

#endif
