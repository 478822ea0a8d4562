/* The plugin's line in a plugstack file, as the admin command reads it:
 * found as Slurm splits lines, judged by config_parse's own words. */
#include <stdio.h>
#include <string.h>

#include "conffile.h"
#include "tap.h"

static int check(const char *text, struct config *cfg, char *err, size_t errlen)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc = conffile_read(f, "plug.conf", cfg, err, errlen);

	fclose(f);
	return rc;
}

int main(void)
{
	static char big[CONFFILE_LINE_MAX + 64];
	struct config cfg;
	char err[700];

	ok(check("optional /usr/lib64/slurm/spank_ebpf.so mode=always timeout=5\n", &cfg, err, sizeof(err)) == 0 &&
	   cfg.mode == MODE_ALWAYS && cfg.timeout == 5, "a plain line");
	ok(check("# spank_ebpf\n\n  required\tspank_ebpf.so   unit=foo # a comment mode=always\n", &cfg, err, sizeof(err)) == 0 &&
	   cfg.mode == MODE_OPT_IN && !strcmp(cfg.unit, "foo.service"),
	   "comments, blank lines, tabs, a relative name (PluginDir)");
	ok(check("include /etc/slurm/plugstack.conf.d/*.conf\noptional /x/other.so a=b\noptional /x/spank_ebpf.so\n", &cfg, err, sizeof(err)) == 0,
	   "other plugins' lines and includes are not ours");
	ok(check("optional /x/spank_ebpf.so mode=sometimes\n", &cfg, err, sizeof(err)) < 0 &&
	   !strcmp(err, "plug.conf:1: invalid plugstack argument \"mode=sometimes\": mode must be \"opt-in\" or \"always\""),
	   "a bad argument: the plugin's own message with the line: %s", err);
	ok(check("# nothing\noptional /x/not_spank_ebpf.so\n", &cfg, err, sizeof(err)) < 0 &&
	   strstr(err, "no required or optional line declares spank_ebpf.so"), "no line: %s", err);
	ok(check("optional /x/spank_ebpf.so\nrequired /y/spank_ebpf.so\n", &cfg, err, sizeof(err)) < 0 &&
	   strstr(err, "2 lines declare spank_ebpf.so (the first on line 1)"), "two lines: %s", err);
	ok(check("#optional /x/spank_ebpf.so mode=bad\n", &cfg, err, sizeof(err)) < 0,
	   "a commented-out line does not count");
	memset(big, 'a', sizeof(big) - 2);
	memcpy(big, "optional /x/spank_ebpf.so ", 26);
	big[sizeof(big) - 2] = '\n';
	ok(check(big, &cfg, err, sizeof(err)) < 0 && strstr(err, "plug.conf:1: line longer than 4096 bytes"),
	   "an overlong line: %s", err);
	ok(check("optional /x/spank_ebpf.so timeout=20\n", &cfg, err, sizeof(err)) < 0 &&
	   strstr(err, "lock_timeout (60 s, the default) must be more than 3 x timeout"),
	   "the lock rule too: %s", err);
	ok(conffile_load("/nonexistent/plug.conf", &cfg, err, sizeof(err)) < 0 &&
	   !strcmp(err, "cannot read \"/nonexistent/plug.conf\": No such file or directory"),
	   "a missing file: %s", err);
	return tap_done();
}
