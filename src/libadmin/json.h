/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A small, strict JSON reader for the answers of Prometheus' HTTP API
 * (/api/v1/query). The text comes from another process: RFC 8259 exactly
 * (no comments, no trailing commas, one value), nesting and the number of
 * values bounded, and every failure a message rather than a crash.
 *
 * The text is parsed into a flat array of tokens, each value followed by
 * its children (jsmn's layout). An object's children are its keys, each
 * followed by its value: the value of key k is token k + 1. Token 0 is the
 * whole text's value. Every walker takes -1 and gives -1 back, so lookups
 * chain: json_get(doc, json_get(doc, 0, "data"), "result"). */
#ifndef SPANK_EBPF_JSON_H
#define SPANK_EBPF_JSON_H

#include <stdbool.h>
#include <stddef.h>

/* Containers nested deeper than this are refused (the parser recurses). */
#define JSON_DEPTH_MAX 32

enum json_type {
	JSON_NONE = 0,  /* no token: what json_type() says of -1 */
	JSON_OBJECT,
	JSON_ARRAY,
	JSON_STRING,
	JSON_NUMBER,
	JSON_TRUE,
	JSON_FALSE,
	JSON_NULL,
};

struct json_tok {
	enum json_type type;
	int start, end;  /* offsets in the text, end excluded; a string's
			  * without its quotes */
	int size;        /* an array's values, an object's pairs, else 0 */
	int next;        /* the token after this one's whole subtree */
	int parent;      /* the array or object it is in, -1 for token 0 */
	bool key;        /* an object's key (a string) */
};

struct json_doc {
	const char *text;  /* the caller's, which must outlive the walk */
	size_t len;
	struct json_tok *tok;  /* malloc'd */
	int n;                 /* tokens in use */
	int cap;               /* tokens allocated */
};

/* Parses len bytes of text into doc (which need not be initialised, but
 * is overwritten: free one parsed before), with at most max_tokens values
 * (keys count). The text needs no NUL at its end; a NUL within it is
 * invalid JSON, as any control character. Returns 0, or -1 with the
 * reason in err ("JSON: unexpected 'x' at offset 17", always printable
 * ASCII) and doc empty. json_free() is safe either way. */
int json_parse(struct json_doc *doc, const char *text, size_t len, int max_tokens, char *err,
	       size_t errlen);
void json_free(struct json_doc *doc);

/* Token t's type; JSON_NONE for -1 or any index out of the document. */
enum json_type json_type(const struct json_doc *doc, int t);
/* An array's number of values, an object's of pairs; 0 for anything else
 * (never negative: safe as a count to allocate). */
int json_size(const struct json_doc *doc, int t);
/* The value of key k (token k + 1), -1 when k is not an object's key. */
int json_value_of(const struct json_doc *doc, int k);
/* The value of key in object obj, -1 when there is none. With the same
 * key twice (which JSON allows), the first one's value. */
int json_get(const struct json_doc *doc, int obj, const char *key);
/* Value i (from 0) of array arr, -1 past its end. Walks from the first:
 * to visit every value, json_first() and json_next(). */
int json_at(const struct json_doc *doc, int arr, int i);
/* The first child of an array (its first value) or an object (its first
 * key), -1 when empty or not a container. */
int json_first(const struct json_doc *doc, int t);
/* The sibling after t of the same kind: the next value of an array, the
 * next key of an object (after the previous key's whole value), the next
 * value of an object; -1 after the last one. To iterate:
 * for (k = json_first(doc, obj); k >= 0; k = json_next(doc, k)) ... k + 1 */
int json_next(const struct json_doc *doc, int t);

/* Whether string token t, escapes undone, is s exactly. */
bool json_eq(const struct json_doc *doc, int t, const char *s);
/* String token t's value, escapes undone (\uXXXX and surrogate pairs as
 * UTF-8; other bytes as they are, valid UTF-8 or not), into buf, always
 * NUL-terminated when len > 0 and cut at a whole character. Returns the
 * value's length, as snprintf does (len or more: buf holds a cut copy),
 * or -1 when t is no string or its value holds a NUL (\u0000), which a
 * C string cannot carry. */
int json_string(const struct json_doc *doc, int t, char *buf, size_t len);
/* Number token t as a double. Returns 0, or -1 when t is no number or is
 * beyond a double's range (1e999); a value too small to tell from 0 is 0. */
int json_number(const struct json_doc *doc, int t, double *v);

#endif
