/* The job set and its text form: set semantics, round trips, and what the
 * parser makes of damaged or hostile files. One function per case, each
 * with a set of its own. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jobset.h"
#include "tap.h"

/* jobset_parse() of TEXT into S; why has room for 160 bytes. */
static int parse_text(struct jobset *s, const char *text, size_t len, char *why)
{
	return jobset_parse(s, text, len, why, 160);
}

/* S in its text form, malloc'd. */
static char *set_text(const struct jobset *s)
{
	size_t cap = jobset_text_size(s);
	char *buf = malloc(cap);

	buf[jobset_format(s, buf, cap)] = '\0';
	return buf;
}

struct bad {
	const char *name;
	const char *text;
	size_t len;
	const char *why;       /* substring */
	const char *salvaged;  /* formatted salvage */
};

#define T(s) s, sizeof(s) - 1
static const struct bad bads[] = {
	{ "empty file", T(""), "empty file", "0\n" },
	{ "no final newline", T("1\n42"), "no final newline", "1\n42\n" },
	{ "count disagrees", T("3\n42\n"), "count 3 disagrees with 1", "1\n42\n" },
	{ "old-style bare counter", T("2\n"), "count 2 disagrees with 0", "0\n" },
	{ "negative count", T("-1\n"), "line 1", "0\n" },
	{ "absurd count", T("99999999999\n7\n"), "line 1", "1\n7\n" },
	{ "count with sign", T("+1\n7\n"), "line 1", "1\n7\n" },
	{ "leading zero", T("1\n042\n"), "line 2: not a job ID", "0\n" },
	{ "non-numeric id", T("2\n42\nabc\n"), "line 3: not a job ID", "1\n42\n" },
	{ "negative id", T("1\n-5\n"), "line 2: not a job ID", "0\n" },
	{ "zero id", T("1\n0\n"), "line 2: not a job ID", "0\n" },
	{ "NO_VAL id", T("1\n4294967294\n"), "not a job ID", "0\n" },
	{ "id too large", T("1\n4294967296\n"), "not a job ID", "0\n" },
	{ "duplicate id", T("3\n7\n8\n7\n"), "duplicate job ID 7", "2\n7\n8\n" },
	{ "blank line", T("1\n\n5\n"), "line 2: not a job ID", "1\n5\n" },
	{ "spaces", T("1\n 5\n"), "not a job ID", "0\n" },
	{ "CRLF", T("1\r\n5\r\n"), "line 1", "0\n" },
	{ "binary", "\x7f" "ELF\x02\x01\x01\0\0\n\xff\xfe", 13, "no final newline", "0\n" },
	{ "NUL bytes", "1\n5\0\n", 5, "NUL", "0\n" },
	{ "unsorted is fine but recounted", T("2\n9\n3\n"), NULL, "2\n3\n9\n" },
};

static void test_set_semantics(void)
{
	struct jobset s;

	jobset_init(&s);
	ok(!jobset_contains(&s, 1), "empty set contains nothing");
	ok(jobset_add(&s, 42) == 1 && jobset_add(&s, 42) == 0, "add, then add again is a no-op");
	ok(jobset_add(&s, 7) == 1 && s.n == 2 && s.ids[0] == 7, "kept sorted");
	ok(jobset_remove(&s, 99) == 0 && s.n == 2, "removing an absent job changes nothing");
	ok(jobset_remove(&s, 42) == 1 && jobset_remove(&s, 42) == 0 && s.n == 1,
	   "remove, then remove again is a no-op");
	jobset_free(&s);
}

static void test_valid_id_range(void)
{
	ok(jobset_valid_id(1) && jobset_valid_id(0xfffffffd) && !jobset_valid_id(0) &&
	   !jobset_valid_id(0xfffffffe) && !jobset_valid_id(0xffffffff),
	   "job ID range 1..0xfffffffd");
}

/* The set test_set_semantics leaves ({7}), then none. */
static void test_format(void)
{
	struct jobset s;
	char *text;

	jobset_init(&s);
	jobset_add(&s, 7);
	text = set_text(&s);
	ok(!strcmp(text, "1\n7\n"), "format: count line first, then IDs");
	free(text);
	jobset_free(&s);
	text = set_text(&s);
	ok(!strcmp(text, "0\n"), "empty set formats as \"0\"");
	free(text);
}

static void test_round_trip_large(void)
{
	struct jobset s, t;
	char why[160], *text;
	size_t i;

	jobset_init(&s);
	for (i = 1; i <= 5000; i++)
		jobset_add(&s, (uint32_t)(i * 2654435761u % 4000000000u) + 1);
	text = set_text(&s);
	jobset_init(&t);
	ok(parse_text(&t, text, strlen(text), why) == 0 && t.n == s.n &&
	   !memcmp(t.ids, s.ids, s.n * sizeof(*s.ids)), "round trip of %zu IDs", s.n);
	free(text);
	jobset_free(&t);
	jobset_free(&s);
}

static void test_cap_on_jobs(void)
{
	struct jobset s;
	size_t i;

	jobset_init(&s);
	for (i = 1; i <= JOBSET_MAX_IDS; i++)
		jobset_add(&s, (uint32_t)i);
	ok(jobset_add(&s, 0x7fffffff) == -1 && s.n == JOBSET_MAX_IDS,
	   "the set refuses more than %d jobs", JOBSET_MAX_IDS);
	jobset_free(&s);
}

static void test_well_formed_file(void)
{
	struct jobset s;
	char why[160];

	jobset_init(&s);
	ok(parse_text(&s, "2\n5\n6\n", 6, why) == 0 && s.n == 2 && why[0] == '\0',
	   "well-formed file parses cleanly");
	jobset_free(&s);
}

static void test_damaged_files(void)
{
	struct jobset s;
	char why[160], *text;
	size_t i;

	jobset_init(&s);
	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		int rc = parse_text(&s, bads[i].text, bads[i].len, why);

		text = set_text(&s);
		if (bads[i].why)
			ok(rc == 1 && strstr(why, bads[i].why) && !strcmp(text, bads[i].salvaged),
			   "%s: damaged (%s), salvaged %zu", bads[i].name, why, s.n);
		else
			ok(rc == 0 && !strcmp(text, bads[i].salvaged), "%s", bads[i].name);
		free(text);
	}
	jobset_free(&s);
}

/* A huge file: refused past 1 MiB, the first MiB salvaged. */
static void test_file_over_limit(void)
{
	size_t len = JOBSET_MAX_BYTES + 4096, off = 0;
	char *big = malloc(len), why[160];
	struct jobset s;

	jobset_init(&s);
	off += (size_t)sprintf(big, "9\n");
	while (off < len)
		big[off++] = '\n';
	ok(parse_text(&s, big, len, why) == 1 && strstr(why, "larger than"),
	   "file over 1 MiB is damaged: %s", why);
	free(big);
	jobset_free(&s);
}

int main(void)
{
	test_set_semantics();
	test_valid_id_range();
	test_format();
	test_round_trip_large();
	test_cap_on_jobs();
	test_well_formed_file();
	test_damaged_files();
	test_file_over_limit();
	return tap_done();
}
