# The Debian root filesystems the container suites boot (tests/system,
# tests/cluster, bench/systemd.sh), and the mirror they come from. Also
# sourced on its own (tests/exporter/build.sh, tests/deps/fresh-machine.sh
# use sys_mirror): definitions only; bail, diag and show are
# tests/lib/tap.sh's.
#
# Root filesystems are cached under $SYSTEM_CACHE (default
# /var/cache/slurm-spank-ebpf-tests/<suite>/root) and rebuilt when their
# package list changes or after $SYSTEM_CACHE_DAYS (30) days. The Debian
# mirror is the one apt uses on this host (read from /etc/apt/sources.list*
# at run time), or $SYSTEM_MIRROR.

SYS_CACHE=${SYSTEM_CACHE:-/var/cache/slurm-spank-ebpf-tests}
SYS_CACHE_DAYS=${SYSTEM_CACHE_DAYS:-30}
# Bump when the recipe of the root filesystems changes.
SYS_RECIPE=1
SYS_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# What every root filesystem holds besides minbase: the cluster, the
# stand-in's tools, the build tools (the Build-Depends of
# packaging/debian/control are added by sys_cache), and what Ansible needs
# on a managed host (sshd, python3, python3-apt for its apt module:
# tests/cluster/ansible.sh), and the monitoring the job metrics' end to end
# starts, with the firewall it applies (tests/system/jobmetrics.sh; the
# services left disabled: see sys_cache); curl and iproute2 for
# probes/tests/verify.sh on a real kernel, kmod for the modules it
# loads there (tests/vm); Slurm's accounting, slurmdbd on MariaDB, which
# one scenario starts and stops again (tests/lib/dbd.sh,
# tests/system/dbd.sh).
SYS_PKGS="systemd systemd-sysv dbus munge slurmd slurmctld slurm-client
bpftrace bpftool socat procps build-essential dpkg-dev debhelper fakeroot
openssh-server python3 python3-apt prometheus prometheus-node-exporter nftables
curl iproute2 kmod slurmdbd mariadb-server"
# Enabled by their packages, but only the scenario that needs them starts
# them (on its own ports, or none): no other suite's node runs them, nor
# listens for MariaDB (its socket unit would start it on 3306).
SYS_DISABLED_UNITS="prometheus.service prometheus-node-exporter.service
mariadb.service mariadb.socket slurmdbd.service"

# The URI of the Debian archive apt uses on this host: the source of the
# host's own release (VERSION_CODENAME) in /etc/apt/sources.list,
# sources.list.d/*.list or *.sources (deb822).
sys_mirror() {
	local codename f
	if [ -n "${SYSTEM_MIRROR:-}" ]; then
		echo "$SYSTEM_MIRROR"
		return 0
	fi
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || return 1
	{
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -f "$f" ] || continue
			sed -e 's/#.*//' -e 's/\[[^]]*\]//' "$f" |
				awk '$1 == "deb" { print $2, $3 }'
		done
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -f "$f" ] || continue
			sed -e '/^[[:space:]]*#/d' -e 's/#.*//' "$f" | awk '
				function flush() {
					if (types ~ /(^| )deb( |$)/ && enabled != "no")
						for (i = 1; i <= nu; i++)
							for (j = 1; j <= ns; j++)
								print u[i], s[j]
					types = ""; enabled = ""; nu = 0; ns = 0
				}
				/^[ \t]*$/ { flush(); next }
				{
					key = tolower($1); sub(/:$/, "", key)
					if (key == "types") { $1 = ""; types = $0 }
					else if (key == "uris") { for (i = 2; i <= NF; i++) u[++nu] = $i }
					else if (key == "suites") { for (i = 2; i <= NF; i++) s[++ns] = $i }
					else if (key == "enabled") enabled = tolower($2)
				}
				END { flush() }'
		done
	} | awk -v c="$codename" '$2 == c { print $1; exit }' | sed 's:/*$::'
}

# nspawn_prep: nspawn refuses to clean up its propagation directory on a
# disk file system: give it a tmpfs (once per boot of the host).
nspawn_prep() {
	mkdir -p /run/systemd/nspawn
	[ "$(stat -f -c %T /run/systemd/nspawn)" = tmpfs ] ||
		mount -t tmpfs -o mode=0755 tmpfs /run/systemd/nspawn
}

# Build-Depends of packaging/debian/control as one line, alternatives and
# versions kept: `apt-get satisfy` picks what each release has (for
# instance systemd-dev, or bookworm's systemd, for systemd.pc).
_sys_build_depends() {
	local control=$SYS_TOP/packaging/debian/control
	[ -f "$control" ] || { echo "libslurm-dev, pkgconf"; return 0; }
	awk '
		/^Build-Depends:/ { on = 1; sub(/^Build-Depends:/, ""); print; next }
		on && /^[ \t]/ { print; next }
		{ on = 0 }' "$control" |
		tr '\n' ' ' | tr -s ' \t' ' ' | sed -e 's/^ //' -e 's/[ ,]*$//'
}

_sys_pkgs() {
	echo $SYS_PKGS | tr ' ' '\n' | sort -u | tr '\n' ' ' | sed 's/ $//'
}

_sys_cache_key() {
	printf 'recipe=%s suite=%s packages=%s build-depends=%s\n' "$SYS_RECIPE" "$SUITE" "$(_sys_pkgs)" "$(_sys_build_depends)"
}

# sys_cache: sets ROOTFS to SUITE's cached root filesystem, building it
# when missing, stale or made by another recipe (SYSTEM_REFRESH=1: always).
# One check or build of a release at a time, from any suite (their own
# locks let a one-container and a three-host suite run side by side):
# $SYS_CACHE/SUITE.lock, on fd 5 until the function returns.
sys_cache() {
	sys_locked "$SYS_CACHE/$SUITE.lock" _sys_cache_locked
}

_sys_cache_locked() {
	local dir=$SYS_CACHE/$SUITE key mirror new t0 age u
	ROOTFS=$dir/root
	key=$(_sys_cache_key)
	if [ -z "${SYSTEM_REFRESH:-}" ] && [ -f "$dir/stamp" ] &&
		[ "$(cat "$dir/stamp")" = "$key" ] && [ -x "$ROOTFS/usr/sbin/slurmd" ]; then
		age=$((($(date +%s) - $(stat -c %Y "$dir/stamp")) / 86400))
		if [ "$age" -lt "$SYS_CACHE_DAYS" ]; then
			diag "cached root filesystem: $ROOTFS (built $age days ago)"
			SYS_CACHE_HOW="from the cache"
			return 0
		fi
	fi
	mirror=$(sys_mirror) || true
	[ -n "$mirror" ] || missing "a Debian mirror in /etc/apt/sources.list* (or SYSTEM_MIRROR)"
	t0=$(date +%s)
	diag "building the $SUITE root filesystem in $dir (debootstrap, then apt-get)"
	new=$SYS_CACHE/$SUITE.new
	rm -rf "$new"
	mkdir -p "$new"
	if ! debootstrap --variant=minbase --include=systemd,systemd-sysv,dbus \
		"$SUITE" "$new/root" "$mirror" >"$new/debootstrap.log" 2>&1; then
		show "$(tail -n 20 "$new/debootstrap.log")"
		bail "debootstrap $SUITE failed (log: $new/debootstrap.log)"
	fi
	echo "deb $mirror $SUITE main" >"$new/root/etc/apt/sources.list"
	nspawn_prep
	# Not booted: no service starts; postinst scripts only enable units.
	# Valid-Until is not checked: a mirror's sid can lag this host's clock.
	if ! systemd-nspawn -q -D "$new/root" --register=no --keep-unit --pipe \
		-E DEBIAN_FRONTEND=noninteractive -E LANG=C.UTF-8 -E PATH="$SYS_PATH" \
		/bin/sh -c "apt-get -q -o Acquire::Check-Valid-Until=false update && apt-get -q install -y --no-install-recommends $(_sys_pkgs) && apt-get -q satisfy -y --no-install-recommends '$(_sys_build_depends)' && apt-get clean" \
		</dev/null >"$new/apt.log" 2>&1; then
		show "$(tail -n 20 "$new/apt.log")"
		bail "apt-get install in the $SUITE root filesystem failed (log: $new/apt.log)"
	fi
	for u in $SYS_DISABLED_UNITS; do
		find "$new/root/etc/systemd/system" -name "$u" -type l -delete
	done
	echo "$key" >"$new/stamp"
	rm -rf "$dir"
	mv "$new" "$dir"
	SYS_CACHE_HOW="built by debootstrap"
	diag "built $ROOTFS in $(($(date +%s) - t0)) s ($(du -sh "$ROOTFS" | cut -f1))"
}
