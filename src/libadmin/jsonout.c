/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The admin command's JSON writer. See jsonout.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"

/* The length of the valid UTF-8 character at s (at most n bytes), 0 when
 * the bytes there are none: no overlong form, no surrogate, nothing past
 * U+10FFFF (RFC 3629). */
static size_t jsonout_char_len(const unsigned char *s, size_t n)
{
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return len;
}

char *jsonout_utf8(const char *in, char *out, size_t len)
{
	const unsigned char *c = (const unsigned char *)in;
	size_t left = in ? strlen(in) : 0, at = 0;

	if (len == 0)
		return out;
	while (left) {
		size_t n = jsonout_char_len(c, left);
		/* DEL and the C1 controls (c2 80..c2 9f): json-c writes them
		 * raw, and a terminal obeys them. */
		bool control = (n == 1 && *c == 0x7f) || (n == 2 && c[0] == 0xc2 && c[1] < 0xa0);
		const char *piece = n && !control ? (const char *)c : "\xef\xbf\xbd";
		size_t plen = n && !control ? n : 3;

		if (at + plen + 1 > len)
			break;
		memcpy(out + at, piece, plen);
		at += plen;
		c += n ? n : 1;
		left -= n ? n : 1;
	}
	out[at] = '\0';
	return out;
}

struct json_object *jsonout_string(const char *s)
{
	struct json_object *o;
	size_t cap;
	char *buf;

	if (!s)
		return NULL;
	/* Each byte becomes at most 3 (U+FFFD). */
	cap = strlen(s) * 3 + 1;
	buf = malloc(cap);
	if (!buf)
		return NULL;
	o = json_object_new_string(jsonout_utf8(s, buf, cap));
	free(buf);
	return o;
}

/* v with printf's %.*f (g false) or %.*g, prec digits, or null. */
static struct json_object *jsonout_number(double v, bool g, int prec)
{
	char buf[400]; /* %.0f of DBL_MAX: 309 digits */
	int n;

	if (!isfinite(v))
		return NULL;
	n = g ? snprintf(buf, sizeof(buf), "%.*g", prec, v) : snprintf(buf, sizeof(buf), "%.*f", prec, v);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return json_object_new_double(v);
	/* json-c writes ds as it is: these digits, not its own %.17g. */
	return json_object_new_double_s(v, buf);
}

struct json_object *jsonout_double(double v, int decimals)
{
	return jsonout_number(v, false, decimals);
}

struct json_object *jsonout_double_g(double v, int digits)
{
	return jsonout_number(v, true, digits);
}

struct json_object *jsonout_int(long long v)
{
	return json_object_new_int64((int64_t)v);
}

struct json_object *jsonout_bool(bool b)
{
	return json_object_new_boolean(b);
}

void jsonout_add(struct json_object *obj, const char *key, struct json_object *value)
{
	if (obj)
		json_object_object_add(obj, key, value);
	else
		json_object_put(value);
}

void jsonout_append(struct json_object *arr, struct json_object *value)
{
	if (!arr || json_object_array_add(arr, value) < 0)
		json_object_put(value);
}

int jsonout_print(FILE *f, struct json_object *obj)
{
	int flags = JSON_C_TO_STRING_PLAIN, rc;
	const char *text;

#ifdef JSON_C_TO_STRING_NOSLASHESCAPE
	flags |= JSON_C_TO_STRING_NOSLASHESCAPE;
#endif
	text = obj ? json_object_to_json_string_ext(obj, flags) : NULL;
	rc = text && fprintf(f, "%s\n", text) >= 0 ? 0 : -1;
	json_object_put(obj);
	return rc;
}
