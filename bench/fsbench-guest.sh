# SPDX-License-Identifier: GPL-2.0-or-later
# In the VM (tests/vm/files/guest; bench/vm-probepair.sh): the fs set's
# paired cost, bench/probepair.sh for each CONFIG:WORKLOAD of FSB_RUNS,
# FSB_PAIRS pairs each (fsbench.env). Its lines are comments (the host
# relays them), a point per run says it gave its summary.

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

vm_scenario_fsbench_guest() {
	local d=/usr/local/share/sse-vm w c nfs=
	. "$d/fsbench.env"
	# The packages' exporter (the ebpf-exporter package), or a cached build.
	FSB_EXPORTER=/usr/bin/ebpf_exporter
	[ -x "$FSB_EXPORTER" ] || FSB_EXPORTER=/usr/local/bin/ebpf_exporter
	. "$d/lib/probes-fs.sh"
	diag "fsbench: kernel $(uname -r), $(nproc) CPUs, runs: $FSB_RUNS"
	ct mkdir -p "$FS_TMP"
	ok_if "fsbench: a tmpfs at $FS_TMP" ct mount -t tmpfs -o mode=1777 sse-fs "$FS_TMP"
	case " $FSB_RUNS " in
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
			fsbench_run "$c" write-nfs write PROBEPAIR_DIR="$FS_NFS" PROBEPAIR_WRITES=16
			;;
		*) is "fsbench: a workload $w" no yes ;;
		esac
	done
}
