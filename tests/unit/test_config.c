/* Plugstack arguments: every accepted form and every rejection, with the
 * message an admin will see. Table-driven: one row per argument list;
 * the other cases one function each. */
#include <string.h>

#include "config.h"
#include "tap.h"

struct row {
	const char *args[4];
	const char *expect; /* NULL: accepted; else a substring of the error */
};

/* Room for an argument far past every limit the parser has. */
static char huge[2048];

/* huge as one overlong argument: PREFIX, then 'a' up to its end. */
static char *huge_arg(const char *prefix)
{
	memset(huge, 'a', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = '\0';
	memcpy(huge, prefix, strlen(prefix));
	return huge;
}

static int same(const struct config *a, const struct config *b)
{
	return a->mode == b->mode && !strcmp(a->unit, b->unit) && !strcmp(a->state, b->state) &&
	       !strcmp(a->systemctl, b->systemctl) && a->timeout == b->timeout &&
	       a->lock_timeout == b->lock_timeout && a->start == b->start && a->linger == b->linger;
}

/* config_args(parse(argv)) parses back to the same settings. */
static void round_trip(const char *what, int argc, char *argv[])
{
	struct config a, b;
	char err[512], buf[CONFIG_ARGS_BUF], *out[CONFIG_KEYS + CONFIG_OPTIONAL_KEYS] = { NULL };
	int n, back;

	if (config_parse(&a, argc, argv, err, sizeof(err)) < 0) {
		ok(0, "round trip, %s: not accepted: %s", what, err);
		return;
	}
	n = config_args(&a, buf, out);
	/* Called before ok(): its other arguments read err. */
	back = n == CONFIG_KEYS ? config_parse(&b, n, out, err, sizeof(err)) : -1;
	ok(back == 0 && same(&a, &b), "round trip, %s: %d arguments, parsed back the same%s%s",
	   what, n, err[0] ? ": " : "", err);
}

static const struct row rows[] = {
	{ { NULL }, NULL },
	{ { "mode=opt-in" }, NULL },
	{ { "mode=always" }, NULL },
	{ { "unit=ebpf_exporter" }, NULL },
	{ { "unit=ebpf_exporter.service" }, NULL },
	{ { "unit=ebpf-exporter@gpu.service" }, NULL },
	{ { "unit=a\\x2db.service" }, NULL },
	{ { "state=/run/spank_ebpf/state" }, NULL },
	{ { "systemctl=/bin/systemctl" }, NULL },
	{ { "timeout=1", "lock_timeout=600" }, NULL },
	{ { "timeout=10", "lock_timeout=31" }, NULL },
	{ { "timeout=19" }, NULL },
	{ { "start=wait" }, NULL },
	{ { "start=background" }, NULL },
	{ { "start=nowait" }, "\"start=nowait\": start must be \"wait\" or \"background\"" },
	{ { "start=" }, "empty value for start" },
	{ { "timeout=20" }, "\"timeout=20\": lock_timeout (60 s, the default) must be more than 3 x timeout (3 x 20 s = 60 s), or a job waiting" },
	/* A waiter must not give up while one holder legitimately runs its
	 * bounded calls (three at most): lock_timeout > 3 x timeout. */
	{ { "lock_timeout=30" }, "\"lock_timeout=30\": lock_timeout (30 s) must be more than 3 x timeout (3 x 10 s, the default = 30 s), or a job waiting" },
	{ { "timeout=10", "lock_timeout=10" }, "lock_timeout (10 s) must be more than 3 x timeout" },
	{ { "timeout=5", "lock_timeout=2" }, "lock_timeout (2 s) must be more than 3 x timeout (3 x 5 s = 15 s)" },
	{ { "timeout=21" }, "\"timeout=21\": lock_timeout (60 s, the default) must be more than 3 x timeout (3 x 21 s = 63 s)" },
	{ { "timeout=600" }, "lock_timeout (60 s, the default) must be more than 3 x timeout (3 x 600 s = 1800 s)" },
	{ { "timeout=600", "lock_timeout=600" }, "\"lock_timeout=600\": lock_timeout (600 s) must be more than" },
	{ { "mode=always", "unit=x.service", "state=/run/x", "systemctl=/usr/bin/systemctl" }, NULL },
	{ { "mode=sometimes" }, "\"mode=sometimes\": mode must be \"opt-in\" or \"always\"" },
	{ { "mode=" }, "\"mode=\": empty value for mode" },
	{ { "mode" }, "\"mode\": expected mode=VALUE" },
	{ { "Mode=always" }, "\"Mode=always\": unknown key" },
	{ { "modes=always" }, "unknown key" },
	{ { "debug" }, "\"debug\": unknown key" },
	{ { "=x" }, "\"=x\": unknown key" },
	{ { "" }, "\"\": unknown key" },
	{ { "mode=always", "mode=opt-in" }, "\"mode=opt-in\": mode given more than once" },
	{ { "unit=-H" }, "\"unit=-H\": unit name must not start with \"-\"" },
	{ { "unit=--host=evil" }, "must not start with \"-\"" },
	{ { "unit=.service" }, "must not start with \".\"" },
	{ { "unit=a/b.service" }, "may only contain ASCII letters" },
	{ { "unit=a b" }, "may only contain ASCII letters" },
	{ { "unit=a;reboot" }, "may only contain ASCII letters" },
	{ { "unit=\xc3\xa9t\xc3\xa9.service" }, "\"unit=??t??.service\": unit name may only contain ASCII letters" },
	{ { "unit=a..service" }, "must not contain \"..\"" },
	{ { "unit=ebpf_exporter.socket" }, "unit must be a service" },
	{ { "unit=ebpf_exporter.target" }, "unit must be a service" },
	{ { "unit=tmpl@.service" }, "misplaced \"@\"" },
	{ { "unit=@x.service" }, "misplaced \"@\"" },
	{ { "unit=a@b@c.service" }, "misplaced \"@\"" },
	{ { "unit=" }, "empty value for unit" },
	{ { "state=run/x" }, "\"state=run/x\": state must be an absolute path" },
	{ { "state=./x" }, "state must be an absolute path" },
	{ { "state=/run/" }, "state must name a file" },
	{ { "state=/" }, "state must name a file" },
	{ { "state=/run//x" }, "must not contain \"//\"" },
	{ { "state=/run/../etc/passwd" }, "must not contain \"..\" components" },
	{ { "state=/run/./x" }, "must not contain \".\" components" },
	{ { "state=/run/x/.." }, "must not contain \"..\" components" },
	{ { "state=/run/\xe2\x82\xac" }, "printable ASCII" },
	{ { "state=/run/a\tb" }, "\"state=/run/a?b\": state may only contain printable ASCII" },
	/* systemd expands $VAR (and, on some versions, % specifiers) in the
	 * linger timer's command line: linger-end would get another path. */
	{ { "state=/run/$HOME/state" }, "\"state=/run/$HOME/state\": state must not contain \"$\" or \"%\"" },
	{ { "state=/run/%h/state" }, "\"state=/run/%h/state\": state must not contain \"$\" or \"%\"" },
	{ { "systemctl=/usr/bin/${X}systemctl" }, "systemctl must not contain \"$\" or \"%\"" },
	{ { "systemctl=/usr/bin/systemctl%%" }, "systemctl must not contain \"$\" or \"%\"" },
	{ { "systemctl=systemctl" }, "\"systemctl=systemctl\": systemctl must be an absolute path" },
	{ { "systemctl=../bin/systemctl" }, "systemctl must be an absolute path" },
	{ { "systemctl=" }, "empty value for systemctl" },
	{ { "timeout=0" }, "timeout must be a whole number of seconds from 1 to 600" },
	{ { "timeout=601" }, "timeout must be a whole number" },
	{ { "timeout=-1" }, "timeout must be a whole number" },
	{ { "timeout=1.5" }, "timeout must be a whole number" },
	{ { "timeout=10s" }, "timeout must be a whole number" },
	{ { "timeout=99999999999999999999" }, "timeout must be a whole number" },
	{ { "timeout= 5" }, "timeout must be a whole number" },
	{ { "lock_timeout=0" }, "lock_timeout must be a whole number" },
	{ { "lock_timeout=abc" }, "lock_timeout must be a whole number" },
	{ { "timeout=5", "timeout=5" }, "timeout given more than once" },
	{ { "mode=always", "bogus=1" }, "\"bogus=1\": unknown key" },
	/* Prometheus on this host at a port any local user may bind first
	 * (1024 and above): its answers become the summary Slurm keeps. */
	{ { "prometheus=http://127.0.0.1:19090/" }, "\"prometheus=...\": prometheus is on this host (loopback) at port 19090, which any local user may bind first: put Prometheus on a privileged port (below 1024), or use https with prometheus_ca=" },
	{ { "prometheus=http://localhost:9090" }, "at port 9090, which any local user may bind first" },
	{ { "prometheus=http://LocalHost.:9090" }, "at port 9090, which any local user" },
	{ { "prometheus=http://prom.localhost:9090" }, "at port 9090, which any local user" },
	{ { "prometheus=http://127.3.2.1:1024" }, "at port 1024, which any local user" },
	{ { "prometheus=http://[::1]:9090" }, "at port 9090, which any local user" },
	{ { "prometheus=http://[::ffff:127.0.0.1]:9090" }, "at port 9090, which any local user" },
	{ { "prometheus=http://0.0.0.0:9090" }, "at port 9090, which any local user" },
	{ { "prometheus=http://[::]:9090" }, "at port 9090, which any local user" },
	{ { "prometheus=https://127.0.0.1:9090" }, "at port 9090, which any local user" },
	{ { "prometheus_ca=/etc/ca.pem", "prometheus=http://127.0.0.1:9090" }, "at port 9090, which any local user" },
	{ { "prometheus=https://127.0.0.1:9090", "prometheus_ca=/etc/ca.pem" }, NULL },
	{ { "prometheus=http://127.0.0.1:909/" }, NULL },
	{ { "prometheus=http://localhost" }, NULL },
	{ { "prometheus=https://[::1]:1023/prom" }, NULL },
	{ { "prometheus=http://10.1.2.3:9090/" }, NULL },
	{ { "prometheus=http://prometheus:9090" }, NULL },
	{ { "prometheus=http://localhostx:9090" }, NULL },
	{ { "prometheus=http://128.0.0.1:9090" }, NULL },
};

static void test_defaults(void)
{
	struct config cfg;
	char err[512];

	ok(config_parse(&cfg, 0, NULL, err, sizeof(err)) == 0, "no arguments accepted");
	ok(cfg.mode == MODE_OPT_IN, "default mode is opt-in");
	ok(!strcmp(cfg.unit, "ebpf_exporter.service"), "default unit");
	ok(!strcmp(cfg.state, "/run/ebpf_exporter.refcount"), "default state");
	ok(cfg.systemctl[0] == '/', "default systemctl is absolute: %s", cfg.systemctl);
	ok(cfg.timeout == 10 && cfg.lock_timeout == 60, "default timeouts 10 s / 60 s");
	ok(cfg.start == START_WAIT && !strcmp(config_start_name(cfg.start), "wait"),
	   "default start=wait: payloads start with the probes live");
}

/* Values land where they should; a refused line after an accepted one
 * (mode=always there) leaves the defaults, not half of it. */
static void test_values_land(void)
{
	struct config cfg;
	char err[512];

	ok(config_parse(&cfg, 3, (char *[]){ "unit=foo", "mode=always", "timeout=7" }, err, sizeof(err)) == 0 &&
	   !strcmp(cfg.unit, "foo.service") && cfg.mode == MODE_ALWAYS &&
	   cfg.timeout == 7, "unit without suffix gets .service; mode and timeout set");
	ok(config_parse(&cfg, 2, (char *[]){ "mode=always", "timeout=0" }, err, sizeof(err)) < 0 &&
	   cfg.mode == MODE_OPT_IN, "a rejected line leaves the defaults, not half of it");
}

static void test_rows(void)
{
	struct config cfg;
	char err[512], *argv[4];
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int argc = 0, rc;
		char shown[160] = "";

		while (argc < 4 && rows[i].args[argc]) {
			argv[argc] = (char *)rows[i].args[argc];
			strncat(shown, argv[argc], sizeof(shown) - strlen(shown) - 2);
			strcat(shown, " ");
			argc++;
		}
		rc = config_parse(&cfg, argc, argv, err, sizeof(err));
		if (!rows[i].expect)
			ok(rc == 0, "accepted: %s%s%s", shown, rc ? "-> " : "", rc ? err : "");
		else
			ok(rc < 0 && strstr(err, rows[i].expect),
			   "rejected: %s-> %s", shown, err);
	}
}

/* test_values_land's promise when only the final check refuses the line
 * (parsed in place, the keys before it were already applied). */
static void test_final_check_keeps_defaults(void)
{
	struct config cfg;
	char err[512];

	ok(config_parse(&cfg, 2, (char *[]){ "unit=x", "timeout=30" }, err, sizeof(err)) < 0 &&
	   !strcmp(cfg.unit, "ebpf_exporter.service") && cfg.timeout == 10,
	   "refused by the lock_timeout vs timeout check: the defaults too");
}

/* What the linger timer is given: the settings, canonical. */
static void test_settings_as_arguments(void)
{
	struct config cfg;
	char err[512], buf[CONFIG_ARGS_BUF], *out[CONFIG_KEYS + CONFIG_OPTIONAL_KEYS], line[2048] = "", want[2048];
	int j, k;

	config_parse(&cfg, 2, (char *[]){ "unit=ebpf_exporter", "linger=60" }, err, sizeof(err));
	k = config_args(&cfg, buf, out);
	for (j = 0; j < k; j++)
		snprintf(line + strlen(line), sizeof(line) - strlen(line), "%s%s", j ? " " : "", out[j]);
	snprintf(want, sizeof(want), "mode=opt-in unit=ebpf_exporter.service state=/run/ebpf_exporter.refcount "
		 "systemctl=%s timeout=10 lock_timeout=60 start=wait linger=60", cfg.systemctl);
	ok(!strcmp(line, want), "the settings as arguments: every key, the unit's suffix, the defaults: %s",
	   line);
}

static void test_round_trips(void)
{
	static char st[300], sc[300], un[300];

	round_trip("the defaults", 0, NULL);
	round_trip("every key", 8, (char *[]){ "mode=always", "unit=x@gpu", "state=/s", "systemctl=/b/sc",
					       "timeout=199", "lock_timeout=600", "start=background",
					       "linger=86400" });
	/* The longest values the parser accepts: nothing is cut. */
	memset(st, 'a', CONFIG_PATH_MAX + 5);
	memcpy(st, "state=/", 7);
	st[6 + CONFIG_PATH_MAX - 1] = '\0';
	memcpy(sc, st, sizeof(sc));
	memcpy(sc, "systemctl=/", 11);
	memset(sc + 11, 'b', CONFIG_PATH_MAX - 2);
	sc[10 + CONFIG_PATH_MAX - 1] = '\0';
	memset(un, 'u', sizeof(un) - 1);
	memcpy(un, "unit=", 5);
	un[5 + CONFIG_UNIT_MAX - 9 - 1] = '\0';
	round_trip("the longest values", 3, (char *[]){ st, sc, un });
}

/* Huge values are refused without echoing them whole. */
static void test_huge_values(void)
{
	struct config cfg;
	char err[512];

	ok(config_parse(&cfg, 1, (char *[]){ huge_arg("state=/") }, err, sizeof(err)) < 0 &&
	   strstr(err, "longer than") && strlen(err) < 200, "huge state= refused: %s", err);
	ok(config_parse(&cfg, 1, (char *[]){ huge_arg("unit=aa") }, err, sizeof(err)) < 0 &&
	   strstr(err, "unit name is longer"), "huge unit= refused: %s", err);
}

/* systemd's limit, 255 bytes, on the name used: ".service" counts
 * whether given or added. */
static void test_unit_length_limit(void)
{
	static const struct {
		size_t stem;
		const char *suffix;
		int accepted;
	} lim[] = { { 247, "", 1 }, { 248, "", 0 }, { 247, ".service", 1 }, { 248, ".service", 0 } };
	static char u[300];
	struct config cfg;
	char err[512];
	size_t j;
	int rc;

	for (j = 0; j < sizeof(lim) / sizeof(lim[0]); j++) {
		memset(u, 'u', sizeof(u));
		memcpy(u, "unit=", 5);
		snprintf(u + 5 + lim[j].stem, sizeof(u) - 5 - lim[j].stem, "%s", lim[j].suffix);
		rc = config_parse(&cfg, 1, (char *[]){ u }, err, sizeof(err));
		ok(lim[j].accepted ? rc == 0 && strlen(cfg.unit) == 255 :
				     rc < 0 && strstr(err, "longer than 255 bytes (with its \".service\")"),
		   "unit= of %zu bytes%s%s: %s", lim[j].stem, lim[j].suffix[0] ? " + " : "",
		   lim[j].suffix, lim[j].accepted ? "accepted" : "refused");
	}
}

static void test_huge_unknown_key(void)
{
	struct config cfg;
	char err[512];

	ok(config_parse(&cfg, 1, (char *[]){ huge_arg("aaaaaaa") }, err, sizeof(err)) < 0 &&
	   strstr(err, "unknown key") && strlen(err) < 300, "huge unknown key refused");
}

int main(void)
{
	test_defaults();
	test_values_land();
	test_rows();
	test_final_check_keeps_defaults();
	test_settings_as_arguments();
	test_round_trips();
	test_huge_values();
	test_unit_length_limit();
	test_huge_unknown_key();
	return tap_done();
}
