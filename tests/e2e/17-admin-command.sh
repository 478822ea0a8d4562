#!/bin/bash
# The admin command on a real Slurm: a hold leaked by an epilog that gave
# up on the lock (another process held it) is seen by `status`, left alone
# by `reconcile --dry-run` and by `reconcile` while slurmctld is down, and
# removed by `reconcile` once Slurm can say the job is over, which also
# stops the unit. A job that still runs keeps its hold throughout.
# `status --json` is read with python3's json, `metrics` checked by
# promtool.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
need_cmd python3 promtool
need_admin_cmd
# lock_timeout must exceed 3 x timeout; small, so the epilog gives up fast.
e2e_start timeout=1 lock_timeout=4
CONF=$E2E_DIR/etc/plugstack.conf.d/ebpf.conf

admin() { # admin ARGS...: sets out, err, rc
	# The node's name as slurmd's Prolog= programs get it.
	out=$(SLURMD_NODENAME=$NODE "$CMD" -c "$CONF" "$@" 2>"$E2E_DIR/out/admin.err") && rc=0 || rc=$?
	err=$(cat "$E2E_DIR/out/admin.err")
}

admin status
is "before any job: healthy" "$rc $(echo "$out" | tail -n 1)" "0 health: healthy"

reset_calls
a=$(submit -J s17-a --ebpf "$PAYLOAD" s17-a s17-a)
b=$(submit -J s17-b --ebpf "$PAYLOAD" s17-b s17-b)
wait_started s17-a
wait_started s17-b
is "two jobs hold the exporter" "$(state)" "$(state_of "$a" "$b")"

# Another process holds the state lock while job a's epilog runs: the
# epilog gives up after lock_timeout, and a's ID stays behind.
m=$(log_mark)
# One process holds the lock (fd 7): killing it releases the lock and
# leaves nothing behind.
(exec 7>>"$STATE.lock" && flock 7 && exec sleep 12) &
holder=$!
# Held once a lock of its own on the file fails (not after a guessed delay).
wait_until 10 "the lock held by $holder" sh -c '! flock -n "$1" true' sh "$STATE.lock"
release s17-a
wait_job_done "$a" 60
like "a's epilog gave up on the lock" "$(plugin_log_since "$m")" \
	'error: spank_ebpf: epilog job [0-9]+: gave up waiting 4 s for the lock'
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null
is "a's hold leaked: still in the state" "$(state)" "$(state_of "$a" "$b")"

admin status --json
is "status sees it: exit 1" "$rc" 1
is "status --json: the leaked job is gone for Slurm, b runs here" \
	"$(json '[(j["id"], j["here"], j["state"]) for j in d["slurm"]["jobs"]]')" \
	"[($a, False, 'COMPLETED'), ($b, True, 'RUNNING')]"
is "status --json: one anomaly, jobs_gone" "$(json '[x["kind"] for x in d["anomalies"]], d["unit"]["active"]')" \
	"(['jobs_gone'], True)"

admin reconcile --dry-run
is "reconcile --dry-run: says what it would do" "$rc $out" "0 dry run: 2 held, 1 would be removed; unit active"
is "... and changes nothing" "$(state)" "$(state_of "$a" "$b")"

# slurmctld unreachable: nothing may change.
stop_slurmctld
admin reconcile
is "slurmctld down: reconcile exits 2" "$rc" 2
like "... says why" "$out" "^cannot tell: .*; nothing changed$"
like "... and logs it" "$err" "cannot tell which of the 2 held jobs still run here"
is "... state untouched" "$(state)" "$(state_of "$a" "$b")"
admin status
is "status with slurmctld down: exit 2 (cannot tell)" "$rc" 2
start_slurmctld

admin reconcile
is "reconcile: a's hold removed, b's kept" "$rc $out" "0 2 held, 1 removed; unit active"
like "... the reason" "$err" "removing job $a from the state: Slurm says it is COMPLETED"
is "... state" "$(state)" "$(state_of "$b")"
is "... no call: the unit stays for b" "$(ncalls stop)" 0

# b ends normally; then a leaked hold on a node with no job left: the
# reconcile stops the unit.
release s17-b
wait_job_done "$b"
is "b's epilog stopped the unit" "$(ncalls stop) $(state | head -n 1)" "1 0"
printf '1\n%s\n' "$a" >"$STATE.new" && mv "$STATE.new" "$STATE"
behaviour ok
touch "$DBL/active"
admin reconcile
is "a leaked hold, no job left: removed and the unit stopped" "$rc $out" "0 1 held, 1 removed; unit active, stopped"
is "... stop called under the lock" "$(calls | tail -n 1)" "stop $UNIT count=0 locked=yes"

admin metrics
pc=$(printf '%s\n' "$out" | promtool check metrics 2>&1) && prc=0 || prc=$?
is "metrics: accepted by promtool" "$rc $prc $pc" "0 0 "
like "metrics: 2 removals counted" "$out" "^spank_ebpf_reconcile_removed_jobs_total\\{unit=\"$UNIT\"\\} 2$"
like "metrics: starts and stops (the hooks' and the reconcile's)" "$out" "^spank_ebpf_stops_total\\{unit=\"$UNIT\"\\} 2$"
like "metrics: one failed reconcile (slurmctld down)" "$out" "^spank_ebpf_reconcile_failures_total\\{unit=\"$UNIT\"\\} 1$"
admin status
is "in line again: healthy" "$rc $(echo "$out" | tail -n 1)" "0 health: healthy"

E2E_PLUGIN_ERRORS=expected
cluster_finish
