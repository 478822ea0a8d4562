#!/bin/bash
# The ebpf-exporter source tarball: cloudflare's Go module at the version
# VERSION (beside this script) pins, with every module it needs vendored
# (`go mod vendor`), their licences gathered, and the packaging (debian/,
# ebpf-exporter.spec): what `make exporter-deb`, `rpmbuild -ta` and the
# tests build from, offline. Run where the Go module proxy is reachable
# (`make exporter-dist` runs it); the go command takes its settings the
# ordinary way (GOPROXY, go env -w): nothing here names a proxy.
#
#   packaging/ebpf-exporter/dist.sh OUTDIR
#
# Writes OUTDIR/ebpf-exporter-X.Y.Z.tar.xz and prints its path. The same
# module versions (go.sum) give the same tarball contents.
#
# Environment:
#   EXPORTER_GO        the go command (default: go in PATH, else
#                      /usr/local/go/bin/go); Go 1.23 or later
#   EXPORTER_GOMODCACHE  module cache to download into (default: a
#                      temporary one; the tests pass build.sh's)
set -u -o pipefail

DIST_HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DIST_MODULE=github.com/cloudflare/ebpf_exporter/v2

dist_fatal() {
	echo "dist.sh: error: $*" >&2
	exit 1
}

[ $# -eq 1 ] || dist_fatal "usage: dist.sh OUTDIR"
DIST_OUT=$1
DIST_PIN=$(cat "$DIST_HERE/VERSION" 2>/dev/null) || dist_fatal "cannot read \"$DIST_HERE/VERSION\""
case $DIST_PIN in
v[0-9]*.[0-9]*.[0-9]*) ;;
*) dist_fatal "\"$DIST_HERE/VERSION\" holds \"$DIST_PIN\", not a module version such as v2.5.1" ;;
esac
DIST_V=${DIST_PIN#v}
# The package's version follows the pin: say so rather than build a
# package whose version is not the binary's.
DIST_CL=$(sed -n '1s/^ebpf-exporter (\([^-)]*\)-[^)]*).*/\1/p' "$DIST_HERE/debian/changelog")
[ "$DIST_CL" = "$DIST_V" ] ||
	dist_fatal "\"$DIST_HERE/debian/changelog\" is at ${DIST_CL:-?}, VERSION at $DIST_V: add an entry (dch -v $DIST_V-1)"

GO=${EXPORTER_GO:-$(command -v go || echo /usr/local/go/bin/go)}
[ -x "$GO" ] || dist_fatal "no go command (set EXPORTER_GO)"
for c in tar xz sha256sum; do
	command -v "$c" >/dev/null 2>&1 || dist_fatal "command $c not found"
done
mkdir -p "$DIST_OUT" || dist_fatal "cannot create \"$DIST_OUT\""
DIST_OUT=$(cd "$DIST_OUT" && pwd)

tmp=$(mktemp -d) || dist_fatal "mktemp failed"
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
export GOMODCACHE=${EXPORTER_GOMODCACHE:-$tmp/gomod} GOCACHE=$tmp/gocache GOTOOLCHAIN=local GOFLAGS=-mod=mod

# The module, then every module its build needs, vendored.
json=$(cd "$tmp" && "$GO" mod download -json "$DIST_MODULE@$DIST_PIN" 2>&1) ||
	dist_fatal "go mod download $DIST_MODULE@$DIST_PIN failed: $(printf '%s\n' "$json" | tail -n 5)"
moddir=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
rev=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Hash": "\([0-9a-f]*\)",\{0,1\}$/\1/p' | head -n 1)
[ -n "$moddir" ] && [ -f "$moddir/go.mod" ] || dist_fatal "go mod download gave no module directory"
name=ebpf-exporter-$DIST_V
src=$tmp/$name
cp -r "$moddir" "$src" && chmod -R u+w "$src" || dist_fatal "cannot copy \"$moddir\""
(cd "$src" && "$GO" mod vendor) >"$tmp/vendor.log" 2>&1 ||
	dist_fatal "go mod vendor failed: $(tail -n 5 "$tmp/vendor.log")"
[ -f "$src/vendor/modules.txt" ] || dist_fatal "go mod vendor wrote no vendor/modules.txt"
echo "${rev:-unknown}" >"$src/REVISION"

# Every vendored module's licence, in one file and in debian/copyright
# (full texts: DEP-5 "License:" paragraphs named after each module). A
# module without a licence file stops the tarball: it could not be
# redistributed.
mods=$(sed -n 's/^# \([^ ]*\) \(v[^ ]*\).*/\1 \2/p' "$src/vendor/modules.txt")
[ -n "$mods" ] || dist_fatal "vendor/modules.txt lists no module"
mkdir -p "$src/debian"
cp -r "$DIST_HERE/debian/." "$src/debian/"
{
	cat <<HDR
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: ebpf_exporter
Source: https://github.com/cloudflare/ebpf_exporter (Go module $DIST_MODULE@$DIST_PIN, with its dependencies vendored by slurm-spank-ebpf's packaging/ebpf-exporter/dist.sh)
Comment: Each vendored module's own licence files are reproduced in full
 below, in License paragraphs named after the module (LICENSES.vendor in
 the source tarball holds the same texts).

Files: *
Copyright: 2015-2025 CloudFlare and the ebpf_exporter authors
License: Expat
HDR
	sed 's/[[:space:]]*$//; s/^$/./; s/^/ /' "$src/LICENSE"
} >"$src/debian/copyright"
: >"$src/LICENSES.vendor"
while read -r m v; do
	d=$src/vendor/$m
	lic=$(cd "$d" 2>/dev/null && ls -1 | grep -iE '^(LICEN[CS]E|COPYING|NOTICE|PATENTS)' | sort)
	[ -n "$lic" ] || dist_fatal "vendored module $m $v has no licence file in vendor/$m"
	key=$(echo "$m" | tr '/' '-')
	printf '\nFiles: vendor/%s/*\nCopyright: the authors of %s %s (see its licence)\nLicense: %s\n' \
		"$m" "$m" "$v" "$key" >>"$src/debian/copyright"
	for f in $lic; do
		printf '==== %s %s: %s ====\n' "$m" "$v" "$f" >>"$src/LICENSES.vendor"
		cat "$d/$f" >>"$src/LICENSES.vendor"
		printf '\n' >>"$src/LICENSES.vendor"
	done
done <<<"$mods"
while read -r m v; do
	key=$(echo "$m" | tr '/' '-')
	printf '\nLicense: %s\n' "$key"
	for f in $(cd "$src/vendor/$m" && ls -1 | grep -iE '^(LICEN[CS]E|COPYING|NOTICE|PATENTS)' | sort); do
		printf ' %s:\n .\n' "$f"
		sed 's/[[:space:]]*$//; s/^$/./; s/^/ /' "$src/vendor/$m/$f"
	done
done <<<"$mods" >>"$src/debian/copyright"
sed "s/@VERSION@/$DIST_V/g" "$DIST_HERE/ebpf-exporter.spec.in" >"$src/ebpf-exporter.spec" ||
	dist_fatal "cannot write ebpf-exporter.spec"

# Reproducible: sorted names, one owner, the module's own time.
mtime=$(date -u -d "$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Time": "\(.*\)",\{0,1\}$/\1/p' | head -n 1)" +%s 2>/dev/null || echo 0)
tar -C "$tmp" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$mtime" \
	-cf - "$name" | xz -T1 -6 >"$DIST_OUT/$name.tar.xz.new" &&
	mv "$DIST_OUT/$name.tar.xz.new" "$DIST_OUT/$name.tar.xz" || dist_fatal "cannot write \"$DIST_OUT/$name.tar.xz\""
echo "dist.sh: $(echo "$mods" | wc -l) modules vendored, licences in debian/copyright and LICENSES.vendor" >&2
echo "$DIST_OUT/$name.tar.xz"
