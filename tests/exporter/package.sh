#!/bin/bash
# The ebpf-exporter Debian package (packaging/ebpf-exporter), built once and
# cached as a test dependency, as a site builds it: `make exporter-dist`'s
# tarball (packaging/ebpf-exporter/dist.sh: the pinned module, vendored),
# then packaging/ebpf-exporter/deb.sh in build.sh's trixie build root (its
# clang, libbpf-dev, libelf-dev from trixie-backports), with the rest of
# the Build-Depends (golang-go, debhelper) installed there by apt for the
# build only (--volatile=overlay: the root is not changed) and no access to
# the Go module proxy (GOPROXY=off in debian/rules: the vendored modules
# only).
#
#   tests/exporter/package.sh        (as root)
#
# Last line of output, on success: deb=<cache>/deb-<key>/ebpf-exporter_V_ARCH.deb
# Errors: a message on stderr, non-zero exit. Environment as build.sh's
# (EXPORTER_CACHE, EXPORTER_GO); EXPORTER_REFRESH=1 rebuilds.
set -u -o pipefail

PKG_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PKG_CACHE=${EXPORTER_CACHE:-${SYSTEM_CACHE:-/var/cache/slurm-spank-ebpf-tests}/exporter}
PKG_SRC=$PKG_TOP/packaging/ebpf-exporter
PKG_PATH=/usr/sbin:/usr/bin:/sbin:/bin

pkg_fatal() {
	echo "package.sh: error: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || pkg_fatal "must run as root (systemd-nspawn)"
# The build root (and the module cache dist.sh downloads into) are
# build.sh's: it makes or checks them.
out=$("$PKG_TOP/tests/exporter/build.sh" 2>&1) ||
	pkg_fatal "tests/exporter/build.sh failed: $(printf '%s\n' "$out" | tail -n 5)"
ROOT=$PKG_CACHE/buildroot/root
[ -x "$ROOT/usr/bin/clang" ] || pkg_fatal "no build root in \"$PKG_CACHE/buildroot\""

# The result's key: the packaging's files and the build root's stamp.
key=$( (cd "$PKG_SRC" && find . -type f | sort | xargs sha256sum; cat "$PKG_CACHE/buildroot/stamp") |
	sha256sum | cut -c1-16)
dir=$PKG_CACHE/deb-$key
exec 8>>"$PKG_CACHE/.deb.lock" || pkg_fatal "cannot open \"$PKG_CACHE/.deb.lock\""
flock -w "${EXPORTER_LOCK_WAIT:-3600}" 8 || pkg_fatal "could not take \"$PKG_CACHE/.deb.lock\""
if [ -z "${EXPORTER_REFRESH:-}" ] && [ -f "$dir/done" ]; then
	echo "# ebpf-exporter package: cached in $dir"
	echo "deb=$(ls "$dir"/ebpf-exporter_*.deb | grep -v dbgsym | head -n 1)"
	exit 0
fi
t0=$(date +%s)
new=$dir.new
rm -rf "$new"
mkdir -p "$new/work"
log=$new/build.log
tb=$(EXPORTER_GOMODCACHE=$PKG_CACHE/gomod "$PKG_SRC/dist.sh" "$new/work" 2>>"$log") ||
	pkg_fatal "packaging/ebpf-exporter/dist.sh failed: $(tail -n 5 "$log")"
echo "# source tarball $(basename "$tb") ($(du -h "$tb" | cut -f1)) in $(($(date +%s) - t0)) s"
cp "$PKG_SRC/deb.sh" "$new/work/deb.sh"
cat >"$new/work/inside.sh" <<INSIDE
#!/bin/sh
set -e
export DEBIAN_FRONTEND=noninteractive
apt-get -q -o Acquire::Check-Valid-Until=false update
apt-get -q install -y --no-install-recommends build-essential debhelper dpkg-dev fakeroot golang-go
cd /work
# Offline from here: the vendored modules only.
unshare -n sh /work/deb.sh /work/$(basename "$tb") /work/out
INSIDE
# shellcheck source=../lib/rootfs.sh
. "$PKG_TOP/tests/lib/rootfs.sh"
nspawn_prep
if ! systemd-nspawn -q -D "$ROOT" --register=no --keep-unit --pipe --volatile=overlay \
	--bind="$new/work:/work" -E PATH="$PKG_PATH" -E HOME=/root -E LANG=C.UTF-8 \
	/bin/sh /work/inside.sh </dev/null >>"$log" 2>&1; then
	tail -n 25 "$log" | sed 's/^/    /' >&2
	pkg_fatal "building the package in the build root failed (log: $log)"
fi
cp "$new/work/out"/*.deb "$new/" || pkg_fatal "no package in \"$new/work/out\""
cp "$tb" "$new/"
rm -rf "$new/work"
touch "$new/done"
rm -rf "$dir"
mv "$new" "$dir" || pkg_fatal "cannot rename \"$new\""
# The newest three builds stay.
ls -1dt "$PKG_CACHE"/deb-*/ 2>/dev/null | tail -n +4 | xargs -r rm -rf
echo "# ebpf-exporter package built in $(($(date +%s) - t0)) s: $(cd "$dir" && ls *.deb | tr '\n' ' ')"
echo "deb=$(ls "$dir"/ebpf-exporter_*.deb | grep -v dbgsym | head -n 1)"
