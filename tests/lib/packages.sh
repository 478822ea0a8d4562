# This tree's Debian packages for the containers: the `make dist` tarball,
# built inside a container with that release's Slurm headers as `make
# deb` builds it, installed with apt. For tests/lib/system.sh (and, by
# role, multihost.sh); through ct (tests/lib/container.sh), with RUN, SUITE,
# SYS_BUILDDIR and NODE_ROOT set by sys_setup and the boot.

# The tarball to build from: $SYSTEM_TARBALL, or what `make dist` makes of
# this tree (`make distdir` into the run directory, then tar, so that the
# tree's own tarball is never touched).
sys_tarball() {
	local name
	if [ -n "${SYSTEM_TARBALL:-}" ]; then
		[ -f "$SYSTEM_TARBALL" ] || bail "SYSTEM_TARBALL=$SYSTEM_TARBALL does not exist"
		TARBALL=$SYSTEM_TARBALL
		return 0
	fi
	[ -f "$SYS_BUILDDIR/Makefile" ] || missing "a configured tree at $SYS_BUILDDIR (./configure) for make dist"
	name=$(sed -n 's/^PACKAGE_TARNAME = //p' "$SYS_BUILDDIR/Makefile")-$(sed -n 's/^PACKAGE_VERSION = //p' "$SYS_BUILDDIR/Makefile")
	mkdir -p "$RUN/dist"
	if ! make -s -C "$SYS_BUILDDIR" distdir distdir="$RUN/dist/$name" top_distdir="$RUN/dist/$name" \
		>"$RUN/log/dist.log" 2>&1 ||
		! tar -C "$RUN/dist" -cJf "$RUN/dist/$name.tar.xz" "$name" 2>>"$RUN/log/dist.log"; then
		show "$(tail -n 30 "$RUN/log/dist.log")"
		bail "make distdir failed"
	fi
	TARBALL=$RUN/dist/$name.tar.xz
}

# sys_install: builds the packages from TARBALL inside the container, with
# that release's Slurm headers, and installs them; adds the test user.
sys_install() {
	local t0
	cp "$TARBALL" "$NODE_ROOT$SYS_CDIR/build/"
	SLURM_VERSION=$(ct dpkg-query -W -f='${Version}' slurmd 2>/dev/null)
	SLURM_MAJMIN=$(echo "$SLURM_VERSION" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')
	diag "$SUITE: Slurm $SLURM_VERSION, $(ct bpftrace --version 2>&1), systemd $(ct dpkg-query -W -f='${Version}' systemd)"
	t0=$(date +%s)
	SYS_BUILD_HOW= SYS_DEBS_FROM=
	_sys_build_debs
	diag "$SUITE: built and installed in $(($(date +%s) - t0)) s: $SYS_BUILD_HOW${SYS_DEBS_FROM:+; packages $SYS_DEBS_FROM}"
	ct useradd -m -s /bin/sh "$SYS_USER" || bail "useradd failed"
}

# sys_build_debs: the packages, as `make deb` builds them (packaging/debian,
# dist tarball), built from TARBALL inside the container `ct` runs in;
# SYS_DEBS lists them there, and they are copied to $RUN/debs for other
# containers. Returns 1 when the tarball has no packaging/debian. In
# $SYS_BUILD_DIR in the container when set (another tree of the same name).
#
# The build is the same for every suite of a release given the same
# sources (the cached root filesystem, the tarball's files): the first
# suite to need it builds, and the next ones (the cluster, Ansible and
# benchmark runs of that release) install what it built, from
# $SYS_CACHE/debs/KEY. SYSTEM_DEB_REUSE=no builds every time.
sys_build_debs() {
	# One build per release at a time, so that a suite beside this one
	# (another lane) waits and installs what this one built.
	sys_locked "$SYS_CACHE/debs/$SUITE.lock" _sys_build_debs_locked
}

_sys_build_debs_locked() {
	local b=${SYS_BUILD_DIR:-$SYS_CDIR/build} tb rc debs d key kept
	tb=$(basename "$TARBALL")
	tar -tJf "$TARBALL" | grep -q '/packaging/debian/control$' || return 1
	mkdir -p "$NODE_ROOT$b" "$RUN/debs"
	key=$(_sys_debs_key)
	kept=$SYS_CACHE/debs/$key
	if [ "${SYSTEM_DEB_REUSE:-yes}" != no ] && [ -n "$key" ] && [ -f "$kept/done" ]; then
		# Not under a _pkg/deb/ directory: a later build here (the
		# Ansible run's newer one) lists what it made from those.
		mkdir -p "$NODE_ROOT$b/kept-$key"
		cp "$kept"/*.deb "$NODE_ROOT$b/kept-$key/" || bail "could not copy the packages of $kept"
		SYS_DEBS=$(cd "$kept" && ls -- *.deb | sed "s|^|$b/kept-$key/|")
		cp "$kept"/*.deb "$RUN/debs/"
		SYS_DEBS_FROM="built earlier from the same sources on the same $SUITE root ($kept)"
		return 0
	fi
	cp "$TARBALL" "$NODE_ROOT$b/"
	ct sh -c "cd $b && tar -xJf $tb && cd \$(tar -tJf $tb | head -n 1 | cut -d/ -f1) &&
		./configure -q && DEB_BUILD_OPTIONS='nocheck parallel=2' make deb" \
		>"$RUN/log/build.log" 2>&1
	rc=$?
	debs=$(cd "$NODE_ROOT$b" && find . -path '*/_pkg/deb/*.deb' | sort)
	if [ "$rc" -ne 0 ] || [ -z "$debs" ]; then
		show "$(tail -n 40 "$RUN/log/build.log")"
		bail "$SUITE: building the packages failed (log: $RUN/log/build.log)"
	fi
	SYS_DEBS=$(echo "$debs" | sed "s|^\./|$b/|" | grep -v -- '-dbgsym_')
	for d in $SYS_DEBS; do
		cp "$NODE_ROOT$d" "$RUN/debs/" || bail "could not copy $d out of the container"
	done
	SYS_DEBS_FROM="built here"
	[ -n "$key" ] || return 0
	# Kept for the next suites: complete, or not at all; a suite of the
	# same release running beside this one may keep the same first.
	local tmp
	tmp=$(mktemp -d "$kept.new.XXXXXX") &&
		(for d in $SYS_DEBS; do cp "$NODE_ROOT$d" "$tmp/" || exit 1; done) &&
		touch "$tmp/done" && { mv -T "$tmp" "$kept" 2>/dev/null || [ -f "$kept/done" ]; } ||
		diag "could not keep the packages in $kept (the next suite builds them again)"
	rm -rf "${tmp:-/nonexistent}"
	# The newest ten builds stay.
	ls -1dt "$SYS_CACHE"/debs/*/ 2>/dev/null | tail -n +11 | xargs -r rm -rf
}

# _sys_debs_key: what the build depends on: the release's root filesystem
# (its stamp and age) and every file of the tarball, read from the
# directory it was made of beside it (contents, not the tar stream, whose
# directory times differ from run to run); nothing without that directory.
_sys_debs_key() {
	local dist=${TARBALL%.tar.xz}
	[ -d "$dist" ] && [ -f "$SYS_CACHE/$SUITE/stamp" ] || return 0
	{
		echo "$SUITE"
		cat "$SYS_CACHE/$SUITE/stamp"
		stat -c %Y "$SYS_CACHE/$SUITE/stamp"
		(cd "$dist" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
	} | sha256sum | cut -c1-32
}

# The packages (sys_build_debs), installed with apt; without
# packaging/debian, ./configure && make && make install (an interim step,
# reported as such).
_sys_build_debs() {
	local b=$SYS_CDIR/build tb
	tb=$(basename "$TARBALL")
	if sys_build_debs; then
		SYS_BUILD_HOW="Debian packages (./configure && make deb)"
		if ! ct apt-get install -y --no-install-recommends $SYS_DEBS >"$RUN/log/install.log" 2>&1; then
			show "$(tail -n 20 "$RUN/log/install.log")"
			bail "$SUITE: apt-get install of the packages failed"
		fi
		SYS_INSTALLED=packages
	else
		SYS_BUILD_HOW="INTERIM: no packaging/debian in the tarball, ./configure && make && make install"
		ct sh -c "cd $b && tar -xJf $tb && cd \$(tar -tJf $tb | head -n 1 | cut -d/ -f1) &&
			./configure -q && make -s && make -s install" >"$RUN/log/build.log" 2>&1 ||
			{ show "$(tail -n 40 "$RUN/log/build.log")"; bail "$SUITE: build failed"; }
		SYS_INSTALLED=make-install
	fi
}

# sys_exporter_provider ROOT: the test's own "site build" of ebpf_exporter
# installed in the root filesystem ROOT (not booted yet): an empty package
# that provides ebpf-exporter-binary, as a site with its own build would
# (docs/OPERATING.md, "Installing ebpf_exporter"), so that
# slurm-spank-ebpf-probes installs without the ebpf-exporter package: the
# suites put the stand-in or build.sh's binary in place themselves. Made
# once per run; dpkg --root, which runs no script (the package has none).
# SYS_BARE=1 (a clean node installing from the repository) skips it.
SYS_PROVIDER=sse-test-exporter-provider
sys_exporter_provider() {
	local root=$1 d deb
	[ -z "${SYS_BARE:-}" ] || return 0
	d=$RUN/provider
	deb=$d/${SYS_PROVIDER}_1_all.deb
	if [ ! -f "$deb" ]; then
		mkdir -p "$d/pkg/DEBIAN"
		cat >"$d/pkg/DEBIAN/control" <<CTL
Package: $SYS_PROVIDER
Version: 1
Architecture: all
Maintainer: slurm-spank-ebpf tests <tests@invalid>
Provides: ebpf-exporter-binary
Description: slurm-spank-ebpf tests: a site's own ebpf_exporter
 Stands for a site's own build of ebpf_exporter in the test containers.
CTL
		dpkg-deb --root-owner-group -Zxz --build "$d/pkg" "$deb" >"$RUN/log/provider.log" 2>&1 ||
			{ show "$(cat "$RUN/log/provider.log")"; bail "dpkg-deb --build of $SYS_PROVIDER failed"; }
	fi
	dpkg --root="$root" --force-script-chrootless -i "$deb" >>"$RUN/log/provider.log" 2>&1 ||
		{ show "$(tail -n 5 "$RUN/log/provider.log")"; bail "dpkg --root=$root -i $SYS_PROVIDER failed"; }
}

# sys_newer_tarball WHY: "version N+1" of TARBALL: the same tree with a new
# Debian revision in the changelog (its entry saying WHY) and a comment
# more in the packaged spank_ebpf.conf, so that the upgrade brings a new
# conffile, in $RUN/dist2. Sets SYS_NEWER_TARBALL, SYS_NEWER_FROM (the
# version TARBALL builds) and SYS_NEWER_V (the new one).
sys_newer_tarball() {
	local name dir
	name=$(basename "$TARBALL" .tar.xz)
	dir=$RUN/dist2/$name
	rm -rf "$dir"
	mkdir -p "$RUN/dist2"
	tar -C "$RUN/dist2" -xJf "$TARBALL" || bail "could not unpack $TARBALL"
	SYS_NEWER_FROM=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' "$dir/packaging/debian/changelog")
	SYS_NEWER_V=${SYS_NEWER_FROM%-*}-$((${SYS_NEWER_FROM##*-} + 1))
	{
		printf '%s (%s) unstable; urgency=medium\n\n' "$(sed -n '1s/ .*//p' "$dir/packaging/debian/changelog")" "$SYS_NEWER_V"
		printf '  * %s.\n\n' "$1"
		# The date of the entry before it: the same sources every run,
		# so that the build is kept and reused (_sys_debs_key).
		printf ' -- slurm-spank-ebpf tests <tests@localhost>  %s\n\n' \
			"$(sed -n 's/^ -- .*>  //p' "$dir/packaging/debian/changelog" | head -n 1)"
		cat "$dir/packaging/debian/changelog"
	} >"$dir/packaging/debian/changelog.new" && mv "$dir/packaging/debian/changelog.new" "$dir/packaging/debian/changelog"
	sed -i '1a # (rebuilt for the upgrade test)' "$dir/etc/spank_ebpf.conf.in"
	tar -C "$RUN/dist2" -cJf "$RUN/dist2/$name.tar.xz" "$name" || bail "could not pack the newer tarball"
	SYS_NEWER_TARBALL=$RUN/dist2/$name.tar.xz
}

# sys_pkg_versions PACKAGE...: "PACKAGE VERSION" per package as dpkg has
# it installed in the container, "PACKAGE -" when it is not.
sys_pkg_versions() {
	local p v
	for p in "$@"; do
		v=$(ct dpkg-query -W -f='${db:Status-Status} ${Version}' "$p" 2>/dev/null)
		case $v in installed\ *) echo "$p ${v#installed }" ;; *) echo "$p -" ;; esac
	done
}
