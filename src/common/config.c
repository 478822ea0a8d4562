/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Plugin configuration: every plugstack argument is parsed and validated
 * here and nowhere else, so a bad line is reported once, by name. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "httpurl.h"

#ifndef SYSTEMCTL_PATH
#define SYSTEMCTL_PATH "/usr/bin/systemctl"
#endif
#ifndef ADMIN_CMD_PATH
#define ADMIN_CMD_PATH "/usr/sbin/spank-ebpf"
#endif

static int fail(char *err, size_t errlen, const char *arg, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, const char *arg, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	/* Quote at most 64 bytes of the argument, non-printable bytes as '?':
	 * it may be huge or binary, and it goes to a log. */
	if (err && errlen) {
		char shown[65];
		size_t i;

		for (i = 0; i < sizeof(shown) - 1 && arg[i]; i++)
			shown[i] = ((unsigned char)arg[i] >= 0x20 &&
				    (unsigned char)arg[i] < 0x7f) ? arg[i] : '?';
		shown[i] = '\0';
		snprintf(err, errlen, "invalid plugstack argument \"%s%s\": %s",
			 shown, arg[i] ? "..." : "", why);
	}
	return -1;
}

static bool is_printable_ascii(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/* Absolute, normalised (no "//", ".", ".." components, no trailing "/"),
 * printable ASCII without "$" or "%": the path means exactly what it
 * says, here and in the linger timer's command line. */
static int check_path(const char *arg, const char *key, const char *val,
		      char *err, size_t errlen)
{
	const char *p;

	if (strlen(val) >= CONFIG_PATH_MAX)
		return fail(err, errlen, arg, "%s is longer than %d bytes",
			    key, CONFIG_PATH_MAX - 1);
	if (val[0] != '/')
		return fail(err, errlen, arg, "%s must be an absolute path", key);
	if (!is_printable_ascii(val))
		return fail(err, errlen, arg,
			    "%s may only contain printable ASCII characters", key);
	if (val[strlen(val) - 1] == '/')
		return fail(err, errlen, arg, "%s must name a file, not a directory", key);
	/* The linger timer's command line holds these paths, and the service
	 * manager expands $VAR there (and % specifiers, on some versions). */
	if (strpbrk(val, "$%"))
		return fail(err, errlen, arg,
			    "%s must not contain \"$\" or \"%%\" (systemd would expand them in the linger timer's command)",
			    key);
	for (p = val; *p; p++) {
		if (*p != '/')
			continue;
		if (p[1] == '/')
			return fail(err, errlen, arg, "%s must not contain \"//\"", key);
		if (p[1] == '.' && (p[2] == '/' || p[2] == '\0'))
			return fail(err, errlen, arg, "%s must not contain \".\" components", key);
		if (p[1] == '.' && p[2] == '.' && (p[3] == '/' || p[3] == '\0'))
			return fail(err, errlen, arg, "%s must not contain \"..\" components", key);
	}
	return 0;
}

/* systemd unit-name characters only; never something systemctl could read
 * as an option, and only service units, the one type start/stop means. */
static int check_unit(const char *arg, const char *val, char *err, size_t errlen)
{
	static const char allowed[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.\\@";
	static const char suffix[] = ".service";
	size_t len = strlen(val), slen = sizeof(suffix) - 1;
	const char *at;

	/* The limit is systemd's, on the name used: with ".service" added
	 * when it is left out. */
	if (len + (strchr(val, '.') ? 0 : slen) >= CONFIG_UNIT_MAX)
		return fail(err, errlen, arg,
			    "unit name is longer than %d bytes (with its \".service\")",
			    CONFIG_UNIT_MAX - 1);
	if (val[0] == '-')
		return fail(err, errlen, arg, "unit name must not start with \"-\"");
	if (val[0] == '.')
		return fail(err, errlen, arg, "unit name must not start with \".\"");
	if (strspn(val, allowed) != len)
		return fail(err, errlen, arg,
			    "unit name may only contain ASCII letters, digits and \":-_.\\@\"");
	if (strstr(val, ".."))
		return fail(err, errlen, arg, "unit name must not contain \"..\"");
	if (strchr(val, '.') && (len <= slen || strcmp(val + len - slen, suffix)))
		return fail(err, errlen, arg,
			    "unit must be a service (name ending in \".service\", or no suffix)");
	at = strchr(val, '@');
	if (at && (strchr(at + 1, '@') || at == val || at[1] == '.' || at[1] == '\0'))
		return fail(err, errlen, arg,
			    "unit name has a misplaced \"@\" (a template needs an instance)");
	return 0;
}

static int parse_seconds(const char *arg, const char *key, const char *val,
			 unsigned long min, unsigned long max, unsigned int *out,
			 char *err, size_t errlen)
{
	unsigned long v = 0;
	const char *p;

	if (strspn(val, "0123456789") != strlen(val) || strlen(val) > 6)
		return fail(err, errlen, arg,
			    "%s must be a whole number of seconds from %lu to %lu",
			    key, min, max);
	for (p = val; *p; p++)
		v = v * 10 + (unsigned long)(*p - '0');
	if (v < min || v > max)
		return fail(err, errlen, arg,
			    "%s must be a whole number of seconds from %lu to %lu",
			    key, min, max);
	*out = (unsigned int)v;
	return 0;
}

enum key { K_MODE, K_UNIT, K_STATE, K_SYSTEMCTL, K_TIMEOUT, K_LOCK_TIMEOUT, K_START,
	   K_LINGER, K_SETS, K_PROMETHEUS, K_PROMETHEUS_CA, K_PROMETHEUS_NETRC, K_COUNT };
static const char *const key_names[K_COUNT] = {
	"mode", "unit", "state", "systemctl", "timeout", "lock_timeout", "start", "linger", "sets",
	"prometheus", "prometheus_ca", "prometheus_netrc"
};

static int apply(struct config *cfg, enum key k, const char *arg,
		 const char *val, char *err, size_t errlen)
{
	switch (k) {
	case K_MODE:
		if (!strcmp(val, "opt-in"))
			cfg->mode = MODE_OPT_IN;
		else if (!strcmp(val, "always"))
			cfg->mode = MODE_ALWAYS;
		else
			return fail(err, errlen, arg, "mode must be \"opt-in\" or \"always\"");
		return 0;
	case K_UNIT:
		if (check_unit(arg, val, err, errlen))
			return -1;
		snprintf(cfg->unit, sizeof(cfg->unit), "%s%s", val,
			 strchr(val, '.') ? "" : ".service");
		return 0;
	case K_STATE:
		if (check_path(arg, "state", val, err, errlen))
			return -1;
		snprintf(cfg->state, sizeof(cfg->state), "%s", val);
		return 0;
	case K_SYSTEMCTL:
		if (check_path(arg, "systemctl", val, err, errlen))
			return -1;
		snprintf(cfg->systemctl, sizeof(cfg->systemctl), "%s", val);
		return 0;
	case K_TIMEOUT:
		return parse_seconds(arg, "timeout", val, 1, CONFIG_TIMEOUT_MAX, &cfg->timeout,
				     err, errlen);
	case K_START:
		if (!strcmp(val, "wait"))
			cfg->start = START_WAIT;
		else if (!strcmp(val, "background"))
			cfg->start = START_BACKGROUND;
		else
			return fail(err, errlen, arg, "start must be \"wait\" or \"background\"");
		return 0;
	case K_LINGER:
		return parse_seconds(arg, "linger", val, 0, CONFIG_LINGER_MAX, &cfg->linger,
				     err, errlen);
	case K_SETS:
		if (check_path(arg, "sets", val, err, errlen))
			return -1;
		snprintf(cfg->sets, sizeof(cfg->sets), "%s", val);
		return 0;
	case K_LOCK_TIMEOUT:
		return parse_seconds(arg, "lock_timeout", val, 1, CONFIG_TIMEOUT_MAX,
				     &cfg->lock_timeout, err, errlen);
	case K_PROMETHEUS: {
		char why[300];

		/* Checked as an HTTP client reads it (httpurl.h); the URL itself is not
		 * repeated: it may hold a password the check refuses. */
		if (httpurl_check(val, why, sizeof(why)) < 0)
			return fail(err, errlen, "prometheus=...", "prometheus must be Prometheus' URL: %s", why);
		snprintf(cfg->prometheus, sizeof(cfg->prometheus), "%s", val);
		return 0;
	}
	case K_PROMETHEUS_CA:
		if (check_path(arg, "prometheus_ca", val, err, errlen))
			return -1;
		snprintf(cfg->prometheus_ca, sizeof(cfg->prometheus_ca), "%s", val);
		return 0;
	case K_PROMETHEUS_NETRC:
		if (check_path(arg, "prometheus_netrc", val, err, errlen))
			return -1;
		snprintf(cfg->prometheus_netrc, sizeof(cfg->prometheus_netrc), "%s", val);
		return 0;
	default:
		return -1;
	}
}

static void set_defaults(struct config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = MODE_OPT_IN;
	snprintf(cfg->unit, sizeof(cfg->unit), "%s", DEFAULT_UNIT);
	snprintf(cfg->state, sizeof(cfg->state), "%s", DEFAULT_STATE);
	snprintf(cfg->systemctl, sizeof(cfg->systemctl), "%s", SYSTEMCTL_PATH);
	cfg->timeout = DEFAULT_TIMEOUT;
	cfg->lock_timeout = DEFAULT_LOCK_TIMEOUT;
	snprintf(cfg->cgroup_root, sizeof(cfg->cgroup_root), "/sys/fs/cgroup");
	snprintf(cfg->admin_cmd, sizeof(cfg->admin_cmd), "%s", ADMIN_CMD_PATH);
}

/* Applies argv to *cfg, which holds the defaults. */
static int parse_args(struct config *cfg, int argc, char *const argv[],
		      char *err, size_t errlen)
{
	bool seen[K_COUNT] = { false };
	const char *given[K_COUNT] = { NULL };
	int i;

	for (i = 0; i < argc; i++) {
		const char *arg = argv[i] ? argv[i] : "";
		const char *eq = strchr(arg, '=');
		size_t klen = eq ? (size_t)(eq - arg) : strlen(arg);
		int k;

		for (k = 0; k < K_COUNT; k++)
			if (strlen(key_names[k]) == klen &&
			    !strncmp(arg, key_names[k], klen))
				break;
		if (k == K_COUNT)
			return fail(err, errlen, arg,
				    "unknown key (expected mode, unit, state, systemctl, timeout, lock_timeout, start, linger, sets, prometheus, prometheus_ca or prometheus_netrc)");
		if (!eq)
			return fail(err, errlen, arg, "expected %s=VALUE", key_names[k]);
		if (eq[1] == '\0')
			return fail(err, errlen, arg, "empty value for %s", key_names[k]);
		if (seen[k])
			return fail(err, errlen, arg, "%s given more than once", key_names[k]);
		seen[k] = true;
		given[k] = arg;
		if (apply(cfg, (enum key)k, arg, eq + 1, err, errlen))
			return -1;
	}
	if (cfg->lock_timeout <= CONFIG_LOCKED_CALLS * cfg->timeout)
		return fail(err, errlen,
			    given[K_LOCK_TIMEOUT] ? given[K_LOCK_TIMEOUT] : given[K_TIMEOUT],
			    "lock_timeout (%u s%s) must be more than %d x timeout (%d x %u s%s = %u s), or a job waiting for the state lock gives up while another job's update is still within its bounds; raise lock_timeout or lower timeout",
			    cfg->lock_timeout, given[K_LOCK_TIMEOUT] ? "" : ", the default",
			    CONFIG_LOCKED_CALLS, CONFIG_LOCKED_CALLS, cfg->timeout,
			    given[K_TIMEOUT] ? "" : ", the default",
			    CONFIG_LOCKED_CALLS * cfg->timeout);
	/* Where Prometheus is and whether a CA vouches for it are known
	 * together only once the whole line is read. */
	if (cfg->prometheus[0]) {
		char why[240];

		if (httpurl_check_local(cfg->prometheus, cfg->prometheus_ca[0] != '\0', why, sizeof(why)) < 0)
			return fail(err, errlen, "prometheus=...", "%s", why);
	}
	return 0;
}

/* Parsed in place, with no copy: this runs in every job's prolog and
 * epilog. A failure puts the defaults back, as promised in config.h. */
int config_parse(struct config *cfg, int argc, char *const argv[],
		 char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	set_defaults(cfg);
	if (parse_args(cfg, argc, argv, err, errlen) < 0) {
		set_defaults(cfg);
		return -1;
	}
	return 0;
}

_Static_assert(K_COUNT == CONFIG_KEYS + CONFIG_OPTIONAL_KEYS,
	       "config_args gives every key (the optional ones when set)");

struct argbuf {
	char *buf;
	size_t used;
	char **argv;
	int n;
};

static void add_arg(struct argbuf *ab, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void add_arg(struct argbuf *ab, const char *fmt, ...)
{
	va_list ap;
	int len;

	ab->argv[ab->n++] = ab->buf + ab->used;
	va_start(ap, fmt);
	len = vsnprintf(ab->buf + ab->used, CONFIG_ARGS_BUF - ab->used, fmt, ap);
	va_end(ap);
	/* Every value is bounded by its parser, so CONFIG_ARGS_BUF holds all
	 * twelve; should that ever break, the argument is cut, never overrun. */
	ab->used += len < 0 ? 1 : (size_t)len + 1;
	if (ab->used > CONFIG_ARGS_BUF - 1)
		ab->used = CONFIG_ARGS_BUF - 1;
}

int config_args(const struct config *cfg, char buf[CONFIG_ARGS_BUF],
		char *argv[CONFIG_KEYS + CONFIG_OPTIONAL_KEYS])
{
	struct argbuf ab = { buf, 0, argv, 0 };

	add_arg(&ab, "mode=%s", config_mode_name(cfg->mode));
	add_arg(&ab, "unit=%s", cfg->unit);
	add_arg(&ab, "state=%s", cfg->state);
	add_arg(&ab, "systemctl=%s", cfg->systemctl);
	add_arg(&ab, "timeout=%u", cfg->timeout);
	add_arg(&ab, "lock_timeout=%u", cfg->lock_timeout);
	add_arg(&ab, "start=%s", config_start_name(cfg->start));
	add_arg(&ab, "linger=%u", cfg->linger);
	if (cfg->sets[0])
		add_arg(&ab, "sets=%s", cfg->sets);
	if (cfg->prometheus[0])
		add_arg(&ab, "prometheus=%s", cfg->prometheus);
	if (cfg->prometheus_ca[0])
		add_arg(&ab, "prometheus_ca=%s", cfg->prometheus_ca);
	if (cfg->prometheus_netrc[0])
		add_arg(&ab, "prometheus_netrc=%s", cfg->prometheus_netrc);
	return ab.n;
}

const char *config_mode_name(enum ebpf_mode mode)
{
	return mode == MODE_ALWAYS ? "always" : "opt-in";
}

const char *config_start_name(enum start_mode start)
{
	return start == START_BACKGROUND ? "background" : "wait";
}

void config_unit_display(const struct config *cfg, char *buf, size_t len)
{
	size_t n = strlen(cfg->unit);

	if (n > 8 && !strcmp(cfg->unit + n - 8, ".service"))
		n -= 8;
	snprintf(buf, len, "%.*s", (int)n, cfg->unit);
}
