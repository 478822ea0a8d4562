/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The set of job IDs holding the exporter: a sorted array, and a strict
 * parser that salvages what it can from a damaged file. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobset.h"

void jobset_init(struct jobset *set)
{
	set->ids = NULL;
	set->n = set->cap = 0;
}

void jobset_free(struct jobset *set)
{
	free(set->ids);
	jobset_init(set);
}

bool jobset_valid_id(uint64_t id)
{
	return id >= 1 && id <= 0xfffffffdu;
}

/* Index of the first element >= id. */
static size_t lower_bound(const struct jobset *set, uint32_t id)
{
	size_t lo = 0, hi = set->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (set->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

bool jobset_contains(const struct jobset *set, uint32_t id)
{
	size_t i = lower_bound(set, id);

	return i < set->n && set->ids[i] == id;
}

int jobset_add(struct jobset *set, uint32_t id)
{
	size_t i = lower_bound(set, id);

	if (i < set->n && set->ids[i] == id)
		return 0;
	if (set->n >= JOBSET_MAX_IDS)
		return -1;
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 16;
		uint32_t *ids = realloc(set->ids, cap * sizeof(*ids));

		if (!ids)
			return -1;
		set->ids = ids;
		set->cap = cap;
	}
	memmove(set->ids + i + 1, set->ids + i, (set->n - i) * sizeof(*set->ids));
	set->ids[i] = id;
	set->n++;
	return 1;
}

int jobset_remove(struct jobset *set, uint32_t id)
{
	size_t i = lower_bound(set, id);

	if (i >= set->n || set->ids[i] != id)
		return 0;
	memmove(set->ids + i, set->ids + i + 1, (set->n - i - 1) * sizeof(*set->ids));
	set->n--;
	return 1;
}

/* A canonical decimal: digits only, no sign, no leading zero, at most 10
 * digits. Returns -1 otherwise. */
static int64_t parse_decimal(const char *s, size_t len)
{
	int64_t v = 0;
	size_t i;

	if (len == 0 || len > 10 || (len > 1 && s[0] == '0'))
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static void note(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Keeps the first problem found: it is usually the cause of the rest. */
static void note(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	if (why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
}

int jobset_parse(struct jobset *set, const char *buf, size_t len,
		 char *whybuf, size_t whybuflen)
{
	size_t pos = 0, line = 0, nlines = 0;
	int64_t count = -1;
	char why[160] = "";
	const size_t whylen = sizeof(why);

	jobset_free(set);
	if (len > JOBSET_MAX_BYTES) {
		note(why, whylen, "larger than %u bytes", JOBSET_MAX_BYTES);
		len = JOBSET_MAX_BYTES;
	}
	if (len == 0)
		note(why, whylen, "empty file");
	else if (buf[len - 1] != '\n')
		note(why, whylen, "no final newline");
	if (memchr(buf, '\0', len))
		note(why, whylen, "contains NUL bytes");

	while (pos < len) {
		const char *s = buf + pos;
		const char *nl = memchr(s, '\n', len - pos);
		size_t l = nl ? (size_t)(nl - s) : len - pos;
		int64_t v = parse_decimal(s, l);

		pos += l + (nl ? 1 : 0);
		line++;
		if (line == 1) {
			count = v;
			if (v < 0 || v > JOBSET_MAX_IDS)
				note(why, whylen, "line 1: \"%.*s\" is not a valid count",
				     (int)(l < 20 ? l : 20), s);
			continue;
		}
		nlines++;
		if (v < 0 || !jobset_valid_id((uint64_t)v)) {
			note(why, whylen, "line %zu: not a job ID", line);
			continue;
		}
		switch (jobset_add(set, (uint32_t)v)) {
		case 0:
			note(why, whylen, "line %zu: duplicate job ID %lld",
			     line, (long long)v);
			break;
		case -1:
			if (set->n < JOBSET_MAX_IDS)
				return -1;
			note(why, whylen, "more than %d job IDs", JOBSET_MAX_IDS);
			pos = len;
			break;
		}
	}
	if (count >= 0 && (size_t)count != nlines)
		note(why, whylen, "count %lld disagrees with %zu job ID lines",
		     (long long)count, nlines);
	if (whybuf && whybuflen)
		snprintf(whybuf, whybuflen, "%s", why);
	return why[0] ? 1 : 0;
}

size_t jobset_text_size(const struct jobset *set)
{
	return (set->n + 1) * 11 + 1;
}

size_t jobset_format(const struct jobset *set, char *buf, size_t cap)
{
	size_t off, i;
	int n;

	n = snprintf(buf, cap, "%zu\n", set->n);
	if (n < 0 || (size_t)n >= cap)
		return 0;
	off = (size_t)n;
	for (i = 0; i < set->n; i++) {
		n = snprintf(buf + off, cap - off, "%u\n", set->ids[i]);
		if (n < 0 || (size_t)n >= cap - off)
			return 0;
		off += (size_t)n;
	}
	return off;
}
