/* SPDX-License-Identifier: GPL-2.0-or-later */
/* jsonout.c, the admin command's one JSON writer: strings from outside
 * as valid UTF-8 (U+FFFD for what is not, controls escaped), numbers not
 * finite as null, one line in the plain form. One function per case. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonout.h"
#include "tap.h"

/* obj as jsonout_print writes it (put), without its newline. */
static const char *printed(struct json_object *obj)
{
	static char out[4096];
	FILE *f = fmemopen(out, sizeof(out), "w");
	size_t n;

	if (!f || jsonout_print(f, obj) < 0) {
		if (f)
			fclose(f);
		return "(not written)";
	}
	fclose(f);
	n = strlen(out);
	if (n && out[n - 1] == '\n')
		out[n - 1] = '\0';
	return out;
}

/* {"s": s} as printed. */
static const char *printed_string(const char *s)
{
	struct json_object *o = json_object_new_object();

	jsonout_add(o, "s", jsonout_string(s));
	return printed(o);
}

static void test_string_hostile(void)
{
	const char *out = printed_string("al\xffi\001ce\033[2J\"\\/x");

	tap_ok(!strcmp(out, "{\"s\":\"al\xef\xbf\xbdi\\u0001ce\\u001b[2J\\\"\\\\/x\"}"),
	       "a byte 0xff as U+FFFD, control bytes escaped, quote and backslash too, '/' not (got %s)", out);
	out = printed_string("jos\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	tap_ok(!strcmp(out, "{\"s\":\"jos\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}"),
	       "valid UTF-8 of 2, 3 and 4 bytes as it is (got %s)", out);
	out = printed_string("\x7f|\xc2\x9b|\xc2\xa0");
	tap_ok(!strcmp(out, "{\"s\":\"\xef\xbf\xbd|\xef\xbf\xbd|\xc2\xa0\"}"),
	       "DEL and a C1 control (U+009B, CSI) as U+FFFD; U+00A0 kept (got %s)", out);
}

static void test_string_invalid_utf8(void)
{
	static const struct {
		const char *in, *want, *what;
	} cases[] = {
		{ "a\xc3", "a\xef\xbf\xbd", "a cut 2-byte character" },
		{ "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd", "an overlong '/'" },
		{ "\xe0\x80\xaf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", "an overlong 3-byte form" },
		{ "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", "a surrogate (U+D800)" },
		{ "\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd", "past U+10FFFF" },
		{ "\x80x", "\xef\xbf\xbdx", "a lone continuation byte" },
		{ "\xe2\x82x", "\xef\xbf\xbd\xef\xbf\xbdx", "a 3-byte character cut by an ASCII byte" },
	};
	char out[64];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		jsonout_utf8(cases[i].in, out, sizeof(out));
		tap_ok(!strcmp(out, cases[i].want), "%s: each byte as U+FFFD", cases[i].what);
	}
	jsonout_utf8("ab\xe2\x82\xac", out, 5);
	tap_ok(!strcmp(out, "ab"), "cut at a whole character (got %s)", out);
	jsonout_utf8(NULL, out, sizeof(out));
	tap_ok(!strcmp(out, ""), "NULL is empty");
	tap_ok(!strcmp(printed_string(NULL), "{\"s\":null}"), "a NULL string is null");
}

static void test_numbers(void)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	char want[1024];
	const char *out;

	jsonout_add(o, "count", jsonout_double(200, 0));
	jsonout_add(o, "share", jsonout_double(0.3, 4));
	jsonout_add(o, "p50", jsonout_double_g(0.0021818181818, 9));
	jsonout_add(o, "nan", jsonout_double(NAN, 6));
	jsonout_add(o, "inf", jsonout_double(INFINITY, 0));
	jsonout_add(o, "minf", jsonout_double_g(-INFINITY, 9));
	jsonout_add(o, "big", jsonout_double(1e300, 0));
	jsonout_add(o, "id", jsonout_int(4294967293LL));
	jsonout_add(o, "neg", jsonout_int(-1));
	jsonout_add(o, "yes", jsonout_bool(true));
	jsonout_append(a, jsonout_double(NAN, 0));
	jsonout_append(a, jsonout_int(5));
	jsonout_add(o, "list", a);
	snprintf(want, sizeof(want),
		 "{\"count\":200,\"share\":0.3000,\"p50\":0.00218181818,\"nan\":null,\"inf\":null,\"minf\":null,\"big\":%.0f,\"id\":4294967293,\"neg\":-1,\"yes\":true,\"list\":[null,5]}",
		 1e300);
	out = printed(o);
	tap_ok(!strcmp(out, want), "numbers in their format, in the order added; NaN and infinities null, in an array too (got %.160s)", out);
	tap_ok(!strchr(out, '\n') && !strstr(out, ":nan") && !strstr(out, "NaN") && !strstr(out, "Infinity") &&
		       !strstr(out, ":inf"), "one line, nothing that is no JSON number");
}

int main(void)
{
	test_string_hostile();
	test_string_invalid_utf8();
	test_numbers();
	return tap_done();
}
