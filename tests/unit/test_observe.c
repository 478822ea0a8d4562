/* The probes' job filter and the jobs' records (observe.h), with real
 * BPF maps: a child process creates maps laid out as the project's
 * configs do (one spank_jobs and spank_jobs_gen per config object, metric
 * maps keyed by job ID first) and sits in the set's unit cgroup as its
 * exporter would. The unit itself is the systemctl double's. Needs root
 * (BPF_MAP_GET_FD_BY_ID); one function per case, each from fresh(). */
#include <errno.h>
#include <grp.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpfmap.h"
#include "hold.h"
#include "jobinfo.h"
#include "log.h"
#include "reconcile.h"
#include "spank_job_map.h"
#include "stats.h"
#include "tap.h"
#include "testutil.h"
#include "unit.h"

static struct config cfg;
static char dir[128], sets_path[200], textfile_dir[200], textfile[300];

static char sets_text[1024];
#define SETS_FORMAT \
	"unit = ebpf_exporter@.service\n" \
	"default = io\n" \
	"textfile = %s\n" \
	"[io]\ndescription = Block I/O\nconfigs = spank-io\nlisten = 127.0.0.1:941\nlinger = 30\n" \
	"[two]\ndescription = Two of ours\nconfigs = spank-sched,spank-net\nlisten = 127.0.0.1:942\n" \
	"[plain]\ndescription = Not ours\nconfigs = biolatency\nlisten = 127.0.0.1:943\n"

/* A metric map's key as the probes make it: the job ID first. */
struct metric_key {
	uint32_t job;
	uint32_t op;
	uint64_t bucket;
};

static int map_create(uint32_t type, const char *name, uint32_t key, uint32_t value)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = type;
	a.key_size = key;
	a.value_size = value;
	a.max_entries = 64;
	/* As the loader does: the name's first 15 bytes. */
	snprintf(a.map_name, sizeof(a.map_name), "%.*s", (int)sizeof(a.map_name) - 1, name);
	return (int)syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof(a));
}

/* One config object's maps, in the calling process. */
static int config_maps(const char *metric, uint32_t jobs_key)
{
	if (map_create(BPF_MAP_TYPE_HASH, SPANK_JOBS_MAP, jobs_key, sizeof(struct spank_job_val)) < 0 ||
	    map_create(BPF_MAP_TYPE_ARRAY, SPANK_JOBS_GEN_MAP, 4, 8) < 0 ||
	    map_create(BPF_MAP_TYPE_LRU_HASH, SPANK_JOB_CACHE_MAP, 8, 8) < 0)
		return -1;
	return map_create(BPF_MAP_TYPE_HASH, metric, sizeof(struct metric_key), 8) < 0 ? -1 : 0;
}

static void stop_exporter(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* A stand-in exporter: a child that makes its maps (make(arg) returns 0
 * when it made them all), says so, then waits to be killed. Its pid, or
 * -1 when it could not make them. */
static pid_t stand_in(int (*make)(const void *arg), const void *arg)
{
	int p[2];
	char c = 'n';
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		c = make(arg) == 0 ? 'y' : 'n';
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &c, 1) != 1 || c != 'y') {
		stop_exporter(pid);
		pid = -1;
	}
	close(p[0]);
	return pid;
}

/* The stand-in exporter of a set: nconfigs config objects' maps (the
 * jobs map's key jobs_key bytes). */
struct set_maps {
	int nconfigs;
	uint32_t jobs_key;
};

static int make_set_maps(const void *arg)
{
	static const char *const metrics[] = { "spank_io_latency", "spank_net_tcp_r" };
	const struct set_maps *a = arg;
	int i;

	for (i = 0; i < a->nconfigs; i++)
		if (config_maps(metrics[i % 2], a->jobs_key) < 0)
			return -1;
	return 0;
}

static pid_t exporter(int nconfigs, uint32_t jobs_key)
{
	const struct set_maps a = { nconfigs, jobs_key };

	return stand_in(make_set_maps, &a);
}

/* Puts pid in the cgroup systemd would give the set's unit (or empties
 * it, pid 0: the unit stopped). */
static void in_unit(const char *set, pid_t pid)
{
	char unit[128], path[600], procs[700], text[32];

	snprintf(unit, sizeof(unit), "ebpf_exporter@%s.service", set);
	unit_cgroup(&cfg, unit, path, sizeof(path) - 20);
	snprintf(procs, sizeof(procs), "mkdir -p '%s'", path);
	if (system(procs) != 0)
		tap_diag("%s failed", procs);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
	text[0] = '\0';
	if (pid)
		snprintf(text, sizeof(text), "%d\n", (int)pid);
	tu_write(procs, text, strlen(text));
}

/* The maps the stand-in holds with this name (the first, or the nth). */
static int held_map(pid_t pid, const char *name, int nth, struct bpfmap *m)
{
	struct bpfmap all[32];
	int n, i, found = -1, seen = 0;

	n = bpfmap_of_process(pid, "spank_", all, 32);
	for (i = 0; i < n; i++) {
		if (found < 0 && !strcmp(all[i].name, name) && seen++ == nth) {
			*m = all[i];
			found = i;
			continue;
		}
		bpfmap_close(&all[i]);
	}
	return found < 0 ? -1 : 0;
}

/* The filter's value for key in the nth config of pid: 1 found, 0 not. */
static int filter_has(pid_t pid, int nth, const char *key, struct spank_job_val *v)
{
	struct spank_job_key k;
	struct bpfmap m;
	int rc;

	memset(&k, 0, sizeof(k));
	snprintf(k.name, sizeof(k.name), "%s", key);
	if (held_map(pid, SPANK_JOBS_MAP, nth, &m) < 0)
		return -1;
	rc = bpfmap_lookup(&m, &k, v) == 0;
	bpfmap_close(&m);
	return rc;
}

static uint64_t generation(pid_t pid, int nth)
{
	uint32_t zero = 0;
	uint64_t g = 0;
	struct bpfmap m;

	if (held_map(pid, SPANK_JOBS_GEN_MAP, nth, &m) == 0) {
		bpfmap_lookup(&m, &zero, &g);
		bpfmap_close(&m);
	}
	return g;
}

/* An entry of the stand-in's map called name (or its first 15 bytes, as
 * the kernel keeps a map's name): put (1) with value v, or 1 when it is
 * there (0); -1 without such a map. */
static int map_entry(pid_t pid, const char *name, const void *key, uint64_t v, int put)
{
	char kept[BPF_OBJ_NAME_LEN];
	struct bpfmap m;
	int rc;

	snprintf(kept, sizeof(kept), "%s", name);
	if (held_map(pid, name, 0, &m) < 0 && held_map(pid, kept, 0, &m) < 0)
		return -1;
	rc = put ? bpfmap_update(&m, key, &v) : bpfmap_lookup(&m, key, &v) == 0;
	bpfmap_close(&m);
	return rc;
}

/* A series of job in the stand-in's first metric map. */
static int series(pid_t pid, uint32_t job, int put)
{
	struct metric_key k = { .job = job, .op = 1, .bucket = 3 };

	return map_entry(pid, "spank_io_latency", &k, 5, put);
}

static char *textfile_text(void)
{
	char *t = tu_slurp(textfile);

	return t ? t : strdup("(missing)");
}

static int acquire(uint32_t job, const char *value, const char *user, const char *sluid)
{
	struct job_who who = { user, sluid, NULL };
	int ev = 0;

	log_set_context("prolog job %u", job);
	return hold_acquire_as(&cfg, job, &who, value, false, &ev) < 0 ? -1 : ev;
}

static int release(uint32_t job)
{
	int ev = 0;

	log_set_context("epilog job %u", job);
	return hold_release(&cfg, job, &ev) < 0 ? -1 : ev;
}

static void fresh(const char *text)
{
	char cmd[1400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'.* '%s/bin/calls.log' '%s/bin/active' '%s/bin/active.d' '%s'/* '%s/cgroup/system.slice'/*",
		 cfg.state, cfg.state, dir, dir, dir, textfile_dir, dir);
	if (system(cmd) != 0)
		tap_diag("%s failed", cmd);
	tu_write(sets_path, text, strlen(text));
	chmod(sets_path, 0644);
	tu_double_set(dir, "ok");
	tu_clear_logs();
}

/* fresh() with io's linger 0: the epilog prunes at once. */
static void fresh_no_linger(void)
{
	char text[sizeof(sets_text)];

	snprintf(text, sizeof(text), "%s", sets_text);
	memcpy(strstr(text, "linger = 30"), "linger = 0 ", 11);
	fresh(text);
}

/* A job asking io is admitted under both of its cgroup names, for the io
 * config only; the generation moves; its record and join key appear. */
static void test_join_admits(pid_t io)
{
	struct spank_job_val v = { 0, 0 };
	uint64_t g;
	int found;
	char *t;

	fresh(sets_text);
	in_unit("io", io);
	g = generation(io, 0);
	ok(acquire(7, "io", "alice", "sEKNKTV3WPV500") >= 0, "job 7 (io) acquires");
	found = filter_has(io, 0, "job_7", &v);
	ok(found == 1 && v.job == 7 && v.configs == SPANK_JOB_IO,
	   "job_7 is in io's filter, for spank-io only (job %u, configs %#x)", v.job, v.configs);
	ok(filter_has(io, 0, "sEKNKTV3WPV500", &v) == 1 && v.job == 7,
	   "its SLUID is a key too (Slurm 26.05's cgroup name)");
	ok(generation(io, 0) > g, "the generation moved (%llu -> %llu)", (unsigned long long)g,
	   (unsigned long long)generation(io, 0));
	t = textfile_text();
	ok(strstr(t, "# HELP spank_ebpf_job_info ") && strstr(t, "# TYPE spank_ebpf_job_info gauge\n") &&
		   strstr(t, "spank_ebpf_job_info{jobid=\"7\",user=\"alice\",sluid=\"sEKNKTV3WPV500\",sets=\"io\"} 1\n"),
	   "the textfile has HELP, TYPE and the job's join key");
	free(t);
	release(7);
	in_unit("io", 0);
}

/* Jobs that did not ask for io are in no io filter: one that asked for
 * another set, one of ours without the option, one in a set without the
 * project's configs. */
static void test_others_not_admitted(pid_t io)
{
	struct spank_job_val v;

	fresh(sets_text);
	in_unit("io", io);
	acquire(8, "plain", "bob", NULL);
	acquire(9, "two", "bob", NULL);
	ok(filter_has(io, 0, "job_8", &v) == 0 && filter_has(io, 0, "job_9", &v) == 0,
	   "jobs of other sets are not in io's filter");
	ok(acquire(10, "io", "carol", NULL) >= 0 && filter_has(io, 0, "job_10", &v) == 1,
	   "a job of io joining a busy set is admitted");
	release(8);
	release(9);
	release(10);
	in_unit("io", 0);
}

/* A set of two of the project's configs: both config objects' filters get
 * the job, with both bits. */
static void test_two_configs(pid_t two)
{
	struct spank_job_val a = { 0, 0 }, b = { 0, 0 };
	int found;

	fresh(sets_text);
	in_unit("two", two);
	acquire(11, "two", "dave", NULL);
	found = filter_has(two, 0, "job_11", &a) + filter_has(two, 1, "job_11", &b);
	ok(found == 2 && a.configs == (SPANK_JOB_SCHED | SPANK_JOB_NET) && a.configs == b.configs,
	   "both configs' filters have job 11, bits sched|net (%#x, %#x)", a.configs, b.configs);
	release(11);
	ok(filter_has(two, 0, "job_11", &a) == 0 && filter_has(two, 1, "job_11", &b) == 0,
	   "its epilog takes it out of both");
	in_unit("two", 0);
}

/* The epilog: out of the filter at once; record and series stay for the
 * set's linger (30 s), marked ended. */
static void test_leave_keeps_series_for_linger(pid_t io)
{
	struct spank_job_val v;
	char *t;

	fresh(sets_text);
	in_unit("io", io);
	acquire(12, "io", "erin", "sX1");
	series(io, 12, 1);
	release(12);
	ok(filter_has(io, 0, "job_12", &v) == 0 && filter_has(io, 0, "sX1", &v) == 0,
	   "after its epilog job 12 is in no filter");
	ok(series(io, 12, 0) == 1, "its series stay while io lingers");
	t = textfile_text();
	ok(strstr(t, "jobid=\"12\"") != NULL, "its join key stays while io lingers");
	free(t);
	in_unit("io", 0);
}

/* linger 0: the epilog takes the record, the textfile and the job's
 * series out; another job's series stay. */
static void test_prune_without_linger(pid_t io)
{
	struct stat before, after;
	char *t;

	fresh_no_linger();
	in_unit("io", io);
	acquire(13, "io", "frank", NULL);
	acquire(14, "io", "grace", NULL);
	series(io, 13, 1);
	series(io, 14, 1);
	stat(textfile, &before);
	release(13);
	stat(textfile, &after);
	ok(series(io, 13, 0) == 0 && series(io, 14, 0) == 1,
	   "job 13's series went, job 14's stayed");
	t = textfile_text();
	ok(!strstr(t, "jobid=\"13\"") && strstr(t, "jobid=\"14\""),
	   "the textfile lost job 13 and kept job 14");
	free(t);
	/* Replaced by a rename, never rewritten in place. */
	ok(before.st_ino != after.st_ino, "the textfile was replaced, not rewritten (inode %lu -> %lu)",
	   (unsigned long)before.st_ino, (unsigned long)after.st_ino);
	release(14);
	t = textfile_text();
	ok(!strcmp(t, "(missing)"), "no job left: no textfile");
	free(t);
	in_unit("io", 0);
}

/* An instance started in the background: the job joined before its maps
 * existed; its ExecStartPost (observe_admit_all) admits it. */
static void test_admit_all(pid_t io)
{
	struct spank_job_val v;
	int n;

	fresh(sets_text);
	acquire(15, "io", "heidi", "sQ2");
	acquire(16, "two", "ivan", NULL);
	ok(filter_has(io, 0, "job_15", &v) == 0, "joined before the instance ran: not admitted yet");
	in_unit("io", io);
	n = observe_admit_all(&cfg, NULL, "io");
	ok(n == 0, "without the sets file, io runs none of our configs: %d admitted", n);
	{
		static struct sets s;
		char err[300];

		sets_load(sets_path, &s, err, sizeof(err));
		n = observe_admit_all(&cfg, &s, "io");
	}
	ok(n == 1 && filter_has(io, 0, "job_15", &v) == 1 && filter_has(io, 0, "sQ2", &v) == 1 &&
		   filter_has(io, 0, "job_16", &v) == 0,
	   "admit_all admitted io's holder (both names) and nobody else: %d", n);
	release(15);
	release(16);
	in_unit("io", 0);
}

/* A map of the right name but another layout is left alone, said. */
static void test_foreign_layout(pid_t odd)
{
	struct spank_job_val v;

	fresh(sets_text);
	in_unit("io", odd);
	ok(acquire(17, "io", "judy", NULL) >= 0, "the job's hold is taken all the same");
	ok(tu_logged("is not the one this plugin knows (key 32, value 8 bytes)"),
	   "the foreign layout is said");
	ok(filter_has(odd, 0, "job_17", &v) <= 0, "nothing written into it");
	release(17);
	in_unit("io", 0);
}

/* Dropped from the state without an epilog (reconcile): the next prune
 * ends its record. */
static void test_prune_ends_dropped_jobs(void)
{
	static struct sets s;
	struct statefile sf;
	struct jobset set;
	char err[300], *t;

	fresh(sets_text);
	sets_load(sets_path, &s, err, sizeof(err));
	acquire(18, "io", "mallory", NULL);
	jobset_init(&set);
	statefile_open_locked(&sf, cfg.state, 1000);
	observe_prune(&sf, &cfg, &s, &set); /* an empty state: job 18 is gone */
	statefile_close(&sf);
	{
		char path[300];

		snprintf(path, sizeof(path), "%s.jobs", cfg.state);
		t = tu_slurp(path);
	}
	ok(t && strncmp(t, "18 mallory - io ", 16) == 0 && strcmp(t + 16, "0\n"),
	   "job 18's record got an end: %s", t ? t : "(none)");
	free(t);
	jobset_free(&set);
}

/* The stand-in exporter of spank-net as built: its metric map
 * spank_net_tcp_retransmits_total is keyed by the job ID alone (4 bytes,
 * as spank-oom's is), the prefix's whole length. */
static int make_job_keyed(const void *arg)
{
	(void)arg;
	if (map_create(BPF_MAP_TYPE_HASH, SPANK_JOBS_MAP, sizeof(struct spank_job_key),
		       sizeof(struct spank_job_val)) >= 0 &&
	    map_create(BPF_MAP_TYPE_ARRAY, SPANK_JOBS_GEN_MAP, 4, 8) >= 0 &&
	    map_create(BPF_MAP_TYPE_HASH, "spank_net_tcp_r", sizeof(uint32_t), 8) >= 0)
		return 0;
	return -1;
}

/* A series of job in a metric map keyed by the job ID alone: put (1),
 * or 1 when it is there (0). */
static int series_job_keyed(pid_t pid, uint32_t job, int put)
{
	return map_entry(pid, "spank_net_tcp_r", &job, 3, put);
}

/* An ended job's series leave a metric map whose key is its ID and
 * nothing else (spank-net's retransmits, spank-oom's kills): the prefix
 * is the whole key. */
static void test_prune_job_keyed_series(pid_t net)
{
	fresh_no_linger();
	in_unit("io", net);
	acquire(20, "io", "ken", NULL);
	acquire(21, "io", "lena", NULL);
	series_job_keyed(net, 20, 1);
	series_job_keyed(net, 21, 1);
	release(20);
	ok(series_job_keyed(net, 20, 0) == 0 && series_job_keyed(net, 21, 0) == 1,
	   "a job-ID-keyed map: job 20's series went at its end, job 21's stayed");
	release(21);
	ok(series_job_keyed(net, 21, 0) == 0, "and job 21's at its own");
	in_unit("io", 0);
}

/* The stand-in exporter of spank-io with its drop counter
 * (spank_io_dropped_total: keys {map, reason}, no job ID first). */
static int make_with_drops(const void *arg)
{
	(void)arg;
	if (config_maps("spank_io_latency", sizeof(struct spank_job_key)) == 0 &&
	    map_create(BPF_MAP_TYPE_HASH, SPANK_IO_DROPPED, sizeof(struct spank_dropped_key), 8) >= 0)
		return 0;
	return -1;
}

/* The drop counter {map 1, reason full}: put (1), or 1 when it is there. */
static int drop_counted(pid_t pid, int put)
{
	struct spank_dropped_key k = { .map = 1, .reason = SPANK_DROP_FULL };

	return map_entry(pid, "spank_io_droppe", &k, 7, put);
}

/* A drop counter is the config's, not a job's: job 1 ending takes its
 * own series, not the counter whose key begins with map 1. */
static void test_prune_leaves_drop_counter(pid_t drops)
{
	fresh_no_linger();
	in_unit("io", drops);
	acquire(1, "io", "olga", NULL);
	ok(drop_counted(drops, 1) == 0, "a drop of map 1 counted");
	series(drops, 1, 1);
	release(1);
	ok(series(drops, 1, 0) == 0, "job 1's series went at its end");
	ok(drop_counted(drops, 0) == 1, "spank_io_dropped_total{map 1} stayed");
	in_unit("io", 0);
}

/* The stand-in exporter of spank-io built for 4 jobs (make probes-tiny):
 * its spank_jobs holds 8 names. */
static int make_tiny(const void *arg)
{
	union bpf_attr a;

	(void)arg;
	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_HASH;
	a.key_size = sizeof(struct spank_job_key);
	a.value_size = sizeof(struct spank_job_val);
	a.max_entries = 2 * 4;
	snprintf(a.map_name, sizeof(a.map_name), "%s", SPANK_JOBS_MAP);
	if (syscall(SYS_bpf, BPF_MAP_CREATE, &a, sizeof(a)) >= 0 &&
	    map_create(BPF_MAP_TYPE_ARRAY, SPANK_JOBS_GEN_MAP, 4, 8) >= 0)
		return 0;
	return -1;
}

static int acquire_uid(uint32_t job, const char *user, const char *uid)
{
	struct job_who who = { user, NULL, uid };
	int ev = 0;

	log_set_context("prolog job %u", job);
	return hold_acquire_as(&cfg, job, &who, "io", false, &ev) < 0 ? -1 : ev;
}

/* io's not_observed_user_share counter, as <state>.stats.io has it. */
static long user_share_refusals(void)
{
	char path[300], *t, *at;
	long n = 0;

	snprintf(path, sizeof(path), "%s.stats.io", cfg.state);
	t = tu_slurp(path);
	if (t && (at = strstr(t, "not_observed_user_share ")))
		n = atol(at + strlen("not_observed_user_share "));
	free(t);
	return n;
}

/* One user's jobs take at most half of the probes' capacity (4 jobs: 2):
 * a third is held but kept out of the filter, and counted; another
 * user's job is admitted; once one of the first ends, the user's next
 * job is admitted again. Users are told apart by uid, not name. */
static void test_user_share(pid_t tiny)
{
	struct spank_job_val v;

	fresh(sets_text);
	in_unit("io", tiny);
	acquire_uid(31, "uma", "1001");
	acquire_uid(32, "uma", "1001");
	ok(filter_has(tiny, 0, "job_31", &v) == 1 && filter_has(tiny, 0, "job_32", &v) == 1,
	   "user 1001's first two jobs are admitted");
	ok(acquire_uid(33, "uma", "1001") >= 0, "its third is held all the same");
	ok(filter_has(tiny, 0, "job_33", &v) == 0, "but kept out of the filter: half of 4 taken");
	ok(user_share_refusals() == 1, "counted: not_observed_user_share %ld", user_share_refusals());
	ok(tu_logged("not observed"), "and said in the log");
	acquire_uid(34, "uma", "1002");
	ok(filter_has(tiny, 0, "job_34", &v) == 1, "another uid's job (the same name) is admitted");
	release(31);
	acquire_uid(35, "uma", "1001");
	ok(filter_has(tiny, 0, "job_35", &v) == 1, "after one of user 1001's jobs ended, its next is admitted");
	release(32);
	release(33);
	release(34);
	release(35);
	in_unit("io", 0);
}

/* The job's line in <state>.jobs (malloc'd, without its newline), or NULL. */
static char *record_of(uint32_t job)
{
	char path[300], head[16], *all, *line = NULL, *at;
	int hl;

	snprintf(path, sizeof(path), "%s.jobs", cfg.state);
	all = tu_slurp(path);
	hl = snprintf(head, sizeof(head), "%u ", job);
	for (at = all; at && *at; at = strchr(at, '\n') ? strchr(at, '\n') + 1 : at + strlen(at))
		if (!strncmp(at, head, (size_t)hl)) {
			line = strndup(at, strcspn(at, "\n"));
			break;
		}
	free(all);
	return line;
}

/* The end time of a job's record (its fifth field: <jobid> <user>
 * <sluid> <sets> <end> <uid>): -1 when it has none. */
static long long record_end(uint32_t job)
{
	char *line = record_of(job);
	long long end = -1;

	if (line && sscanf(line, "%*s %*s %*s %*s %lld", &end) != 1)
		end = -1;
	free(line);
	return end;
}

static void prune_now(const struct sets *s)
{
	struct statefile sf;
	struct jobset set;

	jobset_init(&set);
	if (statefile_open_locked(&sf, cfg.state, 1000) == 0 && statefile_load(&sf, &set) >= 0)
		observe_prune(&sf, &cfg, s, &set);
	statefile_close(&sf);
	jobset_free(&set);
}

/* Two prunes inside io's linger (30 s): the end of a job already ended is
 * when it ended, not when the last prune ran, or its record and series
 * would never leave while jobs keep ending. */
static void test_prune_twice_keeps_end(void)
{
	static struct sets s;
	char err[300], path[300], text[200];
	long long ended = jobinfo_now() - 10, end;

	fresh(sets_text);
	sets_load(sets_path, &s, err, sizeof(err));
	/* Job 20 ended 10 s ago: its record says so, the state no longer has it. */
	snprintf(path, sizeof(path), "%s.jobs", cfg.state);
	snprintf(text, sizeof(text), "20 olivia - io %lld\n", ended);
	tu_write(path, text, strlen(text));
	chmod(path, 0600);
	prune_now(&s);
	end = record_end(20);
	ok(end == ended, "a first prune inside the linger keeps job 20's end (%lld, want %lld)", end, ended);
	prune_now(&s);
	end = record_end(20);
	ok(end == ended, "a second prune keeps it too (%lld, want %lld)", end, ended);
}

/* Requeued onto the node within its linger: the same job ID holds io
 * again; its record runs again (end 0) and outlives a prune. */
static void test_requeue_within_linger(void)
{
	static struct sets s;
	char err[300];
	long long end;

	fresh(sets_text);
	sets_load(sets_path, &s, err, sizeof(err));
	acquire(21, "io", "peggy", NULL);
	release(21);
	end = record_end(21);
	ok(end > 0, "after its epilog job 21's record has an end (%lld)", end);
	acquire(21, "io", "peggy", NULL);
	end = record_end(21);
	ok(end == 0, "requeued within io's linger: its record runs again (end %lld)", end);
	prune_now(&s);
	ok(record_end(21) == 0, "... and a prune leaves it running");
	release(21);
}

/* The start of a job's record (its seventh field): -1 when it has none. */
static long long record_start(uint32_t job)
{
	char *line = record_of(job);
	long long start = -1;

	if (line && sscanf(line, "%*s %*s %*s %*s %*s %*s %lld", &start) != 1)
		start = -1;
	free(line);
	return start;
}

/* The job's start on the node is when it joined: kept while it runs,
 * anew when it is requeued; Prometheus gets it in Unix seconds. */
static void test_record_start(void)
{
	char path[300], text[200], want[80], *t, *at;
	long long start, unix_s = -1;

	fresh(sets_text);
	acquire(26, "io", "trent", NULL);
	start = record_start(26);
	ok(start > 0 && llabs(start - jobinfo_now()) <= 2,
	   "job 26's record starts now (%lld, boot clock %lld)", start, jobinfo_now());
	t = textfile_text();
	at = strstr(t, "spank_ebpf_job_start_time_seconds{jobid=\"26\"} ");
	if (at)
		sscanf(at + strlen("spank_ebpf_job_start_time_seconds{jobid=\"26\"} "), "%lld", &unix_s);
	ok(strstr(t, "# TYPE spank_ebpf_job_start_time_seconds gauge\n") && llabs(unix_s - (long long)time(NULL)) <= 2,
	   "the textfile gives it in Unix seconds (%lld, now %lld)", unix_s, (long long)time(NULL));
	free(t);
	release(26);
	/* An earlier start, as if the job had joined 100 s ago and ended. */
	snprintf(path, sizeof(path), "%s.jobs", cfg.state);
	snprintf(text, sizeof(text), "26 trent - io %lld - %lld\n", jobinfo_now() - 5, jobinfo_now() - 100);
	tu_write(path, text, strlen(text));
	chmod(path, 0600);
	acquire(26, "io", "trent", NULL);
	start = record_start(26);
	ok(llabs(start - jobinfo_now()) <= 2, "requeued: its start is anew (%lld)", start);
	release(26);
	/* An older release's line has no start: read as unknown, no gauge. */
	snprintf(text, sizeof(text), "27 ursula - io 0 1000\n");
	tu_write(path, text, strlen(text));
	chmod(path, 0600);
	acquire(28, "io", "victor", NULL);
	ok(record_start(27) == 0, "an older line's job keeps no start (%lld)", record_start(27));
	t = textfile_text();
	snprintf(want, sizeof(want), "spank_ebpf_job_start_time_seconds{jobid=\"27\"}");
	ok(strstr(t, "spank_ebpf_job_info{jobid=\"27\"") && !strstr(t, want),
	   "... and the textfile gives none for it");
	free(t);
	release(28);
}

/* admit writes when a set became ready, private as the job_info file;
 * nothing where there is no textfile directory. */
static void test_ready_textfile(void)
{
	char path[400], want[120], missing[300], *t;
	struct stat st;
	long long unix_s = -1;

	fresh(sets_text);
	jobinfo_store_ready(textfile_dir, "no-such-group-s30", "io");
	snprintf(path, sizeof(path), "%s/spank_ebpf_set_io.prom", textfile_dir);
	t = tu_slurp(path);
	snprintf(want, sizeof(want), "spank_ebpf_set_ready_time_seconds{set=\"io\"} ");
	if (t && strstr(t, want))
		sscanf(strstr(t, want) + strlen(want), "%lld", &unix_s);
	ok(t && strstr(t, "# TYPE spank_ebpf_set_ready_time_seconds gauge\n") &&
		   llabs(unix_s - (long long)time(NULL)) <= 2,
	   "spank_ebpf_set_io.prom says io became ready now (%lld)", unix_s);
	free(t);
	memset(&st, 0, sizeof(st));
	stat(path, &st);
	ok((st.st_mode & 07777) == 0600, "root's alone without the group (%04o)",
	   (unsigned)(st.st_mode & 07777));
	snprintf(missing, sizeof(missing), "%s/no-such-dir", dir);
	jobinfo_store_ready(missing, "daemon", "io");
	snprintf(path, sizeof(path), "%s/spank_ebpf_set_io.prom", missing);
	ok(stat(path, &st) < 0 && errno == ENOENT, "no directory, no file");
}

/* systemd's word on when a unit became active, on the records' clock. */
static void test_unit_ready_since(void)
{
	char path[300], text[40];
	struct timespec mono;
	long long boot = -1;
	int rc;

	fresh(sets_text);
	snprintf(path, sizeof(path), "%s/bin/active-enter.d", dir);
	mkdir(path, 0755);
	clock_gettime(CLOCK_MONOTONIC, &mono);
	snprintf(path, sizeof(path), "%s/bin/active-enter.d/ebpf_exporter@io.service", dir);
	snprintf(text, sizeof(text), "%lld\n", ((long long)mono.tv_sec - 5) * 1000000LL);
	tu_write(path, text, strlen(text));
	ok(unit_ready_since(&cfg, "ebpf_exporter@io.service", &boot) < 0,
	   "not active: systemd cannot say when it became ready");
	snprintf(path, sizeof(path), "%s/bin/active.d", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/bin/active.d/ebpf_exporter@io.service", dir);
	tu_write(path, "", 0);
	rc = unit_ready_since(&cfg, "ebpf_exporter@io.service", &boot);
	ok(rc == 0 && llabs(boot - (jobinfo_now() - 5)) <= 1,
	   "active since 5 s ago: boot clock %lld (now %lld)", boot, jobinfo_now());
	ok(unit_ready_since(&cfg, "ebpf_exporter@two.service", &boot) < 0,
	   "active, but no timestamp (0): cannot say");
}

/* At the record cap (JOBINFO_MAX) a job has no record to take it out of
 * the filter later: it is not admitted, and that is counted per set. */
static void test_records_full(pid_t io)
{
	char path[300], *text, *line;
	struct spank_job_val v;
	struct statefile sf;
	struct stats st;
	size_t n = 0;
	int i;

	fresh(sets_text);
	in_unit("io", io);
	text = malloc(JOBINFO_MAX * 32);
	for (i = 0; i < JOBINFO_MAX; i++)
		n += (size_t)sprintf(text + n, "%d u - io 0\n", 100000 + i);
	snprintf(path, sizeof(path), "%s.jobs", cfg.state);
	tu_write(path, text, n);
	chmod(path, 0600);
	free(text);
	ok(acquire(22, "io", "quentin", "sFULL") >= 0, "the job's hold is taken all the same");
	ok(filter_has(io, 0, "job_22", &v) == 0 && filter_has(io, 0, "sFULL", &v) == 0,
	   "with %d records, job 22 is in no filter", JOBINFO_MAX);
	line = record_of(22);
	ok(line == NULL, "it has no record (%s)", line ? line : "none");
	free(line);
	memset(&st, 0, sizeof(st));
	if (statefile_open(&sf, cfg.state) == 0)
		stats_load_of(&sf, ".io", &st);
	statefile_close(&sf);
	ok(st.v[STAT_NOT_OBSERVED_RECORDS_FULL] == 1, "counted for io: %llu",
	   (unsigned long long)st.v[STAT_NOT_OBSERVED_RECORDS_FULL]);
	ok(tu_logged("not observed: the node already keeps"), "said in the prolog's log");
	release(22);
	in_unit("io", 0);
}

/* The textfile lists every job's user: readable by node_exporter's group
 * (textfile_group=), never by everyone. */
static void test_textfile_group(pid_t io)
{
	char text[sizeof(sets_text) + 64];
	struct group *gr = getgrnam("daemon");
	struct stat st;

	if (!gr) {
		tap_skip("no group \"daemon\" here");
		return;
	}
	snprintf(text, sizeof(text), "textfile_group = daemon\n%s", sets_text);
	fresh(text);
	in_unit("io", io);
	acquire(23, "io", "rupert", NULL);
	ok(stat(textfile, &st) == 0 && (st.st_mode & 07777) == 0640 && st.st_gid == gr->gr_gid &&
		   st.st_uid == geteuid(),
	   "the textfile is 0640, ours, group daemon (%04o, uid %u, gid %u)",
	   (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid, (unsigned)st.st_gid);
	release(23);
	in_unit("io", 0);
}

/* A group that does not exist: the file is root's alone, said. */
static void test_textfile_group_unknown(pid_t io)
{
	char text[sizeof(sets_text) + 64];
	struct stat st;

	snprintf(text, sizeof(text), "textfile_group = no-such-group-s30\n%s", sets_text);
	fresh(text);
	in_unit("io", io);
	acquire(24, "io", "sybil", NULL);
	ok(stat(textfile, &st) == 0 && (st.st_mode & 07777) == 0600,
	   "an unknown group: the textfile is 0600 (%04o)", (unsigned)(st.st_mode & 07777));
	ok(tu_logged("no group \"no-such-group-s30\" in /etc/group: the job_info textfile is readable by root only"),
	   "... and the log says why");
	release(24);
	in_unit("io", 0);
}

/* After a job's end with its sets file out of reach: in no filter, its
 * series, record and join key gone (linger 0: the line's), the instance
 * started (ebpf_exporter@io, a custom template) stopped by that name. */
static void sets_gone_checks(const char *how, uint32_t job, const char *sluid, pid_t io)
{
	struct spank_job_val v;
	char *t, *log, *rec, key[16];

	snprintf(key, sizeof(key), "job_%u", job);
	ok(filter_has(io, 0, key, &v) == 0 && filter_has(io, 0, sluid, &v) == 0,
	   "%s: job %u is in no filter", how, job);
	ok(series(io, job, 0) == 0, "%s: its series went", how);
	rec = record_of(job);
	ok(rec == NULL, "%s: its record went (%s)", how, rec ? rec : "none");
	free(rec);
	t = textfile_text();
	ok(!strcmp(t, "(missing)"), "%s: its join key went (the textfile: %.80s)", how, t);
	free(t);
	log = tu_double_log(dir);
	ok(strstr(log, "stop ebpf_exporter@io.service") && !strstr(log, "spank-ebpf-exporter@"),
	   "%s: the instance started is stopped, by its name: %s", how, log);
	free(log);
}

/* The plugin's line without sets= when the job ends. */
static void test_epilog_sets_off(pid_t io)
{
	char saved[sizeof(cfg.sets)];

	fresh(sets_text);
	in_unit("io", io);
	acquire(26, "io", "trent", "sT26");
	series(io, 26, 1);
	memcpy(saved, cfg.sets, sizeof(saved));
	cfg.sets[0] = '\0';
	release(26);
	memcpy(cfg.sets, saved, sizeof(saved));
	sets_gone_checks("sets= gone at the epilog", 26, "sT26", io);
	in_unit("io", 0);
}

/* The sets file unreadable when the job ends. */
static void test_epilog_sets_unreadable(pid_t io)
{
	fresh(sets_text);
	in_unit("io", io);
	acquire(26, "io", "trent", "sT26");
	series(io, 26, 1);
	chmod(sets_path, 0666);
	release(26);
	chmod(sets_path, 0644);
	sets_gone_checks("sets file unreadable at the epilog", 26, "sT26", io);
	in_unit("io", 0);
}

/* sets= gone and the job's epilog lost: reconcile (Slurm no longer
 * lists the job) heals it the same way. */
static void test_reconcile_sets_off(pid_t io)
{
	char saved[sizeof(cfg.sets)];
	struct reconcile_report rep = { 0 };
	struct slurm_ask ask;
	int rc;

	fresh(sets_text);
	in_unit("io", io);
	acquire(26, "io", "trent", "sT26");
	series(io, 26, 1);
	memcpy(saved, cfg.sets, sizeof(saved));
	cfg.sets[0] = '\0';
	tu_squeue(&ask, dir, "ok", "");
	/* Run before ok(): its arguments are evaluated in no set order. */
	rc = reconcile_run(&cfg, &ask, false, &rep);
	ok(rc == 0 && rep.removed == 1,
	   "sets= gone, no epilog: reconcile drops job 26 (%zu removed)", rep.removed);
	memcpy(cfg.sets, saved, sizeof(saved));
	sets_gone_checks("sets= gone, healed by reconcile", 26, "sT26", io);
	in_unit("io", 0);
}

/* User names as Slurm gives them, whatever they hold, make a safe label. */
static void test_label_safety(pid_t io)
{
	char *t;

	fresh(sets_text);
	in_unit("io", io);
	acquire(19, "io", "a\"b\\c\nd} 1", "s\"x");
	t = textfile_text();
	ok(strstr(t, "user=\"a_b_c_d__1\",sluid=\"s_x\"") != NULL, "quotes, backslashes, newlines become _");
	free(t);
	release(19);
	in_unit("io", 0);
}

int main(void)
{
	pid_t io, two, odd, net, drops, tiny;
	char p[300];

	tu_sets_scratch(&cfg, dir, sets_path);
	snprintf(textfile_dir, sizeof(textfile_dir), "%s/textfile", dir);
	snprintf(textfile, sizeof(textfile), "%s/spank_ebpf_jobs.prom", textfile_dir);
	snprintf(sets_text, sizeof(sets_text), SETS_FORMAT, textfile_dir);
	snprintf(cfg.admin_cmd, sizeof(cfg.admin_cmd), "/x/sbin/spank-ebpf");
	cfg.linger = 0;
	mkdir(textfile_dir, 0755);
	snprintf(p, sizeof(p), "%s/cgroup", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/cgroup/system.slice", dir);
	mkdir(p, 0755);

	io = exporter(1, sizeof(struct spank_job_key));
	two = exporter(2, sizeof(struct spank_job_key));
	odd = exporter(1, 32);
	net = stand_in(make_job_keyed, NULL);
	drops = stand_in(make_with_drops, NULL);
	tiny = stand_in(make_tiny, NULL);
	if (io < 0 || two < 0 || odd < 0 || net < 0 || drops < 0 || tiny < 0) {
		tap_skip("cannot create BPF maps here (needs root and bpf(2))");
	} else {
		test_join_admits(io);
		test_others_not_admitted(io);
		test_two_configs(two);
		test_leave_keeps_series_for_linger(io);
		test_prune_without_linger(io);
		test_admit_all(io);
		test_foreign_layout(odd);
		test_label_safety(io);
		test_prune_job_keyed_series(net);
		test_prune_leaves_drop_counter(drops);
		test_user_share(tiny);
		test_records_full(io);
		test_textfile_group(io);
		test_textfile_group_unknown(io);
		test_epilog_sets_off(io);
		test_epilog_sets_unreadable(io);
		test_reconcile_sets_off(io);
	}
	test_prune_ends_dropped_jobs();
	test_prune_twice_keeps_end();
	test_requeue_within_linger();
	test_record_start();
	test_ready_textfile();
	test_unit_ready_since();
	stop_exporter(io);
	stop_exporter(two);
	stop_exporter(odd);
	stop_exporter(net);
	stop_exporter(drops);
	stop_exporter(tiny);
	return tap_done();
}
