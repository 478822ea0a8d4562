#!/bin/bash
# spank-ebpf top (cmd_top.c, top_screen.c) against doubles: squeue and
# sacctmgr stand-ins for Slurm, and a stand-in for Prometheus'
# /api/v1/query (https, its own CA) that answers every query with fixed
# series of four running jobs and some that are not theirs, and logs what
# it was asked. The full screen is read through tmux. The real path
# (Slurm, real jobs, Prometheus scraping real sets) is
# tests/system/jobmetrics.sh's. Job IDs 61-65 and 99 are this script's.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/lib/plugin.sh"
need_cmd python3 openssl tmux setpriv
plugin_built_faces

d=$(mktemp -d /tmp/spank-ebpf-top.XXXXXX) || exit 1
prom_pid=
tmux_sock="$d/tmux.sock"
cleanup() {
	[ -z "$prom_pid" ] || kill "$prom_pid" 2>/dev/null
	tmux -S "$tmux_sock" kill-server 2>/dev/null
	rm -rf "$d"
}
trap cleanup EXIT
chmod 0755 "$d" # the other user's view reads the plugin's line and the CA
mkdir -p "$d/slurm"
echo ok >"$d/mode"

# --- the stand-ins ----------------------------------------------------------
# squeue as slurmctld's: five running jobs (64 has no series); --user,
# --partition and --nodelist narrow the list as Slurm does, unless the mode
# file says "ignoreuser" (a list that is not narrowed: the command must
# still show a user their own jobs alone). "evil": job 63's partition
# carries control bytes.
cat >"$d/slurm/squeue" <<EOF
#!/bin/sh
echo "squeue \$* (uid \$(id -u))" >>"$d/slurm.log"
grep -q slurmdown "$d/mode" && { echo "squeue: error: Unable to contact slurm controller" >&2; exit 1; }
p63=batch; grep -q evil "$d/mode" && p63=\$(printf 'ba\\033]0;PWNED\\007tch')
{
echo "61|4001|alice|batch|n1|n1"
echo "62|4001|alice|gpu|n[2-3]|n2 n3"
echo "63|4002|bob|\$p63|n4|n4"
echo "64|4001|alice|batch|n6|n6"
echo "65|65534|nobody|debug|n5|n5"
} | while IFS='|' read -r id uid user part nodes each; do
	for a in "\$@"; do
		case "\$a" in
		--user=*) grep -q ignoreuser "$d/mode" || [ "\${a#--user=}" = "\$user" ] || [ "\${a#--user=}" = "\$uid" ] || continue 2 ;;
		--partition=*) [ "\${a#--partition=}" = "\$part" ] || continue 2 ;;
		--nodelist=*) case " \$each " in *" \${a#--nodelist=} "*) ;; *) continue 2 ;; esac ;;
		esac
	done
	echo "\$id|\$uid|\$user|\$part|\$nodes"
done
EOF
# sacctmgr as slurmdbd's: nobody is an ordinary user, or an operator when
# the mode file says "operator".
cat >"$d/slurm/sacctmgr" <<EOF
#!/bin/sh
echo "sacctmgr \$* (uid \$(id -u))" >>"$d/slurm.log"
if grep -q operator "$d/mode"; then echo Operator; else echo None; fi
EOF
chmod 0755 "$d/slurm/squeue" "$d/slurm/sacctmgr"
: >"$d/slurm.log"
chmod 0666 "$d/slurm.log" # written by the stand-ins as either user

cat >"$d/prom.py" <<'EOF'
import http.server, json, re, sys, time, urllib.parse
d = sys.argv[1]
E = "ebpf_exporter_spank_"
# Per metric: (labels, value) as the query's sum by (jobid, instance, ...)
# leaves them. Job 99 is in no Slurm list; job 61's series on n9 come
# from a node outside it (another cluster's job 61); job 63's fstype
# label carries an escape sequence.
S = {
    "io_bytes_total": [({"jobid": "61", "instance": "n1:9435"}, 3e6),
                       ({"jobid": "62", "instance": "n2:9435"}, 6e5), ({"jobid": "62", "instance": "n3:9435"}, 4e5),
                       ({"jobid": "63", "instance": "n4:9435"}, 2e6), ({"jobid": "65", "instance": "n5:9435"}, 5e5),
                       ({"jobid": "99", "instance": "n1:9435"}, 9e9), ({"jobid": "61", "instance": "n9:9435"}, 8e9)],
    "io_latency_seconds_bucket": [({"jobid": "61", "instance": "n1:9435"}, 0.002),
                                  ({"jobid": "62", "instance": "n2:9435"}, 0.004), ({"jobid": "62", "instance": "n3:9435"}, 0.010),
                                  ({"jobid": "63", "instance": "n4:9435"}, 0.001), ({"jobid": "65", "instance": "n5:9435"}, 0.003)],
    "fs_meta_ops_total": [({"jobid": "61", "instance": "n1:9440", "fstype": "nfs4"}, 100),
                          ({"jobid": "62", "instance": "n2:9440", "fstype": "lustre"}, 40),
                          ({"jobid": "62", "instance": "n3:9440", "fstype": "lustre"}, 10),
                          ({"jobid": "62", "instance": "n3:9440", "fstype": "nfs"}, 10),
                          ({"jobid": "63", "instance": "n4:9440", "fstype": "fuse.\x1b]0;PWNED\x07"}, 5)],
    "sched_pressure_microseconds_total": [({"jobid": "61", "instance": "n1:9436"}, 0.10),
                                          ({"jobid": "62", "instance": "n2:9436"}, 0.40), ({"jobid": "62", "instance": "n3:9436"}, 0.20),
                                          ({"jobid": "63", "instance": "n4:9436"}, 0.05), ({"jobid": "65", "instance": "n5:9436"}, 0.50)],
    "sched_runq_latency_seconds_sum": [({"jobid": "61", "instance": "n1:9437", "behind": "other_jobs"}, 0.08),
                                       ({"jobid": "61", "instance": "n1:9437", "behind": "own_job"}, 0.02),
                                       ({"jobid": "62", "instance": "n2:9437", "behind": "own_job"}, 0.3),
                                       ({"jobid": "62", "instance": "n3:9437", "behind": "own_job"}, 0.1),
                                       ({"jobid": "62", "instance": "n3:9437", "behind": "outside_jobs"}, 0.2),
                                       ({"jobid": "65", "instance": "n5:9437", "behind": "idle_cpu"}, 0.1)],
    "net_tcp_retransmits_total": [({"jobid": "61", "instance": "n1:9438"}, 0),
                                  ({"jobid": "62", "instance": "n2:9438"}, 5), ({"jobid": "63", "instance": "n4:9438"}, 1)],
    "oom_kills_total": [({"jobid": "61", "instance": "n1:9439"}, 0), ({"jobid": "62", "instance": "n3:9439"}, 1)],
}
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        u = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(u.query).get("query", [""])[0]
        mode = open(d + "/mode").read().split()
        with open(d + "/prom.log", "a") as f:
            f.write("%s query=%s\n" % (u.path, q))
        m = re.search(E + r"([a-z_]+)\{", q)
        name = m.group(1) if m else ""
        if "slow" in mode:
            time.sleep(3)
        res = [{"metric": l, "value": [time.time(), "NaN" if "nan" in mode else repr(float(v))]}
               for l, v in S.get(name, []) if not ("nofs" in mode and name.startswith("fs_"))]
        body = json.dumps({"status": "success", "data": {"resultType": "vector", "result": res}}).encode()
        if "huge" in mode:
            body = b'{"status":"success","data":{"resultType":"vector","result":[' + b" " * (9 << 20) + b"]}}"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except OSError:
            pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
import ssl
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(d + "/server.pem", d + "/server.key")
s.socket = ctx.wrap_socket(s.socket, server_side=True)
open(d + "/prom.port.tmp", "w").write(str(s.server_port))
import os; os.rename(d + "/prom.port.tmp", d + "/prom.port")
s.serve_forever()
EOF
standin_tls "$d"
chmod 0644 "$d/ca.pem"
python3 "$d/prom.py" "$d" &
prom_pid=$!
wait_until 20 "the stand-in Prometheus" test -s "$d/prom.port"
port=$(cat "$d/prom.port")
printf 'optional /usr/lib/slurm/spank_ebpf.so prometheus=https://127.0.0.1:%s/ prometheus_ca=%s timeout=2\n' "$port" "$d/ca.pem" >"$d/plugstack.conf"
# timeout=15 where the time is not what is checked: under a loaded CI
# host, seven TLS answers of 9 MiB outlasted timeout=2.
printf 'optional /usr/lib/slurm/spank_ebpf.so prometheus=https://127.0.0.1:%s/ prometheus_ca=%s timeout=15\n' "$port" "$d/ca.pem" >"$d/patient.conf"
printf 'optional /usr/lib/slurm/spank_ebpf.so\n' >"$d/none.conf"
chmod 0644 "$d/plugstack.conf" "$d/patient.conf" "$d/none.conf"

# The caller another user: run's words before the command.
as_nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
run() { # run ARGS...: sets out, err, rc; from env -i, as a user would
	out=$(env -i PATH=/usr/bin:/bin ${as:-} "$cmd" -c "$d/${conf:-plugstack}.conf" top --squeue "$d/slurm/squeue" "$@" 2>"$d/err") && rc=0 || rc=$?
	err=$(cat "$d/err")
}
ids() { printf '%s\n' "$out" | sed -n '3,$p' | awk '$1 ~ /^[0-9]+$/ { print $1 }' | tr '\n' ' ' | sed 's/ $//'; }
# The title's clock made fixed, to compare whole outputs.
untimed() { sed '1s/^spank-ebpf top [0-9:]*:/spank-ebpf top HH:MM:SS:/'; }
json_ids() { printf '%s' "$out" | python3 -c 'import json,sys; print(" ".join(str(j["job"]) for j in json.load(sys.stdin)["jobs"]))' 2>&1; }

# --- root: every job, the words of the plain text ------------------------------
run --once
is "top --once as root: exit 1 (series left out), nothing on stderr" "$rc $err" "1 "
is "... the title, the headings, one row a job with series, by I/O bytes a second, the left out said" "$(printf '%s\n' "$out" | untimed)" \
"spank-ebpf top HH:MM:SS: 4 jobs with series of 5 running (all users); rates over 60 s, every 5 s; sorted by IO/s
   JOBID USER       PARTITION  NODES     IO/s   IO-p99       FS-meta/s CPUWAIT       BEHIND RETRANS/s  OOM
      61 alice      batch          1    3.0MB    2.0ms        100 nfs4     10% other-jobs 80%         0    0
      63 bob        batch          1    2.0MB    1.0ms 5 fuse.\\x1b]0;PWNED\\x07      5%            -         1    -
      62 alice      gpu            2    1.0MB   10.0ms      60 lustre+     30%  own-job 67%         5    1
      65 nobody     debug          1    500kB    3.0ms               -     50%    idle 100%         -    -
left out: 1 series of jobs not in Slurm's list left out; 1 series of nodes outside their job's nodes (such as n9) left out"
like "... squeue asked as the caller for the running jobs" "$(cat "$d/slurm.log")" \
	'^squeue --noheader --states=RUNNING --format=%i\|%U\|%u\|%P\|%N \(uid 0\)$'
unlike "... root asks no sacctmgr (root sees all)" "$(cat "$d/slurm.log")" '^sacctmgr'
is "... 7 queries, one per figure" "$(wc -l <"$d/prom.log")" 7
like "... each ranked by Prometheus (topk) and summed by job and node, the jobs' IDs in the matcher" "$(head -n 1 "$d/prom.log")" \
	'^/api/v1/query query=topk\(1000, sum by \(jobid, instance\) \(rate\(ebpf_exporter_spank_io_bytes_total\{jobid=~"61\|62\|63\|64\|65"\}\[60s\]\)\)\)$'
like "... the fs column: network file systems alone, by fstype" "$(cat "$d/prom.log")" \
	'fs_meta_ops_total\{jobid=~"61\|62\|63\|64\|65",fstype=~"nfs\|nfs4\|lustre\|gpfs\|beegfs\|ceph\|cifs\|smb3\|fuse\[\.\]\.\+"\}'
unlike "... no control byte reaches the terminal" "$out" $'[\x01-\x08\x0b-\x1f\x7f]'

# Each column orders the rows by the jobs' known loads.
for want in "jobid:61 62 63 65" "user:61 62 63 65" "partition:61 63 65 62" "nodes:62 61 63 65" \
	"io:61 63 62 65" "p99:62 65 61 63" "fs:61 62 63 65" "cpu:65 62 61 63" "behind:65 61 62 63" \
	"retrans:62 63 61 65" "oom:62 61 63 65"; do
	run --once --sort="${want%%:*}"
	is "--sort=${want%%:*}: the rows in the order of the jobs' figures (no series last)" "$(ids)" "${want#*:}"
done
run --once -s io
is "-s io: the short form" "$(ids)" "61 63 62 65"

# --- JSON -------------------------------------------------------------------
run --json
is "--json: one object, the rows in the same order, exit 1" "$rc $(json_ids)" "1 61 63 62 65"
is "... the figures as numbers: job 62's sums over its nodes, its worst p99, its CPU wait's mean, behind whom, per fstype, per node" \
	"$(printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
j = [x for x in d["jobs"] if x["job"] == 62][0]
print(j["user"], j["partition"], j["nodes"], j["node_count"], j["io_bytes_per_s"], j["io_p99_seconds"], j["fs_meta_ops_per_s"],
      j["fs_meta_ops_by_fstype"], j["cpu_wait_share"], j["behind"], round(j["behind_share"], 3), j["tcp_retransmits_per_s"], j["oom_kills"],
      [(n["node"], n["io_bytes_per_s"], n["io_p99_seconds"], n["cpu_wait_share"]) for n in j["per_node"]], d["all_users"], d["running"])' 2>&1)" \
	"alice gpu n[2-3] 2 1000000.0 0.01 60 {'lustre': 50, 'nfs': 10} 0.3 own_job 0.667 5 1 [('n2', 600000, 0.004, 0.4), ('n3', 400000, 0.01, 0.2)] True 5"
is "... a figure without series is null, the errors say what was left out" \
	"$(printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
j = [x for x in d["jobs"] if x["job"] == 65][0]
print(j["fs_meta_ops_per_s"], j["tcp_retransmits_per_s"], j["oom_kills"], d["errors"])' 2>&1)" \
	"None None None [\"left out: 1 series of jobs not in Slurm's list left out; 1 series of nodes outside their job's nodes (such as n9) left out\"]"
is "... the control bytes of a label escaped, valid JSON" "$(LC_ALL=C grep -c $'[\x01-\x1f]' <<<"$out") $(printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(ascii(list([x for x in d["jobs"] if x["job"] == 63][0]["fs_meta_ops_by_fstype"])))' 2>&1)" \
	"0 ['fuse.\\\\x1b]0;PWNED\\\\x07']"
run --json -n 2 -d 1
is "--json -n 2 -d 1: two objects, one a line" "$(printf '%s\n' "$out" | wc -l) $(printf '%s\n' "$out" | python3 -c 'import json,sys; print(all("jobs" in json.loads(l) for l in sys.stdin))' 2>&1)" "2 True"

# Not a terminal: one refresh, as --once.
out=$(env -i PATH=/usr/bin:/bin "$cmd" -c "$d/plugstack.conf" top --squeue "$d/slurm/squeue" </dev/null | cat)
is "top with standard output a pipe: the plain text once" "$(printf '%s\n' "$out" | untimed | head -n 2 | tail -n 1 | awk '{print $1, $NF}') $(ids)" "JOBID OOM 61 63 62 65"

# --- filters ---------------------------------------------------------------
: >"$d/slurm.log"
run --once -u bob
is "-u bob: bob's job alone; Slurm asked for bob's" "$(ids) $(grep -c -- '--user=bob' "$d/slurm.log")" "63 1"
like "... the title says the filter" "$(printf '%s\n' "$out" | head -n 1)" ', user bob; rates over'
run --once -p batch
is "-p batch: the batch partition's jobs" "$(ids)" "61 63"
run --once --node n3
is "--node n3: the job running on n3" "$(ids)" "62"

# --- another user ------------------------------------------------------------
: >"$d/slurm.log"
: >"$d/prom.log"
as=$as_nobody run --once
is "as nobody (an ordinary user): their own job alone" "$(ids)" "65"
like "... the title says so" "$(printf '%s\n' "$out" | head -n 1)" '1 job with series of 1 running \(your jobs only\)'
like "... Slurm asked for their jobs, as them" "$(cat "$d/slurm.log")" '^squeue .* --user=nobody \(uid 65534\)$'
like "... sacctmgr asked whether they are an operator" "$(cat "$d/slurm.log")" '^sacctmgr --noheader --parsable2 show user name=nobody format=AdminLevel \(uid 65534\)$'
is "... Prometheus asked for their job's series alone" "$(grep -vc 'jobid=~"65"' "$d/prom.log")" 0
like "... what Prometheus gave beside them left out, and said" "$out" "^left out: 29 series of jobs not in Slurm's list \(not yours\) left out$"
echo ignoreuser >"$d/mode"
as=$as_nobody run --json
is "... a squeue that lists every user's jobs anyway: still their own alone" "$(json_ids)" "65"
as=$as_nobody run --once -u alice
is "... -u alice: none of alice's jobs" "$(ids) $(printf '%s\n' "$out" | grep -c '^no running job of yours')" " 1"
echo operator >"$d/mode"
as=$as_nobody run --once
is "as nobody, one of Slurm's operators: every job" "$(ids) $(printf '%s\n' "$out" | grep -c '(all users)')" "61 63 62 65 1"

# --- hostile answers ----------------------------------------------------------
echo evil >"$d/mode"
run --once
is "Slurm's words with control bytes: escaped, never raw" "$(LC_ALL=C grep -c $'\x1b' <<<"$out") $(printf '%s\n' "$out" | grep -c 'ba\\x1b\]0;PWNED\\x07tch')" "0 1"
echo nan >"$d/mode"
run --once
is "values NaN: refused and said, no figure shown" "$rc $(ids) | $(printf '%s\n' "$out" | tail -n 1)" \
	"1  | left out: 1 series of jobs not in Slurm's list left out; 1 series of nodes outside their job's nodes (such as n9) left out; 31 values that are not finite figures refused"
echo nofs >"$d/mode"
run --once --sort=fs
is "no fs series (the set absent): the column says - for every job" "$(printf '%s\n' "$out" | sed -n '3,$p' | awk '$1 ~ /^[0-9]+$/ {print $1}' | tr '\n' ' ')$(printf '%s\n' "$out" | sed -n '3,6p' | cut -c55-70 | tr -d ' ' | tr '\n' ' ')" \
	"61 62 63 65 - - - - "
echo huge >"$d/mode"
conf=patient run --once
is "answers over 8 MiB: refused, every column said, exit 2" "$rc $(printf '%s\n' "$out" | grep -c '^partial: .*: Prometheus cannot be read: the answer is larger than 8 MiB$')" "2 7"
echo slow >"$d/mode"
t0=$(date +%s)
run --once
t1=$(date +%s)
is "a Prometheus slower than timeout=2: the refresh stops in time, every column said, most not asked" \
	"$rc $((t1 - t0 <= 4)) $(printf '%s\n' "$out" | grep -c '^partial: ') $(($(printf '%s\n' "$out" | grep -c 'not asked: the refresh.s time ran out (timeout=2 s on the plugin.s line)$') >= 4))" "2 1 7 1"
echo slurmdown >"$d/mode"
run --once
is "squeue failing: said, exit 2, no row" "$rc $(printf '%s\n' "$out" | tail -n 1)" \
	"2 Slurm cannot tell which jobs run: $d/slurm/squeue exited with status 1: squeue: error: Unable to contact slurm controller"
echo ok >"$d/mode"

# --- usage ------------------------------------------------------------------
run --once -d 0
like "-d 0: a usage error" "$rc $err" "^2 spank-ebpf: top: --delay takes whole seconds from 1 to 3600, not \"0\""
run --once --sort=mem
like "--sort=mem: a usage error naming the columns" "$rc $err" "^2 spank-ebpf: top: no column \"mem\" to sort by \(jobid, user"
out=$(env -i PATH=/usr/bin:/bin "$cmd" -c "$d/none.conf" top --once 2>&1) && rc=0 || rc=$?
is "no prometheus= on the plugin's line: said, exit 2" "$rc $out" \
	"2 spank-ebpf: top: the plugin's line in \"$d/none.conf\" has no prometheus=: no place to read the jobs' figures from"

# --- the full screen, read through tmux ------------------------------------------
screen() { tmux -S "$tmux_sock" capture-pane -p -t top; }
screen_has() { screen | grep -Eq -- "$1"; }
screen_ids() { screen | sed -n '4,$p' | awk '$1 ~ /^[0-9]+$/ { print $1 }' | tr '\n' ' ' | sed 's/ $//'; }
keys() { tmux -S "$tmux_sock" send-keys -t top "$@"; }
tmux -S "$tmux_sock" new-session -d -s top -x 160 -y 40 \
	"env -i PATH=/usr/bin:/bin TERM=screen '$cmd' -c '$d/plugstack.conf' top -d 1 --squeue '$d/slurm/squeue'; echo exited \$? >'$d/screen.rc'; sleep 30"
wait_until 10 "top's screen" screen_has '^ +JOBID USER'
is "the full screen: the rows by I/O bytes a second" "$(screen_ids)" "61 63 62 65"
like "... the title and the keys" "$(screen | head -n 2)" '^q quit  < > sort column  R reverse  u p n user, partition, node'
like "... the left out said at the bottom" "$(screen)" "^left out: 1 series of jobs not in Slurm's list"
unlike "... no control byte on the screen" "$(tmux -S "$tmux_sock" capture-pane -p -e -t top | sed 's/\x1b\[[0-9;]*m//g')" $'\x1b\\]'
keys '>'
wait_until 5 "sorted by p99" screen_has 'sorted by IO-p99'
is "> : sorted by the next column, p99" "$(screen_ids)" "62 65 61 63"
keys R
wait_until 5 "reversed" screen_has 'sorted by IO-p99, reversed'
is "R : reversed" "$(screen_ids)" "63 61 65 62"
keys R '<' '<'
wait_until 5 "sorted by NODES" screen_has 'sorted by NODES$'
is "< < : back two columns, NODES" "$(screen_ids)" "62 61 63 65"
keys u
wait_until 5 "the user prompt" screen_has '^show the jobs of user'
keys b o b Enter
wait_until 5 "bob's jobs alone" screen_has ', user bob; rates'
is "u bob : bob's job alone" "$(screen_ids)" "63"
keys u Enter
wait_until 5 "every user again" screen_has '4 jobs with series of 5 running \(all users\);'
keys p
wait_until 5 "the partition prompt" screen_has '^show the jobs of partition'
keys b a t c h Enter
wait_until 5 "the batch partition" screen_has ', partition batch; rates'
is "p batch : the batch partition's jobs" "$(screen_ids)" "61 63"
keys p Enter n
wait_until 5 "the node prompt" screen_has '^show the jobs on node'
keys n 3 Enter
wait_until 5 "the jobs on n3" screen_has ', node n3; rates'
is "n n3 : the job on n3" "$(screen_ids)" "62"
keys n Enter
wait_until 5 "every job again" screen_has '4 jobs with series of 5 running \(all users\); rates over 60 s, every 1 s; sorted by NODES$'
keys Down Enter
wait_until 5 "a job's nodes" screen_has '^job 61, user alice'
keys Escape Up Enter
wait_until 5 "job 62's nodes" screen_has '^job 62, user alice, partition gpu: 2 of 2 nodes with series'
is "Enter on the highlighted job: its nodes, each with its figures" "$(screen | sed -n '3,5p' | sed 's/ *$//')" \
"   JOBID NODE                 IO/s   IO-p99       FS-meta/s CPUWAIT       BEHIND RETRANS/s  OOM
      62 n2                  600kB    4.0ms       40 lustre     40% own-job 100%         5    -
      62 n3                  400kB   10.0ms      20 lustre+     20%  outside 67%         -    1"
keys Enter
wait_until 5 "back to the jobs" screen_has '^ +JOBID USER'
tmux -S "$tmux_sock" resize-window -t top -x 100 -y 12
wait_for 5 "the smaller screen" 100x12 tmux -S "$tmux_sock" display-message -p -t top '#{pane_width}x#{pane_height}'
sleep 1.5 # a refresh's time: drawn again at the new size
is "the terminal made 100 x 12: the screen follows, no line wider, the rows still there" \
	"$(screen | awk 'length > 100' | wc -l) $(screen_ids)" "0 62 61 63 65"
keys q
wait_until 5 "top's exit" test -s "$d/screen.rc"
is "q : quits, exit 0" "$(cat "$d/screen.rc")" "exited 0"

done_testing
