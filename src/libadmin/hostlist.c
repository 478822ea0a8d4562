/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostlist.h"

/* Numbers in a range: Slurm's are node indexes, far below this. */
#define HOSTLIST_NUM_MAX 999999999ul

/* One bracket's ranges ("1-3,05,7-8" between '[' and ']'): each range's
 * low and high ends and the width of its low end (zero padding). */
struct hostlist_range {
	unsigned long lo, hi;
	int width;
};

struct hostlist_build {
	size_t max, n;
	struct hostlist *hl;
	char *why;
	size_t whylen;
};

/* A number of digits at *p (moved past it): 0, or -1 when none is. */
static int hostlist_number(const char **p, const char *end, unsigned long *v)
{
	const char *c = *p;

	*v = 0;
	while (c < end && *c >= '0' && *c <= '9') {
		if (*v > HOSTLIST_NUM_MAX / 10)
			return -1;
		*v = *v * 10 + (unsigned long)(*c - '0');
		c++;
	}
	if (c == *p || *v > HOSTLIST_NUM_MAX)
		return -1;
	*p = c;
	return 0;
}

/* How many names the bracket [b, e) gives; 0 when it is not ranges. */
static size_t hostlist_bracket_count(const char *b, const char *e)
{
	size_t count = 0;
	const char *c = b;

	while (c < e) {
		unsigned long lo, hi;

		if (hostlist_number(&c, e, &lo) < 0)
			return 0;
		hi = lo;
		if (c < e && *c == '-') {
			c++;
			if (hostlist_number(&c, e, &hi) < 0 || hi < lo)
				return 0;
		}
		count += hi - lo + 1;
		if (c < e && *c != ',')
			return 0;
		if (c < e && ++c == e)
			return 0; /* a trailing comma */
	}
	return count;
}

/* The range at *c in [*c, e): lo, hi, width; *c moved past its comma. */
static void hostlist_range_at(const char **c, const char *e, struct hostlist_range *r)
{
	const char *s = *c;

	hostlist_number(c, e, &r->lo);
	r->width = (int)(*c - s);
	r->hi = r->lo;
	if (*c < e && **c == '-') {
		(*c)++;
		hostlist_number(c, e, &r->hi);
	}
	if (*c < e && **c == ',')
		(*c)++;
}

/* Every name of the item [p, e) after the prefix pre (len bytes):
 * its text up to the next bracket, then each number of that bracket. */
static int hostlist_item(struct hostlist_build *b, const char *p, const char *e, char *pre, size_t len)
{
	const char *open = memchr(p, '[', (size_t)(e - p)), *close, *c;
	size_t lit = (size_t)((open ? open : e) - p);

	if (len + lit >= HOSTLIST_NAME_MAX) {
		snprintf(b->why, b->whylen, "a name longer than %d bytes", HOSTLIST_NAME_MAX - 1);
		return -1;
	}
	memcpy(pre + len, p, lit);
	len += lit;
	if (!open) {
		pre[len] = 0;
		memcpy(b->hl->name[b->hl->n++], pre, len + 1);
		return 0;
	}
	close = memchr(open, ']', (size_t)(e - open));
	for (c = open + 1; c < close;) {
		struct hostlist_range r;
		unsigned long v;

		hostlist_range_at(&c, close, &r);
		for (v = r.lo; v <= r.hi; v++) {
			int w = snprintf(pre + len, HOSTLIST_NAME_MAX - len, "%0*lu", r.width, v);

			if (w < 0 || len + (size_t)w >= HOSTLIST_NAME_MAX) {
				snprintf(b->why, b->whylen, "a name longer than %d bytes", HOSTLIST_NAME_MAX - 1);
				return -1;
			}
			if (hostlist_item(b, close + 1, e, pre, len + (size_t)w) < 0)
				return -1;
		}
	}
	return 0;
}

/* How many names the item [p, e) gives (its brackets' product), checked
 * against what is left of the bound; 0 and why when it is not one. */
static size_t hostlist_item_count(struct hostlist_build *b, const char *p, const char *e)
{
	size_t count = 1;
	const char *c;

	for (c = p; c < e; c++) {
		const char *close;
		size_t k;

		if (*c == ']') {
			snprintf(b->why, b->whylen, "a ']' without its '['");
			return 0;
		}
		if ((unsigned char)*c <= ' ' || (unsigned char)*c >= 0x7f) {
			snprintf(b->why, b->whylen, "a blank or a byte that is not printable ASCII");
			return 0;
		}
		if (*c != '[')
			continue;
		close = memchr(c, ']', (size_t)(e - c));
		if (!close || memchr(c + 1, '[', (size_t)(close - c - 1))) {
			snprintf(b->why, b->whylen, "a '[' without its ']'");
			return 0;
		}
		k = hostlist_bracket_count(c + 1, close);
		if (k == 0) {
			snprintf(b->why, b->whylen, "brackets that do not hold ranges of numbers (\"1-3,5\")");
			return 0;
		}
		if (k > b->max || count > b->max / k) {
			snprintf(b->why, b->whylen, "more than %zu names", b->max);
			return 0;
		}
		count *= k;
		c = close;
	}
	if (count > b->max - b->n) {
		snprintf(b->why, b->whylen, "more than %zu names", b->max);
		return 0;
	}
	return count;
}

/* The end of the item at p: the first comma outside brackets. */
static const char *hostlist_item_end(const char *p)
{
	int depth = 0;

	for (; *p; p++) {
		if (*p == '[')
			depth++;
		else if (*p == ']' && depth > 0)
			depth--;
		else if (*p == ',' && depth == 0)
			break;
	}
	return p;
}

static int hostlist_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

int hostlist_expand(const char *expr, size_t max, struct hostlist *hl, char *why, size_t whylen)
{
	struct hostlist_build b = { .max = max, .hl = hl, .why = why, .whylen = whylen };
	char pre[HOSTLIST_NAME_MAX];
	const char *p, *e;
	size_t i, out;

	hl->n = 0;
	hl->name = NULL;
	/* First count, so that nothing is written beyond the bound. */
	for (p = expr; *p; p = *e ? e + 1 : e) {
		size_t k;

		e = hostlist_item_end(p);
		if (e == p) {
			snprintf(why, whylen, "an empty name");
			return -1;
		}
		k = hostlist_item_count(&b, p, e);
		if (k == 0)
			return -1;
		b.n += k;
		if (*e && !e[1]) {
			snprintf(why, whylen, "an empty name");
			return -1;
		}
	}
	if (b.n == 0) {
		snprintf(why, whylen, "no names");
		return -1;
	}
	hl->name = malloc(b.n * sizeof(*hl->name));
	if (!hl->name) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	for (p = expr; *p; p = *e ? e + 1 : e) {
		e = hostlist_item_end(p);
		if (hostlist_item(&b, p, e, pre, 0) < 0) {
			hostlist_free(hl);
			return -1;
		}
	}
	qsort(hl->name, hl->n, sizeof(*hl->name), hostlist_cmp);
	for (i = out = 0; i < hl->n; i++)
		if (out == 0 || strcmp(hl->name[out - 1], hl->name[i]))
			memmove(hl->name[out++], hl->name[i], sizeof(*hl->name));
	hl->n = out;
	return 0;
}

long hostlist_find(const struct hostlist *hl, const char *name)
{
	char (*at)[HOSTLIST_NAME_MAX];

	if (!hl->n || strlen(name) >= HOSTLIST_NAME_MAX)
		return -1;
	at = bsearch(name, hl->name, hl->n, sizeof(*hl->name), hostlist_cmp);
	return at ? (long)(at - hl->name) : -1;
}

void hostlist_free(struct hostlist *hl)
{
	free(hl->name);
	hl->name = NULL;
	hl->n = 0;
}
