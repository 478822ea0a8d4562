#!/bin/bash
# The systemctl double (tests/bin/systemctl-double) itself: it tells a held
# state lock (locked=yes) from a free one (locked=no) and from a check that
# could not run (locked=unknown(...), the call fails with the reason on
# stderr), run as the plugin runs it (clean environment). And the unit
# test that asserts "every call ran under the state lock" fails when the
# double cannot check, instead of passing on an unchecked lock.
. "${srcdir:-.}/tests/lib/tap.sh"

need_cmd flock
DOUBLE=${SYSTEMCTL_DOUBLE:-${srcdir:-.}/tests/bin/systemctl-double}
[ -r "$DOUBLE" ] || missing "the double at $DOUBLE"

tmp=$(mktemp -d) || exit 1
holder=
trap '[ -n "$holder" ] && kill "$holder" 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
cp "$DOUBLE" "$tmp/bin/systemctl"
chmod 0755 "$tmp/bin/systemctl"
echo "$tmp/state" >"$tmp/bin/statefile"
printf '1\n42\n' >"$tmp/state"

# call VERB: the double as the plugin execs it; sets rc, out, err, line
# (its calls.log line).
call() {
	rm -f "$tmp/bin/calls.log"
	rc=0
	out=$(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C \
		"$tmp/bin/systemctl" "$1" ebpf_exporter.service 2>"$tmp/err") || rc=$?
	err=$(cat "$tmp/err")
	line=$(cat "$tmp/bin/calls.log" 2>/dev/null)
}

call start
is "lock free: locked=no, exit 0" "$line; $rc" "start ebpf_exporter.service count=1 locked=no; 0"
is "lock free: nothing on stderr" "$err" ""

# Another process holds the lock, as the plugin does around its calls.
# One process, the holder itself (fd 7), so that killing it frees the lock
# and leaves no sleep behind holding the TAP pipe open.
(exec 7>>"$tmp/state.lock" && flock 7 && exec sleep 300 >/dev/null 2>&1) &
holder=$!
wait_until 10 "the holder has the lock" sh -c "! flock -n '$tmp/state.lock' true"
call stop
is "lock held by another process: locked=yes, exit 0" "$line; $rc" "stop ebpf_exporter.service count=1 locked=yes; 0"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
holder=

echo /nonexistent/flock >"$tmp/bin/flockpath"
call start
is "no flock program: locked=unknown(no flock), exit 70" "$line; $rc" \
	"start ebpf_exporter.service count=1 locked=unknown(no flock); 70"
like "no flock program: says why on stderr" "$err" \
	'^systemctl-double: cannot check the state lock: no flock program \(/nonexistent/flock\)$'
ok_if "no flock program: the unit was not started" test ! -e "$tmp/bin/active"

echo /bin/false >"$tmp/bin/flockpath"
call start
is "flock fails otherwise: locked=unknown(1), exit 70" "$line; $rc" \
	"start ebpf_exporter.service count=1 locked=unknown(1); 70"
like "flock fails otherwise: says why on stderr" "$err" \
	'^systemctl-double: cannot check the state lock: /bin/false -n -E 75 .*/state\.lock exited 1: $'
rm -f "$tmp/bin/flockpath"

rm -f "$tmp/bin/statefile"
call is-active
is "no statefile: locked=unknown(no statefile), exit 70" "$line; $rc" \
	"is-active ebpf_exporter.service count=missing locked=unknown(no statefile); 70"
echo "$tmp/state" >"$tmp/bin/statefile"

# The unit test of "every call ran under the state lock", with a double
# whose flock is missing: it must fail, not pass on unchecked calls.
t=${top_builddir:-.}/tests/unit/test_concurrency
ok_if "the unit test is built ($t)" test -x "$t"
if [ -x "$t" ]; then
	sed 's|^flock_bin=.*|flock_bin=/nonexistent/flock|' "$DOUBLE" >"$tmp/double-noflock"
	rc=0
	out=$(SYSTEMCTL_DOUBLE=$tmp/double-noflock "$t" 2>/dev/null) || rc=$?
	ok_if "test_concurrency fails when the double cannot check the lock (exit $rc)" test "$rc" -ne 0
	like "... on its lock assertion" "$out" '^not ok [0-9]+ - every call ran under the state lock \([1-9][0-9]* did not\)$'
	rc=0
	out=$(SYSTEMCTL_DOUBLE=$DOUBLE "$t" 2>/dev/null) || rc=$?
	like "... and passes it with the double as shipped" "$out" '^ok [0-9]+ - every call ran under the state lock \(0 did not\)$'
fi

done_testing
