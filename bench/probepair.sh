#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Part 8's paired figure: what one probe config costs a workload, with the
# set's own switch on and off many times in a row on this host, so that a
# drift of the machine's speed cancels pair by pair (bench/probecost.sh
# measures each set once per round, through Slurm, in a container: its
# rounds spread more than a 1% cost on a paravirtualised guest).
#
# Per pair, in turn (the order flips each pair): "on", the real
# ebpf_exporter running CONFIG (built by probes/tests/verify.sh's rules,
# from probes/), the workload's cgroup admitted to its filter as job 42
# (Slurm's layout, made here, as verify.sh does); "off", no exporter at
# all. The workload is bench/probe_load (its own ns per operation, the
# exporter's start and stop outside the timing). Prints per pair
#   probepair-CONFIG-WORKLOAD pair=N off_ns=.. on_ns=.. job_series=..
# (job_series: the exporter's series of job 42 after the "on" run: the
# workload was observed)
# and a summary line: the median of the pairs' on/off ratios, and their
# quartiles.
#
# Usage (root, from the top of a built tree; EXPORTER as verify.sh):
#   bench/probepair.sh CONFIG WORKLOAD [PAIRS]   e.g. spank-sched pingpong 15
# CONFIG: one of probes/ (spank-io...), or a floor of the fs set's:
# floor-fs and floor-fs-nfs, bench/probe_floor.bpf.c with -DFLOOR_FS or
# -DFLOOR_FS_NFS (programs that return at once at spank-fs's or
# spank-fs-nfs's hooks: a config's figure less its floor's is its
# programs' own cost), or floor-idle (-DFLOOR_IDLE: the exporter running,
# its one program at a function no workload calls: the exporter's
# presence alone). bench/vm-probepair.sh runs the fs set's pairs
# under qemu. PROBEPAIR_CONFIG_DIR: CONFIG's object and YAML from there
# instead.
# WORKLOAD: pipe, pingpong, read (a 64 MiB file made here: O_DIRECT),
# tcp, or the fs set's: cread (4 KiB reads of a cached 64 MiB file made
# here), meta (create, stat, unlink) and write (1 MiB writes, then one
# fsync), both in PROBEPAIR_DIR (by default a directory of this run's).
# PROBEPAIR_TAG names the workload in the lines printed (meta-nfs...).
set -u -o pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
config=${1:?config}
workload=${2:?workload: pipe or pingpong}
pairs=${3:-15}
tag=${PROBEPAIR_TAG:-$workload}
EXPORTER=${EXPORTER:-/var/cache/slurm-spank-ebpf-tests/exporter/$(cat "$top/packaging/ebpf-exporter/VERSION")-r1/bin/ebpf_exporter}
load=$top/bench/probe_load
work=$(mktemp -d /var/tmp/probepair.XXXXXX)
if [ "$(stat -fc %T /sys/fs/cgroup/unified 2>/dev/null)" = cgroup2fs ]; then
	cg2=/sys/fs/cgroup/unified
else
	cg2=/sys/fs/cgroup
fi
cg=$cg2/probepair.$$/system.slice/slurmstepd.scope/job_42/step_batch/user/task_0
epid=""
cleanup() {
	[ -z "$epid" ] || { kill "$epid" 2>/dev/null; wait "$epid" 2>/dev/null; }
	find "$cg2/probepair.$$" -depth -type d -exec rmdir {} \; 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
[ -x "$load" ] || { echo "no $load (make check builds it)" >&2; exit 1; }
[ -x "$EXPORTER" ] || { echo "no ebpf_exporter at $EXPORTER" >&2; exit 1; }
# The workload's arguments (bench/probe_load's, as probecost.sh gives them).
case $workload in
pipe) args="pipe ${PROBEPAIR_SWITCHES:-200000}" ;;
pingpong) args="pingpong ${PROBEPAIR_PINGPONGS:-100000}" ;;
read)
	dd if=/dev/urandom of="$work/file" bs=1M count=64 status=none || exit 1
	args="read $work/file ${PROBEPAIR_READS:-20000}"
	;;
tcp) args="tcp ${PROBEPAIR_CONNS:-5000}" ;;
cread)
	dd if=/dev/urandom of="$work/file" bs=1M count=64 status=none || exit 1
	args="cread $work/file ${PROBEPAIR_READS:-20000}"
	;;
meta) args="meta ${PROBEPAIR_DIR:-$work} ${PROBEPAIR_FILES:-2000}" ;;
write) args="write ${PROBEPAIR_DIR:-$work}/probepair.$$ ${PROBEPAIR_WRITES:-64}" ;;
*) echo "workload: pipe, pingpong, read, tcp, cread, meta or write" >&2; exit 1 ;;
esac
ma=$(gcc -print-multiarch 2>/dev/null || true)
flags=""
src=$top/probes/$config.bpf.c yaml=$top/probes/$config.yaml
case $config in spank-sched | spank-fs | spank-fs-nfs) flags=-mcpu=v3 ;; esac # as probes/Makefile.inc
case $config in
floor-fs) src=$top/bench/probe_floor.bpf.c yaml=$top/bench/probe_floor.yaml flags=-DFLOOR_FS ;;
floor-fs-nfs) src=$top/bench/probe_floor.bpf.c yaml=$top/bench/probe_floor.yaml flags=-DFLOOR_FS_NFS ;;
floor-idle) src=$top/bench/probe_floor.bpf.c yaml=$top/bench/probe_floor.yaml flags=-DFLOOR_IDLE ;;
esac
if [ -n "${PROBEPAIR_CONFIG_DIR:-}" ]; then
	cp "$PROBEPAIR_CONFIG_DIR/$config.bpf.o" "$PROBEPAIR_CONFIG_DIR/$config.yaml" "$work/" || exit 1
else
	clang -target bpf -O2 -g -Wall -D__TARGET_ARCH_x86 ${ma:+-idirafter /usr/include/$ma} -I"$top/probes" $flags \
		-c "$src" -o "$work/$config.bpf.o" || exit 1
	cp "$yaml" "$work/$config.yaml"
fi
mkdir -p "$cg" || exit 1

# probepair_admit PID: job_42 in every spank_jobs map of PID, all bits,
# then the generation bumped (as the plugin does; verify.sh's way).
probepair_admit() {
	local fd id key val
	key=$({ printf job_42; head -c 58 /dev/zero; } | od -An -v -tx1 | tr -s ' \n' ' ')
	val=$(python3 -c 'import struct; print(" ".join("%02x" % b for b in struct.pack("<II", 42, 0xffffffff)))')
	for fd in /proc/"$1"/fd/*; do
		[ "$(readlink "$fd")" = anon_inode:bpf-map ] || continue
		id=$(awk '/^map_id:/ {print $2}' "/proc/$1/fdinfo/${fd##*/}")
		case $(bpftool map show id "$id" 2>/dev/null) in
		*" name spank_jobs "*) bpftool map update id "$id" key hex $key value hex $val || return 1 ;;
		*" name spank_jobs_gen "*) bpftool map update id "$id" key hex 00 00 00 00 value hex 01 00 00 00 00 00 00 00 || return 1 ;;
		esac
	done
}

# The exporter keeps its capabilities: run by root it has
# CAP_DAC_READ_SEARCH, so ebpf_exporter 2.5.1 watches /sys/fs/cgroup with
# fanotify, and after dropping them it exits at the next cgroup made on a
# pure cgroup2 tree ("Fanotify loop terminated", seen in a guest at the
# 7th pair). The units never give it that capability.
probepair_on() {
	local i port=19479
	env -u NOTIFY_SOCKET OTEL_TRACES_EXPORTER=none "$EXPORTER" --config.dir="$work" --config.names="$config" \
		--config.strict --capabilities.keep=all --web.listen-address=127.0.0.1:$port >"$work/exporter.log" 2>&1 &
	epid=$!
	# PROBEPAIR_WAIT: tenths of a second for its start (an emulated
	# guest attaches fentry programs slowly).
	for i in $(seq "${PROBEPAIR_WAIT:-100}"); do
		curl -fs "http://127.0.0.1:$port/metrics" >/dev/null 2>&1 && break
		kill -0 "$epid" 2>/dev/null || break # it refused the config
		sleep 0.1
	done
	curl -fs "http://127.0.0.1:$port/metrics" >/dev/null 2>&1 ||
		{ echo "probepair: the exporter did not answer (log: $work/exporter.log)" >&2; cat "$work/exporter.log" >&2; exit 1; }
	probepair_admit "$epid" || { cat "$work/exporter.log" >&2; exit 1; }
	probepair_settle "$epid"
}

# probepair_cpu PID: its CPU time so far, in clock ticks.
probepair_cpu() {
	awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null
}

# probepair_settle PID: waits (30 s at most) until the exporter used no
# CPU for half a second: after its start, the Go runtime's collection of
# what loading the BTF and the objects allocated is still running, and
# on the few CPUs of an emulated guest it would be timed as the config's
# cost.
probepair_settle() {
	local i a b
	a=$(probepair_cpu "$1")
	for i in $(seq 60); do
		sleep 0.5
		b=$(probepair_cpu "$1")
		[ "$a" != "$b" ] || return 0
		a=$b
	done
	echo "probepair: the exporter still busy after 30 s; timed anyway" >&2
}

# probepair_progs: the BPF programs loaded on this host.
probepair_progs() {
	bpftool prog list 2>/dev/null | grep -c '^[0-9]*:'
}

# probepair_gone: waits (30 s at most) until the programs of the exporter
# just stopped are freed (the kernel does so after it exited): the "off"
# run after an "on" must not time their teardown.
probepair_gone() {
	local i
	for i in $(seq 300); do
		[ "$(probepair_progs)" -gt "$progs_off" ] || return 0
		sleep 0.1
	done
	echo "probepair: $(($(probepair_progs) - progs_off)) programs still loaded 30 s after the exporter's exit" >&2
}

# probepair_seen: the exporter's series of job 42 (the workload was observed).
probepair_seen() {
	curl -fs "http://127.0.0.1:19479/metrics" | grep -c '^ebpf_exporter_spank_.*jobid="42"'
}

probepair_off() {
	kill "$epid" 2>/dev/null
	wait "$epid" 2>/dev/null
	epid=""
	probepair_gone
}

probepair_run() {
	# shellcheck disable=SC2086 # the workload's arguments, split
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cg" "$load" $args |
		sed -n 's/^ns_per_op=\([0-9.]*\) .*/\1/p'
}

progs_off=$(probepair_progs)
for p in $(seq "$pairs"); do
	if [ $((p % 2)) -eq 1 ]; then
		off=$(probepair_run)
		probepair_on
		on=$(probepair_run)
		seen=$(probepair_seen)
		probepair_off
	else
		probepair_on
		on=$(probepair_run)
		seen=$(probepair_seen)
		probepair_off
		off=$(probepair_run)
	fi
	echo "probepair-$config-$tag pair=$p off_ns=$off on_ns=$on job_series=$seen"
done | tee "$work/pairs"
awk -v c="$config" -v w="$tag" '
	{ for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] } r[++n] = f["on_ns"] / f["off_ns"] }
	END {
		if (n == 0) { printf "probepair-%s-%s pairs=0: no pair ran, no figure\n", c, w; exit 1 }
		for (i = 2; i <= n; i++) { x = r[i]; for (j = i - 1; j > 0 && r[j] > x; j--) r[j + 1] = r[j]; r[j + 1] = x }
		printf "probepair-%s-%s pairs=%d median %+.2f%% (quartiles %+.2f%% to %+.2f%%; min %+.2f%%, max %+.2f%%)\n", c, w, n,
			(r[int((n + 1) / 2)] - 1) * 100, (r[int((n + 3) / 4)] - 1) * 100, (r[int((3 * n + 1) / 4)] - 1) * 100,
			(r[1] - 1) * 100, (r[n] - 1) * 100 }' "$work/pairs"

# PROBEPAIR_STATS=1: one more "on" run, unpaired, with the kernel's
# bpf_stats on, for where the time goes: per program of the exporter its
# runs and ns per operation of the workload, and their sum, against the
# "off" ns per operation of the pairs (their median). bpf_stats adds two
# clock reads to each run, counted in these figures.
probepair_stats_snap() {
	local id
	# A program may have several descriptors (its link's too): once each.
	for id in $(cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '/^prog_id:/ {print $2}' | sort -un); do
		bpftool prog show id "$id" 2>/dev/null | head -n 1 |
			awk -v id="$id" '{ nm = "?"; t = 0; c = 0
				for (i = 1; i < NF; i++) { if ($i == "name") nm = $(i + 1); if ($i == "run_time_ns") t = $(i + 1); if ($i == "run_cnt") c = $(i + 1) }
				print id, nm, t, c }'
	done
}

if [ "${PROBEPAIR_STATS:-0}" = 1 ]; then
	probepair_on
	sysctl -qw kernel.bpf_stats_enabled=1
	probepair_stats_snap "$epid" >"$work/stats0"
	# shellcheck disable=SC2086 # the workload's arguments, split
	sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$cg" "$load" $args >"$work/stats-run"
	probepair_stats_snap "$epid" >"$work/stats1"
	sysctl -qw kernel.bpf_stats_enabled=0
	probepair_off
	ops=$(sed -n 's/.* ops=\([0-9]*\).*/\1/p' "$work/stats-run")
	offns=$(awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "off_ns") print kv[2] } }' "$work/pairs" |
		sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
	awk -v c="$config" -v w="$tag" -v ops="${ops:-0}" -v off="${offns:-0}" '
		FNR == NR { t0[$1] = $3; c0[$1] = $4; next }
		{ dt = $3 - t0[$1]; dc = $4 - c0[$1]; if (dc <= 0) next
		  T += dt; C += dc
		  printf "probepair-%s-%s stats prog=%s runs_per_op=%.2f ns_per_run=%.0f ns_per_op=%.0f\n", c, w, $2, dc / ops, dt / dc, dt / ops }
		END { if (ops <= 0 || C == 0) { printf "probepair-%s-%s stats: no program ran\n", c, w; exit }
		  printf "probepair-%s-%s stats total runs_per_op=%.2f ns_per_run=%.0f ns_per_op=%.0f off_ns_per_op=%.0f share=%.2f%%\n",
			c, w, C / ops, T / C, T / ops, off, (off > 0 ? 100 * T / ops / off : 0) }' "$work/stats0" "$work/stats1"
fi
