# Shared by the tests that install the .debs of `make deb` on this machine
# (deb-install.sh, deb-slurmd.sh), sourced after tests/lib/tap.sh and
# tests/packaging/pkglib.sh: refuses to touch a real installation, stages
# the packages, one such test at a time (a lock), and debinst_cleanup
# purges what was installed, including what apt pulled in.
export DEBIAN_FRONTEND=noninteractive
PKGS="slurm-spank-ebpf slurm-spank-ebpf-compute slurm-spank-ebpf-submit"
PSC=/etc/slurm/plugstack.conf
CONF=/etc/slurm/spank_ebpf.conf
LINK=/etc/slurm/plugstack.conf.d/spank_ebpf.conf

# One installing test at a time on this machine, from any build tree: the
# suites' lock (deb-slurmd.sh already holds it, through
# tests/lib/localslurm.sh), then this tree's.
suite_lock "${E2E_LOCK_WAIT:-3600}"
mkdir -p "$PKG_DIR"
exec 7>>"$PKG_DIR/install.lock"
flock -w 1800 7 || { echo "Bail out! could not lock $PKG_DIR/install.lock"; exit 1; }

# Never touch a real installation of the packages.
for p in $PKGS; do
	case $(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null) in
	"" | un* | pn*) ;;
	*) missing "$p is installed on this machine; this test installs and purges it" ;;
	esac
done
for f in "$CONF" "$LINK"; do
	[ -e "$f" ] || [ -h "$f" ] && missing "$f exists on this machine; this test would replace it"
done

# The packages deb.sh built (built here if missing).
with_pkg_lock sh -c 'ls "$1"/deb/slurm-spank-ebpf_*.deb >/dev/null 2>&1' sh "$PKG_DIR" ||
	pkg_build deb || { echo "Bail out! make deb failed"; exit 1; }
tmp=$(mktemp -d) || exit 1
chmod 0755 "$tmp"
V=$(dpkg-deb -f "$(ls "$PKG_DIR"/deb/slurm-spank-ebpf_*.deb | head -n 1)" Version)
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
triplet=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
SO=/usr/lib/$triplet/slurm-wlm/spank_ebpf.so
# Where -compute's units are: the build host's systemd.pc (as debian/rules).
UNITDIR=$(pkg-config --variable=systemdsystemunitdir systemd 2>/dev/null)
UNITDIR=${UNITDIR:-/usr/lib/systemd/system}
TIMER=spank-ebpf-reconcile.timer
TIMER_LINK=/etc/systemd/system/timers.target.wants/$TIMER
mkdir -p "$tmp/debs"
for p in $PKGS; do
	cp "$PKG_DIR/deb/${p}_${V}_$arch.deb" "$tmp/debs/" || { echo "Bail out! no ${p}_${V}_$arch.deb"; exit 1; }
done
chmod -R a+rX "$tmp/debs"
deb() { echo "$tmp/debs/${1}_${2:-$V}_$arch.deb"; }

before=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' | awk '$1 == "ii" { print $2 }' | sort)
created_psc=
debinst_cleanup() {
	local now extra
	dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' $PKGS 2>/dev/null | grep -qv '^un' &&
		pkg_apt purge $PKGS >>"$tmp/apt.log" 2>&1
	now=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' | awk '$1 == "ii" { print $2 }' | sort)
	extra=$(comm -13 <(echo "$before") <(echo "$now"))
	if [ -n "$extra" ]; then
		echo "# purging what the test pulled in: $(echo $extra)"
		pkg_apt purge $extra >>"$tmp/apt.log" 2>&1
	fi
	[ -n "$created_psc" ] && rm -f "$PSC"
	rm -rf "$tmp"
}

pkg_apt() {
	apt-get -o DPkg::Lock::Timeout=600 -y -q --no-install-recommends "$@"
}

# apt_ok DESC ARGS...: an apt-get run that must succeed (log shown if not).
apt_ok() {
	local desc=$1
	shift
	pkg_apt "$@" >"$tmp/last-apt.log" 2>&1
	if tap_point "$desc" $?; then
		cat "$tmp/last-apt.log" >>"$tmp/apt.log"
		return 0
	fi
	show "$(tail -n 25 "$tmp/last-apt.log")"
	return 1
}

# status PKG: ii (installed), rc (removed, configuration kept) or - (none).
status() {
	case $(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null) in
	ii*) echo ii ;;
	rc*) echo rc ;;
	"" | un* | pn*) echo - ;;
	*) dpkg-query -W -f='${db:Status-Abbrev}' "$1" | tr -d ' ' ;;
	esac
}

# Every active plugin line reachable from plugstack.conf, includes followed
# as Slurm follows them (glob; a file that cannot be opened, such as a
# dangling link, counts as empty).
declarations() {
	local f=$1 kind rest g
	[ -e "$f" ] || return 0
	active_lines "$f" | while read -r kind rest; do
		case $kind in
		include)
			for g in $rest; do
				[ -e "$g" ] && declarations "$g"
			done
			;;
		required | optional) echo "$kind $rest" ;;
		esac
	done
}

# Plugin lines whose .so does not exist (relative names: Debian's PluginDir).
stale_declarations() {
	declarations "$PSC" | while read -r kind path rest; do
		case $path in /*) ;; *) path=/usr/lib/$triplet/slurm-wlm/$path ;; esac
		[ -e "$path" ] || echo "$kind $path $rest"
	done
}

