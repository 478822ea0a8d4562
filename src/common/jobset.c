/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The jobs holding the exporter and their sets: sorted arrays, and a
 * strict parser that salvages what it can from a damaged file. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jobset.h"
#include "sets.h"

void jobset_init(struct jobset *set)
{
	set->ids = NULL;
	set->masks = NULL;
	set->n = set->cap = 0;
	set->nnames = 0;
}

void jobset_free(struct jobset *set)
{
	free(set->ids);
	free(set->masks);
	jobset_init(set);
}

int jobset_bit(struct jobset *set, const char *name, size_t len)
{
	int i;

	for (i = 0; i < set->nnames; i++)
		if (strlen(set->names[i]) == len && !memcmp(set->names[i], name, len))
			return i;
	if (!(len == 1 && name[0] == '-') && !sets_valid_name(name, len))
		return -1;
	if (set->nnames == JOBSET_SETS_MAX)
		return -1;
	memcpy(set->names[set->nnames], name, len);
	set->names[set->nnames][len] = '\0';
	return set->nnames++;
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

int jobset_hold(struct jobset *set, uint32_t id, uint32_t mask)
{
	size_t i = lower_bound(set, id);

	if (i < set->n && set->ids[i] == id) {
		if ((set->masks[i] | mask) == set->masks[i])
			return 0;
		set->masks[i] |= mask;
		return 1;
	}
	if (set->n >= JOBSET_MAX_IDS || mask == 0)
		return -1;
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 16;
		uint32_t *ids = realloc(set->ids, cap * sizeof(*ids)), *masks;

		if (!ids)
			return -1;
		set->ids = ids;
		masks = realloc(set->masks, cap * sizeof(*masks));
		if (!masks)
			return -1;
		set->masks = masks;
		set->cap = cap;
	}
	memmove(set->ids + i + 1, set->ids + i, (set->n - i) * sizeof(*set->ids));
	memmove(set->masks + i + 1, set->masks + i, (set->n - i) * sizeof(*set->masks));
	set->ids[i] = id;
	set->masks[i] = mask;
	set->n++;
	return 1;
}

int jobset_release(struct jobset *set, uint32_t id, uint32_t mask)
{
	size_t i = lower_bound(set, id);

	if (i >= set->n || set->ids[i] != id || !(set->masks[i] & mask))
		return 0;
	set->masks[i] &= ~mask;
	if (set->masks[i])
		return 1;
	memmove(set->ids + i, set->ids + i + 1, (set->n - i - 1) * sizeof(*set->ids));
	memmove(set->masks + i, set->masks + i + 1, (set->n - i - 1) * sizeof(*set->masks));
	set->n--;
	return 1;
}

int jobset_add(struct jobset *set, uint32_t id)
{
	int bit = jobset_bit(set, JOBSET_LEGACY, 1);

	return bit < 0 ? -1 : jobset_hold(set, id, 1u << bit);
}

int jobset_remove(struct jobset *set, uint32_t id)
{
	return jobset_release(set, id, ~0u);
}

uint32_t jobset_mask(const struct jobset *set, uint32_t id)
{
	size_t i = lower_bound(set, id);

	return i < set->n && set->ids[i] == id ? set->masks[i] : 0;
}

size_t jobset_holders(const struct jobset *set, int bit)
{
	size_t i, n = 0;

	for (i = 0; bit >= 0 && bit < 32 && i < set->n; i++)
		n += (set->masks[i] >> bit) & 1;
	return n;
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

/* "spank_ebpf state N", N > 2: a form a newer release writes. */
static bool newer_form(const char *s, size_t l)
{
	const size_t p = sizeof(JOBSET_FORM_PREFIX) - 1;

	return l > p && !memcmp(s, JOBSET_FORM_PREFIX, p) && parse_decimal(s + p, l - p) > 2;
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

/* Form 2's line after the ID: " name[,name...]" into *mask. Returns 0, or
 * -1 with why noted. */
static int parse_names(struct jobset *set, const char *s, size_t l, size_t line,
		       uint32_t *mask, char *why, size_t whylen)
{
	size_t pos = 0;

	*mask = 0;
	if (l == 0) {
		note(why, whylen, "line %zu: a job with no set", line);
		return -1;
	}
	while (pos <= l) {
		const char *c = memchr(s + pos, ',', l - pos);
		size_t n = c ? (size_t)(c - (s + pos)) : l - pos;
		int bit = jobset_bit(set, s + pos, n);

		if (bit < 0 && set->nnames == JOBSET_SETS_MAX) {
			note(why, whylen, "line %zu: more than %d set names", line, JOBSET_SETS_MAX);
			return -1;
		}
		if (bit < 0) {
			note(why, whylen, "line %zu: not a set name", line);
			return -1;
		}
		*mask |= 1u << bit;
		pos += n + 1;
	}
	return 0;
}

/* One line of form 2, "<jobid> <set>[,<set>...]". Returns -1 on ENOMEM,
 * else 0 (problems noted in why). */
static int parse_v2_line(struct jobset *set, const char *s, size_t l, size_t line,
			 char *why, size_t whylen)
{
	const char *sp = memchr(s, ' ', l);
	int64_t v = sp ? parse_decimal(s, (size_t)(sp - s)) : -1;
	uint32_t mask;

	if (v < 0 || !jobset_valid_id((uint64_t)v)) {
		note(why, whylen, "line %zu: not \"<jobid> <set>[,<set>...]\"", line);
		return 0;
	}
	if (parse_names(set, sp + 1, l - (size_t)(sp + 1 - s), line, &mask, why, whylen) < 0)
		return 0;
	/* A repeated job keeps every set any of its lines names: a hold is
	 * never dropped on a guess. */
	if (jobset_mask(set, (uint32_t)v))
		note(why, whylen, "line %zu: duplicate job ID %lld", line, (long long)v);
	if (jobset_hold(set, (uint32_t)v, mask) < 0) {
		if (set->n < JOBSET_MAX_IDS)
			return -1;
		note(why, whylen, "more than %d job IDs", JOBSET_MAX_IDS);
	}
	return 0;
}

int jobset_parse(struct jobset *set, const char *buf, size_t len,
		 char *whybuf, size_t whybuflen)
{
	size_t pos = 0, line = 0, nlines = 0;
	int64_t count = -1;
	char why[160] = "";
	const size_t whylen = sizeof(why);
	bool v2 = false;

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
		int64_t v;

		pos += l + (nl ? 1 : 0);
		line++;
		if (line == 1 && l == sizeof(JOBSET_V2_LINE) - 1 &&
		    !memcmp(s, JOBSET_V2_LINE, l)) {
			v2 = true;
			continue;
		}
		if (line == 1 && newer_form(s, l)) {
			if (whybuf && whybuflen)
				snprintf(whybuf, whybuflen,
					 "line 1: \"%.*s\": a newer form than this release reads (1 and 2)",
					 (int)l, s);
			return 2;
		}
		if (v2) {
			if (parse_v2_line(set, s, l, line, why, whylen) < 0)
				return -1;
			if (set->n >= JOBSET_MAX_IDS && pos < len) {
				note(why, whylen, "more than %d job IDs", JOBSET_MAX_IDS);
				pos = len;
			}
			continue;
		}
		v = parse_decimal(s, l);
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
	if (!v2 && count >= 0 && (size_t)count != nlines)
		note(why, whylen, "count %lld disagrees with %zu job ID lines",
		     (long long)count, nlines);
	if (whybuf && whybuflen)
		snprintf(whybuf, whybuflen, "%s", why);
	return why[0] ? 1 : 0;
}

/* Form 1 says all there is: every job holds only the unit= unit. */
static bool plain_form(const struct jobset *set)
{
	int bit = -1, i;
	size_t k;

	for (i = 0; i < set->nnames; i++)
		if (!strcmp(set->names[i], JOBSET_LEGACY))
			bit = i;
	for (k = 0; k < set->n; k++)
		if (bit < 0 || set->masks[k] != 1u << bit)
			return false;
	return true;
}

/* The names of mask's sets, comma-separated, and their length. */
static size_t names_len(const struct jobset *set, uint32_t mask)
{
	size_t n = 0;
	int i;

	for (i = 0; i < set->nnames; i++)
		if (mask & (1u << i))
			n += strlen(set->names[i]) + 1;
	return n;
}

size_t jobset_text_size(const struct jobset *set)
{
	size_t k, n;

	if (plain_form(set))
		return (set->n + 1) * 11 + 1;
	n = sizeof(JOBSET_V2_LINE) + 1;
	for (k = 0; k < set->n; k++)
		n += 11 + names_len(set, set->masks[k]) + 1;
	return n;
}

size_t jobset_format(const struct jobset *set, char *buf, size_t cap)
{
	bool plain = plain_form(set);
	int order[JOBSET_SETS_MAX], k, j;
	size_t off, i;
	int n;

	/* Names in alphabetical order, whatever order they were met in: one
	 * text for one set of holds. */
	for (k = 0; k < set->nnames; k++) {
		for (j = k; j > 0 && strcmp(set->names[order[j - 1]], set->names[k]) > 0; j--)
			order[j] = order[j - 1];
		order[j] = k;
	}

	n = plain ? snprintf(buf, cap, "%zu\n", set->n) : snprintf(buf, cap, "%s\n", JOBSET_V2_LINE);
	if (n < 0 || (size_t)n >= cap)
		return 0;
	off = (size_t)n;
	for (i = 0; i < set->n; i++) {
		int b;
		char sep = ' ';


		n = snprintf(buf + off, cap - off, "%u", set->ids[i]);
		if (n < 0 || (size_t)n >= cap - off)
			return 0;
		off += (size_t)n;
		for (k = 0; !plain && k < set->nnames; k++) {
			b = order[k];
			if (!(set->masks[i] & (1u << b)))
				continue;
			n = snprintf(buf + off, cap - off, "%c%s", sep, set->names[b]);
			if (n < 0 || (size_t)n >= cap - off)
				return 0;
			off += (size_t)n;
			sep = ',';
		}
		if (off + 1 >= cap)
			return 0;
		buf[off++] = '\n';
		buf[off] = '\0';
	}
	return off;
}

void jobset_names_text(const struct jobset *set, uint32_t mask, char *buf, size_t len)
{
	size_t n = 0;
	int b;

	buf[0] = '\0';
	for (b = 0; b < set->nnames && n < len; b++)
		if (mask & (1u << b))
			n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "," : "", set->names[b]);
}
