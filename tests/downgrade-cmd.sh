#!/bin/bash
# spank-ebpf downgrade-prepare against the release before probe sets
# itself (issue 30, item 6): its plugin (tests/lib/oldrelease.sh) run
# through tests/face/spank-face on the state this tree's plugin and
# command leave, with the recording systemctl double. A job of the old
# release holding unit= and a job holding a probe set run when the node
# is downgraded: the old release must keep both jobs' holds (the second's
# set becomes unit=, what --ebpf means there), never stop unit= under a
# running job, and the set's instance must be stopped, since the old
# release never would.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/lib/plugin.sh"
. "${srcdir:-.}/tests/lib/oldrelease.sh"
skip_in_distcheck "the previous release is built from git history"
need_root
need_cmd git flock
plugin_built_faces

d=$(mktemp -d /dev/shm/spank-ebpf-down.XXXXXX) || exit 1
trap 'rm -rf "$d"' EXIT
chmod 0755 "$d"
old_release_plugin "$d"
mkdir -p "$d/bin" "$d/configs"
install -m 0755 "$top/tests/bin/systemctl-double" "$d/bin/systemctl"
install -m 0755 "$top/tests/bin/systemd-run-double" "$d/bin/systemd-run"
echo "$d/state" >"$d/bin/statefile"
echo "metrics: {}" >"$d/configs/bio.yaml"
cat >"$d/sets.conf" <<EOS
unit = ebpf_exporter@.service
exporter = /bin/true
config_dir = $d/configs
default = io

[io]
description = Block I/O latency and bytes
configs = bio
listen = 127.0.0.1:941
EOS
chmod 0644 "$d/sets.conf"
old_args="systemctl=$d/bin/systemctl state=$d/state"
new_args="$old_args sets=$d/sets.conf"
printf 'optional /usr/lib/slurm/spank_ebpf.so %s\n' "$new_args" >"$d/plugstack.conf"
OPT=SPANK__SLURM_SPANK_OPTION_spank_ebpf_ebpf

# hook SO HOOK JOB ARGS [VAR=VALUE]: one SPANK job hook of SO as Slurm runs
# it (env -i: no PATH), its lines in $d/log.
hook() {
	local so=$1 h=$2 job=$3 args=$4
	shift 4
	# shellcheck disable=SC2086 # words on purpose
	env -i SLURM_JOB_ID="$job" SLURM_SCRIPT_CONTEXT="${h}_slurmd" "$@" \
		"$face" "$so" "$h" "$job" $args 2>>"$d/log"
}

state_words() {
	if [ -s "$d/state" ]; then tr '\n' ' ' <"$d/state" | sed 's/ $//'; else echo 0; fi
}

# The double's calls since the last look: "start U, stop U".
calls_since() {
	local c=
	[ -s "$d/bin/calls.log" ] && c=$(grep -v '^is-active' "$d/bin/calls.log" | cut -d' ' -f1,2 | paste -sd, | sed 's/,/, /g')
	rm -f "$d/bin/calls.log"
	echo "$c"
}

# The node under the old release: job 77 takes unit=.
hook "$old_so" prolog 77 "$old_args" "$OPT="
is "old release: job 77 holds unit=" "$(state_words); $(calls_since)" "1 77; start ebpf_exporter.service"
# Upgraded (sets= added): job 78 asks for io.
hook "$so" prolog 78 "$new_args" "$OPT=io"
is "this release: job 78 holds io beside 77" "$(state_words); $(calls_since)" \
	"spank_ebpf state 2 77 - 78 io; start ebpf_exporter@io.service"

# Ready for the downgrade.
out=$("$cmd" -c "$d/plugstack.conf" downgrade-prepare 2>>"$d/log")
is "downgrade-prepare: exit 0" "$?" 0
like "... says what it kept" "$out" "^2 jobs in the state, each keeping a hold on ebpf_exporter.service \\(the older release's form\\); probe sets switched off for 1 \\(job 78\\)\$"
like "... and what it stopped" "$out" "^stopped ebpf_exporter@io.service\$"
like "... and the marker" "$out" "^marker $d/state.sets-off left: "
is "the state in the old form, both jobs; io stopped, unit= left running" "$(state_words); $(calls_since)" \
	"2 77 78; stop ebpf_exporter@io.service"

# The old release over it (sets= gone from the line, as it must be).
hook "$old_so" prolog 80 "$old_args" "$OPT="
is "old release: job 80 joins 77 and 78 (the state read, nothing started)" "$(state_words); $(calls_since)" "3 77 78 80; "
hook "$old_so" epilog 78 "$old_args" "$OPT=io"
is "old release: job 78's epilog releases its hold, unit= kept" "$(state_words); $(calls_since)" "2 77 80; "
hook "$old_so" epilog 77 "$old_args" "$OPT="
is "old release: job 77's epilog: unit= kept for job 80" "$(state_words); $(calls_since)" "1 80; "
hook "$old_so" epilog 80 "$old_args" "$OPT="
is "old release: the last job's epilog stops unit=" "$(state_words); $(calls_since)" "0; stop ebpf_exporter.service"
unlike "old release: never a damaged state" "$(cat "$d/log")" "damaged|corrupt|salvag"

# Back to this release (upgraded again): the marker keeps job 78 (say
# its prolog runs again for a new step) out of sets; --cancel removes it.
hook "$so" prolog 78 "$new_args" "$OPT=io"
is "this release again, marker present: job 78 gets no sets" "$(state_words); $(calls_since)" "0; "
out=$("$cmd" -c "$d/plugstack.conf" downgrade-prepare --cancel 2>>"$d/log")
like "downgrade-prepare --cancel removes the marker" "$out" "^marker $d/state.sets-off removed"
is "... gone" "$(ls "$d" | grep -c 'sets-off')" 0

# sets= already off the line (the packages' prerm asks for that first):
# --sets names the file, so the set's own template's instance stops, not
# the default template's.
rm -f "$d/state" "$d/bin/calls.log"
hook "$so" prolog 90 "$new_args" "$OPT=io"
calls_since >/dev/null
printf 'optional /usr/lib/slurm/spank_ebpf.so %s\n' "$old_args" >"$d/plugstack.conf"
out=$("$cmd" -c "$d/plugstack.conf" downgrade-prepare --sets "$d/sets.conf" 2>>"$d/log")
is "line without sets=, --sets FILE: the set's own instance stopped, unit= started for job 90" \
	"$?; $(state_words); $(calls_since)" "0; 1 90; stop ebpf_exporter@io.service, start ebpf_exporter.service"
like "... and says so" "$out" "^started ebpf_exporter.service\$"
out=$("$cmd" -c "$d/plugstack.conf" downgrade-prepare --sets sets.conf 2>&1)
is "--sets needs an absolute path" "$?" 2
done_testing
