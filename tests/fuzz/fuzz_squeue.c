/* Fuzzes the parser of squeue's answer (reconcile removes holds on what it
 * says). Invariants: it accepts only "<jobid>|<STATE>" lines; on
 * acceptance every answer is consistent (gone exactly for final states
 * or unlisted jobs); on refusal it says why. The same bytes go to top's
 * readers of squeue's running jobs (a job list, or nothing and printable
 * words why) and of sacctmgr's AdminLevel (yes or no). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "slurmjobs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint32_t ids[] = { 1, 2, 3, 5, 8, 13, 21, 42, 4294967293u };
	static uint32_t masks[sizeof(ids) / sizeof(ids[0])] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	struct jobset set = { .ids = ids, .masks = masks, .n = sizeof(ids) / sizeof(ids[0]),
			      .cap = sizeof(ids) / sizeof(ids[0]) };
	struct job_answer ans[sizeof(ids) / sizeof(ids[0])];
	char *text, why[300] = "";
	size_t i;
	int rc;

	text = malloc(size + 1);
	FUZZ_CHECK(text);
	memcpy(text, data, size);
	text[size] = '\0'; /* runcmd's output is NUL-terminated */
	for (i = 0; i < set.n; i++) {
		ans[i].where = JOB_GONE;
		ans[i].state[0] = '\0';
	}
	rc = slurmjobs_parse(text, &set, ans, why, sizeof(why));
	FUZZ_CHECK(rc == 0 || rc == -1);
	FUZZ_CHECK(rc == 0 || why[0]);
	for (i = 0; rc == 0 && i < set.n; i++) {
		FUZZ_CHECK(strlen(ans[i].state) < SLURMJOBS_STATE_MAX);
		FUZZ_CHECK(ans[i].where == (ans[i].state[0] && !slurmjobs_state_is_over(ans[i].state) ?
					    JOB_HERE : JOB_GONE));
	}
	{
		struct running_job *jobs = NULL;
		size_t n = 7;

		why[0] = '\0';
		rc = slurmjobs_parse_running(text, &jobs, &n, why, sizeof(why));
		FUZZ_CHECK(rc == 0 || rc == -1);
		FUZZ_CHECK(rc == 0 || (why[0] && !jobs && n == 0));
		for (i = 0; rc == -1 && why[i]; i++)
			FUZZ_CHECK((unsigned char)why[i] >= 0x20 && (unsigned char)why[i] < 0x7f);
		for (i = 0; rc == 0 && i < n; i++)
			FUZZ_CHECK(jobs[i].uid >= 0 && strlen(jobs[i].user) < sizeof(jobs[i].user) &&
				   strlen(jobs[i].partition) < sizeof(jobs[i].partition) &&
				   strlen(jobs[i].nodes) < sizeof(jobs[i].nodes));
		free(jobs);
		rc = slurmjobs_parse_admin_level(text);
		FUZZ_CHECK(rc == 0 || rc == 1);
	}
	free(text);
	return 0;
}
