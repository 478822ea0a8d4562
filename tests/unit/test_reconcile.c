/* Healing holds: reconcile against the recording systemctl and squeue
 * doubles. What Slurm says decides which IDs go; any doubt changes
 * nothing; the unit follows what is left; everything under the lock.
 * One function per case; each starts from fresh(). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hold.h"
#include "reconcile.h"
#include "stats.h"
#include "tap.h"
#include "testutil.h"

static struct config cfg;
static struct slurm_ask ask;
static char dir[128];

static void set_state(const char *text)
{
	unlink(cfg.state);
	if (text)
		tu_write(cfg.state, text, strlen(text));
}

static void set_active(int on)
{
	char p[600];

	snprintf(p, sizeof(p), "%s/bin/active", dir);
	if (on)
		tu_write(p, "", 0);
	else
		unlink(p);
}

/* The state file holding STATE (none if NULL), no counters, the unit
 * ACTIVE or not, no calls logged, squeue behaving as SQ with ANSWER, no
 * log lines. */
static void fresh(const char *state, int active, const char *sq, const char *answer)
{
	char p[600];

	set_state(state);
	snprintf(p, sizeof(p), "%s.stats", cfg.state);
	unlink(p);
	set_active(active);
	snprintf(p, sizeof(p), "%s/bin/calls.log", dir);
	unlink(p);
	tu_double_set(dir, "ok");
	tu_squeue(&ask, dir, sq, answer);
	tu_clear_logs();
}

static int reconcile(bool dry, struct reconcile_report *rep)
{
	return reconcile_run(&cfg, &ask, dry, rep);
}

static uint64_t stat_of(enum stat_id id)
{
	struct statefile sf;
	struct stats st;

	memset(&st, 0xff, sizeof(st));
	if (statefile_open(&sf, cfg.state) == 0)
		stats_load(&sf, &st);
	statefile_close(&sf);
	return st.v[id];
}

static int has(const char *hay, const char *needle)
{
	return hay && strstr(hay, needle) != NULL;
}

/* fresh() with job 5 held and running, the unit active, and no node
 * name given (no --node, no SLURMD_NODENAME, no SPANK_EBPF_NODE). */
static void fresh_without_node(void)
{
	fresh("1\n5\n", 1, "ok", "5|RUNNING\n");
	ask.node = NULL;
}

/* This host's name up to its first dot. */
static void short_hostname(char *buf, size_t len)
{
	char host[256];

	if (gethostname(host, sizeof(host) - 1) < 0)
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	snprintf(buf, len, "%.*s", (int)strcspn(host, "."), host);
}

static void setup(void)
{
	tu_capture_logs();
	snprintf(dir, sizeof(dir), "%s", tu_scratch());
	tu_double(&cfg, dir, "ok");
}

/* An idle node: nothing to ask Slurm, nothing to do. */
static void test_idle_node(void)
{
	struct reconcile_report rep;
	char *log, *sq;

	fresh(NULL, 0, "ok", "");
	ok(reconcile(false, &rep) == 0 && rep.held == 0 && rep.removed == 0 &&
	   rep.unit == UNIT_INACTIVE && rep.unit_events == 0, "idle node: in line, nothing done");
	sq = tu_squeue_log(dir);
	ok(!strcmp(sq, ""), "... Slurm not asked");
	free(sq);
	log = tu_double_log(dir);
	ok(!strcmp(log, "is-active ebpf_exporter.service count=missing locked=yes\n"),
	   "... systemd asked once, under the lock: %s", log);
	free(log);
	ok(stat_of(STAT_RECONCILE_RUNS) == 1, "... one reconcile run counted");
}

/* Running with no holder: stopped. */
static void test_running_without_holder(void)
{
	struct reconcile_report rep;

	fresh("0\n", 1, "ok", "");
	ok(reconcile(false, &rep) == 0 && (rep.unit_events & EV_STOPPED) &&
	   !(rep.unit_events & EV_UNIT_FAILED), "unit running, no holder: stopped");
	ok(tu_logged("ebpf_exporter.service is running but no job holds it: stopping it"),
	   "... and says why");
	ok(stat_of(STAT_STOPS) == 1, "... the stop is counted");
}

/* Two held, Slurm runs one of them here: the other goes. */
static void test_one_job_gone(void)
{
	struct reconcile_report rep;
	char *s, *sq;

	fresh("2\n5\n7\n", 1, "ok", "5|RUNNING\n7|COMPLETED\n");
	ok(reconcile(false, &rep) == 0 && rep.held == 2 && rep.removed == 1 &&
	   rep.unit_events == 0, "one job gone: removed, unit left running");
	s = tu_state_text(&cfg);
	ok(!strcmp(s, "1\n5\n"), "state keeps the running job: %s", s);
	free(s);
	ok(tu_logged("removing job 7 from the state: Slurm says it is COMPLETED"),
	   "the removal is logged with Slurm's word");
	sq = tu_squeue_log(dir);
	ok(has(sq, "--noheader --array --states=all --nodelist=node7 --jobs=5,7 --format=%A|%T") &&
	   has(sq, "locked=yes"), "squeue asked about exactly the held jobs on this node, under the lock: %s", sq);
	free(sq);
	ok(stat_of(STAT_RECONCILE_REMOVED) == 1, "removal counted");
}

/* Not listed on this node at all (purged, or elsewhere), pending again
 * (requeued), or a final state: all gone; the last one stops. */
static void test_unlisted_pending_final_gone(void)
{
	struct reconcile_report rep;

	fresh("3\n5\n6\n8\n", 1, "ok", "6|PENDING\n8|NODE_FAIL\n");
	ok(reconcile(false, &rep) == 0 && rep.removed == 3 && (rep.unit_events & EV_STOPPED),
	   "all three gone (unlisted, PENDING, NODE_FAIL): removed, unit stopped");
	ok(tu_state_is(&cfg, "0\n"), "state empty");
	ok(tu_logged("removing job 5 from the state: Slurm does not list it on node node7 any more"),
	   "unlisted job: says so");
}

/* States that mean "still here", and words we do not know: kept. */
static void test_still_here_states_kept(void)
{
	struct reconcile_report rep;

	fresh("4\n1\n2\n3\n4\n", 1, "ok", "1|COMPLETING\n2|SUSPENDED\n3|CONFIGURING\n4|SOMETHING_NEW\n");
	ok(reconcile(false, &rep) == 0 && rep.removed == 0, "COMPLETING, SUSPENDED, CONFIGURING, unknown word: all kept");
}

/* Held and dead: started. */
static void test_held_and_dead_started(void)
{
	struct reconcile_report rep;

	fresh("1\n9\n", 0, "ok", "9|RUNNING\n");
	ok(reconcile(false, &rep) == 0 && (rep.unit_events & EV_STARTED) &&
	   (rep.unit_events & EV_RESTARTED), "held job, unit dead: started");
	ok(stat_of(STAT_RESTARTS) == 1 && stat_of(STAT_STARTS) == 1, "... counted as a start and a restart");
}

/* A single held job slurmctld has forgotten: squeue's single-job query
 * fails with "Invalid job id specified": gone. */
static void test_single_forgotten_job(void)
{
	struct reconcile_report rep;

	fresh("1\n11\n", 1, "invalid", "");
	ok(reconcile(false, &rep) == 0 && rep.removed == 1 && (rep.unit_events & EV_STOPPED),
	   "single forgotten job: removed, unit stopped");
}

/* Doubt changes nothing: slurmctld down, garbage, a hang. */
static void test_slurmctld_unreachable(void)
{
	struct reconcile_report rep;
	char *log;

	fresh("2\n5\n7\n", 1, "down", "");
	ok(reconcile(false, &rep) == 1 && rep.removed == 0 && rep.unit_events == 0,
	   "slurmctld unreachable: cannot tell");
	ok(has(rep.why, "exited with status 1: slurm_load_jobs error: Unable to contact slurm controller"),
	   "... and says why: %s", rep.why);
	ok(tu_state_is(&cfg, "2\n5\n7\n"), "... state untouched");
	log = tu_double_log(dir);
	ok(!strcmp(log, ""), "... systemd not even asked");
	free(log);
	ok(stat_of(STAT_RECONCILE_FAILURES) == 1, "... counted as a failed reconcile");
}

static void test_unparsable_output(void)
{
	struct reconcile_report rep;

	fresh("2\n5\n7\n", 1, "garbage", "");
	ok(reconcile(false, &rep) == 1 && has(rep.why, "not \"<jobid>|<STATE>\""),
	   "unparsable output: cannot tell (%s)", rep.why);
	ok(tu_state_is(&cfg, "2\n5\n7\n"), "... state untouched");
}

static void test_squeue_hangs(void)
{
	struct reconcile_report rep;
	struct timespec a, b;

	fresh("1\n5\n", 1, "hang", "");
	ask.timeout = 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	ok(reconcile(false, &rep) == 1 && has(rep.why, "timed out after 1 s"),
	   "squeue hangs: cannot tell (%s)", rep.why);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ok(b.tv_sec - a.tv_sec < 20, "... at its timeout, not after the double's 300 s");
	ok(tu_state_is(&cfg, "1\n5\n"), "... state untouched");
}

/* systemd cannot answer: removals stand, the unit is left alone. */
static void test_systemd_does_not_answer(void)
{
	struct reconcile_report rep;

	fresh("1\n5\n", 1, "ok", "");
	tu_double_set(dir, "hang");
	cfg.timeout = 1;
	ok(reconcile(false, &rep) == 1 && rep.removed == 1 && rep.unit == UNIT_UNKNOWN &&
	   rep.unit_events == 0, "systemctl hangs: job removed, unit left as it is");
	cfg.timeout = TU_TIMEOUT;
}

/* Dry run: decides, changes nothing, takes no lock. */
static void test_dry_run(void)
{
	struct reconcile_report rep;
	char *log, *sq;

	fresh("2\n5\n7\n", 1, "ok", "5|COMPLETED\n7|COMPLETED\n");
	ok(reconcile(true, &rep) == 0 && rep.removed == 2 && (rep.unit_events & EV_STOPPED),
	   "dry run: would remove both and stop");
	ok(tu_state_is(&cfg, "2\n5\n7\n"), "... state untouched");
	log = tu_double_log(dir);
	ok(!has(log, "stop "), "... nothing stopped");
	free(log);
	sq = tu_squeue_log(dir);
	ok(has(sq, "locked=no"), "... and no lock taken");
	free(sq);
}

/* SLURM_CONF reaches squeue (configless or a non-default config). */
static void test_slurm_conf_passed_on(void)
{
	struct reconcile_report rep;
	char *sq;

	fresh("1\n5\n", 1, "ok", "5|RUNNING\n");
	ask.slurm_conf = "/etc/slurm-test/slurm.conf";
	reconcile(false, &rep);
	sq = tu_squeue_log(dir);
	ok(has(sq, "SLURM_CONF=/etc/slurm-test/slurm.conf"), "SLURM_CONF passed on: %s", sq);
	free(sq);
}

/* Another process holds the lock: give up after lock_timeout. The holder
 * lets go after 3 s; the case waits for it, so the lock is free after. */
static void test_lock_held_elsewhere(void)
{
	struct reconcile_report rep;
	char lp[600];
	pid_t holder;
	int fd;

	fresh("1\n5\n", 1, "ok", "");
	snprintf(lp, sizeof(lp), "%s.lock", cfg.state);
	fd = open(lp, O_RDWR | O_CREAT, 0600);
	holder = fork();
	if (holder == 0) {
		flock(fd, LOCK_EX);
		sleep(3);
		_exit(0);
	}
	usleep(200000);
	cfg.lock_timeout = 1;
	ok(reconcile(false, &rep) < 0 && tu_logged("gave up waiting"),
	   "lock held elsewhere: gives up, says so");
	cfg.lock_timeout = TU_LOCK_TIMEOUT;
	close(fd);
	ok(tu_state_is(&cfg, "1\n5\n"), "... state untouched");
	waitpid(holder, NULL, 0);
}

/* A damaged state: salvaged and rewritten clean. */
static void test_damaged_state_salvaged(void)
{
	struct reconcile_report rep;
	char *s;

	fresh("3\n5\nxx\n", 1, "ok", "5|RUNNING\n");
	ok(reconcile(false, &rep) == 0 && rep.damaged && rep.removed == 0,
	   "damaged state: salvaged");
	s = tu_state_text(&cfg);
	ok(!strcmp(s, "1\n5\n"), "... rewritten clean: %s", s);
	free(s);
}

/* No node name given: the node's Slurm name is asked of slurmd
 * (scontrol show slurmd), else of slurmctld (sinfo's NodeHostname), and
 * never guessed from the host name (a NodeName other than the host's,
 * slurmd -N). */
static void test_node_from_slurmd(void)
{
	struct reconcile_report rep;
	char *sq, *si;
	int rc;

	fresh_without_node();
	tu_scontrol(dir, "ok", "Active Steps             = NONE\nHostname                 = cn007\nVersion                  = 22.05.8\n");
	tu_sinfo(dir, "ok", "");
	rc = reconcile(false, &rep);
	sq = tu_squeue_log(dir);
	si = tu_sinfo_log(dir);
	ok(rc == 0 && rep.removed == 0 && has(sq, "--nodelist=cn007 ") && !strcmp(si, ""),
	   "slurmd says it is cn007: squeue asked about cn007, sinfo not asked: %s", sq);
	free(sq);
	free(si);
}

static void test_node_from_slurmctld(void)
{
	struct reconcile_report rep;
	char shorth[256], answer[800], *sq, *si;

	short_hostname(shorth, sizeof(shorth));
	fresh_without_node();
	snprintf(answer, sizeof(answer), "other|elsewhere\ncn042|%s\ncn042|%s\n", shorth, shorth);
	tu_sinfo(dir, "ok", answer);
	ok(reconcile(false, &rep) == 0 && rep.removed == 0,
	   "slurmd down, slurmctld lists cn042 for this host: the running job is kept");
	sq = tu_squeue_log(dir);
	si = tu_sinfo_log(dir);
	ok(has(sq, "--nodelist=cn042 ") && has(si, "--noheader --Node --format=%N|%n"),
	   "... sinfo asked once, squeue asked about cn042: %s", sq);
	free(sq);
	free(si);
}

static void test_node_two_names(void)
{
	struct reconcile_report rep;
	char shorth[256], answer[800], *sq;

	short_hostname(shorth, sizeof(shorth));
	fresh_without_node();
	snprintf(answer, sizeof(answer), "cn1|%s\ncn2|%s\n", shorth, shorth);
	tu_sinfo(dir, "ok", answer);
	ok(reconcile(false, &rep) == 1 && tu_logged("several nodes have this host's name as NodeHostname (cn1, cn2)"),
	   "slurmd down, two NodeNames for this host: cannot tell, said");
	sq = tu_squeue_log(dir);
	ok(!strcmp(sq, ""), "... squeue not asked");
	free(sq);
}

static void test_node_unknown(void)
{
	struct reconcile_report rep;
	char *sq;
	int rc;

	fresh_without_node();
	tu_sinfo(dir, "ok", "other|elsewhere\n");
	rc = reconcile(false, &rep);
	sq = tu_squeue_log(dir);
	ok(rc == 1 && tu_logged("this node's Slurm name is unknown: slurmd did not say") &&
	   !strcmp(sq, ""), "slurmd down, no node for this host: cannot tell, no name guessed");
	free(sq);
}

static void test_node_slurm_down(void)
{
	struct reconcile_report rep;

	fresh_without_node();
	tu_sinfo(dir, "down", "");
	ok(reconcile(false, &rep) == 1 && tu_logged("/sinfo exited with status 1: slurm_load_jobs error: Unable to contact"),
	   "slurmd and slurmctld down: cannot tell, nothing changed");
}

/* No sets= (switched off), no job left, but the plugin noted that it
 * started ebpf_exporter@io: reconcile stops that instance, by that name. */
static void test_noted_set_unit_stopped(void)
{
	char units[600], p[600];

	fresh(NULL, 1, "ok", "");
	snprintf(p, sizeof(p), "%s/bin/active.d", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/bin/active.d/ebpf_exporter@io.service", dir);
	tu_write(p, "", 0);
	snprintf(units, sizeof(units), "%s.units", cfg.state);
	tu_write(units, "io ebpf_exporter@io.service\n", 28);
	chmod(units, 0600);
	{
		struct reconcile_report rep;
		char *log;

		ok(reconcile(false, &rep) == 0, "reconcile runs");
		log = tu_double_log(dir);
		ok(has(log, "stop ebpf_exporter@io.service"), "the noted instance is stopped: %s", log);
		free(log);
	}
	ok(access(units, F_OK) < 0, "... and no longer noted");
	unlink(p);
}

int main(void)
{
	setup();
	test_idle_node();
	test_running_without_holder();
	test_one_job_gone();
	test_unlisted_pending_final_gone();
	test_still_here_states_kept();
	test_held_and_dead_started();
	test_single_forgotten_job();
	test_slurmctld_unreachable();
	test_unparsable_output();
	test_squeue_hangs();
	test_systemd_does_not_answer();
	test_dry_run();
	test_slurm_conf_passed_on();
	test_lock_held_elsewhere();
	test_damaged_state_salvaged();
	test_node_from_slurmd();
	test_node_from_slurmctld();
	test_node_two_names();
	test_node_unknown();
	test_node_slurm_down();
	test_noted_set_unit_stopped();
	return tap_done();
}
