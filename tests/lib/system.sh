# The one-node system suite (tests/system) in a container: a Debian root
# filesystem per release with real systemd as PID 1, munge, slurmctld and
# slurmd started as systemd units, the plugin built there as Debian
# packages from the `make dist` contents of this tree and installed with
# apt, and a stand-in ebpf_exporter.service that loads real eBPF programs.
#
# Sourced after tests/lib/tap.sh by tests/system/<suite>.sh, demo.sh,
# cache.sh, bench/systemd.sh and tests/lib/multihost.sh:
#   sys_setup SUITE        prerequisites, the lock, traps, run directory
#   sys_cache              the cached root filesystem of SUITE (rootfs.sh)
#   sys_tarball            `make dist` of this tree (packages.sh)
#   sys_boot               an overlayfs copy of it with slurm.conf, the
#                          stand-in (disabled) and the job payload, booted
#                          with systemd-nspawn; `ct CMD...` runs CMD inside
#   sys_install            builds the packages inside from the tarball and
#                          installs them with apt (packages.sh)
#   sys_cluster_start      (re)starts munge, slurmctld, slurmd via systemd
#   dbd_start, dbd_stop    Slurm's accounting on and off again: slurmdbd
#                          on MariaDB (dbd.sh)
#   sys_finish             powers the container off, unmounts, plans
# The EXIT trap always tears the container down (by PID) and removes the
# run directory, keeping its logs on failure or with SYSTEM_KEEP=1.
# Containers have a private network, so nothing in them can clash with a
# Slurm on the host; they still use their own ports. One one-container
# suite at a time (container_lock, tests/lib/tap.sh), beside at most one
# three-host suite (cluster_lock) and one of the host's own (tests/e2e,
# packaging, probes).
#
# slurmd logs to the journal only (no SlurmdLogFile), as under Debian's
# units; SYSTEM_SLURMD_SYSLOG_DEBUG=LEVEL adds SlurmdSyslogDebug=LEVEL.

_sys_lib=${BASH_SOURCE[0]%/*}
. "$_sys_lib/slurm.sh"
. "$_sys_lib/container.sh"
. "$_sys_lib/journal.sh"
. "$_sys_lib/exporter.sh"
. "$_sys_lib/packages.sh"
. "$_sys_lib/dbd.sh"

SYS_CTLD_PORT=${SYSTEM_PORT:-17917}
SYS_SLURMD_PORT=$((SYS_CTLD_PORT + 1))
# The plugin's line, as the package installs it: /etc/slurm/spank_ebpf.conf
# (plugstack.conf.d/spank_ebpf.conf links to it).
SYS_PLUGIN_CONF=/etc/slurm/spank_ebpf.conf
_sys_mounted='' RUN='' SUITE=''
_sys_t0=$(date +%s)

# Seconds since sys_setup, for the timing lines.
sys_elapsed() {
	echo $(($(date +%s) - _sys_t0))
}

# sys_locked LOCKFILE FUNC: FUNC under flock on LOCKFILE (fd 5), for as
# long as FUNC runs; FUNC's status. What suites of different locks share
# on disk (a release's root filesystem, its packages) is built this way.
sys_locked() {
	local st
	mkdir -p "$(dirname "$1")"
	exec 5>>"$1" || missing "lock file $1"
	flock -w "${SYSTEM_LOCK_WAIT:-3600}" 5 || bail "could not take $1"
	"$2"
	st=$?
	exec 5>&-
	return "$st"
}

# sys_setup SUITE
sys_setup() {
	SUITE=$1
	# Under `make distcheck`, don't boot three more containers from the
	# unpacked copy: the README's test command runs these.
	skip_in_distcheck "system test"
	need_root
	need_cmd debootstrap systemd-nspawn nsenter flock mount umount setsid \
		ip tar xz mktemp
	grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null ||
		missing "overlayfs"
	grep -qw overlay /proc/filesystems || missing "overlayfs"
	SYS_TOP=${srcdir:-$(cd "$_sys_lib/../.." && pwd)}
	SYS_BUILDDIR=${top_builddir:-}
	if [ -z "$SYS_BUILDDIR" ] && [ -n "${SPANK_EBPF_SO:-}" ]; then
		SYS_BUILDDIR=${SPANK_EBPF_SO%/src/spank/.libs/spank_ebpf.so}
	fi
	SYS_BUILDDIR=${SYS_BUILDDIR:-$SYS_TOP}
	SYS_FILES=$SYS_TOP/tests/system/files
	SYS_MACHINE=ebpf-$SUITE
	NODE=$SYS_MACHINE

	# SYS_LOCK=cluster (tests/lib/multihost.sh): the three-host suites' lock.
	if [ "${SYS_LOCK:-}" = cluster ]; then
		cluster_lock "${SYSTEM_LOCK_WAIT:-3600}"
	else
		container_lock "${SYSTEM_LOCK_WAIT:-3600}"
	fi
	# The timing lines count from here, not from the wait for the lock.
	[ "$(($(date +%s) - _sys_t0))" -lt 2 ] || diag "waited $(($(date +%s) - _sys_t0)) s for the ${SYS_LOCK:-container} lock"
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
	SUBMIT_ERR=$RUN/log/sbatch.err
}

# sys_boot: an overlayfs copy of ROOTFS, booted.
sys_boot() {
	local root=$RUN/root
	sys_overlay "$RUN"
	_sys_mounted=$root
	NODE_ROOT=$root
	printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n' "$SYS_MACHINE" >"$root/etc/hosts"
	sys_prepare_root "$root" "$SYS_MACHINE"
	sys_slurm_conf
	sys_nspawn_start "$root" "$SYS_MACHINE" "$RUN/log/console.log" --private-network
	# Slurm resolves 127.0.0.1 with AI_ADDRCONFIG, which glibc answers
	# only where some interface other than lo has an IPv4 address: give
	# the private network a veth pair of its own, down, that goes nowhere.
	nsenter -t "$CT_INIT" -n sh -c \
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
	diag "state file: $(ct cat "$STATE" 2>&1 | tr '\n' ' ')"
	diag "squeue / sinfo:"
	show "$(ct squeue 2>&1; ct sinfo -N -o '%N %T %E' 2>&1)"
	diag "systemctl status ebpf_exporter slurmd:"
	show "$(ct systemctl status --no-pager -n 0 "$SYS_UNIT" slurmd 2>&1 | head -n 30)"
	diag "slurmd journal (spank, prolog/epilog, error lines; last 60):"
	show "$(ct journalctl -b --no-pager -o cat -u slurmd 2>&1 |
		grep -E 'spank|rolog|pilog|error|drain' | tail -n 60)"
	diag "ebpf_exporter journal (last 20):"
	show "$(ct journalctl -b --no-pager -o short-precise -u "$SYS_UNIT" 2>&1 | tail -n 20)"
}

# sys_slurm_conf [PROLOGFLAGS]: the one-node cluster's slurm.conf. Logs go
# to the journal (no log files), on private loopback ports.
sys_slurm_conf() {
	sys_slurm_conf_text "${1:-}" >"$NODE_ROOT/etc/slurm/slurm.conf"
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
$(slurm_conf_common)
${1:+PrologFlags=$1}
${SYS_CONF_EXTRA:-}
${SYS_CONF_NODES:-NodeName=$SYS_MACHINE NodeAddr=127.0.0.1 $SYS_HW State=UNKNOWN
PartitionName=main Nodes=$SYS_MACHINE Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8}
CONF
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
		! wait_until 60 "node $NODE idle" node_usable; then
		show "$(ct journalctl -b --no-pager -o cat -u slurmctld -u slurmd 2>&1 | tail -n 30)"
		bail "the cluster did not come up"
	fi
}

# sys_restart_slurmd: after a change of the plugin line, as an admin would.
sys_restart_slurmd() {
	local c
	c=$(journal_mark)
	ct systemctl restart slurmd || return 1
	wait_until 60 "slurmd restarted" slurmd_log_like "$c" "slurmd version [^ ]+ started" &&
		wait_until 60 "node $NODE idle" node_usable
}

# plugin_args ARGS...: replaces the arguments on the plugin line.
plugin_args() {
	local f=$NODE_ROOT$SYS_PLUGIN_CONF
	sed -i -E "s#^((optional|required)[[:space:]]+[^[:space:]]+spank_ebpf\.so).*#\1${*:+ $*}#" "$f"
}

# plugin_line: the plugin's line as it is.
plugin_line() {
	grep -E '^(optional|required)' "$NODE_ROOT$SYS_PLUGIN_CONF"
}

# The last test point (teardown), the timing line, the plan.
sys_finish() {
	local pid=$CT_NSPAWN init=$CT_INIT root=$_sys_mounted left=
	[ "$failed" -eq 0 ] || sys_dump
	sys_teardown
	kill -0 "$pid" 2>/dev/null && left="$left nspawn:$pid"
	kill -0 "$init" 2>/dev/null && left="$left init:$init"
	mountpoint -q "$root" 2>/dev/null && left="$left mount:$root"
	is "teardown: container powered off, overlay unmounted" "$left" ""
	diag "$SUITE: container run took $(sys_elapsed) s (root filesystem ${SYS_CACHE_HOW:-?})"
	done_testing
}
