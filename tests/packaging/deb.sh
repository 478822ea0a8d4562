#!/bin/bash
# `make deb`: the source package and the four binary packages built from
# the release tarball, lintian-clean (no error, no warning; every override
# justified), with the file lists, conffiles and dependency fields the
# design says (see spank_ebpf(8), INSTALLATION and FILES).
. "${srcdir:-.}/tests/lib/tap.sh"
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
probes=$D/slurm-spank-ebpf-probes_${V}_$arch.deb
# -probes exists on the architectures debian/control lists for it (those
# configure knows a BPF __TARGET_ARCH for).
case " amd64 arm64 ppc64el riscv64 s390x " in
*" $arch "*) probes_arch=yes ;;
*) probes_arch= ;;
esac
[ -n "$probes_arch" ] || diag "no slurm-spank-ebpf-probes on $arch (not in its Architecture list)"
for f in "$base" "$compute" "$submit" ${probes_arch:+"$probes"} "$D/slurm-spank-ebpf_$V.dsc" "$D/slurm-spank-ebpf_${V}_$arch.changes"; do
	ok_if "built $(basename "$f")" test -f "$f"
done

# --- lintian -------------------------------------------------------------
lint=$(cd "$D" && lintian --info --display-info --show-overrides "slurm-spank-ebpf_${V}_$arch.changes" 2>&1)
# A lintian that cannot run prints no E:/W: line either: its exit status
# is 0 only when it ran and found no error and no warning (a separate run:
# with --show-overrides, lintian 2.116 exits 2 on overridden tags).
lint_rc=0
(cd "$D" && lintian --fail-on error,warning "slurm-spank-ebpf_${V}_$arch.changes" >/dev/null 2>&1) || lint_rc=$?
diag "lintian: $(printf '%s\n' "$lint" | grep -Ec '^E:') errors, $(printf '%s\n' "$lint" | grep -Ec '^W:') warnings, $(printf '%s\n' "$lint" | grep -Ec '^I:') info, $(printf '%s\n' "$lint" | grep -Ec '^O:') overridden"
printf '%s\n' "$lint" | grep -E '^[EWIO]:' | sed 's/^/#   /'
is "lintian ran and passed (--fail-on error,warning: exit status 0)" "$lint_rc" 0
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
like "dsc: Binary: the four packages" "$dsc" '^Binary: slurm-spank-ebpf, slurm-spank-ebpf-compute, slurm-spank-ebpf-submit, slurm-spank-ebpf-probes$'
like "dsc: Build-Depends clang and libbpf-dev (for -probes' architectures), debhelper-compat (= 13), libcurl, json-c and ncurses (the admin command's) and Slurm's headers" "$dsc" \
	'^Build-Depends: clang \[amd64 arm64 ppc64el riscv64 s390x\], debhelper-compat \(= 13\), libbpf-dev \[amd64 arm64 ppc64el riscv64 s390x\], libcurl4-openssl-dev \| libcurl-dev, libjson-c-dev, libncurses-dev, libslurm-dev \| slurm-smd-dev'
like "debian/rules: --enable-probes on -probes' architectures (never an empty package)" \
	"$(cat "$src/packaging/debian/rules")" '^PROBES_FLAG = --enable-probes$'
like "debian/rules: hardening=+all" "$(cat "$src/packaging/debian/rules")" '^export DEB_BUILD_MAINT_OPTIONS = hardening=\+all$'
like "debian/rules: Debian's plugin directory" "$(cat "$src/packaging/debian/rules")" \
	'--with-slurm-plugindir=\$\(PLUGINDIR\)'
like "debian/copyright: DEP-5" "$(head -n 1 "$src/packaging/debian/copyright")" \
	'^Format: https://www\.debian\.org/doc/packaging-manuals/copyright-format/1\.0/$'
like "orig tarball is make dist's" "$(ls "$D")" "^slurm-spank-ebpf_$VERSION\\.orig\\.tar\\.xz\$"

# --- binary packages: fields ----------------------------------------------------
# Every Slurm dependency names the one family whose headers the build used,
# both bounds on the same package: "A (>= X) | B (>= X), A (<< Y) | B (<< Y)"
# would let SchedMD's slurm-smd meet one bound and Debian's Slurm the other.
# The family, told apart here by the -dev package installed (the rules ask
# dpkg who owns the header the compiler read).
deb_field() { dpkg-deb -f "$1" "$2"; }
range() { echo "$1 (>= $SLURM_MAJMIN), $1 (<< $SLURM_NEXT)"; }
installed() { [ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" = installed ]; }
if installed libslurm-dev; then
	family=Debian s_base=slurm-wlm-basic-plugins s_compute=slurmd s_submit=slurm-client
elif installed slurm-smd-dev; then
	family=SchedMD s_base=slurm-smd s_compute=slurm-smd-slurmd s_submit=slurm-smd-client
else
	family=unknown s_base='?' s_compute='?' s_submit='?'
fi
diag "Slurm headers on this host: $family's"
# shlibs: libc, and the admin command's libcurl, json-c and ncurses (top's
# full screen; libtinfo6 is ncurses' terminal database).
libs=$(deb_field "$base" Depends | sed -n 's/^\(libc6 ([^)]*), libcurl4 ([^)]*), libjson-c5 ([^)]*), libncursesw6 ([^)]*), libtinfo6 ([^)]*)\), .*/\1/p')
like "base Depends: libc, libcurl, json-c and ncurses found by shlibs (libslurm is not linked)" "$libs" \
	'^libc6 \(>= [0-9.]+\), libcurl4 \(>= [0-9.~]+\), libjson-c5 \(>= [0-9.~]+\), libncursesw6 \(>= [0-9.~]+\), libtinfo6 \(>= [0-9.~]+\)$'
is "base Depends: those, then $family's Slurm $SLURM_MAJMIN plugins, both bounds on one package" \
	"$(deb_field "$base" Depends)" "$libs, $(range "$s_base")"
is "compute Depends: base, systemd, $family's slurmd $SLURM_MAJMIN" "$(deb_field "$compute" Depends)" \
	"slurm-spank-ebpf (= $V), systemd, $(range "$s_compute")"
is "submit Depends: base, $family's client commands $SLURM_MAJMIN" "$(deb_field "$submit" Depends)" \
	"slurm-spank-ebpf (= $V), $(range "$s_submit")"
[ -z "$probes_arch" ] || is "probes Depends: ebpf-exporter or a site's own (ebpf-exporter-binary), and base" \
	"$(deb_field "$probes" Depends)" "ebpf-exporter (>= 2.5.1~) | ebpf-exporter-binary, slurm-spank-ebpf (= $V)"
# Slurm's families are never alternatives (one could meet one bound, the
# other the other); the exporter's virtual package is the one on purpose.
for p in "$base" "$compute" "$submit" ${probes_arch:+"$probes"}; do
	unlike "$(basename "$p" | sed 's/_.*//'): no alternative (|) in Depends but the exporter's" \
		"$(deb_field "$p" Depends | sed 's/ebpf-exporter (>= [^)]*) | ebpf-exporter-binary//')" '\|'
done

for p in "$base" "$compute" "$submit" ${probes_arch:+"$probes"}; do
	b=$(basename "$p" | sed 's/_.*//')
	is "$b: Version $V" "$(deb_field "$p" Version)" "$V"
	ctl=$(dpkg-deb -I "$p" control 2>&1)
	like "$b: control readable" "$ctl" "^Package: $b\$"
	unlike "$b: no Pre-Depends, Conflicts, Breaks, Replaces" "$ctl" '^(Pre-Depends|Conflicts|Breaks|Replaces):'
	dpkg-deb -e "$p" "$tmp/ctl-$b"
	ok_if "$b: control area extracted" test -f "$tmp/ctl-$b/control"
	if [ "$b" = slurm-spank-ebpf-compute ]; then
		is "$b: maintainer scripts: postinst, prerm, postrm (the timer)" \
			"$(cd "$tmp/ctl-$b" && ls | grep -Ev '^(control|md5sums|conffiles)$' | tr '\n' ' ')" "postinst postrm prerm "
	else
		is "$b: no maintainer scripts (nothing restarts slurmd)" \
			"$(cd "$tmp/ctl-$b" && ls | grep -Ev '^(control|md5sums|conffiles)$')" ""
	fi
	dpkg-deb -x "$p" "$tmp/root-$b"
done
like "compute: Suggests prometheus-node-exporter" "$(deb_field "$compute" Suggests)" '(^|, )prometheus-node-exporter(,|$)'
is "compute: no Recommends (node_exporter is not wanted by default)" "$(deb_field "$compute" Recommends)" ""

# The compute package's scripts: the timer and report's socket only,
# enabled and started on install, stopped on removal, their links removed
# on purge; never slurmd, never the exporter, never the services they run.
c=$tmp/ctl-slurm-spank-ebpf-compute
scripts=$(cat "$c/postinst" "$c/prerm" "$c/postrm" 2>&1)
is "compute scripts: the only units they name are the timer and report's socket" \
	"$(printf '%s\n' "$scripts" | grep -o "[A-Za-z0-9_@.-]*\.\(service\|socket\|timer\)" | sort -u | tr '\n' ' ')" "spank-ebpf-reconcile.timer spank-ebpf-report.socket "
unlike "compute scripts: never slurmd or the exporter" "$scripts" 'slurmd|ebpf_exporter'
like "compute postinst: enables the timer" "$(cat "$c/postinst")" "deb-systemd-helper enable 'spank-ebpf-reconcile\.timer'"
like "compute postinst: starts it (restart on upgrade), where systemd runs" "$(cat "$c/postinst")" \
	"deb-systemd-invoke .*_dh_action 'spank-ebpf-reconcile\.timer'"
like "compute prerm: stops it on removal" "$(cat "$c/prerm")" "deb-systemd-invoke stop 'spank-ebpf-reconcile\.timer'"
like "compute postrm: removes its links on purge" "$(cat "$c/postrm")" "deb-systemd-helper purge 'spank-ebpf-reconcile\.timer'"
like "compute postinst: enables report's socket" "$(cat "$c/postinst")" "deb-systemd-helper enable 'spank-ebpf-report\.socket'"
like "compute postinst: starts it, where systemd runs" "$(cat "$c/postinst")" "deb-systemd-invoke .*_dh_action .*'spank-ebpf-report\.socket'"
like "compute prerm: stops it on removal" "$(cat "$c/prerm")" "deb-systemd-invoke stop .*'spank-ebpf-report\.socket'"

# --- debian/rules: the Slurm family from the header's owner ----------------------
# override_dh_gencontrol alone, in a scratch tree: a _build/Makefile as
# configure writes it, dh_gencontrol a no-op, and dpkg -S answering for
# the family this host does not have (other dpkg calls go to dpkg).
# gencontrol NAME OWNER [SLURM_CPPFLAGS]: OWNER "" asks the real dpkg.
gencontrol() {
	local d=$tmp/gc-$1
	mkdir -p "$d/_build" "$d/debian" "$d/bin"
	printf 'SLURM_MAJMIN = 23.11\nCC = %s\nCPPFLAGS = \nSLURM_CPPFLAGS = %s\n' "$(mkvar CC)" "${3:-}" >"$d/_build/Makefile"
	printf '#!/bin/sh\nexit 0\n' >"$d/bin/dh_gencontrol"
	if [ -n "$2" ]; then
		printf '#!/bin/sh\nif [ "$1" = -S ]; then echo "%s: $2"; exit 0; fi\nexec /usr/bin/dpkg "$@"\n' "$2" >"$d/bin/dpkg"
	fi
	chmod +x "$d"/bin/*
	(cd "$d" && PATH=$d/bin:$PATH make -s -f "$(cd "$src" && pwd)/packaging/debian/rules" override_dh_gencontrol 2>&1)
}
substvars() {
	local d=$tmp/gc-$1 p
	for p in slurm-spank-ebpf slurm-spank-ebpf-compute slurm-spank-ebpf-submit; do
		echo "$p: $(cat "$d/debian/$p.substvars" 2>&1)"
	done
}
out=$(gencontrol smd slurm-smd-dev)
is "rules: headers of slurm-smd-dev: SchedMD's packages only" "$(substvars smd)" \
	"slurm-spank-ebpf: slurm:Depends=slurm-smd (>= 23.11), slurm-smd (<< 23.12~)
slurm-spank-ebpf-compute: slurm:Depends=slurm-smd-slurmd (>= 23.11), slurm-smd-slurmd (<< 23.12~)
slurm-spank-ebpf-submit: slurm:Depends=slurm-smd-client (>= 23.11), slurm-smd-client (<< 23.12~)"
like "rules: says which header and family it used" "$out" \
	'^debian/rules: /.*/slurm/slurm_version\.h is slurm-smd-dev.s: Slurm 23\.11 as slurm-smd, slurm-smd-slurmd, slurm-smd-client$'
gencontrol deb "libslurm-dev:$arch" >/dev/null
is "rules: headers of libslurm-dev (arch-qualified): Debian's packages only" "$(substvars deb)" \
	"slurm-spank-ebpf: slurm:Depends=slurm-wlm-basic-plugins (>= 23.11), slurm-wlm-basic-plugins (<< 23.12~)
slurm-spank-ebpf-compute: slurm:Depends=slurmd (>= 23.11), slurmd (<< 23.12~)
slurm-spank-ebpf-submit: slurm:Depends=slurm-client (>= 23.11), slurm-client (<< 23.12~)"
mkdir -p "$tmp/inc/slurm"
echo '#define SLURM_VERSION_NUMBER 0x170b00' >"$tmp/inc/slurm/slurm_version.h"
rc=0
out=$(gencontrol none "" "-I$tmp/inc") || rc=$?
ok_if "rules: headers no package owns: the build stops (make exit $rc)" test "$rc" -ne 0
like "rules: ... saying which header and what to install" "$out" \
	"^debian/rules: the build used $tmp/inc/slurm/slurm_version\\.h \\(Slurm 23\\.11\\), owned by no package: .*libslurm-dev .*slurm-smd-dev"
is "rules: ... and writes no dependency" "$(cat "$tmp"/gc-none/debian/*.substvars 2>/dev/null)" ""

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
/usr/sbin/spank-ebpf
/usr/share/bash-completion/completions/spank-ebpf
$doc/NEWS.gz
$doc/README.md.gz
$doc/OPERATING.md.gz
$doc/changelog.Debian.gz
$doc/copyright
$doc/examples/ebpf_exporter.service
/usr/share/lintian/overrides/slurm-spank-ebpf
/usr/share/man/man5/spank_ebpf_sets.conf.5.gz
/usr/share/man/man8/slurm-spank-ebpf.8.gz -> spank_ebpf.8.gz
/usr/share/man/man8/spank-ebpf.8.gz
/usr/share/man/man8/spank_ebpf.8.gz
EOF
)"
# The unit directory is the build host's systemd.pc's (bookworm: /lib).
unitdir=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
unitdir=${unitdir:-/usr/lib/systemd/system}
is "compute: files (the preset, the timer and its two services, the sets' template, report's socket and service in $unitdir)" "$(contents "$compute")" "$(sort <<EOF
$unitdir/spank-ebpf-exporter@.service
$unitdir/spank-ebpf-metrics.service
$unitdir/spank-ebpf-reconcile.service
$unitdir/spank-ebpf-reconcile.timer
$unitdir/spank-ebpf-report.socket
$unitdir/spank-ebpf-report@.service
/usr/lib/systemd/system-preset/50-slurm-spank-ebpf.preset
/usr/share/doc/slurm-spank-ebpf-compute -> slurm-spank-ebpf
EOF
)"
is "submit: files (a metapackage)" "$(contents "$submit")" "/usr/share/doc/slurm-spank-ebpf-submit -> slurm-spank-ebpf"
pdir=/usr/lib/$triplet/slurm-spank-ebpf/ebpf_exporter
if [ -n "$probes_arch" ]; then
	is "probes: files (7 BPF objects and their YAML, in the sets' default config_dir)" "$(contents "$probes")" "$(sort <<EOF
$pdir/spank-fs-nfs.bpf.o
$pdir/spank-fs-nfs.yaml
$pdir/spank-fs.bpf.o
$pdir/spank-fs.yaml
$pdir/spank-io.bpf.o
$pdir/spank-io.yaml
$pdir/spank-net.bpf.o
$pdir/spank-net.yaml
$pdir/spank-oom.bpf.o
$pdir/spank-oom.yaml
$pdir/spank-sched-detail.bpf.o
$pdir/spank-sched-detail.yaml
$pdir/spank-sched.bpf.o
$pdir/spank-sched.yaml
/usr/share/doc/slurm-spank-ebpf-probes -> slurm-spank-ebpf
/usr/share/lintian/overrides/slurm-spank-ebpf-probes
EOF
)"
	like "probes: spank-io.bpf.o is a BPF object with BTF (CO-RE needs it)" \
		"$(readelf -h -S "$tmp/root-slurm-spank-ebpf-probes$pdir/spank-io.bpf.o" 2>&1)" 'Machine: +Linux BPF'
	like "... with a .BTF section" \
		"$(readelf -S "$tmp/root-slurm-spank-ebpf-probes$pdir/spank-io.bpf.o" 2>&1)" ' \.BTF '
fi
is "conffiles: only the drop-in (the link is a plain package file)" \
	"$(cat "$tmp/ctl-slurm-spank-ebpf/conffiles") $(cat "$tmp"/ctl-slurm-spank-ebpf-{compute,submit}/conffiles 2>/dev/null)" \
	"/etc/slurm/spank_ebpf.conf "
both=$( (contents "$base"; contents "$compute"; contents "$submit"; [ -z "$probes_arch" ] || contents "$probes") | sed 's/ -> .*//' | sort | uniq -d)
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
is "preset: service, socket and the sets' template disabled, the reconcile timer and report's socket enabled" \
	"$(active_lines "$tmp/root-slurm-spank-ebpf-compute/usr/lib/systemd/system-preset/50-slurm-spank-ebpf.preset")" \
	"disable ebpf_exporter.service
disable ebpf_exporter.socket
disable spank-ebpf-exporter@.service
enable spank-ebpf-reconcile.timer
enable spank-ebpf-report.socket"
ok_if "the command: /usr/sbin/spank-ebpf, executable" test -x "$r/usr/sbin/spank-ebpf"
like "the command runs: --version" "$("$r/usr/sbin/spank-ebpf" --version 2>&1)" "^spank-ebpf $VERSION\$"
like "the command's default plugstack file is the drop-in's link" "$("$r/usr/sbin/spank-ebpf" --help 2>&1)" \
	'default /etc/slurm/plugstack\.conf\.d/spank_ebpf\.conf'
bc=$r/usr/share/bash-completion/completions/spank-ebpf
like "the bash completion falls back on the installed command" "$(cat "$bc" 2>&1)" '^		bin=/usr/sbin/spank-ebpf$'
like "... and reads set names from the drop-in's line" "$(cat "$bc" 2>&1)" ':-/etc/slurm/plugstack\.conf\.d/spank_ebpf\.conf}'
rc=0
out=$("$r/usr/sbin/spank-ebpf" check-config "$r/etc/slurm/spank_ebpf.conf" 2>&1) || rc=$?
is "the command accepts the shipped drop-in (check-config exits 0)" "$rc" 0
like "... and says what it read" "${out#"$r"}" \
	"^/etc/slurm/spank_ebpf\.conf: valid: mode=opt-in unit=ebpf_exporter\.service state=/run/ebpf_exporter\.refcount systemctl=/usr/bin/systemctl timeout=10s lock_timeout=60s( |\$)"
man=$(zcat "$r/usr/share/man/man8/spank-ebpf.8.gz")
like "spank-ebpf(8): version $VERSION" "$man" "^\\.TH SPANK-EBPF 8 \"[0-9-]+\" \"slurm.*spank.*ebpf $VERSION\""
is "spank-ebpf(8): lint-clean" "$(printf '%s\n' "$man" | groff -ww -z -man 2>&1)" ""
u=$tmp/root-slurm-spank-ebpf-compute$unitdir
is "timer: the design's schedule, wanted by timers.target" \
	"$(grep -E '^(OnBootSec|OnUnitActiveSec|RandomizedDelaySec|Persistent|WantedBy)=' "$u/spank-ebpf-reconcile.timer" 2>&1)" \
	"OnBootSec=2min
OnUnitActiveSec=5min
RandomizedDelaySec=2min
Persistent=false
WantedBy=timers.target"
is "reconcile service: oneshot, the installed command, pulls in the metrics" \
	"$(grep -E '^(Type|ExecStart|Wants|Documentation|NoNewPrivileges|ProtectHome)=' "$u/spank-ebpf-reconcile.service" 2>&1)" \
	"Documentation=man:spank-ebpf(8)
Wants=spank-ebpf-metrics.service
Type=oneshot
ExecStart=/usr/sbin/spank-ebpf reconcile
NoNewPrivileges=yes
ProtectHome=yes"
is "metrics service: after reconcile, Debian's textfile directory, skipped without it" \
	"$(grep -E '^(After|ConditionPathIsDirectory|Type|ExecStart)=' "$u/spank-ebpf-metrics.service" 2>&1)" \
	"After=spank-ebpf-reconcile.service
ConditionPathIsDirectory=/var/lib/prometheus/node-exporter
Type=oneshot
ExecStart=/usr/sbin/spank-ebpf metrics --textfile /var/lib/prometheus/node-exporter"
ok_if "both services are there" test -f "$u/spank-ebpf-reconcile.service" -a -f "$u/spank-ebpf-metrics.service"
is "services: no [Install] (only the timer runs them)" \
	"$(grep -l '^\[Install\]' "$u"/*.service 2>&1)" ""

done_testing
