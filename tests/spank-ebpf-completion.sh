#!/bin/bash
# spank-ebpf's bash completion, driven as bash drives it: the built
# completion sourced in `bash --norc`, _spank_ebpf called with COMP_WORDS
# and COMP_CWORD, COMPREPLY read back. Commands (not those Slurm and
# systemd run), each command's options, files for check-config and path
# options, set names from the sets file on the plugin's line (-c FILE),
# job IDs for report as root (the state's, through status) and none for
# another user. The command and the completion are copied to a scratch
# directory first: the tree may sit under /root (0700), and nobody runs
# them too.
. "${srcdir:-.}/tests/lib/tap.sh"

bin=${SPANK_EBPF_CMD:-${top_builddir:-.}/src/spank-ebpf/spank-ebpf}
comp=${SPANK_EBPF_COMPLETION:-${top_builddir:-.}/src/spank-ebpf/bash-completion/spank-ebpf}
top=${srcdir:-.}
need_cmd bash setpriv
[ -x "$bin" ] || missing "built $bin (run make first)"
[ -r "$comp" ] || missing "built $comp (run make first)"

d=$(mktemp -d /dev/shm/spank-ebpf-completion.XXXXXX) || exit 1
trap 'rm -rf "$d"' EXIT
chmod 0755 "$d"
mkdir -p "$d/bin" "$d/files/sub" "$d/configs"
install -m 0755 "$bin" "$d/bin/spank-ebpf"
install -m 0644 "$comp" "$d/completion"
install -m 0755 "$top/tests/bin/systemctl-double" "$d/bin/systemctl"
echo "$d/state" >"$d/bin/statefile"
touch "$d/files/a.conf" "$d/files/b.sets" "$d/files/c *.conf"
for c in bio sched tcp; do echo "metrics: {}" >"$d/configs/$c.yaml"; done
cat >"$d/sets.conf" <<EOF
unit = ebpf_exporter@.service
exporter = /bin/true
config_dir = $d/configs
default = io

[io]
description = Block I/O
configs = bio
listen = 127.0.0.1:941

[sched]
description = Run queue
configs = sched
listen = 127.0.0.1:942

[net]
description = TCP
configs = tcp
listen = 127.0.0.1:943
EOF
printf 'optional /usr/lib/slurm/spank_ebpf.so systemctl=%s state=%s sets=%s timeout=1 lock_timeout=10\n' \
	"$d/bin/systemctl" "$d/state" "$d/sets.conf" >"$d/plugstack.conf"
printf '2\n5\n7\n' >"$d/state"
chmod 0644 "$d/sets.conf" "$d/plugstack.conf" "$d/state"

# complete_lines [--as-nobody] WORD...: the completions of the last WORD
# after the others (the command first), one a line; a fresh bash, without
# the caller's environment.
complete_lines() {
	local as=()
	if [ "$1" = --as-nobody ]; then
		as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
		shift
	fi
	"${as[@]}" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin bash --norc -c '
		. "$1" || exit 1
		shift
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMPREPLY=()
		_spank_ebpf || exit 1
		[ ${#COMPREPLY[@]} -eq 0 ] || printf "%s\n" "${COMPREPLY[@]}"
	' completion "$d/completion" "$@" 2>&1
}
# complete ARGS...: complete_lines's, sorted, on one line.
complete() {
	complete_lines "$@" | sort | tr '\n' ' ' | sed 's/ $//'
}
S=$d/bin/spank-ebpf

is "the completion is for spank-ebpf" \
	"$(env -i bash --norc -c '. "$1"; complete -p spank-ebpf' x "$d/completion")" "complete -F _spank_ebpf spank-ebpf"

# --- commands ---
is "commands: those for admins" "$(complete "$S" "")" "check-config help metrics reconcile report status summary top"
is "commands starting with re" "$(complete "$S" re)" "reconcile report"
is "the commands Slurm and systemd run are not offered" "$(complete "$S" pro)" ""
is "commands after -c FILE" "$(complete "$S" -c "$d/plugstack.conf" st)" "status"
is "options before a command" "$(complete "$S" -)" "--config --help --version -V -c -h"
is "help COMMAND: the commands" "$(complete "$S" help c)" "check-config"

# --- options, from each command's --help ---
is "status's options, --config among them (taken after the command too)" "$(complete "$S" status -)" "--config --help --json --node --squeue"
is "reconcile's options" "$(complete "$S" reconcile --)" "--config --dry-run --help --node --squeue"
is "metrics' options" "$(complete "$S" metrics --)" "--config --help --textfile"
is "check-config's options (it reads no plugin's line: no --config)" "$(complete "$S" check-config --)" "--help --sets"
is "top's options, those with a short form too (-d, --delay)" "$(complete "$S" top --)" "--config --delay --help --iterations --json --node --once --partition --sort --squeue --user"
is "report's options" "$(complete "$S" -c "$d/plugstack.conf" report --)" "--cluster --config --help --json --peer --socket --squeue --summary"
is "report --so" "$(complete "$S" report --so)" "--socket"
is "--node NAME: nothing to offer" "$(complete "$S" status --node "")" ""

# --- files ---
is "check-config: files" "$(complete "$S" check-config "$d/files/")" "$d/files/a.conf $d/files/b.sets $d/files/c *.conf $d/files/sub"
is "a name with a blank and a star: one completion, as it is" "$(complete_lines "$S" check-config "$d/files/c")" "$d/files/c *.conf"
is "check-config --sets: files" "$(complete "$S" check-config --sets "$d/files/b")" "$d/files/b.sets"
is "-c FILE: files" "$(complete "$S" -c "$d/files/a")" "$d/files/a.conf"
is "-c FILE after the command: files" "$(complete "$S" status -c "$d/files/a")" "$d/files/a.conf"
is "--config=FILE after the command (split at = by bash): files" "$(complete "$S" status --config = "$d/files/a")" "$d/files/a.conf"
is "report --socket PATH: files" "$(complete "$S" report --socket "$d/files/a")" "$d/files/a.conf"
is "report --socket=PATH (split at = by bash): files" "$(complete "$S" report --socket = "$d/files/a")" "$d/files/a.conf"
is "metrics --textfile DIR: directories only" "$(complete "$S" metrics --textfile "$d/files/")" "$d/files/sub"

# --- set names, from the sets file on the plugin's line ---
is "admit SET: the sets of -c FILE's line" "$(complete "$S" -c "$d/plugstack.conf" admit "")" "io net sched"
is "exporter s" "$(complete "$S" -c "$d/plugstack.conf" exporter s)" "sched"
is "--config=FILE (split at = by bash) names the line too" \
	"$(complete "$S" --config = "$d/plugstack.conf" admit "")" "io net sched"
is "-c FILE after the command names the line too" "$(complete "$S" admit -c "$d/plugstack.conf" "")" "io net sched"
is "exporter --check -c FILE s: FILE's sets" "$(complete "$S" exporter --check -c "$d/plugstack.conf" s)" "sched"
is "a line that cannot be read: no set names, no message" "$(complete "$S" -c "$d/none.conf" admit "")" ""
is "as another user: the sets too (the files are readable)" \
	"$(complete --as-nobody "$S" -c "$d/plugstack.conf" admit "")" "io net sched"

# --- job IDs for report ---
if [ "$(id -u)" -eq 0 ]; then
	is "report as root: the jobs the state holds" "$(complete "$S" -c "$d/plugstack.conf" report "")" "5 7"
	is "report 5" "$(complete "$S" -c "$d/plugstack.conf" report 5)" "5"
	is "report --json JOBID" "$(complete "$S" -c "$d/plugstack.conf" report --json "")" "5 7"
	is "report -c FILE JOBID: -c after the command" "$(complete "$S" report -c "$d/plugstack.conf" "")" "5 7"
	is "summary JOBID: the operand of a usage that goes on over two lines" \
		"$(complete "$S" -c "$d/plugstack.conf" summary "")" "5 7"
	is "as another user: no job IDs, no message" \
		"$(complete --as-nobody "$S" -c "$d/plugstack.conf" report "")" ""
else
	skip_point "report's job IDs: root only"
fi
done_testing
