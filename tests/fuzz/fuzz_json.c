/* Fuzzes the JSON reader, and Prometheus' answers read with it. Invariants: a refusal is one printable message
 * and an empty document; an accepted text's tokens nest inside each other
 * and inside the text, the walkers visit each container's children as
 * many times as its size says, string copies agree whatever the buffer,
 * the tokens written back without whitespace parse again into the same
 * tree, and a cap of one token fewer is refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "json.h"
#include "promapi.h"
#include "promtext.h"

#define FUZZ_TOKENS 512

/* Token t written back compactly into out at *at (scalars as they were). */
static void fuzz_emit(const struct json_doc *doc, int t, char *out, size_t *at)
{
	const struct json_tok *k = &doc->tok[t];
	int c;

	if (k->type == JSON_STRING) {
		memcpy(out + *at, doc->text + k->start - 1, (size_t)(k->end - k->start) + 2);
		*at += (size_t)(k->end - k->start) + 2;
		return;
	}
	if (k->type != JSON_OBJECT && k->type != JSON_ARRAY) {
		memcpy(out + *at, doc->text + k->start, (size_t)(k->end - k->start));
		*at += (size_t)(k->end - k->start);
		return;
	}
	out[(*at)++] = k->type == JSON_OBJECT ? '{' : '[';
	for (c = json_first(doc, t); c >= 0; c = json_next(doc, c)) {
		if (c != t + 1)
			out[(*at)++] = ',';
		fuzz_emit(doc, c, out, at);
		if (k->type == JSON_OBJECT) {
			out[(*at)++] = ':';
			fuzz_emit(doc, c + 1, out, at);
		}
	}
	out[(*at)++] = k->type == JSON_OBJECT ? '}' : ']';
}

static void fuzz_string(const struct json_doc *doc, int t, size_t size)
{
	char *whole = malloc(size + 1), small[8];
	int n = json_string(doc, t, whole, size + 1);
	size_t len;

	FUZZ_CHECK(whole);
	/* Escapes only ever shorten: the value fits in the text's size. */
	FUZZ_CHECK(n >= -1 && n <= doc->tok[t].end - doc->tok[t].start);
	if (n >= 0) {
		FUZZ_CHECK(strlen(whole) == (size_t)n && json_eq(doc, t, whole));
		if (n > 0)
			FUZZ_CHECK(!json_eq(doc, t, whole + 1));
	}
	for (len = 1; len <= sizeof(small); len++) {
		FUZZ_CHECK(json_string(doc, t, small, len) == n);
		if (n >= 0)
			FUZZ_CHECK(strlen(small) < len && !strncmp(small, whole, strlen(small)) &&
				   ((size_t)n >= len || !strcmp(small, whole)));
	}
	free(whole);
}

static void fuzz_tree(const struct json_doc *doc, const char *text, size_t size)
{
	int i, c, count;

	FUZZ_CHECK(doc->n >= 1 && doc->n <= FUZZ_TOKENS && doc->tok[0].parent == -1 &&
		   doc->tok[0].next == doc->n);
	for (i = 0; i < doc->n; i++) {
		const struct json_tok *k = &doc->tok[i];
		int len = k->end - k->start;
		double v;

		FUZZ_CHECK(k->start >= 0 && k->start <= k->end && (size_t)k->end <= size);
		FUZZ_CHECK(k->next > i && k->next <= doc->n);
		if (i > 0) {
			const struct json_tok *p = &doc->tok[k->parent];

			FUZZ_CHECK(k->parent >= 0 && k->parent < i);
			FUZZ_CHECK(p->type == JSON_OBJECT || p->type == JSON_ARRAY);
			FUZZ_CHECK(k->next <= p->next && k->start > p->start && k->end < p->end);
		}
		FUZZ_CHECK(json_value_of(doc, i) == (k->key ? i + 1 : -1));
		FUZZ_CHECK(!k->key || (k->type == JSON_STRING && doc->tok[k->parent].type == JSON_OBJECT &&
				       i + 1 < doc->n && doc->tok[i + 1].parent == k->parent &&
				       !doc->tok[i + 1].key));
		switch (k->type) {
		case JSON_OBJECT:
		case JSON_ARRAY:
			FUZZ_CHECK(text[k->start] == (k->type == JSON_OBJECT ? '{' : '[') &&
				   text[k->end - 1] == (k->type == JSON_OBJECT ? '}' : ']'));
			count = 0;
			for (c = json_first(doc, i); c >= 0; c = json_next(doc, c)) {
				FUZZ_CHECK(doc->tok[c].parent == i && ++count <= k->size);
				FUZZ_CHECK(k->type == JSON_ARRAY || doc->tok[c].key);
				if (k->type == JSON_ARRAY)
					FUZZ_CHECK(json_at(doc, i, count - 1) == c);
				else
					FUZZ_CHECK(json_next(doc, c + 1) == (json_next(doc, c) < 0 ? -1 : json_next(doc, c) + 1));
			}
			FUZZ_CHECK(count == k->size && json_size(doc, i) == k->size);
			FUZZ_CHECK(json_at(doc, i, k->size) == -1);
			break;
		case JSON_STRING:
			FUZZ_CHECK(k->start >= 1 && (size_t)k->end < size && text[k->start - 1] == '"' &&
				   text[k->end] == '"');
			FUZZ_CHECK(k->next == i + 1);
			fuzz_string(doc, i, size);
			break;
		case JSON_NUMBER:
			FUZZ_CHECK(len > 0);
			for (c = k->start; c < k->end; c++)
				FUZZ_CHECK(strchr("0123456789+-.eE", text[c]) && text[c]);
			FUZZ_CHECK(json_number(doc, i, &v) >= -1);
			break;
		case JSON_TRUE:
			FUZZ_CHECK(len == 4 && !memcmp(text + k->start, "true", 4));
			break;
		case JSON_FALSE:
			FUZZ_CHECK(len == 5 && !memcmp(text + k->start, "false", 5));
			break;
		case JSON_NULL:
			FUZZ_CHECK(len == 4 && !memcmp(text + k->start, "null", 4));
			break;
		default:
			FUZZ_CHECK(!"a token of no type");
		}
	}
}

/* Each key's value is found by json_get, or an earlier key's of the same
 * name (duplicates: the first wins). */
static void fuzz_keys(const struct json_doc *doc, size_t size)
{
	char *key = malloc(size + 1);
	int i;

	FUZZ_CHECK(key);
	for (i = 0; i < doc->n; i++) {
		int v;

		if (!doc->tok[i].key || json_string(doc, i, key, size + 1) < 0)
			continue;
		v = json_get(doc, doc->tok[i].parent, key);
		FUZZ_CHECK(v > doc->tok[i].parent && v <= i + 1 && doc->tok[v - 1].key &&
			   json_eq(doc, v - 1, key));
	}
	free(key);
}

/* The same text as an /api/v1/query answer (promapi.c, report
 * --cluster): refused with one printable message and nothing kept, or
 * read into samples whose labels the text format's reader takes. */
static void fuzz_promapi(const char *text, size_t size)
{
	struct promapi_vector v;
	char err[700], buf[PROMAPI_LABELS_MAX];
	size_t i;

	if (promapi_parse(text, size, &v, err, sizeof(err)) < 0) {
		FUZZ_CHECK(v.n == 0 && !v.s && fuzz_printable(err));
		return;
	}
	for (i = 0; i < v.n; i++) {
		FUZZ_CHECK(strlen(v.s[i].labels) < PROMAPI_LABELS_MAX);
		/* Every label written is read back: the first one's name. */
		if (v.s[i].labels[0]) {
			char name[PROMAPI_LABELS_MAX];
			size_t n = strcspn(v.s[i].labels, "=");

			FUZZ_CHECK(n < sizeof(name));
			memcpy(name, v.s[i].labels, n);
			name[n] = 0;
			FUZZ_CHECK(prom_label(v.s[i].labels, name, buf, sizeof(buf)));
		}
	}
	promapi_vector_free(&v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct json_doc doc, again;
	char err[128], *out;
	size_t at = 0;
	int i;

	if (json_parse(&doc, text, size, FUZZ_TOKENS, err, sizeof(err)) < 0) {
		FUZZ_CHECK(!strncmp(err, "JSON: ", 6) && fuzz_printable(err));
		FUZZ_CHECK(doc.n == 0 && !doc.tok && json_type(&doc, 0) == JSON_NONE);
		json_free(&doc);
		return 0;
	}
	fuzz_tree(&doc, text, size);
	fuzz_keys(&doc, size);

	/* Written back without whitespace: never longer, the same tree. */
	out = malloc(size + 1);
	FUZZ_CHECK(out);
	fuzz_emit(&doc, 0, out, &at);
	FUZZ_CHECK(at <= size);
	FUZZ_CHECK(json_parse(&again, out, at, doc.n, err, sizeof(err)) == 0 && again.n == doc.n);
	for (i = 0; i < doc.n; i++) {
		const struct json_tok *a = &again.tok[i], *b = &doc.tok[i];

		FUZZ_CHECK(a->type == b->type && a->size == b->size && a->next == b->next &&
			   a->parent == b->parent && a->key == b->key);
		FUZZ_CHECK(a->type == JSON_OBJECT || a->type == JSON_ARRAY ||
			   (a->end - a->start == b->end - b->start &&
			    !memcmp(out + a->start, text + b->start, (size_t)(b->end - b->start))));
	}
	json_free(&again);
	free(out);

	/* One token fewer than the text has: refused as such. */
	if (doc.n > 1) {
		char want[64];

		snprintf(want, sizeof(want), "JSON: more than %d values", doc.n - 1);
		FUZZ_CHECK(json_parse(&again, text, size, doc.n - 1, err, sizeof(err)) == -1 && !strcmp(err, want));
		json_free(&again);
	}
	json_free(&doc);
	fuzz_promapi(text, size);
	return 0;
}
