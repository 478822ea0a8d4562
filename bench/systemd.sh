#!/bin/bash
# Part 5 of the benchmarks: what the first and the last job on a node pay
# for the real transition, `systemctl start`/`stop` on real systemd, as
# the plugin's prolog and epilog see it. Boots the system tests' container
# (tests/lib/system.sh: a Debian root with systemd as PID 1, Slurm, the
# plugin's Debian packages built from this tree and installed), then runs
# CYCLES single `sbatch --ebpf` jobs one after the other, so each one
# starts and stops the unit, for two units:
#   standin  the system tests' ebpf_exporter.service stand-in: bpftrace
#            loading real eBPF programs, ready once they count and the
#            metrics endpoint answers (as the real exporter's unit waits
#            for it to be ready)
#   floor    a unit that runs `sleep infinity`: what systemd and systemctl
#            cost by themselves
# The figures are the plugin's own log lines ("ebpf_exporter started in N
# ms"), measured around the systemctl call.
# Usage (root, from the top of a configured tree):
#   bench/systemd.sh SUITE [CYCLES]    SUITE: bookworm | trixie | sid
# Then, for a SUITE in BENCH_PACE_SUITES (default bookworm), part 6
# (bench/pace.sh) in the same container: with the stand-in, then with
# cloudflare's ebpf_exporter.
# Appends "systemd-SUITE-UNIT start_ms=N stop_ms=N" per cycle and one
# "systemd-SUITE-versions ..." line to $BENCH_OUT.
set -u
suite=$1
cycles=${2:-20}
top=$(cd "$(dirname "$0")/.." && pwd)
export srcdir=${srcdir:-$top} top_builddir=${top_builddir:-$(pwd)}
out=${BENCH_OUT:-/dev/null}
# Part 6 (bench/pace.sh) reads the plugin's verbose lines. From 24.11 the
# plugin's lines reach the journal through syslog only
# (tests/system/trixie.sh says why).
export SYSTEM_SLURMD_DEBUG=verbose
[ "$suite" = bookworm ] || export SYSTEM_SLURMD_SYSLOG_DEBUG=verbose
. "$srcdir/tests/lib/tap.sh"
. "$srcdir/tests/lib/system.sh"
. "$srcdir/tests/system/real.sh"

sys_setup "$suite"
sys_cache
sys_tarball
sys_boot
sys_install
sys_cluster_start
echo "systemd-$suite-versions slurm=$SLURM_VERSION systemd=$(ct dpkg-query -W -f='${Version}' systemd)" >>"$out"

cat >"$NODE_ROOT/etc/systemd/system/bench-floor.service" <<'EOT'
[Unit]
Description=slurm-spank-ebpf benchmark: the cheapest unit systemd can start

[Service]
Type=simple
ExecStart=/bin/sleep infinity
EOT
ct systemctl daemon-reload

# cycles NAME UNIT: CYCLES jobs, one at a time, through the plugin.
cycles() {
	local name=$1 unit=$2 i c j log start stop
	plugin_args "unit=$unit"
	sys_restart_slurmd || bail "slurmd did not come back with unit=$unit"
	for i in $(seq "$cycles"); do
		c=$(journal_mark)
		release "b$name$i" # the payload ends as soon as it starts
		j=$(submit_payload "b$name$i" --ebpf) || bail "sbatch --ebpf failed"
		wait_job_done "$j" 120 || bail "job $j did not finish"
		log=$(plugin_log_since "$c")
		start=$(echo "$log" | sed -n 's/.* started in \([0-9]*\) ms$/\1/p')
		stop=$(echo "$log" | sed -n 's/.* stopped in \([0-9]*\) ms$/\1/p')
		if [ -z "$start" ] || [ -z "$stop" ]; then
			show "$log"
			bail "job $j: no started/stopped line from the plugin"
		fi
		diag "$name cycle $i: job $j: start $start ms, stop $stop ms"
		echo "systemd-$suite-$name start_ms=$start stop_ms=$stop" >>"$out"
	done
}

cycles standin "$SYS_UNIT"
cycles floor bench-floor.service
plugin_args "unit=$SYS_UNIT"
# Part 6 in the same container, for the releases in BENCH_PACE_SUITES.
# Then the same streams and first jobs with cloudflare's ebpf_exporter
# (tests/exporter/build.sh's cached build, run by the example unit the
# packages ship: tests/system/real.sh), when it is built.
case " ${BENCH_PACE_SUITES-bookworm} " in
*" $suite "*)
	. "$srcdir/bench/pace.sh"
	pace_all
	if [ -x "$SYS_EXPORTER_DIR/bin/ebpf_exporter" ]; then
		real_setup
		PACE_LABEL=$suite-real PACE_PARTS="stream first" PACE_BASELINES=no pace_all
	else
		echo "pace-$suite-real-missing dir=$SYS_EXPORTER_DIR" >>"$out"
	fi
	;;
esac
plugin_args
failed=0
sys_teardown
