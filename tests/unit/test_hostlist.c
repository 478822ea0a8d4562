/* hostlist_expand and hostlist_find: Slurm's host list expressions as
 * `scontrol show hostnames` expands them (ranges, zero padding, several
 * brackets, suffixes), the bound counted before anything is written,
 * and what is not Slurm's syntax refused. One function per case. */
#include <string.h>

#include "hostlist.h"
#include "tap.h"

/* expr's names joined by spaces (sorted), or "ERR: why". */
static const char *expand(const char *expr, size_t max)
{
	static char out[4096];
	struct hostlist hl;
	char why[200];
	size_t i, len = 0;

	if (hostlist_expand(expr, max, &hl, why, sizeof(why)) < 0) {
		snprintf(out, sizeof(out), "ERR: %s", why);
		return out;
	}
	out[0] = 0;
	for (i = 0; i < hl.n && len < sizeof(out) - HOSTLIST_NAME_MAX - 2; i++)
		len += (size_t)snprintf(out + len, sizeof(out) - len, "%s%s", i ? " " : "", hl.name[i]);
	hostlist_free(&hl);
	return out;
}

static void is_str(const char *got, const char *want, const char *what)
{
	ok(!strcmp(got, want), "%s: \"%s\" (got \"%s\")", what, want, got);
}

static void test_forms(void)
{
	is_str(expand("n1", 16), "n1", "one name");
	is_str(expand("n[1-2,5],m3", 16), "m3 n1 n2 n5", "ranges and a plain name, sorted");
	is_str(expand("gpu[08-11]-ib", 16), "gpu08-ib gpu09-ib gpu10-ib gpu11-ib",
	       "zero padding of the low end, a suffix after the bracket");
	is_str(expand("n[098-101]", 16), "n098 n099 n100 n101", "padding kept across a power of ten");
	is_str(expand("r[1-2]n[1-2]", 16), "r1n1 r1n2 r2n1 r2n2", "two brackets: every pair");
	is_str(expand("n[1-3],n2,n[2-3]", 16), "n1 n2 n3", "each name once");
	is_str(expand("login.example.org,n[7]", 16), "login.example.org n7", "dots; a bracket of one number");
}

static void test_bound(void)
{
	is_str(expand("n[1-4]", 4), "n1 n2 n3 n4", "as many names as the bound");
	is_str(expand("n[1-5]", 4), "ERR: more than 4 names", "one more than the bound: refused");
	is_str(expand("n[1-3],m[1-2]", 4), "ERR: more than 4 names", "... counted over items");
	is_str(expand("a[1-1000]b[1-1000]c[1-1000]", 4096), "ERR: more than 4096 names",
	       "a product of brackets past the bound, refused before any name is made");
	is_str(expand("n[0-999999999]", 4096), "ERR: more than 4096 names", "a range of a billion: refused at once");
	is_str(expand("n[1-99999999999]", 4096),
	       "ERR: brackets that do not hold ranges of numbers (\"1-3,5\")", "a number past the bound");
}

static void test_refused(void)
{
	const char *bad[][2] = {
		{ "n[1-2", "a '[' without its ']'" },
		{ "n1-2]", "a ']' without its '['" },
		{ "n[2-1]", "brackets that do not hold ranges of numbers (\"1-3,5\")" },
		{ "n[a-b]", "brackets that do not hold ranges of numbers (\"1-3,5\")" },
		{ "n[1,]", "brackets that do not hold ranges of numbers (\"1-3,5\")" },
		{ "n[]", "brackets that do not hold ranges of numbers (\"1-3,5\")" },
		{ "n[[1]]", "a '[' without its ']'" },
		{ "n1,,n2", "an empty name" },
		{ "n1,", "an empty name" },
		{ "", "no names" },
		{ "n1 n2", "a blank or a byte that is not printable ASCII" },
		{ "n\x1b]0;x", "a blank or a byte that is not printable ASCII" },
	};
	char want[200];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(want, sizeof(want), "ERR: %s", bad[i][1]);
		is_str(expand(bad[i][0], 16), want, "refused");
	}
}

static void test_long_names(void)
{
	char expr[300], want[300];

	memset(expr, 'a', 127);
	expr[127] = 0;
	snprintf(want, sizeof(want), "%s", expr);
	is_str(expand(expr, 4), want, "a name of 127 bytes");
	expr[126] = 0;
	strcat(expr, "[1-2]");
	ok(!strncmp(expand(expr, 4), want, 126) && strlen(expand(expr, 4)) == 2 * 127 + 1,
	   "126 bytes and a bracket's digit: 127, fine");
	memset(expr, 'a', 127);
	expr[127] = 0;
	strcat(expr, "[1-2]");
	is_str(expand(expr, 4), "ERR: a name longer than 127 bytes", "127 bytes and a bracket's digit: refused");
}

static void test_find(void)
{
	struct hostlist hl;
	char why[100];

	ok(hostlist_expand("n[1-1000],gpu[1-4]", 4096, &hl, why, sizeof(why)) == 0 && hl.n == 1004,
	   "1004 names");
	ok(hostlist_find(&hl, "n1") >= 0 && hostlist_find(&hl, "n1000") >= 0 && hostlist_find(&hl, "gpu4") >= 0,
	   "each found");
	ok(!strcmp(hl.name[hostlist_find(&hl, "n500")], "n500"), "... at its index");
	ok(hostlist_find(&hl, "n1001") == -1 && hostlist_find(&hl, "n0001") == -1 &&
		   hostlist_find(&hl, "otherclusternode7") == -1 && hostlist_find(&hl, "") == -1,
	   "others not");
	hostlist_free(&hl);
	ok(hostlist_find(&hl, "n1") == -1, "an empty list finds none");
}

int main(void)
{
	test_forms();
	test_bound();
	test_refused();
	test_long_names();
	test_find();
	return tap_done();
}
