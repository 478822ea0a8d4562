#!/bin/sh
# Prints the slowest test scripts of a run, from the "# took N s" line
# that tests/lib/tap.sh's done_testing writes in each script's .log:
# "  N s  SCRIPT", slowest first, at most SLOWEST_MAX lines (default 15).
# Given the run's .trs files (as tests/failures.sh is); a script without
# the line (a C unit test, one that bailed out) is left out. For CI's
# output, where the time a run takes is judged.
for trs in "$@"; do
	t=$(sed -n 's/^# took \([0-9][0-9]*\) s$/\1/p' "${trs%.trs}.log" 2>/dev/null | tail -n 1)
	[ -n "$t" ] && printf '%6d s  %s\n' "$t" "${trs%.trs}"
done | sort -rn | head -n "${SLOWEST_MAX:-15}"
