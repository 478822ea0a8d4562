/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The prometheus= URL, checked where the plugin line is parsed (config.c)
 * and again before the admin command asks (promapi.c): the check lives in
 * the core so that the plugin, which only parses the line, carries no
 * HTTP client.
 *
 * A URL is taken as an HTTP client reads it: http or https, a host name or
 * a numeric address inet_pton accepts (never "0x7f.1" or "010.0.0.1",
 * which resolvers read as hex or octal), an optional decimal port and
 * path; no user:password (credentials belong in the netrc file, out of
 * argv and of messages), no query or fragment. */
#ifndef SPANK_EBPF_HTTPURL_H
#define SPANK_EBPF_HTTPURL_H

#include <stddef.h>

#define HTTPURL_MAX 256

/* Is url one to ask? Returns 0, or -1 with why (printable, without the
 * URL: it may hold a secret the check refuses). */
int httpurl_check(const char *url, char *why, size_t whylen);

#endif
