#!/bin/bash
# A job without --ebpf costs nothing (issue 30, item 7): the syscalls the
# plugin makes for such a job in slurmstepd's slurm_spank_init (remote
# context), its job prolog and its job epilog, strace-counted, against
# those of the release before probe sets (UPG_FROM, the release sites
# run): none added. tests/face/spank-face calls one hook between two
# marker writes; only the syscalls between them are the plugin's.
#
# The old release's plugin is built from this clone's history (git
# archive, as tests/system/upgrade.sh does for its packages) and cached
# per source tree (tests/lib/oldrelease.sh), so CI builds it once.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/lib/plugin.sh"
. "${srcdir:-.}/tests/lib/oldrelease.sh"
skip_in_distcheck "the previous release is built from git history"
need_cmd strace git flock
plugin_built_faces

d=$(mktemp -d /dev/shm/spank-ebpf-nosys.XXXXXX) || exit 1
trap 'rm -rf "$d"' EXIT
chmod 0755 "$d"
old_release_plugin "$d"
UPG_FROM=$OLD_RELEASE

mkdir -p "$d/configs"
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
# Both lines name a systemctl that is never run: a job without --ebpf
# starts nothing.
base="systemctl=$d/never/systemctl state=$d/state"

# calls SO HOOK LINE-ARGS...: the names of the syscalls SO makes in HOOK
# for job 77 without --ebpf (env -i: the environment Slurm gives a
# prolog, no option variable), one per line, sorted.
calls() {
	local so=$1 hook=$2
	shift 2
	env -i SLURM_JOB_ID=77 SLURM_SCRIPT_CONTEXT=prolog_slurmd strace -f -qq -o "$d/trace" \
		"$face" "$so" "$hook" 77 "$@" 2>"$d/stderr" >/dev/null
	grep -q 'spank-face: hook end' "$d/trace" || { echo "no end marker: $(cat "$d/stderr")"; return; }
	awk '/spank-face: hook begin/ { on = 1; next } /spank-face: hook end/ { on = 0 } on' "$d/trace" |
		sed 's/^[0-9]* *//; s/(.*//' | sort
}

# added OLD NEW: the calls of NEW that OLD does not make (as a multiset).
added() {
	comm -13 <(printf '%s\n' "$1" | uniq -c | awk '{ for (i = 0; i < $1; i++) print $2 "#" i }' | sort) \
		<(printf '%s\n' "$2" | uniq -c | awk '{ for (i = 0; i < $1; i++) print $2 "#" i }' | sort) |
		sed 's/#.*//' | tr '\n' ' ' | sed 's/ $//'
}

# state TEXT: the state file as a release writes it ("": none).
state() {
	if [ -n "$1" ]; then printf '%s' "$1" >"$d/state"; else rm -f "$d/state"; fi
}

# compare WHAT HOOK [OLD-STATE [SETS-STATE]]: this tree's plugin with sets=
# and without, against the old one (which refuses sets=: its line has
# none), each with the state its release would have written.
compare() {
	# (not "n": tap.sh's counter)
	local what=$1 hook=$2 old now now_sets
	state "${3:-}"
	old=$(calls "$old_so" "$hook" $base)
	now=$(calls "$so" "$hook" $base)
	state "${4:-${3:-}}"
	now_sets=$(calls "$so" "$hook" $base "sets=$d/sets.conf")
	diag "$what: $UPG_FROM: $(echo $old | wc -w) syscalls; now: $(echo $now | wc -w), with sets=: $(echo $now_sets | wc -w)"
	is "$what, no sets=: no syscall added" "$(added "$old" "$now")" ""
	is "$what, sets= on the line: no syscall added" "$(added "$old" "$now_sets")" ""
}

# slurmstepd runs slurm_spank_init for every step (remote context).
compare "slurmstepd's init" init:remote
compare "job prolog, nothing held" prolog
compare "job epilog, nothing held" epilog
# Another job holds the exporter: the epilog looks at the state (one
# open, read, close) in both releases; form 1 before sets, form 2 with.
compare "job prolog, another job holding" prolog $'1\n5\n' $'spank_ebpf state 2\n5 io\n'
compare "job epilog, another job holding" epilog $'1\n5\n' $'spank_ebpf state 2\n5 io\n'

# The marker works: a hook that does work shows its syscalls.
srun_calls=$(calls "$so" init:local $base "sets=$d/sets.conf")
like "the count sees the plugin's work: srun's init reads the sets file" "$(echo $srun_calls)" 'openat.*read'
done_testing
