#!/bin/bash
# make test's three lanes (tests/Makefile.inc): every script of TESTS in
# exactly one lane, the one-container suites in theirs, the three-host
# suites in theirs, and a TESTS given on the command line (CI's sanitizer
# runs) never widened to suites it does not name.
. "${srcdir:-.}/tests/lib/tap.sh"
need_cmd make
builddir=${top_builddir:-.}
[ -f "$builddir/Makefile" ] || missing "a configured tree at $builddir"

# lanes [VAR=VALUE...]: "system: ...", "cluster: ...", "host: ...",
# "all: ...", as make sees them, whatever make runs this test (its
# MAKEFLAGS carry its TESTS).
lanes() {
	printf 'print-lanes:\n\t@echo "system: $(strip $(system_lane))"\n\t@echo "cluster: $(strip $(cluster_lane))"\n\t@echo "host: $(strip $(host_lane))"\n\t@echo "all: $(strip $(TESTS))"\n' |
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u TESTS \
		make -s --no-print-directory -C "$builddir" -f Makefile -f - print-lanes "$@"
}
lane() {
	sed -n "s/^$1: //p" <<<"$2"
}

out=$(lanes TESTS='tests/unit/test_sets tests/faces.sh')
is "TESTS of two host scripts: no system lane" "$(lane system "$out")" ""
is "  no cluster lane" "$(lane cluster "$out")" ""
is "  both in the host lane" "$(lane host "$out")" "tests/unit/test_sets tests/faces.sh"

out=$(lanes TESTS='tests/system/sid.sh tests/cluster/trixie.sh tests/faces.sh')
is "TESTS naming one suite of each kind: the system lane holds that one alone" \
	"$(lane system "$out")" "tests/system/sid.sh"
is "  the cluster lane, that one" "$(lane cluster "$out")" "tests/cluster/trixie.sh"
is "  the host lane, the rest" "$(lane host "$out")" "tests/faces.sh"

out=$(lanes TESTS='tests/packaging/deb.sh tests/packaging/deb-install.sh tests/packaging/rpm.sh')
is "TESTS of three package checks: the RPMs (no lock, no script waits for them) in the cluster lane" \
	"$(lane cluster "$out")" "tests/packaging/rpm.sh"
is "  the Debian packages and the install that waits for them, in the host lane" \
	"$(lane host "$out")" "tests/packaging/deb.sh tests/packaging/deb-install.sh"

out=$(lanes)
system=$(lane system "$out")
cluster=$(lane cluster "$out")
host=$(lane host "$out")
all=$(lane all "$out")
is "the whole suite: the system lane holds the system and VM suites and the scripts that hold no lock, bar the RPMs" "$system" \
	"tests/configure.sh tests/packaging/man.sh tests/packaging/make-install.sh tests/system/bookworm.sh tests/system/trixie.sh tests/system/sid.sh tests/system/repo-bookworm.sh tests/system/repo-trixie.sh tests/vm/trixie-6.12.sh tests/vm/sid-6.1.sh tests/vm/bookworm-5.10.sh tests/vm/two-nodes.sh tests/bench.sh"
is "  the RPMs first in the cluster lane (while the root filesystems build), then the three-host suites" "$cluster" \
	"tests/packaging/rpm.sh tests/packaging/rpm-repo.sh tests/cluster/bookworm.sh tests/cluster/trixie.sh tests/cluster/ansible.sh"
unlike "  no container or VM suite in the host lane" "$host" 'tests/(system|cluster|vm)/'
is "  every script in exactly one lane" \
	"$(printf '%s\n' $system $cluster $host | sort | uniq -c | awk '$1 != 1' | wc -l) $(printf '%s\n' $system $cluster $host | sort -u | wc -l)" \
	"0 $(printf '%s\n' $all | sort -u | wc -l)"
done_testing
