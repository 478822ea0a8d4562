/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Prometheus text format, the little `report` needs. See promtext.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "promtext.h"

int prom_parse_line(char *line, struct prom_sample *s)
{
	char *p = line, *end;

	p += strspn(p, " \t");
	if (*p == '\0' || *p == '\n' || *p == '#')
		return 0;
	s->name = p;
	p += strspn(p, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:");
	if (p == s->name)
		return -1;
	s->labels = "";
	if (*p == '{') {
		bool quoted = false;
		char *l = p + 1;

		*p++ = '\0';
		/* The closing brace outside a quoted value. */
		for (; *p && (quoted || *p != '}'); p++) {
			if (quoted && *p == '\\' && p[1])
				p++;
			else if (*p == '"')
				quoted = !quoted;
		}
		if (*p != '}')
			return -1;
		*p++ = '\0';
		s->labels = l;
	} else if (*p == ' ' || *p == '\t') {
		*p++ = '\0';
	} else {
		return -1;
	}
	p += strspn(p, " \t");
	s->value = strtod(p, &end);
	if (end == p || (*end && !strchr(" \t\r\n", *end)))
		return -1;
	return 1;
}

bool prom_label(const char *labels, const char *key, char *buf, size_t len)
{
	size_t klen = strlen(key), n = 0;
	const char *p = labels;

	while (*p) {
		const char *name = p;
		bool match;

		p += strcspn(p, "=");
		if (*p != '=' || p[1] != '"')
			return false;
		match = (size_t)(p - name) == klen && !strncmp(name, key, klen);
		p += 2;
		for (; *p && *p != '"'; p++) {
			char c = *p;

			if (c == '\\' && p[1]) {
				c = *++p == 'n' ? '\n' : *p;
			}
			if (match && n + 1 < len)
				buf[n++] = c;
		}
		if (*p != '"')
			return false;
		if (match) {
			if (len)
				buf[n] = '\0';
			return true;
		}
		p++;
		p += strspn(p, ", ");
	}
	return false;
}

void prom_hist_bucket(struct prom_hist *h, double le, double cum)
{
	int i, j;

	for (i = 0; i < h->n; i++)
		if (h->le[i] == le) {
			h->cum[i] = cum;
			return;
		}
	if (h->n >= PROM_BUCKETS_MAX)
		return;
	/* Kept sorted by bound. */
	for (i = 0; i < h->n && h->le[i] < le; i++)
		;
	for (j = h->n; j > i; j--) {
		h->le[j] = h->le[j - 1];
		h->cum[j] = h->cum[j - 1];
	}
	h->le[i] = le;
	h->cum[i] = cum;
	h->n++;
}

double prom_hist_at(const struct prom_hist *h, double le)
{
	double at = 0;
	int i;

	for (i = 0; i < h->n && h->le[i] <= le; i++)
		at = h->cum[i];
	return at;
}

void prom_hist_add(struct prom_hist *sum, const struct prom_hist *h)
{
	struct prom_hist out;
	int i = 0, j = 0;

	memset(&out, 0, sizeof(out));
	/* Both bound lists are sorted: their union, in order. */
	while (i < sum->n || j < h->n) {
		double le;

		if (j == h->n || (i < sum->n && sum->le[i] < h->le[j]))
			le = sum->le[i++];
		else if (i == sum->n || h->le[j] < sum->le[i])
			le = h->le[j++];
		else
			le = sum->le[i++], j++;
		/* No room: the bounds in between are left out, the largest
		 * kept last, so the total stays whole. */
		if (out.n == PROM_BUCKETS_MAX)
			out.n--;
		out.le[out.n] = le;
		out.cum[out.n++] = prom_hist_at(sum, le) + prom_hist_at(h, le);
	}
	*sum = out;
}

double prom_hist_quantile(const struct prom_hist *h, double q)
{
	double total, rank, lower = 0, below = 0;
	int i;

	if (h->n == 0)
		return -1;
	total = h->cum[h->n - 1];
	if (total <= 0)
		return -1;
	rank = q * total;
	for (i = 0; i < h->n; i++) {
		if (h->cum[i] >= rank && h->cum[i] > 0)
			break;
		lower = h->le[i];
		below = h->cum[i];
	}
	if (i == h->n)
		i = h->n - 1;
	/* The +Inf bucket has no width: its lower bound is the answer. */
	if (isinf(h->le[i]))
		return lower;
	if (h->cum[i] == below)
		return h->le[i];
	return lower + (h->le[i] - lower) * (rank - below) / (h->cum[i] - below);
}
