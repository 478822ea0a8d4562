# System tests in containers (tests/system): a Debian root filesystem per
# release with real systemd as PID 1, munge, slurmctld and slurmd started
# as systemd units, the plugin built there as Debian packages from the
# `make dist` contents of this tree and installed with apt, and a stand-in
# ebpf_exporter.service that loads real eBPF programs.
#
# Sourced after tests/lib/tap.sh and plugin.sh by tests/system/<suite>.sh (through
# scenarios.sh's sys_main) and by tests/system/demo.sh:
#   sys_setup SUITE        prerequisites, the lock, traps, run directory
#   sys_cache              the cached root filesystem of SUITE, built once
#                          with debootstrap (SYSTEM_REFRESH=1 rebuilds it)
#   sys_tarball            `make dist` of this tree (or SYSTEM_TARBALL)
#   sys_boot               an overlayfs copy of it with slurm.conf, the
#                          stand-in (disabled) and the job payload, booted
#                          with systemd-nspawn; `ct CMD...` runs CMD inside
#   sys_install            builds the packages inside from the tarball and
#                          installs them with apt
#   sys_cluster_start      (re)starts munge, slurmctld, slurmd via systemd
#   sys_finish             powers the container off, unmounts, plans
# The EXIT trap always tears the container down (by PID) and removes the
# run directory, keeping its logs on failure or with SYSTEM_KEEP=1.
#
# Root filesystems are cached under $SYSTEM_CACHE (default
# /var/cache/slurm-spank-ebpf-tests/<suite>/root) and rebuilt when their
# package list changes or after $SYSTEM_CACHE_DAYS (30) days. The Debian
# mirror is the one apt uses on this host (read from /etc/apt/sources.list*
# at run time), or $SYSTEM_MIRROR. Containers have a private network, so
# nothing in them can clash with a Slurm on the host; they still use their
# own ports. One container at a time, and never while tests/e2e runs: both
# hold a flock on the same lock file for their whole life.
#
# slurmd logs to the journal only (no SlurmdLogFile), as under Debian's
# units; SYSTEM_SLURMD_SYSLOG_DEBUG=LEVEL adds SlurmdSyslogDebug=LEVEL.

SYS_LOCK=${E2E_LOCK:-/run/slurm-spank-ebpf-e2e.lock}
SYS_LOCK_WAIT=${SYSTEM_LOCK_WAIT:-3600}
SYS_CACHE=${SYSTEM_CACHE:-/var/cache/slurm-spank-ebpf-tests}
SYS_CACHE_DAYS=${SYSTEM_CACHE_DAYS:-30}
# Bump when the recipe of the root filesystems changes.
SYS_RECIPE=1
SYS_CTLD_PORT=${SYSTEM_PORT:-17917}
SYS_SLURMD_PORT=$((SYS_CTLD_PORT + 1))
SYS_STANDIN_PORT=9435
SYS_UNIT=ebpf_exporter.service
SYS_USER=slurmtest
SYS_STATE=/run/ebpf_exporter.refcount
SYS_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# Inside the container: files to install, job payload markers.
SYS_CDIR=/var/tmp/slurm-spank-ebpf
SYS_JOBS=$SYS_CDIR/jobs

# What every root filesystem holds besides minbase: the cluster, the
# stand-in's tools, the build tools (the Build-Depends of
# packaging/debian/control are added by sys_cache), and what Ansible needs
# on a managed host (sshd, python3, python3-apt for its apt module:
# tests/cluster/ansible.sh).
SYS_PKGS="systemd systemd-sysv dbus munge slurmd slurmctld slurm-client
bpftrace bpftool socat procps build-essential dpkg-dev debhelper fakeroot
openssh-server python3 python3-apt"

_sys_nspawn='' _sys_init='' _sys_mounted='' RUN='' SUITE=''
# Every nspawn and overlay mount of the run, for the teardown; SYS_ROOT is
# the root directory of the container ct runs in, seen from the host.
SYS_NSPAWNS='' SYS_MOUNTS='' SYS_ROOT=''
declare -gA _SYS_MACHINE_OF=()
_sys_t0=$(date +%s)

# --- TAP helpers (counters n and failed are tests/lib/tap.sh's) -------------

# is, like, unlike, wait_until, wait_for, bail: tests/lib/tap.sh.
_sys_show() { show "$@"; }

# Seconds since sys_setup, for the timing lines.
sys_elapsed() {
	echo $(($(date +%s) - _sys_t0))
}

# --- setup ------------------------------------------------------------------

# sys_setup SUITE
sys_setup() {
	SUITE=$1
	# Under `make distcheck`, don't boot three more containers from the
	# unpacked copy: the README's test command runs these (tests/lib/tap.sh).
	skip_in_distcheck "system test"
	need_root
	need_cmd debootstrap systemd-nspawn nsenter flock mount umount setsid \
		ip tar xz mktemp
	grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null ||
		missing "overlayfs"
	grep -qw overlay /proc/filesystems || missing "overlayfs"
	SYS_TOP=${srcdir:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
	SYS_BUILDDIR=${top_builddir:-}
	if [ -z "$SYS_BUILDDIR" ] && [ -n "${SPANK_EBPF_SO:-}" ]; then
		SYS_BUILDDIR=${SPANK_EBPF_SO%/src/spank/.libs/spank_ebpf.so}
	fi
	SYS_BUILDDIR=${SYS_BUILDDIR:-$SYS_TOP}
	SYS_FILES=$SYS_TOP/tests/system/files
	SYS_MACHINE=ebpf-$SUITE

	exec 9>>"$SYS_LOCK" || missing "lock file $SYS_LOCK"
	if ! flock -w "$SYS_LOCK_WAIT" 9; then
		bail "could not take $SYS_LOCK within ${SYS_LOCK_WAIT}s"
	fi
	# The timing lines count from here, not from the wait for the lock.
	[ "$(($(date +%s) - _sys_t0))" -lt 2 ] || diag "waited $(($(date +%s) - _sys_t0)) s for $SYS_LOCK"
	_sys_t0=$(date +%s)
	trap '_sys_on_exit' EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
	mkdir -p "$SYS_CACHE"
	RUN=$(mktemp -d "${SYSTEM_RUNDIR:-/var/tmp}/slurm-spank-ebpf-system.$SUITE.XXXXXX") ||
		bail "mktemp failed"
	chmod 0755 "$RUN"
	mkdir -p "$RUN/log"
}

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
		_sys_show "$(tail -n 30 "$RUN/log/dist.log")"
		bail "make distdir failed"
	fi
	TARBALL=$RUN/dist/$name.tar.xz
}

# --- the Debian mirror and the cached root filesystems ----------------------

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

# nspawn refuses to clean up its propagation directory on a disk file
# system: give it a tmpfs (once per boot of the host).
_sys_nspawn_prep() {
	mkdir -p /run/systemd/nspawn
	[ "$(stat -f -c %T /run/systemd/nspawn)" = tmpfs ] ||
		mount -t tmpfs -o mode=0755 tmpfs /run/systemd/nspawn
}

# sys_cache: sets ROOTFS to SUITE's cached root filesystem, building it
# when missing, stale or made by another recipe.
sys_cache() {
	local dir=$SYS_CACHE/$SUITE key mirror new t0 age
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
		_sys_show "$(tail -n 20 "$new/debootstrap.log")"
		bail "debootstrap $SUITE failed (log: $new/debootstrap.log)"
	fi
	echo "deb $mirror $SUITE main" >"$new/root/etc/apt/sources.list"
	_sys_nspawn_prep
	# Not booted: no service starts; postinst scripts only enable units.
	# Valid-Until is not checked: a mirror's sid can lag this host's clock.
	if ! systemd-nspawn -q -D "$new/root" --register=no --keep-unit --pipe \
		-E DEBIAN_FRONTEND=noninteractive -E LANG=C.UTF-8 -E PATH="$SYS_PATH" \
		/bin/sh -c "apt-get -q -o Acquire::Check-Valid-Until=false update && apt-get -q install -y --no-install-recommends $(_sys_pkgs) && apt-get -q satisfy -y --no-install-recommends '$(_sys_build_depends)' && apt-get clean" \
		</dev/null >"$new/apt.log" 2>&1; then
		_sys_show "$(tail -n 20 "$new/apt.log")"
		bail "apt-get install in the $SUITE root filesystem failed (log: $new/apt.log)"
	fi
	echo "$key" >"$new/stamp"
	rm -rf "$dir"
	mv "$new" "$dir"
	SYS_CACHE_HOW="built by debootstrap"
	diag "built $ROOTFS in $(($(date +%s) - t0)) s ($(du -sh "$ROOTFS" | cut -f1))"
}

# --- the container ----------------------------------------------------------

# ct CMD...: runs CMD inside the container (all its namespaces), as root,
# with a clean environment.
ct() {
	nsenter -t "$_sys_init" -a env -i PATH="$SYS_PATH" HOME=/root LANG=C.UTF-8 TERM=dumb "$@"
}

# ctu CMD...: the same as the unprivileged test user.
ctu() {
	ct setpriv --reuid="$SYS_USER" --regid="$SYS_USER" --init-groups \
		env HOME=/home/$SYS_USER USER=$SYS_USER "$@"
}

# The container's systemd: the child of nspawn that runs systemd (with a
# network of its own, nspawn's first child is a short-lived helper).
_sys_init_pid() {
	local c p
	c=$(cat "/proc/$_sys_nspawn/task/$_sys_nspawn/children" 2>/dev/null) || return 1
	for p in $c; do
		if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = systemd ]; then
			_sys_init=$p
			return 0
		fi
	done
	return 1
}

# sys_overlay DIR: an overlayfs copy of ROOTFS on DIR/root (DIR/upper and
# DIR/work beside it), recorded in SYS_MOUNTS for the teardown.
sys_overlay() {
	local dir=$1
	mkdir -p "$dir/upper" "$dir/work" "$dir/root"
	mount -t overlay overlay \
		-o "lowerdir=$ROOTFS,upperdir=$dir/upper,workdir=$dir/work" "$dir/root" ||
		bail "could not mount the overlay on $dir/root"
	SYS_MOUNTS="$SYS_MOUNTS $dir/root"
}

# sys_prepare_root ROOT HOSTNAME: what every booted copy gets before its
# boot: its hostname, the stand-in (disabled), the job payload, the cgroup
# setup below. Sets SYS_HW (the node's hardware as slurmd sees it, memory
# left out: it is not scheduled) and SYS_SYSTEMD, SYS_UNIFIED.
sys_prepare_root() {
	local root=$1 host=$2
	echo "$host" >"$root/etc/hostname"
	_sys_nspawn_prep
	# So that slurm.conf is in place at boot, as on a real node: slurmd
	# 24.11+ has no ConditionPathExists and would wait for a configless
	# controller until its start times out.
	if [ -z "${SYS_HW:-}" ]; then
		SYS_HW=$(timeout 60 systemd-nspawn -q -D "$root" --register=no --keep-unit --pipe \
			--private-network slurmd -C </dev/null 2>/dev/null |
			sed -n 's/^NodeName=[^ ]* \(CPUs=.*\)$/\1/p' | sed 's/ *RealMemory=[0-9]*//' | head -n 1)
		[ -n "$SYS_HW" ] || SYS_HW="CPUs=$(nproc)"
	fi
	# A container loads no kernel module: don't let that unit fail the boot.
	ln -sf /dev/null "$root/etc/systemd/system/systemd-modules-load.service"
	# The stand-in (disabled) and the job payload.
	mkdir -p "$root/usr/local/libexec" "$root$SYS_JOBS" "$root$SYS_CDIR/build"
	chmod 1777 "$root$SYS_JOBS"
	install -m 0755 "$SYS_FILES/ebpf-exporter-standin" "$root/usr/local/libexec/ebpf-exporter-standin"
	install -m 0644 "$SYS_FILES/ebpf_exporter.service" "$root/etc/systemd/system/$SYS_UNIT"
	install -m 0755 "$SYS_FILES/payload" "$root/usr/local/bin/sse-payload"
	# systemd 258 and later no longer boot on cgroup v1: where the host is
	# hybrid (v1 controllers, as on this kind of machine), such a container
	# gets a cgroup2-only hierarchy (without controllers); older ones get
	# what nspawn picks from the host. SYSTEM_CGROUP=unified|hybrid forces.
	SYS_SYSTEMD=$(awk '/^Package: systemd$/ { f = 1 } f && /^Version:/ { print $2; exit }' \
		"$ROOTFS/var/lib/dpkg/status")
	case ${SYSTEM_CGROUP:-auto} in
	unified) SYS_UNIFIED=1 ;;
	hybrid) SYS_UNIFIED= ;;
	*) [ "${SYS_SYSTEMD%%[!0-9]*}" -ge 258 ] 2>/dev/null && SYS_UNIFIED=1 || SYS_UNIFIED= ;;
	esac
	# Slurm's cgroup plugins refuse such a half-way system ("Hybrid mode
	# is not supported": /proc/self/cgroup still lists the host's v1
	# controllers) and slurmd 26.05 loads one even with
	# proctrack/linuxproc: none is needed here.
	if [ -n "$SYS_UNIFIED" ] && [ "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs ]; then
		echo "CgroupPlugin=disabled" >"$root/etc/slurm/cgroup.conf"
	fi
}

# _sys_cgroups MACHINE: a cgroup for MACHINE's nspawn in each hierarchy
# systemd uses (the v1 name=systemd one and the v2 one, on a hybrid host
# like this kind of machine; the v2 root on a unified one), made if
# missing; prints their directories. _sys_cgroups_rm MACHINE removes them
# once the container is gone.
_sys_cgroup_tops() {
	local t
	if [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
		echo /sys/fs/cgroup
		return 0
	fi
	for t in /sys/fs/cgroup/systemd /sys/fs/cgroup/unified; do
		case $(stat -f -c %T "$t" 2>/dev/null) in
		cgroupfs | cgroup2fs) echo "$t" ;;
		esac
	done
}

_sys_cgroups() {
	local t d n=0
	for t in $(_sys_cgroup_tops); do
		d=$t/slurm-spank-ebpf-$1
		mkdir -p "$d" || return 1
		echo "$d"
		n=$((n + 1))
	done
	[ "$n" -gt 0 ]
}

_sys_cgroups_rm() {
	local t
	[ -n "$1" ] || return 0
	for t in $(_sys_cgroup_tops); do
		[ -d "$t/slurm-spank-ebpf-$1" ] || continue
		find "$t/slurm-spank-ebpf-$1" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	return 0
}

# sys_nspawn_start ROOT MACHINE CONSOLE_LOG NETWORK_ARGS...: boots ROOT
# with systemd-nspawn (in the background, in its own session, with what
# services need to load eBPF programs) and sets _sys_nspawn (its PID,
# also added to SYS_NSPAWNS for the teardown) and _sys_init (the
# container's systemd). NETWORK_ARGS: --private-network, or
# --network-bridge=BR run inside a network namespace by the caller's
# SYS_NSPAWN_NETNS (a path under /run/netns). With SYS_NSPAWN_FRESH_UPTIME
# set, the container gets a time namespace whose boot clock starts now, so
# that slurmd reports an uptime of seconds, as after a real reboot (a
# container otherwise shares the host's).
sys_nspawn_start() {
	local root=$1 machine=$2 log=$3 up cgs cg
	shift 3
	up=$(cut -d. -f1 /proc/uptime)
	cgs=$(_sys_cgroups "$machine") || bail "no cgroup of its own for $machine"
	(
		# nspawn --keep-unit boots the container in nspawn's own cgroup:
		# without one per container, every container's systemd would run
		# its units in the same directories and kill each other's.
		for cg in $cgs; do
			echo "$BASHPID" >"$cg/cgroup.procs" || exit 125
		done
		${SYS_UNIFIED:+export SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1}
		exec setsid ${SYS_NSPAWN_NETNS:+nsenter --net="$SYS_NSPAWN_NETNS"} \
			${SYS_NSPAWN_FRESH_UPTIME:+unshare --time --boottime "-$((up - 1))"} \
			systemd-nspawn -D "$root" --boot --register=no --keep-unit \
			--console=pipe --machine="$machine" "$@" \
			--capability=all --system-call-filter='bpf perf_event_open' \
			--rlimit=RLIMIT_MEMLOCK=infinity
	) </dev/null >"$log" 2>&1 9>&- &
	_sys_nspawn=$!
	SYS_NSPAWNS="$SYS_NSPAWNS $_sys_nspawn"
	_SYS_MACHINE_OF[$_sys_nspawn]=$machine
	_sys_init=
	if ! wait_until 30 "the container's init" _sys_init_pid; then
		_sys_show "$(tail -n 20 "$log")"
		bail "systemd-nspawn did not start the container $machine"
	fi
}

# sys_nspawn_wait CONSOLE_LOG: until the container's systemd (_sys_init)
# says it is up.
sys_nspawn_wait() {
	local log=$1 st
	wait_until 60 "the container's systemd bus" \
		nsenter -t "$_sys_init" -a test -S /run/systemd/private
	st=$(timeout 120 nsenter -t "$_sys_init" -a env -i PATH="$SYS_PATH" \
		systemctl is-system-running --wait 2>&1)
	case $st in
	running | degraded) ;;
	*)
		_sys_show "$(tail -n 20 "$log")"
		bail "the container did not boot: $st"
		;;
	esac
	[ "$st" = running ] || diag "container is $st: $(ct systemctl --failed --no-legend --plain 2>&1 | tr '\n' ';')"
}

# sys_nspawn_stop: clean poweroff (SIGTERM to nspawn), then SIGKILL to the
# container's init (which takes its whole PID namespace along) and to
# nspawn, by PID (_sys_nspawn, _sys_init).
# With SYS_NSPAWN_HARD set: no poweroff, the power cut (SIGKILL to init).
sys_nspawn_stop() {
	[ -n "$_sys_nspawn" ] || return 0
	if [ -n "${SYS_NSPAWN_HARD:-}" ] && [ -n "$_sys_init" ]; then
		kill -KILL "$_sys_init" 2>/dev/null
	else
		kill -TERM "$_sys_nspawn" 2>/dev/null
	fi
	if ! gone_within 30 "$_sys_nspawn"; then
		diag "container did not power off in 30 s: killing it"
		[ -z "$_sys_init" ] || kill -KILL "$_sys_init" 2>/dev/null
		sleep 1
		kill -KILL "$_sys_nspawn" 2>/dev/null
	fi
	wait "$_sys_nspawn" 2>/dev/null
	_sys_cgroups_rm "${_SYS_MACHINE_OF[$_sys_nspawn]:-}"
	SYS_NSPAWNS=$(echo " $SYS_NSPAWNS " | sed "s/ $_sys_nspawn / /; s/^ *//; s/ *$//")
	_sys_nspawn='' _sys_init=''
}

# sys_unmount DIR: unmounts DIR (lazily if busy) and forgets it.
sys_unmount() {
	umount "$1" 2>/dev/null || umount -l "$1" 2>/dev/null
	SYS_MOUNTS=$(echo " $SYS_MOUNTS " | sed "s| $1 | |; s/^ *//; s/ *$//")
}

# sys_boot: an overlayfs copy of ROOTFS, booted.
sys_boot() {
	local root=$RUN/root
	sys_overlay "$RUN"
	_sys_mounted=$root
	SYS_ROOT=$root
	printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n' "$SYS_MACHINE" >"$root/etc/hosts"
	sys_prepare_root "$root" "$SYS_MACHINE"
	sys_slurm_conf
	sys_nspawn_start "$root" "$SYS_MACHINE" "$RUN/log/console.log" --private-network
	# Slurm resolves 127.0.0.1 with AI_ADDRCONFIG, which glibc answers
	# only where some interface other than lo has an IPv4 address: give
	# the private network a veth pair of its own, down, that goes nowhere.
	nsenter -t "$_sys_init" -n sh -c \
		'ip link add sse0 type veth peer name sse1 && ip addr add 192.0.2.1/32 dev sse0' ||
		bail "could not add an address to the container's network"
	sys_nspawn_wait "$RUN/log/console.log"
	diag "$SUITE: cgroup hierarchy in the container: $(ct sh -c 'stat -f -c %T /sys/fs/cgroup; test -d /sys/fs/cgroup/unified && echo +unified' | tr '\n' ' ')"
}

# sys_teardown: the container powered off (sys_nspawn_stop), its overlay
# unmounted. $SYS_TEARDOWN names another teardown (tests/cluster: every
# host, then the network namespace).
sys_teardown() {
	if [ -n "${SYS_TEARDOWN:-}" ]; then
		"$SYS_TEARDOWN"
		return
	fi
	sys_nspawn_stop
	if [ -n "$_sys_mounted" ]; then
		sys_unmount "$_sys_mounted"
		_sys_mounted=
	fi
}

_sys_on_exit() {
	local st=$?
	[ "${failed:-0}" -eq 0 ] || st=1
	if [ -n "$SYS_NSPAWNS" ] && [ "$st" -ne 0 ]; then
		sys_dump
	fi
	sys_teardown
	if [ -n "$RUN" ] && [ -d "$RUN" ]; then
		if [ "$st" -eq 0 ] && [ -z "${SYSTEM_KEEP:-}" ]; then
			rm -rf "$RUN"
		else
			rm -rf "$RUN/upper" "$RUN/work" "$RUN/root" "$RUN/hosts"
			diag "logs kept in $RUN/log"
		fi
	fi
	exit "$st"
}

# Diagnostics on failure: into the TAP log and $RUN/log. $SYS_DUMP names
# another (tests/cluster: every host's).
sys_dump() {
	if [ -n "${SYS_DUMP:-}" ]; then
		"$SYS_DUMP"
		return
	fi
	ct journalctl -b --no-pager -o short-precise >"$RUN/log/journal.txt" 2>&1
	diag "--- diagnostics ($SUITE; whole journal in $RUN/log/journal.txt) ---"
	diag "state file: $(ct cat "$SYS_STATE" 2>&1 | tr '\n' ' ')"
	diag "squeue / sinfo:"
	_sys_show "$(ct squeue 2>&1; ct sinfo -N -o '%N %T %E' 2>&1)"
	diag "systemctl status ebpf_exporter slurmd:"
	_sys_show "$(ct systemctl status --no-pager -n 0 "$SYS_UNIT" slurmd 2>&1 | head -n 30)"
	diag "slurmd journal (spank, prolog/epilog, error lines; last 60):"
	_sys_show "$(ct journalctl -b --no-pager -o cat -u slurmd 2>&1 |
		grep -E 'spank|rolog|pilog|error|drain' | tail -n 60)"
	diag "ebpf_exporter journal (last 20):"
	_sys_show "$(ct journalctl -b --no-pager -o short-precise -u "$SYS_UNIT" 2>&1 | tail -n 20)"
}

# --- inside: packages, stand-in, cluster ------------------------------------

# sys_install: builds the packages from TARBALL inside the container, with
# that release's Slurm headers, and installs them; installs the stand-in
# (disabled) and the payload; configures and starts the cluster.
sys_install() {
	local t0
	cp "$TARBALL" "$SYS_ROOT$SYS_CDIR/build/"
	SLURM_VERSION=$(ct dpkg-query -W -f='${Version}' slurmd 2>/dev/null)
	SLURM_MAJMIN=$(echo "$SLURM_VERSION" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')
	diag "$SUITE: Slurm $SLURM_VERSION, $(ct bpftrace --version 2>&1), systemd $(ct dpkg-query -W -f='${Version}' systemd)"
	t0=$(date +%s)
	SYS_BUILD_HOW=
	_sys_build_debs
	diag "$SUITE: built and installed in $(($(date +%s) - t0)) s: $SYS_BUILD_HOW"
	ct useradd -m -s /bin/sh "$SYS_USER" || bail "useradd failed"
}

# sys_build_debs: the packages, as `make deb` builds them (packaging/debian,
# dist tarball), built from TARBALL inside the container `ct` runs in;
# SYS_DEBS lists them there, and they are copied to $RUN/debs for other
# containers. Returns 1 when the tarball has no packaging/debian.
sys_build_debs() {
	local b=$SYS_CDIR/build tb rc debs d
	tb=$(basename "$TARBALL")
	tar -tJf "$TARBALL" | grep -q '/packaging/debian/control$' || return 1
	mkdir -p "$SYS_ROOT$b"
	cp "$TARBALL" "$SYS_ROOT$b/"
	ct sh -c "cd $b && tar -xJf $tb && cd \$(tar -tJf $tb | head -n 1 | cut -d/ -f1) &&
		./configure -q && DEB_BUILD_OPTIONS='nocheck parallel=2' make deb" \
		>"$RUN/log/build.log" 2>&1
	rc=$?
	debs=$(cd "$SYS_ROOT$b" && find . -path '*/_pkg/deb/*.deb' | sort)
	if [ "$rc" -ne 0 ] || [ -z "$debs" ]; then
		_sys_show "$(tail -n 40 "$RUN/log/build.log")"
		bail "$SUITE: building the packages failed (log: $RUN/log/build.log)"
	fi
	SYS_DEBS=$(echo "$debs" | sed "s|^\./|$b/|" | grep -v -- '-dbgsym_')
	mkdir -p "$RUN/debs"
	for d in $SYS_DEBS; do
		cp "$SYS_ROOT$d" "$RUN/debs/" || bail "could not copy $d out of the container"
	done
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
			_sys_show "$(tail -n 20 "$RUN/log/install.log")"
			bail "$SUITE: apt-get install of the packages failed"
		fi
		SYS_INSTALLED=packages
	else
		SYS_BUILD_HOW="INTERIM: no packaging/debian in the tarball, ./configure && make && make install"
		ct sh -c "cd $b && tar -xJf $tb && cd \$(tar -tJf $tb | head -n 1 | cut -d/ -f1) &&
			./configure -q && make -s && make -s install" >"$RUN/log/build.log" 2>&1 ||
			{ _sys_show "$(tail -n 40 "$RUN/log/build.log")"; bail "$SUITE: build failed"; }
		SYS_INSTALLED=make-install
	fi
}

# sys_slurm_conf [PROLOGFLAGS]: the one-node cluster's slurm.conf. Logs go
# to the journal (no log files), on private loopback ports.
sys_slurm_conf() {
	sys_slurm_conf_text "${1:-}" >"$SYS_ROOT/etc/slurm/slurm.conf"
	SYS_PROLOGFLAGS=${1:-}
}

# sys_slurm_conf_text [PROLOGFLAGS]: slurm.conf, for one container by
# default; tests/cluster sets SYS_CONF_CTLD (SlurmctldHost), SYS_CONF_NODES
# (the NodeName and PartitionName lines) and SYS_CONF_EXTRA (more lines).
sys_slurm_conf_text() {
	cat <<CONF
# Generated by slurm-spank-ebpf tests/system: a ${SYS_CONF_WHAT:-one-node} test cluster.
ClusterName=spankebpf
SlurmctldHost=${SYS_CONF_CTLD:-$SYS_MACHINE(127.0.0.1)}
SlurmctldPort=$SYS_CTLD_PORT
SlurmdPort=$SYS_SLURMD_PORT
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldDebug=info
SlurmdDebug=${SYSTEM_SLURMD_DEBUG:-info}
${SYSTEM_SLURMD_SYSLOG_DEBUG:+SlurmdSyslogDebug=$SYSTEM_SLURMD_SYSLOG_DEBUG}
ProctrackType=proctrack/linuxproc
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
ReturnToService=2
KillWait=5
${1:+PrologFlags=$1}
${SYS_CONF_EXTRA:-}
${SYS_CONF_NODES:-NodeName=$SYS_MACHINE NodeAddr=127.0.0.1 $SYS_HW State=UNKNOWN
PartitionName=main Nodes=$SYS_MACHINE Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8}
CONF
}

# node_state [NODE], node_reason [NODE]: as Slurm sees it (default: the
# one container's node).
node_state() {
	ct sinfo -h -n "${1:-$SYS_MACHINE}" -o %T 2>/dev/null
}

node_reason() {
	ct scontrol -o show node "${1:-$SYS_MACHINE}" 2>/dev/null | grep -o 'Reason=.*' | sed 's/ [A-Z][A-Za-z]*=.*//'
}

_sys_node_ready() {
	case $(node_state "${1:-}") in
	idle | mixed | allocated) return 0 ;;
	*) return 1 ;;
	esac
}

# sys_cluster_start: (re)starts munge, slurmctld and slurmd through
# systemd and waits for the node to take jobs.
sys_cluster_start() {
	local c
	c=$(journal_mark)
	ct systemctl restart munge || bail "munge did not start"
	ct systemctl restart slurmctld || bail "slurmctld did not start"
	ct systemctl restart slurmd || bail "slurmd did not start"
	if ! wait_until 60 "slurmd says it started" slurmd_log_like "$c" "slurmd version [^ ]+ started" ||
		! wait_until 60 "node $SYS_MACHINE idle" _sys_node_ready; then
		_sys_show "$(ct journalctl -b --no-pager -o cat -u slurmctld -u slurmd 2>&1 | tail -n 30)"
		bail "the cluster did not come up"
	fi
}

# sys_restart_slurmd: after a change of the plugin line, as an admin would.
sys_restart_slurmd() {
	local c
	c=$(journal_mark)
	ct systemctl restart slurmd || return 1
	wait_until 60 "slurmd restarted" slurmd_log_like "$c" "slurmd version [^ ]+ started" &&
		wait_until 60 "node $SYS_MACHINE idle" _sys_node_ready
}

# The plugin's line, as the package installs it: /etc/slurm/spank_ebpf.conf
# (plugstack.conf.d/spank_ebpf.conf links to it).
SYS_PLUGIN_CONF=/etc/slurm/spank_ebpf.conf

# plugin_args ARGS...: replaces the arguments on the plugin line.
plugin_args() {
	local f=$SYS_ROOT$SYS_PLUGIN_CONF
	sed -i -E "s#^((optional|required)[[:space:]]+[^[:space:]]+spank_ebpf\.so).*#\1${*:+ $*}#" "$f"
}

plugin_line() {
	grep -E '^(optional|required)' "$SYS_ROOT$SYS_PLUGIN_CONF"
}

# --- observing ---------------------------------------------------------------

# A journal cursor: what was logged after it is journal_since's.
journal_mark() {
	ct journalctl -q -n 0 --show-cursor 2>/dev/null | sed -n 's/^-- cursor: //p'
}

# journal_since CURSOR [journalctl args...]. A journalctl that fails
# (bad cursor, no journal) says so in the output: checks that expect no
# line ("the unit was never touched") must not pass on it.
journal_since() {
	local c=$1
	shift
	ct journalctl --no-pager -q -o cat ${c:+--after-cursor="$c"} "$@" ||
		echo "JOURNALCTL FAILED (exit $?): journalctl ${c:+--after-cursor=$c} $*"
}

# slurmd's own lines (and its job steps'), picked like the plugin's below.
slurmd_log_since() {
	_sys_ident_msgs "$1" 'slurmd|slurmstepd'
}

slurmd_log_has() {
	slurmd_log_since "$1" | grep -qF -- "$2"
}

slurmd_log_like() {
	slurmd_log_since "$1" | grep -qE -- "$2"
}

# The plugin's lines from job prologs and epilogs. slurmd logs to the
# journal (stderr, no SlurmdLogFile): that is where an admin looks. With
# SYSTEM_SLURMD_SYSLOG_DEBUG=LEVEL (SlurmdSyslogDebug=LEVEL) the spank
# prolog/epilog processes also log to syslog: read only those copies.
# Picked by the identifier journalctl prints, not by journal field
# matches: with --after-cursor, those lost the first matching entry (seen
# on bookworm's systemd 252: "prolog job 1" missing from -u slurmd, from
# -t spank-ebpf and from _SYSTEMD_UNIT=slurmd.service +
# SYSLOG_IDENTIFIER=slurmd, while the journal held it; an `unlike` check
# on such a read passes on the line it lost). The admin command's lines
# (identifier spank-ebpf, admin_log_since) are never the plugin's: run as
# Prolog=/Epilog= it lives in slurmd's cgroup too.
#
# _sys_ident_msgs CURSOR IDENT: the messages of the entries since CURSOR
# whose identifier matches the ERE IDENT.
_sys_ident_msgs() {
	journal_since "$1" -o short |
		sed -nE -e '/^JOURNALCTL FAILED/p' -e "s/^[^ ]+ +[^ ]+ [^ ]+ [^ ]+ ($2)\[[0-9]+\]: //p"
}

_sys_ident_lines() {
	_sys_ident_msgs "$1" "$2" | grep -o 'spank_ebpf: .*\|^JOURNALCTL FAILED.*'
}

plugin_log_since() {
	if [ -n "${SYSTEM_SLURMD_SYSLOG_DEBUG:-}" ]; then
		_sys_ident_lines "$1" 'spank-prolog|spank-epilog'
	else
		_sys_ident_lines "$1" slurmd
	fi
}

# The admin command's lines (Prolog= program, linger-end timer, the
# reconcile service): it logs to syslog as spank-ebpf.
admin_log_since() {
	_sys_ident_lines "$1" spank-ebpf
}

refcounts_since() {
	plugin_log_since "$1" | refcounts_of
}

# The unit's journal as JSON since CURSOR ($2: the unit, default the
# exporter's); "JOURNALCTL FAILED" when it cannot be read.
# No field match (see plugin_log_since): every entry, then the unit's.
_unit_json_since() {
	local j
	j=$(ct journalctl --no-pager -q -o json ${1:+--after-cursor="$1"} 2>/dev/null) ||
		{ echo "JOURNALCTL FAILED (exit $?)"; return 0; }
	printf '%s\n' "$j" | grep -F "\"UNIT\":\"${2:-$SYS_UNIT}\""
	return 0
}

# Start and stop jobs of the unit that systemd completed since CURSOR
# (UNIT, default the exporter's); "JOURNALCTL FAILED" rather than nothing
# when the journal cannot be read.
unit_jobs_since() {
	_unit_json_since "$@" |
		grep '"JOB_RESULT"\|^JOURNALCTL FAILED' | sed 's/^.*"JOB_TYPE":"\([a-z]*\)".*$/\1/' | tr '\n' ' ' | sed 's/ $//'
}

unit_starts_since() {
	local j
	j=$(_unit_json_since "$@")
	case $j in "JOURNALCTL FAILED"*) echo "$j"; return 1 ;; esac
	printf '%s\n' "$j" | grep '"JOB_RESULT"' | grep -c '"JOB_TYPE":"start"'
}

unit_stops_since() {
	local j
	j=$(_unit_json_since "$@")
	case $j in "JOURNALCTL FAILED"*) echo "$j"; return 1 ;; esac
	printf '%s\n' "$j" | grep '"JOB_RESULT"' | grep -c '"JOB_TYPE":"stop"'
}

is_active() {
	ct systemctl is-active "$SYS_UNIT" 2>/dev/null
}

# The state file: its count line (0 when absent).
state_count() {
	local c
	c=$(ct sh -c "head -n 1 $SYS_STATE 2>/dev/null")
	echo "${c:-0}"
}

state() {
	ct sh -c "cat $SYS_STATE 2>/dev/null || echo missing"
}

# state_of ID...: what the state file holds for that set of jobs.
state_of() {
	local j
	echo $#
	for j in "$@"; do echo "$j"; done | sort -n
}

# unit_progs (and progs, the same): eBPF programs of the stand-in's type
# (perf_event, prog_type 7) attributed to this host's exporter. eBPF
# programs are kernel-global, so a machine-wide count (bpftool prog show)
# also counts other containers' programs; this one never does:
# - the unit has a main process: the programs it holds, by its descriptors
#   (/proc/PID/fd links to anon_inode:bpf-prog, prog_type and prog_id in
#   /proc/PID/fdinfo); their IDs are recorded in the host's /run;
# - it has none: how many of the recorded IDs the kernel still has loaded
#   (bpftool prog show id N), so "0 after the job" means the programs were
#   unloaded, not merely that the process is gone.
# A line starting with "error:" when it cannot tell (never a number then).
unit_progs() {
	ct sh -c '
		ids=/run/sse-test-prog-ids
		pid=$(systemctl show -p MainPID --value "$1" 2>/dev/null)
		case $pid in
		"") echo "error: systemctl show -p MainPID gave nothing"; exit 0 ;;
		0)
			n=0 left=
			for id in $(cat "$ids" 2>/dev/null); do
				out=$(bpftool prog show id "$id" 2>&1)
				case $out in
				"$id: perf_event "*) n=$((n + 1)) left="$left $id" ;;
				*"No such file"* | *"can'"'"'t get prog by id"* | "$id: "*) ;;
				*) echo "error: bpftool prog show id $id: $out"; exit 0 ;;
				esac
			done
			printf "%s\n" $left >"$ids"
			echo "$n"
			exit 0 ;;
		esac
		ls "/proc/$pid/fd" >/dev/null 2>&1 || { echo "error: /proc/$pid/fd unreadable"; exit 0; }
		n=0 seen=
		for fd in /proc/$pid/fd/*; do
			[ "$(readlink "$fd" 2>/dev/null)" = anon_inode:bpf-prog ] || continue
			info=$(cat "/proc/$pid/fdinfo/${fd##*/}" 2>/dev/null) ||
				{ echo "error: /proc/$pid/fdinfo/${fd##*/} unreadable"; exit 0; }
			case $info in
			*prog_type:*prog_id:*) ;;
			*) echo "error: no prog_type/prog_id in /proc/$pid/fdinfo/${fd##*/}"; exit 0 ;;
			esac
			printf "%s\n" "$info" | grep -Eq "^prog_type:[[:space:]]+7$" || continue
			n=$((n + 1))
			seen="$seen $(printf "%s\n" "$info" | sed -n "s/^prog_id:[[:space:]]*//p")"
		done
		{ cat "$ids" 2>/dev/null; printf "%s\n" $seen; } | sort -un | grep . >"$ids.new"
		mv "$ids.new" "$ids"
		echo "$n"' sh "$SYS_UNIT" 2>&1 || echo "error: could not enter the container"
}

progs() {
	unit_progs
}

# The endpoint's answer (body only), empty when nothing listens.
metrics() {
	ct bash -c "exec 3<>/dev/tcp/127.0.0.1/$SYS_STANDIN_PORT && printf 'GET /metrics HTTP/1.0\r\n\r\n' >&3 && cat <&3" 2>/dev/null |
		sed '1,/^\r*$/d'
}

# The samples counter, or "down".
metrics_samples() {
	local m
	m=$(metrics | sed -n 's/^ebpf_standin_cpu_samples_total \([0-9]*\).*/\1/p')
	echo "${m:-down}"
}

# One line: state count, unit state, programs, endpoint.
observe() {
	printf 'count=%s active=%s progs=%s metrics=%s' \
		"$(state_count)" "$(is_active)" "$(progs)" "$(metrics_samples)"
}

# --- jobs -------------------------------------------------------------------

# submit NAME [SBATCH ARGS...]: as the test user, the payload NAME; prints
# the job ID.
submit() {
	local name=$1 out
	shift
	out=$(ctu timeout 60 sbatch --parsable -J "$name" -o "$SYS_JOBS/$name-%j.out" \
		"$@" /usr/local/bin/sse-payload "$name" 2>&1) || {
		diag "sbatch $* failed: $out"
		return 1
	}
	echo "${out%%;*}"
}

started() {
	test -e "$SYS_ROOT$SYS_JOBS/$1.started"
}

wait_started() {
	wait_until "${2:-60}" "payload $1 started" started "$1"
}

release() {
	touch "$SYS_ROOT$SYS_JOBS/$1.gate"
}

job_state() {
	ct scontrol -o show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -n 1 | cut -d= -f2
}

# Gone from squeue: finished, epilog included. A squeue that fails says
# nothing about the job (slurmctld busy, say): only "Invalid job id" (the
# record already purged) counts as gone, never an error taken for "empty".
_sys_job_gone() {
	local out
	if ! out=$(ct squeue -h -j "$1" -o %T 2>&1); then
		case $out in *"Invalid job id specified"*) return 0 ;; esac
		return 1
	fi
	[ -z "$out" ]
}

wait_job_done() {
	wait_until "${2:-90}" "job $1 finished, epilog included (now $(job_state "$1"))" _sys_job_gone "$1"
}

# The last test point (teardown), the timing line, the plan.
sys_finish() {
	local pid=$_sys_nspawn init=$_sys_init root=$_sys_mounted left=
	[ "$failed" -eq 0 ] || sys_dump
	sys_teardown
	kill -0 "$pid" 2>/dev/null && left="$left nspawn:$pid"
	kill -0 "$init" 2>/dev/null && left="$left init:$init"
	mountpoint -q "$root" 2>/dev/null && left="$left mount:$root"
	is "teardown: container powered off, overlay unmounted" "$left" ""
	diag "$SUITE: container run took $(sys_elapsed) s (root filesystem ${SYS_CACHE_HOW:-?})"
	done_testing
}
