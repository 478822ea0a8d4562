/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Asking Slurm which held jobs still run on this node. See slurmjobs.h. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

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

/* Keeps the first line of out in why: non-printable bytes as '?'. */
static void why_from(char *why, size_t whylen, const char *prog, const char *desc,
		     const char *out)
{
	size_t i;

	snprintf(why, whylen, "%s %s: %.*s", prog, desc, (int)strcspn(out, "\n"), out);
	for (i = 0; why[i]; i++)
		if ((unsigned char)why[i] < 0x20 || (unsigned char)why[i] >= 0x7f)
			why[i] = '?';
}

int slurmjobs_parse_nodes(const char *text, const char *host, const char *short_host,
			  char *out, size_t outlen, char *why, size_t whylen)
{
	static const char name_chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	const char *p = text;
	int found = 0;

	out[0] = '\0';
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p), nlen, hlen;
		const char *bar = memchr(p, '|', len);

		nlen = bar ? (size_t)(bar - p) : 0;
		hlen = bar ? len - nlen - 1 : 0;
		if (!bar || nlen == 0 || nlen >= outlen || hlen == 0 ||
		    strspn(p, name_chars) != nlen || strspn(bar + 1, name_chars) != hlen) {
			snprintf(why, whylen, "sinfo printed a line that is not \"<NodeName>|<NodeHostname>\": \"%.*s\"",
				 (int)(len > 60 ? 60 : len), p);
			return -1;
		}
		if ((hlen == strlen(host) && !strncmp(bar + 1, host, hlen)) ||
		    (hlen == strlen(short_host) && !strncmp(bar + 1, short_host, hlen))) {
			/* The same node in several partitions: listed again. */
			if (found && (strlen(out) != nlen || strncmp(out, p, nlen))) {
				snprintf(why, whylen, "several nodes have this host's name as NodeHostname (%s, %.*s): give the node's name",
					 out, (int)nlen, p);
				return -1;
			}
			snprintf(out, outlen, "%.*s", (int)nlen, p);
			found = 1;
		}
		p += len + (nl ? 1 : 0);
	}
	return found;
}

int slurmjobs_parse_slurmd(const char *text, char *out, size_t outlen)
{
	static const char name_chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
	const char *p = text;

	for (; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] ? 1 : 0)) {
		const char *v;
		size_t n;

		if (strncmp(p, "Hostname", 8) != 0)
			continue;
		v = p + 8 + strspn(p + 8, " ");
		if (*v != '=')
			continue;
		v += 1 + strspn(v + 1, " ");
		n = strspn(v, name_chars);
		if (n == 0 || n >= outlen || (v[n] && v[n] != '\n'))
			return -1;
		snprintf(out, outlen, "%.*s", (int)n, v);
		return 0;
	}
	return -1;
}

/* The Slurm command NAME beside squeue, run bounded (with extra, a
 * "NAME=value" for its environment, unless NULL); 0 and its output in
 * res, or -1 with why set. */
static int run_beside_squeue(const struct slurm_ask *ask, const char *name, char *const args[],
			     const char *extra, struct runcmd_result *res, char *why, size_t whylen)
{
	char prog[300], desc[160], *argv[10], *env[3] = { NULL, NULL, NULL }, *conf = NULL;
	const char *slash = strrchr(ask->squeue, '/');
	int i, n = 0, rc;

	snprintf(prog, sizeof(prog), "%.*s/%s", (int)(slash - ask->squeue), ask->squeue, name);
	argv[0] = prog;
	for (i = 0; args[i] && i < 8; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	if (ask->slurm_conf && asprintf(&conf, "SLURM_CONF=%s", ask->slurm_conf) > 0)
		env[n++] = conf;
	if (extra)
		env[n++] = (char *)extra;
	rc = runcmd_env(argv, env, ask->timeout * 1000, res);
	free(conf);
	if (rc == 0 && !res->truncated)
		return 0;
	runcmd_describe(res, ask->timeout * 1000, desc, sizeof(desc));
	why_from(why, whylen, prog, res->truncated ? "printed too much" : desc, res->output);
	return -1;
}

const char *slurmjobs_node(struct slurm_ask *ask, char *why, size_t whylen)
{
	static struct runcmd_result res;
	static char *const slurmd_args[] = { "show", "slurmd", NULL };
	static char *const sinfo_args[] = { "--noheader", "--Node", "--format=%N|%n", NULL };
	char host[256], short_host[256], slurmd_why[300];
	int rc;

	if (ask->node)
		return ask->node;
	if (ask->asked_node[0])
		return ask->asked_node;
	/* slurmd knows its own name, whatever the host's (slurmd -N). */
	rc = run_beside_squeue(ask, "scontrol", slurmd_args, NULL, &res, slurmd_why, sizeof(slurmd_why));
	if (rc == 0 && slurmjobs_parse_slurmd(res.output, ask->asked_node, sizeof(ask->asked_node)) == 0)
		return ask->asked_node;
	if (rc == 0)
		snprintf(slurmd_why, sizeof(slurmd_why), "scontrol show slurmd gave no NodeName");
	/* slurmd down: slurmctld maps host names to nodes. */
	if (gethostname(host, sizeof(host) - 1) < 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	snprintf(short_host, sizeof(short_host), "%.*s", (int)strcspn(host, "."), host);
	if (run_beside_squeue(ask, "sinfo", sinfo_args, NULL, &res, why, whylen) < 0)
		return NULL;
	rc = slurmjobs_parse_nodes(res.output, host, short_host, ask->asked_node,
				   sizeof(ask->asked_node), why, whylen);
	if (rc > 0)
		return ask->asked_node;
	if (rc == 0)
		snprintf(why, whylen, "this node's Slurm name is unknown: slurmd did not say (%.150s) and slurmctld lists no node whose NodeHostname is %.60s; give it (--node, SPANK_EBPF_NODE)",
			 slurmd_why, host);
	return NULL;
}

int slurmjobs_ask(struct slurm_ask *ask, const struct jobset *set,
		  struct job_answer *ans, char *why, size_t whylen)
{
	const char *node;
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
	node = slurmjobs_node(ask, why, whylen);
	if (!node)
		return -1;
	snprintf(nodes, sizeof(nodes), "--nodelist=%s", node);
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
		why_from(why, whylen, ask->squeue, desc, res.output);
		return -1;
	}
	return slurmjobs_parse(res.output, set, ans, why, whylen);
}

long long slurmjobs_parse_elapsed(const char *text)
{
	long long part[4] = { 0, 0, 0, 0 }, days = 0, v;
	const char *p = text;
	char *end;
	int n = 0;

	p += strspn(p, " ");
	if (strchr(p, '-')) {
		if (!(*p >= '0' && *p <= '9'))
			return -1;
		days = strtoll(p, &end, 10);
		if (*end != '-' || days > 100000)
			return -1;
		p = end + 1;
	}
	/* M:S, H:M:S: at most three fields, each of digits. */
	for (;;) {
		if (!(*p >= '0' && *p <= '9') || n == 3)
			return -1;
		v = strtoll(p, &end, 10);
		if (v > 1000000)
			return -1;
		part[n++] = v;
		p = end;
		if (*p != ':')
			break;
		p++;
	}
	if (p[strspn(p, " \n")] || n < 2)
		return -1;
	if (n == 2)
		return days * 86400 + part[0] * 60 + part[1];
	return days * 86400 + part[0] * 3600 + part[1] * 60 + part[2];
}

int slurmjobs_elapsed(struct slurm_ask *ask, uint32_t job, long long *secs, char *why,
		      size_t whylen)
{
	static struct runcmd_result res;
	char jobs[32], *env[2] = { NULL, NULL }, *conf = NULL, desc[160];
	char *argv[] = { (char *)ask->squeue, "--noheader", jobs, "--format=%M", NULL };
	int rc;

	snprintf(jobs, sizeof(jobs), "--jobs=%u", job);
	if (ask->slurm_conf && asprintf(&conf, "SLURM_CONF=%s", ask->slurm_conf) > 0)
		env[0] = conf;
	rc = runcmd_env(argv, env, ask->timeout * 1000, &res);
	free(conf);
	if (rc < 0 || res.truncated) {
		runcmd_describe(&res, ask->timeout * 1000, desc, sizeof(desc));
		why_from(why, whylen, ask->squeue, desc, res.output);
		return -1;
	}
	*secs = slurmjobs_parse_elapsed(res.output);
	if (*secs < 0) {
		snprintf(why, whylen, "squeue gave no run time for job %u: \"%.60s\"", job,
			 res.output);
		return -1;
	}
	return 0;
}

/* One '|' field of a line into out (at most outlen - 1 bytes); the next
 * field, or NULL after the last. */
static const char *range_field(const char *p, char *out, size_t outlen, bool *fits)
{
	size_t n = strcspn(p, "|\n");

	*fits = n < outlen;
	snprintf(out, outlen, "%.*s", (int)(n < outlen ? n : outlen - 1), p);
	return p[n] == '|' ? p + n + 1 : NULL;
}

/* A time field: Unix seconds, or 0 for Slurm's "Unknown", "None" and
 * the like. -1: something else. */
static long long range_time(const char *f)
{
	char *end;
	long long t;

	if (!isdigit((unsigned char)f[0]))
		return isalpha((unsigned char)f[0]) ? 0 : -1;
	errno = 0;
	t = strtoll(f, &end, 10);
	return *end || errno || t < 0 ? -1 : t;
}

int slurmjobs_parse_range(const char *text, uint32_t job, struct job_range *r, char *why,
			  size_t whylen)
{
	const char *p;

	for (p = text; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] ? 1 : 0)) {
		char f[7][1024], *end;
		const char *q = p;
		bool fits = true, ok;
		int i;

		for (i = 0; i < 7 && q; i++) {
			q = range_field(q, f[i], sizeof(f[i]), &ok);
			fits = fits && ok;
		}
		/* Steps (sacct without -X) and array tasks ("5_1") are not the
		 * job's own line. */
		errno = 0;
		if (i < 7 || strtoul(f[0], &end, 10) != job || *end || errno)
			continue;
		memset(r, 0, sizeof(*r));
		r->uid = strtoll(f[1], &end, 10);
		if (!fits || *end || !f[1][0] || r->uid < 0 || (r->start = range_time(f[3])) < 0 ||
		    (r->end = range_time(f[4])) < 0 || strlen(f[2]) >= sizeof(r->user)) {
			snprintf(why, whylen, "Slurm's line for job %u cannot be read: \"%.80s\"", job, p);
			for (i = 0; why[i]; i++)
				if ((unsigned char)why[i] < 0x20 || (unsigned char)why[i] >= 0x7f)
					why[i] = '?';
			return -1;
		}
		snprintf(r->user, sizeof(r->user), "%s", f[2]);
		snprintf(r->state, sizeof(r->state), "%.*s", (int)strcspn(f[5], " "), f[5]);
		snprintf(r->nodes, sizeof(r->nodes), "%s", f[6]);
		return 1;
	}
	return 0;
}

int slurmjobs_range(struct slurm_ask *ask, uint32_t job, struct job_range *r, char *why,
		    size_t whylen)
{
	static struct runcmd_result res;
	char jobs[32], acct_why[300];
	char *const sacct_args[] = { "--noheader", "--parsable2", "--allocations", jobs,
				     "--format=JobIDRaw,UID,User,Start,End,State,NodeList", NULL };
	char *const squeue_args[] = { "--noheader", "--states=all", jobs,
				      "--format=%i|%U|%u|%S|%e|%T|%N", NULL };
	int rc;

	snprintf(jobs, sizeof(jobs), "--jobs=%u", job);
	/* Times as Unix seconds, whatever the site's format. */
	rc = run_beside_squeue(ask, "sacct", sacct_args, "SLURM_TIME_FORMAT=%s", &res, acct_why,
			       sizeof(acct_why));
	if (rc == 0) {
		rc = slurmjobs_parse_range(res.output, job, r, why, whylen);
		if (rc != 0)
			return rc;
	}
	if (run_beside_squeue(ask, "squeue", squeue_args, "SLURM_TIME_FORMAT=%s", &res, why,
			      whylen) < 0) {
		/* An unknown job ID is squeue's error, not a failure to ask. */
		if (strstr(res.output, "Invalid job id"))
			return 0;
		return -1;
	}
	rc = slurmjobs_parse_range(res.output, job, r, why, whylen);
	/* squeue's %e of a running job is its time limit's end. */
	if (rc == 1 && !slurmjobs_state_is_over(r->state))
		r->end = 0;
	return rc;
}

/* Does a record "JOBIDRAW|JOBID|" start at p? */
static bool acct_record_start(const char *p)
{
	size_t n = strspn(p, "0123456789");

	if (!n || p[n] != '|')
		return false;
	p += n + 1;
	n = strspn(p, "0123456789_");
	return n && p[n] == '|';
}

/* Where the comment starting at c ends. sacct prints it raw, '|' and
 * newlines included, so JobIDRaw is asked again after it: the comment
 * ends at the first "|RAW" that ends the output, or a line followed by
 * the end or another record. NULL when none does (a record cut short). */
static const char *acct_comment_end(const char *c, const char *raw, size_t rl)
{
	const char *p, *q;

	for (p = c; (p = strchr(p, '|')); p++) {
		q = p + 1;
		if (strncmp(q, raw, rl))
			continue;
		q += rl;
		if (*q == '\n')
			q++;
		else if (*q)
			continue;
		if (!*q || acct_record_start(q))
			return p;
	}
	return NULL;
}

int slurmjobs_parse_acct_record(const char *text, uint32_t job, struct job_acct *a)
{
	char want[16];
	const char *p = text;

	snprintf(want, sizeof(want), "%u", job);
	a->cut = 0;
	while (*p) {
		const char *id, *state, *comment, *end;
		char raw[16];
		size_t n, idl;

		if (!acct_record_start(p)) {
			/* Not a record: a line sacct added; the next one. */
			p += strcspn(p, "\n");
			p += *p ? 1 : 0;
			continue;
		}
		n = strspn(p, "0123456789");
		if (n >= sizeof(raw))
			return 0;
		memcpy(raw, p, n);
		raw[n] = '\0';
		id = p + n + 1;
		idl = strcspn(id, "|");
		state = id + idl + 1;
		n = strcspn(state, "|\n");
		if (state[n] != '|')
			return 0;
		comment = state + n + 1;
		end = acct_comment_end(comment, raw, strlen(raw));
		if (!end)
			return 0;
		if (strcmp(raw, want)) {
			p = end + 1 + strlen(raw);
			p += *p == '\n' ? 1 : 0;
			continue;
		}
		/* sacctmgr's selector: digits, and "_" and digits for a task. */
		if (idl >= sizeof(a->selector))
			return 0;
		snprintf(a->selector, sizeof(a->selector), "%.*s", (int)idl, id);
		a->ended = !(n == 7 && !strncmp(state, "RUNNING", 7)) && !(n == 7 && !strncmp(state, "PENDING", 7)) &&
			   !(n == 10 && !strncmp(state, "COMPLETING", 10));
		n = (size_t)(end - comment);
		a->full = n;
		if (n >= a->len) {
			n = a->len - 1;
			a->cut = 1;
		}
		memcpy(a->field, comment, n);
		a->field[n] = '\0';
		return 1;
	}
	return 0;
}

int slurmjobs_acct_record(struct slurm_ask *ask, uint32_t job, struct job_acct *a, char *why,
			  size_t whylen)
{
	static struct runcmd_result res;
	char jobs[32];
	char *const args[] = { "--noheader", "--parsable2", "--allocations", jobs,
			       "--format=JobIDRaw,JobID,State,AdminComment,JobIDRaw", NULL };

	snprintf(jobs, sizeof(jobs), "--jobs=%u", job);
	if (run_beside_squeue(ask, "sacct", args, NULL, &res, why, whylen) < 0)
		return -1;
	return slurmjobs_parse_acct_record(res.output, job, a);
}

int slurmjobs_set_admin_comment(struct slurm_ask *ask, const char *selector, const char *field,
				char *why, size_t whylen)
{
	static struct runcmd_result res;
	char where[48], *value;
	int rc;

	if (asprintf(&value, "AdminComment=%s", field) < 0) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	snprintf(where, sizeof(where), "jobid=%s", selector);
	{
		char *const args[] = { "-i", "modify", "job", "where", where, "set", value, NULL };

		rc = run_beside_squeue(ask, "sacctmgr", args, NULL, &res, why, whylen);
	}
	free(value);
	return rc;
}

int slurmjobs_parse_running(const char *text, struct running_job **jobs, size_t *n, char *why,
			    size_t whylen)
{
	const char *p;
	size_t cap = 0;

	*jobs = NULL;
	*n = 0;
	for (p = text; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] ? 1 : 0)) {
		char f[5][1024], *end;
		const char *q = p;
		struct running_job *j;
		bool fits = true, ok;
		unsigned long id;
		int i;

		if (p[0] == '\n')
			continue;
		for (i = 0; i < 5 && q; i++) {
			q = range_field(q, f[i], sizeof(f[i]), &ok);
			fits = fits && ok;
		}
		errno = 0;
		id = strtoul(f[0], &end, 10);
		if (i < 5 || q || !fits || !isdigit((unsigned char)f[0][0]) || *end || errno ||
		    id > UINT32_MAX || !isdigit((unsigned char)f[1][0]) || strlen(f[2]) >= sizeof(j->user) ||
		    strlen(f[3]) >= sizeof(j->partition)) {
			snprintf(why, whylen, "squeue printed a line that is not \"JOBID|UID|USER|PARTITION|NODES\": \"%.80s\"", p);
			for (i = 0; why[i]; i++)
				if ((unsigned char)why[i] < 0x20 || (unsigned char)why[i] >= 0x7f)
					why[i] = '?';
			free(*jobs);
			*jobs = NULL;
			*n = 0;
			return -1;
		}
		if (*n == cap) {
			struct running_job *more = realloc(*jobs, (cap ? 2 * cap : 64) * sizeof(**jobs));

			if (!more) {
				snprintf(why, whylen, "out of memory");
				free(*jobs);
				*jobs = NULL;
				*n = 0;
				return -1;
			}
			*jobs = more;
			cap = cap ? 2 * cap : 64;
		}
		j = &(*jobs)[(*n)++];
		memset(j, 0, sizeof(*j));
		j->job = (uint32_t)id;
		j->uid = strtoll(f[1], NULL, 10);
		snprintf(j->user, sizeof(j->user), "%s", f[2]);
		snprintf(j->partition, sizeof(j->partition), "%s", f[3]);
		snprintf(j->nodes, sizeof(j->nodes), "%s", f[4]);
	}
	return 0;
}

int slurmjobs_running(struct slurm_ask *ask, const struct running_ask *q, struct running_job **jobs,
		      size_t *n, char *why, size_t whylen)
{
	static struct runcmd_result res;
	char user[128], part[128], node[160];
	char *args[8] = { "--noheader", "--states=RUNNING", "--format=%i|%U|%u|%P|%N", NULL };
	int k = 3;

	*jobs = NULL;
	*n = 0;
	/* Slurm narrows the list itself: less to print, less to read. */
	if (q && q->user) {
		snprintf(user, sizeof(user), "--user=%.100s", q->user);
		args[k++] = user;
	}
	if (q && q->partition) {
		snprintf(part, sizeof(part), "--partition=%.100s", q->partition);
		args[k++] = part;
	}
	if (q && q->node) {
		snprintf(node, sizeof(node), "--nodelist=%.140s", q->node);
		args[k++] = node;
	}
	args[k] = NULL;
	if (run_beside_squeue(ask, "squeue", args, NULL, &res, why, whylen) < 0)
		return -1;
	return slurmjobs_parse_running(res.output, jobs, n, why, whylen);
}

int slurmjobs_parse_admin_level(const char *text)
{
	size_t n = strcspn(text, "\n");

	return (n == 8 && !strncmp(text, "Operator", 8)) || (n == 13 && !strncmp(text, "Administrator", 13));
}

int slurmjobs_is_operator(struct slurm_ask *ask, const char *user, char *why, size_t whylen)
{
	static struct runcmd_result res;
	char name[128];
	char *args[] = { "--noheader", "--parsable2", "show", "user", name, "format=AdminLevel", NULL };

	why[0] = '\0';
	snprintf(name, sizeof(name), "name=%.100s", user);
	if (run_beside_squeue(ask, "sacctmgr", args, NULL, &res, why, whylen) < 0)
		return 0;
	return slurmjobs_parse_admin_level(res.output);
}
