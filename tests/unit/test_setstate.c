/* The state with probe sets (form 2): each job with the sets it holds;
 * form 1 kept wherever it says all there is (a site without sets, an
 * upgrade under running jobs, a downgrade); damaged files salvaged
 * without dropping a hold; holds and releases per set. */
#include <stdlib.h>
#include <string.h>

#include "jobset.h"
#include "tap.h"

static char *format(const struct jobset *set)
{
	size_t cap = jobset_text_size(set);
	char *buf = malloc(cap);

	if (buf && jobset_format(set, buf, cap) == 0)
		buf[0] = '\0';
	return buf;
}

/* Parses text, then formats it again: rc, and the text in *out. */
static int reparse(const char *text, struct jobset *set, char **out, char *why, size_t whylen)
{
	int rc = jobset_parse(set, text, strlen(text), why, whylen);

	*out = format(set);
	return rc;
}

static uint32_t bits(struct jobset *set, const char *names)
{
	uint32_t mask = 0;
	const char *c = names;

	for (;;) {
		size_t n = strcspn(c, ",");

		mask |= 1u << jobset_bit(set, c, n);
		if (!c[n])
			return mask;
		c += n + 1;
	}
}

static void test_form1_kept(void)
{
	struct jobset set;
	char why[160], *out;

	jobset_init(&set);
	ok(reparse("2\n5\n7\n", &set, &out, why, sizeof(why)) == 0 && !strcmp(out, "2\n5\n7\n"),
	   "form 1 (today's state, an upgrade under running jobs): read and written back the same");
	ok(jobset_mask(&set, 5) == 1u << jobset_bit(&set, "-", 1), "... its jobs hold the unit= unit (\"-\")");
	free(out);
	ok(reparse("spank_ebpf state 2\n5 -\n7 -\n", &set, &out, why, sizeof(why)) == 0 &&
	   !strcmp(out, "2\n5\n7\n"), "form 2 holding only \"-\": written as form 1 (an older release reads it)");
	free(out);
	ok(reparse("0\n", &set, &out, why, sizeof(why)) == 0 && !strcmp(out, "0\n"), "empty: \"0\"");
	free(out);
	jobset_free(&set);
}

static void test_form2(void)
{
	struct jobset set;
	char why[160], *out;
	int rc;

	jobset_init(&set);
	ok(reparse("spank_ebpf state 2\n7 sched\n5 io,sched\n", &set, &out, why, sizeof(why)) == 0 &&
	   !strcmp(out, "spank_ebpf state 2\n5 io,sched\n7 sched\n"),
	   "form 2, IDs in any order (as form 1): read, written ascending");
	free(out);
	rc = reparse("spank_ebpf state 2\n5 io,sched\n7 sched\n", &set, &out, why, sizeof(why));
	ok(rc == 0 && !strcmp(out, "spank_ebpf state 2\n5 io,sched\n7 sched\n"), "form 2: round trip, byte for byte: %s", out);
	free(out);
	ok(jobset_holders(&set, jobset_bit(&set, "sched", 5)) == 2 &&
	   jobset_holders(&set, jobset_bit(&set, "io", 2)) == 1, "holders per set: sched 2, io 1");
	ok(reparse("spank_ebpf state 2\n5 -,io\n", &set, &out, why, sizeof(why)) == 0 &&
	   !strcmp(out, "spank_ebpf state 2\n5 -,io\n"), "the unit= unit beside a set: form 2");
	free(out);
	jobset_free(&set);
}

static void test_form2_damaged(void)
{
	static const struct {
		const char *text, *why, *salvage;
	} rows[] = {
		{ "spank_ebpf state 2\n5 io\n5 sched\n", "line 3: duplicate job ID 5", "spank_ebpf state 2\n5 io,sched\n" },
		{ "spank_ebpf state 2\n5 IO\n7 io\n", "line 2: not a set name", "spank_ebpf state 2\n7 io\n" },
		{ "spank_ebpf state 2\n5\n7 io\n", "line 2: not \"<jobid> <set>[,<set>...]\"", "spank_ebpf state 2\n7 io\n" },
		{ "spank_ebpf state 2\n5 \n7 io\n", "line 2: a job with no set", "spank_ebpf state 2\n7 io\n" },
		{ "spank_ebpf state 2\n0 io\n7 io\n", "line 2: not \"<jobid>", "spank_ebpf state 2\n7 io\n" },
		{ "spank_ebpf state 2\n5 io,,x\n", "line 2: not a set name", "0\n" },
		{ "spank_ebpf state 2\n5 io\n7 io", "no final newline", "spank_ebpf state 2\n5 io\n7 io\n" },
		{ "spank_ebpf state 1\n5 io\n", "line 1: \"spank_ebpf state 1\" is not a valid count", "0\n" },
	};
	struct jobset set;
	char why[160], *out;
	size_t i;

	jobset_init(&set);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int rc = reparse(rows[i].text, &set, &out, why, sizeof(why));

		ok(rc == 1 && strstr(why, rows[i].why) && !strcmp(out, rows[i].salvage),
		   "damaged (%s): salvaged as %s", why, out);
		free(out);
		out = NULL;
	}
	jobset_free(&set);
}

/* A form newer than 2: a newer release wrote it. Nothing of it is read
 * (a guess at its lines could drop a hold); the caller refuses it. */
static void test_newer_form(void)
{
	static const char *const texts[] = {
		"spank_ebpf state 3\n5 io\n",
		"spank_ebpf state 10\n5 io,sched\n7 -\n",
		"spank_ebpf state 3",
	};
	struct jobset set;
	char why[160];
	size_t i;

	jobset_init(&set);
	for (i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		int rc = jobset_parse(&set, texts[i], strlen(texts[i]), why, sizeof(why));

		ok(rc == 2 && set.n == 0 && strstr(why, "line 1: \"spank_ebpf state ") &&
		   strstr(why, "\": a newer form than this release reads (1 and 2)"),
		   "newer form (%s): refused, nothing read", why);
	}
	jobset_free(&set);
}

static void test_hold_release(void)
{
	struct jobset set;
	uint32_t io, sched;

	jobset_init(&set);
	io = bits(&set, "io");
	sched = bits(&set, "sched");
	ok(jobset_hold(&set, 5, io | sched) == 1 && jobset_hold(&set, 7, sched) == 1, "5 holds io,sched; 7 sched");
	ok(jobset_hold(&set, 7, sched) == 0, "holding what it holds: no change");
	ok(jobset_hold(&set, 7, io) == 1 && jobset_mask(&set, 7) == (io | sched), "7 adds io (a second step's --ebpf=io)");
	ok(jobset_release(&set, 5, sched) == 1 && jobset_mask(&set, 5) == io, "5 releases sched, keeps io");
	ok(jobset_release(&set, 5, sched) == 0, "releasing what it does not hold: no change");
	ok(jobset_release(&set, 5, ~0u) == 1 && !jobset_contains(&set, 5) && set.n == 1, "5 releases all: gone");
	ok(jobset_hold(&set, 9, 0) < 0, "a job holding no set is refused");
	jobset_free(&set);
}

static void test_name_table(void)
{
	struct jobset set;
	char name[8];
	int i, full = 0;

	jobset_init(&set);
	ok(jobset_bit(&set, "Io", 2) < 0 && jobset_bit(&set, "", 0) < 0 && jobset_bit(&set, "9a", 2) < 0 &&
	   jobset_bit(&set, "a/b", 3) < 0, "names that are not sets' are refused");
	for (i = 0; i < JOBSET_SETS_MAX + 1; i++) {
		snprintf(name, sizeof(name), "s%d", i);
		if (jobset_bit(&set, name, strlen(name)) < 0)
			full++;
	}
	ok(full == 1 && jobset_bit(&set, "s3", 2) == 3, "%d names, then full; known names still found", JOBSET_SETS_MAX);
	jobset_free(&set);
}

int main(void)
{
	test_form1_kept();
	test_form2();
	test_form2_damaged();
	test_newer_form();
	test_hold_release();
	test_name_table();
	return tap_done();
}
