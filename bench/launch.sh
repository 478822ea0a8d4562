#!/bin/bash
# Part 7 of the benchmarks: a burst of LAUNCH_TASKS (512) tasks on one
# node, all submitted at once. Do launches get lost, and does this plugin
# lose more of them, or start them later, than no plugin or the null one?
# Boots the system tests' container (tests/lib/system.sh) with its one
# node declared with 128 CPUs (SlurmdParameters=config_overrides: the host
# has fewer), OverSubscribe=FORCE:4 so that every task fits at once, and
# FirstJobId=10000000. Each run submits
#   sbatch --array=1-LAUNCH_TASKS [--ebpf] --wrap 'touch MARK; sleep 300'
# with no SPANK plugin, the null plugin (bench/spank_null.c) or this one
# (mode=opt-in, start=wait, the stand-in exporter; variants below),
# alternated,
# LAUNCH_ROUNDS (3) times each. A run ends once every task has run its
# script (its mark) or after LAUNCH_DEADLINE (900) s; then the array is
# cancelled and the node left idle. Appends one line per run to $BENCH_OUT:
#   launch-SUITE-MODE run=R tasks=N ran=N all_run_s=S lost=N requeued=N
#     held=N load_max=L
#     [wait_p50=.. wait_p99=.. wait_max=.. held_p50=.. held_p99=.. held_max=..
#      prolog_p50=.. prolog_p99=.. prolog_max=.. prologs=N]
#     rpc_last=.. rpc_lost_min=.. rpc_lost_p50=.. rpc_lost_max=..
#     rpc_kept_p50=.. rpc_kept_p99=.. slurmd_errors=N
# lost: tasks slurmctld requeued as "missing from batch node" (their
# batch step not reported in time); requeued: tasks requeued for any
# reason; held: tasks left "launch failed requeued held" (all_run_s is
# then "never", and the run ends once the others ran); wait/held_*: this
# plugin's state lock, and prolog: its whole prolog, from its "prolog job
# N: done in X ms (state lock: waited W ms, held H ms)"; rpc_*: when
# tasks' first batch launch requests reached slurmd, s after the run's
# first (launch_rpcs); slurmd_errors: slurmd's error lines during the
# run (the commonest are printed, numbers folded).
# LAUNCH_MODES picks among none, null, plugin, plugin_bg (this plugin
# with start=background: no prolog waits for the exporter's start, which
# the burst's other prologs do with start=wait, on the state lock) and
# plugin_noexp (systemctl=/bin/true: no exporter, but every prolog asks
# whether it runs, an exec under the lock), plugin_idle (a unit that only
# sleeps: the plugin's prologs, state and lock without an exporter
# starting or probing), plugin_noask (loaded, mode=opt-in, but the
# tasks do not ask: the plugin in every slurmstepd and prolog without its
# hold) and plugin_real (the real
# exporter, whose start is about 0.4 s against the stand-in's 2, and
# whose syscalls config runs on every system call). By default none,
# null, plugin and plugin_idle: the issue's three and the control that
# leaves the exporter out; the others by hand (each adds about 15
# minutes per 3 rounds). LAUNCH_BATCH_START_TIMEOUT
# sets slurm.conf's BatchStartTimeout (Slurm's default: 10 s) and
# LAUNCH_MESSAGE_TIMEOUT its MessageTimeout (default 10 s); the lines then
# read launch-SUITE-bstN-mtN-MODE.
# Usage (root, from the top of a configured tree, after make check):
#   bench/launch.sh [SUITE]    SUITE: bookworm (default; the null plugin
#                              is built on this host, for its release)
set -u
suite=${1:-bookworm}
top=$(cd "$(dirname "$0")/.." && pwd)
export srcdir=${srcdir:-$top} top_builddir=${top_builddir:-$(pwd)}
out=${BENCH_OUT:-/dev/null}
tasks=${LAUNCH_TASKS:-512}
rounds=${LAUNCH_ROUNDS:-3}
deadline=${LAUNCH_DEADLINE:-900}
modes=${LAUNCH_MODES:-none null plugin plugin_idle}
bst=${LAUNCH_BATCH_START_TIMEOUT:-}
mto=${LAUNCH_MESSAGE_TIMEOUT:-}
label=$suite${bst:+-bst$bst}${mto:+-mt$mto}
export SYSTEM_SLURMD_DEBUG=verbose
[ "$suite" = bookworm ] || export SYSTEM_SLURMD_SYSLOG_DEBUG=verbose
. "$srcdir/tests/lib/tap.sh"
. "$srcdir/tests/lib/system.sh"
. "$srcdir/bench/pace.sh"
. "$srcdir/tests/system/real.sh"

export SYS_HW="CPUs=128"
# slurmd's own lines in a file: Slurm 22.05's slurmd drops most of them
# on its way to the journal (see src/spank/spank_ebpf.c), and they say why
# a launch failed. The job prologs' processes log there too.
LAUNCH_SLURMD_LOG=/var/log/slurm/slurmd-launch.log
export SYS_CONF_EXTRA="FirstJobId=10000000
SlurmdLogFile=$LAUNCH_SLURMD_LOG
SlurmdParameters=config_overrides${bst:+
BatchStartTimeout=$bst}${mto:+
MessageTimeout=$mto}"
sys_setup "$suite"
SYS_CONF_NODES="NodeName=$SYS_MACHINE NodeAddr=127.0.0.1 CPUs=128 State=UNKNOWN
PartitionName=main Nodes=$SYS_MACHINE Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4"
export SYS_CONF_NODES
sys_cache
sys_tarball
sys_boot
sys_install
sys_cluster_start
echo "launch-$label-config tasks=$tasks rounds=$rounds deadline=$deadline cpus=$(nproc) slurm=$SLURM_VERSION batch_start_timeout=${bst:-default} message_timeout=${mto:-default}" >>"$out"

# Tasks slurmctld holds after a failed launch ("launch failed requeued
# held": slurmd confirmed the launch request after MessageTimeout). They
# never run unless an admin releases them.
launch_held() {
	ct squeue -h -r -t PD -o %r 2>/dev/null | grep -c 'launch failed requeued held'
}

# Distinct tasks whose script ran (a requeued task marks the same file).
launch_marks() {
	ls "$NODE_ROOT$JOB_MARKS" | grep -c '^launch-'
}

# The slurmd log's size now, and its lines after a given size.
launch_log_mark() {
	stat -c %s "$NODE_ROOT$LAUNCH_SLURMD_LOG" 2>/dev/null || echo 0
}
launch_log_since() {
	tail -c +$(($1 + 1)) "$NODE_ROOT$LAUNCH_SLURMD_LOG" 2>/dev/null
}

# slurmd's errors in a run, job and step IDs, times and PIDs folded so
# that the same failure of many tasks is one line: "COUNT MESSAGE".
launch_errors() {
	grep -E '(^|\] )error: ' | sed -E 's/^\[[^]]*\] //; s/[0-9]+/N/g' | sort | uniq -c | sort -rn
}

# launch_rpcs: from slurmd's lines of one run (stdin), when each task's
# first batch launch request reached slurmd, in seconds after the run's
# first one: the last task's, and those of the tasks slurmctld requeued
# (their batch step logs "CANCELLED ... DUE TO JOB REQUEUE") and of the
# others. Prints "rpc_last=.. rpc_lost_min=.. ... rpc_kept_p99=..".
launch_rpcs() {
	awk 'function secs(s,   d, h, m, x) {
		d = substr(s, 9, 2); h = substr(s, 12, 2); m = substr(s, 15, 2); x = substr(s, 18)
		return ((d * 24 + h) * 60 + m) * 60 + x
	}
	function pct(a, n, p,   i, j, x, r) {
		if (n == 0) return "n/a"
		for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
		r = int((p * n + 99) / 100); if (r < 1) r = 1
		return sprintf("%.1f", a[r])
	}
	match($0, /\[[0-9][0-9][0-9][0-9]-[0-9-]*T[0-9:.]*\]/) {
		t = secs(substr($0, RSTART + 1, RLENGTH - 2))
		if (match($0, /Launching batch job [0-9]+/)) {
			j = substr($0, RSTART + 20, RLENGTH - 20)
			if (!(j in first)) { first[j] = t; if (t0 == "" || t < t0) t0 = t }
		} else if (index($0, "DUE TO JOB REQUEUE") && match($0, /\[[0-9]+\.batch\]/)) {
			lost[substr($0, RSTART + 1, RLENGTH - 8)] = 1
		}
	}
	END {
		for (j in first) {
			if (first[j] - t0 > last) last = first[j] - t0
			if (j in lost) l[++nl] = first[j] - t0
			else k[++nk] = first[j] - t0
		}
		printf "rpc_last=%.1f rpc_lost_min=%s rpc_lost_p50=%s rpc_lost_max=%s rpc_kept_p50=%s rpc_kept_p99=%s",
			last, pct(l, nl, 0), pct(l, nl, 50), pct(l, nl, 100), pct(k, nk, 50), pct(k, nk, 99)
	}'
}

# launch_pcts NAME: "NAME_p50=.. NAME_p99=.. NAME_max=.." of the numbers
# on stdin (nearest rank).
launch_pcts() {
	sort -n | awk -v n="$1" '{ v[NR] = $1 }
		END {
			if (NR == 0) { printf "%s_p50=n/a %s_p99=n/a %s_max=n/a", n, n, n; exit }
			r50 = int((50 * NR + 99) / 100); r99 = int((99 * NR + 99) / 100)
			printf "%s_p50=%s %s_p99=%s %s_max=%s", n, v[r50], n, v[r99], n, v[NR] }'
}

# launch_run MODE ROUND: one burst with MODE (none, null, plugin,
# plugin_bg: this plugin with start=background; plugin_noexp: start=wait
# with systemctl=/bin/true (no unit, so every prolog asks "systemctl"
# whether it runs); plugin_idle: start=wait with a unit that only sleeps,
# the plugin's own work without an exporter's;
# plugin_noask: loaded, tasks without --ebpf;
# plugin_real: start=wait with cloudflare's ebpf_exporter under the
# packages' example unit, as tests/system/real.sh installs it, instead of
# the stand-in).
launch_run() {
	local mode=$1 r=$2 c j opt= t0 now ran=0 load load_max=0 all=timeout lost lines locks logpos errs rpcs requeued held
	case $mode in
	none | null) _pace_plugin "$mode" ;;
	plugin) _pace_plugin mode=opt-in start=wait linger=0 && opt=--ebpf ;;
	plugin_bg) _pace_plugin mode=opt-in start=background linger=0 && opt=--ebpf ;;
	plugin_noexp) _pace_plugin mode=opt-in start=wait linger=0 systemctl=/bin/true && opt=--ebpf ;;
	# Loaded, but no task asks: its prologs return at once, its
	# epilogs look at the state without the lock.
	plugin_noask) _pace_plugin mode=opt-in start=wait linger=0 ;;
	plugin_idle)
		# The unit runs a process that does nothing: systemd starts it
		# at once, and there is a cgroup for the plugin to find.
		printf '[Unit]\nDescription=idle stand-in for bench/launch.sh\n[Service]\nExecStart=/bin/sleep infinity\n' \
			>"$NODE_ROOT/etc/systemd/system/$SYS_UNIT"
		ct systemctl daemon-reload
		_pace_plugin mode=opt-in start=wait linger=0 && opt=--ebpf
		;;
	plugin_real)
		_real_have || bail "no cached ebpf_exporter (tests/exporter/build.sh)"
		real_setup
		_pace_plugin mode=opt-in start=wait linger=0 && opt=--ebpf
		;;
	esac
	rm -f "$NODE_ROOT$JOB_MARKS"/launch-*
	c=$(journal_mark)
	logpos=$(launch_log_mark)
	t0=$(date +%s.%N)
	j=$(_pace_array launch "1-$tasks" "touch $JOB_MARKS/launch-\$SLURM_ARRAY_TASK_ID; sleep 300" $opt)
	while :; do
		ran=$(launch_marks)
		load=$(cut -d' ' -f1 /proc/loadavg)
		load_max=$(awk -v a="$load" -v b="$load_max" 'BEGIN { print (a > b ? a : b) }')
		now=$(date +%s.%N)
		if [ "$ran" -ge "$tasks" ]; then
			all=$(awk -v a="$now" -v b="$t0" 'BEGIN { printf "%.1f", a - b }')
			break
		fi
		# The rest held: they will not run by themselves.
		held=$(launch_held)
		if [ "$held" -gt 0 ] && [ $((ran + held)) -ge "$tasks" ]; then
			all=never
			break
		fi
		awk -v a="$now" -v b="$t0" -v d="$deadline" 'BEGIN { exit !(a - b > d) }' && break
		sleep 2
	done
	lines=$(slurmctld_log_since "$c")
	lost=$(printf '%s\n' "$lines" | grep 'missing from batch node' | grep -o 'JobId=[0-9_]*' | sort -u | grep -c .)
	requeued=$(printf '%s\n' "$lines" | grep 'Requeuing JobId=' | grep -o 'JobId=[0-9_]*' | sort -u | grep -c .)
	held=$(launch_held)
	locks=
	if [ "$mode" != none ] && [ "$mode" != null ]; then
		lines=$(launch_log_since "$logpos" | sed -n 's/.*prolog job [0-9]*: done in \([0-9.]*\) ms (state lock: waited \([0-9.]*\) ms, held \([0-9.]*\) ms).*/\1 \2 \3/p')
		locks=" $(printf '%s\n' "$lines" | awk 'NF { print $2 }' | launch_pcts wait) $(printf '%s\n' "$lines" | awk 'NF { print $3 }' | launch_pcts held) $(printf '%s\n' "$lines" | awk 'NF { print $1 }' | launch_pcts prolog) prologs=$(printf '%s\n' "$lines" | grep -c .)"
	fi
	errs=$(launch_log_since "$logpos" | launch_errors)
	rpcs=$(launch_log_since "$logpos" | launch_rpcs)
	diag "launch $mode, run $r: array $j: $ran of $tasks ran, all after ${all} s, $lost lost, $requeued requeued, $held held, load max $load_max$locks $rpcs"
	printf '%s\n' "$errs" | grep . | head -n 8 | sed 's/^/  slurmd: /' | while IFS= read -r l; do diag "$l"; done
	echo "launch-$label-$mode run=$r tasks=$tasks ran=$ran all_run_s=$all lost=$lost requeued=$requeued held=$held load_max=$load_max$locks $rpcs slurmd_errors=$(printf '%s\n' "$errs" | awk '{ n += $1 } END { print n + 0 }')" >>"$out"
	ct scancel "$j" >/dev/null 2>&1
	wait_until 900 "the burst's $tasks tasks gone, epilogs included" job_gone "$j" ||
		bail "array $j did not end"
	wait_until 120 "an idle node" unit_stopped || bail "the exporter did not stop"
	wait_until 120 "node $NODE idle" node_usable || bail "the node did not come back"
	if [ "$mode" = plugin_real ] || [ "$mode" = plugin_idle ]; then
		# The stand-in back, for the other variants.
		install -m 0644 "$SYS_FILES/ebpf_exporter.service" "$NODE_ROOT/etc/systemd/system/$SYS_UNIT"
		ct systemctl daemon-reload
	fi
}

for r in $(seq "$rounds"); do
	for m in $modes; do
		launch_run "$m" "$r"
	done
done
_pace_plugin mode=opt-in
failed=0
sys_teardown
