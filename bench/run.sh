#!/bin/sh
# Runs the benchmarks (not tests: they report figures, they pass or fail on
# nothing). Usage: bench/run.sh BUILDDIR [RUNS]
# Prints a Markdown report: machine, commands, raw figures per run,
# medians and spread (min-max).
set -eu
builddir=${1:-.}
runs=${2:-5}
here=$(cd "$(dirname "$0")" && pwd)
so=$builddir/src/spank/.libs/spank_ebpf.so
hb=$builddir/bench/hook_bench
work=$(mktemp -d /dev/shm/spank-ebpf-bench.XXXXXX 2>/dev/null || mktemp -d)
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT
args="state=$work/state systemctl=/bin/true"
# Probe sets (issue 20): three sets, the job holding the default one
# (plain --ebpf) or all three (--ebpf=io,sched,net); a state file of
# their own. No exporter runs: the hooks' own cost, as in (b) and (c).
cat > "$work/sets.conf" <<EOT
default = io
textfile = none
[io]
description = Block I/O
configs = spank-io
listen = 127.0.0.1:941
[sched]
description = Run queue
configs = spank-sched
listen = 127.0.0.1:942
[net]
description = TCP and OOM kills
configs = spank-net,spank-oom
listen = 127.0.0.1:943
EOT
chmod 0644 "$work/sets.conf"
sargs="state=$work/sstate systemctl=/bin/true sets=$work/sets.conf"
raw=$work/raw
null=$builddir/bench/.libs/spank_null.so
# BENCH_QUICK=1 (tests/bench.sh): a twentieth of the iterations, 20 jobs
# end to end, one release with 2 jobs per unit: every figure, quickly.
quick=${BENCH_QUICK:-}
it() {
	if [ -n "$quick" ]; then echo $((($1 + 19) / 20)); else echo "$1"; fi
}
if [ -n "$quick" ]; then
	: "${BENCH_E2E_RUNS:=1}" "${BENCH_E2E_JOBS:=20}"
	: "${BENCH_SYSTEMD_SUITES:=bookworm}" "${BENCH_SYSTEMD_CYCLES:=2}"
	export PACE_JOBS=${PACE_JOBS:-4} PACE_LINGER=${PACE_LINGER:-30} PACE_FIRST=${PACE_FIRST:-2} \
		PACE_BURST=${PACE_BURST:-4} PACE_ROUNDS=${PACE_ROUNDS:-1}
	# Part 7 boots a node of 512 tasks, part 8 runs each probe set's
	# workload for minutes: never in the quick form.
	: "${BENCH_LAUNCH_ROUNDS:=0}" "${BENCH_PROBECOST_ROUNDS:=0}"
fi

echo "# Benchmark run"
echo
echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
echo "- machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)"
echo "- kernel: $(uname -r); state file on $(df -T "$work" | awk 'NR==2 {print $2}')"
echo "- plugin: $so ($(ls -l "$so" | awk '{print $5}') bytes); $runs runs each"
echo

# pair_ratio A B: the median prolog + epilog of A over that of B ("1.04x").
pair_ratio() {
	awk -v a="$(med_pair "$1")" -v b="$(med_pair "$2")" \
		'BEGIN { if (a > 0 && b > 0) printf "%.2fx", a / b; else print "n/a" }'
}

# med_pair NAME: the median over the runs of NAME of prolog_ns + epilog_ns.
med_pair() {
	grep "^$1 " "$raw" | awk '{ p = e = 0
		for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "prolog_ns") p = kv[2]; if (kv[1] == "epilog_ns") e = kv[2] }
		print p + e }' | sort -n | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# stat NAME FIELD: median and min-max of FIELD over the runs of NAME
# (whole numbers from 10000 up, so that no figure prints as 2.1e+06).
stat() {
	grep "^$1 " "$raw" | tr ' ' '\n' | sed -n "s/^$2=//p" | sort -n |
		awk 'function f(x) { return x >= 10000 ? sprintf("%.0f", x) : sprintf("%g", x) }
			{v[NR]=$1} END {if (NR==0) {print "n/a"; exit}
			m = (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2;
			printf "%s (%s-%s)", f(m), f(v[1]), f(v[NR])}'
}

: > "$raw"
for r in $(seq "$runs"); do
	"$hb" "$so" load "$(it 2000)" >> "$raw"
	"$hb" "$null" load "$(it 2000)" | sed 's/^/null-/' >> "$raw"
	"$hb" "$so" noopt "$(it 200000)" $args >> "$raw"
	"$hb" "$so" join "$(it 20000)" $args >> "$raw"
	"$hb" "$so" cycle "$(it 500)" $args >> "$raw"
	"$hb" "$so" join "$(it 20000)" $sargs | sed 's/^/sets1-/' >> "$raw"
	BENCH_EBPF_VALUE=io,sched,net "$hb" "$so" join "$(it 20000)" $sargs | sed 's/^/sets3-/' >> "$raw"
	"$hb" "$so" cycle "$(it 500)" $sargs | sed 's/^/sets1-/' >> "$raw"
	BENCH_EBPF_VALUE=io,sched,net "$hb" "$so" cycle "$(it 500)" $sargs | sed 's/^/sets3-/' >> "$raw"
	"$hb" "shell:$here" noopt "$(it 300)" $args | sed 's/^/shell-/' >> "$raw"
	"$hb" "shell:$here" join "$(it 300)" $args | sed 's/^/shell-/' >> "$raw"
	"$hb" "shell:$here" cycle "$(it 100)" $args | sed 's/^/shell-/' >> "$raw"
	for p in 1 2 8 32 64; do
		"$hb" "$so" contention $p "$(it 200)" $args | sed "s/^contention/contention-$p/" >> "$raw"
		"$hb" "$so" private $p "$(it 200)" $args | sed "s/^private/private-$p/" >> "$raw"
		"$hb" "shell:$here" contention $p "$(it 20)" $args | sed "s/^contention/shell-contention-$p/" >> "$raw"
	done
done

# 3. End to end on a real single-node Slurm (root, Slurm installed):
# BENCH_E2E_RUNS runs (default 5) of BENCH_E2E_JOBS jobs (default 200).
e2e_runs=${BENCH_E2E_RUNS:-5}
e2e_why=
if [ "$(id -u)" -ne 0 ]; then
	e2e_why="not run as root"
elif ! command -v slurmd >/dev/null 2>&1 || ! command -v slurmctld >/dev/null 2>&1; then
	e2e_why="slurmd or slurmctld missing"
elif [ "$e2e_runs" -le 0 ]; then
	e2e_why="BENCH_E2E_RUNS=$e2e_runs"
fi
if [ -z "$e2e_why" ]; then
	for r in $(seq "$e2e_runs"); do
		for v in none null noopt ebpf shell; do
			(cd "$builddir" && BENCH_OUT="$raw" SPANK_EBPF_SO="$so" \
				"$here/e2e.sh" "$v" "${BENCH_E2E_JOBS:-200}" > "$work/e2e-$v.log" 2>&1) ||
				{ echo "e2e-$v failed:" >&2; tail -n 30 "$work/e2e-$v.log" >&2; }
		done
	done
fi

# 5. The real transition on real systemd, in the system tests' container
# (root, debootstrap, systemd-nspawn): BENCH_SYSTEMD_CYCLES jobs (default
# 20) per unit in each of BENCH_SYSTEMD_SUITES (default all three).
sd_suites=${BENCH_SYSTEMD_SUITES-bookworm trixie sid}
sd_cycles=${BENCH_SYSTEMD_CYCLES:-20}
sd_why=
if [ "$(id -u)" -ne 0 ]; then
	sd_why="not run as root"
elif ! command -v debootstrap >/dev/null 2>&1 || ! command -v systemd-nspawn >/dev/null 2>&1; then
	sd_why="debootstrap or systemd-nspawn (systemd-container) missing"
elif [ -z "$sd_suites" ]; then
	sd_why="BENCH_SYSTEMD_SUITES is empty"
fi
if [ -z "$sd_why" ]; then
	for s in $sd_suites; do
		(cd "$builddir" && BENCH_OUT="$raw" "$here/systemd.sh" "$s" "$sd_cycles" \
			> "$work/systemd-$s.log" 2>&1) ||
			{ echo "systemd-$s failed:" >&2; tail -n 30 "$work/systemd-$s.log" >&2; }
	done
fi

# 7. A burst of 512 tasks at once on one node (bench/launch.sh, bookworm):
# no plugin, the null plugin and this one, BENCH_LAUNCH_ROUNDS rounds
# (default 3; 0 leaves it out), with Slurm's default BatchStartTimeout and
# then with each of BENCH_LAUNCH_BST (default 120; empty: none), the
# setting that keeps a slow launch from being requeued.
launch_rounds=${BENCH_LAUNCH_ROUNDS:-3}
launch_bsts=${BENCH_LAUNCH_BST-120}
launch_why=$sd_why
if [ -z "$launch_why" ] && [ "$launch_rounds" -gt 0 ]; then
	for b in default $launch_bsts; do
		[ "$b" = default ] && bv= || bv=$b
		(cd "$builddir" && BENCH_OUT="$raw" LAUNCH_ROUNDS="$launch_rounds" LAUNCH_BATCH_START_TIMEOUT="$bv" \
			"$here/launch.sh" bookworm > "$work/launch-$b.log" 2>&1) ||
			{ echo "launch ($b) failed:" >&2; tail -n 30 "$work/launch-$b.log" >&2; }
	done
fi

# 8. What each shipped probe set costs the workload it observes
# (bench/probecost.sh, bookworm, the real exporter): BENCH_PROBECOST_ROUNDS
# rounds (default 5; 0 leaves it out).
probecost_rounds=${BENCH_PROBECOST_ROUNDS:-5}
probecost_why=$sd_why
if [ -z "$probecost_why" ] && [ "$probecost_rounds" -gt 0 ]; then
	(cd "$builddir" && BENCH_OUT="$raw" PROBECOST_ROUNDS="$probecost_rounds" \
		"$here/probecost.sh" > "$work/probecost.log" 2>&1) ||
		{ echo "probecost failed:" >&2; tail -n 30 "$work/probecost.log" >&2; }
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
	sc_noopt=$(syscalls noopt "$(it 2000)")
	sc_join=$(syscalls join "$(it 2000)")
	sc_cycle=$(syscalls cycle "$(it 200)")
fi

cat <<EOT
## 1. Per-hook cost in process (ns per call, median (min-max) of $runs runs)

| case | prolog | epilog | syscalls per prolog+epilog pair |
|---|---|---|---|
| (a) job without --ebpf, opt-in | $(stat noopt prolog_ns) | $(stat noopt epilog_ns) | $sc_noopt |
| (b) opted-in job joining a busy set | $(stat join prolog_ns) | $(stat join epilog_ns) | $sc_join |
| (c) idle -> busy -> idle, no-op systemctl | $(stat cycle prolog_ns) | $(stat cycle epilog_ns) | $sc_cycle |
| (d) as (b), with probe sets: plain --ebpf (the default set) | $(stat sets1-join prolog_ns) | $(stat sets1-join epilog_ns) | |
| (e) as (b), --ebpf=io,sched,net (three sets) | $(stat sets3-join prolog_ns) | $(stat sets3-join epilog_ns) | |
| (f) as (c), with probe sets: plain --ebpf | $(stat sets1-cycle prolog_ns) | $(stat sets1-cycle epilog_ns) | |
| (g) as (c), --ebpf=io,sched,net (three instances started, then stopped) | $(stat sets3-cycle prolog_ns) | $(stat sets3-cycle epilog_ns) | |

Probe sets (medians, prolog + epilog): plain --ebpf with sets against without (d/b) $(pair_ratio sets1-join join), three sets against one (e/d) $(pair_ratio sets3-join sets1-join); with the transitions, (f/c) $(pair_ratio sets1-cycle cycle), (g/f) $(pair_ratio sets3-cycle sets1-cycle).

Loading the .so, as each prolog and epilog process does (dlopen + dlsym + dlclose, ns): the plugin $(stat load load_ns), the null plugin of part 3 $(stat null-load load_ns).

## 2. Contention: processes doing join/leave pairs on one state file

EOT
# contention_table NAME: one row per process count of contention-N or private-N.
contention_table() {
	echo "| processes | hooks/s | prolog p50 us | prolog p99 us | epilog p50 us | epilog p99 us |"
	echo "|---|---|---|---|---|---|"
	for p in 1 2 8 32 64; do
		echo "| $p | $(stat "$1-$p" hooks_per_s) | $(stat "$1-$p" prolog_p50_us) | $(stat "$1-$p" prolog_p99_us) | $(stat "$1-$p" epilog_p50_us) | $(stat "$1-$p" epilog_p99_us) |"
	done
}
contention_table contention
echo
echo "The same with each process on its own state file: no shared lock, only the CPUs are shared."
echo
contention_table private
cat <<EOT

## 3. End to end: ${BENCH_E2E_JOBS:-200} short jobs (sbatch --wrap true) on a real localhost $(slurmd -V 2>/dev/null), wall seconds, median (min-max) of $e2e_runs runs

| variant | wall s | jobs/s | wall vs. no plugin | CPU s (whole machine) | CPU vs. no plugin |
|---|---|---|---|---|---|
EOT
# ratio A B: A against B in per cent.
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%+.1f%%", (a / b - 1) * 100; else print "n/a"}'
}
base=$(stat e2e-none wall_s | cut -d' ' -f1)
cbase=$(stat e2e-none cpu_s | cut -d' ' -f1)
[ -z "$e2e_why" ] && e2e_variants="none null noopt ebpf shell" ||
	{ echo "Not measured: $e2e_why."; e2e_variants=; }
for v in $e2e_variants; do
	w=$(stat e2e-$v wall_s | cut -d' ' -f1)
	c=$(stat e2e-$v cpu_s | cut -d' ' -f1)
	echo "| $v | $(stat e2e-$v wall_s) | $(stat e2e-$v jobs_per_s) | $(ratio "$w" "$base") | $(stat e2e-$v cpu_s) | $(ratio "$c" "$cbase") |"
done
cat <<EOT

## 4. The shell alternative (bench/shell-prolog.sh, shell-epilog.sh: flock(1) + grep, fork+exec per hook)

| case | prolog ns | epilog ns | plugin is cheaper by (prolog) | (epilog) |
|---|---|---|---|---|
EOT
cheaper() {
	awk -v a="$(stat "shell-$1" "$2" | cut -d' ' -f1)" -v b="$(stat "$1" "$2" | cut -d' ' -f1)" \
		'BEGIN {if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.0fx", a / b; else print "n/a"}'
}
for m in noopt join cycle; do
	echo "| $m | $(stat shell-$m prolog_ns) | $(stat shell-$m epilog_ns) | $(cheaper $m prolog_ns) | $(cheaper $m epilog_ns) |"
done
cat <<EOT

| processes | shell hooks/s | shell prolog p99 us | shell epilog p99 us |
|---|---|---|---|
EOT
for p in 1 2 8 32 64; do
	echo "| $p | $(stat shell-contention-$p hooks_per_s) | $(stat shell-contention-$p prolog_p99_us) | $(stat shell-contention-$p epilog_p99_us) |"
done
cat <<EOT

## 5. The real transition on real systemd: systemctl start/stop as the prolog/epilog sees it (ms, median (min-max) of $sd_cycles jobs)

EOT
if [ -n "$sd_why" ]; then
	echo "Not measured: $sd_why."
else
	echo "| release | Slurm | systemd | unit | start ms | stop ms |"
	echo "|---|---|---|---|---|---|"
	for s in $sd_suites; do
		v=$(grep "^systemd-$s-versions " "$raw" | tail -n 1)
		for u in standin floor; do
			echo "| $s | $(echo "$v" | sed -n 's/.* slurm=\([^ ]*\).*/\1/p') | $(echo "$v" | sed -n 's/.* systemd=\([^ ]*\).*/\1/p') | $u | $(stat "systemd-$s-$u" start_ms) | $(stat "systemd-$s-$u" stop_ms) |"
		done
	done
	echo
	echo "standin: the system tests' ebpf_exporter.service (bpftrace loading perf_event programs; ready when they count and its endpoint answers). floor: a unit running \`sleep infinity\`."
fi

# pct NAME FIELD P: the P-th percentile (nearest rank) of FIELD over NAME.
pct() {
	grep "^$1 " "$raw" | tr ' ' '\n' | sed -n "s/^$2=//p" | sort -n |
		awk -v p="$3" '{v[NR]=$1} END {if (NR==0) {print "n/a"; exit}
			r = int((p * NR + 99) / 100); if (r < 1) r = 1; print v[r]}'
}
# field NAME FIELD: FIELD of NAME's last line.
field() {
	grep "^$1 " "$raw" | tail -n 1 | tr ' ' '\n' | sed -n "s/^$2=//p"
}
# stream_rows PREFIX VARIANT...: a stream table's rows for PREFIX
# (pace-RELEASE, or pace-RELEASE-real for the real exporter), each against
# the stand-in run's two baselines ($none, $nul; linger window $lg).
stream_rows() {
	local p=$1 v m label
	shift
	for v in "$@"; do
		m=$(field "$p-stream-$v" makespan_s)
		case $v in
		none) label="none (no SPANK plugin)" ;;
		null) label="null (job hooks that do nothing)" ;;
		linger0) label="linger=0 (the default)" ;;
		*) label="linger=$lg" ;;
		esac
		echo "| $label | ${m:-n/a} | $(ratio "$m" "$none") | $(ratio "$m" "$nul") | $(field "$p-stream-$v" starts) | $(field "$p-stream-$v" stops) |"
	done
}
pace_suites=
for s in ${BENCH_PACE_SUITES-bookworm}; do
	case " $sd_suites " in *" $s "*) pace_suites="$pace_suites $s" ;; esac
done
cat <<EOT

## 6. At the pace of real workloads: job streams, the first job's wait, bursts (real systemd; the stand-in exporter, then cloudflare's ebpf_exporter)

EOT
if [ -n "$sd_why" ] || [ -z "$pace_suites" ]; then
	echo "Not measured: ${sd_why:-no release of BENCH_PACE_SUITES among BENCH_SYSTEMD_SUITES}."
fi
for s in $pace_suites; do
	cfg=$(grep "^pace-$s-config " "$raw" | tail -n 1)
	jobs=$(echo "$cfg" | sed -n 's/.* jobs=\([0-9]*\).*/\1/p')
	lg=$(echo "$cfg" | sed -n 's/.* linger=\([0-9]*\).*/\1/p')
	burst=$(echo "$cfg" | sed -n 's/.* burst=\([0-9]*\).*/\1/p')
	rounds=$(echo "$cfg" | sed -n 's/.* rounds=\([0-9]*\).*/\1/p')
	first=$(echo "$cfg" | sed -n 's/.* first=\([0-9]*\).*/\1/p')
	none=$(field "pace-$s-stream-none" makespan_s)
	nul=$(field "pace-$s-stream-null" makespan_s)
	echo "$s: a stream of $jobs short jobs, one after the other (\`sbatch --array=1-$jobs%1\`, each task touches a file):"
	echo
	echo "| plugin | makespan s | vs. no plugin | vs. null plugin | exporter starts | stops |"
	echo "|---|---|---|---|---|---|"
	stream_rows "pace-$s" none null linger0 "linger$lg"
	echo
	echo "$s: the prolog's duration as the plugin logs it (ms): the first job on an idle node ($first jobs each), and $burst jobs arriving together on an idle node ($rounds rounds):"
	echo
	echo "| start= | first job, median (min-max) | burst p50 | burst p99 | burst max |"
	echo "|---|---|---|---|---|"
	for m in wait background; do
		echo "| $m | $(stat "pace-$s-first-$m" prolog_ms) | $(pct "pace-$s-burst-$m" prolog_ms 50) | $(pct "pace-$s-burst-$m" prolog_ms 99) | $(pct "pace-$s-burst-$m" prolog_ms 100) |"
	done
	echo
	# The same with cloudflare's ebpf_exporter (the example unit,
	# Type=notify: a start returns once its programs are attached).
	r=$s-real
	if ! grep -q "^pace-$r-config " "$raw"; then
		echo "$s with cloudflare's ebpf_exporter: not measured (no build in $(field "pace-$r-missing" dir); tests/exporter/build.sh makes it)."
		echo
		continue
	fi
	echo "$s with cloudflare's ebpf_exporter (biolatency and syscalls configs, the packages' example unit, \`Type=notify\`): the same stream, against the same two baselines:"
	echo
	echo "| plugin | makespan s | vs. no plugin | vs. null plugin | exporter starts | stops |"
	echo "|---|---|---|---|---|---|"
	stream_rows "pace-$r" linger0 "linger$lg"
	echo
	echo "$s with cloudflare's ebpf_exporter: the first job's prolog on an idle node (ms, $first jobs each):"
	echo
	echo "| start= | first job, median (min-max) |"
	echo "|---|---|"
	for m in wait background; do
		echo "| $m | $(stat "pace-$r-first-$m" prolog_ms) |"
	done
	echo
done

cat <<EOT

## 7. A burst of tasks at once on one node: launches lost, time until all run, the state lock

EOT
if [ -n "$launch_why" ]; then
	echo "Not measured: $launch_why."
elif [ "$launch_rounds" -eq 0 ]; then
	echo "Left out (BENCH_LAUNCH_ROUNDS=0; the quick form always leaves it out: it boots a node for 512 tasks)."
else
	cfg=$(grep "^launch-bookworm-config " "$raw" | tail -n 1)
	echo "bookworm, one node declared with 128 CPUs (OverSubscribe=FORCE:4), \`sbatch --array=1-$(echo "$cfg" | sed -n 's/.* tasks=\([0-9]*\).*/\1/p') --wrap 'touch MARK; sleep 300'\`, no SPANK plugin (none), the null plugin (null), this plugin with start=wait (plugin), with start=background (plugin_bg), with systemctl=/bin/true and so no exporter at all (plugin_noexp), loaded but with tasks that do not ask (plugin_noask), with a unit that only sleeps (plugin_idle) and with cloudflare's ebpf_exporter instead of the stand-in (plugin_real), alternated; per run: tasks that ran, seconds until all had, tasks slurmctld requeued because their batch step never started, the highest 1-minute load; for this plugin, its prologs' state lock wait and hold and the whole prolog (ms, p50/p99/max):"
	echo
	echo "| BatchStartTimeout | plugin | run | ran | all ran after s | lost | load max | lock wait p50/p99/max | lock held p50/p99/max | prolog p50/p99/max |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	# launch_lines B: the raw lines of BatchStartTimeout B's runs, by
	# variant (none, null, plugin).
	launch_lines() {
		[ "$1" = default ] && label=bookworm || label=bookworm-bst$1
		for m in none null plugin plugin_bg plugin_noexp plugin_noask plugin_idle plugin_real; do
			grep "^launch-$label-$m " "$raw"
		done
	}
	for b in default $launch_bsts; do
		launch_lines "$b" | while read -r name line; do
			m=${name##*-}
			f() { echo "$line" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
			if [ "${m#plugin}" != "$m" ]; then
				lw="$(f wait_p50)/$(f wait_p99)/$(f wait_max)" lh="$(f held_p50)/$(f held_p99)/$(f held_max)"
				lp="$(f prolog_p50)/$(f prolog_p99)/$(f prolog_max)"
			else
				lw=- lh=- lp=-
			fi
			echo "| $b | $m | $(f run) | $(f ran) of $(f tasks) | $(f all_run_s) | $(f lost) | $(f load_max) | $lw | $lh | $lp |"
		done
	done
	echo
	echo "Per variant over its runs: the median time until all ran (a run that never got there counts as longer than any), the tasks lost in all, and this plugin's median against the null plugin's (the goal: within 1.2x, no task lost that the null plugin does not lose):"
	echo
	echo "| BatchStartTimeout | plugin | runs | median all ran after s | lost in all | vs. null |"
	echo "|---|---|---|---|---|---|"
	for b in default $launch_bsts; do
		launch_lines "$b" | awk -v b="$b" '
			{ m = $1; sub(/.*-/, "", m); t = lost = ""
			  for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "all_run_s") t = kv[2]; if (kv[1] == "lost") lost = kv[2] }
			  n[m]++; v[m, n[m]] = (t == "timeout" ? 1e9 : t); l[m] += lost }
			function med(m,   i, j, x, k) {
				k = n[m]; for (i = 1; i <= k; i++) w[i] = v[m, i]
				for (i = 2; i <= k; i++) { x = w[i]; for (j = i - 1; j > 0 && w[j] > x; j--) w[j + 1] = w[j]; w[j + 1] = x }
				return (k % 2) ? w[(k + 1) / 2] : (w[k / 2] + w[k / 2 + 1]) / 2 }
			function show(x) { return x >= 1e9 ? "not reached" : sprintf("%.1f", x) }
			END {
				k = split("none null plugin plugin_bg plugin_noexp plugin_noask plugin_idle plugin_real", ms, " ")
				for (i = 1; i <= k; i++) {
					m = ms[i]; if (!n[m]) continue
					vs = "-"
					if (m ~ /^plugin/ && n["null"]) {
						a = med(m); z = med("null")
						vs = (a >= 1e9 || z >= 1e9) ? "n/a" : sprintf("%.2fx", a / z)
					}
					printf "| %s | %s | %d | %s | %d | %s |\n", b, m, n[m], show(med(m)), l[m], vs
				}
			}'
	done
fi
cat <<EOT

## 8. What each probe set costs the workload it observes

EOT
if [ -n "$probecost_why" ]; then
	echo "Not measured: $probecost_why."
elif [ "$probecost_rounds" -eq 0 ]; then
	echo "Left out (BENCH_PROBECOST_ROUNDS=0; the quick form always leaves it out: each set's workload runs for minutes)."
else
	echo "bookworm, cloudflare's ebpf_exporter running the set's configs, the workload in a job cgroup made in Slurm's layout (bench/probecost.sh): off, no job holds the set (its instance stopped; the mean of a run before and one after); on, a job holding it (\`--ebpf=SET\`), the workload under that job's ID; floor, programs that return at once at the set's hooks (bench/probe_floor.bpf.c): what calling any program there costs. Per set and workload, medians over its rounds; cost and floor: the median of each round's on/off and floor/off, with their range over the rounds (the goals: sched within 1% on both its workloads, io and net within 2%); the programs' own time from kernel.bpf_stats_enabled in a third run, per program run, per operation of the workload and per second of wall time (and that as a share of one CPU):"
	echo
	echo "| set | workload | rounds | off ns/op | on ns/op | cost (min to max) | floor (min to max) | program runs per op | ns per program run | program ns per op (of off) | program ns per s of wall |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|"
	# One row per set and workload, in the order of the raw records:
	# probecost-SET-WORKLOAD (probecost-SET before issue 32).
	for k in $(sed -n 's/^probecost-\([^ ]*\) run=.*/\1/p' "$raw" | awk '!seen[$0]++'); do
		grep "^probecost-$k " "$raw" | awk -v k="$k" '
			function med(a, k,   i, j, x) {
				for (i = 2; i <= k; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
				return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
			function few(x) { return x >= 0.1 || x == 0 ? sprintf("%.2f", x) : sprintf("%.2g", x) }
			function pct(a, k,   m) { m = med(a, k); return sprintf("%+.1f%% (%+.1f to %+.1f)", (m - 1) * 100, (a[1] - 1) * 100, (a[k] - 1) * 100) }
			{ for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
			  n++; off[n] = f["off_ns"]; on[n] = f["on_ns"]; r[n] = f["on_ns"] / f["off_ns"]
			  fl[n] = ("floor_ns" in f) ? f["floor_ns"] / f["off_ns"] : 1
			  if ("wall_ns" in f) wall += f["wall_ns"]; else nowall = 1
			  ev += f["events"]; rt += f["run_ns"]; ops += f["ops"] }
			END {
				if (!n) exit
				s = k; w = ""
				if (match(k, /-(read|pipe|pingpong|tcp)$/)) { s = substr(k, 1, RSTART - 1); w = substr(k, RSTART + 1) }
				else w = (s == "io") ? "read" : (s == "net") ? "tcp" : "pipe"
				w = (w == "read") ? "4 KiB O_DIRECT reads" : (w == "pipe") ? "one-byte pipe round trips, one CPU" : \
					(w == "pingpong") ? "8-byte ping-pong round trips, two CPUs" : "loopback TCP connections"
				mo = med(off, n); mon = med(on, n)
				c = pct(r, n); fc = pct(fl, n)
				# As a share of one CPU: a program that runs on every CPU
				# can take more than that.
				pw = (nowall || !wall) ? "n/a" : sprintf("%.0f (%.3f%% of a CPU)", rt / (wall / 1e9), 100 * rt / wall)
				printf "| %s | %s | %d | %.0f | %.0f | %s | %s | %s | %.0f | %.0f (%.2f%%) | %s |\n", s, w, n, mo, mon,
					c, fc, few(ev / ops), ev ? rt / ev : 0, rt / ops, 100 * rt / ops / mo, pw }'
	done
fi
echo
echo "## Raw figures"
echo
echo '```'
cat "$raw"
echo '```'
