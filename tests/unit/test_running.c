/* slurmjobs_parse_running and slurmjobs_parse_admin_level: squeue's list
 * of running jobs and sacctmgr's AdminLevel, as `spank-ebpf top` reads
 * them to know which jobs the caller may see. One function per case. */
#include <stdlib.h>

#include "slurmjobs.h"
#include "tap.h"

static void test_running_lines(void)
{
	struct running_job *j = NULL;
	size_t n = 0;
	char why[200];

	ok(slurmjobs_parse_running("61|4001|alice|batch|n1\n62|4001|alice|gpu|n[2-3]\n", &j, &n, why, sizeof(why)) == 0 &&
	   n == 2, "running: two lines, two jobs");
	ok(n == 2 && j[1].job == 62 && j[1].uid == 4001 && !strcmp(j[1].user, "alice") &&
	   !strcmp(j[1].partition, "gpu") && !strcmp(j[1].nodes, "n[2-3]"),
	   "running: ... each field in its place");
	free(j);
	ok(slurmjobs_parse_running("", &j, &n, why, sizeof(why)) == 0 && n == 0 && !j, "running: none");
}

static void test_running_refused(void)
{
	static const char *const bad[] = {
		"61|4001|alice|batch\n",              /* a field missing */
		"61|4001|alice|batch|n1|extra\n",     /* one too many */
		"x61|4001|alice|batch|n1\n",          /* not an ID */
		"4294967296|1|a|b|n1\n",              /* past 32 bits */
		"61|-1|alice|batch|n1\n",             /* not a uid */
		"61|4001|alice|batch|n1\nsqueue: error: Unable to contact slurm controller\n",
	};
	struct running_job *j = NULL;
	size_t i, n = 7;
	char why[200];

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ok(slurmjobs_parse_running(bad[i], &j, &n, why, sizeof(why)) == -1 && n == 0 && !j,
		   "running: refused whole: %zu", i);
		ok(strstr(why, "JOBID|UID|USER|PARTITION|NODES") != NULL, "running: ... saying what it expected");
	}
}

static void test_running_control_bytes(void)
{
	struct running_job *j = NULL;
	size_t n = 0, i;
	char why[200];
	int raw = 0;

	ok(slurmjobs_parse_running("61|4001|al\033]0;x\007ice|b|n1|\n", &j, &n, why, sizeof(why)) == -1,
	   "running: a line with control bytes and a field too many refused");
	for (i = 0; why[i]; i++)
		raw += (unsigned char)why[i] < 0x20;
	ok(raw == 0, "running: ... its words printable");
}

static void test_admin_level(void)
{
	ok(slurmjobs_parse_admin_level("Operator\n") == 1, "admin level: Operator");
	ok(slurmjobs_parse_admin_level("Administrator\n") == 1, "admin level: Administrator");
	ok(slurmjobs_parse_admin_level("None\n") == 0, "admin level: None");
	ok(slurmjobs_parse_admin_level("") == 0, "admin level: no line (no such user)");
	ok(slurmjobs_parse_admin_level("Operators\n") == 0, "admin level: a longer word is not it");
	ok(slurmjobs_parse_admin_level("sacctmgr: error: Problem talking to the database\n") == 0,
	   "admin level: an error is no operator");
}

int main(void)
{
	test_running_lines();
	test_running_refused();
	test_running_control_bytes();
	test_admin_level();
	return tap_done();
}
