#!/bin/bash
# The release tarball carries every file of the git tree but CI's own
# (.ci/, .gitignore): a file named nowhere in EXTRA_DIST is missed only
# when make distcheck runs the test that needs it (the Ansible role's
# tasks/repo.yml did so: ansible-lint failed in the tarball alone).
. "${srcdir:-.}/tests/lib/tap.sh"
skip_in_distcheck "the tarball against the git tree"
need_cmd git make
top=${srcdir:-.}
builddir=${top_builddir:-.}
git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	missing "a git checkout at $top"
[ -f "$builddir/Makefile" ] || missing "a configured tree at $builddir"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$builddir" distdir distdir="$tmp/d" \
	>"$tmp/log" 2>&1
rc=$?
is "make distdir into a scratch directory (exit $rc)" "$rc" 0 || show "$(tail -20 "$tmp/log")"
(cd "$tmp/d" 2>/dev/null && find . -type f | sed 's|^\./||' | sort) >"$tmp/dist"
git -C "$top" ls-files | grep -v -E '^(\.ci/|\.gitignore$)' | sort >"$tmp/git"
not_shipped=$(comm -13 "$tmp/dist" "$tmp/git" | tr '\n' ' ')
is "every tracked file is in the tarball" "${not_shipped% }" ""
ok_if "  the tarball: $(wc -l <"$tmp/dist") files, no fewer than the $(wc -l <"$tmp/git") tracked" \
	test "$(wc -l <"$tmp/dist")" -ge "$(wc -l <"$tmp/git")"
done_testing
