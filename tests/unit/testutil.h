/* Helpers shared by the unit tests: scratch directories, a log capture,
 * and the recording systemctl double. */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "config.h"
#include "hold.h"
#include "slurmjobs.h"

/* A fresh 0755 directory under $TU_TMPDIR (else /dev/shm when writable, else
 * /var/tmp); removed at exit. */
const char *tu_scratch(void);
void tu_cleanup(void);

/* Captures every log line in a buffer (and echoes them as TAP comments
 * when TU_VERBOSE is set). */
void tu_capture_logs(void);
const char *tu_logs(void);
void tu_clear_logs(void);
bool tu_logged(const char *needle);

/* The timeouts tu_double and tu_squeue set: ample for a double that
 * answers, on a busy machine. A test of a timeout sets its own (1 s);
 * lock_timeout must be more than 3 x timeout. */
#define TU_TIMEOUT 10
#define TU_LOCK_TIMEOUT 40

/* Copies the systemctl double into dir/bin/systemctl, writes its config
 * (state file to report, behaviour), and fills a config that uses it.
 * behaviour: "ok", "fail", "hang" (sleeps forever), "slow" (sleeps 20 ms),
 * "spew" (8 MiB of output, then success). */
void tu_double(struct config *cfg, const char *dir, const char *behaviour);
void tu_double_set(const char *dir, const char *behaviour);
/* The double's call log: one line per call, "<verb> <unit> count=<n>
 * locked=<yes|no>". Returns a malloc'd string. */
char *tu_double_log(const char *dir);

/* Copies the systemd-run double beside the systemctl double (the linger
 * timer's; its log: dir/bin/systemd-run.log). */
void tu_systemd_run(const char *dir);

/* A scratch directory (dir, at least 128 bytes) with both doubles, logs
 * captured, and cfg reading its sets from dir/sets.conf (its path in
 * sets_path, at least 200 bytes): the setting of the probe-set tests. */
void tu_sets_scratch(struct config *cfg, char *dir, char *sets_path);

/* Copies the squeue double into dir/bin/squeue (beside the systemctl
 * double, sharing its statefile), with its behaviour ("ok", "down",
 * "hang", "garbage", "invalid") and the lines "ok" prints; fills *ask to
 * use it for node "node7". Its log: one line per call, "<args>
 * SLURM_CONF=<v> locked=<yes|no>". It is dir/bin/sinfo too, with files
 * sinfo.behaviour, sinfo.answer, sinfo.log (tu_sinfo). */
void tu_squeue(struct slurm_ask *ask, const char *dir, const char *behaviour,
	       const char *answer);
char *tu_squeue_log(const char *dir);
/* The sinfo face of that double: its behaviour and answer; its log. Its
 * scontrol face (slurmd's own answer) is "down" unless tu_scontrol says. */
void tu_sinfo(const char *dir, const char *behaviour, const char *answer);
void tu_scontrol(const char *dir, const char *behaviour, const char *answer);
char *tu_sinfo_log(const char *dir);

/* hold_update() as a face calls it, with the log context a face sets
 * ("prolog job N", "epilog job N"): the event bits, or -1. */
int tu_hold(const struct config *cfg, uint32_t job, enum hold_op op);

/* The state file's text (malloc'd), or "(missing)"; whether it is TEXT. */
char *tu_state_text(const struct config *cfg);
bool tu_state_is(const struct config *cfg, const char *text);

/* Seconds on CLOCK_MONOTONIC since *start. */
double tu_seconds_since(const struct timespec *start);

/* Whole file into a malloc'd NUL-terminated string (NULL if missing). */
char *tu_slurp(const char *path);

/* A network namespace of the process's own (a user namespace too where
 * root's is refused), its loopback up: ports there are nobody else's.
 * Returns 0, or -1 when it cannot be made. */
int tu_private_net(void);
void tu_write(const char *path, const char *data, size_t len);

#endif
