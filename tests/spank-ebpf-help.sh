#!/bin/bash
# spank-ebpf's help as an admin asks for it: `SUB --help`, `SUB -h` and
# `help SUB` answer on stdout with exit 0 for every subcommand, an unknown
# option names the subcommand and where --help is; every line of the help
# and of the usage fits in 80 columns; --help lists the admin's commands
# first, those Slurm, systemd and the timers run under their own headings
# after them; and the drift check:
# each subcommand's options in its --help and in spank-ebpf(8)'s SYNOPSIS
# are the same set (the help comes from the options tables, the man page
# is written by hand). Needs no root and no Slurm.
. "${srcdir:-.}/tests/lib/tap.sh"

bin=${SPANK_EBPF_CMD:-${top_builddir:-.}/src/spank-ebpf/spank-ebpf}
man=${SPANK_EBPF_MAN:-${srcdir:-.}/src/spank-ebpf/spank-ebpf.8.in}
[ -x "$bin" ] || missing "built $bin (run make first)"
[ -r "$man" ] || bail "cannot read $man"

d=$(mktemp -d) || exit 1
trap 'rm -rf "$d"' EXIT

invoke() { # invoke ARGS...: the command; sets out, err, rc
	out=$(env -i "$bin" "$@" 2>"$d/err") && rc=0 || rc=$?
	err=$(cat "$d/err")
}

# section_lines TEXT HEADING: the lines under HEADING (a line of its own)
# up to the next empty line.
section_lines() {
	printf '%s\n' "$1" | awk -v h="$2" '$0 == h { on = 1; next } on && /^$/ { exit } on'
}

# help_options SUB: the long options SUB's --help lists, one a line, sorted,
# with or without a short form ("-d, --delay=SECONDS"); -h, --help and
# -c, --config left out: every command has the one, the synopsis says the
# other apart.
help_options() {
	section_lines "$(env -i "$bin" "$1" --help)" "Options:" |
		sed -n 's/^  \(-[a-zA-Z], \)\{0,1\}--\([a-z][a-z-]*\).*/\2/p' |
		sed '/^config$/d; /^help$/d' | sort -u
}

# man_options SUB: the long options spank-ebpf(8)'s SYNOPSIS gives SUB, one
# a line, sorted: every synopsis entry (up to .br) naming SUB as a word.
man_options() {
	sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$man" | sed 's/\\-/-/g; s/\\f[BIRP]//g' |
		awk -v sub_="$1" '
		/^\.br/ || /^\.SH/ { if (has) print opts; has = 0; opts = ""; next }
		{
			line = $0
			sub(/^\.[A-Z]+ /, "", line)
			n = split(line, w, /[][ |]+/)
			for (i = 1; i <= n; i++) {
				if (w[i] == sub_)
					has = 1
				if (w[i] ~ /^--[a-z]/) {
					o = w[i]; sub(/^--/, "", o); sub(/=.*/, "", o)
					opts = opts " " o
				}
			}
		}
		END { if (has) print opts }' | tr ' ' '\n' | sed '/^$/d; /^help$/d' | sort -u
}

# wide TEXT: its lines over 80 columns, numbered, or nothing.
# Lines over 80 columns; the default config path's own line is the
# prefix configure was given (make distcheck's is long), not the text's.
wide() {
	printf '%s\n' "$1" | awk 'length($0) > 80 && $0 !~ /^ *\(default \/[^ ]*\)$/ { print NR ": " length($0) " columns: " $0 }'
}

invoke --help
is "--help: exit 0, nothing on stderr" "$rc:$err" "0:"
is "--help: no line over 80 columns" "$(wide "$out")" ""
help=$out
slurm_h="Run by Slurm, not by hand:"
systemd_h="Run by systemd, from the units the packages install:"
timers_h="Run by the plugin's timers:"
# names HEADING: the commands listed under HEADING (a description's
# continuation lines left out).
names() {
	section_lines "$help" "$1" | awk '/^  [a-z]/ { print $1 ($2 ~ /^--/ ? " " $2 : "") }'
}
commands=$(names "Commands:")
by_slurm=$(names "$slurm_h")
by_systemd=$(names "$systemd_h")
by_timers=$(names "$timers_h")
# The commands Slurm, systemd and the timers run, each once (report
# --peer is report's form, report itself is the admin's).
internal=$(printf '%s\n' "$by_slurm" "$by_systemd" "$by_timers" | grep -v ' ')
is "... the admin's commands, in the order an admin needs them" "$(echo $commands)" \
	'status report check-config metrics reconcile top summary help'
is "... then those Slurm runs" "$(echo $by_slurm)" 'prolog epilog epilog-slurmctld'
is "... then those systemd runs, report's service among them" "$(echo $by_systemd)" 'exporter admit report --peer'
is "... then the timers' own" "$(echo $by_timers)" 'linger-end'
# The headings' order: after the usage, the admin's commands come first.
is "... headings: the admin's commands first, then who runs the others" \
	"$(printf '%s\n' "$help" | grep -E '^[A-Z][^ ]*( [^ ]+)*:$' | head -n 4 | tr '\n' '|')" \
	"Commands:|$slurm_h|$systemd_h|$timers_h|"
unlike "... no command Slurm, systemd or a timer runs among the admin's" \
	"$(echo " $commands " | tr '\n' ' ')" " (prolog|epilog|epilog-slurmctld|exporter|admit|linger-end) "
like "... every command in one list or another, once" \
	"$(printf '%s\n' $commands $internal | sort | uniq -c | awk '$1 != 1' | wc -l) $(printf '%s\n' $commands $internal | wc -l)" '^0 14$'
invoke help
is "help: the same as --help" "$rc:$out" "0:$(env -i "$bin" --help)"
invoke
is "no command: its usage on stderr, no line over 80 columns" "$rc $(wide "$err")" "2 "

for c in $commands $internal; do
	invoke "$c" --help
	is "$c --help: exit 0, nothing on stderr" "$rc:$err" "0:"
	is "... no line over 80 columns" "$(wide "$out")" ""
	like "... its usage on stdout" "$out" "^usage: spank-ebpf (\[-c FILE\] )?$c( |\$)"
	like "... an Options: section with -h, --help" "$(section_lines "$out" "Options:")" '^  -h, --help'
	help=$out
	invoke "$c" -h
	is "$c -h: the same" "$rc:$out" "0:$help"
	invoke help "$c"
	is "help $c: the same" "$rc:$out" "0:$help"
	invoke -c /nonexistent "$c" --help
	is "-c FILE $c --help: the same, the file never read" "$rc:$out" "0:$help"
done

invoke status --bogus
is "unknown option: exit 2, nothing on stdout" "$rc:$out" "2:"
is "... names the subcommand and the option" "$(echo "$err" | head -n 1)" 'spank-ebpf: status: unknown option "--bogus"'
like "... says where --help is" "$err" "^Try 'spank-ebpf status --help'"
invoke check-config --sets=x FILE
like "an option given a value it does not take: exit 2, where --help is" "$rc $err" "^Try 'spank-ebpf check-config --help'"
is "... (exit 2)" "$rc" 2
invoke help frobnicate
like "help of an unknown command: exit 2" "$rc $err" '^2 spank-ebpf: help: unknown command "frobnicate"'
invoke -c /nonexistent status --node -h
unlike "-h as an option's value is the value, not a help request" "$out" '^usage:'
is "... (the command ran: exit 2, the file cannot be read or not root)" "$rc" 2

# --- drift: --help against spank-ebpf(8) ---
# The extraction itself, on a command whose options are known.
is "status's options as --help lists them" "$(help_options status | tr '\n' ' ')" "json node squeue "
is "status's options as spank-ebpf(8) lists them" "$(man_options status | tr '\n' ' ')" "json node squeue "
manual=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH /p' "$man" | sed 's/\\-/-/g')
for c in $commands $internal; do
	[ "$c" = help ] && continue
	like "spank-ebpf(8) SYNOPSIS has $c" "$manual" "(^|[ |])$c( |\$|\|)"
	is "$c: the same options in --help and in spank-ebpf(8)" \
		"$(help_options "$c" | tr '\n' ' ')" "$(man_options "$c" | tr '\n' ' ')"
done
done_testing
