#!/bin/bash
# docs/ARCHITECTURE.md stays true: at most 250 lines, every module of the
# two libraries named (as `name`), every subcommand of the command's
# table (main.c) in "Who runs what", every path of the tree it names
# existing. A module or subcommand added without its line fails here.
. "${srcdir:-.}/tests/lib/tap.sh"
top=${srcdir:-.}
doc=$top/docs/ARCHITECTURE.md
[ -r "$doc" ] || bail "cannot read $doc"

lines=$(wc -l <"$doc")
ok_if "docs/ARCHITECTURE.md: $lines lines, at most 250" test "$lines" -le 250

mods=$(cd "$top/src" && ls common/*.c libadmin/*.c 2>/dev/null | sed 's|.*/||; s|\.c$||')
ok_if "the libraries' modules listed ($(echo $mods | wc -w))" test -n "$mods"
unnamed=
for m in $mods; do
	grep -q "\`$m\`" "$doc" || unnamed="$unnamed $m"
done
is "every module of src/common and src/libadmin is named" "${unnamed# }" ""

cmds=$(sed -n 's/^[[:space:]]*{ "\([a-z-]*\)", cmd_.*/\1/p' "$top/src/spank-ebpf/main.c" | grep -vx help)
ok_if "the command's subcommands read from main.c ($(echo $cmds | wc -w))" test "$(echo $cmds | wc -w)" -ge 8
who=$(sed -n '/^## Who runs what/,/^## /p' "$doc")
unnamed=
for c in $cmds; do
	grep -q "\`$c[\` ]" <<<"$who" || unnamed="$unnamed $c"
done
is "every subcommand has its line in \"Who runs what\"" "${unnamed# }" ""

missing=
for p in $(grep -oP '(?<![/\w.-])(tests|docs|bench|contrib|etc|probes|packaging|src)/[\w./@*-]+\w' "$doc" | sort -u); do
	compgen -G "$top/$p" >/dev/null || missing="$missing $p"
done
is "every path of the tree it names exists" "${missing# }" ""
done_testing
