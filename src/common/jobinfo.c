/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The jobs' records and the textfile. See jobinfo.h. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jobinfo.h"
#include "log.h"

#define JOBINFO_FILE ".jobs"
#define TEXTFILE_NAME "spank_ebpf_jobs.prom"
#define LINE_MAX_BYTES 600

long long jobinfo_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (long long)ts.tv_sec;
}

long long jobinfo_unix(long long boot_s)
{
	return (long long)time(NULL) - (jobinfo_now() - boot_s);
}

void jobinfo_clean(const char *in, char *out, size_t len)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._@-";
	size_t i;

	for (i = 0; in && in[i] && i + 1 < len; i++)
		out[i] = strchr(ok, in[i]) ? in[i] : '_';
	out[i] = '\0';
}

void jobinfo_free(struct jobinfo_list *l)
{
	free(l->jobs);
	l->jobs = NULL;
	l->n = 0;
}

struct jobinfo *jobinfo_find(struct jobinfo_list *l, uint32_t job)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (l->jobs[i].job == job)
			return &l->jobs[i];
	return NULL;
}

struct jobinfo *jobinfo_put(struct jobinfo_list *l, uint32_t job, const char *user,
			    const char *sluid, const char *sets)
{
	struct jobinfo *j = jobinfo_find(l, job);

	if (!j) {
		struct jobinfo *more;

		if (l->n >= JOBINFO_MAX)
			return NULL;
		more = realloc(l->jobs, (l->n + 1) * sizeof(*more));
		if (!more)
			return NULL;
		l->jobs = more;
		j = &l->jobs[l->n++];
		memset(j, 0, sizeof(*j));
		j->job = job;
	}
	jobinfo_clean(user && *user ? user : "-", j->user, sizeof(j->user));
	jobinfo_clean(sluid, j->sluid, sizeof(j->sluid));
	snprintf(j->sets, sizeof(j->sets), "%s", sets);
	j->end = 0;
	j->uid = JOBINFO_UID_NONE;
	return j;
}

void jobinfo_drop(struct jobinfo_list *l, size_t i)
{
	if (i >= l->n)
		return;
	memmove(&l->jobs[i], &l->jobs[i + 1], (l->n - i - 1) * sizeof(*l->jobs));
	l->n--;
}

long long jobinfo_uid(const char *text)
{
	unsigned long long v = 0;
	const char *c;

	if (!text || !*text)
		return JOBINFO_UID_NONE;
	for (c = text; *c >= '0' && *c <= '9' && v < 0xffffffffull; c++)
		v = v * 10 + (unsigned long long)(*c - '0');
	if (*c || v >= 0xffffffffull)
		return JOBINFO_UID_NONE;
	return (long long)v;
}

/* One line: "<jobid> <user> <sluid|-> <sets> <end> <uid|-> <start>"; the
 * uid and the start are missing from an older release's line. */
static int parse_line(const char *line, struct jobinfo *j)
{
	char user[JOBINFO_USER_MAX + 2], sluid[JOBINFO_SLUID_MAX + 2], sets[402], uid[16] = "-", extra;
	unsigned long job;
	long long end, start = 0;
	int n = sscanf(line, "%lu %65s %33s %401s %lld %15s %lld %c", &job, user, sluid, sets, &end,
		       uid, &start, &extra);

	if (n < 5 || n > 7 || job == 0 || job > 0xfffffffdul || end < 0 || start < 0 ||
	    strlen(user) > JOBINFO_USER_MAX || strlen(sluid) > JOBINFO_SLUID_MAX ||
	    strlen(sets) >= sizeof(j->sets) ||
	    (strcmp(uid, "-") && jobinfo_uid(uid) == JOBINFO_UID_NONE))
		return -1;
	memset(j, 0, sizeof(*j));
	j->job = (uint32_t)job;
	jobinfo_clean(user, j->user, sizeof(j->user));
	jobinfo_clean(strcmp(sluid, "-") ? sluid : "", j->sluid, sizeof(j->sluid));
	snprintf(j->sets, sizeof(j->sets), "%s", sets);
	j->end = end;
	j->uid = jobinfo_uid(uid);
	j->start = start;
	return 0;
}

int jobinfo_load(struct statefile *sf, struct jobinfo_list *l)
{
	static char buf[JOBINFO_MAX * 128];
	char *line, *save;
	size_t len;
	int rc, bad = 0;

	l->n = 0;
	l->jobs = NULL;
	rc = statefile_read_aux(sf, JOBINFO_FILE, buf, sizeof(buf), &len);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct jobinfo j, *to;

		if (parse_line(line, &j) < 0 || jobinfo_find(l, j.job)) {
			bad++;
			continue;
		}
		to = jobinfo_put(l, j.job, j.user, j.sluid, j.sets);
		if (!to) {
			jobinfo_free(l);
			log_msg(LOG_ERROR, "out of memory reading \"%s%s\"", sf->path, JOBINFO_FILE);
			return -1;
		}
		to->end = j.end;
		to->uid = j.uid;
		to->start = j.start;
	}
	if (bad)
		log_msg(LOG_ERROR, "\"%s%s\" has %d damaged lines: skipped", sf->path, JOBINFO_FILE, bad);
	return 0;
}

/* The gid of group from /etc/group itself, not through NSS: a prolog
 * must not wait on a directory service, and node_exporter's group is a
 * local system group. Returns 0, or -1 when it is not there. */
static int jobinfo_group_gid(const char *group, gid_t *gid)
{
	struct group *gr;
	FILE *f = fopen("/etc/group", "re");
	int rc = -1;

	if (!f)
		return -1;
	while ((gr = fgetgrent(f)))
		if (!strcmp(gr->gr_name, group)) {
			*gid = gr->gr_gid;
			rc = 0;
			break;
		}
	fclose(f);
	return rc;
}

/* Who may read the textfile: root and node_exporter's group (0640), or
 * root alone (0600) when the group does not exist; never everyone, as
 * it names every opted-in job's user. */
static int textfile_private(int fd, const char *group, const char *dst)
{
	gid_t gid;

	if (!group || !group[0] || jobinfo_group_gid(group, &gid) < 0) {
		log_msg(LOG_ERROR, "no group \"%s\" in /etc/group: the job_info textfile is readable by root only (textfile_group= in the sets file names node_exporter's group)",
			group ? group : "");
		return fchmod(fd, 0600);
	}
	if (fchown(fd, (uid_t)-1, gid) < 0) {
		log_msg(LOG_ERROR, "cannot give \"%s\" to group %s: %s; readable by root only", dst,
			group, strerror(errno));
		return fchmod(fd, 0600);
	}
	return fchmod(fd, 0640);
}

/* What goes in one textfile. */
typedef void (*textfile_body_fn)(FILE *f, const void *arg);

/* node_exporter's textfile DIR/NAME: DIR/.NAME.XXXXXX, then rename, so it
 * never reads a half-written one. Only where the directory exists (no
 * node_exporter, no file). */
static void textfile_write(const char *dir, const char *group, const char *name,
			   textfile_body_fn body, const void *arg)
{
	char tmp[CONFIG_PATH_MAX + 96], dst[CONFIG_PATH_MAX + 96];
	struct stat st;
	FILE *f;
	int fd;

	if (!dir || !dir[0] || stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	snprintf(dst, sizeof(dst), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, name);
	fd = mkstemp(tmp);
	f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f) {
		log_msg(LOG_ERROR, "cannot write in \"%s\": %s", dir, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		return;
	}
	body(f, arg);
	if (textfile_private(fd, group, dst) < 0 || fflush(f) != 0 || ferror(f) || fclose(f) != 0 ||
	    rename(tmp, dst) < 0) {
		log_msg(LOG_ERROR, "cannot write \"%s\": %s", dst, strerror(errno));
		unlink(tmp);
	}
}

static void textfile_jobs_body(FILE *f, const void *arg)
{
	const struct jobinfo_list *l = arg;
	size_t i;

	fprintf(f, "# HELP spank_ebpf_job_info A job holding probe sets on this node: the join key of its probe series (jobid), with its user.\n"
		   "# TYPE spank_ebpf_job_info gauge\n");
	for (i = 0; i < l->n; i++)
		fprintf(f, "spank_ebpf_job_info{jobid=\"%u\",user=\"%s\",sluid=\"%s\",sets=\"%s\"} 1\n",
			l->jobs[i].job, l->jobs[i].user, l->jobs[i].sluid, l->jobs[i].sets);
	fprintf(f, "# HELP spank_ebpf_job_start_time_seconds When the job joined its probe sets on this node (its prolog), in Unix seconds.\n"
		   "# TYPE spank_ebpf_job_start_time_seconds gauge\n");
	for (i = 0; i < l->n; i++)
		if (l->jobs[i].start > 0)
			fprintf(f, "spank_ebpf_job_start_time_seconds{jobid=\"%u\"} %lld\n",
				l->jobs[i].job, jobinfo_unix(l->jobs[i].start));
}

static void write_textfile(const char *dir, const char *group, const struct jobinfo_list *l)
{
	char dst[CONFIG_PATH_MAX + 64];

	if (l->n == 0) {
		struct stat st;

		if (!dir[0] || stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
			return;
		snprintf(dst, sizeof(dst), "%s/" TEXTFILE_NAME, dir);
		if (unlink(dst) < 0 && errno != ENOENT)
			log_msg(LOG_ERROR, "cannot remove \"%s\": %s", dst, strerror(errno));
		return;
	}
	textfile_write(dir, group, TEXTFILE_NAME, textfile_jobs_body, l);
}

static void textfile_ready_body(FILE *f, const void *arg)
{
	fprintf(f, "# HELP spank_ebpf_set_ready_time_seconds When the probe set's exporter last became ready (its probes attached), in Unix seconds.\n"
		   "# TYPE spank_ebpf_set_ready_time_seconds gauge\n"
		   "spank_ebpf_set_ready_time_seconds{set=\"%s\"} %lld\n",
		(const char *)arg, (long long)time(NULL));
}

void jobinfo_store_ready(const char *textfile_dir, const char *textfile_group, const char *set)
{
	char name[128];

	snprintf(name, sizeof(name), "spank_ebpf_set_%s.prom", set);
	textfile_write(textfile_dir, textfile_group, name, textfile_ready_body, set);
}

int jobinfo_store(struct statefile *sf, const char *textfile_dir, const char *textfile_group,
		  const struct jobinfo_list *l)
{
	static char buf[JOBINFO_MAX * 128];
	size_t i, n = 0;

	for (i = 0; i < l->n && n + LINE_MAX_BYTES < sizeof(buf); i++) {
		const struct jobinfo *j = &l->jobs[i];

		char uid[24] = "-";

		if (j->uid != JOBINFO_UID_NONE)
			snprintf(uid, sizeof(uid), "%lld", j->uid);
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%u %s %s %s %lld %s %lld\n", j->job,
				      j->user[0] ? j->user : "-", j->sluid[0] ? j->sluid : "-",
				      j->sets, j->end, uid, j->start);
	}
	if (textfile_dir)
		write_textfile(textfile_dir, textfile_group, l);
	if (n == 0) {
		statefile_remove_aux(sf, JOBINFO_FILE);
		return 0;
	}
	return statefile_write_aux(sf, JOBINFO_FILE, "job records", buf, n);
}
