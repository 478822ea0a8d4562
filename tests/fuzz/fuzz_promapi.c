/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzzes the reader of Prometheus' /api/v1/query answers (promapi.c,
 * json-c under it: report --cluster). Invariants: a refusal is one
 * printable message and nothing kept; an accepted answer's samples have
 * labels the text format's reader takes back, each label's value as
 * written, and the same bytes read again give the same samples. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "promapi.h"
#include "promtext.h"

/* Every name="value" of labels read back with prom_label. */
static void fuzz_labels(const char *labels)
{
	char name[PROMAPI_LABELS_MAX], buf[PROMAPI_LABELS_MAX];
	const char *p = labels;

	FUZZ_CHECK(strlen(labels) < PROMAPI_LABELS_MAX);
	while (*p) {
		size_t n = strcspn(p, "=");

		FUZZ_CHECK(n > 0 && n < sizeof(name) && p[n] == '=' && p[n + 1] == '"');
		memcpy(name, p, n);
		name[n] = 0;
		FUZZ_CHECK(prom_label(labels, name, buf, sizeof(buf)));
		/* Past the quoted value: its escapes are \\, \" and \n. */
		p += n + 2;
		while (*p && *p != '"')
			p += *p == '\\' && p[1] ? 2 : 1;
		FUZZ_CHECK(*p == '"');
		p++;
		FUZZ_CHECK(*p == 0 || *p == ',');
		if (*p == ',')
			p++;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct promapi_vector v, again;
	char err[700];
	size_t i;

	if (promapi_parse(text, size, &v, err, sizeof(err)) < 0) {
		FUZZ_CHECK(v.n == 0 && !v.s && err[0] && fuzz_printable(err));
		return 0;
	}
	FUZZ_CHECK(v.s != NULL);
	for (i = 0; i < v.n; i++)
		fuzz_labels(v.s[i].labels);
	FUZZ_CHECK(promapi_parse(text, size, &again, err, sizeof(err)) == 0 && again.n == v.n);
	for (i = 0; i < v.n; i++)
		FUZZ_CHECK(!strcmp(again.s[i].labels, v.s[i].labels) &&
			   (again.s[i].value == v.s[i].value ||
			    (isnan(again.s[i].value) && isnan(v.s[i].value))));
	promapi_vector_free(&again);
	promapi_vector_free(&v);
	return 0;
}
