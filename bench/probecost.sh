#!/bin/bash
# Part 8 of the benchmarks: what each shipped probe set costs the workload
# it observes (issues 21, 32). Boots the system tests' bookworm container
# (tests/lib/system.sh) with the packages, the real ebpf_exporter and the
# probes package, the sets io, sched, sched-detail and net declared. For
# each set and each of its workloads, each round runs the workload
# (bench/probe_load) five times, in a cgroup made by this script in
# Slurm's layout
# (system.slice/slurmstepd.scope/job_<id>/step_batch/user/task_0):
#   off    no job holds the set: its instance is stopped, nothing probes
#          (run before the job and after it; the mean of the two);
#   on     a job (sbatch --ebpf=SET --wrap 'exec sleep 3600', its ID in
#          the cgroup's name) holds it: the instance runs, the job
#          admitted to its filter;
#   floor  no job; a bare ebpf_exporter loads bench/probe_floor.bpf.c,
#          programs that return at once at the set's hooks: what calling
#          any program there costs on this kernel and machine;
#   stats  the same as "on" with kernel.bpf_stats_enabled=1 (kernel-global, on
#          for this run only): the run time and run count of the BPF
#          programs held by the instance's process (/proc/PID/fdinfo),
#          before and after, and the wall time between the two readings.
# Workloads: io "read", 4 KiB O_DIRECT reads (PROBECOST_READS, 20000);
# sched and sched-detail "pipe", one-byte pipe round trips on one CPU
# (PROBECOST_SWITCHES, 200000), and "pingpong", 8-byte round trips
# between two processes each on its own CPU (PROBECOST_PINGPONGS,
# 100000); net "tcp", loopback TCP connections (PROBECOST_CONNS, 5000).
# Appends per set, workload and round:
#   probecost-SET-WORKLOAD run=R off_ns=.. on_ns=.. floor_ns=.. events=.. run_ns=.. wall_ns=.. ops=..
# (off_ns, on_ns, floor_ns: ns per operation; events, run_ns: the
# programs' runs and their total time during the stats run; wall_ns: the
# wall time over which they were counted).
# Usage (root, from the top of a configured tree, after make check):
#   bench/probecost.sh        PROBECOST_ROUNDS (5), PROBECOST_SETS
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
export srcdir=${srcdir:-$top} top_builddir=${top_builddir:-$(pwd)}
out=${BENCH_OUT:-/dev/null}
rounds=${PROBECOST_ROUNDS:-5}
sets=${PROBECOST_SETS:-io sched sched-detail net}
. "$srcdir/tests/lib/tap.sh"
. "$srcdir/tests/lib/system.sh"
. "$srcdir/bench/pace.sh"
. "$srcdir/tests/system/real.sh"
. "$srcdir/tests/system/jobmetrics.sh"

for s in $sets; do
	case $s in
	io | sched | sched-detail | net) ;;
	*) bail "no such set here: $s (io, sched, sched-detail, net)" ;;
	esac
done
load=$top_builddir/bench/probe_load
[ -x "$load" ] || bail "no bench/probe_load (make check builds it)"
stats_was=$(cat /proc/sys/kernel/bpf_stats_enabled) || bail "no kernel.bpf_stats_enabled"
PC_FILE=/var/tmp/probecost.dat
PC_IDLE_JOB=4000000000 # a name no job has: the "off" runs' cgroup

sys_setup bookworm
# The statistics back as they were, then the container's own exit trap.
trap 'pc_st=$?; sysctl -qw kernel.bpf_stats_enabled="$stats_was"; (exit $pc_st); _sys_on_exit' EXIT
sys_cache
sys_tarball
sys_boot
sys_install
sys_cluster_start
_real_have || bail "no cached ebpf_exporter (tests/exporter/build.sh)"
real_setup
install -m 0755 "$load" "$NODE_ROOT/usr/local/bin/sse-probe-load"
# The system tests' io, sched and sched-detail sets (tests/system/real.sh),
# and net.
{
	_real_sets_file
	cat <<EOT

[net]
description = TCP retransmits and connections of the job
configs = spank-net
listen = 127.0.0.1:943
linger = 0
EOT
} >"$NODE_ROOT$SYS_SETS_FILE"
chmod 0644 "$NODE_ROOT$SYS_SETS_FILE"
_pace_plugin mode=opt-in start=wait "sets=$SYS_SETS_FILE"
# The reconcile timer would start or stop nothing here, but it runs work
# of its own between the runs: stopped, as in the system tests.
ct systemctl stop spank-ebpf-reconcile.timer
ct dd if=/dev/urandom of="$PC_FILE" bs=1M count=64 status=none || bail "cannot write $PC_FILE"
# The floor's objects, one per set, built here as verify.sh builds the
# probes (the container has no clang).
PC_FLOOR=/var/tmp/pc-floor
PC_FLOOR_PORT=9499
pc_multiarch=$(gcc -print-multiarch 2>/dev/null || true)
for s in $sets; do
	mkdir -p "$NODE_ROOT$PC_FLOOR/$s" || bail "cannot make $PC_FLOOR/$s"
	# sched-detail: FLOOR_SCHED_DETAIL.
	${BPF_CLANG:-clang} -target bpf -O2 -g -Wall -Werror -DFLOOR_$(echo "$s" | tr a-z- A-Z_) \
		${pc_multiarch:+-idirafter /usr/include/$pc_multiarch} \
		-c "$srcdir/bench/probe_floor.bpf.c" -o "$NODE_ROOT$PC_FLOOR/$s/spank-floor.bpf.o" ||
		bail "cannot build the floor for $s"
	cp "$srcdir/bench/probe_floor.yaml" "$NODE_ROOT$PC_FLOOR/$s/spank-floor.yaml"
done
echo "probecost-config rounds=$rounds cpus=$(nproc) kernel=$(uname -r) slurm=$SLURM_VERSION exporter=$("$SYS_EXPORTER_DIR/bin/ebpf_exporter" --version 2>&1 | grep -m 1 -o 'version [^ ]*' | tr ' ' '_')" >>"$out"

# pc_workloads SET: the workloads SET is measured on.
pc_workloads() {
	case $1 in
	io) echo read ;;
	sched | sched-detail) echo pipe pingpong ;;
	net) echo tcp ;;
	*) bail "no workload for the set $1" ;;
	esac
}

# pc_args WORKLOAD: the workload's arguments.
pc_args() {
	case $1 in
	read) echo "read $PC_FILE ${PROBECOST_READS:-20000}" ;;
	pipe) echo "pipe ${PROBECOST_SWITCHES:-200000}" ;;
	pingpong) echo "pingpong ${PROBECOST_PINGPONGS:-100000}" ;;
	tcp) echo "tcp ${PROBECOST_CONNS:-5000}" ;;
	esac
}

# pc_run JOB WORKLOAD: the workload in job JOB's cgroup (made here,
# removed after); prints its ns per operation.
pc_run() {
	local d
	d=$(_jm_cgroup2)/system.slice/slurmstepd.scope/job_$1/step_batch/user/task_0
	# shellcheck disable=SC2046 # the workload's arguments, split
	ct sh -c 'mkdir -p "$1" && echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$d" \
		/usr/local/bin/sse-probe-load $(pc_args "$2") | sed -n 's/^ns_per_op=\([0-9.]*\) .*/\1/p'
	jm_unplace
}

# pc_progs UNIT: "RUN_NS RUNS" of the BPF programs the unit's process holds.
# The floor's exporter answers on its port: it attached every program.
pc_floor_up() {
	ct bash -c "exec 3<>/dev/tcp/127.0.0.1/$PC_FLOOR_PORT" 2>/dev/null
}

# pc_floor SET WORKLOAD: the workload under the floor of SET, in the
# job-less cgroup.
pc_floor() {
	local ns
	ct systemd-run --quiet --collect --unit=pc-floor --setenv=OTEL_TRACES_EXPORTER=none \
		"$SYS_EXPORTER_PATH" --config.strict \
		--config.dir="$PC_FLOOR/$1" --config.names=spank-floor \
		--web.listen-address=127.0.0.1:$PC_FLOOR_PORT >/dev/null 2>&1 ||
		bail "cannot start the floor's exporter for $1"
	wait_until 60 "the floor's exporter for $1" pc_floor_up || bail "the floor's exporter for $1 did not come up"
	ns=$(pc_run "$PC_IDLE_JOB" "$2")
	ct systemctl stop pc-floor >/dev/null 2>&1
	echo "$ns"
}

pc_running() {
	[ "$(ct squeue -h -j "$1" -o %T 2>/dev/null)" = RUNNING ]
}

pc_progs() {
	ct sh -c 'cat /proc/"$1"/fdinfo/* 2>/dev/null' sh "$(unit_main_pid "$1")" |
		awk '/^run_time_ns:/ { t += $2 } /^run_cnt:/ { c += $2 } END { printf "%d %d\n", t, c }'
}

# pc_now: the host's clock, ns.
pc_now() {
	date +%s%N
}

# pc_round SET WORKLOAD ROUND
pc_round() {
	local set=$1 w=$2 r=$3 unit=spank-ebpf-exporter@$1.service off off2 on floor j a b ops t0 t1 t2 t3
	ops=$(pc_args "$w")
	ops=${ops##* }
	# "off" before the job and after it, the baseline their mean: what
	# one run leaves behind (TIME_WAIT sockets, the page cache, a warm
	# CPU) does not favour one side, and a drift of the machine cancels.
	off=$(pc_run "$PC_IDLE_JOB" "$w")
	floor=$(pc_floor "$set" "$w")
	# A job that only sleeps: the system tests' payload polls for its
	# gate five times a second, which the workload would pay for.
	j=$(submit -J "pc-$set-$w-$r" -o /dev/null "--ebpf=$set" --wrap "exec sleep 3600") ||
		bail "sbatch --ebpf=$set refused"
	wait_until 120 "job $j running" pc_running "$j" || bail "job $j did not start"
	[ "$(settled_unit_state "$unit")" = active ] || bail "$unit not active under job $j"
	on=$(pc_run "$j" "$w")
	sysctl -qw kernel.bpf_stats_enabled=1
	# The wall time between the two readings, each taken at the middle
	# of its call: what the programs' time is per second of (spank-sched
	# runs at a fixed rate on every CPU, whatever the workload does).
	t0=$(pc_now)
	a=$(pc_progs "$unit")
	t1=$(pc_now)
	pc_run "$j" "$w" >/dev/null
	t2=$(pc_now)
	b=$(pc_progs "$unit")
	t3=$(pc_now)
	sysctl -qw kernel.bpf_stats_enabled="$stats_was"
	ct scancel "$j"
	wait_job_done "$j" || bail "job $j did not end"
	[ "$(settled_unit_state "$unit")" != active ] || bail "$unit still active after job $j"
	off2=$(pc_run "$PC_IDLE_JOB" "$w")
	[ -n "$off" ] && [ -n "$off2" ] && [ -n "$on" ] && [ -n "$floor" ] ||
		bail "$set $w: a workload run failed (off '$off' '$off2', on '$on', floor '$floor')"
	# The baseline: the mean of the runs just before and just after, so
	# that a drift of the machine's speed over the round cancels.
	off=$(awk -v a="$off" -v b="$off2" 'BEGIN { printf "%.1f", (a + b) / 2 }')
	diag "probecost $set $w, round $r: off $off ns/op (mean of before and after), on $on ns/op, floor $floor ns/op; programs: $a -> $b"
	echo "probecost-$set-$w run=$r off_ns=$off on_ns=$on floor_ns=$floor events=$((${b#* } - ${a#* })) run_ns=$((${b% *} - ${a% *})) wall_ns=$(((t2 + t3) / 2 - (t0 + t1) / 2)) ops=$ops" >>"$out"
}

for r in $(seq "$rounds"); do
	for s in $sets; do
		for w in $(pc_workloads "$s"); do
			pc_round "$s" "$w" "$r"
		done
	done
done
ct rm -f "$PC_FILE"
_pace_plugin mode=opt-in
failed=0
sys_teardown
