/* Helpers shared by the unit tests. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "testutil.h"

static char scratch[256];
static char *logbuf;
static size_t loglen;

const char *tu_scratch(void)
{
	const char *base = getenv("TU_TMPDIR");

	/* Like the real state, on tmpfs where there is one. */
	if (!base)
		base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/var/tmp";
	snprintf(scratch, sizeof(scratch), "%s/spank-ebpf-test.XXXXXX", base);
	if (!mkdtemp(scratch)) {
		perror("mkdtemp");
		exit(99);
	}
	/* /var/tmp is world-writable: the state directory must not be. */
	chmod(scratch, 0755);
	atexit(tu_cleanup);
	return scratch;
}

void tu_cleanup(void)
{
	char *argv[] = { "/bin/rm", "-rf", scratch, NULL };
	pid_t pid;

	if (!scratch[0] || getenv("TU_KEEP"))
		return;
	pid = fork();
	if (pid == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	scratch[0] = '\0';
}

int tu_hold(const struct config *cfg, uint32_t job, enum hold_op op)
{
	int ev = 0;

	log_set_context("%s job %u", op == HOLD_ACQUIRE ? "prolog" : "epilog", job);
	return hold_update(cfg, job, op, &ev) < 0 ? -1 : ev;
}

static void capture_sink(enum log_level level, const char *msg)
{
	static const char *const names[] = { "error", "info", "verbose", "debug" };
	size_t n = strlen(names[level]) + strlen(msg) + 3;
	char *grown = realloc(logbuf, loglen + n + 1);

	if (!grown)
		abort();
	logbuf = grown;
	loglen += (size_t)sprintf(logbuf + loglen, "%s: %s\n", names[level], msg);
	if (getenv("TU_VERBOSE"))
		printf("# %s: %s\n", names[level], msg);
}

void tu_capture_logs(void)
{
	log_set_sink(capture_sink);
	tu_clear_logs();
}

const char *tu_logs(void)
{
	return logbuf ? logbuf : "";
}

void tu_clear_logs(void)
{
	free(logbuf);
	logbuf = NULL;
	loglen = 0;
}

bool tu_logged(const char *needle)
{
	return strstr(tu_logs(), needle) != NULL;
}

char *tu_slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f)
		return NULL;
	do {
		if (len + 4096 + 1 > cap) {
			cap = (cap + 4096) * 2;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		n = fread(buf + len, 1, 4096, f);
		len += n;
	} while (n > 0);
	fclose(f);
	buf[len] = '\0';
	return buf;
}

void tu_write(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		exit(99);
	}
}

void tu_double_set(const char *dir, const char *behaviour)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/bin/behaviour", dir);
	tu_write(path, behaviour, strlen(behaviour));
}

void tu_double(struct config *cfg, const char *dir, const char *behaviour)
{
	char path[512], *script;
	const char *src = getenv("SYSTEMCTL_DOUBLE");

	if (!src)
		src = "tests/bin/systemctl-double";
	script = tu_slurp(src);
	if (!script) {
		fprintf(stderr, "cannot read %s (set SYSTEMCTL_DOUBLE)\n", src);
		exit(99);
	}
	snprintf(path, sizeof(path), "%s/bin", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/bin/systemctl", dir);
	tu_write(path, script, strlen(script));
	chmod(path, 0755);
	free(script);
	tu_double_set(dir, behaviour);

	config_parse(cfg, 0, NULL, NULL, 0);
	snprintf(cfg->systemctl, sizeof(cfg->systemctl), "%s/bin/systemctl", dir);
	snprintf(cfg->state, sizeof(cfg->state), "%s/state", dir);
	cfg->timeout = 2;
	cfg->lock_timeout = 5;
	/* A cgroup tree of our own: the host's systemd must not take part. */
	snprintf(cfg->cgroup_root, sizeof(cfg->cgroup_root), "%s/cgroup", dir);
	/* The double reports the state it sees when called. */
	snprintf(path, sizeof(path), "%s/bin/statefile", dir);
	tu_write(path, cfg->state, strlen(cfg->state));
}

void tu_squeue(struct slurm_ask *ask, const char *dir, const char *behaviour,
	       const char *answer)
{
	static char path[512];
	char p[512], *script;
	const char *src = getenv("SQUEUE_DOUBLE");

	if (!src)
		src = "tests/bin/squeue-double";
	script = tu_slurp(src);
	if (!script) {
		fprintf(stderr, "cannot read %s (set SQUEUE_DOUBLE)\n", src);
		exit(99);
	}
	snprintf(path, sizeof(path), "%s/bin/sinfo", dir);
	tu_write(path, script, strlen(script));
	chmod(path, 0755);
	snprintf(path, sizeof(path), "%s/bin/scontrol", dir);
	tu_write(path, script, strlen(script));
	chmod(path, 0755);
	snprintf(p, sizeof(p), "%s/bin/scontrol.behaviour", dir);
	tu_write(p, "down", 4); /* slurmd not there unless a test says so */
	snprintf(path, sizeof(path), "%s/bin/squeue", dir);
	tu_write(path, script, strlen(script));
	chmod(path, 0755);
	free(script);
	snprintf(p, sizeof(p), "%s/bin/squeue.behaviour", dir);
	tu_write(p, behaviour, strlen(behaviour));
	snprintf(p, sizeof(p), "%s/bin/squeue.answer", dir);
	tu_write(p, answer, strlen(answer));
	snprintf(p, sizeof(p), "%s/bin/squeue.log", dir);
	unlink(p);
	memset(ask, 0, sizeof(*ask));
	ask->squeue = path;
	ask->node = "node7";
	ask->timeout = 2;
}

void tu_sinfo(const char *dir, const char *behaviour, const char *answer)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/bin/sinfo.behaviour", dir);
	tu_write(p, behaviour, strlen(behaviour));
	snprintf(p, sizeof(p), "%s/bin/sinfo.answer", dir);
	tu_write(p, answer, strlen(answer));
	snprintf(p, sizeof(p), "%s/bin/sinfo.log", dir);
	unlink(p);
}

void tu_scontrol(const char *dir, const char *behaviour, const char *answer)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/bin/scontrol.behaviour", dir);
	tu_write(p, behaviour, strlen(behaviour));
	snprintf(p, sizeof(p), "%s/bin/scontrol.answer", dir);
	tu_write(p, answer, strlen(answer));
}

char *tu_sinfo_log(const char *dir)
{
	char path[512], *s;

	snprintf(path, sizeof(path), "%s/bin/sinfo.log", dir);
	s = tu_slurp(path);
	return s ? s : strdup("");
}

char *tu_squeue_log(const char *dir)
{
	char path[512], *s;

	snprintf(path, sizeof(path), "%s/bin/squeue.log", dir);
	s = tu_slurp(path);
	return s ? s : strdup("");
}

char *tu_double_log(const char *dir)
{
	char path[512], *s;

	snprintf(path, sizeof(path), "%s/bin/calls.log", dir);
	s = tu_slurp(path);
	return s ? s : strdup("");
}
