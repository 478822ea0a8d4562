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

#include <stdbool.h>
#include <stddef.h>

#define HTTPURL_MAX 256

/* Is url one to ask? Returns 0, or -1 with why (printable, without the
 * URL: it may hold a secret the check refuses). */
int httpurl_check(const char *url, char *why, size_t whylen);

/* The first port any user may bind (the kernel's default for
 * net.ipv4.ip_unprivileged_port_start; fixed here: one verdict on every
 * host that reads the line). */
#define HTTPURL_PORT_UNPRIVILEGED 1024

/* A url httpurl_check took, with whether prometheus_ca= is given: is it
 * one that cannot be this host's on a port any local user may bind
 * first? A process of any uid listening there would answer the report
 * and the summary Slurm keeps. Refused: this host (loopback, localhost,
 * the unspecified address) at 1024 or above, unless https with a CA.
 * Returns 0, or -1 with why naming the fix. */
int httpurl_check_local(const char *url, bool have_ca, char *why, size_t whylen);

#endif
