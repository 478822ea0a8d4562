/* The JSON reader: Prometheus' /api/v1/query answers walked to their
 * values, every escape undone, and the texts RFC 8259 refuses refused
 * with a message that says where. One function per case. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "tap.h"

#define MAX_TOKENS 256

static char err[256];

static int parse(struct json_doc *doc, const char *text)
{
	return json_parse(doc, text, strlen(text), MAX_TOKENS, err, sizeof(err));
}

static int printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

/* text (len bytes) is refused with a message holding want. */
static void refused_len(const char *text, size_t len, const char *want, const char *what)
{
	struct json_doc doc;
	int rc = json_parse(&doc, text, len, MAX_TOKENS, err, sizeof(err));

	ok(rc == -1 && strstr(err, want) && printable(err) && doc.n == 0 && !doc.tok,
	   "refused: %s (%s)", what, err);
	json_free(&doc);
}

static void refused(const char *text, const char *want, const char *what)
{
	refused_len(text, strlen(text), want, what);
}

static void test_vector(void)
{
	const char *text = "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
			   "{\"metric\":{\"instance\":\"n1:9435\",\"le\":\"0.001\"},"
			   "\"value\":[1733480000.123,\"42\"]}]}}";
	struct json_doc doc;
	int data, result, r0, value, rc;
	char buf[64];
	double t = 0;

	ok(parse(&doc, text) == 0 && err[0] == '\0', "vector answer parses (%s)", err);
	ok(json_type(&doc, 0) == JSON_OBJECT && doc.tok[0].size == 2 && doc.tok[0].next == doc.n,
	   "token 0: the object, two pairs, its subtree all the tokens");
	ok(json_eq(&doc, json_get(&doc, 0, "status"), "success"), "status is success");
	data = json_get(&doc, 0, "data");
	ok(json_eq(&doc, json_get(&doc, data, "resultType"), "vector"), "data.resultType is vector");
	result = json_get(&doc, data, "result");
	ok(json_type(&doc, result) == JSON_ARRAY && doc.tok[result].size == 1, "data.result: one sample");
	r0 = json_at(&doc, result, 0);
	ok(json_string(&doc, json_get(&doc, json_get(&doc, r0, "metric"), "instance"), buf, sizeof(buf)) == 7 &&
		   !strcmp(buf, "n1:9435"),
	   "result[0].metric.instance is n1:9435 (got %s)", buf);
	ok(json_string(&doc, json_get(&doc, json_get(&doc, r0, "metric"), "le"), buf, sizeof(buf)) == 5 &&
		   !strcmp(buf, "0.001"),
	   "result[0].metric.le is 0.001");
	value = json_get(&doc, r0, "value");
	ok(json_type(&doc, value) == JSON_ARRAY && doc.tok[value].size == 2, "value: a pair");
	ok(json_string(&doc, json_at(&doc, value, 1), buf, sizeof(buf)) == 2 && !strcmp(buf, "42"),
	   "value[1] is the string 42");
	rc = json_number(&doc, json_at(&doc, value, 0), &t);
	ok(rc == 0 && fabs(t - 1733480000.123) < 1e-6, "value[0] is the number 1733480000.123 (got %.3f)", t);
	ok(json_number(&doc, json_at(&doc, value, 1), &t) == -1, "value[1] is no number token");
	ok(json_at(&doc, value, 2) == -1 && json_at(&doc, value, -1) == -1, "value[2], value[-1]: none");
	ok(json_get(&doc, 0, "missing") == -1 && json_get(&doc, json_get(&doc, 0, "missing"), "x") == -1,
	   "a missing key is -1, and lookups chain through it");
	json_free(&doc);
	ok(doc.tok == NULL && doc.n == 0, "json_free empties the document");
}

static void test_matrix(void)
{
	const char *text = "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
			   "{\"metric\":{\"jobid\":\"7\"},\"values\":[[1.5,\"1\"],[2.5,\"3\"],[3.5,\"6\"]]},"
			   "{\"metric\":{},\"values\":[]}]}}";
	struct json_doc doc;
	int result, s, v, points = 0, series = 0;
	double sum_t = 0, sum_v = 0;

	ok(parse(&doc, text) == 0, "matrix answer parses (%s)", err);
	result = json_get(&doc, json_get(&doc, 0, "data"), "result");
	for (s = json_first(&doc, result); s >= 0; s = json_next(&doc, s)) {
		int values = json_get(&doc, s, "values");

		series++;
		for (v = json_first(&doc, values); v >= 0; v = json_next(&doc, v)) {
			char buf[16];
			double t, x;

			if (json_number(&doc, json_at(&doc, v, 0), &t) == 0 &&
			    json_string(&doc, json_at(&doc, v, 1), buf, sizeof(buf)) > 0) {
				x = strtod(buf, NULL);
				sum_t += t;
				sum_v += x;
				points++;
			}
		}
	}
	ok(series == 2, "two series (got %d)", series);
	ok(points == 3 && sum_t == 7.5 && sum_v == 10, "three points, t summing to 7.5, values to 10");
	ok(json_first(&doc, json_get(&doc, json_at(&doc, result, 1), "metric")) == -1 &&
		   json_first(&doc, json_get(&doc, json_at(&doc, result, 1), "values")) == -1,
	   "an empty object and an empty array have no first child");
	json_free(&doc);
}

static void test_error_answer(void)
{
	const char *text = "{\"status\":\"error\",\"errorType\":\"bad_data\","
			   "\"error\":\"invalid parameter \\\"query\\\": 1:1: parse error\"}";
	struct json_doc doc;
	char buf[128];

	ok(parse(&doc, text) == 0, "error answer parses (%s)", err);
	ok(json_eq(&doc, json_get(&doc, 0, "status"), "error") &&
		   json_eq(&doc, json_get(&doc, 0, "errorType"), "bad_data"),
	   "status error, errorType bad_data");
	ok(json_string(&doc, json_get(&doc, 0, "error"), buf, sizeof(buf)) > 0 &&
		   !strcmp(buf, "invalid parameter \"query\": 1:1: parse error"),
	   "the error, its quotes unescaped (got %s)", buf);
	ok(json_get(&doc, 0, "data") == -1, "no data");
	json_free(&doc);
}

static void test_escapes(void)
{
	struct json_doc doc;
	char buf[64];

	ok(parse(&doc, "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\u20AC\\ud83d\\ude00\\u0041\"") == 0,
	   "every escape parses (%s)", err);
	ok(json_string(&doc, 0, buf, sizeof(buf)) == 18 &&
		   !strcmp(buf, "\"\\/\b\f\n\r\t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" "A"),
	   "undone: quote, backslash, slash, b f n r t, U+00E9, U+20AC, U+1F600 from a pair, A");
	ok(json_eq(&doc, 0, "\"\\/\b\f\n\r\t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" "A"), "json_eq undoes them too");
	ok(!json_eq(&doc, 0, "\"\\/\b\f\n\r\t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), "json_eq: a prefix is not equal");
	ok(!json_eq(&doc, 0, "\"\\/\b\f\n\r\t\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" "AB"), "json_eq: a longer one neither");
	json_free(&doc);

	ok(parse(&doc, "{\"a\\u0062\":1,\"\xc3\xa9t\xc3\xa9\":\"\xff\xfe raw\"}") == 0, "escaped key, raw UTF-8, invalid bytes");
	ok(json_get(&doc, 0, "ab") == 2, "a key matches its unescaped form");
	ok(json_string(&doc, json_get(&doc, 0, "\xc3\xa9t\xc3\xa9"), buf, sizeof(buf)) == 6 &&
		   !memcmp(buf, "\xff\xfe raw", 7),
	   "invalid UTF-8 passes through as bytes");
	json_free(&doc);

	ok(parse(&doc, "[\"a\\u0000b\",\"\"]") == 0, "\\u0000 is valid JSON");
	ok(json_string(&doc, 1, buf, sizeof(buf)) == -1 && buf[0] == '\0', "but json_string refuses a NUL");
	ok(!json_eq(&doc, 1, "a") && !json_eq(&doc, 1, "ab"), "and it equals no C string");
	ok(json_string(&doc, 2, buf, sizeof(buf)) == 0 && buf[0] == '\0' && json_eq(&doc, 2, ""), "the empty string");
	ok(json_string(&doc, 0, buf, sizeof(buf)) == -1 && json_string(&doc, -1, buf, sizeof(buf)) == -1 &&
		   !json_eq(&doc, 0, "") && !json_eq(&doc, 7, ""),
	   "an array or no token is no string");
	json_free(&doc);
}

static void test_string_cut(void)
{
	struct json_doc doc;
	char buf[8];

	ok(parse(&doc, "[\"h\\u00e9llo\",\"ab\xe2\x82\xac\",\"abcdefghij\"]") == 0, "strings to cut");
	memset(buf, 'x', sizeof(buf));
	ok(json_string(&doc, 1, buf, 3) == 6 && !strcmp(buf, "h"), "\\u00e9 is not cut in two (got %s)", buf);
	ok(json_string(&doc, 2, buf, 5) == 5 && !strcmp(buf, "ab"), "nor a raw UTF-8 character (got %s)", buf);
	ok(json_string(&doc, 3, buf, sizeof(buf)) == 10 && !strcmp(buf, "abcdefg"),
	   "a long value: its length, a cut copy (got %s)", buf);
	ok(json_string(&doc, 3, NULL, 0) == 10, "no buffer: the length alone");
	buf[0] = 'x';
	ok(json_string(&doc, 3, buf, 1) == 10 && buf[0] == '\0', "a one-byte buffer: empty");
	json_free(&doc);
}

static void test_refused(void)
{
	refused("[1,2,]", "unexpected ']' where a value belongs at offset 5", "trailing comma in an array");
	refused("{\"a\":1,}", "unexpected '}' where a key belongs at offset 7", "trailing comma in an object");
	refused("[,1]", "unexpected ','", "a leading comma");
	refused("{,}", "unexpected ','", "an object's leading comma");
	refused("01", "leading zero at offset 0", "leading zero");
	refused("[-01]", "leading zero at offset 2", "negative leading zero");
	refused("\"a\tb\"", "control character 0x09 in a string at offset 2", "a bare tab in a string");
	refused("\"a\nb\"", "control character 0x0a", "a bare newline in a string");
	refused_len("\"a\0b\"", 5, "control character 0x00", "a NUL in a string");
	refused_len("[1]\0", 4, "unexpected byte 0x00 after the value at offset 3", "a NUL after the value");
	refused("\"abc", "unterminated string from offset 0", "unterminated string");
	refused("\"abc\\", "unterminated string from offset 0", "unterminated string ending in a backslash");
	refused("[1,2", "unterminated array from offset 0", "unterminated array");
	refused("[1,", "unterminated array from offset 0", "unterminated array after a comma");
	refused("{\"a\":1", "unterminated object from offset 0", "unterminated object");
	refused("{\"a\"", "unterminated object from offset 0", "unterminated object after a key");
	refused("{\"a\":", "unterminated object from offset 0", "unterminated object after a colon");
	refused("{", "unterminated object from offset 0", "a lone brace");
	refused("{} x", "unexpected 'x' after the value at offset 3", "garbage after the value");
	refused("1 2", "unexpected '2' after the value", "two values");
	refused("nulls", "unexpected 's' after the value", "a literal run on");
	refused("tru", "unexpected end of text", "a cut literal");
	refused("True", "unexpected 'T'", "a capital literal");
	refused("\"\\ud800\"", "lone surrogate \\ud800 at offset 1", "a lone high surrogate");
	refused("\"\\udc00\"", "lone surrogate \\udc00", "a lone low surrogate");
	refused("\"\\ud800\\u0041\"", "lone surrogate \\ud800", "a high surrogate before no low one");
	refused("\"\\ud800\\ud800\"", "lone surrogate", "two high surrogates");
	refused("\"\\x\"", "invalid escape '\\x' at offset 1", "an unknown escape");
	refused("\"\\\x01\"", "invalid escape (byte 0x01)", "an escaped control character");
	refused("\"\\u12g4\"", "invalid \\u escape at offset 1", "a \\u with a non-hex digit");
	refused("\"\\u12\"", "invalid \\u escape", "a short \\u");
	refused("1.", "unexpected end of text in a number at offset 2", "1.");
	refused(".5", "unexpected '.' where a value belongs at offset 0", ".5");
	refused("-", "unexpected end of text in a number at offset 1", "a lone minus");
	refused("1e", "unexpected end of text in a number", "1e");
	refused("1e+", "unexpected end of text in a number", "1e+");
	refused("[1.e5]", "unexpected 'e' in a number", "1.e5");
	refused("+1", "unexpected '+'", "a plus sign");
	refused("0x10", "unexpected 'x' after the value", "hexadecimal");
	refused("-Infinity", "unexpected 'I' in a number", "-Infinity");
	refused("NaN", "unexpected 'N'", "NaN");
	refused("[1]//c", "unexpected '/' after the value", "a comment after");
	refused("/*c*/1", "unexpected '/'", "a comment before");
	refused("'a'", "unexpected byte 0x27", "single quotes");
	refused("\f1", "unexpected byte 0x0c", "a form feed is not whitespace");
	refused("[1]\v", "unexpected byte 0x0b after the value", "nor a vertical tab");
	refused("{a:1}", "unexpected 'a' where a key or '}' belongs", "an unquoted key");
	refused("{1:1}", "unexpected '1' where a key", "a number as a key");
	refused("{\"a\" 1}", "unexpected '1' where ':' belongs", "a missing colon");
	refused("[1 2]", "unexpected '2' where ',' or ']' belongs", "a missing comma");
	refused("{\"a\":1 \"b\":2}", "where ',' or '}' belongs", "a missing comma in an object");
	refused("[\x1b]", "unexpected byte 0x1b", "an escape byte is named, not echoed");
	refused("\xff", "unexpected byte 0xff", "a byte >= 0x80 is named, not echoed");
}

static void test_empty(void)
{
	refused("", "no value (empty text)", "empty text");
	refused_len(NULL, 0, "no value (empty text)", "no text at all");
	refused(" \t\r\n", "no value (only whitespace)", "only whitespace");
}

/* n arrays (or objects {"a": ...}) nested around a 1. */
static char *nested(int n, int object)
{
	char *s = malloc((size_t)n * 6 + 2), *p = s;
	int i;

	for (i = 0; i < n; i++)
		p += sprintf(p, "%s", object ? "{\"a\":" : "[");
	*p++ = '1';
	for (i = 0; i < n; i++)
		*p++ = object ? '}' : ']';
	*p = '\0';
	return s;
}

static void test_depth(void)
{
	struct json_doc doc;
	char *s;

	s = nested(JSON_DEPTH_MAX, 0);
	ok(parse(&doc, s) == 0 && doc.n == JSON_DEPTH_MAX + 1, "32 nested arrays parse (%s)", err);
	json_free(&doc);
	free(s);
	s = nested(JSON_DEPTH_MAX + 1, 0);
	refused(s, "JSON: nesting deeper than 32 at offset 32", "33 nested arrays");
	free(s);
	s = nested(JSON_DEPTH_MAX, 1);
	ok(parse(&doc, s) == 0, "32 nested objects parse (%s)", err);
	json_free(&doc);
	free(s);
	s = nested(JSON_DEPTH_MAX + 1, 1);
	refused(s, "nesting deeper than 32 at offset 160", "33 nested objects");
	free(s);
	s = nested(100000, 0);
	refused(s, "nesting deeper than 32", "100000 nested arrays, without recursing that deep");
	free(s);
}

static void test_token_cap(void)
{
	struct json_doc doc;
	char *big;
	int i, n = 0, count = 0, t;

	ok(json_parse(&doc, "[1,2,3]", 7, 4, err, sizeof(err)) == 0 && doc.n == 4, "4 tokens under a cap of 4");
	json_free(&doc);
	ok(json_parse(&doc, "[1,2,3]", 7, 3, err, sizeof(err)) == -1 && !strcmp(err, "JSON: more than 3 values") &&
		   !doc.tok,
	   "over a cap of 3: refused (%s)", err);
	ok(json_parse(&doc, "{\"a\":1}", 7, 2, err, sizeof(err)) == -1, "keys count as values");
	ok(json_parse(&doc, "1", 1, 0, err, sizeof(err)) == -1, "a cap of 0: nothing parses");

	/* Past the first allocation, growing up to the cap exactly. */
	big = malloc(1000 * 2 + 2);
	big[n++] = '[';
	for (i = 0; i < 1000; i++)
		n += sprintf(big + n, "%s", i ? ",0" : "0");
	big[n++] = ']';
	big[n] = '\0';
	ok(json_parse(&doc, big, (size_t)n, 1001, err, sizeof(err)) == 0 && doc.n == 1001 && doc.cap == 1001,
	   "1000 values and their array under a cap of 1001 (%s)", err);
	for (t = json_first(&doc, 0); t >= 0; t = json_next(&doc, t))
		count++;
	ok(count == 1000 && json_at(&doc, 0, 999) == 1000, "each visited once; the last is token 1000");
	json_free(&doc);
	ok(json_parse(&doc, big, (size_t)n, 1000, err, sizeof(err)) == -1 && strstr(err, "more than 1000 values"),
	   "under a cap of 1000: refused");
	free(big);
}

static void test_numbers(void)
{
	struct json_doc doc;
	char text[1200];
	double v = 7;
	int rc;

	ok(parse(&doc, "[0,-0,1.5e3,-2E-2,1e+2,123456789012345678901234567890]") == 0, "numbers parse (%s)", err);
	ok(json_number(&doc, 1, &v) == 0 && v == 0, "0");
	ok(json_number(&doc, 2, &v) == 0 && v == 0 && signbit(v), "-0");
	ok(json_number(&doc, 3, &v) == 0 && v == 1500, "1.5e3");
	ok(json_number(&doc, 4, &v) == 0 && v == -0.02, "-2E-2");
	ok(json_number(&doc, 5, &v) == 0 && v == 100, "1e+2");
	ok(json_number(&doc, 6, &v) == 0 && v == 123456789012345678901234567890.0, "30 digits: a double near it");
	json_free(&doc);

	ok(parse(&doc, "[1e999,-1e999,1e-999,1e00000000000000000000000000001]") == 0, "huge exponents are valid JSON");
	ok(json_number(&doc, 1, &v) == -1 && json_number(&doc, 2, &v) == -1, "beyond a double: -1");
	ok(json_number(&doc, 3, &v) == 0 && v == 0, "too small to tell from 0: 0");
	ok(json_number(&doc, 4, &v) == 0 && v == 10, "an exponent written with 30 zeros");
	json_free(&doc);

	/* 1000 digits: past json_number's own small copy. */
	memset(text, '0', 1001);
	text[0] = '1';
	text[1001] = '\0';
	ok(parse(&doc, text) == 0 && doc.tok[0].end == 1001, "a 1001-digit integer parses");
	ok(json_number(&doc, 0, &v) == -1, "and is beyond a double");
	json_free(&doc);
	memcpy(text, "0.", 2);
	memset(text + 2, '0', 998);
	memcpy(text + 1000, "15e999", 7);
	ok(parse(&doc, text) == 0, "a 1006-character fraction parses");
	rc = json_number(&doc, 0, &v);
	ok(rc == 0 && fabs(v - 1.5) < 1e-12, "0.(998 zeros)15e999 is 1.5 (got %g)", v);
	json_free(&doc);
}

static void test_walkers(void)
{
	struct json_doc doc;
	int k, keys = 0, v;

	ok(parse(&doc, " \t\r\n{ \"a\" : [ 1 , {\"x\":null} ] , \"b\":true,\"a\":false, \"c\" : \"s\" } \r\n") == 0,
	   "whitespace around every token (%s)", err);
	ok(json_type(&doc, json_get(&doc, 0, "a")) == JSON_ARRAY, "a duplicate key: json_get gives the first");
	ok(json_type(&doc, json_get(&doc, 0, "b")) == JSON_TRUE, "true");
	ok(json_type(&doc, json_get(&doc, json_at(&doc, json_get(&doc, 0, "a"), 1), "x")) == JSON_NULL, "null");
	for (k = json_first(&doc, 0); k >= 0; k = json_next(&doc, k)) {
		ok(doc.tok[k].key && json_type(&doc, k) == JSON_STRING && doc.tok[k].parent == 0,
		   "key %d is a key of token 0", keys);
		keys++;
	}
	ok(keys == 4 && json_size(&doc, 0) == 4, "four keys, four pairs");
	ok(json_value_of(&doc, 1) == 2 && json_value_of(&doc, 2) == -1 && json_value_of(&doc, 12) == -1 &&
		   json_value_of(&doc, -1) == -1,
	   "json_value_of: a key's value; no value of a value, of a string value, of no token");
	ok(json_size(&doc, 2) == 2 && json_size(&doc, 3) == 0 && json_size(&doc, 4) == 1 && json_size(&doc, -1) == 0,
	   "json_size: an array's values, an object's pairs, 0 for a number or no token");
	v = json_get(&doc, 0, "a");
	ok(json_next(&doc, v) == json_get(&doc, 0, "b"), "the value after a's is b's");
	ok(json_type(&doc, json_next(&doc, json_next(&doc, v))) == JSON_FALSE, "then the second a's");
	ok(json_next(&doc, json_get(&doc, 0, "c")) == -1, "the last value has none after it");
	ok(json_next(&doc, 0) == -1 && json_first(&doc, json_get(&doc, 0, "c")) == -1, "the root has no sibling, a string no child");
	ok(json_type(&doc, -1) == JSON_NONE && json_type(&doc, doc.n) == JSON_NONE && json_type(NULL, 0) == JSON_NONE,
	   "no token: JSON_NONE");
	ok(json_get(&doc, v, "a") == -1 && json_at(&doc, 0, 0) == -1 && json_next(&doc, -1) == -1 &&
		   json_first(&doc, 99) == -1,
	   "json_get on an array, json_at on an object, walks from -1 or past the end: -1");
	ok(json_number(&doc, -1, NULL) == -1, "json_number of no token: -1");
	ok(doc.tok[json_get(&doc, 0, "c")].start == (int)strlen(" \t\r\n{ \"a\" : [ 1 , {\"x\":null} ] , \"b\":true,\"a\":false, \"c\" : \"") &&
		   doc.tok[0].start == 4,
	   "offsets: a string's inside its quotes, an object's at its brace");
	json_free(&doc);

	ok(parse(&doc, "[true,false,null]") == 0 && json_type(&doc, 1) == JSON_TRUE &&
		   json_type(&doc, 2) == JSON_FALSE && json_type(&doc, 3) == JSON_NULL,
	   "literals in an array");
	json_free(&doc);
	ok(parse(&doc, "\"top\"") == 0 && doc.n == 1 && json_eq(&doc, 0, "top"), "a string alone is a text");
	json_free(&doc);
	ok(parse(&doc, "-3.25") == 0 && doc.n == 1 && doc.tok[0].end == 5, "a number alone too, its end the text's");
	json_free(&doc);
}

static void test_small_err(void)
{
	struct json_doc doc;
	char small[8];

	ok(json_parse(&doc, "[", 1, 8, small, sizeof(small)) == -1 && !strcmp(small, "JSON: u"),
	   "a small err buffer: the message cut, terminated");
	ok(json_parse(&doc, "[", 1, 8, NULL, 0) == -1, "no err buffer at all");
}

int main(void)
{
	test_vector();
	test_matrix();
	test_error_answer();
	test_escapes();
	test_string_cut();
	test_refused();
	test_empty();
	test_depth();
	test_token_cap();
	test_numbers();
	test_walkers();
	test_small_err();
	return tap_done();
}
