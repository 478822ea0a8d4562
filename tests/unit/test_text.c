/* text_printable: what an exporter or NSS hands the report leaves it
 * with no escape sequence and no unvalidated byte (JSON: test_jsonout). One
 * function per case. */
#include <string.h>

#include "tap.h"
#include "text.h"

static const char hostile[] = "\033]0;PWNED\007\033[2J\xff\xfe\"\\ok";

static int all_ascii_printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

static void test_printable(void)
{
	char out[128];

	text_printable(hostile, out, sizeof(out));
	ok(all_ascii_printable(out), "printable: no control byte, no byte >= 0x7f");
	ok(!strcmp(out, "\\x1b]0;PWNED\\x07\\x1b[2J\\xff\\xfe\"\\x5cok"),
	   "printable: each such byte as \\xNN, a backslash too (got %s)", out);
	text_printable("plain user@x.y", out, sizeof(out));
	ok(!strcmp(out, "plain user@x.y"), "printable: plain text as it is");
}

static void test_printable_cut(void)
{
	char out[7];

	text_printable("ab\033cd", out, sizeof(out));
	ok(!strcmp(out, "ab\\x1b"), "printable: cut after a whole escape (got %s)", out);
	text_printable("abc\033", out, 6);
	ok(!strcmp(out, "abc"), "printable: an escape that does not fit is left out (got %s)", out);
	text_printable(NULL, out, sizeof(out));
	ok(!strcmp(out, ""), "printable: NULL is empty");
}

int main(void)
{
	test_printable();
	test_printable_cut();
	return tap_done();
}
