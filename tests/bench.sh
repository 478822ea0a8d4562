#!/bin/bash
# The benchmark suite still works: `make bench`'s bench/run.sh, in its
# quick form (BENCH_QUICK=1: fewer iterations, one run, 20 jobs end to
# end, bookworm only with 2 jobs per unit), must produce every figure of
# every part. Timings are not judged here (benchmarks report, they do not
# pass or fail); what is judged is that each figure exists, and the one
# count that does not depend on the machine: the syscalls of a job
# without --ebpf.
. "${srcdir:-.}/tests/lib/tap.sh"

top=${srcdir:-.}
builddir=${top_builddir:-$top}
skip_in_distcheck "benchmark smoke test"
need_root
need_cmd strace slurmd slurmctld sbatch munged debootstrap systemd-nspawn
[ -x "$builddir/bench/hook_bench" ] || missing "bench/hook_bench (make check builds it)"
[ -f "$builddir/bench/.libs/spank_null.so" ] || missing "bench/spank_null.so (make check builds it)"

out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
t0=$(date +%s)
(cd "$builddir" && BENCH_QUICK=1 sh "$top/bench/run.sh" "$builddir" 1 >"$out" 2>"$err")
is "bench/run.sh exits 0" "$?" 0
diag "quick benchmark run took $(($(date +%s) - t0)) s"
report=$(cat "$out")
is "nothing on stderr" "$(cat "$err")" ""
unlike "no part left unmeasured" "$report" 'Not measured|n/a|nan'

num='[0-9][0-9.]*( \([0-9.]+-[0-9.]+\))?'
like "1a: job without --ebpf, prolog and epilog figures" "$report" \
	"^\| \(a\) job without --ebpf, opt-in \| $num \| $num \| [0-9]+ \|$"
like "1b: opted-in job joining a busy set" "$report" \
	"^\| \(b\) opted-in job joining a busy set \| $num \| $num \| [0-9]+ \|$"
like "1c: idle -> busy -> idle" "$report" \
	"^\| \(c\) idle -> busy -> idle, no-op systemctl \| $num \| $num \| [0-9]+ \|$"
# Not a timing: the prolog of a job without --ebpf makes no syscall, its
# epilog 3 (open, read, close of the state file).
is "1a: syscalls per prolog+epilog pair of a job without --ebpf" \
	"$(printf '%s\n' "$report" | sed -n 's/^| (a) job without --ebpf, opt-in |.*| \([0-9]*\) |$/\1/p')" 3
for p in 1 2 8 32 64; do
	is "2: contention with $p processes, shared and private state files" \
		"$(printf '%s\n' "$report" | grep -cE "^\| $p \| $num \| $num \| $num \| $num \| $num \|$")" 2
done
for v in none null noopt ebpf shell; do
	like "3: end to end, $v" "$report" \
		"^\| $v \| $num \| $num \| [-+][0-9.]+% \| $num \| [-+][0-9.]+% \|$"
done
for m in noopt join cycle; do
	like "4: shell alternative, $m" "$report" "^\| $m \| $num \| $num \| [0-9]+x \| [0-9]+x \|$"
done
for u in standin floor; do
	like "5: real systemd (bookworm), $u unit: start and stop ms" "$report" \
		"^\| bookworm \| 22\.05\.[^|]+ \| [0-9][^|]* \| $u \| $num \| $num \|$"
done
# Part 6: every figure of the stream, first-job and burst tables. Not
# judged: timings. Judged: the exporter starts of the stream, which do not
# depend on the machine (one per job with linger=0, one in all with a
# window longer than the gap between jobs).
like "6: stream, no plugin" "$report" "^\| none \(no SPANK plugin\) \| [0-9.]+ \| \+0\.0% \| [-+][0-9.]+% \| 0 \| 0 \|$"
like "6: stream, null plugin" "$report" "^\| null \(job hooks that do nothing\) \| [0-9.]+ \| [-+][0-9.]+% \| \+0\.0% \| 0 \| 0 \|$"
like "6: stream, linger=0: one start and one stop per job (4 jobs)" "$report" \
	"^\| linger=0 \(the default\) \| [0-9.]+ \| [-+][0-9.]+% \| [-+][0-9.]+% \| 4 \| 4 \|$"
like "6: stream, linger=30: one start and one stop in all" "$report" \
	"^\| linger=30 \| [0-9.]+ \| [-+][0-9.]+% \| [-+][0-9.]+% \| 1 \| 1 \|$"
for m in wait background; do
	like "6: first job and burst, start=$m" "$report" \
		"^\| $m \| $num \| [0-9.]+ \| [0-9.]+ \| [0-9.]+ \|$"
done
# Part 6 again with cloudflare's ebpf_exporter: the same exporter starts
# (they do not depend on the machine), and the first job's prolog.
real=$(printf '%s\n' "$report" | sed -n '/with cloudflare.s ebpf_exporter (biolatency/,/^## 7\./p')
if [ -z "$real" ] && [ -z "${CI:-}" ] &&
	printf '%s\n' "$report" | grep -q "with cloudflare's ebpf_exporter: not measured"; then
	skip_point "6: with cloudflare's ebpf_exporter: not built here (tests/exporter/build.sh)"
else
	like "6: real exporter, stream, linger=0: one start and one stop per job (4 jobs)" "$real" \
		"^\| linger=0 \(the default\) \| [0-9.]+ \| [-+][0-9.]+% \| [-+][0-9.]+% \| 4 \| 4 \|$"
	like "6: real exporter, stream, linger=30: one start and one stop in all" "$real" \
		"^\| linger=30 \| [0-9.]+ \| [-+][0-9.]+% \| [-+][0-9.]+% \| 1 \| 1 \|$"
	for m in wait background; do
		like "6: real exporter, first job, start=$m" "$real" "^\| $m \| $num \|$"
	done
fi
# Part 7 (bench/launch.sh, 512 tasks at once) is make bench's only.
like "7: the burst of tasks: its part" "$report" '^## 7\. A burst of tasks at once on one node'
like "7: left out of the quick form, and said" "$report" \
	'^Left out \(BENCH_LAUNCH_ROUNDS=0; the quick form always leaves it out'
# Part 8 (bench/probecost.sh, each probe set's workload) likewise.
like "8: the probe sets' cost: its part" "$report" '^## 8\. What each probe set costs the workload it observes'
like "8: left out of the quick form, and said" "$report" \
	'^Left out \(BENCH_PROBECOST_ROUNDS=0; the quick form always leaves it out'
done_testing
