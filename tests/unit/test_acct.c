/* slurmjobs_parse_acct_record: the line of sacct --parsable2
 * --format=JobIDRaw,JobID,State,AdminComment,JobIDRaw the summary (its writer at
 * the job's end, the report reading it) takes a job's record from. One
 * function per case. */
#include "slurmjobs.h"
#include "tap.h"

static char acct_buf[64];

static struct job_acct acct_fresh(size_t len)
{
	struct job_acct a = { .field = acct_buf, .len = len };

	memset(acct_buf, 'x', sizeof(acct_buf));
	return a;
}

static void test_acct_own_line(void)
{
	struct job_acct a = acct_fresh(sizeof(acct_buf));

	ok(slurmjobs_parse_acct_record("41|41|COMPLETED|other|41\n42|42|COMPLETED|SE1:abc note|42\n", 42, &a) == 1,
	   "acct: the job's line among others");
	ok(!strcmp(a.selector, "42"), "acct: its selector");
	ok(!strcmp(a.field, "SE1:abc note"), "acct: its AdminComment");
	ok(a.ended == 1, "acct: COMPLETED is ended");
}

static void test_acct_prefix_not_job(void)
{
	struct job_acct a = acct_fresh(sizeof(acct_buf));

	ok(slurmjobs_parse_acct_record("420|420|COMPLETED|x|420\n4|4|RUNNING|y|4\n", 42, &a) == 0,
	   "acct: job 420's and 4's lines are not job 42's");
}

static void test_acct_bar_in_comment(void)
{
	struct job_acct a = acct_fresh(sizeof(acct_buf));

	ok(slurmjobs_parse_acct_record("7|7|FAILED|a|b|c|7", 7, &a) == 1, "acct: a comment holding '|', no newline");
	ok(!strcmp(a.field, "a|b|c"), "acct: ... read whole");
}

static void test_acct_empty_comment(void)
{
	struct job_acct a = acct_fresh(sizeof(acct_buf));

	ok(slurmjobs_parse_acct_record("7|7|TIMEOUT||7\n", 7, &a) == 1 && a.field[0] == '\0',
	   "acct: no AdminComment reads as empty");
}

static void test_acct_array_task(void)
{
	struct job_acct a = acct_fresh(sizeof(acct_buf));

	ok(slurmjobs_parse_acct_record("43|40_2|COMPLETED||43\n", 43, &a) == 1, "acct: an array's task");
	ok(!strcmp(a.selector, "40_2"), "acct: ... selected by its array ID");
}

static void test_acct_odd_jobid(void)
{
	struct job_acct a = acct_fresh(sizeof(acct_buf));

	ok(slurmjobs_parse_acct_record("44|44+0|COMPLETED|x|44\n", 44, &a) == 0,
	   "acct: a JobID sacctmgr cannot select (44+0) refused");
	ok(slurmjobs_parse_acct_record("44||COMPLETED|x|44\n", 44, &a) == 0, "acct: an empty JobID refused");
	ok(slurmjobs_parse_acct_record("44|44\n", 44, &a) == 0, "acct: a line cut after JobID refused");
}

static void test_acct_states(void)
{
	static const char *const live[] = { "RUNNING", "PENDING", "COMPLETING" };
	static const char *const over[] = { "COMPLETED", "CANCELLED by 1000", "FAILED", "NODE_FAIL",
					    "OUT_OF_MEMORY" };
	char line[80];
	size_t i;

	for (i = 0; i < sizeof(live) / sizeof(live[0]); i++) {
		struct job_acct a = acct_fresh(sizeof(acct_buf));

		snprintf(line, sizeof(line), "9|9|%s||9\n", live[i]);
		ok(slurmjobs_parse_acct_record(line, 9, &a) == 1 && a.ended == 0, "acct: %s is not ended", live[i]);
	}
	for (i = 0; i < sizeof(over) / sizeof(over[0]); i++) {
		struct job_acct a = acct_fresh(sizeof(acct_buf));

		snprintf(line, sizeof(line), "9|9|%s||9\n", over[i]);
		ok(slurmjobs_parse_acct_record(line, 9, &a) == 1 && a.ended == 1, "acct: %s is ended", over[i]);
	}
}

static void test_acct_cut_to_buffer(void)
{
	struct job_acct a = acct_fresh(5);

	ok(slurmjobs_parse_acct_record("8|8|COMPLETED|abcdefgh|8\n", 8, &a) == 1, "acct: a long comment");
	ok(!strcmp(a.field, "abcd"), "acct: ... cut to the caller's buffer, terminated");
	ok(acct_buf[5] == 'x', "acct: ... nothing written past it");
	ok(a.cut == 1 && a.full == 8, "acct: ... said to be cut, its whole length given");
}

/* sacct prints the comment raw: its newlines are the field's, up to the
 * JobIDRaw asked after it. */
static void test_acct_newline_in_comment(void)
{
	struct job_acct a = acct_fresh(sizeof(acct_buf));

	ok(slurmjobs_parse_acct_record("7|7|COMPLETED|first\nsecond|7\n", 7, &a) == 1 && a.cut == 0,
	   "acct: a comment with a newline");
	ok(!strcmp(a.field, "first\nsecond"), "acct: ... read whole");
	a = acct_fresh(sizeof(acct_buf));
	ok(slurmjobs_parse_acct_record("7|7|COMPLETED|a|7\nb\n|7|x|7\n8|8|COMPLETED|y|8\n", 7, &a) == 1 &&
	   !strcmp(a.field, "a|7\nb\n|7|x"), "acct: ... \"|7\" inside it, not before a record, is its text");
	a = acct_fresh(sizeof(acct_buf));
	ok(slurmjobs_parse_acct_record("6|6|COMPLETED|x\n7|7|y|7\n|6\n7|7|COMPLETED|mine|7\n", 7, &a) == 1 &&
	   !strcmp(a.field, "mine"), "acct: ... another record's comment with a line like ours is skipped whole");
	a = acct_fresh(sizeof(acct_buf));
	ok(slurmjobs_parse_acct_record("7|7|COMPLETED|cut short\n", 7, &a) == 0,
	   "acct: a record without its closing JobIDRaw refused");
}

int main(void)
{
	test_acct_own_line();
	test_acct_prefix_not_job();
	test_acct_bar_in_comment();
	test_acct_empty_comment();
	test_acct_array_task();
	test_acct_odd_jobid();
	test_acct_states();
	test_acct_cut_to_buffer();
	test_acct_newline_in_comment();
	return tap_done();
}
