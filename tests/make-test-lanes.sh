#!/bin/bash
# make test's two lanes (tests/Makefile.inc): every script of TESTS in
# exactly one lane, the container suites in theirs, and a TESTS given on
# the command line (CI's sanitizer runs) never widened to suites it does
# not name.
. "${srcdir:-.}/tests/lib/tap.sh"
need_cmd make
builddir=${top_builddir:-.}
[ -f "$builddir/Makefile" ] || missing "a configured tree at $builddir"

# lanes [VAR=VALUE...]: "container: ...", "host: ...", "all: ...", as make
# sees them, whatever make runs this test (its MAKEFLAGS carry its TESTS).
lanes() {
	printf 'print-lanes:\n\t@echo "container: $(strip $(container_lane))"\n\t@echo "host: $(strip $(host_lane))"\n\t@echo "all: $(strip $(TESTS))"\n' |
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u TESTS \
		make -s --no-print-directory -C "$builddir" -f Makefile -f - print-lanes "$@"
}

out=$(lanes TESTS='tests/unit/test_sets tests/faces.sh')
is "TESTS of two host scripts: no container lane" "$(sed -n 's/^container: //p' <<<"$out")" ""
is "  both in the host lane" "$(sed -n 's/^host: //p' <<<"$out")" "tests/unit/test_sets tests/faces.sh"

out=$(lanes TESTS='tests/system/sid.sh tests/faces.sh')
is "TESTS naming one container suite: that one alone in the container lane" \
	"$(sed -n 's/^container: //p' <<<"$out")" "tests/system/sid.sh"
is "  the other in the host lane" "$(sed -n 's/^host: //p' <<<"$out")" "tests/faces.sh"

out=$(lanes)
container=$(sed -n 's/^container: //p' <<<"$out")
host=$(sed -n 's/^host: //p' <<<"$out")
all=$(sed -n 's/^all: //p' <<<"$out")
like "the whole suite: the system suites in the container lane" "$container" 'tests/system/bookworm\.sh tests/system/trixie\.sh tests/system/sid\.sh'
like "  and the cluster suites" "$container" 'tests/cluster/bookworm\.sh tests/cluster/trixie\.sh tests/cluster/ansible\.sh'
unlike "  no container suite in the host lane" "$host" 'tests/(system|cluster)/'
is "  every script in exactly one lane" \
	"$(printf '%s\n' $container $host | sort | uniq -c | awk '$1 != 1' | wc -l) $(printf '%s\n' $container $host | sort -u | wc -l)" \
	"0 $(printf '%s\n' $all | sort -u | wc -l)"
done_testing
