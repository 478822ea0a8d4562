/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Asking Slurm which held jobs still run on this node. See slurmjobs.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runcmd.h"
#include "slurmjobs.h"

/* Final states, and PENDING (requeued: it left this node; its next prolog,
 * which waits for our lock, adds it again). Anything else, including
 * words a later Slurm may add, counts as still here: never act on a
 * word we do not know. */
static const char *const over[] = {
	"PENDING", "BOOT_FAIL", "CANCELLED", "COMPLETED", "DEADLINE", "FAILED",
	"NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "TIMEOUT", "REVOKED",
	"SPECIAL_EXIT",
};

int slurmjobs_state_is_over(const char *state)
{
	size_t i;

	for (i = 0; i < sizeof(over) / sizeof(over[0]); i++)
		if (!strcmp(state, over[i]))
			return 1;
	return 0;
}

static int find(const struct jobset *set, uint32_t id)
{
	size_t lo = 0, hi = set->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (set->ids[mid] == id)
			return (int)mid;
		if (set->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int slurmjobs_parse(const char *out, const struct jobset *set, struct job_answer *ans,
		    char *why, size_t whylen)
{
	const char *p = out;

	while (*p) {
		const char *nl = strchr(p, '\n'), *bar;
		size_t len = nl ? (size_t)(nl - p) : strlen(p), dlen, slen;
		uint64_t id = 0;
		size_t i;
		int k;

		bar = memchr(p, '|', len);
		dlen = bar ? (size_t)(bar - p) : 0;
		slen = bar ? len - dlen - 1 : 0;
		if (!bar || dlen == 0 || dlen > 10 || slen == 0 || slen >= SLURMJOBS_STATE_MAX ||
		    strspn(p, "0123456789") != dlen ||
		    strspn(bar + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") != slen) {
			snprintf(why, whylen, "squeue printed a line that is not \"<jobid>|<STATE>\": \"%.*s\"",
				 (int)(len > 60 ? 60 : len), p);
			for (i = 0; why[i]; i++)
				if ((unsigned char)why[i] < 0x20 || (unsigned char)why[i] >= 0x7f)
					why[i] = '?';
			return -1;
		}
		for (i = 0; i < dlen; i++)
			id = id * 10 + (uint64_t)(p[i] - '0');
		k = id <= UINT32_MAX ? find(set, (uint32_t)id) : -1;
		if (k >= 0) {
			snprintf(ans[k].state, sizeof(ans[k].state), "%.*s", (int)slen, bar + 1);
			ans[k].where = slurmjobs_state_is_over(ans[k].state) ? JOB_GONE : JOB_HERE;
		}
		p += len + (nl ? 1 : 0);
	}
	return 0;
}

int slurmjobs_ask(const struct slurm_ask *ask, const struct jobset *set,
		  struct job_answer *ans, char *why, size_t whylen)
{
	static struct runcmd_result res;
	char nodes[300], *jobs, *env[2] = { NULL, NULL }, *conf = NULL, desc[160];
	char *argv[] = { (char *)ask->squeue, "--noheader", "--array", "--states=all",
			 nodes, NULL, "--format=%A|%T", NULL };
	size_t i, off;
	int rc;

	if (set->n == 0)
		return 0;
	if (set->n > SLURMJOBS_MAX) {
		snprintf(why, whylen, "the state holds %zu jobs, more than one query may ask about (%d)",
			 set->n, SLURMJOBS_MAX);
		return -1;
	}
	snprintf(nodes, sizeof(nodes), "--nodelist=%s", ask->node);
	jobs = malloc(16 + set->n * 11);
	if (!jobs) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	off = (size_t)sprintf(jobs, "--jobs=");
	for (i = 0; i < set->n; i++) {
		off += (size_t)sprintf(jobs + off, "%s%u", i ? "," : "", set->ids[i]);
		ans[i].where = JOB_GONE; /* unless listed */
		ans[i].state[0] = '\0';
	}
	argv[5] = jobs;
	if (ask->slurm_conf && asprintf(&conf, "SLURM_CONF=%s", ask->slurm_conf) > 0)
		env[0] = conf;
	rc = runcmd_env(argv, env, ask->timeout * 1000, &res);
	free(jobs);
	free(conf);
	if (res.truncated) {
		snprintf(why, whylen, "squeue printed more than %d bytes", RUNCMD_OUTPUT_MAX);
		return -1;
	}
	/* With a single ID squeue asks for that job alone, and a job slurmctld
	 * has already forgotten is an error; it is as gone as it gets. */
	if (rc < 0 && set->n == 1 && res.exited && res.exit_status == 1 &&
	    strstr(res.output, "Invalid job id specified") &&
	    !strchr(strstr(res.output, "Invalid job id specified"), '|'))
		return 0;
	if (rc < 0) {
		runcmd_describe(&res, ask->timeout * 1000, desc, sizeof(desc));
		snprintf(why, whylen, "%s %s: %.*s", ask->squeue, desc,
			 (int)strcspn(res.output, "\n"), res.output);
		for (i = 0; why[i]; i++)
			if ((unsigned char)why[i] < 0x20 || (unsigned char)why[i] >= 0x7f)
				why[i] = '?';
		return -1;
	}
	return slurmjobs_parse(res.output, set, ans, why, whylen);
}
