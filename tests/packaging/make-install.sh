#!/bin/bash
# `make install` / `make uninstall` into a scratch DESTDIR: the layout the
# packages are built from, an admin's edited drop-in kept on reinstall and
# uninstall, a hand-made file at the link's place never overwritten.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/packaging/pkglib.sh"

need_cmd make cmp
[ -f "$top_builddir/Makefile" ] || missing "a configured build tree"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
D=$tmp/root

# inst TARGET: make TARGET DESTDIR=$D, output kept in $tmp/TARGET.log.
inst() {
	(
		unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES
		make -C "$top_builddir" "$1" DESTDIR="$D"
	) >"$tmp/$1.log" 2>&1
}

conf=$D$(mkexpand slurmconfdir)
plugindir=$D$(mkexpand slurmplugindir)
mandir=$D$(mkexpand mandir)
presetdir=$D$(mkexpand systempresetdir)
unitdir=$D$(mkexpand systemdsystemunitdir)
sbindir=$D$(mkexpand sbindir)
bcdir=$D$(mkexpand bashcompletiondir)
units="spank-ebpf-reconcile.timer spank-ebpf-reconcile.service spank-ebpf-metrics.service spank-ebpf-exporter@.service spank-ebpf-report.socket spank-ebpf-report@.service"
link=$conf/plugstack.conf.d/spank_ebpf.conf

pk_ok "make install DESTDIR=..." inst install
ok_if "plugin installed" test -f "$plugindir/spank_ebpf.so"
ok_if "no libtool archive in the plugin directory" sh -c "! ls '$plugindir'/*.la"
ok_if "drop-in installed: slurm/spank_ebpf.conf" test -f "$conf/spank_ebpf.conf"
is "plugstack.conf.d/spank_ebpf.conf is a link to ../spank_ebpf.conf" \
	"$(readlink "$link")" "../spank_ebpf.conf"
pk_ok "installed drop-in is the built one" cmp "$top_builddir/etc/spank_ebpf.conf" "$link"
ok_if "man page spank_ebpf.8" test -f "$mandir/man8/spank_ebpf.8"
ok_if "man page slurm-spank-ebpf.8" test -f "$mandir/man8/slurm-spank-ebpf.8"
ok_if "systemd preset" test -f "$presetdir/50-slurm-spank-ebpf.preset"
ok_if "the admin command spank-ebpf, executable" test -x "$sbindir/spank-ebpf"
ok_if "man page spank-ebpf.8" test -f "$mandir/man8/spank-ebpf.8"
ok_if "man page spank_ebpf_sets.conf.5" test -f "$mandir/man5/spank_ebpf_sets.conf.5"
ok_if "bash completion in $(mkexpand bashcompletiondir)" test -f "$bcdir/spank-ebpf"
for u in $units; do
	ok_if "unit $u in $(mkexpand systemdsystemunitdir)" test -f "$unitdir/$u"
done
is "the services run the installed command" \
	"$(grep -h '^ExecStart=' "$unitdir/spank-ebpf-reconcile.service" "$unitdir/spank-ebpf-metrics.service" 2>&1)" \
	"ExecStart=$(mkexpand sbindir)/spank-ebpf reconcile
ExecStart=$(mkexpand sbindir)/spank-ebpf metrics --textfile $(mkvar TEXTFILE_DIR)"
is "the sets' template runs and admits through the installed command" \
	"$(grep -hE '^ExecStart(Pre|Post)?=' "$unitdir/spank-ebpf-exporter@.service" 2>&1)" \
	"ExecStartPre=+$(mkexpand sbindir)/spank-ebpf exporter --check %i
ExecStart=$(mkexpand sbindir)/spank-ebpf exporter %i
ExecStartPost=-+$(mkexpand sbindir)/spank-ebpf admit %i"
example=$D$(mkexpand docdir)/examples/ebpf_exporter.service
is "the example ebpf_exporter.service runs the configured exporter" \
	"$(grep -h '^ExecStart=' "$example" 2>&1 | cut -d' ' -f1)" "ExecStart=$(mkvar EXPORTER_PATH)"
# The README reports systemd-analyze's rating of that unit: it must be
# what systemd-analyze says of the unit as installed.
need_cmd systemd-analyze
rated=$(systemd-analyze security --offline=true "$example" 2>&1 |
	sed -n 's/^.*Overall exposure level for [^:]*: \([0-9.]* [A-Z]*\).*/\1/p')
claimed=$(tr '\n' ' ' <"${srcdir:-.}/README.md" | sed -n 's/.*`systemd-analyze security` rates *it \*\*\([0-9.]* [A-Z]*\)\*\*.*/\1/p')
is "the README's systemd-analyze security rating of the example unit is today's ($rated)" "$claimed" "$rated"
is "nothing else in plugstack.conf.d" "$(ls -A "$conf/plugstack.conf.d")" "spank_ebpf.conf"
# The BPF configs (probes/), when configure could build them, in the sets'
# default config_dir: the directory spank-ebpf exporter passes as
# --config.dir to the template unit's ebpf_exporter.
probesdir=$D$(mkexpand pkglibdir)/ebpf_exporter
probe_files="spank-fs-nfs.bpf.o spank-fs-nfs.yaml spank-fs.bpf.o spank-fs.yaml spank-io.bpf.o spank-io.yaml spank-net.bpf.o spank-net.yaml spank-oom.bpf.o spank-oom.yaml spank-sched-detail.bpf.o spank-sched-detail.yaml spank-sched.bpf.o spank-sched.yaml"
if [ -n "$(mkvar probes_DATA)" ]; then
	is "the BPF configs in $(mkexpand pkglibdir)/ebpf_exporter" "$(ls "$probesdir" 2>&1 | tr '\n' ' ')" "$probe_files "
else
	skip_point "BPF configs: configure did not build them (no clang for the bpf target or libbpf headers)"
fi

# An admin edits the drop-in; installing again (an upgrade from source)
# keeps it and the link.
sed -i 's/mode=opt-in$/mode=always timeout=5/' "$conf/spank_ebpf.conf"
pk_ok "make install again" inst install
like "an edited drop-in is kept by make install" "$(cat "$conf/spank_ebpf.conf")" 'mode=always timeout=5$'
like "make install says it kept it" "$(cat "$tmp/install.log")" 'keeping the existing .*spank_ebpf.conf'
is "the link is still there" "$(readlink "$link")" "../spank_ebpf.conf"

# make uninstall: the declaration goes, the admin's edits stay.
pk_ok "make uninstall" inst uninstall
ok_if "uninstall removes the link (no declaration left)" test ! -e "$link" -a ! -h "$link"
like "uninstall keeps the edited drop-in" "$(cat "$conf/spank_ebpf.conf" 2>&1)" 'mode=always timeout=5$'
ok_if "uninstall removes the plugin" test ! -e "$plugindir/spank_ebpf.so"
ok_if "uninstall removes the man pages" test ! -e "$mandir/man8/spank_ebpf.8" -a ! -e "$mandir/man8/slurm-spank-ebpf.8"
ok_if "uninstall removes the preset" test ! -e "$presetdir/50-slurm-spank-ebpf.preset"
ok_if "uninstall removes the command and its man page" test ! -e "$sbindir/spank-ebpf" -a ! -e "$mandir/man8/spank-ebpf.8"
ok_if "uninstall removes the sets file's man page" test ! -e "$mandir/man5/spank_ebpf_sets.conf.5"
ok_if "uninstall removes the bash completion" test ! -e "$bcdir/spank-ebpf"
for u in $units; do
	ok_if "uninstall removes $u" test ! -e "$unitdir/$u"
done
ok_if "uninstall removes the BPF configs" test ! -e "$probesdir/spank-io.bpf.o" -a ! -e "$probesdir/spank-io.yaml"

# A file an admin put at the link's place is theirs: never replaced.
rm -f "$conf/spank_ebpf.conf"
echo "optional /elsewhere/spank_ebpf.so" >"$link"
pk_ok "make install over a hand-made plugstack.conf.d/spank_ebpf.conf" inst install
is "the hand-made file is kept" "$(cat "$link")" "optional /elsewhere/spank_ebpf.so"
pk_ok "make uninstall" inst uninstall
is "uninstall leaves the hand-made file alone" "$(cat "$link" 2>&1)" "optional /elsewhere/spank_ebpf.so"
rm -f "$link"
ok_if "an unedited drop-in is removed by uninstall" test ! -e "$conf/spank_ebpf.conf"
left=$(cd "$D" && find . ! -type d | sort)
is "nothing else left behind" "$left" ""

done_testing
