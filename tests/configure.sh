#!/bin/sh
# configure against Slurm trees it is given: a clear error naming the
# missing header, the version read from SLURM_VERSION_NUMBER (full and
# major.minor), the plugin directory (given or detected) in the summary,
# a refusal of releases older than 22.05, and the bash completion's
# directory.
. "${srcdir:-.}/tests/lib/tap.sh"
need_cmd cp grep tar

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A private copy of the source tree: configure runs in-tree there, so this
# works whether or not $srcdir itself is configured.
mkdir "$work/src"
tar -C "$srcdir" --exclude=./.git --exclude=./_ci --exclude='*.o' --exclude='*.lo' \
	--exclude=.libs -cf - . | tar -C "$work/src" -xf -
(cd "$work/src" && rm -f config.status config.cache)

fake_slurm() { # DIR VERSION_NUMBER
	mkdir -p "$1/include/slurm"
	for h in spank.h slurm_errno.h; do
		if [ -f "/usr/include/slurm/$h" ]; then
			cp "/usr/include/slurm/$h" "$1/include/slurm/"
		else
			echo "/* stand-in */" > "$1/include/slurm/$h"
		fi
	done
	printf '#define SLURM_VERSION_NUMBER %s\n#define SLURM_VERSION_NUM(a,b,c) (((a) << 16) + ((b) << 8) + (c))\n' \
		"$2" > "$1/include/slurm/slurm_version.h"
}

run_configure() { # LOG ARGS...
	log=$1
	shift
	(cd "$work/src" && ./configure "$@") > "$log" 2>&1
}

run_configure "$work/none.log" --with-slurm="$work/nonexistent"
rc=$?
ok_if "missing headers: configure fails" test "$rc" -ne 0
ok_if "... naming the header and the prefix" \
	grep -q "slurm/spank.h not found in $work/nonexistent" "$work/none.log"
ok_if "... and telling which package provides it" grep -q "libslurm-dev" "$work/none.log"

fake_slurm "$work/s2411" 0x180b05
run_configure "$work/2411.log" --with-slurm="$work/s2411" --with-slurm-plugindir=/opt/slurm/plugins
ok_if "fake Slurm 24.11.5: configure succeeds" test $? -eq 0
ok_if "... version in the summary (full and major.minor)" \
	grep -q "Slurm version ........ 24.11.5 (plugin API 24.11)" "$work/2411.log"
ok_if "... plugin directory as given" grep -q "plugin directory ..... /opt/slurm/plugins" "$work/2411.log"
ok_if "... SLURM_MAJMIN substituted" grep -q "^SLURM_MAJMIN = 24.11$" "$work/src/Makefile"
ok_if "... SLURM_VERSION substituted" grep -q "^SLURM_VERSION = 24.11.5$" "$work/src/Makefile"

fake_slurm "$work/s2605" 0x1a0503
run_configure "$work/2605.log" --with-slurm="$work/s2605" --with-systemctl=/opt/bin/systemctl --prefix=/usr/local
ok_if 'fake Slurm 26.05.3 with no plugin tree: $libdir/slurm, shown expanded' \
	grep -q "plugin directory ..... /usr/local/lib/slurm$" "$work/2605.log"
ok_if "... version 26.05.3" grep -q "26.05.3 (plugin API 26.05)" "$work/2605.log"
ok_if "... systemctl as given, compiled in" grep -q 'SYSTEMCTL_PATH=\\"/opt/bin/systemctl\\"' "$work/src/Makefile"

run_configure "$work/rel.log" --with-slurm="$work/s2605" --with-systemctl=systemctl
ok_if "relative --with-systemctl refused" grep -q "needs an absolute path" "$work/rel.log"

# The bash completion's directory: bash-completion's (a stand-in
# pkg-config answering for it alone) when under the prefix, else under
# $datadir (a scratch prefix, make distcheck); given; none; not relative.
# Every other question (json-c, libcurl) goes to the real one.
real_pkg_config=$(command -v pkg-config) || missing "pkg-config"
printf '#!/bin/sh\ncase "$*" in\n*atleast-pkgconfig-version*) exit 0 ;;\n*completionsdir*bash-completion*) echo /usr/share/bash-completion/completions ;;\n*bash-completion*) exit 1 ;;\n*) exec %s "$@" ;;\nesac\n' "$real_pkg_config" >"$work/pkg-config"
chmod 0755 "$work/pkg-config"
run_configure "$work/bc-usr.log" --with-slurm="$work/s2605" --prefix=/usr PKG_CONFIG="$work/pkg-config"
ok_if "bash completion: pkg-config's directory, under the prefix /usr" \
	grep -q "^bashcompletiondir = /usr/share/bash-completion/completions$" "$work/src/Makefile"
run_configure "$work/bc-opt.log" --with-slurm="$work/s2605" --prefix=/opt/x PKG_CONFIG="$work/pkg-config"
ok_if "... outside the prefix /opt/x: under \$datadir" \
	grep -q '^bashcompletiondir = ${datadir}/bash-completion/completions$' "$work/src/Makefile"
ok_if "... shown in the summary" grep -q "bash completion dir .. \${datadir}/bash-completion/completions" "$work/bc-opt.log"
run_configure "$work/bc-dir.log" --with-slurm="$work/s2605" --with-bash-completion-dir=/etc/bc
ok_if "... as given" grep -q "^bashcompletiondir = /etc/bc$" "$work/src/Makefile"
run_configure "$work/bc-no.log" --with-slurm="$work/s2605" --without-bash-completion-dir
ok_if "... none: not installed" grep -q "bash completion dir .. none" "$work/bc-no.log"
run_configure "$work/bc-rel.log" --with-slurm="$work/s2605" --with-bash-completion-dir=bc
ok_if "... a relative one refused" grep -q 'needs an absolute path, not "bc"' "$work/bc-rel.log"

# The admin command's libraries: a pkg-config that knows neither json-c
# nor libcurl (each asked in turn) fails configure, naming the package.
for lib in json-c libcurl; do
	printf '#!/bin/sh\ncase "$*" in\n*%s*) exit 1 ;;\n*) exec %s "$@" ;;\nesac\n' "$lib" "$real_pkg_config" >"$work/pkg-config-no-$lib"
	chmod 0755 "$work/pkg-config-no-$lib"
	run_configure "$work/no-$lib.log" --with-slurm="$work/s2605" PKG_CONFIG="$work/pkg-config-no-$lib"
	rc=$?
	case $lib in
	json-c) pkg="libjson-c-dev (Debian, Ubuntu) or json-c-devel (EL, Fedora)" ;;
	libcurl) pkg="libcurl4-openssl-dev (Debian, Ubuntu) or libcurl-devel (EL, Fedora)" ;;
	esac
	ok_if "no $lib: configure fails, naming it and its packages" \
		sh -c "test $rc -ne 0 && grep -q '$lib [0-9.]* or newer not found' '$work/no-$lib.log' && grep -qF '$pkg' '$work/no-$lib.log'"
done

# top's full screen: a pkg-config that knows no ncurses (wide or narrow)
# still configures, saying top prints plain text; --with-ncurses then
# fails, naming the packages.
printf '#!/bin/sh\ncase "$*" in\n*ncurses*) exit 1 ;;\n*) exec %s "$@" ;;\nesac\n' "$real_pkg_config" >"$work/pkg-config-no-ncurses"
chmod 0755 "$work/pkg-config-no-ncurses"
run_configure "$work/no-ncurses.log" --with-slurm="$work/s2605" PKG_CONFIG="$work/pkg-config-no-ncurses"
rc=$?
ok_if "no ncurses: configure succeeds, its summary saying top prints plain text" \
	sh -c "test $rc -eq 0 && grep -q '^    ncurses .............. no: spank-ebpf top prints plain text only, no full screen$' '$work/no-ncurses.log'"
run_configure "$work/with-ncurses.log" --with-slurm="$work/s2605" --with-ncurses PKG_CONFIG="$work/pkg-config-no-ncurses"
rc=$?
ok_if "... --with-ncurses: configure fails, naming its packages" \
	sh -c "test $rc -ne 0 && grep -qF 'install libncurses-dev (Debian, Ubuntu) or ncurses-devel (EL, Fedora)' '$work/with-ncurses.log'"
run_configure "$work/ncurses.log" --with-slurm="$work/s2605"
ok_if "with ncurses: the summary names it" grep -q '^    ncurses .............. [0-9].* (ncursesw\{0,1\}: the full screen of spank-ebpf top)$' "$work/ncurses.log"

# make dist carries libtool's macros (debian/copyright names them): by
# EXTRA_DIST, not by automake's traces, which autoreconf may take before
# libtoolize has copied them (lintian then: superfluous-file-pattern).
for m in libtool.m4 ltoptions.m4 ltsugar.m4 ltversion.m4 'lt~obsolete.m4'; do
	ok_if "make dist carries m4/$m (Makefile.in's dist list)" grep -qF "m4/$m" "$srcdir/Makefile.in"
done

# No generated file is tracked: none beside its .in source (make writes
# it with the configured paths), and make distclean deletes no file of the
# repository (etc/ebpf_exporter.service and spank-ebpf-exporter@.service
# once were both). Run where $srcdir is the top of a git work tree (not
# in a tarball, nor in make distcheck's copy inside a work tree).
if [ "$(git -C "$srcdir" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$srcdir" && pwd -P)" ]; then
	tracked=$(git -C "$srcdir" ls-files)
	beside=$(printf '%s\n' "$tracked" | sed -n 's/\.in$//p' | while IFS= read -r f; do
		printf '%s\n' "$tracked" | grep -Fqx -- "$f" && printf '%s\n' "$f"
	done)
	is "no file tracked beside its .in source" "$beside" ""
	run_configure "$work/dc.log" --with-slurm="$work/s2605"
	(cd "$work/src" && make distclean) >"$work/distclean.log" 2>&1
	ok_if "make distclean succeeds" test $? -eq 0
	gone=$(printf '%s\n' "$tracked" | while IFS= read -r f; do
		[ -e "$srcdir/$f" ] && [ ! -e "$work/src/$f" ] && printf '%s\n' "$f"
	done)
	is "... and deletes no tracked file" "$gone" ""
else
	skip_point "no generated file tracked: $srcdir is not the top of a git work tree"
fi

fake_slurm "$work/s2108" 0x150800
run_configure "$work/2108.log" --with-slurm="$work/s2108"
ok_if "Slurm 21.08: refused as too old" grep -q "21.08.0 is too old: 22.05 or later" "$work/2108.log"
done_testing
