# In the VM (tests/vm/files/guest): the fs set (spank-fs, spank-fs-nfs)
# on a real kernel, with jobs through Slurm in the cgroups Slurm makes,
# read from the set's own instance (127.0.0.1:945, started by the jobs as
# the plugin starts it): a job's calls on tmpfs, ext4, a FUSE file
# system (bindfs: the stand-in for user-space file systems) and NFS (this
# guest exporting a directory and mounting it over loopback with -t
# nfs4, and again over NFSv3; tests/vm/guest/two-nodes.sh has the
# server on another guest) counted exactly, with
# their file system type and mount point; another user's job at the
# same time under its own ID only; a job without --ebpf not at all; pipe
# I/O not at all; the NFS RPCs by procedure against the kernel's own
# /proc/self/mountstats. Payload: sse-vm-fs-work (tests/vm/files).

FS_PORT=945
FS_TMP=/mnt/sse-fs-tmp
FS_EXT4=/mnt/sse-fs-ext4
FS_FUSE=/mnt/sse-fs-fuse
FS_FUSE_SRC=/srv/sse-fs-fuse
FS_NFS=/mnt/sse-fs-nfs
# The same export over NFSv3 (fstype nfs: its own open and create hooks).
FS_NFS3=/mnt/sse-fs-nfs3
FS_EXPORT=/srv/sse-fs-nfs
# Data calls of each payload per file system (4 KiB each).
FS_COUNT=500

_fs_work() {
	local name=$1
	shift
	submit -J "$name" -o "$JOB_MARKS/$name-%j.out" "$@"
}

# _fs_go NAME...: once the set's instance is active (its start, attaching
# the programs, takes 15 s and more under emulation: longer than the
# prolog waits), the payloads NAME (sse-vm-fs-work --go) make their calls.
_fs_go() {
	local g
	ok_if "fs: the fs set's instance active before the payloads $* make a call" wait_until 300 \
		"spank-ebpf-exporter@fs active" eval '[ "$(ct systemctl is-active spank-ebpf-exporter@fs.service)" = active ]'
	for g in "$@"; do
		ct touch "$JOB_MARKS/$g.go"
	done
}

# _fs_is JOB FSTYPE MOUNT METRIC LABEL=VALUE EXPECTED WHAT: one series'
# value, exactly. The labels as the exposition orders them, by name:
# class before fstype, op after mount.
_fs_is() {
	local v l="fstype=\"$2\",jobid=\"$1\",mount=\"$3\""
	case $5 in
	class=*) l="$5,$l" ;;
	*) l="$l,$5" ;;
	esac
	v=$(metric_sum "$FS_PORT" "ebpf_exporter_spank_fs_$4" "$l")
	is "fs: job $1 on $2 $3: $7" "$v" "$6"
}

# _fs_exact JOB FSTYPE MOUNT NAME [nfs]: the payload's calls (see
# sse-vm-fs-work), each counted once.
_fs_exact() {
	local j=$1 t=$2 m=$3 w=$FS_COUNT c=1001 u=1001
	[ "${5:-}" != nfs ] || { w=$((FS_COUNT + 2100)); c=1003; u=1003; }
	_fs_is "$j" "$t" "$m" data_ops_total 'op="write"' "$w" "$w write() calls"
	_fs_is "$j" "$t" "$m" data_bytes_total 'op="write"' $((w * 4096)) "... of $((w * 4096)) bytes"
	_fs_is "$j" "$t" "$m" data_ops_total 'op="read"' "$FS_COUNT" "$FS_COUNT read() calls"
	_fs_is "$j" "$t" "$m" data_bytes_total 'op="read"' $((FS_COUNT * 4096)) "... of $((FS_COUNT * 4096)) bytes"
	_fs_is "$j" "$t" "$m" meta_ops_total 'op="create"' "$c" "$c files made (create)"
	_fs_is "$j" "$t" "$m" meta_ops_total 'op="stat"' 1000 "1000 stat"
	_fs_is "$j" "$t" "$m" meta_ops_total 'op="unlink"' "$u" "$u unlink"
	_fs_is "$j" "$t" "$m" meta_ops_total 'op="mkdir"' 1 "1 mkdir"
	_fs_is "$j" "$t" "$m" meta_ops_total 'op="rmdir"' 1 "1 rmdir"
	_fs_is "$j" "$t" "$m" meta_ops_total 'op="open"' 0 "no plain open (every open made its file)"
	_fs_is "$j" "$t" "$m" meta_latency_seconds_count 'class="namespace"' $((u + 2)) \
		"namespace latency: the $u unlink, the mkdir and the rmdir"
	_fs_is "$j" "$t" "$m" meta_latency_seconds_count 'class="stat"' 1000 "stat latency: 1000"
	if [ "${5:-}" = nfs ]; then
		_fs_is "$j" "$t" "$m" meta_ops_total 'op="fsync"' 1 "1 fsync"
	fi
}

# _fs_nfs_setup: this guest's NFS server (nfs-kernel-server, installed
# in the node before the image was made: tests/vm/suite.sh) exporting
# FS_EXPORT (FS_EXPORT_OPTS: more export options), mounted at FS_NFS over
# loopback.
_fs_nfs_setup() {
	ct test -x /usr/sbin/exportfs || { diag "fs: no nfs-kernel-server in the node"; return 1; }
	ct mkdir -p "$FS_EXPORT" "$FS_NFS" && ct chmod 1777 "$FS_EXPORT" &&
		ct sh -c "echo '$FS_EXPORT 127.0.0.1(rw,sync,no_subtree_check,insecure${FS_EXPORT_OPTS:+,$FS_EXPORT_OPTS})' >/etc/exports" &&
		ct timeout 60 systemctl restart nfs-server >/dev/null 2>&1 &&
		ct timeout 60 mount -t nfs4 "127.0.0.1:$FS_EXPORT" "$FS_NFS"
}

# _fs_nfs3_mount: the export mounted again at FS_NFS3, over NFSv3.
_fs_nfs3_mount() {
	ct mkdir -p "$FS_NFS3" && ct timeout 60 mount -t nfs -o vers=3,nolock "127.0.0.1:$FS_EXPORT" "$FS_NFS3"
}

# _fs_rpcs_vs_mountstats JOB RPCS METRICS [MOUNT [FIRST]]: JOB's NFS RPCs
# on MOUNT (FS_NFS) by procedure (METRICS: its instance's exposition)
# against the payload's mountstats counts over the job (RPCS: its
# NAME.rpcs file): within 5% where there are 20 calls or more; where
# there are fewer, never more than mountstats', and exactly as many for
# the RPCs of the job's first calls on the mount, made before the config
# had seen it: its mkdir's (FIRST: CREATE, NFSv4's procedure for it;
# NFSv3's is MKDIR) and its walks' ACCESS. (A kernel thread's own RPC on
# the mount is no job's: the state manager's DELEGRETURN, between two
# guests.) Then its WRITE RPCs, its 2000 direct writes among them.
_fs_rpcs_vs_mountstats() {
	local nj=$1 mnt=${4:-$FS_NFS} first=${5:-CREATE} k op bf af ours theirs bad=0 checked=0 few='' fewbad=0
	while read -r k op bf af; do
		[ "$k" = "$mnt" ] || continue
		theirs=$((af - bf))
		ours=$(printf '%s\n' "$3" | awk -v l="jobid=\"$nj\",mount=\"$mnt\",procedure=\"$op\"" \
			'index($1, "ebpf_exporter_spank_fs_nfs_rpcs_total{") == 1 && index($1, l) { s += $NF } END { printf "%.0f", s }')
		[ "$theirs" -gt 0 ] || [ "$ours" -gt 0 ] || continue
		diag "fs: NFS $op: mountstats $theirs, job $nj $ours"
		if [ "$theirs" -lt 20 ]; then
			few+=" $op $ours/$theirs"
			case $op in
			"$first" | ACCESS) [ "$ours" -eq "$theirs" ] || fewbad=$((fewbad + 1)) ;;
			*) [ "$ours" -le "$theirs" ] || fewbad=$((fewbad + 1)) ;;
			esac
			continue
		fi
		checked=$((checked + 1))
		[ $(((ours - theirs) * 100)) -le $((theirs * 5)) ] && [ $(((theirs - ours) * 100)) -le $((theirs * 5)) ] ||
			bad=$((bad + 1))
	done <"$2"
	ok_if "fs: the NFS RPCs of job $nj by procedure within 5% of mountstats' ($checked procedures of 20 calls or more, $bad off)" \
		test "$checked" -ge 2 -a "$bad" -eq 0
	# The payload's first call on the mount is its mkdir, its only one.
	ok_if "fs: ... and where under 20 calls, none over mountstats', its first call's $first and its ACCESS as many (job/mountstats:$few)" \
		test "$fewbad" -eq 0 -a "${few#* $first }" != "$few"
	like "fs: ... its 2000 direct writes among them (WRITE)" \
		"$(metric_sum "$FS_PORT" ebpf_exporter_spank_fs_nfs_rpcs_total "jobid=\"$nj\",mount=\"$mnt\",procedure=\"WRITE\"")" \
		'^(2[0-9][0-9][0-9])$'
}

# _fs_nfs_words WHAT REPORT: spank-ebpf report's words of the NFS
# payload's job (WHAT names the report in the points).
_fs_nfs_words() {
	like "fs: $1: its NFS mount's data calls and bytes, in words" "$2" \
		"file systems: nfs4 $FS_NFS: $FS_COUNT reads, 2\\.0 MB, $((FS_COUNT + 2100)) writes, 10\\.[0-9] MB; "
	like "fs: ... its metadata calls by operation" "$2" \
		"nfs4 $FS_NFS: .*; [0-9]+ metadata operations \\((1003 create, 1003 unlink|1003 unlink, 1003 create), 1000 stat"
	like "fs: ... and the RPCs the server saw, WRITE first" "$2" \
		"NFS RPCs on nfs4 $FS_NFS: 2[0-9]{3} WRITE, "
}

# (No variable n here: tests/lib/tap.sh numbers its points in it.)
vm_scenario_probes_fs() {
	local a b c nj o out k
	diag "fs: Slurm $VM_SLURM on $VM_KERNEL"
	ok_if "fs: the node takes jobs" wait_until 120 "node $NODE usable" node_usable
	ct mkdir -p "$FS_TMP" "$FS_EXT4"
	ok_if "fs: a tmpfs at $FS_TMP" ct mount -t tmpfs -o mode=1777 sse-fs "$FS_TMP"
	ok_if "fs: an ext4 file system at $FS_EXT4 (a loop device)" ct sh -c \
		"truncate -s 256M /var/tmp/sse-fs-ext4.img && mkfs.ext4 -q -F /var/tmp/sse-fs-ext4.img &&
		mount -o loop /var/tmp/sse-fs-ext4.img $FS_EXT4 && chmod 1777 $FS_EXT4" ||
		{ diag "fs: $(ct sh -c 'command -v mkfs.ext4 || echo no mkfs.ext4' 2>&1)"; return; }
	# The NFS config's tracepoints are the nfs and sunrpc modules': loaded
	# before the set's first job starts its instance.
	# bindfs, run by root outside any job, over a directory of the root
	# file system: the job's calls are on fuse.bindfs; the daemon's own,
	# below, are no job's.
	ct modprobe fuse >/dev/null 2>&1
	ok_if "fs: a FUSE file system at $FS_FUSE (bindfs)" ct sh -c \
		"mkdir -p $FS_FUSE_SRC $FS_FUSE && chmod 1777 $FS_FUSE_SRC && bindfs -o allow_other $FS_FUSE_SRC $FS_FUSE"
	ct modprobe nfsv4 >/dev/null 2>&1
	ok_if "fs: this guest's NFS export mounted at $FS_NFS (nfs4 over loopback)" _fs_nfs_setup
	ok_if "fs: ... and at $FS_NFS3 (NFSv3)" _fs_nfs3_mount
	diag "fs: mounts: $(for k in "$FS_TMP" "$FS_EXT4" "$FS_FUSE" "$FS_NFS" "$FS_NFS3"; do ct findmnt -n -o TARGET,FSTYPE,SOURCE "$k"; done 2>&1 | tr '\n' '|')"

	# tmpfs, ext4 and FUSE: three jobs at once, two of them observed.
	a=$(_fs_work fs-a --ebpf=fs /usr/local/bin/sse-vm-fs-work fs-a "$FS_COUNT" "$FS_TMP" "$FS_EXT4" "$FS_FUSE" --go) ||
		{ is "fs: sbatch --ebpf=fs accepted" no yes; return; }
	b=$(SYS_USER=$JM_OTHER _fs_work fs-b --ebpf=fs /usr/local/bin/sse-vm-fs-work fs-b "$FS_COUNT" "$FS_TMP" "$FS_EXT4" "$FS_FUSE" --go) ||
		{ is "fs: the other user's sbatch --ebpf=fs accepted" no yes; return; }
	c=$(_fs_work fs-c /usr/local/bin/sse-vm-fs-work fs-c "$FS_COUNT" "$FS_TMP" "$FS_EXT4" "$FS_FUSE" --go) ||
		{ is "fs: sbatch without --ebpf accepted" no yes; return; }
	_fs_go fs-a fs-b fs-c
	ok_if "fs: job $a (--ebpf=fs) did its calls" wait_started fs-a 300
	ok_if "fs: job $b ($JM_OTHER, --ebpf=fs) did its calls, on the same file systems at once" wait_started fs-b 300
	ok_if "fs: job $c (no --ebpf) did its calls" wait_started fs-c 300
	is "fs: the fs set's instance runs" "$(settled_unit_state spank-ebpf-exporter@fs.service)" active ||
		show "$(ct journalctl -u spank-ebpf-exporter@fs.service -n 30 --no-pager 2>&1 | cut -c1-400)"
	diag "fs: the instance: $(ct systemctl show -p NRestarts -p ExecMainStartTimestamp -p ExecMainPID spank-ebpf-exporter@fs.service | tr '\n' ' ')"
	diag "fs: its journal: $(ct journalctl -u spank-ebpf-exporter@fs.service --no-pager -o cat 2>&1 | tail -n 15 | cut -c1-300 | tr '\n' '|')"
	out=$(SYS_STANDIN_PORT=$FS_PORT metrics)
	diag "fs: job $a's series: $(printf '%s\n' "$out" | grep "jobid=\"$a\"" | grep -v _bucket | grep -c .)"
	diag "fs: dropped: $(printf '%s\n' "$out" | grep '^ebpf_exporter_spank_fs_dropped_total' | tr '\n' '|')"
	printf '%s\n' "$out" | grep "jobid=\"$a\"" | grep -v -e _bucket -e latency | sed 's/^/# /'
	_fs_exact "$a" tmpfs "$FS_TMP" fs-a
	_fs_exact "$a" ext4 "$FS_EXT4" fs-a
	_fs_exact "$b" tmpfs "$FS_TMP" fs-b
	_fs_exact "$b" ext4 "$FS_EXT4" fs-b
	# bindfs names no subtype: the kernel's type is fuse (findmnt's).
	k=$(ct findmnt -n -o FSTYPE "$FS_FUSE")
	diag "fs: $FS_FUSE's type: $k"
	_fs_exact "$a" "$k" "$FS_FUSE" fs-a
	_fs_exact "$b" "$k" "$FS_FUSE" fs-b
	# bindfs writes the job's 500 blocks again into $FS_FUSE_SRC, on the
	# root's ext4: the daemon's, not the job's (its script's own few
	# calls on / are).
	k=$(metric_sum "$FS_PORT" ebpf_exporter_spank_fs_data_ops_total "fstype=\"ext4\",jobid=\"$a\",mount=\"/\",op=\"write\"")
	ok_if "fs: bindfs's own writes below $FS_FUSE not job $a's (its writes on ext4 /: $k, under $FS_COUNT)" \
		test "${k:-0}" -lt "$FS_COUNT"
	is "fs: nothing at all for job $c (no --ebpf)" "$(metric_series "$FS_PORT" "$c")" 0
	is "fs: no series of a pipe (pipefs) for job $a: its pipe I/O is no data call" \
		"$(printf '%s\n' "$out" | grep "jobid=\"$a\"" | grep -c 'fstype="pipefs"')" 0
	is "fs: the set's series are the contract's, and nothing dropped" \
		"$(printf '%s\n' "$out" | grep '^ebpf_exporter_spank_fs_' | sed 's/{.*//' | sort -u | tr '\n' ' ')" \
		"$(printf '%s\n' ebpf_exporter_spank_fs_data_bytes_total ebpf_exporter_spank_fs_data_ops_total \
			ebpf_exporter_spank_fs_meta_latency_seconds_bucket ebpf_exporter_spank_fs_meta_latency_seconds_count \
			ebpf_exporter_spank_fs_meta_latency_seconds_sum ebpf_exporter_spank_fs_meta_ops_total | sort -u | tr '\n' ' ')"
	release fs-a
	release fs-b
	release fs-c
	wait_job_done "$a"
	wait_job_done "$b"
	wait_job_done "$c"
	ok_if "fs: after jobs $a and $b: none of their series left" wait_until 60 "their series gone" \
		eval "metric_no_series $FS_PORT $a && metric_no_series $FS_PORT $b"

	# NFS: one job alone (mountstats counts the mount's every RPC), then
	# another user's on the same mount while it waits.
	if ! ct findmnt -n "$FS_NFS" >/dev/null 2>&1; then
		is "fs: NFS checks run (the mount above)" no yes
		return
	fi
	nj=$(_fs_work fs-n --ebpf=fs /usr/local/bin/sse-vm-fs-work fs-n "$FS_COUNT" "$FS_NFS" --nfs --go) ||
		{ is "fs: sbatch --ebpf=fs on NFS accepted" no yes; return; }
	_fs_go fs-n
	ok_if "fs: job $nj did its calls on NFS" wait_started fs-n 600
	out=$(SYS_STANDIN_PORT=$FS_PORT metrics)
	printf '%s\n' "$out" | grep "jobid=\"$nj\"" | grep -v -e _bucket -e latency | sed 's/^/# /'
	_fs_exact "$nj" nfs4 "$FS_NFS" fs-n nfs
	_fs_rpcs_vs_mountstats "$nj" "$JOB_MARKS/fs-n.rpcs" "$out"
	# What the job's owner reads: spank-ebpf report's words, from the
	# same instance.
	out=$(ct "$SYS_ADMIN_CMD" report "$nj" 2>&1)
	diag "fs: spank-ebpf report $nj: $(echo "$out" | tr '\n' '|')"
	_fs_nfs_words "spank-ebpf report $nj" "$out"
	unlike "fs: ... no line of $FS_TMP or $FS_EXT4 (the other jobs' file systems; its own / may show)" "$out" \
		"file systems: [^ ]+ ($FS_TMP|$FS_EXT4): "
	k=$(metric_sum "$FS_PORT" ebpf_exporter_spank_fs_nfs_rpcs_total "jobid=\"$nj\"")
	o=$(SYS_USER=$JM_OTHER _fs_work fs-o --ebpf=fs /usr/local/bin/sse-vm-fs-work fs-o "$FS_COUNT" "$FS_NFS" --nfs --go) ||
		{ is "fs: the other user's sbatch --ebpf=fs on NFS accepted" no yes; return; }
	_fs_go fs-o
	ok_if "fs: job $o ($JM_OTHER) did its calls on the same NFS mount" wait_started fs-o 600
	_fs_is "$o" nfs4 "$FS_NFS" data_ops_total 'op="write"' $((FS_COUNT + 2100)) "its own writes, under its own ID"
	is "fs: ... and job $nj's RPCs did not move meanwhile" \
		"$(metric_sum "$FS_PORT" ebpf_exporter_spank_fs_nfs_rpcs_total "jobid=\"$nj\"")" "$k"
	_fs_exact "$nj" nfs4 "$FS_NFS" fs-n nfs
	diag "fs: dropped: $(SYS_STANDIN_PORT=$FS_PORT metrics | grep '^ebpf_exporter_spank_fs_dropped_total' | tr '\n' '|')"
	release fs-n
	release fs-o
	wait_job_done "$nj"
	wait_job_done "$o"
	is "fs: the jobs completed" "$(job_state "$a") $(job_state "$b") $(job_state "$c") $(job_state "$nj") $(job_state "$o")" \
		"COMPLETED COMPLETED COMPLETED COMPLETED COMPLETED"
	is "fs: the set's instance stopped after the last job" "$(settled_unit_state spank-ebpf-exporter@fs.service)" inactive
	_fs_nfs3
	_fs_nfs_alone
	ct umount "$FS_NFS" "$FS_NFS3" "$FS_FUSE" "$FS_EXT4" "$FS_TMP" 2>/dev/null
}

# _fs_nfs3: a job on the NFSv3 mount (fstype nfs): its opens start in
# nfs_create and nfs_open, not in nfs_check_flags; the same exact counts
# and RPCs (NFSv3's names: MKDIR, CREATE for each file made...).
_fs_nfs3() {
	local j out
	if ! ct findmnt -n "$FS_NFS3" >/dev/null 2>&1; then
		is "fs: NFSv3 checks run (the mount above)" no yes
		return
	fi
	j=$(_fs_work fs-3 --ebpf=fs /usr/local/bin/sse-vm-fs-work fs-3 "$FS_COUNT" "$FS_NFS3" --nfs --go) ||
		{ is "fs: sbatch --ebpf=fs on NFSv3 accepted" no yes; return; }
	_fs_go fs-3
	ok_if "fs: job $j did its calls on NFSv3" wait_started fs-3 600
	out=$(SYS_STANDIN_PORT=$FS_PORT metrics)
	printf '%s\n' "$out" | grep "jobid=\"$j\"" | grep -v -e _bucket -e latency | sed 's/^/# /'
	_fs_exact "$j" nfs "$FS_NFS3" fs-3 nfs
	_fs_rpcs_vs_mountstats "$j" "$JOB_MARKS/fs-3.rpcs" "$out" "$FS_NFS3" MKDIR
	release fs-3
	wait_job_done "$j"
	is "fs: job $j completed" "$(job_state "$j")" COMPLETED
}

# _fs_runs [run_time_ns [hooks]]: the runs of the node's fentry/fexit and
# tp_btf programs of the fs configs, summed, or the time they took
# (kernel.bpf_stats_enabled on: the kernel counts both); with hooks,
# those of fentry/fexit programs alone (a tracing link's: tp_btf's are
# raw_tracepoint links), and to stderr how many there are, then each one
# that ran, with its runs.
_fs_runs() {
	local links
	links=$(ct bpftool -j link show 2>/dev/null)
	ct bpftool -j prog show 2>/dev/null | python3 -c '
import json, sys
field, hooks, links = sys.argv[1], sys.argv[2] == "hooks", json.loads(sys.argv[3] or "[]")
hooked = {l.get("prog_id") for l in links if l.get("type") == "tracing"}
ours = [p for p in json.load(sys.stdin) if p.get("type") == "tracing"
        and p.get("name", "").startswith("spank_fs") and (not hooks or p.get("id") in hooked)]
if hooks:
    print(len(ours), *("%s=%d" % (p["name"], p.get(field, 0)) for p in ours if p.get(field, 0)), file=sys.stderr)
print(sum(p.get(field, 0) for p in ours))' "${1:-run_cnt}" "${2:-all}" "$links"
}

# _fs_nfs_alone: the set fs-nfs (spank-fs-nfs alone, as a site offers it
# for NFS) puts no program where a job's other calls go: a job's tmpfs
# and ext4 calls and pipes, 500 reads and writes and 3000 metadata calls
# on each, run none of its fentry/fexit programs (the kernel's own count
# of their runs), where spank-fs's would run thousands of times; its NFS
# calls run them and are counted.
_fs_nfs_alone() {
	local j before after m t w k ran
	ct sysctl -qw kernel.bpf_stats_enabled=1
	j=$(_fs_work fs-l --ebpf=fs-nfs /usr/local/bin/sse-vm-fs-work fs-l "$FS_COUNT" "$FS_TMP" "$FS_EXT4" --go) ||
		{ is "fs-nfs: sbatch --ebpf=fs-nfs accepted" no yes; return; }
	ok_if "fs-nfs: the set's instance active before job $j's calls" wait_until 300 \
		"spank-ebpf-exporter@fs-nfs active" eval '[ "$(ct systemctl is-active spank-ebpf-exporter@fs-nfs.service)" = active ]'
	ok_if "fs-nfs: ... and answering" wait_until 120 "127.0.0.1:946 answering" \
		eval "SYS_STANDIN_PORT=946 metrics | grep -q '^ebpf_exporter_'"
	# Its fentry/fexit programs: the tp_btf ones at the RPC tracepoints
	# run for the node's own RPCs as well (the lease's SEQUENCE, every
	# minute on an idle NFSv4 mount), wherever the jobs' calls go.
	before=$(_fs_runs run_cnt hooks 2>/dev/null)
	ct touch "$JOB_MARKS/fs-l.go"
	ok_if "fs-nfs: job $j did its calls on tmpfs and ext4" wait_started fs-l 300
	after=$(_fs_runs run_cnt hooks 2>"$JOB_MARKS/fs-l.runs")
	read -r k ran <"$JOB_MARKS/fs-l.runs"
	diag "fs-nfs: runs of the fs configs' fentry/fexit programs: $before before job $j's calls, $after after (those that ran: ${ran:-none})"
	ok_if "fs-nfs: its fentry/fexit programs are there to count ($k)" test "${k:-0}" -ge 10
	is "fs-nfs: job $j's $((FS_COUNT * 2)) data calls, 6000 metadata calls and 400 pipe calls on tmpfs and ext4 ran none of spank-fs-nfs's fentry/fexit programs" \
		"$((after - before))" 0
	is "fs-nfs: ... and made no series" "$(metric_series 946 "$j")" 0
	release fs-l
	wait_job_done "$j"
	# The same set on NFS: its programs run, and count the job's calls.
	m=$(_fs_work fs-m --ebpf=fs-nfs /usr/local/bin/sse-vm-fs-work fs-m "$FS_COUNT" "$FS_NFS" --nfs --go) ||
		{ is "fs-nfs: sbatch --ebpf=fs-nfs on NFS accepted" no yes; return; }
	ok_if "fs-nfs: the set's instance answering before job $m's calls" wait_until 300 "127.0.0.1:946 answering" \
		eval "SYS_STANDIN_PORT=946 metrics | grep -q '^ebpf_exporter_'"
	before=$(_fs_runs)
	t=$(_fs_runs run_time_ns)
	w=$(date +%s%N)
	ct touch "$JOB_MARKS/fs-m.go"
	ok_if "fs-nfs: job $m did its calls on NFS" wait_started fs-m 600
	w=$(($(date +%s%N) - w))
	after=$(_fs_runs)
	t=$(($(_fs_runs run_time_ns) - t))
	# docs/BENCHMARKS.md quotes this line: the programs' own time, per
	# run and against the wall time of the job's calls (to its mark,
	# seen within a second).
	diag "fs-nfs: runs on NFS: $before before job $m's calls, $after after; their time $t ns, $((t / (after - before + 1))) ns a run, over $((w / 1000000)) ms of the job's calls: $(awk -v t="$t" -v w="$w" 'BEGIN { printf "%.2f", 100 * t / w }')% of that wall (this guest's, emulated, bpf_stats on)"
	ok_if "fs-nfs: job $m's NFS calls ran its programs (some thousands of runs: $((after - before)))" \
		test $((after - before)) -ge 5000
	FS_PORT=946 _fs_exact "$m" nfs4 "$FS_NFS" fs-m nfs
	release fs-m
	wait_job_done "$m"
	ct sysctl -qw kernel.bpf_stats_enabled=0
	_fs_flusher
	is "fs-nfs: the jobs completed, the instance stopped" \
		"$(job_state "$j") $(job_state "$m") $(settled_unit_state spank-ebpf-exporter@fs-nfs.service)" \
		"COMPLETED COMPLETED inactive"
}

# _fs_flusher: the writeback of a job's dirty pages by the kernel's
# flusher thread, which is no task of the job's: its WRITE RPCs credited
# to the job that last wrote the file (spank-fs-nfs's fs_nfs_writers),
# none left unattributed. The job writes 64 blocks, buffered, and sleeps
# with the file open (no fsync, no close: nothing of its own flushes);
# dirty pages expire after a second here (the node's default is 30 s).
_fs_flusher() {
	local d k w0 w1 got sel
	ct sysctl -qw vm.dirty_expire_centisecs=100 vm.dirty_writeback_centisecs=100
	d=$(_fs_work fs-d --ebpf=fs-nfs /usr/local/bin/sse-vm-fs-work fs-d 64 "$FS_NFS" --dirty --go) ||
		{ is "fs-nfs: sbatch --ebpf=fs-nfs (flusher) accepted" no yes; return; }
	ok_if "fs-nfs: the set's instance answering before job $d's writes" wait_until 300 "127.0.0.1:946 answering" \
		eval "SYS_STANDIN_PORT=946 metrics | grep -q '^ebpf_exporter_'"
	k=$(metric_sum 946 ebpf_exporter_spank_fs_dropped_total 'reason="unattributed"')
	ct touch "$JOB_MARKS/fs-d.go"
	ok_if "fs-nfs: job $d wrote 64 blocks to NFS and sleeps with the file open" \
		wait_until 300 "job $d's writes" ct test -s "$JOB_MARKS/fs-d.dirty"
	sel="jobid=\"$d\",mount=\"$FS_NFS\",procedure=\"WRITE\""
	ok_if "fs-nfs: the flusher's WRITE RPCs of job $d's file, credited to job $d" \
		wait_until 90 "job $d's WRITE RPCs" metric_at_least 946 ebpf_exporter_spank_fs_nfs_rpcs_total "$sel" 1
	sleep 5 # the rest of its 256 KiB, if any, written back meanwhile
	got=$(metric_sum 946 ebpf_exporter_spank_fs_nfs_rpcs_total "$sel")
	ct touch "$JOB_MARKS/fs-d.flushed"
	wait_until 60 "job $d's mountstats after" ct test -s "$JOB_MARKS/fs-d.flushedrpcs"
	w0=$(ct cat "$JOB_MARKS/fs-d.dirty" 2>&1)
	w1=$(ct cat "$JOB_MARKS/fs-d.flushedrpcs" 2>&1)
	diag "fs-nfs: the mount's WRITE RPCs: $w0 when job $d had written, $w1 before it closed; job $d's: $got"
	is "fs-nfs: ... every WRITE RPC of the mount meanwhile (mountstats), the job's task asleep" \
		"$got" "$((w1 - w0))"
	is "fs-nfs: ... none of them left unattributed" \
		"$(metric_sum 946 ebpf_exporter_spank_fs_dropped_total 'reason="unattributed"')" "$k"
	release fs-d
	wait_job_done "$d"
	ct sysctl -qw vm.dirty_expire_centisecs=3000 vm.dirty_writeback_centisecs=500
	is "fs-nfs: job $d completed" "$(job_state "$d")" COMPLETED
}
