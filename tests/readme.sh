#!/bin/bash
# The README stays a README: at most 250 lines (the rest lives in the man
# pages, docs/OPERATING.md and tests/README.md), and every file it links
# to or names as a command or path of this tree exists.
. "${srcdir:-.}/tests/lib/tap.sh"
top=${srcdir:-.}
readme=$top/README.md
[ -r "$readme" ] || bail "cannot read $readme"

lines=$(wc -l <"$readme")
ok_if "README.md: $lines lines, at most 250" test "$lines" -le 250

# Relative links: [text](path) and [text](path#anchor).
missing_links=
for l in $(grep -o '](\([^)#:]*\)[)#]' "$readme" | sed 's/^](//; s/[)#]$//' | sort -u); do
	[ -e "$top/$l" ] || missing_links="$missing_links $l"
done
is "README.md: every relative link names a file of the tree" "${missing_links# }" ""

# Paths of this tree it names in backquotes or code (tests/..., docs/...).
missing_paths=
for p in $(grep -oP '(?<![/\w.-])(tests|docs|bench|contrib|etc|probes|packaging)/[\w./@-]+\w' "$readme" | sort -u); do
	[ -e "$top/$p" ] || missing_paths="$missing_paths $p"
done
is "README.md: every path of the tree it names exists" "${missing_paths# }" ""
done_testing
