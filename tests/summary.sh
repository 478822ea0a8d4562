#!/bin/sh
# Prints "N passed, N failed, N skipped" over the test points of the given
# automake .trs files. A test script that could not run at all (missing,
# crashed, bailed out) counts as failed.
passed=0 failed=0 skipped=0
for trs in "$@"; do
	if [ ! -f "$trs" ]; then
		failed=$((failed + 1))
		continue
	fi
	p=$(grep -c '^:test-result: PASS' "$trs")
	x=$(grep -c '^:test-result: XFAIL' "$trs")
	f=$(grep -Ec '^:test-result: (FAIL|XPASS)' "$trs")
	e=$(grep -c '^:test-result: ERROR' "$trs")
	s=$(grep -c '^:test-result: SKIP' "$trs")
	passed=$((passed + p + x))
	failed=$((failed + f + e))
	skipped=$((skipped + s))
done
echo "$passed passed, $failed failed, $skipped skipped"
