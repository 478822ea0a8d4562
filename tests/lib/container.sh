# Booted containers: an overlayfs copy of a cached root filesystem
# (tests/lib/rootfs.sh), prepared as a node (hostname, the stand-in
# exporter, the job payload), booted with systemd-nspawn with real systemd
# as PID 1 in a cgroup of its own, entered with nsenter, powered off and
# unmounted by PID and path. For tests/lib/system.sh and multihost.sh,
# which source it; needs tests/lib/tap.sh.
#
# The node under test, for tests/lib/slurm.sh (which system.sh sources
# first): ct and ctu enter the container whose systemd is CT_INIT
# (multihost.sh's `on HOST` points them at another); NODE_ROOT is its root
# seen from here.

. "${BASH_SOURCE[0]%/*}/rootfs.sh"

SYS_USER=slurmtest
# Inside the container: files to install, job payload markers, the
# plugin's state file (the packaged default).
SYS_CDIR=/var/tmp/slurm-spank-ebpf
JOB_MARKS=$SYS_CDIR/jobs
STATE=/run/ebpf_exporter.refcount
SUBMIT_OPTS=()

# CT_NSPAWN, CT_INIT: the current container's systemd-nspawn and systemd.
# Every nspawn and overlay mount of the run, for the teardown.
CT_NSPAWN='' CT_INIT='' NODE_ROOT='' SYS_NSPAWNS='' SYS_MOUNTS=''
declare -gA _SYS_MACHINE_OF=()

# The backend of ct and ctu (tests/lib/slurm.sh): CMD inside the container
# (all its namespaces), with a clean environment, as root or as the
# unprivileged test user.
_sys_ct() {
	nsenter -t "$CT_INIT" -a env -i PATH="$SYS_PATH" HOME=/root LANG=C.UTF-8 TERM=dumb "$@"
}

_sys_ctu() {
	_sys_ct setpriv --reuid="$SYS_USER" --regid="$SYS_USER" --init-groups \
		env HOME=/home/$SYS_USER USER=$SYS_USER "$@"
}

CT_RUN=_sys_ct CTU_RUN=_sys_ctu

# The container's systemd: the child of nspawn that runs systemd (with a
# network of its own, nspawn's first child is a short-lived helper).
_sys_init_pid() {
	local c p
	c=$(cat "/proc/$CT_NSPAWN/task/$CT_NSPAWN/children" 2>/dev/null) || return 1
	for p in $c; do
		if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = systemd ]; then
			CT_INIT=$p
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

# sys_unmount DIR: unmounts DIR (lazily if busy) and forgets it.
sys_unmount() {
	umount "$1" 2>/dev/null || umount -l "$1" 2>/dev/null
	SYS_MOUNTS=$(echo " $SYS_MOUNTS " | sed "s| $1 | |; s/^ *//; s/ *$//")
}

# sys_prepare_root ROOT HOSTNAME: what every booted copy gets before its
# boot: its hostname, the stand-in (disabled), the job payload, the cgroup
# setup below. Sets SYS_HW (the node's hardware as slurmd sees it, memory
# left out: it is not scheduled) and SYS_SYSTEMD, SYS_UNIFIED.
sys_prepare_root() {
	local root=$1 host=$2
	echo "$host" >"$root/etc/hostname"
	nspawn_prep
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
	mkdir -p "$root/usr/local/libexec" "$root$JOB_MARKS" "$root$SYS_CDIR/build"
	chmod 1777 "$root$JOB_MARKS"
	install -m 0755 "$SYS_FILES/ebpf-exporter-standin" "$root/usr/local/libexec/ebpf-exporter-standin"
	install -m 0644 "$SYS_FILES/ebpf_exporter.service" "$root/etc/systemd/system/$SYS_UNIT"
	install -m 0755 "$SYS_FILES/payload" "$root/usr/local/bin/sse-payload"
	# What satisfies -probes' dependency on the exporter (packages.sh).
	sys_exporter_provider "$root"
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

# sys_cgroup_tops: the hierarchies systemd uses (the v1 name=systemd one
# and the v2 one, on a hybrid host like this kind of machine; the v2 root
# on a unified one). _sys_cgroups MACHINE: a cgroup for MACHINE's nspawn in
# each, made if missing; prints their directories. _sys_cgroups_rm
# MACHINE removes them once the container is gone.
sys_cgroup_tops() {
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
	for t in $(sys_cgroup_tops); do
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
	for t in $(sys_cgroup_tops); do
		[ -d "$t/slurm-spank-ebpf-$1" ] || continue
		find "$t/slurm-spank-ebpf-$1" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	return 0
}

# sys_nspawn_start ROOT MACHINE CONSOLE_LOG NETWORK_ARGS...: boots ROOT
# with systemd-nspawn (in the background, in its own session, with what
# services need to load eBPF programs) and sets CT_NSPAWN (its PID, also
# added to SYS_NSPAWNS for the teardown) and CT_INIT (the container's
# systemd). NETWORK_ARGS: --private-network, or --network-bridge=BR run
# inside a network namespace by the caller's SYS_NSPAWN_NETNS (a path
# under /run/netns). With SYS_NSPAWN_FRESH_UPTIME set, the container gets
# a time namespace whose boot clock starts now, so that slurmd reports an
# uptime of seconds, as after a real reboot (a container otherwise shares
# the host's).
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
	CT_NSPAWN=$!
	SYS_NSPAWNS="$SYS_NSPAWNS $CT_NSPAWN"
	_SYS_MACHINE_OF[$CT_NSPAWN]=$machine
	CT_INIT=
	if ! wait_until 30 "the container's init" _sys_init_pid; then
		show "$(tail -n 20 "$log")"
		bail "systemd-nspawn did not start the container $machine"
	fi
}

# sys_nspawn_wait CONSOLE_LOG: until the container's systemd (CT_INIT)
# says it is up.
sys_nspawn_wait() {
	local log=$1 st
	wait_until 60 "the container's systemd bus" \
		nsenter -t "$CT_INIT" -a test -S /run/systemd/private
	st=$(timeout 120 nsenter -t "$CT_INIT" -a env -i PATH="$SYS_PATH" \
		systemctl is-system-running --wait 2>&1)
	case $st in
	running | degraded) ;;
	*)
		show "$(tail -n 20 "$log")"
		bail "the container did not boot: $st"
		;;
	esac
	[ "$st" = running ] || diag "container is $st: $(ct systemctl --failed --no-legend --plain 2>&1 | tr '\n' ';')"
}

# sys_nspawn_stop: clean poweroff (SIGTERM to nspawn), then SIGKILL to the
# container's init (which takes its whole PID namespace along) and to
# nspawn, by PID (CT_NSPAWN, CT_INIT).
# With SYS_NSPAWN_HARD set: no poweroff, the power cut (SIGKILL to init).
sys_nspawn_stop() {
	[ -n "$CT_NSPAWN" ] || return 0
	if [ -n "${SYS_NSPAWN_HARD:-}" ] && [ -n "$CT_INIT" ]; then
		kill -KILL "$CT_INIT" 2>/dev/null
	else
		kill -TERM "$CT_NSPAWN" 2>/dev/null
	fi
	if ! gone_within 30 "$CT_NSPAWN"; then
		diag "container did not power off in 30 s: killing it"
		[ -z "$CT_INIT" ] || kill -KILL "$CT_INIT" 2>/dev/null
		sleep 1
		kill -KILL "$CT_NSPAWN" 2>/dev/null
	fi
	wait "$CT_NSPAWN" 2>/dev/null
	_sys_cgroups_rm "${_SYS_MACHINE_OF[$CT_NSPAWN]:-}"
	SYS_NSPAWNS=$(echo " $SYS_NSPAWNS " | sed "s/ $CT_NSPAWN / /; s/^ *//; s/ *$//")
	CT_NSPAWN='' CT_INIT=''
}
