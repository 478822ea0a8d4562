# The end-to-end tests' own helpers, over the localhost cluster of
# tests/lib/localslurm.sh (sourced here): the systemctl double's call log
# and behaviour, the payloads' snapshots, the admin command. Sourced by
# tests/e2e/NN-*.sh after tests/lib/tap.sh.
. "${BASH_SOURCE[0]%/*}/../lib/localslurm.sh"

# The double's log of the one start and the one stop around a set of jobs.
START="start $UNIT count=1 locked=yes"
STOP="stop $UNIT count=0 locked=yes"

# need_admin_cmd: CMD is the built spank-ebpf (before e2e_setup).
need_admin_cmd() {
	CMD=${SPANK_EBPF_CMD:-${top_builddir:-$(pwd)}/src/spank-ebpf/spank-ebpf}
	[ -x "$CMD" ] || missing "built $CMD (run make first)"
}

# hook_wrapper CONF: $E2E_DIR/hook, a Prolog=/Epilog= wrapper as a site
# would write one (Prolog= takes a path): spank-ebpf -c CONF, its lines
# kept in $HOOKLOG (syslog has no daemon here).
hook_wrapper() {
	HOOKLOG=$E2E_DIR/log/hook.log
	printf '#!/bin/sh\nexec %s -c %s 2>>%s\n' "$CMD" "$1" "$HOOKLOG" >"$E2E_DIR/hook"
	chmod 0755 "$E2E_DIR/hook"
}

# snap NAME.WHAT: what the payload recorded (snap/, see _e2e_write_payload).
snap() {
	cat "$E2E_DIR/snap/$1" 2>/dev/null
}

# The double's calls (or a snapshot of them) without timestamps; count of
# a verb.
calls_of() {
	sed 's/ t=[0-9.]*$//' "$1" 2>/dev/null
}

calls() {
	calls_of "$CALLS"
}

# ncalls VERB: how many; "no calls.log" when the double never wrote its
# log (a count of 0 must come from a log that exists).
ncalls() {
	if [ ! -e "$CALLS" ]; then
		echo "no calls.log"
		return 1
	fi
	calls | grep -c "^$1 " || true
}

reset_calls() {
	rm -f "$CALLS"
}

behaviour() {
	echo "$1" >"$DBL/behaviour"
}

unit_active() {
	if [ -e "$DBL/active" ]; then echo yes; else echo no; fi
}

# Processes still running the double, or left in the process group of its
# latest call (a hung systemctl, or its child, not killed). Zombies are
# dead: they only wait for whoever reaps orphans here.
double_procs() {
	local p pg
	pg=$(cat "$DBL/last.pid" 2>/dev/null)
	for p in /proc/[0-9]*; do
		[ "$(sed 's/.*) //' "$p/stat" 2>/dev/null | cut -d' ' -f1)" != Z ] || continue
		if tr '\0' ' ' 2>/dev/null <"$p/cmdline" | grep -qF -- "$SYSTEMCTL" ||
			{ [ -n "$pg" ] && [ "$(sed 's/.*) //' "$p/stat" 2>/dev/null | cut -d' ' -f3)" = "$pg" ]; }; then
			echo "${p#/proc/} $(tr '\0' ' ' 2>/dev/null <"$p/cmdline")"
		fi
	done
}

# end_in_turn A GATE_A B GATE_B DESC_A DESC_B: two overlapping jobs end one
# after the other. Once A is gone, B alone holds the exporter, which was
# not stopped (DESC_A); once B is gone, one start and one stop in all
# (DESC_B).
end_in_turn() {
	release "$2"
	wait_job_done "$1"
	is "$5" "$(state); $(ncalls stop)" "$(state_of "$3"); 0"
	release "$4"
	wait_job_done "$3"
	is "$6" "$(calls)" "$START
$STOP"
}

# node_ok: the node takes jobs and has no reason set (not drained).
node_ok() {
	case $(node_state) in idle | mixed) ;; *) return 1 ;; esac
	[ -z "$(node_reason)" ]
}
