#!/bin/bash
# Every face of the core, run directly, without Slurm, against the
# recording systemctl double:
#   plugin    the SPANK job prolog/epilog of the built .so, dlopen()ed by
#             tests/face/spank-face with a stand-in SPANK API
#   program   spank-ebpf as Slurm's Prolog=/Epilog= (no command;
#             SLURM_SCRIPT_CONTEXT says which), and as `spank-ebpf prolog`
#   timer     spank-ebpf linger-end, as the linger timer runs it
# Each face with the option's variable as Slurm gives it to that face
# (SPANK__SLURM_SPANK_OPTION_spank_ebpf_ebpf, present with an empty value;
# the unprefixed _SLURM_SPANK_OPTION_spank_ebpf_ebpf too), without it,
# with another plugin's, and with mode=always. The e2e and system suites
# run the same faces under a real Slurm; this one needs none, so a face
# reading the wrong variable fails here first.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/lib/plugin.sh"
need_root
plugin_built_faces

d=$(mktemp -d /dev/shm/spank-ebpf-faces.XXXXXX) || exit 1
trap 'rm -rf "$d"' EXIT
chmod 0755 "$d"
mkdir -p "$d/bin"
install -m 0755 "$top/tests/bin/systemctl-double" "$d/bin/systemctl"
install -m 0755 "$top/tests/bin/systemd-run-double" "$d/bin/systemd-run"
echo "$d/state" >"$d/bin/statefile"
args="systemctl=$d/bin/systemctl state=$d/state"
OPT=SPANK__SLURM_SPANK_OPTION_spank_ebpf_ebpf

# The environment Slurm builds for a prolog or epilog: no PATH, the job's
# IDs, the option's variable when the job asked (env -i: nothing else).
job_env() { # job_env prolog|epilog JOB [VAR=VALUE...]
	local hook=$1 job=$2
	shift 2
	echo "SLURM_JOB_ID=$job SLURM_SCRIPT_CONTEXT=${hook}_slurmd SLURMD_NODENAME=node7 $*"
}

# plugin HOOK JOB LINE-ARGS -- VAR=VALUE...: the SPANK hook of the .so.
plugin() {
	local hook=$1 job=$2 extra=$3
	shift 4
	# shellcheck disable=SC2046,SC2086 # words on purpose
	env -i $(job_env "$hook" "$job" "$@") "$face" "$so" "$hook" "$job" $args $extra 2>>"$d/log"
}

# program HOOK JOB LINE-ARGS -- VAR=VALUE...: spank-ebpf run by path with
# no command, as Slurm runs Prolog=/Epilog=, reading the plugin's line.
program() {
	local hook=$1 job=$2 extra=$3
	shift 4
	printf 'optional /usr/lib/slurm/spank_ebpf.so %s %s\n' "$args" "$extra" >"$d/plugstack.conf"
	# shellcheck disable=SC2046 # words on purpose
	env -i $(job_env "$hook" "$job" "$@") "$cmd" -c "$d/plugstack.conf" 2>>"$d/log"
}

state_words() {
	if [ -s "$d/state" ]; then tr '\n' ' ' <"$d/state" | sed 's/ $//'; else echo 0; fi
}

call_verbs() {
	if [ -s "$d/bin/calls.log" ]; then cut -d' ' -f1 "$d/bin/calls.log" | tr '\n' ' ' | sed 's/ $//'; fi
}

reset() {
	rm -f "$d/state" "$d/state.linger" "$d/bin/calls.log" "$d/bin/active" "$d/log"
}

for f in plugin program; do
	reset
	"$f" prolog 42 "" -- "$OPT="
	is "$f: prolog with $OPT (empty): job 42 held, exporter started" "$(state_words); $(call_verbs)" "1 42; start"
	"$f" epilog 42 "" -- "$OPT="
	is "$f: epilog: released, exporter stopped" "$(state_words); $(call_verbs)" "0; start stop"
	like "$f: the hooks' lines name the job" "$(cat "$d/log")" "info: $(hold_taken_re 42)"
	# (The program logs info and up: its verbose lines go nowhere.)
	[ "$f" = program ] ||
		like "$f: and give the state lock's wait and hold" "$(cat "$d/log")" \
			"prolog job 42: done in [0-9.]+ ms \\(state lock: waited [0-9.]+ ms, held [0-9.]+ ms\\)"

	reset
	"$f" prolog 43 "" -- "${OPT#SPANK_}=(null)"
	is "$f: prolog with the unprefixed variable: held" "$(state_words); $(call_verbs)" "1 43; start"
	"$f" epilog 43 "" -- "${OPT#SPANK_}=(null)"

	reset
	"$f" prolog 44 "" --
	is "$f: prolog without the variable: nothing held, systemctl not run" "$(state_words); $(call_verbs)" "0; "
	"$f" prolog 45 "" -- SPANK__SLURM_SPANK_OPTION_pyxis_container_image=x SPANK_OPTION_ebpf=
	is "$f: another plugin's option, or a look-alike name: nothing held" "$(state_words); $(call_verbs)" "0; "
	"$f" epilog 44 "" --
	is "$f: epilog of a job that held nothing: nothing run" "$(state_words); $(call_verbs)" "0; "

	reset
	"$f" prolog 46 "mode=always" --
	is "$f: mode=always without the variable: held" "$(state_words); $(call_verbs)" "1 46; start"
	"$f" epilog 46 "mode=always" --
	is "$f: mode=always, epilog: released" "$(state_words); $(call_verbs)" "0; start stop"
done

# Both faces on one job (a site running the plugin and the Prolog=
# program): counted once.
reset
plugin prolog 50 "" -- "$OPT="
program prolog 50 "" -- "$OPT="
is "plugin and program, same job: held once, one start" "$(state_words); $(call_verbs)" "1 50; start"
program epilog 50 "" -- "$OPT="
plugin epilog 50 "" -- "$OPT="
is "... released once, one stop" "$(state_words); $(call_verbs)" "0; start stop"

# The explicit command form (a site's wrapper script).
reset
printf 'optional /usr/lib/slurm/spank_ebpf.so %s\n' "$args" >"$d/plugstack.conf"
env -i SLURM_JOB_ID=51 "$OPT=" "$cmd" -c "$d/plugstack.conf" prolog 2>>"$d/log"
is "spank-ebpf prolog (the command named): held" "$(state_words); $(call_verbs)" "1 51; start"
env -i SLURM_JOB_ID=51 "$OPT=" "$cmd" -c "$d/plugstack.conf" epilog 2>>"$d/log"
is "spank-ebpf epilog: released" "$(state_words); $(call_verbs)" "0; start stop"

# The timer's face: linger-end with the plugin's settings ends a window.
reset
plugin prolog 60 "linger=30" -- "$OPT="
plugin epilog 60 "linger=30" -- "$OPT="
is "linger=30: the last job leaves, the exporter stays, a timer armed" \
	"$(state_words); $(call_verbs); $(grep -c -- '--on-active=30 ' "$d/bin/systemd-run.log")" "0; start; 1"
sed -i 's/^end [0-9]*$/end 1/' "$d/state.linger"
env -i "$cmd" linger-end $args linger=30 2>>"$d/log"
is "linger-end at the window's end: stopped" "$(state_words); $(call_verbs)" "0; start stop"
like "... and says so in its context" "$(cat "$d/log")" 'spank_ebpf: linger-end: stopping ebpf_exporter after 30 s without jobs'
done_testing
