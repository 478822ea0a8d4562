#!/bin/sh
# Runs the benchmarks (not tests: they report figures, they pass or fail on
# nothing). Usage: bench/run.sh BUILDDIR [RUNS]
# Prints a Markdown report: machine, commands, raw figures per run,
# medians and spread (min-max).
set -eu
builddir=${1:-.}
runs=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
so=$builddir/src/.libs/spank_ebpf.so
hb=$builddir/bench/hook_bench
work=$(mktemp -d /dev/shm/spank-ebpf-bench.XXXXXX 2>/dev/null || mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
args="state=$work/state systemctl=/bin/true"
raw=$work/raw

echo "# Benchmark run"
echo
echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
echo "- machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
echo "- kernel: $(uname -r); state file on $(df -T "$work" | awk 'NR==2 {print $2}')"
echo "- plugin: $so ($(ls -l "$so" | awk '{print $5}') bytes); $runs runs each"
echo

# stat NAME FIELD: median and min-max of FIELD over the runs of NAME.
stat() {
	grep "^$1 " "$raw" | tr ' ' '\n' | sed -n "s/^$2=//p" | sort -n |
		awk '{v[NR]=$1} END {if (NR==0) {print "n/a"; exit}
			m = (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2;
			printf "%g (%g-%g)", m, v[1], v[NR]}'
}

: > "$raw"
for r in $(seq "$runs"); do
	"$hb" "$so" noopt 200000 $args >> "$raw"
	"$hb" "$so" join 20000 $args >> "$raw"
	"$hb" "$so" cycle 500 $args >> "$raw"
	"$hb" "shell:$here" noopt 300 $args | sed 's/^/shell-/' >> "$raw"
	"$hb" "shell:$here" join 300 $args | sed 's/^/shell-/' >> "$raw"
	"$hb" "shell:$here" cycle 100 $args | sed 's/^/shell-/' >> "$raw"
	for p in 1 2 8 32 64; do
		"$hb" "$so" contention $p 200 $args | sed "s/^contention/contention-$p/" >> "$raw"
		"$hb" "shell:$here" contention $p 20 $args | sed "s/^contention/shell-contention-$p/" >> "$raw"
	done
done

# 3. End to end on a real single-node Slurm (root, Slurm installed):
# BENCH_E2E_RUNS runs (default 3) of BENCH_E2E_JOBS jobs (default 200).
e2e_runs=${BENCH_E2E_RUNS:-3}
if [ "$(id -u)" -eq 0 ] && command -v slurmd >/dev/null 2>&1 && [ "$e2e_runs" -gt 0 ]; then
	for r in $(seq "$e2e_runs"); do
		for v in none noopt ebpf shell; do
			(cd "$builddir" && BENCH_OUT="$raw" SPANK_EBPF_SO="$so" \
				"$here/e2e.sh" "$v" "${BENCH_E2E_JOBS:-200}" > "$work/e2e-$v.log" 2>&1) ||
				echo "e2e-$v failed: see below" >&2
		done
	done
fi

# Syscalls per hook: strace -c over N calls, minus a run with 0 calls.
syscalls() { # MODE N
	strace -f -c -o "$work/st0" "$hb" "$so" "$1" 0 $args >/dev/null
	strace -f -c -o "$work/st1" "$hb" "$so" "$1" "$2" $args >/dev/null
	a=$(awk '/^100.00/ {print $4}' "$work/st0")
	b=$(awk '/^100.00/ {print $4}' "$work/st1")
	echo "$(( (b - a) / $2 ))"
}
sc_noopt=n/a sc_join=n/a sc_cycle=n/a
if command -v strace >/dev/null 2>&1; then
	sc_noopt=$(syscalls noopt 2000)
	sc_join=$(syscalls join 2000)
	sc_cycle=$(syscalls cycle 200)
	# The prolog alone for a job without --ebpf.
	strace -f -o "$work/trace" "$hb" "$so" noopt 1000 $args >/dev/null
fi

cat <<EOT
## 1. Per-hook cost in process (ns per call, median (min-max) of $runs runs)

| case | prolog | epilog | syscalls per prolog+epilog pair |
|---|---|---|---|
| (a) job without --ebpf, opt-in | $(stat noopt prolog_ns) | $(stat noopt epilog_ns) | $sc_noopt |
| (b) opted-in job joining a busy set | $(stat join prolog_ns) | $(stat join epilog_ns) | $sc_join |
| (c) idle -> busy -> idle, no-op systemctl | $(stat cycle prolog_ns) | $(stat cycle epilog_ns) | $sc_cycle |

## 2. Contention: processes doing join/leave pairs on one state file

| processes | hooks/s | prolog p50 us | prolog p99 us | epilog p50 us | epilog p99 us |
|---|---|---|---|---|---|
EOT
for p in 1 2 8 32 64; do
	echo "| $p | $(stat contention-$p hooks_per_s) | $(stat contention-$p prolog_p50_us) | $(stat contention-$p prolog_p99_us) | $(stat contention-$p epilog_p50_us) | $(stat contention-$p epilog_p99_us) |"
done
cat <<EOT

## 3. End to end: ${BENCH_E2E_JOBS:-200} short jobs (sbatch --wrap true) on a real localhost $(slurmd -V 2>/dev/null), wall seconds, median (min-max) of $e2e_runs runs

| variant | wall s | jobs/s | vs. no plugin |
|---|---|---|---|
EOT
base=$(stat e2e-none wall_s | cut -d' ' -f1)
for v in none noopt ebpf shell; do
	w=$(stat e2e-$v wall_s | cut -d' ' -f1)
	echo "| $v | $(stat e2e-$v wall_s) | $(stat e2e-$v jobs_per_s) | $(awk -v a="$w" -v b="$base" 'BEGIN {if (b > 0 && a > 0) printf "%+.1f%%", (a / b - 1) * 100; else print "n/a"}') |"
done
cat <<EOT

## 4. The shell alternative (bench/shell-prolog.sh, shell-epilog.sh: flock(1) + grep, fork+exec per hook)

| case | prolog ns | epilog ns | plugin is cheaper by (prolog) |
|---|---|---|---|
EOT
for m in noopt join cycle; do
	sp=$(stat shell-$m prolog_ns | cut -d' ' -f1)
	pp=$(stat $m prolog_ns | cut -d' ' -f1)
	echo "| $m | $(stat shell-$m prolog_ns) | $(stat shell-$m epilog_ns) | $(awk -v a="$sp" -v b="$pp" 'BEGIN {printf "%.0fx", a/b}') |"
done
cat <<EOT

| processes | shell hooks/s | shell prolog p99 us | shell epilog p99 us |
|---|---|---|---|
EOT
for p in 1 2 8 32 64; do
	echo "| $p | $(stat shell-contention-$p hooks_per_s) | $(stat shell-contention-$p prolog_p99_us) | $(stat shell-contention-$p epilog_p99_us) |"
done
echo
echo "## Raw figures"
echo
echo '```'
cat "$raw"
echo '```'
