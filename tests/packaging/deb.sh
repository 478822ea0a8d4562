#!/bin/bash
# `make deb`: the source package and the three binary packages built from
# the release tarball, lintian-clean (no error, no warning; every override
# justified), with the file lists, conffiles and dependency fields the
# design says (see spank_ebpf(8), INSTALLATION and FILES).
. "${srcdir:-.}/tests/lib.sh"
. "${srcdir:-.}/tests/packaging/pkglib.sh"

need_cmd dpkg-buildpackage dpkg-deb dpkg-parsechangelog dpkg-architecture dh lintian fakeroot flock
[ -f "$top_builddir/Makefile" ] || missing "a configured build tree"
src=${srcdir:-.}

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

pk_ok "make deb" pkg_build deb || { diag "nothing to check without packages"; done_testing; }
D=$PKG_DIR/deb
V=$VERSION-$(dpkg-parsechangelog -l "$src/packaging/debian/changelog" -SVersion | sed 's/.*-//')
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
base=$D/slurm-spank-ebpf_${V}_$arch.deb
compute=$D/slurm-spank-ebpf-compute_${V}_$arch.deb
submit=$D/slurm-spank-ebpf-submit_${V}_$arch.deb
for f in "$base" "$compute" "$submit" "$D/slurm-spank-ebpf_$V.dsc" "$D/slurm-spank-ebpf_${V}_$arch.changes"; do
	ok_if "built $(basename "$f")" test -f "$f"
done

# --- lintian -------------------------------------------------------------
lint=$(cd "$D" && lintian --info --display-info --show-overrides "slurm-spank-ebpf_${V}_$arch.changes" 2>&1)
diag "lintian: $(printf '%s\n' "$lint" | grep -Ec '^E:') errors, $(printf '%s\n' "$lint" | grep -Ec '^W:') warnings, $(printf '%s\n' "$lint" | grep -Ec '^I:') info, $(printf '%s\n' "$lint" | grep -Ec '^O:') overridden"
printf '%s\n' "$lint" | grep -E '^[EWIO]:' | sed 's/^/#   /'
unlike "lintian: no errors" "$lint" '^E:'
unlike "lintian: no warnings" "$lint" '^W:'
# Every override has a comment right above its block.
for o in "$src"/packaging/debian/*lintian-overrides "$src"/packaging/debian/source/lintian-overrides; do
	[ -f "$o" ] || continue
	bad=$(awk '/^#/ { c = 1; next } /^[[:space:]]*$/ { c = 0; next } !c { print FILENAME ":" FNR ": " $0 }' "$o")
	is "every override in $(basename "$o") is justified by a comment" "$bad" ""
done

# --- source package ---------------------------------------------------------
is "source package name (control = changelog)" \
	"$(sed -n 's/^Source: //p' "$src/packaging/debian/control") $(dpkg-parsechangelog -l "$src/packaging/debian/changelog" -SSource)" \
	"slurm-spank-ebpf slurm-spank-ebpf"
is "changelog: upstream version is configure's ($VERSION)" \
	"$(dpkg-parsechangelog -l "$src/packaging/debian/changelog" -SVersion | sed 's/-[^-]*$//')" "$VERSION"
dsc=$(cat "$D/slurm-spank-ebpf_$V.dsc")
like "dsc: Format 3.0 (quilt)" "$dsc" '^Format: 3\.0 \(quilt\)$'
like "dsc: Binary: the three packages" "$dsc" '^Binary: slurm-spank-ebpf, slurm-spank-ebpf-compute, slurm-spank-ebpf-submit$'
like "dsc: Build-Depends debhelper-compat (= 13) and Slurm's headers" "$dsc" \
	'^Build-Depends: debhelper-compat \(= 13\), libslurm-dev \| slurm-smd-dev'
like "debian/rules: hardening=+all" "$(cat "$src/packaging/debian/rules")" '^export DEB_BUILD_MAINT_OPTIONS = hardening=\+all$'
like "debian/rules: Debian's plugin directory" "$(cat "$src/packaging/debian/rules")" \
	'--with-slurm-plugindir=\$\(PLUGINDIR\)'
like "debian/copyright: DEP-5" "$(head -n 1 "$src/packaging/debian/copyright")" \
	'^Format: https://www\.debian\.org/doc/packaging-manuals/copyright-format/1\.0/$'
like "orig tarball is make dist's" "$(ls "$D")" "^slurm-spank-ebpf_$VERSION\\.orig\\.tar\\.xz\$"

# --- binary packages: fields ----------------------------------------------------
field() { dpkg-deb -f "$1" "$2"; }
range() { echo "$1 (>= $SLURM_MAJMIN) | $2 (>= $SLURM_MAJMIN), $1 (<< $SLURM_NEXT) | $2 (<< $SLURM_NEXT)"; }
pk_has "base Depends: Slurm $SLURM_MAJMIN plugins (Debian or SchedMD)" "$(field "$base" Depends)" \
	"$(range slurm-wlm-basic-plugins slurm-smd)"
like "base Depends: libc only from shlibs (libslurm is not linked)" "$(field "$base" Depends)" '^libc6 \(>= [0-9.]+\), slurm-wlm'

is "compute Depends: base, systemd, slurmd $SLURM_MAJMIN (Debian or SchedMD)" "$(field "$compute" Depends)" \
	"slurm-spank-ebpf (= $V), systemd, $(range slurmd slurm-smd-slurmd)"
is "submit Depends: base, client commands $SLURM_MAJMIN (Debian or SchedMD)" "$(field "$submit" Depends)" \
	"slurm-spank-ebpf (= $V), $(range slurm-client slurm-smd-client)"
for p in "$base" "$compute" "$submit"; do
	b=$(basename "$p" | sed 's/_.*//')
	is "$b: Version $V" "$(field "$p" Version)" "$V"
	unlike "$b: no Pre-Depends, Conflicts, Breaks, Replaces" "$(dpkg-deb -I "$p" control)" '^(Pre-Depends|Conflicts|Breaks|Replaces):'
	dpkg-deb -e "$p" "$tmp/ctl-$b"
	is "$b: no maintainer scripts (nothing restarts slurmd)" \
		"$(cd "$tmp/ctl-$b" && ls | grep -Ev '^(control|md5sums|conffiles)$')" ""
	dpkg-deb -x "$p" "$tmp/root-$b"
done

# --- binary packages: files ------------------------------------------------------
# contents PKG: "path" for files, "path -> target" for links, no directories.
contents() {
	dpkg-deb -c "$1" | awk '$1 !~ /^d/ { p = $6; for (i = 7; i <= NF; i++) p = p " " $i; sub(/^\.\//, "/", p); print p }' | sort
}
doc=/usr/share/doc/slurm-spank-ebpf
is "base: files" "$(contents "$base")" "$(sort <<EOF
/etc/slurm/plugstack.conf.d/spank_ebpf.conf -> ../spank_ebpf.conf
/etc/slurm/spank_ebpf.conf
/usr/lib/$triplet/slurm-wlm/spank_ebpf.so
$doc/README.md.gz
$doc/changelog.Debian.gz
$doc/copyright
/usr/share/lintian/overrides/slurm-spank-ebpf
/usr/share/man/man8/slurm-spank-ebpf.8.gz -> spank_ebpf.8.gz
/usr/share/man/man8/spank_ebpf.8.gz
EOF
)"
is "compute: files" "$(contents "$compute")" "/usr/lib/systemd/system-preset/50-slurm-spank-ebpf.preset
/usr/share/doc/slurm-spank-ebpf-compute -> slurm-spank-ebpf"
is "submit: files (a metapackage)" "$(contents "$submit")" "/usr/share/doc/slurm-spank-ebpf-submit -> slurm-spank-ebpf"
is "conffiles: only the drop-in (the link is a plain package file)" \
	"$(cat "$tmp/ctl-slurm-spank-ebpf/conffiles") $(cat "$tmp"/ctl-slurm-spank-ebpf-{compute,submit}/conffiles 2>/dev/null)" \
	"/etc/slurm/spank_ebpf.conf "
both=$( (contents "$base"; contents "$compute"; contents "$submit") | sed 's/ -> .*//' | sort | uniq -d)
is "no path shipped by two packages (they install together)" "$both" ""
decl=$( (contents "$base"; contents "$compute"; contents "$submit") | grep -c '^/etc/slurm/plugstack\.conf\.d/')
is "exactly one file in plugstack.conf.d across the three packages" "$decl" "1"

r=$tmp/root-slurm-spank-ebpf
is "the declaration: optional, the plugin by absolute path, opt-in" \
	"$(active_lines "$r/etc/slurm/plugstack.conf.d/spank_ebpf.conf")" \
	"optional /usr/lib/$triplet/slurm-wlm/spank_ebpf.so mode=opt-in"
like "plugin: a shared object exporting slurm_spank_init" \
	"$(nm -D --defined-only "$r/usr/lib/$triplet/slurm-wlm/spank_ebpf.so" 2>&1)" ' slurm_spank_init$'
is "plugin: mode 0644" "$(stat -c %a "$r/usr/lib/$triplet/slurm-wlm/spank_ebpf.so")" "644"
ok_if "no libtool archive shipped" sh -c "! find '$tmp' -name '*.la' | grep -q ."
man=$(zcat "$r/usr/share/man/man8/spank_ebpf.8.gz")
like "man page: version $VERSION" "$man" "^\\.TH SPANK_EBPF 8 \"[0-9-]+\" \"slurm\\\\-spank\\\\-ebpf $VERSION\""
like "man page: Debian's paths" "$man" "^\\.I /usr/lib/$triplet/slurm-wlm/spank_ebpf\\.so\$"
is "man page: lint-clean" "$(printf '%s\n' "$man" | groff -ww -z -man 2>&1)" ""
is "preset: service and socket disabled" \
	"$(active_lines "$tmp/root-slurm-spank-ebpf-compute/usr/lib/systemd/system-preset/50-slurm-spank-ebpf.preset")" \
	"disable ebpf_exporter.service
disable ebpf_exporter.socket"

done_testing
