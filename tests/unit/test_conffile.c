/* The plugin's line in a plugstack file, as the admin command reads it:
 * found as Slurm splits lines, judged by config_parse's own words. One
 * function per case. */
#include <stdio.h>
#include <string.h>

#include "conffile.h"
#include "tap.h"

/* What the last check() parsed, and why it refused. */
static struct config cfg;
static char err[700];

/* TEXT as the file plug.conf: conffile_read()'s result. */
static int check(const char *text)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc = conffile_read(f, "plug.conf", &cfg, err, sizeof(err));

	fclose(f);
	return rc;
}

static void test_plain_line(void)
{
	ok(check("optional /usr/lib64/slurm/spank_ebpf.so mode=always timeout=5\n") == 0 &&
	   cfg.mode == MODE_ALWAYS && cfg.timeout == 5, "a plain line");
}

static void test_comments_blanks_tabs(void)
{
	ok(check("# spank_ebpf\n\n  required\tspank_ebpf.so   unit=foo # a comment mode=always\n") == 0 &&
	   cfg.mode == MODE_OPT_IN && !strcmp(cfg.unit, "foo.service"),
	   "comments, blank lines, tabs, a relative name (PluginDir)");
}

static void test_other_lines_not_ours(void)
{
	ok(check("include /etc/slurm/plugstack.conf.d/*.conf\noptional /x/other.so a=b\noptional /x/spank_ebpf.so\n") == 0,
	   "other plugins' lines and includes are not ours");
}

static void test_bad_argument(void)
{
	ok(check("optional /x/spank_ebpf.so mode=sometimes\n") < 0 &&
	   !strcmp(err, "plug.conf:1: invalid plugstack argument \"mode=sometimes\": mode must be \"opt-in\" or \"always\""),
	   "a bad argument: the plugin's own message with the line: %s", err);
}

static void test_no_line(void)
{
	ok(check("# nothing\noptional /x/not_spank_ebpf.so\n") < 0 &&
	   strstr(err, "no required or optional line declares spank_ebpf.so"), "no line: %s", err);
}

static void test_two_lines(void)
{
	ok(check("optional /x/spank_ebpf.so\nrequired /y/spank_ebpf.so\n") < 0 &&
	   strstr(err, "2 lines declare spank_ebpf.so (the first on line 1)"), "two lines: %s", err);
}

static void test_commented_out_line(void)
{
	ok(check("#optional /x/spank_ebpf.so mode=bad\n") < 0, "a commented-out line does not count");
}

static void test_overlong_line(void)
{
	static char big[CONFFILE_LINE_MAX + 64];

	memset(big, 'a', sizeof(big) - 2);
	memcpy(big, "optional /x/spank_ebpf.so ", 26);
	big[sizeof(big) - 2] = '\n';
	ok(check(big) < 0 && strstr(err, "plug.conf:1: line longer than 4096 bytes"),
	   "an overlong line: %s", err);
}

static void test_lock_rule(void)
{
	ok(check("optional /x/spank_ebpf.so timeout=20\n") < 0 &&
	   strstr(err, "lock_timeout (60 s, the default) must be more than 3 x timeout"),
	   "the lock rule too: %s", err);
}

static void test_missing_file(void)
{
	ok(conffile_load("/nonexistent/plug.conf", &cfg, err, sizeof(err)) < 0 &&
	   !strcmp(err, "cannot read \"/nonexistent/plug.conf\": No such file or directory"),
	   "a missing file: %s", err);
}

int main(void)
{
	test_plain_line();
	test_comments_blanks_tabs();
	test_other_lines_not_ours();
	test_bad_argument();
	test_no_line();
	test_two_lines();
	test_commented_out_line();
	test_overlong_line();
	test_lock_rule();
	test_missing_file();
	return tap_done();
}
