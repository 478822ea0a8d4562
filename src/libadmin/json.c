/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A strict, bounded JSON reader. See json.h. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

/* Tokens allocated at first; doubled up to the caller's cap. */
#define JSON_TOKENS_FIRST 64

struct json_parser {
	struct json_doc *doc;
	const char *s;
	size_t len, pos;
	int max_tokens;
	char *err;
	size_t errlen;
};

static void json_error(struct json_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void json_error(struct json_parser *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->err || p->errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(p->err, p->errlen, fmt, ap);
	va_end(ap);
}

/* The byte at pos named in a message: never the byte itself unless it is
 * printable ASCII, so a hostile text cannot reach a terminal through it. */
static void json_unexpected(struct json_parser *p, const char *what)
{
	unsigned char c;

	if (p->pos >= p->len) {
		json_error(p, "JSON: unexpected end of text%s at offset %zu", what, p->pos);
		return;
	}
	c = (unsigned char)p->s[p->pos];
	if (c > 0x20 && c < 0x7f && c != '\'')
		json_error(p, "JSON: unexpected '%c'%s at offset %zu", c, what, p->pos);
	else
		json_error(p, "JSON: unexpected byte 0x%02x%s at offset %zu", c, what, p->pos);
}

/* The byte at pos, or -1 at the end of the text (which has no NUL). */
static int json_peek(const struct json_parser *p)
{
	return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

/* RFC 8259's whitespace: these four and nothing else (no \f, \v). */
static void json_skip_ws(struct json_parser *p)
{
	while (p->pos < p->len &&
	       (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n' || p->s[p->pos] == '\r'))
		p->pos++;
}

/* A new token at pos, its subtree still empty; its index or -1. */
static int json_new_tok(struct json_parser *p, enum json_type type, int parent, bool key)
{
	struct json_doc *d = p->doc;
	struct json_tok *t;

	if (d->n >= p->max_tokens) {
		json_error(p, "JSON: more than %d values", p->max_tokens);
		return -1;
	}
	if (d->n == d->cap) {
		int cap = d->cap ? d->cap : JSON_TOKENS_FIRST;
		struct json_tok *grown;

		if (d->cap)
			cap = d->cap > p->max_tokens / 2 ? p->max_tokens : d->cap * 2;
		if (cap > p->max_tokens)
			cap = p->max_tokens;
		grown = realloc(d->tok, (size_t)cap * sizeof(*grown));
		if (!grown) {
			json_error(p, "JSON: out of memory for %d values", cap);
			return -1;
		}
		d->tok = grown;
		d->cap = cap;
	}
	t = &d->tok[d->n];
	memset(t, 0, sizeof(*t));
	t->type = type;
	t->start = t->end = (int)p->pos;
	t->parent = parent;
	t->key = key;
	t->next = d->n + 1;
	return d->n++;
}

static int json_hex4(const char *s)
{
	int i, v = 0;

	for (i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

/* A \uXXXX at pos (on the backslash): the code unit, or -1 when the text
 * has no four hex digits there. */
static int json_parse_u(const struct json_parser *p, size_t pos)
{
	if (pos > p->len || p->len - pos < 6 || p->s[pos] != '\\' || p->s[pos + 1] != 'u')
		return -1;
	return json_hex4(p->s + pos + 2);
}

/* One escape at pos (on its backslash), pos moved past it. */
static int json_parse_escape(struct json_parser *p, int str)
{
	size_t at = p->pos;
	int c, u, lo;

	p->pos++;
	c = json_peek(p);
	if (c < 0) {
		json_error(p, "JSON: unterminated string from offset %d", p->doc->tok[str].start - 1);
		return -1;
	}
	if (c != 'u') {
		if (!c || !strchr("\"\\/bfnrt", c)) {
			if (c > 0x20 && c < 0x7f)
				json_error(p, "JSON: invalid escape '\\%c' at offset %zu", c, at);
			else
				json_error(p, "JSON: invalid escape (byte 0x%02x) at offset %zu", c, at);
			return -1;
		}
		p->pos++;
		return 0;
	}
	u = json_parse_u(p, at);
	if (u < 0) {
		json_error(p, "JSON: invalid \\u escape at offset %zu", at);
		return -1;
	}
	p->pos = at + 6;
	/* UTF-16 surrogates only in pairs, high then low: anything else has
	 * no UTF-8 form. */
	if (u >= 0xd800 && u <= 0xdbff) {
		lo = json_parse_u(p, p->pos);
		if (lo >= 0xdc00 && lo <= 0xdfff) {
			p->pos += 6;
			return 0;
		}
	}
	if (u >= 0xd800 && u <= 0xdfff) {
		json_error(p, "JSON: lone surrogate \\u%04x at offset %zu", (unsigned)u, at);
		return -1;
	}
	return 0;
}

/* A string at pos (on its opening quote). Checked whole here, so that the
 * walkers can undo its escapes without checking again. */
static int json_parse_string(struct json_parser *p, int parent, bool key)
{
	int t = json_new_tok(p, JSON_STRING, parent, key), c;

	if (t < 0)
		return -1;
	p->pos++;
	p->doc->tok[t].start = (int)p->pos;
	while ((c = json_peek(p)) != '"') {
		if (c < 0) {
			json_error(p, "JSON: unterminated string from offset %d", p->doc->tok[t].start - 1);
			return -1;
		}
		if (c < 0x20) {
			json_error(p, "JSON: control character 0x%02x in a string at offset %zu", c, p->pos);
			return -1;
		}
		if (c == '\\') {
			if (json_parse_escape(p, t) < 0)
				return -1;
		} else {
			p->pos++;
		}
	}
	p->doc->tok[t].end = (int)p->pos;
	p->pos++;
	return t;
}

static bool json_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* RFC 8259's number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int json_parse_number(struct json_parser *p, int parent)
{
	int t = json_new_tok(p, JSON_NUMBER, parent, false);

	if (t < 0)
		return -1;
	if (json_peek(p) == '-')
		p->pos++;
	if (json_peek(p) == '0') {
		p->pos++;
		if (json_digit(json_peek(p))) {
			json_error(p, "JSON: number with a leading zero at offset %zu", p->pos - 1);
			return -1;
		}
	} else if (json_digit(json_peek(p))) {
		while (json_digit(json_peek(p)))
			p->pos++;
	} else {
		json_unexpected(p, " in a number");
		return -1;
	}
	if (json_peek(p) == '.') {
		p->pos++;
		if (!json_digit(json_peek(p))) {
			json_unexpected(p, " in a number");
			return -1;
		}
		while (json_digit(json_peek(p)))
			p->pos++;
	}
	if (json_peek(p) == 'e' || json_peek(p) == 'E') {
		p->pos++;
		if (json_peek(p) == '+' || json_peek(p) == '-')
			p->pos++;
		if (!json_digit(json_peek(p))) {
			json_unexpected(p, " in a number");
			return -1;
		}
		while (json_digit(json_peek(p)))
			p->pos++;
	}
	p->doc->tok[t].end = (int)p->pos;
	return t;
}

static int json_parse_literal(struct json_parser *p, int parent, const char *word, enum json_type type)
{
	size_t n = strlen(word), i;
	int t;

	for (i = 0; i < n; i++, p->pos++)
		if (json_peek(p) != word[i]) {
			json_unexpected(p, "");
			return -1;
		}
	p->pos -= n;
	t = json_new_tok(p, type, parent, false);
	if (t < 0)
		return -1;
	p->pos += n;
	p->doc->tok[t].end = (int)p->pos;
	return t;
}

static int json_parse_value(struct json_parser *p, int parent, int depth);

/* What was found where punctuation of container t belongs: the end of
 * the text is an unterminated container, said so. */
static void json_misplaced(struct json_parser *p, int t, const char *where)
{
	if (p->pos >= p->len)
		json_error(p, "JSON: unterminated %s from offset %d",
			   p->doc->tok[t].type == JSON_OBJECT ? "object" : "array", p->doc->tok[t].start);
	else
		json_unexpected(p, where);
}

/* An array or object at pos (on its bracket), its children recursively,
 * depth bounded. Each child is counted in its parent's size. */
static int json_parse_container(struct json_parser *p, int parent, int depth)
{
	bool object = json_peek(p) == '{';
	char close = object ? '}' : ']';
	int t, n = 0;

	if (depth >= JSON_DEPTH_MAX) {
		json_error(p, "JSON: nesting deeper than %d at offset %zu", JSON_DEPTH_MAX, p->pos);
		return -1;
	}
	t = json_new_tok(p, object ? JSON_OBJECT : JSON_ARRAY, parent, false);
	if (t < 0)
		return -1;
	p->pos++;
	json_skip_ws(p);
	if (json_peek(p) == close) {
		p->pos++;
		goto done;
	}
	for (;;) {
		if (object) {
			/* After a comma too: no trailing comma. */
			if (json_peek(p) != '"') {
				json_misplaced(p, t, n ? " where a key belongs" : " where a key or '}' belongs");
				return -1;
			}
			if (json_parse_string(p, t, true) < 0)
				return -1;
			json_skip_ws(p);
			if (json_peek(p) != ':') {
				json_misplaced(p, t, " where ':' belongs");
				return -1;
			}
			p->pos++;
			json_skip_ws(p);
		}
		if (p->pos >= p->len) {
			json_misplaced(p, t, "");
			return -1;
		}
		if (json_parse_value(p, t, depth + 1) < 0)
			return -1;
		n++;
		json_skip_ws(p);
		if (json_peek(p) == close) {
			p->pos++;
			break;
		}
		if (json_peek(p) != ',') {
			json_misplaced(p, t, object ? " where ',' or '}' belongs" : " where ',' or ']' belongs");
			return -1;
		}
		p->pos++;
		json_skip_ws(p);
	}
done:
	p->doc->tok[t].size = n;
	p->doc->tok[t].end = (int)p->pos;
	p->doc->tok[t].next = p->doc->n;
	return t;
}

/* One value at pos (whitespace before it already skipped). */
static int json_parse_value(struct json_parser *p, int parent, int depth)
{
	switch (json_peek(p)) {
	case '{':
	case '[':
		return json_parse_container(p, parent, depth);
	case '"':
		return json_parse_string(p, parent, false);
	case 't':
		return json_parse_literal(p, parent, "true", JSON_TRUE);
	case 'f':
		return json_parse_literal(p, parent, "false", JSON_FALSE);
	case 'n':
		return json_parse_literal(p, parent, "null", JSON_NULL);
	case '-':
	case '0': case '1': case '2': case '3': case '4':
	case '5': case '6': case '7': case '8': case '9':
		return json_parse_number(p, parent);
	default:
		json_unexpected(p, " where a value belongs");
		return -1;
	}
}

int json_parse(struct json_doc *doc, const char *text, size_t len, int max_tokens, char *err,
	       size_t errlen)
{
	struct json_parser p = { doc, text, len, 0, max_tokens, err, errlen };

	memset(doc, 0, sizeof(*doc));
	if (err && errlen)
		err[0] = '\0';
	/* Offsets and indexes are ints. */
	if (len >= INT_MAX) {
		json_error(&p, "JSON: text of %zu bytes is too long", len);
		return -1;
	}
	if (max_tokens < 1) {
		json_error(&p, "JSON: more than %d values", max_tokens);
		return -1;
	}
	doc->text = text;
	doc->len = len;
	json_skip_ws(&p);
	if (p.pos == len) {
		json_error(&p, "JSON: no value (%s)", len ? "only whitespace" : "empty text");
		goto fail;
	}
	if (json_parse_value(&p, -1, 0) < 0)
		goto fail;
	json_skip_ws(&p);
	if (p.pos != len) {
		json_unexpected(&p, " after the value");
		goto fail;
	}
	return 0;
fail:
	json_free(doc);
	return -1;
}

void json_free(struct json_doc *doc)
{
	free(doc->tok);
	memset(doc, 0, sizeof(*doc));
}

enum json_type json_type(const struct json_doc *doc, int t)
{
	if (!doc || t < 0 || t >= doc->n)
		return JSON_NONE;
	return doc->tok[t].type;
}

int json_size(const struct json_doc *doc, int t)
{
	enum json_type type = json_type(doc, t);

	return type == JSON_OBJECT || type == JSON_ARRAY ? doc->tok[t].size : 0;
}

int json_value_of(const struct json_doc *doc, int k)
{
	if (json_type(doc, k) != JSON_STRING || !doc->tok[k].key || k + 1 >= doc->n)
		return -1;
	return k + 1;
}

int json_first(const struct json_doc *doc, int t)
{
	enum json_type type = json_type(doc, t);

	if ((type != JSON_OBJECT && type != JSON_ARRAY) || doc->tok[t].size == 0)
		return -1;
	return t + 1;
}

int json_next(const struct json_doc *doc, int t)
{
	const struct json_tok *k;
	int parent, after;

	if (json_type(doc, t) == JSON_NONE || doc->tok[t].parent < 0)
		return -1;
	k = &doc->tok[t];
	parent = k->parent;
	if (k->key && t + 1 >= doc->n)
		return -1;
	/* A key's value follows it: the next key comes after that value. */
	after = k->key ? doc->tok[t + 1].next : k->next;
	if (after >= doc->tok[parent].next)
		return -1;
	if (doc->tok[parent].type == JSON_OBJECT && !k->key)
		return after + 1;
	return after;
}

int json_at(const struct json_doc *doc, int arr, int i)
{
	int t;

	if (json_type(doc, arr) != JSON_ARRAY || i < 0 || i >= doc->tok[arr].size)
		return -1;
	for (t = json_first(doc, arr); t >= 0 && i > 0; i--)
		t = json_next(doc, t);
	return t;
}

/* The next character of a string token's value from *pos (escapes
 * undone) into out[4]: its length in bytes, 0 at end. The parser checked
 * the string, so a \u here has its digits and a high surrogate its low
 * one; the bounds are checked anyway. */
static int json_string_char(const struct json_doc *doc, const struct json_tok *t, int *pos, char out[4])
{
	const char *s = doc->text;
	unsigned long cp;
	int u, lo;

	if (*pos >= t->end)
		return 0;
	if (s[*pos] != '\\' || *pos + 1 >= t->end) {
		unsigned char lead = (unsigned char)s[*pos];
		int want = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1, n = 0;

		/* A UTF-8 sequence as one character, so that a cut copy ends on a
		 * whole one; invalid bytes each on their own. */
		do
			out[n++] = s[(*pos)++];
		while (n < want && *pos < t->end && ((unsigned char)s[*pos] & 0xc0) == 0x80);
		return n;
	}
	switch (s[*pos + 1]) {
	case 'b': out[0] = '\b'; break;
	case 'f': out[0] = '\f'; break;
	case 'n': out[0] = '\n'; break;
	case 'r': out[0] = '\r'; break;
	case 't': out[0] = '\t'; break;
	case 'u': break;
	default: out[0] = s[*pos + 1]; break;
	}
	if (s[*pos + 1] != 'u') {
		*pos += 2;
		return 1;
	}
	if (t->end - *pos < 6 || (u = json_hex4(s + *pos + 2)) < 0) {
		out[0] = s[(*pos)++];
		return 1;
	}
	*pos += 6;
	cp = (unsigned long)u;
	if (u >= 0xd800 && u <= 0xdbff && t->end - *pos >= 6 && s[*pos] == '\\' && s[*pos + 1] == 'u' &&
	    (lo = json_hex4(s + *pos + 2)) >= 0xdc00 && lo <= 0xdfff) {
		cp = 0x10000 + (((unsigned long)u - 0xd800) << 10) + ((unsigned long)lo - 0xdc00);
		*pos += 6;
	}
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

bool json_eq(const struct json_doc *doc, int t, const char *s)
{
	char c[4];
	int pos, n, i;

	if (json_type(doc, t) != JSON_STRING || !s)
		return false;
	pos = doc->tok[t].start;
	while ((n = json_string_char(doc, &doc->tok[t], &pos, c)) > 0)
		for (i = 0; i < n; i++, s++)
			/* A \u0000 meets s's terminator here: never equal. */
			if (*s == '\0' || *s != c[i])
				return false;
	return *s == '\0';
}

int json_get(const struct json_doc *doc, int obj, const char *key)
{
	int k;

	if (json_type(doc, obj) != JSON_OBJECT)
		return -1;
	/* In order: the first of duplicate keys wins. */
	for (k = json_first(doc, obj); k >= 0; k = json_next(doc, k))
		if (json_eq(doc, k, key))
			return json_value_of(doc, k);
	return -1;
}

int json_string(const struct json_doc *doc, int t, char *buf, size_t len)
{
	size_t at = 0;
	bool cut = false;
	char c[4];
	int pos, n;

	if (buf && len)
		buf[0] = '\0';
	if (json_type(doc, t) != JSON_STRING)
		return -1;
	pos = doc->tok[t].start;
	while ((n = json_string_char(doc, &doc->tok[t], &pos, c)) > 0) {
		if (memchr(c, '\0', (size_t)n)) {
			if (buf && len)
				buf[0] = '\0';
			return -1;
		}
		/* Once a character does not fit, none after it is copied. */
		if (!cut && buf && at + (size_t)n < len)
			memcpy(buf + at, c, (size_t)n);
		else
			cut = true;
		at += (size_t)n;
		if (!cut && buf && len)
			buf[at] = '\0';
	}
	/* The value is never longer than its token, itself an int. */
	return (int)at;
}

int json_number(const struct json_doc *doc, int t, double *v)
{
	char small[64], *copy = small, *end;
	size_t n;
	double d;
	bool bad;

	if (json_type(doc, t) != JSON_NUMBER)
		return -1;
	n = (size_t)(doc->tok[t].end - doc->tok[t].start);
	/* The text has no NUL after the number; strtod needs one. Long numbers
	 * (valid JSON has no limit) get a copy of their own. */
	if (n >= sizeof(small)) {
		copy = malloc(n + 1);
		if (!copy)
			return -1;
	}
	memcpy(copy, doc->text + doc->tok[t].start, n);
	copy[n] = '\0';
	errno = 0;
	d = strtod(copy, &end);
	/* The grammar was checked: strtod takes it all. Only its range fails. */
	bad = end != copy + n || (errno == ERANGE && (d == HUGE_VAL || d == -HUGE_VAL));
	if (copy != small)
		free(copy);
	if (bad)
		return -1;
	if (v)
		*v = d;
	return 0;
}
