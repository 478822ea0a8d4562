/* slurmjobs_parse_elapsed: squeue's %M (a job's run time) as the report
 * divides by it. One function per case. */
#include "slurmjobs.h"
#include "tap.h"

static void test_elapsed_forms(void)
{
	ok(slurmjobs_parse_elapsed("0:07\n") == 7, "elapsed: M:S");
	ok(slurmjobs_parse_elapsed("12:34") == 754, "elapsed: MM:SS");
	ok(slurmjobs_parse_elapsed("1:02:03") == 3723, "elapsed: H:M:S");
	ok(slurmjobs_parse_elapsed("2-01:02:03") == 2 * 86400 + 3723, "elapsed: D-H:M:S");
	ok(slurmjobs_parse_elapsed("  3:00  \n") == 180, "elapsed: squeue's padding");
}

static void test_elapsed_refused(void)
{
	ok(slurmjobs_parse_elapsed("INVALID") == -1, "elapsed: INVALID refused");
	ok(slurmjobs_parse_elapsed("") == -1, "elapsed: nothing refused");
	ok(slurmjobs_parse_elapsed("17") == -1, "elapsed: a bare number refused");
	ok(slurmjobs_parse_elapsed("1:2:3:4") == -1, "elapsed: four fields refused");
	ok(slurmjobs_parse_elapsed("0:07\n0:08\n") == -1, "elapsed: two lines refused");
	ok(slurmjobs_parse_elapsed("-1:00") == -1, "elapsed: a sign refused");
	ok(slurmjobs_parse_elapsed("1:x") == -1, "elapsed: a letter refused");
}

int main(void)
{
	test_elapsed_forms();
	test_elapsed_refused();
	return tap_done();
}
