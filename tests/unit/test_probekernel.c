/* probekernel: the kernel each of the project's configs needs, and the
 * refusal on an older one. One function per case. */
#include <string.h>

#include "probekernel.h"
#include "tap.h"

static void test_probekernel_parse(void)
{
	int major = 0, minor = 0;

	ok(probekernel_parse("5.10.0-32-cloud-amd64", &major, &minor) == 0 && major == 5 && minor == 10,
	   "parse: Debian's 5.10");
	ok(probekernel_parse("6.12.117+deb13-cloud-amd64", &major, &minor) == 0 && major == 6 &&
		   minor == 12,
	   "parse: 6.12 with a plus");
	ok(probekernel_parse("4.18.0-553.el8_10.x86_64", &major, &minor) == 0 && major == 4 &&
		   minor == 18,
	   "parse: RHEL 8's");
	ok(probekernel_parse("", &major, &minor) < 0, "parse: nothing refused");
	ok(probekernel_parse("linux", &major, &minor) < 0, "parse: a word refused");
	ok(probekernel_parse("6-1", &major, &minor) < 0, "parse: no dot refused");
}

static void test_probekernel_sched_on_510(void)
{
	char err[300] = "";

	ok(probekernel_check("spank-sched", "5.10.0-32-cloud-amd64", err, sizeof(err)) < 0,
	   "check: spank-sched refused on 5.10");
	ok(strstr(err, "config spank-sched cannot run on this node's kernel 5.10.0-32-cloud-amd64: it needs Linux 5.12 or newer (") != NULL,
	   "check: ... saying which config, which kernel, what it needs");
}

static void test_probekernel_boundaries(void)
{
	char err[300];

	ok(probekernel_check("spank-sched", "5.11.22", err, sizeof(err)) < 0, "check: spank-sched refused on 5.11");
	ok(probekernel_check("spank-sched", "5.12.0", err, sizeof(err)) == 0, "check: spank-sched on 5.12");
	ok(probekernel_check("spank-io", "5.10.223", err, sizeof(err)) < 0, "check: spank-io refused on 5.10");
	ok(probekernel_check("spank-io", "5.11.0", err, sizeof(err)) == 0, "check: spank-io on 5.11");
	ok(probekernel_check("spank-io", "4.18.0-553.el8_10.x86_64", err, sizeof(err)) < 0,
	   "check: spank-io refused on RHEL 8's 4.18");
	ok(probekernel_check("spank-io,spank-sched", "6.1.0-50-cloud-amd64", err, sizeof(err)) == 0,
	   "check: both on 6.1");
}

/* The fs set: fentry/fexit and bpf_loop, 6.1 (the kernel its programs
 * were verified on); its NFS config likewise. */
static void test_probekernel_fs(void)
{
	char err[300] = "";

	ok(probekernel_check("spank-fs", "5.10.0-32-cloud-amd64", err, sizeof(err)) < 0 &&
		   strstr(err, "config spank-fs cannot run on this node's kernel 5.10.0-32-cloud-amd64: it needs Linux 6.1 or newer (") != NULL,
	   "check: spank-fs refused on 5.10, in words");
	ok(probekernel_check("spank-fs", "5.15.0-130-generic", err, sizeof(err)) < 0, "check: spank-fs refused on 5.15");
	ok(probekernel_check("spank-fs,spank-fs-nfs", "6.1.0-50-cloud-amd64", err, sizeof(err)) == 0,
	   "check: spank-fs and spank-fs-nfs on 6.1");
	ok(probekernel_check("spank-io,spank-fs-nfs", "6.0.19", err, sizeof(err)) < 0 &&
		   strstr(err, "config spank-fs-nfs ") != NULL,
	   "check: spank-fs-nfs refused on 6.0, by name");
}

/* spank-fs-nfs attaches to the nfs module's functions: its set keeps
 * CAP_SYS_ADMIN until attached; no other config does. */
static void test_probekernel_module_btf(void)
{
	const char *module = NULL;

	ok(probekernel_module_btf("spank-fs,spank-fs-nfs", &module) != NULL &&
		   !strcmp(probekernel_module_btf("spank-fs,spank-fs-nfs", &module), "spank-fs-nfs") &&
		   module && !strcmp(module, "nfs"),
	   "module BTF: spank-fs-nfs, on the nfs module");
	module = NULL;
	ok(probekernel_module_btf("spank-io,spank-fs,spank-sched", &module) == NULL && !module,
	   "module BTF: none for the other configs");
	ok(probekernel_module_btf("spank-fs-nfsx,spank-fs-nf", &module) == NULL,
	   "module BTF: names only alike have none");
	ok(probekernel_module_btf("", &module) == NULL, "module BTF: no config, none");
}

static void test_probekernel_list(void)
{
	char err[300] = "";

	ok(probekernel_check("spank-io,spank-sched", "5.11.0", err, sizeof(err)) < 0 &&
		   strstr(err, "config spank-sched ") != NULL,
	   "check: the list's second config refused, by name");
	ok(probekernel_check("biolatency,spank-sched-x", "3.10.0", err, sizeof(err)) == 0,
	   "check: configs that are not the project's are not judged");
	ok(probekernel_check("spank-sched", "unknown", err, sizeof(err)) == 0,
	   "check: an unreadable release refuses nothing");
	ok(probekernel_check("", "5.10.0", err, sizeof(err)) == 0, "check: no config, nothing refused");
}

int main(void)
{
	test_probekernel_parse();
	test_probekernel_sched_on_510();
	test_probekernel_boundaries();
	test_probekernel_fs();
	test_probekernel_list();
	test_probekernel_module_btf();
	return tap_done();
}
