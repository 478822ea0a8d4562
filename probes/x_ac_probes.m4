# X_AC_PROBES
# -----------
# The project's ebpf_exporter configs (probes/): clang with the bpf
# target, the kernel's UAPI headers and libbpf's headers (1.1 or newer:
# bpf/bpf_helpers.h, bpf/bpf_core_read.h). No vmlinux.h, bpftool or
# kernel BTF is needed on the build host: the objects are CO-RE.
#   --enable-probes=yes|no|auto  (default auto: built when the tools work)
#   BPF_CLANG                    the clang to use (default: clang)
# Sets BPF_CLANG, BPF_TARGET_ARCH (__TARGET_ARCH_<arch>), BPF_CPPFLAGS
# (the multiarch include directory, which clang -target bpf does not
# search: asm/types.h lives there on Debian) and the conditional
# HAVE_BPF_PROBES.
AC_DEFUN([X_AC_PROBES], [
  AC_REQUIRE([AC_CANONICAL_HOST])
  AC_ARG_ENABLE([probes],
    [AS_HELP_STRING([--enable-probes], [build the ebpf_exporter configs in probes/ (needs clang for the bpf target and libbpf headers; default: when found)])],
    [], [enable_probes=auto])
  AC_ARG_VAR([BPF_CLANG], [clang that compiles the BPF objects in probes/])
  x_ac_probes=no
  AS_IF([test "x$enable_probes" != xno], [
    AC_CHECK_PROGS([BPF_CLANG], [clang], [])
    AS_CASE([$host_cpu],
      [x86_64|i?86], [BPF_TARGET_ARCH=x86],
      [aarch64*], [BPF_TARGET_ARCH=arm64],
      [powerpc64*|ppc64*], [BPF_TARGET_ARCH=powerpc],
      [s390x], [BPF_TARGET_ARCH=s390],
      [riscv64], [BPF_TARGET_ARCH=riscv],
      [BPF_TARGET_ARCH=])
    x_ac_multiarch=`$CC -print-multiarch 2>/dev/null`
    BPF_CPPFLAGS=
    AS_IF([test -n "$x_ac_multiarch" && test -d "/usr/include/$x_ac_multiarch"],
      [BPF_CPPFLAGS="-idirafter /usr/include/$x_ac_multiarch"])
    AC_MSG_CHECKING([whether $BPF_CLANG compiles CO-RE BPF objects with libbpf's headers])
    AS_IF([test -n "$BPF_CLANG" && test -n "$BPF_TARGET_ARCH"], [
      cat >conftest.bpf.c <<PROBES_CONFTEST_END
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
struct kernfs_node { const char *name; } __attribute__((preserve_access_index));
struct kernfs_node___x { struct kernfs_node *__parent; } __attribute__((preserve_access_index));
struct { __uint(type, BPF_MAP_TYPE_TASK_STORAGE); __uint(map_flags, BPF_F_NO_PREALLOC);
	 __type(key, int); __type(value, __u64); } m SEC(".maps");
extern int LINUX_KERNEL_VERSION __kconfig;
SEC("raw_tp/sched_switch")
int f(struct bpf_raw_tracepoint_args *ctx)
{
	struct kernfs_node *kn = (struct kernfs_node *)ctx->args@<:@0@:>@;
	__u64 v = 0;

	if (bpf_core_field_exists(struct kernfs_node___x, __parent))
		kn = BPF_CORE_READ((struct kernfs_node___x *)kn, __parent);
	bpf_probe_read_kernel_str(&v, sizeof(v), BPF_CORE_READ(kn, name));
	return v + (LINUX_KERNEL_VERSION > KERNEL_VERSION(5, 10, 0));
}
char LICENSE@<:@@:>@ SEC("license") = "GPL";
PROBES_CONFTEST_END
      AS_IF([$BPF_CLANG -target bpf -O2 -g -D__TARGET_ARCH_$BPF_TARGET_ARCH $BPF_CPPFLAGS -c conftest.bpf.c -o conftest.bpf.o >&AS_MESSAGE_LOG_FD 2>&1],
        [x_ac_probes=yes])
      rm -f conftest.bpf.c conftest.bpf.o
    ])
    AC_MSG_RESULT([$x_ac_probes])
    AS_IF([test "x$x_ac_probes" = xno && test "x$enable_probes" = xyes],
      [AC_MSG_ERROR([--enable-probes: cannot compile BPF objects (need clang with the bpf target, linux-libc-dev and libbpf-dev 1.1+; see config.log)])])
  ])
  AC_SUBST([BPF_CLANG])
  AC_SUBST([BPF_TARGET_ARCH])
  AC_SUBST([BPF_CPPFLAGS])
  AM_CONDITIONAL([HAVE_BPF_PROBES], [test "x$x_ac_probes" = xyes])
])
