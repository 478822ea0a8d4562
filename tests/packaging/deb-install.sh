#!/bin/bash
# The .debs of `make deb` installed on this machine with apt, as an admin
# would: sbatch --help offers --ebpf through /etc/slurm/plugstack.conf;
# -compute and -submit together still declare the plugin once; an edited
# drop-in survives reinstall and upgrades; after `apt remove` no active
# declaration is left (and none points at a missing .so), client commands
# still work; `apt purge` leaves no file behind. Everything this test
# installed is purged at the end, whatever happens.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/packaging/pkglib.sh"

need_root
need_cmd apt-get dpkg dpkg-deb dpkg-query dpkg-architecture flock md5sum
[ -f "$top_builddir/Makefile" ] || missing "a configured build tree"
. "${srcdir:-.}/tests/packaging/debinst.sh"
trap debinst_cleanup EXIT

# sbatch --help with a scratch slurm.conf whose PlugStackConfig is the real
# /etc/slurm/plugstack.conf; stdout in $help, stderr in $help_err.
# Its controller port is a closed one: sbatch gets past option parsing,
# then cannot submit anything anywhere.
port=
for p in $(seq 47001 47100); do
	if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port=$p; break; fi
done
[ -n "$port" ] || missing "a closed TCP port on 127.0.0.1 in 47001-47100"
cat >"$tmp/slurm.conf" <<EOF
ClusterName=pkgtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$port
PlugStackConfig=$PSC
NodeName=localhost CPUs=1 State=UNKNOWN
PartitionName=pkgtest Nodes=localhost Default=YES
EOF
help_rc=0
sbatch_help() {
	help_rc=0
	help=$(SLURM_CONF=$tmp/slurm.conf sbatch --help 2>"$tmp/help.err") || help_rc=$?
	help_err=$(cat "$tmp/help.err")
}

# The --ebpf entry of a --help output, joined (Slurm wraps it at 80
# columns) and with blanks squeezed.
ebpf_help() {
	printf '%s\n' "$1" | awk '
		/^ +--ebpf / { on = 1; printf "%s", $0; next }
		on && match($0, /^ +/) && RLENGTH >= 20 && substr($0, RLENGTH + 1, 1) != "-" { printf " %s", $0; next }
		{ on = 0 }' | tr -s ' ' | sed 's/^ //'
}

# check_declared WHAT: exactly one declaration, of the installed plugin;
# sbatch --help lists --ebpf and complains about nothing.
check_declared() {
	local d
	d=$(declarations "$PSC" | grep spank_ebpf)
	is "$1: exactly one active declaration of the plugin" "$(echo "$d" | grep -c .)" "1"
	like "$1: it is optional, for the installed .so" "$d" "^optional $SO( |\$)"
	ok_if "$1: the declared .so exists" test -f "$SO"
	is "$1: no declaration points at a missing .so" "$(stale_declarations)" ""
	sbatch_help
	is "$1: sbatch --help lists --ebpf with its help text" "$(ebpf_help "$help")" \
		"--ebpf Enable eBPF observability (ebpf_exporter) for this job"
	is "$1: sbatch --help prints no error" "$help_err" ""
}

# sbatch_ebpf WHAT accepted|unrecognized (a few seconds: sbatch retries
# the controller before giving up).
sbatch_ebpf() {
	local out
	out=$(SLURM_CONF=$tmp/slurm.conf timeout 60 sbatch --ebpf --wrap true 2>&1)
	if [ "$2" = accepted ]; then
		like "$1: sbatch --ebpf is accepted (then finds no controller)" "$out" \
			'Unable to contact slurm controller'
		unlike "$1: sbatch --ebpf: no unrecognized option" "$out" 'unrecognized option'
	else
		like "$1: sbatch --ebpf is an unrecognized option" "$out" "unrecognized option '--ebpf'"
	fi
}

# check_undeclared WHAT: no declaration of the plugin, none stale, and the
# client commands work without complaint.
check_undeclared() {
	is "$1: no active declaration of the plugin" "$(declarations "$PSC" | grep -c spank_ebpf)" "0"
	is "$1: no declaration points at a missing .so" "$(stale_declarations)" ""
	sbatch_help
	is "$1: sbatch --help succeeds" "$help_rc" "0"
	unlike "$1: sbatch --help has no --ebpf" "$help" '--ebpf'
	is "$1: sbatch --help prints no error (no spank error)" "$help_err" ""
}

# repack PKG NEWVERSION [CHANGE]: the same package as version NEWVERSION,
# depending on the base package at that version; with CHANGE, the shipped
# drop-in differs (a new default in the new release).
repack() {
	local d=$tmp/repack
	rm -rf "$d"
	dpkg-deb -R "$(deb "$1")" "$d"
	sed -i -e "s/^Version: .*/Version: $2/" -e "s/(= $V)/(= $2)/" "$d/DEBIAN/control"
	if [ -n "${3:-}" ] && [ -f "$d$CONF" ]; then
		echo "# new in $2" >>"$d$CONF"
		sed -i "s|^[0-9a-f]*  ${CONF#/}\$|$(cd "$d" && md5sum "${CONF#/}")|" "$d/DEBIAN/md5sums"
	fi
	dpkg-deb --root-owner-group -b "$d" "$(deb "$1" "$2")" >/dev/null
}

# --- plugstack.conf ------------------------------------------------------------
if [ ! -e "$PSC" ]; then
	mkdir -p /etc/slurm
	echo "include /etc/slurm/plugstack.conf.d/*.conf" >"$PSC"
	created_psc=yes
	diag "$PSC was absent: created with the include line for this test"
fi
grep -Eq '^[[:space:]]*include[[:space:]]+/etc/slurm/plugstack\.conf\.d/\*(\.conf)?[[:space:]]*$' "$PSC" ||
	missing "$PSC does not include /etc/slurm/plugstack.conf.d/*.conf"
need_cmd sbatch
check_undeclared "before installing"

# --- a submit host: base + submit ----------------------------------------------
apt_ok "apt install slurm-spank-ebpf-submit (with the base package)" \
	install "$(deb slurm-spank-ebpf)" "$(deb slurm-spank-ebpf-submit)"
is "base and submit installed, compute not" \
	"$(status slurm-spank-ebpf) $(status slurm-spank-ebpf-submit) $(status slurm-spank-ebpf-compute)" "ii ii -"
is "the declaration is the package's link to the drop-in" "$(readlink "$LINK")" "../spank_ebpf.conf"
check_declared "submit host"
sbatch_ebpf "submit host" accepted

# --- the same host as a compute node too -------------------------------------
apt_ok "apt install slurm-spank-ebpf-compute next to -submit (no file conflict)" \
	install "$(deb slurm-spank-ebpf-compute)"
is "all three installed" \
	"$(status slurm-spank-ebpf) $(status slurm-spank-ebpf-submit) $(status slurm-spank-ebpf-compute)" "ii ii ii"
ok_if "compute ships the preset" test -f /usr/lib/systemd/system-preset/50-slurm-spank-ebpf.preset
like "the preset enables the reconcile timer" "$(cat /usr/lib/systemd/system-preset/50-slurm-spank-ebpf.preset 2>&1)" "^enable $TIMER\$"
for u in "$TIMER" spank-ebpf-reconcile.service spank-ebpf-metrics.service; do
	ok_if "compute installs $UNITDIR/$u" test -f "$UNITDIR/$u"
done
# No systemd as PID 1 here: deb-systemd-helper records the enablement
# (the link systemctl enable would make); nothing is started.
is "deb-systemd-helper enabled the timer: $TIMER_LINK -> its unit" \
	"$(readlink "$TIMER_LINK" 2>&1)" "$UNITDIR/$TIMER"
# (deb-systemd-helper refuses to answer outside maintainer scripts: its
# state files say what it recorded.)
ok_if "deb-systemd-helper recorded the timer as enabled (its state file)" \
	test -e "/var/lib/systemd/deb-systemd-helper-enabled/timers.target.wants/$TIMER"
is "no link for the services (only the timer runs them)" \
	"$(find /etc/systemd/system -name 'spank-ebpf-*.service' 2>&1)" ""
ok_if "the admin command is installed (base package)" test -x /usr/sbin/spank-ebpf
is "check-config as an unprivileged user accepts the installed drop-in" \
	"$(setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/sbin/spank-ebpf check-config "$LINK" 2>&1 >/dev/null; echo "exit $?")" "exit 0"
check_declared "compute + submit"

# --- an admin's edit survives reinstall and upgrades ---------------------------
sed -i 's/mode=opt-in$/mode=always timeout=5/' "$CONF"
apt_ok "apt install --reinstall slurm-spank-ebpf" install --reinstall "$(deb slurm-spank-ebpf)"
like "reinstall keeps the edited drop-in" "$(cat "$CONF")" 'mode=always timeout=5$'
is "reinstall keeps the link" "$(readlink "$LINK")" "../spank_ebpf.conf"

for p in $PKGS; do repack "$p" "$V+pkgtest1"; done
apt_ok "upgrade to $V+pkgtest1 (same shipped drop-in)" install \
	"$(deb slurm-spank-ebpf "$V+pkgtest1")" "$(deb slurm-spank-ebpf-compute "$V+pkgtest1")" "$(deb slurm-spank-ebpf-submit "$V+pkgtest1")"
is "upgraded" "$(dpkg-query -W -f='${Version}' slurm-spank-ebpf)" "$V+pkgtest1"
like "upgrade keeps the edited drop-in" "$(cat "$CONF")" 'mode=always timeout=5$'

for p in $PKGS; do repack "$p" "$V+pkgtest2" change; done
apt_ok "upgrade to $V+pkgtest2, whose drop-in changed (--force-confold, as config management runs it)" \
	-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold install \
	"$(deb slurm-spank-ebpf "$V+pkgtest2")" "$(deb slurm-spank-ebpf-compute "$V+pkgtest2")" "$(deb slurm-spank-ebpf-submit "$V+pkgtest2")"
like "that upgrade keeps the edited drop-in" "$(cat "$CONF")" 'mode=always timeout=5$'
like "and leaves the new one beside it as .dpkg-dist" "$(cat "$CONF.dpkg-dist" 2>&1)" "^# new in $V\\+pkgtest2\$"
rm -f "$CONF.dpkg-dist"
d=$(declarations "$PSC" | grep spank_ebpf)
is "the active declaration is the edited one" "$d" "optional $SO mode=always timeout=5"

# --- remove, role by role, then the plugin ---------------------------------------
apt_ok "apt remove slurm-spank-ebpf-compute" remove slurm-spank-ebpf-compute
is "base and submit stay" "$(status slurm-spank-ebpf) $(status slurm-spank-ebpf-submit)" "ii ii"
ok_if "the preset is gone" test ! -e /usr/lib/systemd/system-preset/50-slurm-spank-ebpf.preset
for u in "$TIMER" spank-ebpf-reconcile.service spank-ebpf-metrics.service; do
	ok_if "$u is gone" test ! -e "$UNITDIR/$u"
done
ok_if "the admin command stays with the base package (submit hosts)" test -x /usr/sbin/spank-ebpf
# Stopped by prerm where systemd runs; dpkg keeps -compute as rc and
# deb-systemd-helper its enablement until purge, as for every Debian unit:
# the link now points at no unit, so nothing runs it.
ok_if "after remove: the timer's link points at no unit" test ! -e "$TIMER_LINK"
check_declared "submit left alone"

apt_ok "apt remove slurm-spank-ebpf (takes -submit with it)" remove slurm-spank-ebpf
is "removed; the base package's configuration kept (rc), -compute's timer state too (rc), -submit has none" \
	"$(status slurm-spank-ebpf) $(status slurm-spank-ebpf-submit) $(status slurm-spank-ebpf-compute)" "rc - rc"
ok_if "the plugin is gone" test ! -e "$SO"
ok_if "the declaration (link) is gone" test ! -e "$LINK" -a ! -h "$LINK"
like "the edited drop-in is kept (a conffile), unread" "$(cat "$CONF")" 'mode=always timeout=5$'
check_undeclared "after apt remove"
sbatch_ebpf "after apt remove" unrecognized

# --- reinstall after remove: the kept edit is live again -------------------------
apt_ok "apt install slurm-spank-ebpf-submit again" -o Dpkg::Options::=--force-confold install \
	"$(deb slurm-spank-ebpf "$V+pkgtest2")" "$(deb slurm-spank-ebpf-submit "$V+pkgtest2")"
is "the link is back" "$(readlink "$LINK")" "../spank_ebpf.conf"
d=$(declarations "$PSC" | grep spank_ebpf)
is "the kept edit is the active declaration again" "$d" "optional $SO mode=always timeout=5"
check_declared "reinstalled after remove"

# --- purge --------------------------------------------------------------------------
owned=$(for p in $PKGS; do dpkg-query -L "$p" 2>/dev/null; done | sort -u)
dpkg_conffiles=$(dpkg-query -W -f='${Conffiles}\n' $PKGS 2>/dev/null | awk 'NF { print $1 }')
# The check below looks for these files after the purge: it means
# something only if dpkg listed them.
like "before purge: dpkg lists the packages' files (the plugin among them)" "$owned" "^$SO\$"
like "before purge: dpkg lists the drop-in as a conffile" "$dpkg_conffiles" "^$CONF\$"
apt_ok "apt purge the three packages" purge $PKGS
is "purged: none installed, no configuration left" \
	"$(status slurm-spank-ebpf) $(status slurm-spank-ebpf-submit) $(status slurm-spank-ebpf-compute)" "- - -"
left=$(for f in $owned $dpkg_conffiles; do
	[ -d "$f" ] && continue
	if [ -e "$f" ] || [ -h "$f" ]; then echo "$f"; fi
done)
is "no file of the packages left behind" "$left" ""
# deb-systemd-helper keeps the timer's link and state from removal to
# purge (so that a reinstall keeps an admin's disable); purge removes them.
is "after purge: the timer's link is gone" "$(ls -l "$TIMER_LINK" 2>/dev/null)" ""
ok_if "after purge: the timer's link directory holds no spank-ebpf link" \
	sh -c "! ls /etc/systemd/system/*.wants/ 2>/dev/null | grep -q spank-ebpf"
is "after purge: deb-systemd-helper's state of the timer is gone" \
	"$(find /var/lib/systemd/deb-systemd-helper-enabled -name '*spank-ebpf*' 2>&1)" ""
is "nothing named spank_ebpf* left in /etc/slurm" "$(find /etc/slurm -name 'spank_ebpf*' 2>/dev/null)" ""
check_undeclared "after apt purge"

done_testing
