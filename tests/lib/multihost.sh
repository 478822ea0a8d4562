# Multi-host tests (tests/cluster): three booted containers with systemd as
# PID 1, each its own host, on a network the test creates and owns:
#
#   ctl    slurmctld and the submit host (Slurm's client commands; the
#          -submit package only where a scenario installs it)
#   node1  slurmd, the -compute package, the stand-in ebpf_exporter.service
#   node2  the same
#
# Built on tests/lib/system.sh (sourced here): its lock, cached root
# filesystems, package build, container start and stop, and the helpers
# of tests/lib/slurm.sh, journal.sh and exporter.sh, which act on one
# container at a time: `on HOST CMD...` runs CMD with them pointed at
# HOST. Jobs on the cluster and what each host shows of them:
# tests/lib/multihost-jobs.sh (sourced here).
#
# The network: a network namespace made for the run (ebpfc-<pid>) holding a
# bridge; each systemd-nspawn runs inside it with --network-bridge, so each
# host has its own interface, host0, with a static address from
# 10.213.37.0/24 that exists only in that namespace. Nothing reaches or
# changes the host's own networking; deleting the namespace at the end
# removes the bridge and every veth.
#
# The packages are built once per run, inside node1, and the same .debs are
# installed on every host by role. Teardown (the EXIT trap) powers every
# container off by PID, unmounts the overlays and deletes the namespace,
# whatever happened; cl_finish asserts that nothing is left.

. "${BASH_SOURCE[0]%/*}/system.sh"
. "${BASH_SOURCE[0]%/*}/multihost-jobs.sh"

CL_NET=10.213.37
CL_HOSTS="ctl node1 node2"
CL_NODES="node1 node2"
declare -gA CL_ADDR=([ctl]=$CL_NET.10 [node1]=$CL_NET.11 [node2]=$CL_NET.12)
declare -gA CL_NSPAWN=() CL_INIT=() CL_ROOT=() CL_MARK=()
CL_NETNS=
CL_PKGDIR=$SYS_CDIR/debs

# on HOST CMD...: CMD with ct, ctu and every helper built on them pointed
# at HOST (bash's dynamic scoping of locals).
on() {
	local h=$1
	shift
	local CT_INIT=${CL_INIT[$h]:-} NODE_ROOT=${CL_ROOT[$h]:-}
	[ -n "$CT_INIT" ] || { echo "error: host $h is not running" >&2; return 1; }
	"$@"
}

# --- setup and teardown -------------------------------------------------------

# cl_setup SUITE: tests/system's setup (prerequisites, the lock for the
# whole run, the EXIT trap), with this file's teardown and diagnostics.
cl_setup() {
	SYS_LOCK=cluster sys_setup "$1"
	need_cmd ip unshare
	SYS_TEARDOWN=cl_teardown
	SYS_DUMP=cl_dump
	SYS_CONF_WHAT=three-host
	mkdir -p "$RUN/hosts"
}

# The network namespace and its bridge.
cl_net_up() {
	CL_NETNS=ebpfc-$$
	ip netns add "$CL_NETNS" || bail "ip netns add $CL_NETNS failed"
	ip -n "$CL_NETNS" link set lo up &&
		ip -n "$CL_NETNS" link add br0 type bridge &&
		ip -n "$CL_NETNS" link set br0 up ||
		bail "could not make the bridge in $CL_NETNS"
}

cl_teardown() {
	local h pid
	# Power every container off at once, then wait for each.
	for h in $CL_HOSTS; do
		[ -n "${CL_NSPAWN[$h]:-}" ] && kill -TERM "${CL_NSPAWN[$h]}" 2>/dev/null
	done
	for h in $CL_HOSTS; do
		[ -n "${CL_NSPAWN[$h]:-}" ] || continue
		cl_stop_host "$h"
	done
	# Any nspawn whose init was never found.
	for pid in $SYS_NSPAWNS; do
		CT_NSPAWN=$pid CT_INIT= sys_nspawn_stop
	done
	for h in $SYS_MOUNTS; do
		sys_unmount "$h"
	done
	if [ -n "$CL_NETNS" ]; then
		ip netns del "$CL_NETNS" 2>/dev/null
	fi
}

# cl_stop_host HOST: powers HOST's container off (its overlay stays).
cl_stop_host() {
	local CT_NSPAWN=${CL_NSPAWN[$1]:-} CT_INIT=${CL_INIT[$1]:-}
	sys_nspawn_stop
	CL_NSPAWN[$1]='' CL_INIT[$1]=''
}

# cl_prepare HOST: its overlay, hostname, /etc/hosts, slurm.conf, munge key,
# and which Slurm daemon it runs at boot.
cl_prepare() {
	local h=$1 dir=$RUN/hosts/$1 root x
	sys_overlay "$dir"
	root=$dir/root
	CL_ROOT[$h]=$root
	sys_prepare_root "$root" "$h"
	{
		printf '127.0.0.1\tlocalhost\n'
		for x in $CL_HOSTS; do printf '%s\t%s\n' "${CL_ADDR[$x]}" "$x"; done
	} >"$root/etc/hosts"
	install -m 0400 "$RUN/munge.key" "$root/etc/munge/munge.key"
	chown --reference="$root/etc/munge" "$root/etc/munge/munge.key"
	# Each host runs its own daemons only.
	case $h in
	ctl) ln -sf /dev/null "$root/etc/systemd/system/slurmd.service" ;;
	*) ln -sf /dev/null "$root/etc/systemd/system/slurmctld.service" ;;
	esac
	cl_slurm_conf_to "$root"
}

# cl_boot HOST: boots HOST's prepared root in the namespace, on the bridge,
# and gives it its address. cl_wait_booted HOST: until its systemd is up.
cl_boot() {
	local h=$1 CT_NSPAWN CT_INIT
	SYS_NSPAWN_NETNS=/run/netns/$CL_NETNS sys_nspawn_start "${CL_ROOT[$h]}" "ebpfc-$h" \
		"$RUN/log/console-$h.log" --network-bridge=br0
	CL_NSPAWN[$h]=$CT_NSPAWN CL_INIT[$h]=$CT_INIT
	nsenter -t "$CT_INIT" -n sh -c "ip link set lo up && ip addr add ${CL_ADDR[$h]}/24 dev host0 && ip link set host0 up" ||
		bail "could not give $h its address"
}

cl_wait_booted() {
	on "$1" sys_nspawn_wait "$RUN/log/console-$1.log"
}

# The cluster's slurm.conf, the same on every host (cl_slurm_conf_to ROOT).
# CL_CONF_EXTRA adds lines.
cl_slurm_conf_to() {
	local nodes= x
	for x in $CL_NODES; do
		nodes="${nodes}NodeName=$x NodeAddr=${CL_ADDR[$x]} $SYS_HW State=UNKNOWN
"
	done
	SYS_CONF_CTLD="ctl(${CL_ADDR[ctl]})" \
		SYS_CONF_NODES="${nodes}PartitionName=main Nodes=$(echo $CL_NODES | tr ' ' ,) Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8" \
		SYS_CONF_EXTRA="${CL_CONF_EXTRA:-}" \
		sys_slurm_conf_text "${CL_PROLOGFLAGS:-}" >"$1/etc/slurm/slurm.conf"
}

# cl_up: the network, three hosts booted, the packages built in node1.
cl_up() {
	local h t0
	cl_net_up
	dd if=/dev/urandom of="$RUN/munge.key" bs=1024 count=1 status=none || bail "no munge key"
	for h in $CL_HOSTS; do
		cl_prepare "$h"
	done
	for h in $CL_HOSTS; do
		cl_boot "$h"
	done
	for h in $CL_HOSTS; do
		cl_wait_booted "$h"
		on "$h" ct useradd -u 4242 -U -m -s /bin/sh "$SYS_USER" || bail "useradd on $h failed"
	done
	diag "$SUITE: three hosts booted after $(sys_elapsed) s"
	SLURM_VERSION=$(on ctl ct dpkg-query -W -f='${Version}' slurmctld 2>/dev/null)
	SLURM_MAJMIN=$(echo "$SLURM_VERSION" | sed -n 's/^\([0-9]*\.[0-9]*\).*/\1/p')
	t0=$(date +%s)
	SYS_DEBS_FROM=
	on node1 sys_build_debs || bail "the tarball has no packaging/debian: nothing to install by role"
	diag "$SUITE: Slurm $SLURM_VERSION; packages built once, in node1, in $(($(date +%s) - t0)) s ($SYS_DEBS_FROM): $(ls "$RUN/debs" | tr '\n' ' ')"
	for h in $CL_HOSTS; do
		mkdir -p "${CL_ROOT[$h]}$CL_PKGDIR"
		cp "$RUN/debs"/*.deb "${CL_ROOT[$h]}$CL_PKGDIR/"
	done
}

# cl_install HOST PACKAGE...: the run's .debs of those names, with apt.
cl_install() {
	local h=$1 p files=
	shift
	for p in "$@"; do
		files="$files $(cd "${CL_ROOT[$h]}" && ls .$CL_PKGDIR/${p}_*.deb | sed 's|^\.||')"
	done
	on "$h" ct apt-get install -y --no-install-recommends $files >>"$RUN/log/install-$h.log" 2>&1
}

# cl_remove HOST PACKAGE...
cl_remove() {
	local h=$1
	shift
	on "$h" ct apt-get remove -y "$@" >>"$RUN/log/install-$h.log" 2>&1
}

cl_installed() {
	on "$1" ct dpkg-query -W -f='${db:Status-Status} ${Package}\n' \
		slurm-spank-ebpf slurm-spank-ebpf-compute slurm-spank-ebpf-submit 2>/dev/null |
		awk '$1 == "installed" { print $2 }' | tr '\n' ' ' | sed 's/ $//'
}

# cl_restart_slurmd NODE...: as an admin would after a change of the
# plugin or its line; waits until slurmd says so and Slurm calls the node
# usable again.
cl_restart_slurmd() {
	local h c
	for h in "$@"; do
		c=$(on "$h" journal_mark)
		on "$h" ct systemctl restart slurmd || return 1
		on "$h" wait_until 60 "slurmd restarted on $h" slurmd_log_like "$c" "slurmd version [^ ]+ started" ||
			return 1
	done
	for h in "$@"; do
		on ctl wait_until 60 "node $h usable" node_usable "$h" || return 1
	done
}

# cl_start: munge everywhere, slurmctld on ctl, slurmd on the nodes (all
# were started at boot, before the packages: restart them now).
cl_start() {
	on ctl ct systemctl restart slurmctld || bail "slurmctld did not start on ctl"
	cl_restart_slurmd $CL_NODES || {
		cl_dump
		bail "the cluster did not come up"
	}
}

# --- diagnostics and the end -------------------------------------------------------

# cl_dump: each host's relevant logs, into the TAP log and $RUN/log.
cl_dump() {
	local h
	diag "--- diagnostics ($SUITE cluster; whole journals in $RUN/log/journal-HOST.txt) ---"
	for h in $CL_HOSTS; do
		[ -n "${CL_INIT[$h]:-}" ] || { diag "$h: not running"; continue; }
		on "$h" ct journalctl -b --no-pager -o short-precise >"$RUN/log/journal-$h.txt" 2>&1
	done
	if [ -n "${CL_INIT[ctl]:-}" ]; then
		diag "ctl: squeue / sinfo:"
		show "$(on ctl ct squeue 2>&1; on ctl ct sinfo -N -o '%N %T %E' 2>&1)"
		diag "ctl: slurmctld journal (last 40):"
		show "$(on ctl ct journalctl -b --no-pager -o cat -u slurmctld 2>&1 | tail -n 40)"
	fi
	for h in $CL_NODES; do
		[ -n "${CL_INIT[$h]:-}" ] || continue
		diag "$h: state file: $(on "$h" ct cat "$STATE" 2>&1 | tr '\n' ' ')"
		diag "$h: packages: $(cl_installed "$h"); plugin line: $(on "$h" plugin_line 2>&1)"
		diag "$h: systemctl status $SYS_UNIT slurmd:"
		show "$(on "$h" ct systemctl status --no-pager -n 0 "$SYS_UNIT" slurmd 2>&1 | head -n 30)"
		diag "$h: slurmd journal (spank, prolog/epilog, error lines; last 40):"
		show "$(on "$h" ct journalctl -b --no-pager -o cat -u slurmd 2>&1 |
			grep -E 'spank|rolog|pilog|error|drain|conf' | tail -n 40)"
		diag "$h: $SYS_UNIT journal (last 12):"
		show "$(on "$h" ct journalctl -b --no-pager -o short-precise -u "$SYS_UNIT" 2>&1 | tail -n 12)"
	done
}

# cl_hold: keeps the cluster up for an admin (CLUSTER_HOLD=1): prints how
# to get a shell on each host and waits until $RUN/hold is removed (or the
# run is interrupted); the teardown follows as always.
cl_hold() {
	local h
	: >"$RUN/hold"
	diag "cluster kept up (CLUSTER_HOLD): a root shell on each host:"
	for h in $CL_HOSTS; do
		diag "  $h (${CL_ADDR[$h]}): nsenter -t ${CL_INIT[$h]} -a /bin/bash -l    (root: ${CL_ROOT[$h]})"
	done
	diag "as the test user: add setpriv --reuid=$SYS_USER --regid=$SYS_USER --init-groups; on ctl: sbatch --ebpf -N2 --wrap 'srun -N2 hostname'"
	diag "tear it down: rm $RUN/hold (or Ctrl-C)"
	while [ -e "$RUN/hold" ]; do
		sleep 1
	done
}

# cl_finish: teardown, and the assertion that nothing outlived it.
cl_finish() {
	local pids= inits= mounts= left= p t
	[ "$failed" -eq 0 ] || cl_dump
	for p in $CL_HOSTS; do
		pids="$pids ${CL_NSPAWN[$p]:-}"
		inits="$inits ${CL_INIT[$p]:-}"
	done
	pids="$pids $SYS_NSPAWNS"
	mounts=$SYS_MOUNTS
	sys_teardown
	for p in $pids $inits; do
		kill -0 "$p" 2>/dev/null && left="$left pid:$p"
	done
	for p in $mounts; do
		mountpoint -q "$p" 2>/dev/null && left="$left mount:$p"
	done
	for p in $CL_HOSTS; do
		for t in $(sys_cgroup_tops); do
			[ -d "$t/slurm-spank-ebpf-ebpfc-$p" ] && left="$left cgroup:$t/slurm-spank-ebpf-ebpfc-$p"
		done
	done
	{ [ -e "/run/netns/$CL_NETNS" ] || ip netns list 2>/dev/null | grep -qw "$CL_NETNS"; } &&
		left="$left netns:$CL_NETNS"
	# A suite's own leftovers: CL_LEFTOVERS, a function printing them,
	# CL_LEFTOVERS_DESC, what the check then says.
	[ -z "${CL_LEFTOVERS:-}" ] || left="$left$("$CL_LEFTOVERS" | sed 's/^/ /' | tr -d '\n')"
	is "teardown: every container powered off, overlays unmounted, network namespace gone${CL_LEFTOVERS_DESC:+, $CL_LEFTOVERS_DESC}" "$left" ""
	CL_NETNS=
	diag "$SUITE cluster: run took $(sys_elapsed) s (root filesystem ${SYS_CACHE_HOW:-?})"
	done_testing
}
