/* Helpers shared by the unit tests. */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

char *tu_state_text(const struct config *cfg)
{
	char *s = tu_slurp(cfg->state);

	return s ? s : strdup("(missing)");
}

bool tu_state_is(const struct config *cfg, const char *text)
{
	char *s = tu_state_text(cfg);
	bool same = !strcmp(s, text);

	free(s);
	return same;
}

double tu_seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) / 1e9;
}

void tu_write(const char *path, const char *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		exit(99);
	}
}

/* dir/bin/NAME, the doubles' own files: written with TEXT, or removed
 * when TEXT is NULL. */
static void bin_file(const char *dir, const char *name, const char *text)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/bin/%s", dir, name);
	if (text)
		tu_write(path, text, strlen(text));
	else
		unlink(path);
}

/* What a double logged in dir/bin/NAME; "" when it logged nothing. */
static char *bin_log(const char *dir, const char *name)
{
	char path[512], *s;

	snprintf(path, sizeof(path), "%s/bin/%s", dir, name);
	s = tu_slurp(path);
	return s ? s : strdup("");
}

void tu_double_set(const char *dir, const char *behaviour)
{
	bin_file(dir, "behaviour", behaviour);
}

/* Copies the double named by $ENV (else FALLBACK, relative to the build
 * directory) into dir/bin/ under each of NAMES: one script answers as
 * each command by the name it is called under. */
static void install_double(const char *env, const char *fallback, const char *dir,
			   const char *const names[])
{
	char path[512], *script;
	const char *src = getenv(env);

	if (!src)
		src = fallback;
	script = tu_slurp(src);
	if (!script) {
		fprintf(stderr, "cannot read %s (set %s)\n", src, env);
		exit(99);
	}
	snprintf(path, sizeof(path), "%s/bin", dir);
	mkdir(path, 0755);
	for (; *names; names++) {
		snprintf(path, sizeof(path), "%s/bin/%s", dir, *names);
		tu_write(path, script, strlen(script));
		chmod(path, 0755);
	}
	free(script);
}

void tu_double(struct config *cfg, const char *dir, const char *behaviour)
{
	static const char *const names[] = { "systemctl", NULL };

	install_double("SYSTEMCTL_DOUBLE", "tests/bin/systemctl-double", dir, names);
	tu_double_set(dir, behaviour);

	config_parse(cfg, 0, NULL, NULL, 0);
	snprintf(cfg->systemctl, sizeof(cfg->systemctl), "%s/bin/systemctl", dir);
	snprintf(cfg->state, sizeof(cfg->state), "%s/state", dir);
	cfg->timeout = TU_TIMEOUT;
	cfg->lock_timeout = TU_LOCK_TIMEOUT;
	/* A cgroup tree of our own: the host's systemd must not take part. */
	snprintf(cfg->cgroup_root, sizeof(cfg->cgroup_root), "%s/cgroup", dir);
	/* The double reports the state it sees when called. */
	bin_file(dir, "statefile", cfg->state);
}

void tu_systemd_run(const char *dir)
{
	static const char *const names[] = { "systemd-run", NULL };

	install_double("SYSTEMD_RUN_DOUBLE", "tests/bin/systemd-run-double", dir, names);
}

void tu_sets_scratch(struct config *cfg, char *dir, char *sets_path)
{
	tu_capture_logs();
	snprintf(dir, 128, "%s", tu_scratch());
	tu_double(cfg, dir, "ok");
	tu_systemd_run(dir);
	snprintf(sets_path, 200, "%s/sets.conf", dir);
	snprintf(cfg->sets, sizeof(cfg->sets), "%s", sets_path);
}

void tu_squeue(struct slurm_ask *ask, const char *dir, const char *behaviour,
	       const char *answer)
{
	static const char *const names[] = { "sinfo", "scontrol", "squeue", NULL };
	static char path[512];

	install_double("SQUEUE_DOUBLE", "tests/bin/squeue-double", dir, names);
	bin_file(dir, "scontrol.behaviour", "down"); /* slurmd not there unless a test says so */
	bin_file(dir, "squeue.behaviour", behaviour);
	bin_file(dir, "squeue.answer", answer);
	bin_file(dir, "squeue.log", NULL);
	memset(ask, 0, sizeof(*ask));
	snprintf(path, sizeof(path), "%s/bin/squeue", dir);
	ask->squeue = path;
	ask->node = "node7";
	ask->timeout = TU_TIMEOUT;
}

void tu_sinfo(const char *dir, const char *behaviour, const char *answer)
{
	bin_file(dir, "sinfo.behaviour", behaviour);
	bin_file(dir, "sinfo.answer", answer);
	bin_file(dir, "sinfo.log", NULL);
}

void tu_scontrol(const char *dir, const char *behaviour, const char *answer)
{
	bin_file(dir, "scontrol.behaviour", behaviour);
	bin_file(dir, "scontrol.answer", answer);
}

char *tu_sinfo_log(const char *dir)
{
	return bin_log(dir, "sinfo.log");
}

char *tu_squeue_log(const char *dir)
{
	return bin_log(dir, "squeue.log");
}

char *tu_double_log(const char *dir)
{
	return bin_log(dir, "calls.log");
}

int tu_private_net(void)
{
	struct ifreq ifr;
	int fd;

	if (unshare(CLONE_NEWNET) < 0 && unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0)
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		return close(fd), -1;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		return close(fd), -1;
	close(fd);
	return 0;
}
