# In both guests of tests/vm/two-nodes.sh (tests/vm/files/guest runs it
# on each): node1 runs the scenario, node2 waits for its word that it is
# over. One job on both nodes asks for the io set; each node's srun task
# makes 2000 direct 4-KiB writes on its own disk; Prometheus on node1
# scrapes both nodes' exporters, and spank-ebpf report --cluster, from a
# login node's line, gives the job's figures per node, while it runs and
# after. Slurm's accounting runs on node1 (slurmdbd on MariaDB): at the
# job's end EpilogSlurmctld=spank-ebpf stores its summary in its
# AdminComment, and report gives the same figures of both nodes from it,
# asked for (--summary) and, the job's series deleted from Prometheus,
# of itself, in text and JSON.
# Then NFS between the two guests: node1 exports /srv/sse-fs-nfs
# (nfs-kernel-server, started at boot on node1 alone), node2 mounts it
# with -t nfs4 before it waits for node1's word. A job on node2 asks for
# the fs set and runs tests/vm/guest/probes-fs.sh's payload with --nfs
# there: its calls counted exactly under its job ID with fstype nfs4 and
# the mount, as node2's instance serves them to node1 over the link; its
# RPCs by procedure within 5% of node2's mountstats over the job; another
# user's job on the same mount under its own ID, the first one's RPCs
# unchanged; report --cluster and, after its end, report --summary say
# its NFS figures in words. node2 serves its jobs' marks directory to
# node1 (the payload's NAME.started and NAME.rpcs: nothing of the test's
# on the NFS mount, where it would be counted); node1 serves the gates.

. /usr/local/share/sse-vm/lib/jobmetrics.sh
. /usr/local/share/sse-vm/lib/dbd.sh
# FS_PORT, FS_NFS, FS_EXPORT, FS_COUNT and the helpers _fs_exact,
# _fs_rpcs_vs_mountstats, _fs_nfs_words.
. /usr/local/share/sse-vm/lib/probes-fs.sh
JM_PROM=$TN_NET.1:9090
TN_PEER_PORT=7999
TN_GATES=/var/tmp/sse-vm-gates
TN_WRITES=2000
TN_BYTES=$((TN_WRITES * 4096))
TN_MARKS_PORT=8001

vm_scenario_two_nodes() {
	diag "two nodes: $(hostname): $(ip -4 -o addr show dev eth0 2>&1 | awk '{print $4}'), Slurm $VM_SLURM on $VM_KERNEL"
	case $(hostname) in
	node1)
		_tn_scenario
		_tn_nfs_scenario
		_tn_tell_node2
		_tn_nfs_clients_gone
		;;
	*) _tn_wait_word ;;
	esac
}

# --- node2 -------------------------------------------------------------

# _tn_nfs_mount: node1's export mounted at FS_NFS with -t nfs4, tried
# again while node1's server comes up (the guests boot at once).
_tn_nfs_mount() {
	ct timeout 30 mount -t nfs4 "node1:$FS_EXPORT" "$FS_NFS" 2>/dev/null
}

# _tn_wait_word: node2 up and serving, node1's export mounted, until
# node1 says its scenario is over (a line on a TCP port of the link),
# 840 s at the most.
_tn_wait_word() {
	local c word marks
	c=$(boot_mark)
	ok_if "slurmd runs on node2" wait_until 120 "slurmd active" ct systemctl is-active slurmd
	# spank-fs-nfs's tracepoints are the nfs and sunrpc modules': loaded
	# before a job starts the fs set's instance.
	ct modprobe nfsv4 >/dev/null 2>&1
	ok_if "node1's export mounted at $FS_NFS (nfs4 over the link)" \
		wait_until 180 "node1:$FS_EXPORT mounted" _tn_nfs_mount
	diag "mount: $(ct findmnt -n -o TARGET,FSTYPE,SOURCE,OPTIONS "$FS_NFS" 2>&1)"
	# The marks directory, for node1 (nfs.mounted first: its word that
	# the mount is there).
	ct findmnt -n -o FSTYPE "$FS_NFS" >"$JOB_MARKS/nfs.mounted" 2>&1
	timeout 900 python3 -m http.server --bind "$TN_NET.2" --directory "$JOB_MARKS" "$TN_MARKS_PORT" >/dev/null 2>&1 &
	marks=$!
	word=$(timeout 840 socat -u "TCP-LISTEN:$TN_PEER_PORT,bind=$TN_NET.2,reuseaddr" - 2>&1)
	is "node1 said its scenario is over" "$word" over
	kill "$marks" 2>/dev/null
	# At once, while node1's server still answers (it waits for that):
	# a hard mount of a server gone would hang the umount and the power
	# off.
	ok_if "node1's export unmounted" eval "ct timeout 30 umount $FS_NFS || ct umount -l $FS_NFS"
	is "the io set's instance stopped after the job" "$(settled_unit_state spank-ebpf-exporter@io.service)" inactive
	is "the fs set's instance stopped after the NFS jobs" "$(settled_unit_state spank-ebpf-exporter@fs.service)" inactive
	diag "plugin lines on node2: $(plugin_log_since "$c" | tr '\n' '|')"
}

# --- node1 -------------------------------------------------------------

# _tn_nfs_clients_gone: node1 powers off once node2 has unmounted its
# export (no NFSv4 client left in nfsd's list), 60 s at the most.
_tn_nfs_clients_gone() {
	wait_until 60 "node2's NFS client gone from node1's server" \
		eval '[ -z "$(ls /proc/fs/nfsd/clients 2>/dev/null)" ]'
	diag "two nodes: NFS clients of node1's server as it powers off: $(ls /proc/fs/nfsd/clients 2>&1 | tr '\n' ' ')"
}

_tn_tell_node2() {
	ok_if "two nodes: node2 took node1's word that the scenario is over" \
		wait_until 30 "node2 listening for the word" \
		bash -c "exec 3<>/dev/tcp/$TN_NET.2/$TN_PEER_PORT && echo over >&3"
}

# _tn_ctld_restart: dbd_join's restart, on node1 (slurmctld's node).
_tn_ctld_restart() {
	ct timeout 120 systemctl restart slurmctld || bail "slurmctld did not restart"
}

# _tn_accounting: the cluster and the test user in slurmdbd (started at
# boot), slurmctld restarted on it and registered (dbd_join). In a
# subshell: its bail ends that, not the guest's runner (node2 waits for
# node1's word), and its words go to the TAP as a comment.
_tn_accounting() {
	(dbd_join _tn_ctld_restart "$SYS_USER") | sed 's/^Bail out! /# /'
	return "${PIPESTATUS[0]}"
}

_tn_both_idle() {
	[ "$(ct sinfo -h -N -o '%N %T' 2>/dev/null | sort | tr '\n' ' ')" = "node1 idle node2 idle " ]
}

# _tn_inst_bytes NODE JOB: the write bytes Prometheus holds for JOB from
# NODE's io set (its instance NODE:941), "none" without a series.
_tn_inst_bytes() {
	local v
	v=$(promql "sum(ebpf_exporter_spank_io_bytes_total{jobid=\"$2\",operation=\"write\",instance=\"$1:941\"})" | sed 's/.*= //')
	echo "${v:-none}"
}

_tn_inst_at_least() {
	local v
	v=$(_tn_inst_bytes "$1" "$2")
	[ "$v" != none ] && [ "${v%.*}" -ge "$3" ] 2>/dev/null
}

# _tn_exporter_sum NODE METRIC JOB: METRIC's writes for JOB as NODE's
# exporter itself serves them (its /metrics over the link).
_tn_exporter_sum() {
	curl -sf --max-time 10 "http://$1:941/metrics" | awk -v m="$2" -v l="jobid=\"$3\"" '
		{ seen = 1 }
		index($1, m "{") == 1 && index($1, l) && index($1, "operation=\"write\"") { s += $NF }
		END { if (!seen) print "down"; else printf "%.0f\n", s }'
}

# _tn_gate_serve: node1 serves the gates' directory to both nodes' tasks
# (they poll NAME.gate over the link: no shared file system here).
_tn_gate_serve() {
	mkdir -p "$TN_GATES"
	timeout 600 python3 -m http.server --bind "$TN_NET.1" --directory "$TN_GATES" 8000 >/dev/null 2>&1 &
	TN_GATE_PID=$!
}

# _tn_writes SECTION REPORT: the write requests and bytes, "REQUESTS
# BYTES", in REPORT's SECTION (" whole job" or " node NAME, sets io:").
_tn_writes() {
	echo "$2" | sed -n "/^$1/,/^ node /p" | sed -n 's/^  I\/O write  \([0-9]*\) requests, \([0-9]*\) bytes, .*/\1 \2/p'
}

# _tn_report_writes WHAT REPORT: report's figures of the whole job (both
# nodes') and of each node (its own), three points named "WHAT: ...".
_tn_report_writes() {
	local i
	is "two nodes: $1: the whole job's writes, both nodes' (2 x $TN_BYTES bytes)" \
		"$(_tn_writes ' whole job' "$2")" "$((2 * TN_WRITES)) $((2 * TN_BYTES))"
	for i in node1 node2; do
		is "two nodes: $1: $i's writes, its own $TN_BYTES bytes" \
			"$(_tn_writes " node $i, sets io:\$" "$2")" "$TN_WRITES $TN_BYTES"
	done
}

# _tn_json_writes JSON: report --json's source, state, bytes written per
# node and in all, and errors.
_tn_json_writes() {
	printf '%s' "$1" | python3 -c '
import json, sys
d = json.load(sys.stdin)
per = " ".join("%s=%s" % (n["node"], n["io"]["write"]["bytes"]) for n in sorted(d["per_node"], key=lambda n: n["node"]))
print(d["source"], d["state"], per, "total=%s" % d["total"]["io"]["write"]["bytes"], d["errors"])' 2>&1
}

# _tn_summary_said JOB: what EpilogSlurmctld's spank-ebpf logged of JOB.
_tn_summary_said() {
	ct journalctl -b --no-pager -o cat 2>/dev/null | grep "summary job $1:"
}

# _tn_show WHAT REPORT: REPORT in the TAP, one comment line each.
_tn_show() {
	local l
	diag "two nodes: $1:"
	while IFS= read -r l; do diag "  $l"; done <<<"$2"
}

# _tn_login_conf: a login node's line, prometheus= and no sets= (report
# --cluster), in a file of its own; prints its path.
_tn_login_conf() {
	local login=/etc/slurm/login-plugstack.conf
	printf 'optional %s prometheus=http://%s/\n' "$(awk '/^(optional|required)/ { print $2; exit }' /etc/slurm/spank_ebpf.conf)" "$JM_PROM" >"$login"
	chmod 0644 "$login"
	echo "$login"
}

_tn_scenario() {
	local j c out prom json i login acct field
	c=$(boot_mark)
	if _tn_accounting; then acct=yes; else acct=no; fi
	is "two nodes: accounting on node1: slurmdbd holds the cluster and $SYS_USER, slurmctld registered with it" "$acct" yes
	diag "two nodes: accounting: $(ct slurmdbd -V 2>&1), cluster $(ct sacctmgr -n -P show cluster format=Cluster,ControlHost 2>&1 | tr '\n' ' ')"
	ok_if "two nodes: both nodes idle in sinfo (node2's slurmd reached slurmctld over the link)" \
		wait_until 180 "node1 and node2 idle" _tn_both_idle
	diag "two nodes: sinfo: $(ct sinfo -h -N -o '%N %T %E' 2>&1 | tr '\n' '|')"
	ok_if "two nodes: Prometheus answers on node1" wait_until 120 "Prometheus answering" _jm_ready
	_tn_gate_serve
	j=$(submit -J two -N 2 --ebpf=io -o "$JOB_MARKS/two-%j.out" --wrap \
		"srun -N 2 --ntasks-per-node=1 /usr/local/bin/sse-vm-two-work two $TN_WRITES http://$TN_NET.1:8000/two.gate") ||
		{ is "two nodes: sbatch -N2 --ebpf=io accepted" no yes; return; }
	ok_if "two nodes: job $j runs on both nodes" wait_until 120 "job $j running" \
		eval "[ \"\$(job_state $j) \$(job_field $j NodeList)\" = 'RUNNING node[1-2]' ]"
	for i in node1 node2; do
		ok_if "two nodes: Prometheus holds $i's writes of job $j (instance $i:941)" \
			wait_until 180 "$i's $TN_BYTES bytes in Prometheus" _tn_inst_at_least "$i" "$j" "$TN_BYTES"
	done
	is "two nodes: node1's io set listens on its link address alone (sets file's listen=)" \
		"$(ss -Hltn 'sport = :941' | awk '{print $4}' | tr '\n' ' ')" "$TN_NET.1:941 "
	# Two kernels: each exporter saw its own node's writes, not both
	# nodes' (in containers on one kernel each would count 2 x).
	for i in node1 node2; do
		is "two nodes: $i's exporter counted $i's own writes only: $TN_BYTES bytes" \
			"$(_tn_exporter_sum "$i" ebpf_exporter_spank_io_bytes_total "$j")" "$TN_BYTES"
		is "two nodes: ... in $TN_WRITES write requests" \
			"$(_tn_exporter_sum "$i" ebpf_exporter_spank_io_latency_seconds_count "$j")" "$TN_WRITES"
		is "two nodes: Prometheus holds the same for $i" "$(_tn_inst_bytes "$i" "$j")" "$TN_BYTES"
	done
	ok_if "two nodes: spank_ebpf_job_info for job $j from both nodes' node_exporters" \
		wait_until 30 "job $j's job_info from both nodes" _jm_has "count(spank_ebpf_job_info{jobid=\"$j\"}) == 2"
	login=$(_tn_login_conf)
	# While it runs (its tasks have written, and wait at the gate).
	out=$(ctu "$SYS_ADMIN_CMD" -c "$login" report "$j" 2>&1)
	_tn_show "while job $j runs, spank-ebpf -c $login report $j, as $SYS_USER" "$out"
	like "two nodes: report while it runs: the job, RUNNING, both nodes, to now" "$out" \
		"^job $j \\(user $SYS_USER\\), RUNNING, nodes node\\[1-2\\], [0-9T:-]+ to now \\([0-9]+ s\\), from Prometheus at http://$JM_PROM/$"
	_tn_report_writes "report while it runs" "$out"
	touch "$TN_GATES/two.gate"
	ok_if "two nodes: job $j finished, epilog included" wait_job_done "$j" 120
	is "two nodes: job $j completed" "$(job_state "$j")" COMPLETED
	diag "two nodes: job $j's output: $(tr '\n' '|' <"$JOB_MARKS/two-$j.out" 2>&1)"
	kill "$TN_GATE_PID" 2>/dev/null

	prom=$(ctu "$SYS_ADMIN_CMD" -c "$login" report "$j" 2>&1)
	_tn_show "after job $j, spank-ebpf -c $login report $j, as $SYS_USER" "$prom"
	like "two nodes: report: the job, its user, COMPLETED, both nodes" "$prom" \
		"^job $j \\(user $SYS_USER\\), COMPLETED, nodes node\\[1-2\\], [0-9T:-]+ to [0-9T:-]+ \\([0-9]+ s\\), from Prometheus at http://$JM_PROM/$"
	like "two nodes: report: the whole job, two nodes with series" "$prom" '^ whole job \(2 nodes with series\):$'
	_tn_report_writes report "$prom"
	json=$(ctu "$SYS_ADMIN_CMD" -c "$login" report --json "$j" 2>&1)
	diag "two nodes: report --json $j: $json"
	is "two nodes: report --json: per node and total bytes written" "$(_tn_json_writes "$json")" \
		"prometheus COMPLETED node1=$TN_BYTES node2=$TN_BYTES total=$((2 * TN_BYTES)) []"

	# The summary: made by slurmctld's EpilogSlurmctld from both nodes'
	# series, stored in slurmdbd.
	ok_if "two nodes: EpilogSlurmctld stored job $j's summary; sacct shows it" \
		wait_until 120 "job $j's summary in sacct" _jm_summary_stored "$j"
	field=$(_jm_acct_comment "$j" ctu)
	diag "two nodes: job $j's AdminComment as sacct shows $SYS_USER (Slurm $VM_SLURM): ${#field} characters, ${field:0:40}..."
	# Its line follows its sacctmgr: waited for.
	wait_until 30 "EpilogSlurmctld's line on job $j" _tn_summary_said "$j"
	like "two nodes: EpilogSlurmctld's spank-ebpf kept both nodes in the summary" "$(_tn_summary_said "$j")" \
		"summary job $j: stored in its AdminComment: 2 of 2 nodes, [0-9]+ bytes"
	out=$(ctu "$SYS_ADMIN_CMD" -c "$login" report --summary "$j" 2>&1)
	_tn_show "report --summary $j, as $SYS_USER" "$out"
	like "two nodes: report --summary: the job, COMPLETED, both nodes, from its summary" "$out" \
		"^job $j \\(user $SYS_USER\\), COMPLETED, nodes node\\[1-2\\], .*, from its summary in Slurm's accounting \\(made at "
	_tn_report_writes "report --summary" "$out"
	is "two nodes: report --summary: the same lines as from Prometheus, after the first" \
		"$(echo "$out" | sed 1d)" "$(echo "$prom" | sed 1d)"

	# Prometheus without the job's series, as after its retention: the
	# summary, of itself.
	_jm_prom_delete "$j"
	is "two nodes: job $j's series deleted from Prometheus" "$(promql "count_over_time({jobid=\"$j\"}[1h])")" ""
	out=$(ctu "$SYS_ADMIN_CMD" -c "$login" report "$j" 2>&1)
	_tn_show "report $j, Prometheus without its series, as $SYS_USER" "$out"
	like "two nodes: report, Prometheus without the job's series: from its summary" "$out" \
		"^job $j \\(user $SYS_USER\\), COMPLETED, nodes node\\[1-2\\], .*, from its summary in Slurm's accounting \\(made at "
	_tn_report_writes "report from the summary" "$out"
	json=$(ctu "$SYS_ADMIN_CMD" -c "$login" report --json "$j" 2>&1)
	diag "two nodes: report --json $j from the summary: $json"
	is "two nodes: report --json from the summary: per node and total bytes written" "$(_tn_json_writes "$json")" \
		"summary COMPLETED node1=$TN_BYTES node2=$TN_BYTES total=$((2 * TN_BYTES)) []"
	diag "two nodes: plugin lines on node1: $(plugin_log_since "$c" | tr '\n' '|')"
}

# --- NFS between the nodes (node1) ---------------------------------------

# _tn_node2_mark NAME: node2's mark NAME (its marks directory, over the
# link) on standard output; fails while it is not there.
_tn_node2_mark() {
	curl -sf --max-time 10 "http://$TN_NET.2:$TN_MARKS_PORT/$1"
}

_tn_node2_has() {
	_tn_node2_mark "$1" >/dev/null
}

# _tn_fs_work NAME [SBATCH ARGS...]: sse-vm-fs-work NAME with --nfs on
# node2's mount of node1's export, as the test user (SYS_USER), opened
# by node1's gate NAME.gate.
_tn_fs_work() {
	local name=$1
	shift
	submit -J "$name" -w node2 --ebpf=fs -o "$JOB_MARKS/$name-%j.out" "$@" /usr/local/bin/sse-vm-fs-work \
		"$name" "$FS_COUNT" "$FS_NFS" --nfs --go "--gate=http://$TN_NET.1:8000"
}

# _tn_fs_go NAME: once node2's fs instance answers (the exporter serves
# only once its programs are attached, which under emulation can outlast
# the prolog's wait), the payload NAME makes its calls.
_tn_fs_go() {
	ok_if "two nodes: node2's fs set's instance answers before $1 makes a call" wait_until 300 \
		"node2:$FS_PORT answering" eval "SYS_STANDIN_HOST=$TN_NET.2 SYS_STANDIN_PORT=$FS_PORT metrics | grep -q '^ebpf_exporter_'" ||
		diag "two nodes: the queue: $(ct squeue -h -o '%i %j %T %R %N' 2>&1 | tr '\n' '|'); node2's marks: $(_tn_node2_mark '' 2>&1 | tr '\n' ' ' | cut -c1-300)"
	touch "$TN_GATES/$1.go"
}

# _tn_dashboard_fs JOB: the dashboard's file system panels
# (contrib/grafana/job-io.json), their queries as Grafana sends them for
# JOB ($jobid; $__rate_interval 10m, the job's calls being minutes old at
# most), answered by node1's Prometheus with JOB's NFS figures from node2.
_tn_dashboard_fs() {
	local nj=$1 title expr out panels=0
	while IFS=$'\t' read -r title expr; do
		panels=$((panels + 1))
		expr=${expr//\$jobid/$nj}
		expr=${expr//\$__rate_interval/10m}
		out=$(promql "$expr")
		diag "two nodes: dashboard panel \"$title\": $(printf '%s' "$out" | tr '\n' '|')"
		case $title in
		"File system bytes per second")
			like "two nodes: dashboard, \"$title\": job $nj's NFS writes" "$out" \
				"^fstype=nfs4 mount=$FS_NFS op=write = [0-9.e+-]*[1-9]" ;;
		"File system metadata operations per second")
			like "two nodes: dashboard, \"$title\": job $nj's NFS mount" "$out" \
				"^fstype=nfs4 mount=$FS_NFS = [0-9.e+-]*[1-9]" ;;
		"Cluster (operators): top jobs"*)
			like "two nodes: dashboard, \"$title\": job $nj and its user" "$out" \
				"^jobid=$nj user=$SYS_USER = [0-9.e+-]*[1-9]" ;;
		*) is "two nodes: dashboard, a file system panel this test knows: \"$title\"" no yes ;;
		esac
	done < <(python3 -c '
import json, sys
def walk(ps):
    for p in ps:
        yield p
        yield from walk(p.get("panels", []))
for p in walk(json.load(open(sys.argv[1]))["panels"]):
    for t in p.get("targets", []):
        if "spank_fs_" in t.get("expr", ""):
            print(p["title"] + "\t" + " ".join(t["expr"].split()))
' /usr/local/share/sse-vm/lib/job-io.json)
	is "two nodes: the dashboard's file system panels, all asked" "$panels" 3
}

# _tn_node2_section REPORT: REPORT's lines of node2 (" node node2, ..."
# to the next node's or the end).
_tn_node2_section() {
	echo "$1" | awk '/^ node / { p = index($0, " node node2, ") == 1 } p'
}

_tn_nfs_scenario() {
	local nj o out k login
	login=$(_tn_login_conf)
	ok_if "two nodes: node2 mounted node1's export $FS_EXPORT at $FS_NFS" \
		wait_until 200 "node2's mount" _tn_node2_has nfs.mounted
	is "two nodes: ... as nfs4" "$(_tn_node2_mark nfs.mounted 2>&1)" nfs4
	diag "two nodes: node1's NFS server: $(ct systemctl is-active nfs-server 2>&1), exports $(ct exportfs -v 2>&1 | tr -s ' \t\n' ' ')"
	_tn_gate_serve
	nj=$(_tn_fs_work fs-n) || { is "two nodes: sbatch -w node2 --ebpf=fs on NFS accepted" no yes; return; }
	_tn_fs_go fs-n
	ok_if "two nodes: job $nj did its calls on node2's NFS mount" wait_until 600 "job $nj's calls" _tn_node2_has fs-n.started
	_tn_node2_mark fs-n.rpcs >"$TN_GATES/fs-n.rpcs"
	out=$(SYS_STANDIN_HOST=$TN_NET.2 SYS_STANDIN_PORT=$FS_PORT metrics)
	printf '%s\n' "$out" | grep "jobid=\"$nj\"" | grep -v -e _bucket -e latency | sed 's/^/# node2: /'
	# node2's instance, as it serves them to node1 over the link.
	SYS_STANDIN_HOST=$TN_NET.2 _fs_exact "$nj" nfs4 "$FS_NFS" fs-n nfs
	SYS_STANDIN_HOST=$TN_NET.2 _fs_rpcs_vs_mountstats "$nj" "$TN_GATES/fs-n.rpcs" "$out"
	# The cluster's report from Prometheus (scraping node2:945).
	ok_if "two nodes: Prometheus holds job $nj's RPCs from node2 (instance node2:945)" \
		wait_until 60 "job $nj's RPCs in Prometheus" _jm_has \
		"sum(ebpf_exporter_spank_fs_nfs_rpcs_total{jobid=\"$nj\",instance=\"node2:945\"}) > 2000"
	_tn_dashboard_fs "$nj"
	out=$(ctu "$SYS_ADMIN_CMD" -c "$login" report --cluster "$nj" 2>&1)
	_tn_show "while job $nj runs, spank-ebpf -c $login report --cluster $nj, as $SYS_USER" "$out"
	like "two nodes: report --cluster $nj: node2's section with the fs set" "$out" "^ node node2, sets fs:\$"
	_fs_nfs_words "report --cluster $nj, node2's section" "$(_tn_node2_section "$out")"
	# Another user's job on the same mount: its calls under its ID alone.
	k=$(SYS_STANDIN_HOST=$TN_NET.2 metric_sum "$FS_PORT" ebpf_exporter_spank_fs_nfs_rpcs_total "jobid=\"$nj\"")
	o=$(SYS_USER=$JM_OTHER _tn_fs_work fs-o) ||
		{ is "two nodes: the other user's sbatch -w node2 --ebpf=fs on NFS accepted" no yes; return; }
	_tn_fs_go fs-o
	ok_if "two nodes: job $o ($JM_OTHER) did its calls on the same NFS mount" \
		wait_until 600 "job $o's calls" _tn_node2_has fs-o.started
	SYS_STANDIN_HOST=$TN_NET.2 _fs_is "$o" nfs4 "$FS_NFS" data_ops_total 'op="write"' $((FS_COUNT + 2100)) \
		"its own writes, under its own ID"
	is "two nodes: ... and job $nj's RPCs did not move meanwhile" \
		"$(SYS_STANDIN_HOST=$TN_NET.2 metric_sum "$FS_PORT" ebpf_exporter_spank_fs_nfs_rpcs_total "jobid=\"$nj\"")" "$k"
	SYS_STANDIN_HOST=$TN_NET.2 _fs_exact "$nj" nfs4 "$FS_NFS" fs-n nfs
	diag "two nodes: node2's fs set dropped: $(SYS_STANDIN_HOST=$TN_NET.2 SYS_STANDIN_PORT=$FS_PORT metrics | grep '^ebpf_exporter_spank_fs_dropped_total' | tr '\n' '|')"
	touch "$TN_GATES/fs-n.gate" "$TN_GATES/fs-o.gate"
	ok_if "two nodes: jobs $nj and $o finished, epilog included" \
		eval "wait_job_done $nj 120 && wait_job_done $o 60"
	kill "$TN_GATE_PID" 2>/dev/null
	is "two nodes: jobs $nj and $o completed" "$(job_state "$nj") $(job_state "$o")" "COMPLETED COMPLETED"
	# After its end: the summary EpilogSlurmctld stored, as report says it.
	ok_if "two nodes: EpilogSlurmctld stored job $nj's summary; sacct shows it" \
		wait_until 120 "job $nj's summary in sacct" _jm_summary_stored "$nj"
	wait_until 30 "EpilogSlurmctld's line on job $nj" _tn_summary_said "$nj"
	diag "two nodes: $(_tn_summary_said "$nj")"
	out=$(ctu "$SYS_ADMIN_CMD" -c "$login" report --summary "$nj" 2>&1)
	_tn_show "report --summary $nj, as $SYS_USER" "$out"
	like "two nodes: report --summary $nj: from its summary" "$out" \
		"^job $nj \\(user $SYS_USER\\), COMPLETED, nodes node2, .*, from its summary in Slurm's accounting \\(made at "
	_fs_nfs_words "report --summary $nj, node2's section" "$(_tn_node2_section "$out")"
}
