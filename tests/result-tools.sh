#!/bin/bash
# The tools that close a run: tests/summary.sh (the "N passed, N failed,
# N skipped" line), tests/failures.sh (the failed points with their
# diagnostics, at the end of CI's output) and tests/slowest.sh (the
# slowest scripts), on made-up .trs and .log files.
. "${srcdir:-.}/tests/lib/tap.sh"
src=${srcdir:-.}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# script NAME RESULTS... and its log on stdin: NAME.trs holds one
# ":test-result:" line per RESULT.
script() {
	local name=$1 r
	shift
	for r in "$@"; do echo ":test-result: $r"; done >"$tmp/$name.trs"
	cat >"$tmp/$name.log"
}
script good PASS PASS SKIP <<'EOF2'
ok 1 - one
PASS: good 1 - one
# not a failure's diagnostic
EOF2
script bad PASS FAIL FAIL <<'EOF2'
ok 1 - fine
PASS: bad 1 - fine
not ok 2 - the first
FAIL: bad 2 - the first
#   got: 1
#   want: 2
ok 3 - between
not ok 4 - the second
FAIL: bad 4 - the second
#   why
EOF2
script died PASS ERROR <<'EOF2'
ok 1 - before
Bail out! the cluster did not start
ERROR: died - Bail out! the cluster did not start
EOF2

is "summary: points counted, a missing .trs a failure" \
	"$(sh "$src/tests/summary.sh" "$tmp/good.trs" "$tmp/bad.trs" "$tmp/died.trs" "$tmp/gone.trs")" \
	"4 passed, 4 failed, 1 skipped"
is "failures: each failed point with its diagnostics, nothing of passing scripts" \
	"$(sh "$src/tests/failures.sh" "$tmp/good.trs" "$tmp/bad.trs" "$tmp/died.trs")" \
	"$tmp/bad: not ok 2 - the first
  #   got: 1
  #   want: 2
$tmp/bad: not ok 4 - the second
  #   why
$tmp/died: Bail out! the cluster did not start
ERROR: died - Bail out! the cluster did not start"
is "failures: none, no output" "$(sh "$src/tests/failures.sh" "$tmp/good.trs")" ""
is "failures: at most FAILURES_MAX lines" \
	"$(FAILURES_MAX=2 sh "$src/tests/failures.sh" "$tmp/bad.trs" | wc -l)" 2

# Wall times as done_testing writes them: the slowest first, a script
# without the line left out.
printf '# took 7 s\n1..3\n' >>"$tmp/good.log"
printf '# took 12 s\n1..4\n' >>"$tmp/bad.log"
is "slowest: the scripts by wall time, slowest first, one without a time left out" \
	"$(sh "$src/tests/slowest.sh" "$tmp/good.trs" "$tmp/bad.trs" "$tmp/died.trs")" \
	"$(printf '%6d s  %s\n%6d s  %s' 12 "$tmp/bad" 7 "$tmp/good")"
is "slowest: at most SLOWEST_MAX lines" \
	"$(SLOWEST_MAX=1 sh "$src/tests/slowest.sh" "$tmp/good.trs" "$tmp/bad.trs" | wc -l)" 1
# done_testing writes the line itself, before the plan: SECONDS set to 3
# just before, so 3 or a little more on a busy machine (the point is the
# line and its place, not the clock).
out=$(bash -c '. "$1/tests/lib/tap.sh"; SECONDS=3; ok_if "one" true; done_testing' sh "$src")
is "done_testing: the script's wall time (3 s or a few more), then the plan" \
	"$(echo "$out" | tail -n 2 | sed 's/^# took [3-9] s$/# took 3+ s/')" "# took 3+ s
1..1"
done_testing
