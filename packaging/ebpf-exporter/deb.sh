#!/bin/sh
# Builds the ebpf-exporter .deb from the tarball dist.sh made, offline, on
# this host (which needs the Build-Depends of debian/control): what `make
# exporter-deb` and the tests run.
#
#   packaging/ebpf-exporter/deb.sh TARBALL OUTDIR
#
# Leaves the package (and its -dbgsym, .buildinfo, .changes) in OUTDIR and
# prints the package's path.
set -eu
[ $# -eq 2 ] || { echo "usage: deb.sh TARBALL OUTDIR" >&2; exit 2; }
tb=$1 out=$2
case $(basename "$tb") in
ebpf-exporter-*.tar.xz) ;;
*) echo "deb.sh: error: \"$tb\" is not an ebpf-exporter-X.Y.Z.tar.xz" >&2; exit 1 ;;
esac
v=$(basename "$tb" .tar.xz)
v=${v#ebpf-exporter-}
rm -rf "$out"
mkdir -p "$out"
cp "$tb" "$out/ebpf-exporter_$v.orig.tar.xz"
cd "$out"
tar -xJf "ebpf-exporter_$v.orig.tar.xz"
cd "ebpf-exporter-$v"
dpkg-buildpackage -b -us -uc >&2
cd ..
ls -1 "$PWD"/ebpf-exporter_"$v"-*.deb
