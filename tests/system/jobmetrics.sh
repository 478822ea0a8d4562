# Job-level metrics end to end (sourced after real.sh): the real exporter
# running the probes package's spank-io config for the io set, Debian's
# prometheus-node-exporter (textfile collector) and Prometheus, all in the
# container, Prometheus scraping both; PromQL through Prometheus' HTTP API.
#
# Slurm here tracks jobs without cgroups (proctrack/linuxproc; this kind
# of machine's controllers are on cgroup v1), so THE TEST MAKES each job's
# cgroup v2 directory in Slurm's layout
# (system.slice/slurmstepd.scope/job_<id>/step_batch/user/task_0, under the
# container's cgroup2 mount) and moves the job's payload into it, as
# slurmstepd would; the kernel then attributes the job's I/O to it. The
# points say so ("cgroup made by the test").

JM_TEXTFILE=/var/lib/prometheus/node-exporter
# Prometheus on a privileged port: prometheus= on this host at a port any
# user may bind is refused (SECURITY.md); its unit gets the capability.
JM_PROM=127.0.0.1:909
JM_NODE=127.0.0.1:19100
JM_IO=127.0.0.1:941
JM_OTHER=sse-other

# The container's cgroup2 hierarchy: /sys/fs/cgroup/unified (hybrid) or
# /sys/fs/cgroup.
_jm_cgroup2() {
	if ct test -e /sys/fs/cgroup/unified/cgroup.procs; then
		echo /sys/fs/cgroup/unified
	else
		echo /sys/fs/cgroup
	fi
}

# jm_place JOB NAME: job JOB's payload NAME (its PID in NAME.pid, see
# files/work-payload) moved into a job cgroup made by the test.
jm_place() {
	local job=$1 name=$2 pid d
	pid=$(cat "$NODE_ROOT$JOB_MARKS/$name.pid" 2>/dev/null)
	d=$(_jm_cgroup2)/system.slice/slurmstepd.scope/job_$job/step_batch/user/task_0
	ct mkdir -p "$d" && ct sh -c 'echo "$1" >"$2/cgroup.procs"' sh "$pid" "$d"
}

# jm_cgroup_of NAME: the payload's cgroup v2 path (its 0:: line).
jm_cgroup_of() {
	ct sh -c 'sed -n "s/^0:://p" "/proc/$1/cgroup"' sh "$(cat "$NODE_ROOT$JOB_MARKS/$1.pid" 2>/dev/null)"
}

# The job cgroups the test made, gone (their jobs have ended).
jm_unplace() {
	ct sh -c 'd=$1/system.slice/slurmstepd.scope; [ -d "$d" ] || exit 0
		find "$d" -depth -type d -exec rmdir {} \;' sh "$(_jm_cgroup2)"
}

# promql QUERY: Prometheus' answer to an instant query, one line per
# series, "label=value ... = VALUE", labels sorted, without __name__,
# instance and job; "error: ..." when the API says so.
promql() {
	ct python3 - "$JM_PROM" "$1" <<'EOF'
import json, sys, urllib.parse, urllib.request
url = "http://%s/api/v1/query?%s" % (sys.argv[1], urllib.parse.urlencode({"query": sys.argv[2]}))
try:
    r = json.load(urllib.request.urlopen(url, timeout=10))
except Exception as e:
    print("error: %s" % e)
    sys.exit(0)
if r.get("status") != "success":
    print("error: %s" % r.get("error"))
    sys.exit(0)
lines = []
for s in r["data"]["result"]:
    m = {k: v for k, v in s["metric"].items() if k not in ("__name__", "instance", "job")}
    lines.append(" ".join("%s=%s" % kv for kv in sorted(m.items())) + " = " + s["value"][1])
print("\n".join(sorted(lines)))
EOF
}

# _jm_has QUERY: Prometheus answers QUERY with at least one series.
_jm_has() {
	local out
	out=$(promql "$1")
	[ -n "$out" ] && [ "${out#error:}" = "$out" ]
}

_jm_empty() {
	[ -z "$(promql "$1")" ]
}

# Prometheus has scraped both targets successfully (up == 1 for each).
_jm_targets_up() {
	[ "$(promql 'up == 1' | wc -l)" -eq 2 ]
}

_jm_ready() {
	[ "$(promql 'vector(1)')" = " = 1" ]
}

# jm_monitoring_conf NODE_ADDR PROM_ADDR IO_TARGETS NODE_TARGETS: Debian's
# two services' files: node_exporter with only its textfile collector
# (JM_TEXTFILE) on NODE_ADDR, Prometheus on PROM_ADDR with its admin API
# (scn_jm_summary and tests/vm/two-nodes.sh delete a job's series, as a
# site's retention would) scraping the io sets at IO_TARGETS and the
# node_exporters at NODE_TARGETS (YAML list items: 'a:1', 'b:1') every
# second, and its storage directory.
jm_monitoring_conf() {
	echo "ARGS=\"--web.listen-address=$1 --collector.disable-defaults --collector.textfile --collector.textfile.directory=$JM_TEXTFILE\"" \
		>"$NODE_ROOT/etc/default/prometheus-node-exporter"
	echo "ARGS=\"--web.listen-address=$2 --web.enable-admin-api\"" >"$NODE_ROOT/etc/default/prometheus"
	cat >"$NODE_ROOT/etc/prometheus/prometheus.yml" <<EOT
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: spank-ebpf-io
    static_configs:
      - targets: [$3]
    relabel_configs: &node_name
      # A target on loopback (the container's node) is labelled with the
      # node's Slurm name, as a site scrapes its nodes by name: reports
      # keep only the series of the job's nodes.
      - source_labels: [__address__]
        regex: '127\.0\.0\.1:(.*)'
        target_label: instance
        replacement: '${SYS_MACHINE:-localhost}:\$1'
  - job_name: node
    static_configs:
      - targets: [$4]
    relabel_configs: *node_name
EOT
	ct install -d -o prometheus -g prometheus /var/lib/prometheus/metrics2
	mkdir -p "$NODE_ROOT/etc/systemd/system/prometheus.service.d"
	# Debian's unit empties the bounding set and runs in its own user
	# namespace (PrivateUsers=), where no capability reaches the host's
	# ports: both undone for this one capability.
	printf '[Service]\nCapabilityBoundingSet=CAP_NET_BIND_SERVICE\nAmbientCapabilities=CAP_NET_BIND_SERVICE\nPrivateUsers=false\n' \
		>"$NODE_ROOT/etc/systemd/system/prometheus.service.d/spank-ebpf-port.conf"
	ct systemctl daemon-reload
}

# Debian's two services (installed, disabled, in the root filesystem),
# configured as an admin would in /etc/default and /etc/prometheus, and
# started: node_exporter with only its textfile collector, on the
# directory the sets file names; Prometheus scraping it and the io set's
# exporter every second, its storage where Debian's unit puts it (the
# package leaves the directory to be made: without it Prometheus exits
# at once, "Unable to create mmap-ed active query log").
jm_monitoring_start() {
	jm_monitoring_conf "$JM_NODE" "$JM_PROM" "'$JM_IO'" "'$JM_NODE'"
	ok_if "job metrics: node_exporter's textfile directory $JM_TEXTFILE is there (prometheus-node-exporter ships it)" \
		ct test -d "$JM_TEXTFILE"
	ct systemctl start prometheus-node-exporter.service prometheus.service
	ok_if "job metrics: Prometheus answers queries over its HTTP API" \
		wait_until 90 "Prometheus answering queries" _jm_ready
}

jm_monitoring_stop() {
	ct systemctl stop prometheus.service prometheus-node-exporter.service
}

# _jm_connect: as the calling user (ct or ctu before it), "open" or the
# error connecting to the io set's port gives.
_jm_connect() {
	"$@" bash -c "exec 3<>/dev/tcp/${JM_IO%:*}/${JM_IO#*:} && echo open" 2>&1 |
		grep -o 'open$\|Connection refused\|Connection timed out' | head -n 1
}

# _jm_scraped_since T: Prometheus' last scrape of the io set's exporter
# began after unix time T and succeeded.
_jm_scraped_since() {
	_jm_has "up{job=\"spank-ebpf-io\"} == 1 and timestamp(up{job=\"spank-ebpf-io\"}) > $1"
}

# The firewall docs/OPERATING.md ("Who can read it") gives, applied as
# printed there: another user on the node cannot connect to the sets'
# ports, root and Prometheus (user prometheus) still can; then removed.
# Behind it, job JOB's user still gets its figures from spank-ebpf
# report, through report's socket (root's service), and the other user
# still not.
jm_firewall() {
	local job=$1 t out
	sed -n '/^table inet spank_ebpf {$/,/^}$/p' "$SYS_TOP/docs/OPERATING.md" >"$NODE_ROOT/var/tmp/spank-ebpf.nft"
	ok_if "job metrics: docs/OPERATING.md's nftables table loads (nft -f)" ct nft -f /var/tmp/spank-ebpf.nft
	is "job metrics: firewall: user $JM_OTHER cannot connect to the io set's port" \
		"$(SYS_USER=$JM_OTHER _jm_connect ctu)" "Connection refused"
	is "job metrics: firewall: root can" "$(_jm_connect ct)" open
	t=$(date +%s)
	ok_if "job metrics: firewall: Prometheus (user prometheus) still scrapes it" \
		wait_until 30 "a scrape after the firewall" _jm_scraped_since "$t"
	is "job metrics: report's socket is active (the compute package started it)" \
		"$(ct systemctl is-active spank-ebpf-report.socket 2>&1)" active
	out=$(ctu "$SYS_ADMIN_CMD" report "$job" 2>&1)
	like "job metrics: firewall: user $SYS_USER's spank-ebpf report $job, through report's socket: its writes" "$out" \
		'I/O write  [1-9][0-9]* requests'
	out=$(SYS_USER=$JM_OTHER ctu "$SYS_ADMIN_CMD" report "$job" 2>&1)
	is "job metrics: firewall: user $JM_OTHER's spank-ebpf report $job: not theirs, as if it were not there" \
		"$out" "spank-ebpf: report: job $job holds no probe set on this node (or is not yours)"
	like "job metrics: report's service logged who asked" \
		"$(ct journalctl --no-pager -q -u 'spank-ebpf-report@*' 2>&1)" "job $job for $JM_OTHER \\(uid [0-9]+\\): exit 1"
	ct nft delete table inet spank_ebpf
}

# _jm_listening PORT: a TCP socket listens on PORT (state 0A) on the node.
_jm_listening() {
	ct cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk -v p="$(printf ':%04X' "$1")" \
		'$4 == "0A" && substr($2, length($2) - 4) == p { f = 1 } END { exit !f }'
}

# The io set's address is a privileged port: user $JM_OTHER cannot bind
# it. Root's listener on it (a mistake, not an attack) makes the next
# --ebpf=io job's instance fail: the job still completes, the plugin's
# log has the exporter's taken-by line (with the holder, found by the
# unit's root ExecStartPre), status names the holder; then cleaned up.
jm_taken() {
	local c j sq out host=${JM_IO%:*} port=${JM_IO#*:}
	out=$(SYS_USER=$JM_OTHER ctu python3 -c 'import socket, sys; socket.socket().bind((sys.argv[1], int(sys.argv[2])))' \
		"$host" "$port" 2>&1)
	like "job metrics: user $JM_OTHER cannot bind the io set's address $JM_IO" "$out" 'PermissionError'
	ct systemd-run --quiet --unit=sse-squatter python3 -c 'import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2]))); s.listen(1); time.sleep(600)' "$host" "$port"
	ok_if "job metrics: root's python3 listens on $JM_IO" \
		wait_until 20 "a listener on $JM_IO" _jm_listening "$port"
	sq=$(unit_main_pid sse-squatter.service)
	c=$(journal_mark)
	j=$(submit_work jm-taken --ebpf=io) || { is "job metrics: sbatch --ebpf=io accepted" no yes; return; }
	wait_started jm-taken
	out=$(ct "$SYS_ADMIN_CMD" status 2>&1)
	like "job metrics: status names who holds the io set's address" "$out" \
		"^anomaly: set io: its address ${host//./\\.}:$port is held by uid 0 \\(root\\), pid $sq \\(python3\\), not by spank-ebpf-exporter@io\\.service\$"
	release jm-taken
	wait_job_done "$j"
	is "job metrics: the job whose set could not start still COMPLETED" "$(job_state "$j")" COMPLETED
	wait_logged "$c" "spank-ebpf-exporter@io said: "
	like "job metrics: the plugin logged the exporter's taken-by line" "$(plugin_log_since "$c")" \
		"spank-ebpf-exporter@io said: spank-ebpf: exporter: set io: cannot listen on ${host//./\\.}:$port: it is taken by uid 0 \\(root\\), pid $sq \\(python3\\)"
	ct systemctl stop sse-squatter.service
	ct systemctl reset-failed spank-ebpf-exporter@io.service sse-squatter.service 2>/dev/null
	is "job metrics: cleaned up: the io instance and the listener gone" \
		"$(settled_unit_state spank-ebpf-exporter@io.service) $(_jm_listening "$port" && echo listening)" "inactive "
}

# The issue's scenario: a job of the test user asking --ebpf=io does
# direct I/O beside a job of another user that did not ask (and does the
# same I/O), and a third job (the test user's, --ebpf=io, no I/O) keeps
# the io instance running after the first ends. Prometheus gets the first
# job's latency histogram under its job ID, and nothing of the other's;
# the join key gives its user; after the first job, its series go stale
# while the instance still runs.
scn_job_metrics() {
	local c a b k q out pa
	_real_have || return 0
	real_setup
	_real_sets_file "$JM_TEXTFILE" >"$NODE_ROOT$SYS_SETS_FILE"
	chmod 0644 "$NODE_ROOT$SYS_SETS_FILE"
	plugin_args mode=opt-in "sets=$SYS_SETS_FILE"
	sys_restart_slurmd || bail "slurmd did not restart with sets="
	ct id "$JM_OTHER" >/dev/null 2>&1 || ct useradd -m -s /bin/sh "$JM_OTHER"
	jm_monitoring_start
	diag "job metrics: $(ct prometheus --version 2>&1 | head -n 1); $(ct prometheus-node-exporter --version 2>&1 | head -n 1)"
	c=$(journal_mark)
	k=$(submit_payload jm-keep --ebpf=io) || { is "job metrics: sbatch --ebpf=io accepted" no yes; return; }
	wait_started jm-keep
	a=$(submit_work jm-a --ebpf=io) || { is "job metrics: sbatch --ebpf=io accepted" no yes; return; }
	b=$(SYS_USER=$JM_OTHER submit_work jm-b) || { is "job metrics: the other user's sbatch accepted" no yes; return; }
	wait_started jm-a
	wait_started jm-b
	ok_if "job metrics: job $a's payload moved into job_$a (cgroup made by the test, Slurm's layout)" jm_place "$a" jm-a
	ok_if "job metrics: job $b's payload (user $JM_OTHER, no --ebpf) moved into job_$b (cgroup made by the test)" \
		jm_place "$b" jm-b
	diag "job metrics: cgroups: $a in $(jm_cgroup_of jm-a); $b in $(jm_cgroup_of jm-b)"
	ok_if "job metrics: Prometheus scrapes the io set's exporter and node_exporter (up == 1 for both)" \
		wait_until 60 "both targets up" _jm_targets_up

	q="ebpf_exporter_spank_io_latency_seconds_count{jobid=\"$a\",operation=\"write\"}"
	ok_if "job metrics: PromQL $q: job $a's direct writes counted" \
		wait_until 60 "job $a's write latency in Prometheus" _jm_has "$q > 0"
	out=$(promql "sum by (jobid, le) (ebpf_exporter_spank_io_latency_seconds_bucket{jobid=\"$a\"})")
	like "job metrics: job $a's latency histogram, by bucket, under its job ID" "$out" "^jobid=$a le=\+Inf = [1-9]"
	ok_if "job metrics: ... with more than one bucket" test "$(echo "$out" | grep -c .)" -gt 1
	is "job metrics: the probe series' job IDs: job $a's only (not $b's, of another user, nor the idle keeper $k's)" \
		"$(promql 'count by (jobid) (ebpf_exporter_spank_io_latency_seconds_count)' | sed 's/ = .*//')" "jobid=$a"
	is "job metrics: nothing at all for job $b" \
		"$(promql "{jobid=\"$b\"}")" ""
	is "job metrics: the join key from node_exporter's textfile collector names the user" \
		"$(promql "max by (jobid, user) (ebpf_exporter_spank_io_latency_seconds_count{jobid=\"$a\"} * on (jobid) group_left (user) spank_ebpf_job_info)" |
			sed 's/ = .*//' | sort -u)" "jobid=$a user=$SYS_USER"
	is "job metrics: spank_ebpf_job_info lists the two jobs that asked" \
		"$(promql 'spank_ebpf_job_info' | sed -n 's/.*jobid=\([0-9]*\) .*/\1/p' | sort -n | tr '\n' ' ')" \
		"$(printf '%s\n' "$k" "$a" | sort -n | tr '\n' ' ')"
	is "job metrics: the plugin's textfile lists the two jobs that asked" \
		"$(sed -n 's/^spank_ebpf_job_info{jobid="\([0-9]*\)".*/\1/p' "$NODE_ROOT$JM_TEXTFILE/spank_ebpf_jobs.prom" 2>&1 | sort -n | tr '\n' ' ')" \
		"$(printf '%s\n' "$k" "$a" | sort -n | tr '\n' ' ')"
	# As private as Slurm's job list: another user reads none of it
	# (node_exporter, user prometheus, read the textfile above).
	for f in "$JM_TEXTFILE/spank_ebpf_jobs.prom" "$STATE" "$STATE.jobs" "$STATE.units"; do
		is "job metrics: user $JM_OTHER cannot read $f" \
			"$(ct test -s "$f" && echo there) $(SYS_USER=$JM_OTHER ctu cat "$f" >/dev/null 2>&1 && echo readable || echo refused)" \
			"there refused"
	done
	diag "job metrics: textfile directory: $(ct ls -la "$JM_TEXTFILE" 2>&1 | tr '\n' '|'); job records: $(ct sh -c 'cat "$1".jobs' sh "$STATE" 2>&1 | tr '\n' '|'); sets file: $(ct grep textfile "$SYS_SETS_FILE" 2>&1)"
	out=$(ct "$SYS_ADMIN_CMD" report "$a" 2>&1)
	diag "job metrics: spank-ebpf report $a: $(echo "$out" | tr '\n' '|')"
	like "job metrics: spank-ebpf report $a (root): its write requests and latency" "$out" \
		'I/O write  [1-9][0-9]* requests, [1-9][0-9]* bytes, latency p50 [0-9.]* s, p99 [0-9.]* s'
	out=$(SYS_USER=$JM_OTHER ctu "$SYS_ADMIN_CMD" report "$a" 2>&1)
	unlike "job metrics: spank-ebpf report $a as $JM_OTHER: no figures of another user's job" "$out" 'requests'

	# Observed for part of the run: the node's textfile gives Prometheus
	# when job $a joined its sets and when io's exporter became ready
	# (admit, the unit's ExecStartPost); io ran before (job $k held it),
	# so job $a is whole. Restarted under it, io counts it anew: the
	# node's report (systemd's ActiveEnterTimestamp) says so.
	ok_if "job metrics: Prometheus has job $a's start on the node and io's ready time" \
		wait_until 60 "the start and ready series" _jm_has \
		"spank_ebpf_job_start_time_seconds{jobid=\"$a\"} >= on (instance) spank_ebpf_set_ready_time_seconds{set=\"io\"}"
	out=$(ct "$SYS_ADMIN_CMD" report "$a" 2>&1)
	unlike "job metrics: ... io ready before job $a joined: its report says nothing of a part" "$out" 'observed   in part'
	sleep 2
	ct systemctl restart spank-ebpf-exporter@io.service
	out=$(ct "$SYS_ADMIN_CMD" report "$a" 2>&1)
	like "job metrics: io restarted under job $a: its report says it is observed only from then" "$out" \
		"^  observed   in part only: set io's exporter became ready [1-9][0-9]* s after the job's start \\(a late start or a restart\\)"
	ok_if "job metrics: ... and Prometheus gets io's new ready time, after job $a's start" \
		wait_until 60 "io's ready time after the job's start" _jm_has \
		"spank_ebpf_set_ready_time_seconds{set=\"io\"} > on (instance) spank_ebpf_job_start_time_seconds{jobid=\"$a\"}"
	q="ebpf_exporter_spank_io_latency_seconds_count{jobid=\"$a\",operation=\"write\"}"
	ok_if "job metrics: ... job $a counted again by the restarted io" \
		wait_until 60 "job $a's writes counted after the restart" _jm_has "$q > 0"

	jm_firewall "$a"
	pa=$(unit_main_pid spank-ebpf-exporter@io.service)
	release jm-a
	wait_job_done "$a"
	q="ebpf_exporter_spank_io_latency_seconds_count{jobid=\"$a\"}"
	ok_if "job metrics: after job $a: its series go stale in Prometheus" \
		wait_until 60 "job $a's series stale" _jm_empty "$q"
	ok_if "job metrics: ... and its spank_ebpf_job_info" \
		wait_until 60 "job $a's job_info gone" _jm_empty "spank_ebpf_job_info{jobid=\"$a\"}"
	is "job metrics: ... while the io instance runs on for job $k (same process)" \
		"$(settled_unit_state spank-ebpf-exporter@io.service) $(unit_main_pid spank-ebpf-exporter@io.service)" \
		"active $pa"
	jm_report_ended "$a"
	release jm-b
	release jm-keep
	wait_job_done "$b"
	wait_job_done "$k"
	is "job metrics: the three jobs completed" "$(job_state "$k") $(job_state "$a") $(job_state "$b")" \
		"COMPLETED COMPLETED COMPLETED"
	is "job metrics: the io instance stopped after the last job" \
		"$(settled_unit_state spank-ebpf-exporter@io.service)" inactive
	is "job metrics: the textfile lists no job" \
		"$(cat "$NODE_ROOT$JM_TEXTFILE/spank_ebpf_jobs.prom" 2>/dev/null | grep -c '^spank_ebpf_job_info{')" 0
	diag "job metrics: plugin lines: $(plugin_log_since "$c" | tr '\n' '|')"
	jm_taken
	jm_unplace
	jm_monitoring_stop
	plugin_args mode=opt-in
	sys_restart_slurmd || bail "slurmd did not restart without sets="
	rm -f "$NODE_ROOT$SYS_SETS_FILE"
	real_teardown
}

# jm_report_ended JOB: after JOB's end, with its series stale, its report
# from Prometheus as a login node gives it: the plugin's line with
# prometheus= and no sets= (report --cluster by default there), run as
# the job's user (Slurm answers them: squeue, no accounting here). Its
# figures must be Prometheus' own: the job's writes, summed over its run.
jm_report_ended() {
	local a=$1 out want
	printf 'optional %s prometheus=http://%s/\n' "$(plugin_line | awk '{print $2}')" "$JM_PROM" \
		>"$NODE_ROOT/etc/slurm/login-plugstack.conf"
	chmod 0644 "$NODE_ROOT/etc/slurm/login-plugstack.conf"
	out=$(ctu "$SYS_ADMIN_CMD" -c /etc/slurm/login-plugstack.conf report "$a" 2>&1)
	diag "job metrics: report $a from Prometheus, as $SYS_USER: $(echo "$out" | tr '\n' '|')"
	like "job metrics: report $a after its end, from Prometheus (a login node's line), as its user: Slurm's word on the job" \
		"$out" "^job $a \\(user $SYS_USER\\), COMPLETED, nodes [^ ]+, [0-9T:-]+ to [0-9T:-]+ \\([0-9]+ s\\), from Prometheus at http://$JM_PROM/$"
	want=$(promql "sum(max_over_time(ebpf_exporter_spank_io_bytes_total{jobid=\"$a\",operation=\"write\"}[10m]))" | sed 's/.*= //')
	like "job metrics: ... the whole job first, on the one node with its series" "$out" '^ whole job \(1 node with series\):$'
	like "job metrics: ... its writes, as many bytes as Prometheus holds for it over its run ($want)" \
		"$out" "^  I/O write  [1-9][0-9]* requests, ${want:-none} bytes, latency p50 [0-9.]+ s, p99 [0-9.]+ s$"
	like "job metrics: ... and the node's, with the sets it ran with" "$out" "^ node $SYS_MACHINE, sets io:$"
	out=$(ctu "$SYS_ADMIN_CMD" -c /etc/slurm/login-plugstack.conf report --json "$a" 2>&1)
	is "job metrics: report --json $a from Prometheus: the same bytes, one node" \
		"$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["state"], d["total"]["io"]["write"]["bytes"], len(d["per_node"]), d["errors"])' 2>&1)" \
		"COMPLETED ${want:-none} 1 []"
	# Another user sees what Slurm shows them: with PrivateData=jobs,
	# nothing of this job, and Prometheus is not asked for it.
	out=$(SYS_USER=$JM_OTHER ctu "$SYS_ADMIN_CMD" -c /etc/slurm/login-plugstack.conf report "$a" 2>&1)
	like "job metrics: report $a as $JM_OTHER without PrivateData: Slurm shows them the job, so its figures" \
		"$out" "^job $a \\(user $SYS_USER\\), COMPLETED"
	echo "PrivateData=jobs" >>"$NODE_ROOT/etc/slurm/slurm.conf"
	ct scontrol reconfigure >/dev/null 2>&1
	out=$(SYS_USER=$JM_OTHER ctu "$SYS_ADMIN_CMD" -c /etc/slurm/login-plugstack.conf report "$a" 2>&1)
	is "job metrics: with PrivateData=jobs, report $a as $JM_OTHER: the same words as for no job" \
		"$out" "spank-ebpf: report: Slurm knows no job $a (or not one you may see)"
	out=$(ctu "$SYS_ADMIN_CMD" -c /etc/slurm/login-plugstack.conf report "$a" 2>&1)
	like "job metrics: ... while its own user still gets it" "$out" "^job $a \\(user $SYS_USER\\), COMPLETED"
	sed -i '/^PrivateData=jobs$/d' "$NODE_ROOT/etc/slurm/slurm.conf"
	ct scontrol reconfigure >/dev/null 2>&1
	rm -f "$NODE_ROOT/etc/slurm/login-plugstack.conf"
}

# _jm_acct_comment JOB RUN: JOB's AdminComment as sacct shows it, run by
# RUN (ct: root, ctu: the test user).
_jm_acct_comment() {
	"$2" timeout 20 sacct -X -n -P -j "$1" -o AdminComment 2>&1
}

_jm_summary_stored() {
	case $(_jm_acct_comment "$1" ct) in SE1:* | se1:*) return 0 ;; esac
	return 1
}

# _jm_prom_delete JOB: every series of JOB deleted from Prometheus' store
# (its admin API), as its retention would drop them.
_jm_prom_delete() {
	ct python3 - "$JM_PROM" "$1" <<'PYEOF'
import sys, urllib.parse, urllib.request
base, job = "http://%s/api/v1/admin/tsdb/" % sys.argv[1], sys.argv[2]
q = urllib.parse.urlencode({"match[]": '{jobid="%s"}' % job})
for path in ("delete_series?" + q, "clean_tombstones"):
    urllib.request.urlopen(urllib.request.Request(base + path, method="POST"), timeout=30).read()
PYEOF
}

# _jm_sacctmgr_keeps_case: this Slurm's sacctmgr stores AdminComment as
# given (23.02 and later; 22.05 lowercases it).
_jm_sacctmgr_keeps_case() {
	dpkg --compare-versions "$SLURM_VERSION" ge 23.02
}

# The job summary in Slurm's accounting (issue 33): slurmdbd on MariaDB,
# EpilogSlurmctld=spank-ebpf, the plugin's line with prometheus=. A job
# of the test user asks --ebpf=io and does its direct writes; an admin's
# text and jobstats' token are in its AdminComment before its end; a job
# of another user did not ask. After the end the field holds the summary
# first and the rest as it was (as this Slurm's sacctmgr stores it); the
# user's report from a login node's line gives the writes from
# Prometheus, then, the job's series deleted there, from the summary,
# the same bytes; with slurmdbd's PrivateData=jobs another user gets
# nothing of it.
scn_jm_summary() {
	local a b out want js1 field prom login=/etc/slurm/login-plugstack.conf
	_real_have || return 0
	real_setup
	_real_sets_file "$JM_TEXTFILE" >"$NODE_ROOT$SYS_SETS_FILE"
	chmod 0644 "$NODE_ROOT$SYS_SETS_FILE"
	ct id "$JM_OTHER" >/dev/null 2>&1 || ct useradd -m -s /bin/sh "$JM_OTHER"
	dbd_start "$SYS_USER" "$JM_OTHER"
	# dbd_stop restores slurm.conf as dbd_start found it: these lines too.
	# PrivateData=jobs (slurmctld's, for squeue) from the start: a
	# reconfigure later would, from 24.11, re-exec slurmctld, which sends
	# the ended job's record again, with its own AdminComment, over the
	# summary (seen on trixie).
	printf 'EpilogSlurmctld=%s\nPrivateData=jobs\n' "$SYS_ADMIN_CMD" >>"$NODE_ROOT/etc/slurm/slurm.conf"
	plugin_args mode=opt-in "sets=$SYS_SETS_FILE" "prometheus=http://$JM_PROM/"
	sys_cluster_start || bail "the cluster did not restart with EpilogSlurmctld="
	jm_monitoring_start
	a=$(submit_work jm-sum --ebpf=io) || { is "summary: sbatch --ebpf=io accepted" no yes; return; }
	b=$(SYS_USER=$JM_OTHER submit_work jm-sum-b) || { is "summary: the other user's sbatch accepted" no yes; return; }
	wait_started jm-sum
	wait_started jm-sum-b
	ok_if "summary: job $a's payload moved into job_$a" jm_place "$a" jm-sum
	ok_if "summary: Prometheus has job $a's writes" \
		wait_until 60 "job $a's writes in Prometheus" _jm_has "ebpf_exporter_spank_io_bytes_total{jobid=\"$a\",operation=\"write\"} > 0"
	js1=$(python3 -c 'import base64,gzip,json; print("JS1:" + base64.b64encode(gzip.compress(json.dumps({"nodes": {"n1": {"cpus": 1}}}).encode())).decode())')
	ok_if "summary: root sets job $a's AdminComment while it runs: an admin's text, jobstats' token" \
		ct scontrol update "JobId=$a" "AdminComment=Reviewed by the admins $js1"
	release jm-sum
	release jm-sum-b
	wait_job_done "$a"
	wait_job_done "$b"
	want=$(promql "sum(max_over_time(ebpf_exporter_spank_io_bytes_total{jobid=\"$a\",operation=\"write\"}[10m]))" | sed 's/.*= //')
	ok_if "summary: EpilogSlurmctld stored job $a's summary; sacct shows it" \
		wait_until 120 "job $a's summary in sacct" _jm_summary_stored "$a"
	field=$(_jm_acct_comment "$a" ctu)
	diag "summary: job $a's AdminComment as sacct shows $SYS_USER (Slurm $SLURM_VERSION): $field"
	if _jm_sacctmgr_keeps_case; then
		like "summary: the token first, the admins' text and jobstats' token after it, as they were" \
			"$field" "^SE1:[a-z2-7]+ Reviewed by the admins ${js1//+/\\+}\$"
		is "summary: jobstats still reads its token" \
			"$(printf '%s' "$field" | python3 -c 'import base64,gzip,sys; s=sys.stdin.read(); print(gzip.decompress(base64.b64decode(s[s.find("JS1:")+4:])).decode())' 2>&1)" \
			'{"nodes": {"n1": {"cpus": 1}}}'
	else
		# Slurm 22.05's sacctmgr lowercases the field it stores: the words
		# stay, in lower case, and the token reads in either case.
		js1=$(printf '%s' "$js1" | tr A-Z a-z)
		like "summary: the token first, the admins' text and jobstats' token after it (lowercased by Slurm $SLURM_VERSION's sacctmgr)" \
			"$field" "^se1:[a-z2-7]+ reviewed by the admins ${js1//+/\\+}\$"
	fi
	is "summary: job $b, which did not ask for --ebpf, has none" "$(_jm_acct_comment "$b" ct)" ""
	like "summary: slurmctld ran it as EpilogSlurmctld, which said so" \
		"$(ct journalctl -b --no-pager -o cat 2>/dev/null | grep "summary job $a:")" \
		"spank_ebpf: summary job $a: stored in its AdminComment: 1 of 1 nodes, [0-9]+ bytes"
	unlike "summary: ... once Prometheus had scraped the job's series after its end (asked without an error, not made before)" \
		"$(ct journalctl -b --no-pager -o cat 2>/dev/null | grep "summary job $a:")" "last scrape"
	printf 'optional %s prometheus=http://%s/\n' "$(plugin_line | awk '{print $2}')" "$JM_PROM" >"$NODE_ROOT$login"
	chmod 0644 "$NODE_ROOT$login"
	prom=$(ctu "$SYS_ADMIN_CMD" -c "$login" report "$a" 2>&1)
	diag "summary: report $a from Prometheus: $(echo "$prom" | tr '\n' '|')"
	like "summary: report $a from Prometheus (sacct now, as $SYS_USER): its writes, $want bytes" "$prom" \
		"^  I/O write  [1-9][0-9]* requests, ${want:-none} bytes, "
	out=$(ctu "$SYS_ADMIN_CMD" -c "$login" report --summary "$a" 2>&1)
	diag "summary: report --summary $a: $(echo "$out" | tr '\n' '|')"
	like "summary: report --summary $a: from the summary" "$out" \
		"^job $a \\(user $SYS_USER\\), COMPLETED, .*, from its summary in Slurm's accounting \\(made at "
	is "summary: ... the same figures as from Prometheus" "$(echo "$out" | sed 1d)" "$(echo "$prom" | sed 1d)"
	_jm_prom_delete "$a"
	is "summary: job $a's series deleted from Prometheus" "$(promql "count_over_time({jobid=\"$a\"}[1h])")" ""
	out=$(ctu "$SYS_ADMIN_CMD" -c "$login" report "$a" 2>&1)
	diag "summary: report $a after its series were deleted: $(echo "$out" | tr '\n' '|')"
	like "summary: report $a, Prometheus without its series: from the summary" "$out" \
		"^job $a .*from its summary in Slurm's accounting"
	like "summary: ... its writes, the same $want bytes" "$out" "^  I/O write  [1-9][0-9]* requests, ${want:-none} bytes, "
	# PrivateData=jobs where sacct reads it: slurmdbd's (slurmctld's is
	# on since the start).
	dbd_private_data jobs
	out=$(SYS_USER=$JM_OTHER ctu "$SYS_ADMIN_CMD" -c "$login" report --summary "$a" 2>&1)
	is "summary: with PrivateData=jobs, $JM_OTHER's report --summary $a: the words of no job" "$out" \
		"spank-ebpf: report: Slurm knows no job $a (or not one you may see)"
	is "summary: ... and sacct shows $JM_OTHER no AdminComment of it" "$(SYS_USER=$JM_OTHER _jm_acct_comment "$a" ctu)" ""
	like "summary: ... while its user still gets it" \
		"$(ctu "$SYS_ADMIN_CMD" -c "$login" report --summary "$a" 2>&1)" "^job $a \\(user $SYS_USER\\)"
	dbd_private_data
	rm -f "$NODE_ROOT$login"
	jm_monitoring_stop
	# dbd_stop restarts the cluster: with the plugin's line as before too
	# (one restart fewer: systemd's start limit counts them).
	plugin_args mode=opt-in
	rm -f "$NODE_ROOT$SYS_SETS_FILE"
	dbd_stop
	real_teardown
}

# _jm_filter_jobs PID: the job IDs in the spank_jobs maps PID holds (the
# exporter's own: maps are kernel-global, another container's have the
# same names), sorted, space-separated.
_jm_filter_jobs() {
	ct python3 - "$1" <<'PYEOF'
import json, os, subprocess, sys
pid, jobs = sys.argv[1], set()
for fd in os.listdir("/proc/%s/fd" % pid):
    if os.readlink("/proc/%s/fd/%s" % (pid, fd)) != "anon_inode:bpf-map":
        continue
    info = dict(l.split(":", 1) for l in open("/proc/%s/fdinfo/%s" % (pid, fd)) if ":" in l)
    mid = info.get("map_id", "").strip()
    show = json.loads(subprocess.run(["bpftool", "-j", "map", "show", "id", mid], capture_output=True, text=True).stdout or "{}")
    if show.get("name") != "spank_jobs":
        continue
    for e in json.loads(subprocess.run(["bpftool", "-j", "map", "dump", "id", mid], capture_output=True, text=True).stdout or "[]"):
        v = e.get("value", [])
        if isinstance(v, list):
            jobs.add(int.from_bytes(bytes(int(x, 16) for x in v[:4]), "little"))
print(" ".join(str(j) for j in sorted(jobs)))
PYEOF
}

# One user's job array cannot crowd the others out of the probes: the
# io set runs spank-io built for 4 jobs (as `make probes-tiny` builds it,
# compiled here alone, given through the sets file's config_dir). Another user's job starts the
# instance; then the test user's array of 3 asks --ebpf=io: two of its
# jobs are admitted to the filter (half of 4), the third is held but not
# observed, said and counted (spank_ebpf_jobs_not_observed_total{reason=
# "user_share"}); the other user's job stays in the filter.
JM_TINY_DIR=/var/lib/spank-ebpf-tiny
scn_jm_user_share() {
	local c o arr pe fj inf ma top=${srcdir:-.}
	_real_have || return 0
	command -v clang >/dev/null || { skip_point "user share: no clang to build the 4-job spank-io"; return 0; }
	mkdir -p "$NODE_ROOT$JM_TINY_DIR"
	ma=$(gcc -print-multiarch 2>/dev/null)
	clang -target bpf -O2 -g -Wall -D__TARGET_ARCH_x86 ${ma:+-idirafter /usr/include/$ma} -I"$top/probes" \
		-DSPANK_JOBS_MAX=4 -c "$top/probes/spank-io.bpf.c" -o "$NODE_ROOT$JM_TINY_DIR/spank-io.bpf.o" ||
		{ is "user share: spank-io built for 4 jobs" failed built; return; }
	install -m 0644 "$top/probes/spank-io.yaml" "$NODE_ROOT$JM_TINY_DIR/"
	real_setup
	{ echo "config_dir = $JM_TINY_DIR"; _real_sets_file; } >"$NODE_ROOT$SYS_SETS_FILE"
	chmod 0644 "$NODE_ROOT$SYS_SETS_FILE"
	plugin_args mode=opt-in "sets=$SYS_SETS_FILE"
	sys_restart_slurmd || bail "slurmd did not restart with sets="
	ct id "$JM_OTHER" >/dev/null 2>&1 || ct useradd -m -s /bin/sh "$JM_OTHER"
	c=$(journal_mark)
	o=$(SYS_USER=$JM_OTHER submit_payload jm-other --ebpf=io) || { is "user share: the other user's sbatch accepted" no yes; return; }
	wait_started jm-other
	is "user share: the io instance runs for $JM_OTHER's job $o" \
		"$(settled_unit_state spank-ebpf-exporter@io.service)" active
	pe=$(unit_main_pid spank-ebpf-exporter@io.service)
	arr=$(submit_payload jm-arr --ebpf=io --array=1-3) || { is "user share: the array's sbatch accepted" no yes; return; }
	_jm_three_held() { [ "$(ct squeue -h -t R -u "$SYS_USER" -o %i | grep -c .)" -eq 3 ]; }
	ok_if "user share: the array's 3 jobs run" wait_until 60 "3 jobs of $SYS_USER running" _jm_three_held
	_jm_refused() { ct sh -c 'grep -q "^not_observed_user_share 1$" "$1".stats.io' sh "$STATE"; }
	ok_if "user share: one of the array's jobs is counted not observed (user_share)" \
		wait_until 30 "not_observed_user_share 1" _jm_refused
	fj=$(_jm_filter_jobs "$pe")
	diag "user share: jobs in the io filter: $fj; $SYS_USER's: $(ct squeue -h -u "$SYS_USER" -o %A | tr '\n' ' ')"
	inf=0
	for j in $(ct squeue -h -u "$SYS_USER" -o %A); do
		case " $fj " in *" $j "*) inf=$((inf + 1)) ;; esac
	done
	is "user share: 2 of the array's 3 jobs in the filter (half of the capacity, 4)" "$inf" 2
	like "user share: $JM_OTHER's job $o still in the filter" " $fj " " $o "
	like "user share: the plugin said so" "$(plugin_log_since "$c")" \
		"not observed by set io: uid [0-9]+'s jobs already take half of its probes' capacity \\(4 jobs\\)"
	like "user share: spank-ebpf metrics counts it" "$(ct "$SYS_ADMIN_CMD" metrics 2>&1)" \
		'spank_ebpf_jobs_not_observed_total\{.*reason="user_share"\} 1'
	release jm-arr
	release jm-other
	for j in $(ct squeue -h -o %A); do wait_job_done "$j"; done
	is "user share: the io instance stopped after the last job" \
		"$(settled_unit_state spank-ebpf-exporter@io.service)" inactive
	plugin_args mode=opt-in
	sys_restart_slurmd || bail "slurmd did not restart without sets="
	rm -f "$NODE_ROOT$SYS_SETS_FILE"
	rm -rf "${NODE_ROOT:?}$JM_TINY_DIR"
	real_teardown
}

# _JM_TOP_WEIGHT: a shell's words that give its session the top CFS
# weight where the kernel groups tasks by session (autogroup, as on this
# kind of machine, whose CPU controller is v1 and holds every task in its
# root): there nice ranks tasks within their session only, and a CI's
# other lanes (fuzzers, benchmarks, container boots), each a session of
# its own, took their share of the loops' CPU (a rehearsal saw job 46's
# loops wait 94% behind processes outside any job). A kernel without
# autogroup has no such file.
_JM_TOP_WEIGHT='[ ! -w /proc/self/autogroup ] || echo -20 >/proc/self/autogroup || exit 1'

# _jm_busy JOB USER SECONDS CPU N: N busy loops of SECONDS on CPU, as
# USER, in job JOB's cgroup (made by the test, Slurm's layout), in a
# session of their own at the top CFS weight, nice included (the
# machine's other work takes little of the CPU from them). Returns when
# they have ended.
_jm_busy() {
	ct setsid -w sh -c "$_JM_TOP_WEIGHT"'
		d=$1/system.slice/slurmstepd.scope/job_$2/step_batch/user/task_0
		mkdir -p "$d" && echo $$ >"$d/cgroup.procs" || exit 1
		exec nice -n -20 setpriv --reuid="$3" --regid="$3" --init-groups sh -c '"'"'
			i=0
			while [ "$i" -lt "$3" ]; do
				timeout "$1" taskset -c "$2" sh -c "while :; do :; done" &
				i=$((i + 1))
			done
			wait'"'"' sh "$4" "$5" "$6"' sh "$(_jm_cgroup2)" "$@"
}

# _jm_report_json JOB KEY...: from spank-ebpf report --json JOB (root),
# the value at KEY.KEY... ("null" when absent).
_jm_report_json() {
	local job=$1
	shift
	ct "$SYS_ADMIN_CMD" report --json "$job" 2>/dev/null | python3 -c '
import json, sys
v = json.load(sys.stdin)
for k in sys.argv[1:]:
    v = v.get(k) if isinstance(v, dict) else None
print("null" if v is None else v)' "$@"
}

# _jm_usage_ms CGROUP: the CPU time of CGROUP (under the container's
# cgroup2 root), in ms (cpu.stat, kept with or without the controller).
_jm_usage_ms() {
	ct sh -c 'sed -n "s/^usage_usec //p" "$1/$2/cpu.stat"' sh "$(_jm_cgroup2)" "$1" |
		awk '{ printf "%d", $1 / 1000 }'
}

# _jm_sched_outside JOB: a root daemon (systemd-run, system.slice) and
# one 2-s loop of job JOB on CPU 1: job JOB waited behind processes
# outside any job. Up to 3 tries: a CI run saw a try whose loop waited
# 0.03 s in all, another whose gate (both cgroups' CPU time) held in none
# of 3 without saying why. So the point is the report's figure alone, and
# each try's CPU time of the daemon and the loop, and the time around
# them, is printed after the point when it fails (tests/failures.sh shows
# the lines after a failed point).
_jm_sched_outside() {
	local a=$1 try x1 x2 h1 h2 l1 l2 t1 t2 rc hog step tries=""
	hog=system.slice/sse-hog.service
	step=system.slice/slurmstepd.scope/job_$a/step_batch/user/task_0
	for try in 1 2 3; do
		x1=$(_jm_report_json "$a" sched behind_seconds outside_jobs)
		# A service is a session of its own: at the loop's weight.
		ct systemd-run --quiet --collect --unit=sse-hog sh -c "$_JM_TOP_WEIGHT"'
			exec nice -n -20 timeout 60 taskset -c 1 sh -c "while :; do :; done"'
		wait_for 10 "sse-hog active" active ct systemctl is-active sse-hog
		t1=$(date +%s%N)
		h1=$(_jm_usage_ms "$hog")
		l1=$(_jm_usage_ms "$step")
		_jm_busy "$a" root 2 1 1
		rc=$?
		l2=$(_jm_usage_ms "$step")
		h2=$(_jm_usage_ms "$hog")
		t2=$((($(date +%s%N) - t1) / 1000000))
		h2=$((${h2:-0} - ${h1:-0}))
		l2=$((${l2:-0} - ${l1:-0}))
		tries="$tries try $try: the daemon $(ct systemctl is-active sse-hog 2>&1) on CPUs $(_jm_hog_cpus "$hog"), it used $h2 ms of CPU, job $a's loop (exit $rc) $l2 ms, in $t2 ms;"
		ct systemctl stop sse-hog
		x2=$(_jm_report_json "$a" sched behind_seconds outside_jobs)
		tries="$tries behind processes outside any job $x1 -> $x2 s."
		_jm_grew "$x1" "$x2" 0.05 && break
	done
	ok_if "sched-detail: report: beside a root daemon outside Slurm, job $a waited behind processes outside any job ($x1 -> $x2 s, try $try of 3)" \
		_jm_grew "$x1" "$x2" 0.05 || diag "sched:$tries"
}

# _jm_hog_cpus CGROUP: the CPUs its processes may run on (each list once).
_jm_hog_cpus() {
	ct sh -c 'for p in $(cat "$1/cgroup.procs"); do sed -n "s/^Cpus_allowed_list:[[:space:]]*//p" "/proc/$p/status"; done' \
		sh "$(_jm_cgroup2)/$1" 2>&1 | sort -u | paste -sd, -
}

# _jm_grew FROM TO MIN: TO - FROM >= MIN (report figures, "null" fails).
_jm_grew() {
	python3 -c 'import sys; sys.exit(0 if float(sys.argv[2]) - float(sys.argv[1]) >= float(sys.argv[3]) else 1)' "$@" 2>/dev/null
}

# The sched sets with Slurm's jobs, the report's words (issue 32): a job
# asking --ebpf=sched,sched-detail runs two busy loops on one CPU (waits
# behind its own tasks), then one beside another user's job's loop
# (behind other jobs), then one beside a root daemon outside Slurm
# (behind processes outside any job). Its loops run in its cgroup, made
# by the test (as in scn_job_metrics).
scn_jm_sched() {
	local a b c o1 o2 j1 j2 w out
	_real_have || return 0
	real_setup
	_real_sets_file >"$NODE_ROOT$SYS_SETS_FILE"
	chmod 0644 "$NODE_ROOT$SYS_SETS_FILE"
	plugin_args mode=opt-in "sets=$SYS_SETS_FILE"
	sys_restart_slurmd || bail "slurmd did not restart with sets="
	ct id "$JM_OTHER" >/dev/null 2>&1 || ct useradd -m -s /bin/sh "$JM_OTHER"
	like "sched-detail: sbatch --help gives its cost, from the set's description" "$(ctu sbatch --help 2>&1 | tr '\n' ' ' | tr -s ' ')" \
		'sched-detail \(Run-queue latency, and behind whom \(about \+10% on a job that only switches\)\)'
	c=$(journal_mark)
	a=$(submit_payload jm-sa --ebpf=sched,sched-detail) || { is "sched: sbatch --ebpf=sched,sched-detail accepted" no yes; return; }
	b=$(SYS_USER=$JM_OTHER submit_payload jm-sb) || { is "sched: the other user's sbatch accepted" no yes; return; }
	wait_started jm-sa
	wait_started jm-sb
	is "sched: job $a holds both sets, their instances up" \
		"$(settled_unit_state spank-ebpf-exporter@sched.service) $(settled_unit_state spank-ebpf-exporter@sched-detail.service)" \
		"active active"
	jm_place "$a" jm-sa
	jm_place "$b" jm-sb
	# Its own: two loops of job a on CPU 0 for 3 s, about 1.5 s of
	# waiting each.
	_jm_busy "$a" root 3 0 2
	w=$(_jm_report_json "$a" cpu wait_seconds)
	o1=$(_jm_report_json "$a" sched behind_seconds own_job)
	diag "sched: job $a, two loops on one CPU for 3 s: waited $w s, $o1 s behind its own tasks"
	# On a quiet CPU each loop waits behind the other: about 3 s in all,
	# all behind its own tasks. The machine's other work (a CI's other
	# lanes; _jm_busy's loops outweigh it where sessions are grouped,
	# not where cgroups are) adds waits behind processes outside any job
	# and takes some from these: each class is only required to grow in
	# its own run (a wait classed wrongly leaves it at 0; behind the
	# other job, a CI rehearsal saw 0.036 s of 2 s, the rest behind its
	# other suites).
	ok_if "sched: report: job $a's two loops on one CPU for 3 s waited 2.4 to 6.5 s ($w)" \
		python3 -c 'import sys; sys.exit(0 if 2.4 <= float(sys.argv[1]) <= 6.5 else 1)' "$w"
	ok_if "sched-detail: report: ... some of it behind its own tasks ($o1 s)" \
		python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) >= 0.1 else 1)' "$o1"
	# Behind another user's job: job a's loop and job b's on CPU 1.
	j1=$(_jm_report_json "$a" sched behind_seconds other_jobs)
	_jm_busy "$a" root 3 1 1 &
	w=$!
	_jm_busy "$b" "$JM_OTHER" 3 1 1
	wait "$w"
	j2=$(_jm_report_json "$a" sched behind_seconds other_jobs)
	ok_if "sched-detail: report: beside $JM_OTHER's job $b on one CPU, job $a waited behind other jobs ($j1 -> $j2 s)" \
		_jm_grew "$j1" "$j2" 0.005
	# Behind a root daemon outside Slurm, there for all of the job's
	# loop (a CI run saw a 2-s daemon end before the loop had started).
	_jm_sched_outside "$a"
	out=$(ct "$SYS_ADMIN_CMD" report "$a" 2>&1)
	diag "sched: spank-ebpf report $a: $(echo "$out" | tr '\n' '|')"
	like "sched: report: the share of its time it waited, in plain words (Slurm's run time)" "$out" \
		"^  CPU wait   your job waited for a CPU [0-9<]+% of the time \\([0-9.]+ s of its [0-9]+ s with a task waiting\\); its tasks waited [0-9.]+ s in all, [0-9]+ times\$"
	like "sched-detail: report: its run queue, and of the time waited, how much behind whom" "$out" \
		"^  run queue  [0-9]+ waits, p50 [0-9.]+ s, p99 [0-9.]+ s; of the time waited, [0-9<]+% behind "
	for w in "behind other jobs" "behind its own tasks" "behind processes outside any job"; do
		like "sched-detail: report: ... a share $w" "$out" "^  run queue .*[ ,][0-9<]+% $w"
	done
	unlike "sched: report: no other job's ID or user in it" "$out" "(job|jobid)[ =]$b\\b|$JM_OTHER"
	is "sched: nothing at all for job $b in either set's exporter" \
		"$(SYS_STANDIN_PORT=942 metrics | grep -c "jobid=\"$b\""; SYS_STANDIN_PORT=944 metrics | grep -c "jobid=\"$b\"")" "0
0"
	out=$(SYS_USER=$JM_OTHER ctu "$SYS_ADMIN_CMD" report "$a" 2>&1)
	unlike "sched: $JM_OTHER's report of job $a: none of its figures" "$out" 'CPU wait|run queue'
	release jm-sa
	release jm-sb
	wait_job_done "$a"
	wait_job_done "$b"
	is "sched: both jobs completed, both instances stopped" \
		"$(job_state "$a") $(job_state "$b") $(settled_unit_state spank-ebpf-exporter@sched.service) $(settled_unit_state spank-ebpf-exporter@sched-detail.service)" \
		"COMPLETED COMPLETED inactive inactive"
	diag "sched: plugin lines: $(plugin_log_since "$c" | tr '\n' '|')"
	jm_unplace
	plugin_args mode=opt-in
	sys_restart_slurmd || bail "slurmd did not restart without sets="
	rm -f "$NODE_ROOT$SYS_SETS_FILE"
	real_teardown
}
