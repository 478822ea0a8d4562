#!/bin/sh
# Prints the failed test points of the given automake .trs files, each
# with the diagnostics ("#" lines) that follow it in the script's .log,
# at most FAILURES_MAX lines in all (default 30): what the reader of a
# failed run needs first, for the end of CI's output.
for trs in "$@"; do
	grep -Eq '^:test-result: (FAIL|XPASS|ERROR)' "$trs" 2>/dev/null || continue
	awk -v name="${trs%.trs}" '
		/^(not ok|Bail out!)/ { print name ": " $0; n = 6; next }
		/^ERROR: / { print; n = 0; next }
		/^(PASS|FAIL|XFAIL|XPASS|SKIP): / { next }
		n > 0 && /^#/ { print "  " $0; n--; next }
		{ n = 0 }' "${trs%.trs}.log"
done | head -n "${FAILURES_MAX:-30}"
