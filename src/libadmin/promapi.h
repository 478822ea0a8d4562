/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Asking Prometheus' HTTP API for a job's figures, for `spank-ebpf report`
 * on a login node: one instant query (/api/v1/query) at a time, by
 * libcurl on one connection kept for the command's run, bounded in time
 * and size, no redirects, http and https only; the answer read strictly
 * (json-c, its size and shape bounded) into samples whose labels read
 * as the text format's (promtext.h), so one reader serves the node's
 * exporters and Prometheus.
 * The URL is checked as httpurl.h says, here again before each query. */
#ifndef SPANK_EBPF_PROMAPI_H
#define SPANK_EBPF_PROMAPI_H

#include <stdbool.h>
#include <stddef.h>

#include "httpurl.h"

#define PROMAPI_URL_MAX HTTPURL_MAX
/* An answer larger than this is refused: about 40,000 series. */
#define PROMAPI_BODY_MAX (8u << 20)
#define PROMAPI_LABELS_MAX 256

struct promapi_conn;

struct promapi {
	const char *url;      /* prometheus=: checked by httpurl_check */
	const char *cacert;   /* prometheus_ca=: a CA file for https, or NULL */
	const char *netrc;    /* prometheus_netrc=: basic auth, or NULL */
	unsigned int timeout; /* seconds, the whole query */
	struct promapi_conn *conn; /* made by the first query: promapi_close */
};

/* One element of an instant vector: its labels as the text format writes
 * them (name="value",... escaped), read with prom_label(). */
struct promapi_sample {
	char labels[PROMAPI_LABELS_MAX];
	double value;
};

struct promapi_vector {
	size_t n;
	struct promapi_sample *s; /* malloc'd */
};

/* The present as a query's time: Unix seconds with their fraction (asked
 * at the whole second, Prometheus leaves out samples scraped earlier in
 * it: a short job's may all be). */
double promapi_now(void);

/* Evaluates promql at time at (Unix seconds) into *v (freed with
 * promapi_vector_free, empty on error). Returns 0, or -1 with err saying
 * why (Prometheus' own error text, made printable, when it gave one).
 * The queries of one p share a connection: promapi_close ends it. */
int promapi_query(struct promapi *p, const char *promql, double at,
		  struct promapi_vector *v, char *err, size_t errlen);

/* The connection and what the queries of p kept, freed; p can ask again. */
void promapi_close(struct promapi *p);

/* The parser behind promapi_query: an /api/v1/query answer (body, len
 * bytes) into *v. Returns 0, or -1 with err. */
int promapi_parse(const char *body, size_t len, struct promapi_vector *v, char *err,
		  size_t errlen);

void promapi_vector_free(struct promapi_vector *v);

#endif
