# SPDX-License-Identifier: GPL-2.0-or-later
# In the VM (tests/vm/files/guest; bench/vm-probepair.sh): the fs set's
# paired cost, bench/probepair.sh for each CONFIG:WORKLOAD of FSB_RUNS,
# FSB_PAIRS pairs each (fsbench.env). Its lines are comments (the host
# relays them), a point per run says it gave its summary. With
# FSB_NFS=link the NFS server is another guest: node1 serves its export
# to node2, which runs the bench and says when it is over.
FSB_PEER_PORT=7999

# fsbench_run CONFIG TAG WORKLOAD [VAR=VALUE...]: one probepair run.
fsbench_run() {
	local c=$1 tag=$2 w=$3 out t0
	shift 3
	t0=$(date +%s)
	out=$(env "$@" PROBEPAIR_TAG="$tag" PROBEPAIR_STATS="${FSB_STATS:-1}" PROBEPAIR_WAIT=600 EXPORTER="$FSB_EXPORTER" \
		timeout 3000 bash /usr/local/share/sse-vm/src/bench/probepair.sh "$c" "$w" "$FSB_PAIRS" 2>&1 </dev/null)
	printf '%s\n' "$out" | sed 's/^/# /'
	ok_if "fsbench: $c $tag: $FSB_PAIRS pairs and a summary ($(($(date +%s) - t0)) s)" \
		grep -q "^probepair-$c-$tag pairs=$FSB_PAIRS median" <<<"$out"
}

# fsbench_serve: node1 of FSB_NFS=link: a tmpfs exported to the link
# (as the loopback export, below), until node2 says the bench is over;
# then, node2's mount gone, the power off.
fsbench_serve() {
	local c up= word
	ct modprobe nfsd >/dev/null 2>&1
	ct mkdir -p "$FS_EXPORT"
	ok_if "fsbench: node1: a tmpfs at $FS_EXPORT, to export" ct mount -t tmpfs -o mode=1777 sse-fs-export "$FS_EXPORT"
	ct sh -c "echo '$FS_EXPORT $FSB_NET.0/24(rw,sync,no_subtree_check,fsid=1)' >/etc/exports"
	# Early in the boot nfs-server's first start can fail: tried again.
	for c in 1 2 3 4 5 6; do
		ct timeout 60 systemctl restart nfs-server >/dev/null 2>&1 && up=1 && break
		sleep 10
	done
	is "fsbench: node1: nfs-server exports $FS_EXPORT to $FSB_NET.0/24" "${up:-no}" 1 ||
		show "$(ct systemctl status --no-pager nfs-server 2>&1 | tail -n 15)"
	word=$(timeout 7200 socat -u "TCP-LISTEN:$FSB_PEER_PORT,bind=$FSB_NET.1,reuseaddr" - 2>&1)
	is "fsbench: node1: node2 said the bench is over" "$word" over
	wait_until 60 "node2's NFS client gone from node1's server" \
		eval '[ -z "$(ls /proc/fs/nfsd/clients 2>/dev/null)" ]'
}

# fsbench_link_mount: node2 of FSB_NFS=link: node1's export at FS_NFS
# (nfs4 over the link), tried again while node1's server comes up.
fsbench_link_mount() {
	ct timeout 30 mount -t nfs4 "node1:$FS_EXPORT" "$FS_NFS" 2>/dev/null
}

# fsbench_link_over: node2's mount gone (while node1 still serves: a hard
# mount of a server gone would hang the power off), node1 told.
fsbench_link_over() {
	ct timeout 30 umount "$FS_NFS" || ct umount -l "$FS_NFS"
	ok_if "fsbench: node1 took the word that the bench is over" \
		wait_until 30 "node1 listening for the word" \
		bash -c "exec 3<>/dev/tcp/$FSB_NET.1/$FSB_PEER_PORT && echo over >&3"
}

vm_scenario_fsbench_guest() {
	local d=/usr/local/share/sse-vm w c nfs=
	. "$d/fsbench.env"
	# The packages' exporter (the ebpf-exporter package), or a cached build.
	FSB_EXPORTER=/usr/bin/ebpf_exporter
	[ -x "$FSB_EXPORTER" ] || FSB_EXPORTER=/usr/local/bin/ebpf_exporter
	. "$d/lib/probes-fs.sh"
	if [ "${FSB_NFS:-loopback}" = link ] && [ "$(hostname)" = node1 ]; then
		diag "fsbench: node1, the NFS server: kernel $(uname -r), $(nproc) CPUs"
		fsbench_serve
		return
	fi
	diag "fsbench: kernel $(uname -r), $(nproc) CPUs, runs: $FSB_RUNS"
	ct mkdir -p "$FS_TMP"
	ok_if "fsbench: a tmpfs at $FS_TMP" ct mount -t tmpfs -o mode=1777 sse-fs "$FS_TMP"
	case "${FSB_NFS:-loopback} $FSB_RUNS " in
	"link "*-nfs*)
		ct modprobe nfsv4 >/dev/null 2>&1
		ct mkdir -p "$FS_NFS"
		wait_until 300 "node1:$FS_EXPORT mounted" fsbench_link_mount && nfs=1
		is "fsbench: node1's export mounted at $FS_NFS (nfs4 over the link)" "${nfs:-no}" 1
		diag "fsbench: mount: $(ct findmnt -n -o TARGET,FSTYPE,SOURCE,OPTIONS "$FS_NFS" 2>&1)"
		;;
	*-nfs*)
		ct modprobe nfsv4 >/dev/null 2>&1
		# The export on a tmpfs: on the guest's disk, each create and
		# unlink of the sync export waited for a journal commit, whose
		# time varied from run to run more than the cost to measure.
		# (A tmpfs has no UUID: the export names its fsid.)
		ct mkdir -p "$FS_EXPORT"
		ok_if "fsbench: a tmpfs at $FS_EXPORT, to export" ct mount -t tmpfs -o mode=1777 sse-fs-export "$FS_EXPORT"
		FS_EXPORT_OPTS=fsid=1
		# Early in the boot nfs-server's first start can fail: tried again.
		# Its last step, a chmod of the mount, fails where the export
		# squashes root (trixie): the export is 1777, the bench writes
		# as nobody there, so a mounted nfs4 is enough.
		for c in 1 2 3 4 5 6; do
			_fs_nfs_setup >/tmp/fsbench-nfs.log 2>&1 && nfs=1 && break
			ct findmnt -n -t nfs4 "$FS_NFS" >/dev/null 2>&1 && nfs=1 && break
			sleep 10
		done
		is "fsbench: this guest's NFS export mounted at $FS_NFS (nfs4 over loopback)" "${nfs:-no}" 1 ||
			show "$(tail -n 20 /tmp/fsbench-nfs.log; ct systemctl status --no-pager nfs-server 2>&1 | tail -n 15)"
		;;
	esac
	# Sizes for an emulated guest: each run one to three seconds, against
	# some 12 s per pair for the exporter's start and stop.
	for r in $FSB_RUNS; do
		c=${r%%:*} w=${r#*:}
		case $w in
		pipe) fsbench_run "$c" pipe pipe PROBEPAIR_SWITCHES=20000 ;;
		cread) fsbench_run "$c" cread cread PROBEPAIR_READS=50000 ;;
		meta-tmpfs) fsbench_run "$c" meta-tmpfs meta PROBEPAIR_DIR="$FS_TMP" PROBEPAIR_FILES=3000 ;;
		meta-nfs)
			[ -n "$nfs" ] || { is "fsbench: $c $w: an NFS mount to run on" no yes; continue; }
			fsbench_run "$c" meta-nfs meta PROBEPAIR_DIR="$FS_NFS" PROBEPAIR_FILES=200
			;;
		write-nfs)
			[ -n "$nfs" ] || { is "fsbench: $c $w: an NFS mount to run on" no yes; continue; }
			fsbench_run "$c" write-nfs write PROBEPAIR_DIR="$FS_NFS" PROBEPAIR_WRITES="${FSB_WRITES:-16}"
			;;
		*) is "fsbench: a workload $w" no yes ;;
		esac
	done
	[ "${FSB_NFS:-loopback}" != link ] || fsbench_link_over
}
