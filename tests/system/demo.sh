#!/bin/bash
# The demo: on a Debian 12 machine, as root, from a checkout or a release
# tarball of slurm-spank-ebpf:
#
#   tests/system/demo.sh
#
# installs what it needs (Debian packages), builds the plugin's Debian
# packages for Slurm 22.05 inside a Debian 12 container that runs real
# systemd, installs them there with munge, slurmctld, slurmd and
# cloudflare's ebpf_exporter run by the example unit the packages ship
# (built by tests/exporter/build.sh; where that fails, a stand-in
# ebpf_exporter.service whose process loads real eBPF programs), submits two
# overlapping `sbatch --ebpf` jobs and prints a timeline: the plugin's state
# (count of jobs holding the exporter), `systemctl is-active
# ebpf_exporter`, the number of eBPF programs loaded and the exporter's
# metrics, at each step, and a few of the exporter's metric lines while
# the jobs run; then the probes package's io set: a job asking
# `sbatch --ebpf=io`, its series labelled by its job ID, and
# `spank-ebpf report` for it. Then it tears everything down.
#
# The first run builds ebpf_exporter (about 8 minutes) and the container's
# root filesystem with debootstrap (about 2 minutes), both cached in
# /var/cache/slurm-spank-ebpf-tests; later runs take about a minute. DEMO_SUITE=trixie|sid shows Slurm 24.11 or 26.05.
set -u
export DEBIAN_FRONTEND=noninteractive
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
suite=${DEMO_SUITE:-bookworm}

# Its messages as "demo: ..." lines (tests/lib/tap.sh: diag, bail), in
# the tests' locale and umask.
TAP_PLAIN=demo
# shellcheck source=../lib/tap.sh
. "$top/tests/lib/tap.sh"

[ "$(id -u)" -eq 0 ] || bail "run me as root (I boot a container and install packages)"

# --- what the host needs ----------------------------------------------------
# (`make demo` passes its build directory; by hand, this tree is configured
# here if it is not yet.)
builddir=${top_builddir:-$top}
# The groups of tests/deps/debian.txt it needs, installed by tests/run.sh
# (the README's test command) if missing: system (debootstrap,
# systemd-nspawn, make dist), and build/autotools to configure this tree.
groups=system
[ -f "$builddir/Makefile" ] || groups=$groups,build
[ -f "$builddir/Makefile" ] || [ -f configure ] || groups=$groups,autotools
bash "$top/tests/run.sh" --install-only --groups="$groups" ||
	bail "cannot install what the demo needs (see above)"
if [ ! -f "$builddir/Makefile" ]; then
	builddir=$top
	diag "configuring the source tree (for make dist)"
	{ [ -f configure ] || ./autogen.sh; } >/dev/null 2>&1 || bail "./autogen.sh failed"
	./configure -q >/dev/null || bail "./configure failed"
fi

# --- the container, through the system tests' library -----------------------
export srcdir=$top top_builddir=$builddir
# shellcheck source=../lib/system.sh
. "$top/tests/lib/system.sh"
# shellcheck source=real.sh
. "$top/tests/system/real.sh"

# cloudflare's ebpf_exporter, built from its Go module at a pinned version
# (tests/exporter/build.sh: Go and the Go module proxy; the first time
# about 8 minutes, then cached and checked in a second). Should that fail,
# the stand-in runs, and the demo says why.
diag "building cloudflare's ebpf_exporter (tests/exporter/build.sh; first run: about 8 minutes, then cached)"
if ! demo_exp=$(bash "$top/tests/exporter/build.sh" 2>&1); then
	printf '%s\n' "$demo_exp" | tail -n 5 | sed 's/^/demo:   /'
	diag "could not build ebpf_exporter (above): the stand-in will run instead"
fi

sys_setup "$suite"
diag "preparing a Debian $suite container (first run: debootstrap, about 2 minutes)"
sys_cache
sys_tarball
diag "booting it with systemd-nspawn"
sys_boot
diag "building the Debian packages inside it from $(basename "$TARBALL") and installing them"
sys_install
sys_cluster_start
if [ -x "$SYS_EXPORTER_DIR/bin/ebpf_exporter" ]; then
	diag "installing ebpf_exporter ($SYS_EXPORTER_DIR) with the packages' example unit"
	real_setup
	demo_real=1 demo_submit=submit_work
else
	diag "no ebpf_exporter built in $SYS_EXPORTER_DIR (tests/exporter/build.sh): the stand-in runs"
	demo_real='' demo_submit=submit_payload
fi

# --- the timeline -----------------------------------------------------------
# Each line's readings are taken once the exporter has settled
# (exporter_settle): a unit still stopping reads "deactivating".
t0=$(date +%s.%N)
line() {
	local now
	now=$(date +%s.%N)
	exporter_settle
	printf '%s  +%5.1fs  %-34s %-7s %-9s %-6s %s\n' \
		"$(date -d "@$now" +%H:%M:%S.%3N)" "$(awk -v a="$now" -v b="$t0" 'BEGIN { printf "%.1f", a - b }')" \
		"$1" "$(state_count)" "$(is_active)" "$(progs)" "$(metrics_samples)"
}

c=$(journal_mark)
echo
echo "== slurm-spank-ebpf demo: Debian $suite, Slurm $SLURM_VERSION, systemd $SYS_SYSTEMD as PID 1 =="
echo "   plugin line: $(plugin_line)"
echo
printf '%-12s  %-7s  %-34s %-7s %-9s %-6s %s\n' time elapsed step count active progs samples
line "no job"
a=$($demo_submit demo-a --ebpf) || bail "sbatch --ebpf failed"
line "sbatch --ebpf: job $a submitted"
wait_started demo-a || bail "job $a did not start"
line "job $a running"
b=$($demo_submit demo-b --ebpf) || bail "sbatch --ebpf failed"
wait_started demo-b || bail "job $b did not start"
line "job $b running too"
if [ -n "$demo_real" ]; then
	echo
	echo "   a few of ebpf_exporter's metric lines while both jobs run (dd oflag=direct and syscalls):"
	metrics | grep -E '^ebpf_exporter_(enabled_configs|bio_latency_seconds_count|syscalls_total\{syscall="(read|write|openat)"\})' |
		head -n 8 | sed 's/^/     /'
	echo
fi
release demo-a
wait_job_done "$a" || bail "job $a did not finish"
line "job $a done, job $b running"
release demo-b
wait_job_done "$b" || bail "job $b did not finish"
line "job $b done"
echo
echo "count:   jobs in $STATE (the plugin's state file)"
echo "active:  systemctl is-active $SYS_UNIT"
echo "progs:   the exporter's eBPF programs ($SYS_PROG_KINDS) it holds, or, once it is gone, those still loaded"
echo "samples: the sum of $SYS_SAMPLES from http://127.0.0.1:$SYS_STANDIN_PORT/metrics"
echo
echo "systemd's journal for $SYS_UNIT: $(unit_starts_since "$c") start, $(unit_stops_since "$c") stop."
echo "The plugin's lines in the slurmd journal (journalctl -u slurmd):"
plugin_log_since "$c" | sed 's/^/  /'

# --- probe sets: what a user asks for and gets -------------------------------
# The probes package's io set (spank-io: the job's block I/O, filtered in
# the kernel), a job asking for it, its series labelled by its job ID,
# and its report as its user. This demo's Slurm tracks jobs without
# cgroups (proctrack/linuxproc: the container's cgroups), so the demo
# puts the job's payload into a job cgroup in Slurm's layout, as
# slurmstepd does with proctrack/cgroup.
if [ -n "$demo_real" ]; then
	# shellcheck source=jobmetrics.sh
	. "$top/tests/system/jobmetrics.sh"
	SYS_ADMIN_CMD=/usr/sbin/spank-ebpf
	_real_sets_file >"$NODE_ROOT$SYS_SETS_FILE"
	chmod 0644 "$NODE_ROOT$SYS_SETS_FILE"
	plugin_args mode=opt-in "sets=$SYS_SETS_FILE"
	sys_restart_slurmd || bail "slurmd did not restart with sets="
	echo
	echo "== probe sets: sbatch --ebpf=io, the job's own block I/O =="
	echo "   plugin line: $(plugin_line)"
	echo "   sets offered: $(ct "$SYS_ADMIN_CMD" check-config --sets "$SYS_SETS_FILE" 2>&1 | sed -n 's/.*probe sets: \([^;]*\).*/\1/p')"
	j=$(submit_work demo-io --ebpf=io) || bail "sbatch --ebpf=io failed"
	wait_started demo-io || bail "job $j did not start"
	jm_place "$j" demo-io || bail "could not place job $j's payload in its job cgroup"
	demo_series() { ct curl -s http://127.0.0.1:941/metrics | grep "jobid=\"$j\"" | grep -E '_count|_bytes_total'; }
	demo_has() { [ -n "$(demo_series)" ]; }
	wait_until 30 "job $j's writes counted" demo_has || diag "no series of job $j yet"
	sleep 2
	echo "   sbatch --ebpf=io: job $j, $(job_state "$j"); the io set's exporter (127.0.0.1:941), its series, by jobid:"
	demo_series | sed 's/^/     /'
	echo "   spank-ebpf report $j, as $SYS_USER (through root's report service):"
	ctu "$SYS_ADMIN_CMD" report "$j" 2>&1 | sed 's/^/     /'
	release demo-io
	wait_job_done "$j" || bail "job $j did not finish"
	echo "   after the job: io set $(settled_unit_state spank-ebpf-exporter@io.service)"
	jm_unplace
fi
echo
diag "done in $(sys_elapsed) s; tearing the container down"
failed=0
exit 0
