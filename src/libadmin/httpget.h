/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One bounded HTTP GET of a probe set's /metrics, by address (no name
 * lookup), for `spank-ebpf report`. */
#ifndef SPANK_EBPF_HTTPGET_H
#define SPANK_EBPF_HTTPGET_H

#include <stddef.h>

#include "listenaddr.h"

/* a: the set's parsed listen= (a wildcard host means this host's
 * loopback). Returns the
 * response body (malloc'd, NUL-terminated, at most cap bytes) of a 200
 * answer within timeout_ms, or NULL with err saying why. */
char *http_get_metrics(const struct listen_addr *a, unsigned int timeout_ms, size_t cap,
		       char *err, size_t errlen);

#endif
