#!/bin/bash
# The project's ebpf_exporter configs (probes/) for real: probes/tests/verify.sh
# compiles them, loads and attaches them in the real ebpf_exporter
# (--config.strict) and checks per-job attribution with processes placed
# by hand in cgroup v2 directories laid out as Slurm lays out a job's (no
# Slurm: the job cgroups are made by the script, the spank_jobs maps filled
# with bpftool as the plugin fills them). It speaks TAP through the same
# library (tests/lib/tap.sh); this script checks the prerequisites, takes
# the lock and hands over to it.
#
# Needs root, clang with libbpf's headers, bpftool, curl, python3 and the
# real exporter: $EXPORTER, else the one tests/exporter/build.sh builds
# and caches (a cached build answers at once; otherwise it builds, which
# takes minutes and the Go module proxy). Missing: skipped by hand, a
# failure under CI=true. The kernel's bpf_stats switch, cgroups and a fixed
# scratch directory: takes the host suites' lock. Not under make distcheck.
. "${srcdir:-.}/tests/lib/tap.sh"

top=${srcdir:-.}
skip_in_distcheck "the BPF configs against the real ebpf_exporter"
need_root
need_cmd clang bpftool curl python3 taskset dd ss
[ -f /usr/include/bpf/bpf_helpers.h ] || missing "libbpf's headers (libbpf-dev)"
[ -r /sys/kernel/btf/vmlinux ] || missing "a kernel with BTF (/sys/kernel/btf/vmlinux)"

suite_lock 3600

exporter=${EXPORTER:-}
if [ -z "$exporter" ]; then
	# Its last line: "ebpf_exporter=PATH configs=PATH".
	built=$(bash "$top/tests/exporter/build.sh" 2>&1)
	exporter=$(printf '%s\n' "$built" | sed -n '$s/^ebpf_exporter=\([^ ]*\) configs=.*/\1/p')
	[ -n "$exporter" ] || {
		printf '%s\n' "$built" | tail -n 20 | sed 's/^/# /'
		missing "the real ebpf_exporter (tests/exporter/build.sh did not build it, see above)"
	}
fi
[ -x "$exporter" ] || missing "the real ebpf_exporter at $exporter"
diag "ebpf_exporter: $exporter"

# Its TAP is this script's: it numbers the points and prints the plan.
EXPORTER=$exporter exec bash "$top/probes/tests/verify.sh"
