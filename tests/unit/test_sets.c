/* Probe sets: the sets file as the admin writes it (every refusal with
 * its line and words), what a job's --ebpf value asks for, the template's
 * instance names, and the configs' files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "sets.h"
#include "tap.h"
#include "testutil.h"

static const char good[] =
	"# probe sets\n"
	"unit = ebpf_exporter@.service\n"
	"exporter = /usr/bin/ebpf_exporter\n"
	"config_dir = /etc/ebpf_exporter\n"
	"default = io\n"
	"always = io,sched   # every job, with mode=always\n"
	"\n"
	"[io]\n"
	"description = Block I/O latency and bytes of the job\n"
	"configs = spank-io\n"
	"listen = 127.0.0.1:941\n"
	"linger = 60\n"
	"[sched]\n"
	"description = Run-queue latency of the job\n"
	"configs = spank-sched,timers\n"
	"listen = :942\n"
	"[net]\n"
	"description = TCP retransmits and connections\n"
	"configs = spank-net\n"
	"listen = [::1]:943\n";

static int parse(const char *text, struct sets *s, char *err, size_t errlen)
{
	return sets_parse(text, strlen(text), "sets.conf", s, err, errlen);
}

static void test_good_file(void)
{
	struct sets s;
	char err[512], unit[300], allowed[200];

	ok(parse(good, &s, err, sizeof(err)) == 0, "a good file is accepted: %s", err);
	ok(s.n == 3 && !strcmp(s.set[0].name, "io") && !strcmp(s.set[1].name, "sched") &&
	   !strcmp(s.set[2].name, "net"), "three sets, in the file's order");
	ok(!strcmp(s.set[1].configs, "spank-sched,timers") && !strcmp(s.set[2].listen, "[::1]:943") &&
	   s.set[2].port == 943, "configs and listen kept as written");
	ok(s.set[0].linger_given && s.set[0].linger == 60 && !s.set[1].linger_given,
	   "linger per set, where given");
	ok(s.default_mask == 1 && s.always_mask == 3, "default = io, always = io,sched");
	ok(!strcmp(s.exporter, "/usr/bin/ebpf_exporter") && !strcmp(s.config_dir, "/etc/ebpf_exporter"),
	   "exporter and config_dir");
	sets_unit(&s, "sched", unit, sizeof(unit));
	ok(!strcmp(unit, "ebpf_exporter@sched.service"), "the template's instance: %s", unit);
	sets_allowed(&s, allowed, sizeof(allowed));
	ok(!strcmp(allowed, "io, sched, net"), "the allowed list: %s", allowed);
	ok(parse("default = a\n[a]\ndescription = x\nconfigs = c\nlisten = 127.0.0.1:1\n", &s, err,
		 sizeof(err)) == 0 && !strcmp(s.unit, "spank-ebpf-exporter@.service") && s.always_mask == 1,
	   "defaults: the template spank-ebpf-exporter@.service, always = default");
	ok(!strcmp(s.textfile_group, "prometheus"),
	   "the textfile's group: prometheus by default (Debian's node_exporter): %s", s.textfile_group);
	ok(parse("textfile_group = node_exporter\ndefault = a\n[a]\ndescription = x\nconfigs = c\nlisten = :1\n",
		 &s, err, sizeof(err)) == 0 && !strcmp(s.textfile_group, "node_exporter"),
	   "textfile_group = node_exporter: %s", err);
}

static const struct {
	const char *text, *expect;
} bad[] = {
	{ "", "sets.conf: declares no set" },
	{ "default = io\n", "sets.conf: declares no set" },
	{ "[io]\ndescription = x\nconfigs = c\nlisten = :1\n", "sets.conf: no default = SET[,SET...]" },
	{ "default = iox\n[io]\ndescription = x\nconfigs = c\nlisten = :1\n",
	  "sets.conf:1: default: \"iox\" is not a declared set (declared: io)" },
	{ "default = io\nalways = io,,io\n[io]\ndescription = x\nconfigs = c\nlisten = :1\n",
	  "sets.conf:2: always: \"\" is not a declared set" },
	{ "frobnicate = 1\n", "sets.conf:1: unknown key \"frobnicate\"" },
	{ "default = io\n[io]\ndescription = x\nconfigs = c\nlisten = :1\ncolour = red\n",
	  "sets.conf:6: set io: unknown key \"colour\"" },
	{ "[IO]\n", "sets.conf:1: \"[IO]\": a set's name is [a-z][a-z0-9_-]*" },
	{ "[9io]\n", "sets.conf:1: \"[9io]\": a set's name" },
	{ "[io,x]\n", "a set's name" },
	{ "[]\n", "a set's name" },
	{ "[abcdefghijklmnopqrstuvwxyz0123456]\n", "at most 32 characters" },
	{ "default = io\n[io]\ndescription = x\nconfigs = c\nlisten = :1\n[io]\n", "sets.conf:6: set io declared twice" },
	{ "default = io\n[io]\ndescription = x\nconfigs = c\n", "sets.conf:2: set io: description, configs and listen are all required" },
	{ "default = io\n[io]\ndescription = x\nconfigs = c\nlisten = :1\nlisten = :2\n", "sets.conf:6: listen given twice" },
	{ "default = io\n[io]\ndescription = x\nconfigs = a/b\nlisten = :1\n", "sets.conf:4: set io: \"a/b\" is not a config name" },
	{ "default = io\n[io]\ndescription = x\nconfigs = .hidden\nlisten = :1\n", "is not a config name" },
	{ "default = io\n[io]\ndescription = x\nconfigs = a,,b\nlisten = :1\n", "set io: \"\" is not a config name" },
	{ "default = io\n[io]\ndescription = x\nconfigs = a,b,c,d,e,f,g,h,i\nlisten = :1\n", "set io: more than 8 configs" },
	{ "default = io\n[io]\ndescription = x\nconfigs = c\nlisten = 941\n", "sets.conf:5: set io: listen must be ADDRESS:PORT with a decimal port from 1 to 1023" },
	{ "default = io\n[io]\ndescription = x\nconfigs = c\nlisten = 127.0.0.1:0\n", "set io: listen must be ADDRESS:PORT" },
	{ "default = io\n[io]\ndescription = x\nconfigs = c\nlisten = 127.0.0.1:70000\n", "set io: listen must be ADDRESS:PORT" },
	{ "default = io\n[io]\ndescription = x\nconfigs = c\nlisten = 300.0.0.1:941\n", "set io: listen not an IPv4 address as inet_pton reads it" },
	{ "default = io\n[io]\ndescription = x\nconfigs = c\nlisten = 127.0.0.1:8941\n", "set io: listen port 8941 is not privileged (1 to 1023): any user could bind it first" },
	{ "default = io\n[io]\ndescription = x\nconfigs = c\nlisten = localhost:941\n", "set io: listen host names are not accepted, localhost neither: write the address (127.0.0.1)" },
	{ "default = io\n[io]\ndescription = x\nconfigs = c\nlisten = 0127.0.0.1:941\n", "set io: listen not an IPv4 address" },
	{ "default = io\n[io]\ndescription = x\nconfigs = c\nlisten = evil.example:941\n", "listen host names are not accepted" },
	{ "default = io\n[io]\ndescription = x\nconfigs = c\nlisten = :941\n[net]\ndescription = y\nconfigs = d\nlisten = 127.0.0.1:941\n",
	  "sets.conf:9: set net: listen port 941 is also set io's (line 5)" },
	{ "default = io\n[io]\ndescription = x\nconfigs = c\nlisten = :1\nlinger = 86401\n", "linger must be a whole number of seconds from 0 to 86400" },
	{ "default = io\n[io]\ndescription = \x01\nconfigs = c\nlisten = :1\n", "description must be 1 to 100 printable" },
	{ "unit = ebpf_exporter.service\n", "sets.conf:1: unit must be a template service, NAME@.service" },
	{ "exporter = bin/ebpf_exporter\n", "exporter must be an absolute, normalised path" },
	{ "exporter = /usr/bin/../bin/x\n", "exporter must be an absolute, normalised path" },
	{ "config_dir = /etc/$HOME\n", "config_dir may hold only printable ASCII, without spaces, \"$\", \"%\"" },
	{ "unit = a@.service\nunit = b@.service\n", "sets.conf:2: unit given twice" },
	{ "default io\n", "sets.conf:1: \"default io\": expected KEY = VALUE or [SET]" },
	{ "textfile_group = a b\n", "sets.conf:1: textfile_group must be a group name" },
	{ "textfile_group = -x\n", "sets.conf:1: textfile_group must be a group name" },
	{ "textfile_group = abcdefghijklmnopqrstuvwxyz0123456\n", "textfile_group must be a group name" },
	{ "[io]\n\0description = x\n", "holds NUL bytes" },
};

static void test_refusals(void)
{
	struct sets s;
	char err[512];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len = strlen(bad[i].text);
		int rc;

		/* The NUL row: its text goes on past the NUL. */
		if (strstr(bad[i].expect, "NUL"))
			len += 1 + strlen(bad[i].text + len + 1);
		err[0] = '\0';
		rc = sets_parse(bad[i].text, len, "sets.conf", &s, err, sizeof(err));
		ok(rc < 0 && strstr(err, bad[i].expect), "refused: %s", err);
	}
}

static void test_requests(void)
{
	struct sets s;
	uint32_t mask;
	char err[512], badname[64];

	parse(good, &s, err, sizeof(err));
	ok(sets_request(&s, NULL, &mask, badname, sizeof(badname)) == 0 && mask == 1,
	   "plain --ebpf (no value): the default sets");
	ok(sets_request(&s, "(null)", &mask, badname, sizeof(badname)) == 0 && mask == 1,
	   "plain --ebpf as the prolog sees it, \"(null)\": the default sets");
	ok(sets_request(&s, "", &mask, badname, sizeof(badname)) == 0 && mask == 1,
	   "plain --ebpf, empty value: the default sets");
	ok(sets_request(&s, "io,sched", &mask, badname, sizeof(badname)) == 0 && mask == 3, "io,sched");
	ok(sets_request(&s, "net,net", &mask, badname, sizeof(badname)) == 0 && mask == 4, "a set named twice: once");
	ok(sets_request(&s, "iox", &mask, badname, sizeof(badname)) < 0 && !strcmp(badname, "iox") && mask == 0,
	   "an unknown set: refused, named");
	ok(sets_request(&s, "io,iox,net", &mask, badname, sizeof(badname)) < 0 && !strcmp(badname, "iox") &&
	   mask == 0, "an unknown name beside known ones: the whole request refused, mask %#x", mask);
	ok(sets_request(&s, "io,", &mask, badname, sizeof(badname)) < 0 && !strcmp(badname, "") && mask == 0,
	   "a trailing comma: an empty name, refused, nothing requested (mask %#x)", mask);
	ok(sets_request(&s, ",io", &mask, badname, sizeof(badname)) < 0 && !strcmp(badname, "") && mask == 0,
	   "a leading comma: refused, nothing requested (mask %#x)", mask);
	ok(sets_request(&s, "io,,sched", &mask, badname, sizeof(badname)) < 0 && !strcmp(badname, "") &&
	   mask == 0, "two commas in a row: refused, nothing requested (mask %#x)", mask);
	ok(sets_request(&s, "a\033[2Jb", &mask, badname, sizeof(badname)) < 0 && !strcmp(badname, "a?[2Jb"),
	   "a name with control characters: shown with '?'");
}

static void test_files(void)
{
	const char *dir = tu_scratch();
	char path[300], cdir[300], err[512], text[1024];
	struct sets s;

	snprintf(path, sizeof(path), "%s/sets.conf", dir);
	snprintf(cdir, sizeof(cdir), "%s/configs", dir);
	mkdir(cdir, 0755);
	snprintf(text, sizeof(text), "config_dir = %s\ndefault = io\n[io]\ndescription = x\n"
		 "configs = a,b\nlisten = :1\n", cdir);
	tu_write(path, text, strlen(text));
	chmod(path, 0644);
	ok(sets_load(path, &s, err, sizeof(err)) == 0, "a file of root's, mode 0644: read");
	snprintf(text, sizeof(text), "%s/a.yaml", cdir);
	tu_write(text, "x", 1);
	ok(sets_check_configs(&s, err, sizeof(err)) < 0 && strstr(err, "set io: config b: no \"") &&
	   strstr(err, "/configs/b.yaml\" (No such file or directory)"), "a missing config named: %s", err);
	snprintf(text, sizeof(text), "%s/b.yaml", cdir);
	tu_write(text, "x", 1);
	ok(sets_check_configs(&s, err, sizeof(err)) == 0, "every config there: fine");
	chmod(path, 0666);
	ok(sets_load(path, &s, err, sizeof(err)) < 0 && strstr(err, "not writable by group or others"),
	   "a file others may write: refused");
	snprintf(text, sizeof(text), "%s/nope.conf", dir);
	ok(sets_load(text, &s, err, sizeof(err)) < 0 && strstr(err, "cannot read the probe sets file"),
	   "a missing file: said");
}

/* The plugin line's sets= names the file: checked as a path, and given
 * back to the programs the plugin starts (the linger timer). */
static void test_line_key(void)
{
	struct config cfg, back;
	char err[512], buf[CONFIG_ARGS_BUF], *out[CONFIG_KEYS + CONFIG_OPTIONAL_KEYS];
	int n;

	ok(config_parse(&cfg, 1, (char *[]){ "sets=/etc/slurm/spank_ebpf.sets" }, err, sizeof(err)) == 0 &&
	   !strcmp(cfg.sets, "/etc/slurm/spank_ebpf.sets"), "sets=/etc/slurm/spank_ebpf.sets accepted");
	n = config_args(&cfg, buf, out);
	ok(n == CONFIG_KEYS + 1 && !strcmp(out[n - 1], "sets=/etc/slurm/spank_ebpf.sets") &&
	   config_parse(&back, n, out, err, sizeof(err)) == 0 && !strcmp(back.sets, cfg.sets),
	   "... given back last, and parsed back the same");
	ok(config_parse(&cfg, 1, (char *[]){ "sets=spank_ebpf.sets" }, err, sizeof(err)) < 0 &&
	   strstr(err, "\"sets=spank_ebpf.sets\": sets must be an absolute path"), "a relative sets= refused: %s", err);
	ok(config_parse(&cfg, 0, NULL, err, sizeof(err)) == 0 && !cfg.sets[0] &&
	   config_args(&cfg, buf, out) == CONFIG_KEYS, "no sets=: none, and not given back");
}

int main(void)
{
	test_line_key();
	test_good_file();
	test_refusals();
	test_requests();
	test_files();
	return tap_done();
}
