#!/bin/bash
# The README stays a README: at most 250 lines (the rest lives in the man
# pages, docs/OPERATING.md and tests/README.md), and every file it links
# to or names as a command or path of this tree exists. SECURITY.md backs
# each claim with a test: every test it names (a path, or a unit test by
# name) exists, so a claim cannot outlive its proof.
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

security=$top/SECURITY.md
[ -r "$security" ] || bail "cannot read $security"
missing=
for p in $(grep -oP '(?<![/\w.-])(tests|docs|probes|src)/[\w./@-]+\w' "$security" | sort -u); do
	[ -e "$top/$p" ] || missing="$missing $p"
done
for t in $(grep -oP '`\Ktest_\w+(?=`)' "$security" | sort -u); do
	[ -e "$top/tests/unit/$t.c" ] || missing="$missing $t"
done
is "SECURITY.md: every test and path it names exists" "${missing# }" ""
done_testing
