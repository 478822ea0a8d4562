# Shared by tests/packaging/*.sh, sourced after tests/lib/tap.sh: paths of the
# configured tree, comparisons that show what differed, and package builds
# serialised under a lock (deb.sh and rpm.sh both run `make dist` in the
# same build directory).

top_builddir=${top_builddir:-$(pwd)}
PKG_DIR=$top_builddir/_pkg
# make distcheck's own install/uninstall checks cover the tarball's layout.
skip_in_distcheck "packaging test"

# A variable of the configured top-level Makefile: mkvar SLURM_MAJMIN
mkvar() {
	sed -n "s/^$1 = //p" "$top_builddir/Makefile" | head -n 1
}

# A make variable of the configured tree, fully expanded: mkexpand slurmconfdir
mkexpand() {
	(
		unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
		printf 'pkglib-print-var:\n\t@echo $(%s)\n' "$1" |
			make -s --no-print-directory -C "$top_builddir" -f Makefile -f - pkglib-print-var
	) 2>/dev/null
}

VERSION=$(mkvar PACKAGE_VERSION)
SLURM_MAJMIN=$(mkvar SLURM_MAJMIN)
# The first release Slurm's plugin check refuses: 22.05 -> 22.06~.
SLURM_NEXT=$(echo "$SLURM_MAJMIN" | awk -F. '{ printf "%d.%02d~", $1, $2 + 1 }')

# is, like, unlike (tests/lib/tap.sh) do the comparisons.

# pk_has DESC TEXT STRING: TEXT contains STRING (fixed string).
pk_has() {
	case $2 in *"$3"*) tap_point "$1" 0 && return 0 ;; esac
	tap_point "$1" 1
	echo "#   missing: $3"
	echo "#   in:"
	show "$(printf '%s\n' "$2" | tail -n 30)"
	return 1
}

# pk_ok DESC CMD...: like ok_if, but shows the command's output on failure.
pk_ok() {
	local desc=$1 out
	shift
	out=$("$@" 2>&1)
	tap_point "$desc" $? && return 0
	show "$(printf '%s\n' "$out" | tail -n 30)"
	return 1
}

# The non-comment, non-blank lines of a plugstack file.
active_lines() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$@" | grep -v '^[[:space:]]*$'
}

# pkg_make TARGET [VAR=VALUE...]: runs make in the top build directory,
# outside the make that runs the tests, output in _pkg/TARGET.log.
pkg_make() {
	local target=$1
	shift
	mkdir -p "$PKG_DIR"
	(
		unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
		# The package's own test step (rpm's %check, dh_auto_test)
		# runs the unit tests, which the suite runs in full itself:
		# their stress tests with fewer trials and processes here.
		export TEST_KILL_TRIALS=${TEST_KILL_TRIALS:-100} TEST_STRESS_PROCS=${TEST_STRESS_PROCS:-8}
		cd "$top_builddir" && make "$target" "$@"
	) >"$PKG_DIR/$target.log" 2>&1
}

# with_pkg_lock CMD...: one package build at a time in this tree.
with_pkg_lock() {
	mkdir -p "$PKG_DIR"
	(
		flock -w 1800 8 || { echo "could not lock $PKG_DIR/lock" >&2; exit 1; }
		"$@"
	) 8>>"$PKG_DIR/lock"
}

# pkg_build deb|rpm [VAR=VALUE...]: `make deb` or `make rpm`, then removes
# the release tarball if this build created it (so that distcheck's
# distcleancheck finds nothing left behind). Fails with the log's tail.
_pkg_build() {
	local target=$1 tarball rc=0 had=
	shift
	tarball=$top_builddir/$(mkvar PACKAGE)-$VERSION.tar.xz
	[ -e "$tarball" ] && had=yes
	pkg_make "$target" "$@" || rc=$?
	[ -n "$had" ] || rm -f "$tarball"
	if [ "$rc" -ne 0 ]; then
		# A failed test of the package's own check (rpm's %check,
		# dh_auto_test) is far above the log's end: it comes last, as
		# pk_ok shows the last 30 lines.
		diag "make $target failed; the end of $PKG_DIR/$target.log:"
		show "$(tail -n 12 "$PKG_DIR/$target.log")"
		diag "its failed tests:"
		show "$(grep -E '^(FAIL|ERROR|XPASS):|^not ok|Bail out' "$PKG_DIR/$target.log" | head -n 12)"
	fi
	return "$rc"
}

pkg_build() {
	with_pkg_lock _pkg_build "$@"
}
