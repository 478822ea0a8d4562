#!/bin/bash
# report --cluster (report_cluster.c) against doubles: a stand-in for
# Prometheus' /api/v1/query that answers from fixed series of two nodes
# and logs what it was asked, and sacct/squeue stand-ins. The real path
# (Slurm, Prometheus scraping real sets) is tests/system/jobmetrics.sh's.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/lib/plugin.sh"
need_cmd python3 curl openssl
plugin_built_faces

d=$(mktemp -d /tmp/spank-ebpf-cluster.XXXXXX) || exit 1
prom_pid=
cleanup() {
	[ -z "$prom_pid" ] || kill "$prom_pid" 2>/dev/null
	rm -rf "$d"
}
trap cleanup EXIT
mkdir -p "$d/slurm"
echo ok >"$d/mode"

# --- the stand-ins ----------------------------------------------------------
# sacct and squeue as Slurm's: job 5, alice's, ran 1000 to 1300 (Unix
# seconds when SLURM_TIME_FORMAT=%s, which the command must ask for) on
# n[1-2]; any other job is unknown. "noacct" in the mode file: sacct has
# no accounting to read, and squeue lists job 5 as still running.
cat >"$d/slurm/sacct" <<EOF
#!/bin/sh
echo "sacct \$*" >>"$d/slurm.log"
grep -q noacct "$d/mode" && { echo "sacct: error: Slurm accounting storage is disabled" >&2; exit 1; }
j=\$(echo " \$* " | sed -n 's/.* --jobs=\([0-9]*\) .*/\1/p')
case " \$* " in
*" --format=JobIDRaw,JobID,State,AdminComment,JobIDRaw "*)
	# Job 12 is task 3 of array 9; "running" in the mode file: no end yet.
	# The comment as sacct prints it: raw, newlines and all.
	id=\$j; [ "\$j" != 12 ] || id=9_3
	st=COMPLETED; ! grep -q running "$d/mode" || st=RUNNING
	printf '%s|%s|%s|' "\$j" "\$id" "\$st"
	cat "$d/ac.\$j" 2>/dev/null
	printf '|%s\\n' "\$j"
	exit 0 ;;
esac
[ "\$SLURM_TIME_FORMAT" = %s ] || { echo "5|4001|alice|1970-01-01T00:16:40|1970-01-01T00:21:40|COMPLETED|n[1-2]"; exit 0; }
case " \$* " in
*" --jobs=10 "*) echo "10|4001|alice|1000|1300|COMPLETED|n[0001-1000]" ;;
*" --jobs=11 "*) echo "11|4001|alice|1000|1001|COMPLETED|n1" ;;
*" --jobs=19 "*) echo "19|4001|alice|1000|1001|COMPLETED|n1" ;;
*" --jobs=12 "*) echo "12|4001|alice|1000|1300|COMPLETED|n[1-2]" ;;
*" --jobs=17 "*) echo "17|4001|alice|1000|1300|COMPLETED|n[1-4000]" ;;
*" --jobs=18 "*) echo "18|4001|alice|1000|1300|COMPLETED|n[1-4000]" ;;
*" --jobs=14 "*) echo "14|4001|alice|1000|1300|COMPLETED|n[1-2]" ;;
*" --jobs=15 "*) echo "15|4001|alice|1000|1300|COMPLETED|n[1-2" ;;
*" --jobs=16 "*) echo "16|4001|alice|1000|1300|COMPLETED|n1" ;;
*" --jobs=5 "*) echo "5|4001|alice|1000|1300|COMPLETED|n[1-2]" ;;
*" --jobs=6 "*) echo "6|4001|alice|1000|1300|OUT_OF_MEMORY|n[1-2]" ;;
*" --jobs=7 "*) echo "7|4001|alice|1000|1300|COMPLETED|n[1-2]" ;;
*" --jobs=41 "*) echo "41|4001|alice|1000|1300|COMPLETED|n[1-2]" ;;
*" --jobs=42 "*) echo "42|4001|alice|1000|1300|COMPLETED|n[1-2]" ;;
*" --jobs=43 "*) echo "43|4001|alice|1000|1300|COMPLETED|n[1-2]" ;;
*" --jobs=44 "*) echo "44|4001|alice|1000|1300|COMPLETED|n[1-2]" ;;
*" --jobs=45 "*) echo "45|4001|alice|1000|1300|COMPLETED|n[1-2]" ;;
*" --jobs=8 "*) printf '8|4001|alice|1000|1300|COMP\\033]0;PWNED\\007LETED|n1\\n' ;;
*" --jobs=13 "*) printf '13|4001|al\\377i\\001c\\303\\251|1000|1300|COMP\\033]0;PWNED\\007LETED|n1\\n' ;;
esac
exit 0
EOF
cat >"$d/slurm/squeue" <<EOF
#!/bin/sh
echo "squeue \$*" >>"$d/slurm.log"
case " \$* " in *" --jobs=5 "*) echo "5|4001|alice|1000|99999|RUNNING|n[1-2]"; exit 0 ;; esac
echo "slurm_load_jobs error: Invalid job id specified" >&2
exit 1
EOF
# sacctmgr as slurmdbd's: "-i modify job where jobid=SEL set
# AdminComment=V" writes ac.N (SEL 9_3 is job 12), "lower" in the mode
# file: lowercased, as Slurm 22.05's sacctmgr stores it.
cat >"$d/slurm/sacctmgr" <<EOF
#!/bin/sh
echo "sacctmgr \$*" >>"$d/slurm.log"
[ "\$1 \$2 \$3 \$4" = "-i modify job where" ] || exit 1
j=\${5#jobid=}; [ "\$j" != 9_3 ] || j=12
v=\${7#AdminComment=}
if grep -q lower "$d/mode"; then v=\$(printf '%s' "\$v" | tr A-Z a-z); fi
printf '%s' "\$v" >"$d/ac.\$j"
EOF
chmod 0755 "$d/slurm/sacct" "$d/slurm/squeue" "$d/slurm/sacctmgr"

cat >"$d/prom.py" <<'EOF'
import http.server, json, re, sys, time, urllib.parse
d = sys.argv[1]
# Job 5's series on n1 and n2, as Prometheus holds them after the sum by
# (instance, ...): reads on n1 mostly fast, on n2 all slower.
S = {
    "ebpf_exporter_spank_io_latency_seconds_bucket": [
        ({"instance": "n1:941", "operation": "read", "le": le}, v)
        for le, v in (("0.001", 10), ("0.002", 90), ("0.004", 100), ("+Inf", 100))] + [
        ({"instance": "n2:941", "operation": "read", "le": le}, v)
        for le, v in (("0.001", 0), ("0.002", 0), ("0.004", 100), ("+Inf", 100))],
    "ebpf_exporter_spank_io_bytes_total": [
        ({"instance": "n1:941", "operation": "read"}, 409600),
        ({"instance": "n2:941", "operation": "read"}, 409600)],
    "ebpf_exporter_spank_net_tcp_retransmits_total": [
        ({"instance": "n1:943"}, 3), ({"instance": "n2:943"}, 4)],
    "spank_ebpf_job_info": [
        ({"instance": "n1:9100", "sets": "io,net"}, 1), ({"instance": "n2:9100", "sets": "io,net"}, 1)],
}
# Job 6 crosses every hint's threshold: writes with p99 above 0.05 s,
# 30% of its time waiting for a CPU (180 s of 2 x 300 s), 150
# retransmits, a process killed by the OOM killer.
S6 = {
    "ebpf_exporter_spank_io_latency_seconds_bucket": [
        ({"instance": "n1:941", "operation": "write", "le": le}, v)
        for le, v in (("0.001", 50), ("0.1", 99), ("0.2", 100), ("+Inf", 100))],
    "ebpf_exporter_spank_sched_pressure_microseconds_total": [
        ({"instance": "n1:942"}, 120e6), ({"instance": "n2:942"}, 60e6)],
    "ebpf_exporter_spank_sched_wait_microseconds_total": [
        ({"instance": "n1:942"}, 200e6), ({"instance": "n2:942"}, 70e6)],
    "ebpf_exporter_spank_sched_waits_total": [({"instance": "n1:942"}, 1000), ({"instance": "n2:942"}, 500)],
    "ebpf_exporter_spank_net_tcp_retransmits_total": [({"instance": "n2:943"}, 150)],
    "ebpf_exporter_spank_oom_kills_total": [({"instance": "n2:944"}, 1)],
}
# Job 7: the nodes' buckets have different bounds, n2's between n1's.
S7 = {
    "ebpf_exporter_spank_io_latency_seconds_bucket": [
        ({"instance": "n1:941", "operation": "read", "le": "0.001"}, 10),
        ({"instance": "n1:941", "operation": "read", "le": "+Inf"}, 10),
        ({"instance": "n2:941", "operation": "read", "le": "0.002"}, 10),
        ({"instance": "n2:941", "operation": "read", "le": "+Inf"}, 10)],
}
# Job 41: run-queue buckets whose bounds differ by node: n1's other_jobs
# has 0.002, n2's outside_jobs not. The whole job's p99 falls between
# 0.002 and 0.004: its summary must keep 0.002, though neither class's
# own quantiles read it.
# Job 44: job 5's series; it joined its sets on both nodes at 1000; on
# n1 the io set's exporter became ready at 1014 (it outlived the
# prolog's timeout=), on n2 at 990, before the job: n1 observed it for
# part of its run. Ready times of nodes outside the job are left out by
# the query itself ("and on (instance)"); the stand-in answers with the
# job's nodes' only.
S44 = {k: list(v) for k, v in S.items()}
S44["spank_ebpf_job_start_time_seconds"] = [({"instance": "n1:9100"}, 1000), ({"instance": "n2:9100"}, 1000)]
READY = {"44": [({"instance": "n1:9100", "set": "io"}, 1014), ({"instance": "n2:9100", "set": "io"}, 990),
                ({"instance": "n2:9100", "set": "oom"}, 1100)]}
# Job 45: spank-fs's series (probes/spank-fs.yaml). n1 writes to nfs4 /home and
# creates files there; n2 stats them, its stat buckets with other bounds
# than n1's; both cause NFS RPCs. Another cluster's job 45 writes 5e9
# bytes to /home from otherclusternode7: left out.
def fs45(inst, fstype, mount, **kv):
    return dict(instance=inst, fstype=fstype, mount=mount, **kv)
S45 = {
    "ebpf_exporter_spank_fs_data_ops_total": [
        (fs45("n1:945", "nfs4", "/home", op="write"), 2000), (fs45("n1:945", "nfs4", "/home", op="read"), 10),
        (fs45("n2:945", "xfs", "/scratch", op="read"), 300),
        (fs45("otherclusternode7:945", "nfs4", "/home", op="write"), 5e9)],
    "ebpf_exporter_spank_fs_data_bytes_total": [
        (fs45("n1:945", "nfs4", "/home", op="write"), 8e6), (fs45("n1:945", "nfs4", "/home", op="read"), 4100),
        (fs45("n2:945", "xfs", "/scratch", op="read"), 3e9)],
    "ebpf_exporter_spank_fs_meta_ops_total": [
        (fs45("n1:945", "nfs4", "/home", op="create"), 1500), (fs45("n1:945", "nfs4", "/home", op="stat"), 100),
        (fs45("n1:945", "nfs4", "/home", op="unlink"), 500), (fs45("n2:945", "nfs4", "/home", op="stat"), 900)],
    "ebpf_exporter_spank_fs_meta_latency_seconds_bucket": [
        (fs45("n1:945", "nfs4", "/home", **{"class": "stat", "le": le}), v)
        for le, v in (("0.001", 100), ("+Inf", 100))] + [
        (fs45("n2:945", "nfs4", "/home", **{"class": "stat", "le": le}), v)
        for le, v in (("0.002", 0), ("0.004", 900), ("+Inf", 900))] + [
        (fs45("n1:945", "nfs4", "/home", **{"class": "open", "le": le}), v)
        for le, v in (("0.002", 0), ("0.004", 1500), ("+Inf", 1500))],
    "ebpf_exporter_spank_fs_nfs_rpcs_total": [
        ({"instance": "n1:945", "mount": "/home", "procedure": "WRITE"}, 4000),
        ({"instance": "n1:945", "mount": "/home", "procedure": "CREATE"}, 1500),
        ({"instance": "n2:945", "mount": "/home", "procedure": "GETATTR"}, 900)],
    "spank_ebpf_job_info": [({"instance": "n1:9100", "sets": "fs"}, 1), ({"instance": "n2:9100", "sets": "fs"}, 1)],
}
S41 = {
    "ebpf_exporter_spank_sched_runq_latency_seconds_bucket": [
        ({"instance": "n1:942", "behind": "other_jobs", "le": le}, v)
        for le, v in (("0.001", 10), ("0.002", 10), ("0.004", 10), ("+Inf", 10))] + [
        ({"instance": "n2:942", "behind": "outside_jobs", "le": le}, v)
        for le, v in (("0.001", 0), ("0.004", 10), ("+Inf", 10))],
    "ebpf_exporter_spank_sched_runq_latency_seconds_sum": [
        ({"instance": "n1:942", "behind": "other_jobs"}, 0.009),
        ({"instance": "n2:942", "behind": "outside_jobs"}, 0.001)],
}
# Job 42: instances whose host is no plain node name: "*" (the
# summary's whole job), "-" (its empty name), "", a blank, '%', '='.
S42 = {
    "ebpf_exporter_spank_oom_kills_total": [
        ({"instance": i}, n) for n, i in enumerate(("*:944", "-:944", ":944", "a b:944", "50%=x:944", "n1:944"), 1)],
    "spank_ebpf_job_info": [({"instance": "*:9100", "sets": "io, =*"}, 1), ({"instance": "n1:9100", "sets": "-"}, 1)],
}
# Job 43: damaged series: 1.7e308 bytes read on each node (the sum is
# not finite), a bucket bound NaN on n1, one negative on n2; the
# retransmits are sound.
S43 = {
    "ebpf_exporter_spank_io_bytes_total": [
        ({"instance": "n1:941", "operation": "read"}, 1.7e308), ({"instance": "n2:941", "operation": "read"}, 1.7e308)],
    "ebpf_exporter_spank_io_latency_seconds_bucket": [
        ({"instance": "n1:941", "operation": "write", "le": le}, 5) for le in ("NaN", "+Inf")],
    "ebpf_exporter_spank_sched_runq_latency_seconds_bucket": [
        ({"instance": "n2:942", "behind": "own_job", "le": le}, 5) for le in ("-1", "+Inf")],
    "ebpf_exporter_spank_net_tcp_retransmits_total": [({"instance": "n1:943"}, 3), ({"instance": "n2:943"}, 4)],
}
# Job 10 ran on 1000 nodes, each with its reads (a summary's bound).
S10 = {
    "ebpf_exporter_spank_io_latency_seconds_bucket": [
        ({"instance": "n%04d:941" % i, "operation": "read", "le": le}, v)
        for i in range(1, 1001)
        for le, v in (("0.001", 10), ("0.002", 90), ("0.004", 100), ("+Inf", 100))],
    "ebpf_exporter_spank_io_bytes_total": [
        ({"instance": "n%04d:941" % i, "operation": "read"}, 409600) for i in range(1, 1001)],
}
# Job 14: job 5's series, and those of another cluster's job 14 (one
# Prometheus for both, job IDs colliding) on a node job 14 never ran on.
S14 = {k: list(v) for k, v in S.items()}
S14["ebpf_exporter_spank_io_bytes_total"].append(({"instance": "otherclusternode7:941", "operation": "read"}, 5e9))
S14["spank_ebpf_job_info"].append(({"instance": "otherclusternode7:9100", "sets": "io"}, 1))
# Job 16: scraped by the node's full name.
S16 = {"ebpf_exporter_spank_io_bytes_total": [({"instance": "n1.cluster.example:941", "operation": "read"}, 100)]}
# Job 17: answers of 50,000 samples (the most an answer may have) naming
# 4,200 instances, to two queries (the job ran on n[1-4000]: 200 of them
# are outside it). Job 18: 175,727 samples, just under the 8 MiB an
# answer may have, refused for its number of values.
BIG = {}
def big(n):
    if n not in BIG:
        res = [{"metric": {"instance": "n%d" % (i % 4200 + 1)}, "value": [1, "1"]} for i in range(n)]
        BIG[n] = json.dumps({"status": "success", "data": {"resultType": "vector", "result": res}},
                            separators=(",", ":")).encode()
    return BIG[n]
# Job 19 ran 1 s: node_exporter's job_info line was scraped, no series
# of its sets was.
S19 = {"spank_ebpf_job_info": [({"instance": "n1:9100", "sets": "io"}, 1)]}
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        u = urllib.parse.urlparse(self.path)
        q = urllib.parse.parse_qs(u.query)
        mode = open(d + "/mode").read().strip()
        with open(d + "/prom.log", "a") as f:
            f.write("%s time=%s query=%s\n" % (u.path, q.get("time", ["-"])[0], q.get("query", ["-"])[0]))
        with open(d + "/prom.clock", "a") as f:
            f.write("%.3f\n" % time.time())
        if "slow" in mode:
            time.sleep(1.5)
        if mode == "error":
            body = json.dumps({"status": "error", "errorType": "bad_data",
                               "error": "parse error \x1b]0;PWNED\x07 at char 3"}).encode()
            code = 400
        elif mode == "garbage":
            body, code = b'{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"1"]},]}}', 200
        elif "timestamp(" in q.get("query", [""])[0] or "last_over_time(" in q.get("query", [""])[0]:
            # The question after a job's end: has Prometheus scraped its
            # series since? Their last scrape: before the end (1300) for
            # the first two asks, after it from the third; never after
            # it with "noscrape" in the mode file.
            qq = q["query"][0]
            m = re.search(r'jobid="(\d+)"', qq)
            series = {"5": S, "6": S6, "7": S7, "10": S10}.get(m.group(1) if m else "", {})
            names = [k for k in series if k.startswith("ebpf_exporter_spank_")]
            with open(d + "/prom.log") as f:
                n = sum(1 for l in f if "timestamp(" in l or "last_over_time(" in l)
            last = 1290 if n <= 2 or "noscrape" in mode else 1305
            res, code = [], 200
            if "timestamp(" in qq and "__name__" in qq:
                # As Prometheus: timestamp() drops the metric's name, and
                # a histogram's _sum and _count then have the same labels.
                sets = []
                for k in names:
                    for l, v in series[k]:
                        sets.append(tuple(sorted(l.items())))
                        if k.endswith("_bucket") and l.get("le") == "+Inf":
                            base = tuple(sorted((a, b) for a, b in l.items() if a != "le"))
                            sets += [base, base]
                if len(set(sets)) < len(sets):
                    body = json.dumps({"status": "error", "errorType": "execution",
                                       "error": "vector cannot contain metrics with the same labelset"}).encode()
                    code = 422
                elif sets:
                    res = [{"metric": {}, "value": [2000.0, str(last)]}]
            elif "last_over_time(" in qq and names:
                # count(last_over_time(X[Dms])) > 0 or count(X) * 0 at
                # time t: the series scraped in (t - D, t], else 0 (the
                # series there, their last scrape before the end). A
                # window reaching back before the job's end (1300) would
                # count that scrape: refused, as a wrong question.
                w = re.search(r'\[(\d+)ms\]', qq)
                start = float(q["time"][0]) - int(w.group(1)) / 1000.0 if w else 0
                if start < 1300 - 0.001:
                    body = json.dumps({"status": "error", "errorType": "bad_data",
                                       "error": "stand-in: the window starts before the job's end"}).encode()
                    code = 400
                else:
                    res = [{"metric": {}, "value": [2000.0, str(len(names)) if last > 1300 else "0"]}]
            if code == 200:
                body = json.dumps({"status": "success", "data": {"resultType": "vector", "result": res}}).encode()
        elif "spank_ebpf_set_ready_time_seconds" in q.get("query", [""])[0]:
            j = re.search(r'jobid="(\d+)"', q.get("query", [""])[0])
            res = [{"metric": l, "value": [1300.0, str(v)]} for l, v in READY.get(j.group(1) if j else "", [])]
            body = json.dumps({"status": "success", "data": {"resultType": "vector", "result": res}}).encode()
            code = 200
        else:
            m = re.search(r'\(([a-z_]+)\{jobid="(\d+)"\}\[\d+s\]\)', q.get("query", [""])[0])
            res = []
            if m and m.group(2) in ("5", "6", "7", "10", "14", "16", "19", "41", "42", "43", "44", "45") and mode != "gone":
                res = [{"metric": l, "value": [1300.0, str(v)]}
                       for l, v in {"5": S, "6": S6, "7": S7, "10": S10, "14": S14, "16": S16, "19": S19,
                                    "41": S41, "42": S42, "43": S43, "44": S44, "45": S45}[m.group(2)].get(m.group(1), [])]
            body = json.dumps({"status": "success", "data": {"resultType": "vector", "result": res}}).encode()
            if m and m.group(2) in ("17", "18") and m.group(1) in ("ebpf_exporter_spank_net_tcp_retransmits_total", "spank_ebpf_job_info"):
                body = big(50000 if m.group(2) == "17" else 175727)
            code = 200
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
s = http.server.HTTPServer(("127.0.0.1", 0), H)
# https with a throwaway CA: prometheus= on this host at a port any user
# may bind is refused without one (any local process could answer).
import ssl
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(d + "/server.pem", d + "/server.key")
s.socket = ctx.wrap_socket(s.socket, server_side=True)
open(d + "/prom.port.tmp", "w").write(str(s.server_port))
import os; os.rename(d + "/prom.port.tmp", d + "/prom.port")
s.serve_forever()
EOF
# The stand-in's certificate for 127.0.0.1, signed by a CA made here.
standin_tls "$d"
python3 "$d/prom.py" "$d" &
prom_pid=$!
wait_until 20 "the stand-in Prometheus" test -s "$d/prom.port"
port=$(cat "$d/prom.port")
printf 'optional /usr/lib/slurm/spank_ebpf.so prometheus=https://127.0.0.1:%s/ prometheus_ca=%s\n' "$port" "$d/ca.pem" >"$d/plugstack.conf"
printf 'optional /usr/lib/slurm/spank_ebpf.so\n' >"$d/none.conf"

run() { # run ARGS...: sets out, err, rc; from env -i, as a user would
	out=$(env -i PATH=/usr/bin:/bin "$cmd" -c "$d/plugstack.conf" "$@" 2>"$d/err") && rc=0 || rc=$?
	err=$(cat "$d/err")
}
queries() { if [ -s "$d/prom.log" ]; then wc -l <"$d/prom.log"; else echo 0; fi; }

# --- an ended job, from accounting ------------------------------------------
run report --cluster --squeue "$d/slurm/squeue" 5
is "report --cluster 5: exit 0, nothing on stderr" "$rc $err" "0 "
is "... the job from sacct, its two nodes, the whole job's figures first (buckets summed, then quantiles), then each node's" \
	"$out" "job 5 (user alice), COMPLETED, nodes n[1-2], $(date -d @1000 +%Y-%m-%dT%H:%M:%S) to $(date -d @1300 +%Y-%m-%dT%H:%M:%S) (300 s), from Prometheus at https://127.0.0.1:$port/
 whole job (2 nodes with series):
  I/O read   200 requests, 819200 bytes, latency p50 0.002182 s, p99 0.003964 s
  TCP        7 retransmits, 0 connections (0 connect, 0 accept)
 node n1, sets io,net:
  I/O read   100 requests, 409600 bytes, latency p50 0.001500 s, p99 0.003800 s
  TCP        3 retransmits, 0 connections (0 connect, 0 accept)
 node n2, sets io,net:
  I/O read   100 requests, 409600 bytes, latency p50 0.003000 s, p99 0.003980 s
  TCP        4 retransmits, 0 connections (0 connect, 0 accept)"
like "... sacct asked for the job's allocation line, as the caller" "$(cat "$d/slurm.log")" \
	"^sacct --noheader --parsable2 --allocations --jobs=5 --format=JobIDRaw,UID,User,Start,End,State,NodeList$"
like "... Prometheus asked at the job's end + 120 s, over its run + 240 s, by instance" "$(head -n 1 "$d/prom.log")" \
	'^/api/v1/query time=1420.000 query=sum by \(instance, operation, le, behind, direction, fstype, mount, op, class, procedure\) \(max_over_time\(ebpf_exporter_spank_io_latency_seconds_bucket\{jobid="5"\}\[540s\]\)\)$'
is "... one query per metric report reads, one for the nodes' sets, two for when the job joined them and they became ready" "$(queries)" 18

run report --cluster --json --squeue "$d/slurm/squeue" 5
is "report --cluster --json 5: the total, each node, no errors" \
	"$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); t=d["total"]; print(d["job"], d["user"], d["state"], d["nodes"], d["start"], d["end"], d["source"], t["io"]["read"]["bytes"], t["io"]["read"]["latency"]["count"], t["net"]["retransmits"], [(n["node"], n["sets"], n["io"]["read"]["bytes"]) for n in d["per_node"]], d["errors"])' 2>&1)" \
	"5 alice COMPLETED n[1-2] 1000 1300 prometheus 819200 200 7 [('n1', 'io,net', 409600), ('n2', 'io,net', 409600)] []"

run report --cluster --squeue "$d/slurm/squeue" 6
is "a job whose figures say something: a hint for each, with its threshold; the CPU share of the time on each node" \
	"$rc $(printf '%s\n' "$out" | sed -n '/^ whole job/,/^ node/p' | sed '$d')" "0  whole job (2 nodes with series):
  I/O write  100 requests, 0 bytes, latency p50 0.001000 s, p99 0.100000 s
  CPU wait   your job waited for a CPU 30% of the time (180.0 s of its 300 s on each of 2 nodes with a task waiting); its tasks waited 270.0 s in all, 1500 times
  TCP        150 retransmits, 0 connections (0 connect, 0 accept)
  OOM        1 processes killed
  hint       its write requests waited long: p99 0.100 s, above 0.05 s: the storage was busy or slow (the file system's servers, or the disk)
  hint       a task of it waited for a CPU 30% of the time, above 25%: more runnable threads than the CPUs it was given (--cpus-per-task, the threads it starts)
  hint       150 TCP segments retransmitted, 100 or more: a lossy or congested network path
  hint       the OOM killer ended 1 of its processes: it needs more memory than it had (--mem)"
run report --cluster --json --squeue "$d/slurm/squeue" 6
is "... --json: the hints' keys; the waiting share over both nodes' time" \
	"$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print([h["key"] for h in d["hints"]], d["total"]["cpu"]["waiting_share"], [n["cpu"]["waiting_share"] for n in d["per_node"]])' 2>&1)" \
	"['slow_storage', 'cpu_oversubscribed', 'lossy_network', 'out_of_memory'] 0.3 [0.4, 0.2]"
run report --cluster --json --squeue "$d/slurm/squeue" 5
is "... and none for job 5" "$(printf '%s' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["hints"])' 2>&1)" "[]"

run report --cluster --squeue "$d/slurm/squeue" 7
is "nodes whose buckets have different bounds: added as step functions (0.001: 10, 0.002: 20, +Inf: 20)" \
	"$rc $(printf '%s\n' "$out" | sed -n 3p)" "0   I/O read   20 requests, 0 bytes, latency p50 0.001000 s, p99 0.001980 s"

run report --cluster --squeue "$d/slurm/squeue" 8
like "Slurm's words (a state) made printable before the terminal" "$rc $(printf '%s\n' "$out" | head -n 1)" \
	'^0 job 8 \(user alice\), COMP\\x1b\]0;PWNED\\x07LETED, nodes n1, '
# In JSON, Slurm's words as valid UTF-8: a byte that is not (0xff) as
# U+FFFD, control bytes escaped (\u001b), valid UTF-8 (é) as it is.
run report --cluster --json --squeue "$d/slurm/squeue" 13
is "report --cluster --json of a user and state with bytes 0xff and controls: valid UTF-8 JSON, nothing raw" \
	"$rc $(LC_ALL=C grep -c $'[\x01-\x1f]' <<<"$out") $(printf '%s' "$out" | python3 -c '
import json, sys
d = json.loads(sys.stdin.buffer.read().decode("utf-8"))
print(ascii(d["user"]), ascii(d["state"]))' 2>&1)" \
	"0 0 'al\\ufffdi\\x01c\\xe9' 'COMP\\x1b]0;PWNED\\x07LETED'"

# --- the summary at the job's end (summary, report --summary) ---------------
# jobstats' token as its EpilogSlurmctld stores it: JS1: + base64 of
# gzipped JSON, read from "JS1:" to the field's end.
js1=$(python3 -c 'import base64,gzip,json; print("JS1:" + base64.b64encode(gzip.compress(json.dumps({"nodes": {"n1": {"cpus": 4}}}).encode())).decode())')
jobstats_reads() { # what jobstats reads back from job 5's AdminComment
	python3 -c 'import base64,gzip,sys; s=open(sys.argv[1]).read(); print(gzip.decompress(base64.b64decode(s[s.find("JS1:")+4:])).decode())' "$d/ac.5" 2>&1
}
summary_head() { # the first line of the token on stdin
	python3 -c 'import base64,sys; s=sys.stdin.read(); t=[w[4:] for w in s.split() if w.upper().startswith("SE1:")]; print(base64.b32decode(t[0].upper() + "=" * (-len(t[0]) % 8)).decode().split("\n")[0] if t else "none")'
}
printf 'reviewed by the admins %s' "$js1" >"$d/ac.5"
: >"$d/prom.log"
: >"$d/slurm.log"
t0=$(date +%s)
run summary --squeue "$d/slurm/squeue" 5
t1=$(date +%s)
like "summary 5: exit 0, said what it stored" "$rc $err" \
	"^0 info: spank_ebpf: summary job 5: stored in its AdminComment: 2 of 2 nodes, [0-9]+ bytes$"
is "... it waited for Prometheus' scrape after the job's end (asked 3 times, 2 s apart)" \
	"$(grep -Ec 'timestamp\(|last_over_time\(' "$d/prom.log") $((t1 - t0 >= 4))" "3 1"
like "... the token first in the field, the admins' text and jobstats' token after it, as they were" \
	"$(cat "$d/ac.5")" "^SE1:[a-z2-7]+ reviewed by the admins JS1:[A-Za-z0-9+/]+=*\$"
is "... jobstats still reads its own token" "$(jobstats_reads)" '{"nodes": {"n1": {"cpus": 4}}}'
like "... its head: the job, when, its run time, 2 nodes with series, 2 kept" "$(summary_head <"$d/ac.5")" \
	"^v1 job=5 at=[0-9]+ elapsed=300 nodes=2 kept=2\$"
like "... read the field from accounting, then changed the job's record with sacctmgr" "$(grep -E 'AdminComment|sacctmgr' "$d/slurm.log" | tr '\n' '|')" \
	"^sacct --noheader --parsable2 --allocations --jobs=5 --format=JobIDRaw,JobID,State,AdminComment,JobIDRaw\\|sacctmgr -i modify job where jobid=5 set AdminComment=SE1:"
first=$(cat "$d/ac.5")
run summary --squeue "$d/slurm/squeue" 5
is "summary 5 again: one token, in place of the first, the rest unchanged" \
	"$rc $(grep -o 'SE1:' "$d/ac.5" | wc -l) $(sed 's/^SE1:[^ ]* //' "$d/ac.5" | md5sum)" \
	"0 1 $(printf '%s' "$first" | sed 's/^SE1:[^ ]* //' | md5sum)"

# The field kept whole or not written at all. jobstats' token can be
# long (40,000 characters); the field may hold newlines and words that
# only look like a token; slurmdbd keeps 65,535 bytes of it (MySQL TEXT).
rest_of() { sed -z 's/^SE1:[^ ]* //' "$d/ac.5" | md5sum; }
big="reviewed by the admins JS1:$(head -c 29997 /dev/zero | base64 -w 0)"
printf '%s' "$big" >"$d/ac.5"
run summary --squeue "$d/slurm/squeue" 5
is "a field of ${#big} bytes ending in a 40000-character JS1: token: stored, the field whole after the token" \
	"$rc $(rest_of)" "0 $(printf '%s' "$big" | md5sum)"
huge="reviewed JS1:$(head -c 48900 /dev/zero | base64 -w 0)"
printf '%s' "$huge" >"$d/ac.5"
run summary --squeue "$d/slurm/squeue" 5
like "a field of ${#huge} bytes the token cannot join within 65535: nothing written, exit 2, said" \
	"$rc $err $(md5sum <"$d/ac.5")" \
	"^2 error: spank_ebpf: summary job 5: not stored: its AdminComment \\(${#huge} bytes\\) and the summary \\([0-9]+ bytes\\) exceed the 65535 bytes Slurm's database keeps in it: the field is left as it was $(printf '%s' "$huge" | md5sum | cut -d' ' -f1)"
printf 'reviewed\nsecond line %s' "$js1" >"$d/ac.5"
run summary --squeue "$d/slurm/squeue" 5
is "a field with a newline: both lines kept after the token" "$rc $(rest_of)" \
	"0 $(printf 'reviewed\nsecond line %s' "$js1" | md5sum)"
printf 'se1:cluster-A migrated; JS1:abc' >"$d/ac.5"
run summary --squeue "$d/slurm/squeue" 5
like "an admin's word that only looks like a token (se1:cluster-A): kept" "$rc $(cat "$d/ac.5")" \
	"^0 SE1:[a-z2-7]+ se1:cluster-A migrated; JS1:abc\$"
# No scrape of the job's series since its end within --wait: the
# summary is made all the same, and says so, stored and shown.
echo "ok noscrape" >"$d/mode"
printf '%s' "$first" >"$d/ac.5"
run summary --wait 2 --squeue "$d/slurm/squeue" 5
echo ok >"$d/mode"
like "a summary made before the job's last scrape: stored, saying so" "$rc $err" \
	"^0 info: spank_ebpf: summary job 5: stored in its AdminComment: 2 of 2 nodes, [0-9]+ bytes, made before the job's last scrape \\(Prometheus had none since its end after 2 s\\): its last seconds may be missing\$"
run report --summary --squeue "$d/slurm/squeue" 5
like "... report --summary says so" "$rc $(printf '%s\n' "$out" | head -n 1)" \
	"^0 job 5 .*, from its summary in Slurm's accounting \\(made at [0-9T:-]+, before the job's last scrape: its last seconds may be missing\\)\$"
run report --summary --json --squeue "$d/slurm/squeue" 5
is "... --json too" "$(printf '%s' "$out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["summary_before_last_scrape"])' 2>&1)" True
printf '%s' "$first" >"$d/ac.5"

run report --cluster --squeue "$d/slurm/squeue" 5
from_prom=$out
from_prom5=$out
run report --summary --squeue "$d/slurm/squeue" 5
is "report --summary 5: exit 0, nothing on stderr" "$rc $err" "0 "
like "... says where the figures come from" "$(printf '%s\n' "$out" | head -n 1)" \
	"^job 5 \\(user alice\\), COMPLETED, nodes n\\[1-2\\], .* \\(300 s\\), from its summary in Slurm's accounting \\(made at [0-9T:-]+\\)\$"
is "... the same figures as from Prometheus, whole job and each node" \
	"$(printf '%s\n' "$out" | sed 1d)" "$(printf '%s\n' "$from_prom" | sed 1d)"
run report --cluster --squeue "$d/slurm/squeue" 6
from_prom=$out
run summary --squeue "$d/slurm/squeue" 6
run report --summary --squeue "$d/slurm/squeue" 6
is "job 6 (CPU wait, OOM, retransmits, the hints) from its summary: the same lines" \
	"$rc $(printf '%s\n' "$out" | sed 1d)" "0 $(printf '%s\n' "$from_prom" | sed 1d)"
json_figures() { python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["source"], d["nodes_with_series"], json.dumps(d["total"], sort_keys=True), json.dumps(d["per_node"], sort_keys=True), d["hints"])' 2>&1; }
run report --cluster --json --squeue "$d/slurm/squeue" 5
from_prom=$(printf '%s' "$out" | json_figures)
run report --summary --json --squeue "$d/slurm/squeue" 5
is "report --summary --json 5: source summary, the same total and nodes, quantiles and all, as from Prometheus" \
	"$(printf '%s' "$out" | json_figures)" "$(echo "$from_prom" | sed 's/^prometheus /summary /')"

run report --cluster --squeue "$d/slurm/squeue" 41
from_prom=$out
is "job 41, run-queue buckets with other bounds on each node: the whole job's added as step functions" \
	"$rc $(printf '%s\n' "$out" | sed -n 3p)" \
	"0   run queue  20 waits, p50 0.001000 s, p99 0.003960 s; of the time waited, 90% behind other jobs, 10% behind processes outside any job"
run summary --squeue "$d/slurm/squeue" 41
run report --summary --squeue "$d/slurm/squeue" 41
is "... from its summary: the same words, whole job and each node" "$rc $(printf '%s\n' "$out" | sed 1d)" \
	"0 $(printf '%s\n' "$from_prom" | sed 1d)"
run report --cluster --json --squeue "$d/slurm/squeue" 41
from_prom=$(printf '%s' "$out" | json_figures)
run report --summary --json --squeue "$d/slurm/squeue" 41
is "... and the same JSON" "$(printf '%s' "$out" | json_figures)" "$(echo "$from_prom" | sed 's/^prometheus /summary /')"

# Job 44: n1's io set became ready 14 s after the job joined it there.
run report --cluster --squeue "$d/slurm/squeue" 44
from_prom=$out
is "job 44, observed on n1 from 14 s after its start: said first, for the whole job and for n1 alone" \
	"$rc $(printf '%s\n' "$out" | grep -c 'observed   in part') $(printf '%s\n' "$out" | sed -n 3p)" \
	"0 2   observed   in part only: set io's exporter became ready 14 s after the job's start on node n1 (a late start or a restart); the figures below miss part of its run"
like "... n2's section says nothing of it (its io was ready before; oom is no set of its)" \
	"$(printf '%s\n' "$out" | sed -n '/^ node n2/,$p' | sed -n 2p)" "^  I/O read "
run report --cluster --json --squeue "$d/slurm/squeue" 44
is "... --json: partial for the whole job and n1, null for n2" \
	"$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["total"]["partial"], [n["partial"] for n in d["per_node"]])' 2>&1)" \
	"{'from_seconds': 14, 'set': 'io', 'node': 'n1'} [{'from_seconds': 14, 'set': 'io', 'node': 'n1'}, None]"
from_prom_json=$(printf '%s' "$out" | json_figures)
run summary --squeue "$d/slurm/squeue" 44
run report --summary --squeue "$d/slurm/squeue" 44
is "... from its summary: the same words" "$rc $(printf '%s\n' "$out" | sed 1d)" \
	"0 $(printf '%s\n' "$from_prom" | sed 1d)"
run report --summary --json --squeue "$d/slurm/squeue" 44
is "... and the same JSON" "$(printf '%s' "$out" | json_figures)" "$(echo "$from_prom_json" | sed 's/^prometheus /summary /')"

# Job 45: the fs set's figures, per mount, summed over nodes (buckets of
# other bounds added as step functions before the p99: stat {0.001: 100,
# +Inf: 100} + {0.002: 0, 0.004: 900, +Inf: 900} is 100, 100, 1000, 1000
# at 0.001, 0.002, 0.004, +Inf, p99 0.002 + 0.002 * 890 / 900), another
# cluster's node left out;
# the same words and JSON from its summary.
run report --cluster --squeue "$d/slurm/squeue" 45
from_prom=$out
is "job 45, file systems: exit 0, another cluster's node left out, said" "$rc $err" \
	"0 spank-ebpf: report: series of 1 node outside job 45's nodes left out: otherclusternode7"
is "... the whole job per mount, then each node: data, metadata by operation, p99 per class, NFS RPCs in words" \
	"$(printf '%s\n' "$out" | sed 1d)" " whole job (2 nodes with series):
  file systems: nfs4 /home: 10 reads, 4.1 kB, 2000 writes, 8.0 MB; 3000 metadata operations (1500 create, 1000 stat, 500 unlink); p99 open 4.0 ms, stat 4.0 ms
  NFS RPCs on nfs4 /home: 4000 WRITE, 1500 CREATE, 900 GETATTR
  file systems: xfs /scratch: 300 reads, 3.0 GB
 node n1, sets fs:
  file systems: nfs4 /home: 10 reads, 4.1 kB, 2000 writes, 8.0 MB; 2100 metadata operations (1500 create, 500 unlink, 100 stat); p99 open 4.0 ms, stat 990 us
  NFS RPCs on nfs4 /home: 4000 WRITE, 1500 CREATE
 node n2, sets fs:
  file systems: xfs /scratch: 300 reads, 3.0 GB
  file systems: nfs4 /home: 900 metadata operations (900 stat); p99 stat 4.0 ms
  NFS RPCs on nfs4 /home: 900 GETATTR"
run report --cluster --json --squeue "$d/slurm/squeue" 45
is "... --json: the total's fs member per mount, the node left out in errors" \
	"$(printf '%s' "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
for m in d["total"]["fs"]:
    print(m["fstype"], m["mount"], m["network"], m["data"]["write"], m["meta"]["stat"], m["latency"]["stat"], m["nfs_rpcs"])
print(d["errors"])' 2>&1)" \
	"nfs4 /home True {'ops': 2000, 'bytes': 8000000} 1000 {'count': 1000, 'p99_seconds': 0.00397777778} {'WRITE': 4000, 'CREATE': 1500, 'GETATTR': 900}
xfs /scratch False {'ops': 0, 'bytes': 0} 0 {'count': 0, 'p99_seconds': None} {}
[\"series of 1 node outside job 45's nodes left out: otherclusternode7\"]"
from_prom_json=$(printf '%s' "$out" | json_figures)
run summary --squeue "$d/slurm/squeue" 45
like "... its summary stored" "$rc $(printf '%s\n' "$err" | tail -n 1)" "^0 info: spank_ebpf: summary job 45: stored in its AdminComment: 2 of 2 nodes, "
run report --summary --squeue "$d/slurm/squeue" 45
is "... from its summary: the same words, \"file systems:\" and all" "$rc $(printf '%s\n' "$out" | sed 1d)" \
	"0 $(printf '%s\n' "$from_prom" | sed 1d)"
run report --summary --json --squeue "$d/slurm/squeue" 45
is "... and the same JSON" "$(printf '%s' "$out" | json_figures)" "$(echo "$from_prom_json" | sed 's/^prometheus /summary /')"

# Such names are no node of the job (n[1-2]): left out, named, before
# the summary's writer sees them (its codec round-trips them all the
# same: test_summary).
run report --cluster --squeue "$d/slurm/squeue" 42
from_prom=$out
is "job 42, instances named *, -, '', 'a b', '50%=x': n1 alone, the others left out, named" \
	"$rc $(printf '%s\n' "$out" | grep -c '^ node ') $err" \
	"0 1 spank-ebpf: report: series of 5 nodes outside job 42's nodes left out: , *, -, 50%=x, a b"
run summary --squeue "$d/slurm/squeue" 42
like "... its summary stored, its 1 node" "$rc $(printf '%s\n' "$err" | tail -n 1)" "^0 info: spank_ebpf: summary job 42: stored in its AdminComment: 1 of 1 nodes?, "
run report --summary --squeue "$d/slurm/squeue" 42
is "... read back: the same words, each node's name and sets as they were" "$rc $err $(printf '%s\n' "$out" | sed 1d)" \
	"0  $(printf '%s\n' "$from_prom" | sed 1d)"

run report --cluster --squeue "$d/slurm/squeue" 43
from_prom=$out
from_prom_err=$err
is "job 43, damaged series: exit 1, each refused with words, none printed as inf, nan or -1" \
	"$rc $(printf '%s\n' "$out" | grep -c -e inf -e nan -e '-1\.0') $(printf '%s\n' "$out" | sed -n 3,6p)" \
	"1 0   I/O read   not shown: a damaged series (named in the errors)
  I/O write  not shown: a damaged series (named in the errors)
  run queue  not shown: a damaged series (named in the errors)
  TCP        7 retransmits, 0 connections (0 connect, 0 accept)"
is "... the errors say which node and series" "$err" \
	"spank-ebpf: report: node n1: ebpf_exporter_spank_io_latency_seconds_bucket{operation=\"write\"}: refused as damaged: a bucket bound that is NaN or negative, or a count that is not a finite count or falls
spank-ebpf: report: node n2: ebpf_exporter_spank_sched_runq_latency_seconds_bucket{behind=\"own_job\"}: refused as damaged: a bucket bound that is NaN or negative, or a count that is not a finite count or falls
spank-ebpf: report: whole job: ebpf_exporter_spank_io_bytes_total{operation=\"read\"}: refused as damaged: a value that is not a finite count (NaN, infinite or negative), alone or added up"
is "... each node's sound figures stand" "$(printf '%s\n' "$out" | grep -c -e '^  TCP        [34] retransmits' -e '^  I/O read   1[0-9]\{308\} bytes, ')" 4
run report --cluster --json --squeue "$d/slurm/squeue" 43
is "... --json: exit 1, JSON (json.tool reads it), the damaged figures null, the errors listed" \
	"$rc $(printf '%s' "$out" | python3 -m json.tool >/dev/null 2>&1 && echo json) $(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); t=d["total"]; n=d["per_node"]; print(t["io"]["read"]["bytes"], t["io"]["write"]["latency"], t["sched"]["runq_latency"]["count"], t["net"]["retransmits"], n[0]["io"]["write"]["latency"]["count"], n[1]["sched"]["runq_latency"]["p50_seconds"], len(d["errors"]), d["errors"][2].split(": refused")[0])' 2>&1)" \
	"1 json None {'count': None, 'p50_seconds': None, 'p99_seconds': None} None 7 None None 3 whole job: ebpf_exporter_spank_io_bytes_total{operation=\"read\"}"
run summary --squeue "$d/slurm/squeue" 43
like "... its summary stored" "$rc $err" "^0 info: spank_ebpf: summary job 43: stored in its AdminComment: 2 of 2 nodes, "
run report --summary --squeue "$d/slurm/squeue" 43
is "... read back: exit 1, the same words and errors" "$rc $(printf '%s\n' "$out" | sed 1d)
$err" "1 $(printf '%s\n' "$from_prom" | sed 1d)
$from_prom_err"

echo gone >"$d/mode"
run report --cluster --squeue "$d/slurm/squeue" 5
like "Prometheus without the job's series any more: report --cluster gives the summary" "$rc $err $(printf '%s\n' "$out" | head -n 2 | tr '\n' '|')" \
	"^0  job 5 .*from its summary in Slurm's accounting .*\\| whole job \\(2 nodes with series\\):\\|\$"
echo ok >"$d/mode"

printf 'SE1:!!!! reviewed' >"$d/ac.5"
run report --summary --squeue "$d/slurm/squeue" 5
is "a token that is not base32: exit 2, said" "$rc $err" \
	"2 spank-ebpf: report: job 5's AdminComment: its summary is not base32 text"
b32() { python3 -c 'import base64,sys; print(base64.b32encode(sys.stdin.buffer.read()).decode().rstrip("=").lower())'; }
printf 'SE1:%s' "$(printf 'v1 job=5 at=1 elapsed=300 nodes=1 kept=1\nf * io=1,2\n' | b32)" >"$d/ac.5"
run report --summary --squeue "$d/slurm/squeue" 5
is "a token whose figures do not read: exit 2, nothing half-shown" "$rc $err ${out:-nothing}" \
	"2 spank-ebpf: report: job 5's AdminComment: its summary is damaged (a line this release cannot read) nothing"
printf 'SE1:%s' "$(printf 'v1 job=6 at=1 elapsed=300 nodes=0 kept=0\nf * sets=-\n' | b32)" >"$d/ac.5"
run report --summary --squeue "$d/slurm/squeue" 5
like "another job's token: refused" "$rc $err" "^2 spank-ebpf: report: job 5's AdminComment: its summary's first line is not one"
# Job 5's summary as if it had kept one of its two nodes (as a large
# job's keeps the first that fit): the other is named in the singular.
printf '%s' "$first" | python3 -c '
import base64, re, sys
t = sys.stdin.read().split()[0][4:]
lines = base64.b32decode(t.upper() + "=" * (-len(t) % 8)).decode().split("\n")
lines[0] = re.sub(" kept=2$", " kept=1", lines[0])
last = max(i for i, l in enumerate(lines) if l.startswith("f "))
del lines[last]
print("SE1:" + base64.b32encode("\n".join(lines).encode()).decode().rstrip("=").lower(), end="")' >"$d/ac.5"
run report --summary --squeue "$d/slurm/squeue" 5
is "a summary that kept 1 of 2 nodes: the other named in the singular" "$rc $(printf '%s\n' "$out" | tail -n 1)" \
	"0  the other node: in the whole job's figures only (the summary keeps 1 node within its 16384 bytes)"
printf 'reviewed %s' "$js1" >"$d/ac.5"
run report --summary --squeue "$d/slurm/squeue" 5
like "a field without a token: exit 1, says how one is made" "$rc $err" \
	"^1 spank-ebpf: report: job 5 has no summary in Slurm's accounting "

# Slurm 22.05's sacctmgr stores the field lowercased: the token still
# reads (base32, its tag in either case); an admin's text is lowercased
# (Slurm's doing, fixed in 23.02).
printf 'Reviewed by the Admins' >"$d/ac.5"
echo "ok lower" >"$d/mode"
run summary --squeue "$d/slurm/squeue" 5
echo ok >"$d/mode"
like "as Slurm 22.05 stores it (lowercased): the field" "$rc $(cat "$d/ac.5")" "^0 se1:[a-z2-7]+ reviewed by the admins\$"
run report --summary --squeue "$d/slurm/squeue" 5
is "... report --summary reads it: the same figures" "$rc $(printf '%s\n' "$out" | sed 1d)" "0 $(printf '%s\n' "$from_prom5" | sed 1d)"
run summary --squeue "$d/slurm/squeue" 5
is "... a summary after it replaces it, whatever its case" "$rc $(grep -o -i 'se1:' "$d/ac.5" | wc -l)" "0 1"

# An array's task: sacctmgr selects it as sacct names it (9_3), not by
# the array's ID, which would select every task.
run summary --squeue "$d/slurm/squeue" 12
like "summary of an array's task: sacctmgr given jobid=9_3" "$rc $(grep sacctmgr "$d/slurm.log" | tail -n 1)" \
	"^0 sacctmgr -i modify job where jobid=9_3 set AdminComment=SE1:"
# Accounting without the job's end yet: asked again until --wait, then said.
echo "ok running" >"$d/mode"
run summary --wait 0 --squeue "$d/slurm/squeue" 6
echo ok >"$d/mode"
is "accounting without the job's end: nothing stored, exit 2, said" "$rc $err" \
	"2 error: spank_ebpf: summary job 6: not stored: Slurm's accounting has not its end after 0 s"

run summary --print --squeue "$d/slurm/squeue" 10
tok=$out
like "summary --print 10 (1000 nodes): its head: 1000 nodes with series, fewer kept" \
	"$rc $(printf '%s' "$tok" | summary_head)" "^0 v1 job=10 at=[0-9]+ elapsed=300 nodes=1000 kept=[0-9]+\$"
kept=$(printf '%s' "$tok" | summary_head | sed 's/.*kept=//')
ok_if "... within the bound: ${#tok} bytes <= 16384, $kept nodes kept (more than 10, fewer than 1000)" \
	test "${#tok}" -le 16384 -a "$kept" -gt 10 -a "$kept" -lt 1000
is "... wrote nothing" "$(test -f "$d/ac.10" && echo written || echo none)" none
printf '%s' "$tok" >"$d/ac.10"
run report --summary --squeue "$d/slurm/squeue" 10
is "report --summary 10: the whole job's figures from all 1000 nodes" \
	"$rc $(printf '%s\n' "$out" | sed -n 2,3p)" "0  whole job (1000 nodes with series):
  I/O read   100000 requests, 409600000 bytes, latency p50 0.001500 s, p99 0.003800 s"
like "... the nodes kept, then the others counted" "$(printf '%s\n' "$out" | tail -n 1)" \
	"^ the other $((1000 - kept)) nodes: in the whole job's figures only \\(the summary keeps $kept nodes within its 16384 bytes\\)\$"

run summary --squeue "$d/slurm/squeue" 11
is "summary of a job no series of which reached Prometheus: stored, saying so" "$rc $err" \
	"0 info: spank_ebpf: summary job 11: stored in its AdminComment: no figures (no series of it reached Prometheus)"
run report --summary --squeue "$d/slurm/squeue" 11
is "... report --summary 11 says so, no zeros" "$rc $(printf '%s\n' "$out" | sed 1d)" \
	"0  whole job: no figures: no series of it reached Prometheus (a job too short for a scrape, or a set that never ran)"

run report --cluster --squeue "$d/slurm/squeue" 19
is "report --cluster of a 1-s job whose job_info line was scraped, no series of its sets: the words for a job too short for a scrape" \
	"$rc $(printf '%s\n' "$out" | sed 1d)" \
	"0  whole job: no figures: no series of it reached Prometheus (a job too short for a scrape, or a set that never ran)"
run summary --squeue "$d/slurm/squeue" 19
is "... summary 19: stored, saying so" "$rc $err" \
	"0 info: spank_ebpf: summary job 19: stored in its AdminComment: no figures (no series of it reached Prometheus)"
run report --summary --squeue "$d/slurm/squeue" 19
is "... report --summary 19: the same words" "$rc $(printf '%s\n' "$out" | sed 1d)" \
	"0  whole job: no figures: no series of it reached Prometheus (a job too short for a scrape, or a set that never ran)"

# As EpilogSlurmctld: the job from SLURM_JOB_ID, only if it asked.
rm -f "$d/ac.5"
: >"$d/slurm.log"
out=$(env -i PATH=/usr/bin:/bin SLURM_JOB_ID=5 "$cmd" -c "$d/plugstack.conf" epilog-slurmctld --squeue "$d/slurm/squeue" 2>&1) && rc=0 || rc=$?
is "epilog-slurmctld for a job without --ebpf: exit 0, nothing asked, nothing written" \
	"$rc ${out:-quiet} $(wc -l <"$d/slurm.log") $(test -f "$d/ac.5" && echo written || echo none)" "0 quiet 0 none"
out=$(env -i PATH=/usr/bin:/bin SLURM_JOB_ID=5 SPANK__SLURM_SPANK_OPTION_spank_ebpf_ebpf=io "$cmd" -c "$d/plugstack.conf" epilog-slurmctld --squeue "$d/slurm/squeue" 2>&1) && rc=0 || rc=$?
like "epilog-slurmctld for a job with --ebpf=io: stored" "$rc $out $(cat "$d/ac.5" 2>&1)" \
	"^0 info: spank_ebpf: summary job 5: stored in its AdminComment: 2 of 2 nodes, [0-9]+ bytes SE1:[a-z2-7]+\$"
out=$(env -i PATH=/usr/bin:/bin SLURM_JOB_ID=5 SPANK__SLURM_SPANK_OPTION_spank_ebpf_ebpf=io "$cmd" -c "$d/none.conf" epilog-slurmctld --squeue "$d/slurm/squeue" 2>&1) && rc=0 || rc=$?
like "... without prometheus= on the line: exit 0 all the same, said" "$rc $out" \
	"^0 error: spank_ebpf: summary job 5: no summary: the plugin's line in \"$d/none.conf\" has no prometheus=\$"

# --- a running job, from slurmctld ------------------------------------------
echo noacct >"$d/mode"
: >"$d/slurm.log"
: >"$d/prom.log"
before=$(date +%s)
run report --cluster --squeue "$d/slurm/squeue" 5
like "report --cluster of a running job without accounting: squeue's answer, to now" "$rc $out" \
	"^0 job 5 \\(user alice\\), RUNNING, nodes n\\[1-2\\], .* to now \\("
like "... squeue asked for every state, times as Unix seconds" "$(cat "$d/slurm.log")" \
	"squeue --noheader --states=all --jobs=5 --format=%i\\|%U\\|%u\\|%S\\|%e\\|%T\\|%N"
t=$(sed -n '1s/.* time=\([0-9]*\)\..*/\1/p' "$d/prom.log")
ok_if "... Prometheus asked at the present ($t, not before $before)" test "${t:-0}" -ge "$before"
# To the millisecond, not the whole second: a series whose first scrape
# came in the second the report is asked would be left out (a trixie run:
# a 3-s job's samples all at .046 past the second, the question at .000).
# Asked late in a second, a truncated time is 0.7 s behind.
python3 -c 'import time; time.sleep((1.75 - time.time() % 1) % 1)'
: >"$d/prom.log"
: >"$d/prom.clock"
run report --cluster --squeue "$d/slurm/squeue" 5
asked=$(sed -n '1s/.* time=\([0-9.]*\) .*/\1/p' "$d/prom.log")
clock=$(head -n 1 "$d/prom.clock")
ok_if "... at the present to the millisecond (asked for $asked at $clock by Prometheus' clock)" \
	python3 -c 'import sys; sys.exit(0 if abs(float(sys.argv[1]) - float(sys.argv[2])) < 0.3 else 1)' "${asked:-0}" "${clock:-9}"
echo ok >"$d/mode"

# --- the job's nodes only, in bounded time ------------------------------------
# One Prometheus for several clusters, job IDs colliding: job 14 ran on
# n[1-2]; another cluster's job 14 has a series of 5e9 bytes on
# otherclusternode7. Slurm's node list of the job decides.
run report --cluster --squeue "$d/slurm/squeue" 14
is "report --cluster 14: exit 0, another cluster's node left out, said on stderr" "$rc $err" \
	"0 spank-ebpf: report: series of 1 node outside job 14's nodes left out: otherclusternode7"
is "... the figures of job 14's own nodes alone (those of job 5)" "$(printf '%s\n' "$out" | sed 1d)" \
	"$(printf '%s\n' "$from_prom5" | sed 1d)"
run report --cluster --json --squeue "$d/slurm/squeue" 14
is "report --cluster --json 14: the bytes of n1 and n2, those nodes alone, the node left out in errors" \
	"$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["total"]["io"]["read"]["bytes"], d["nodes_with_series"], [n["node"] for n in d["per_node"]], d["errors"])' 2>&1)" \
	"819200 2 ['n1', 'n2'] [\"series of 1 node outside job 14's nodes left out: otherclusternode7\"]"
run summary --print --squeue "$d/slurm/squeue" 14
like "summary 14 (EpilogSlurmctld's): 2 nodes, the other cluster's left out, said" \
	"$rc $(printf '%s' "$out" | summary_head) $err" \
	"^0 v1 job=14 at=[0-9]+ elapsed=300 nodes=2 kept=2 info: spank_ebpf: summary job 14: series of 1 node outside job 14's nodes left out: otherclusternode7\$"
run report --cluster --squeue "$d/slurm/squeue" 16
is "a node's series scraped by its full name (n1.cluster.example) are the node's (n1)" \
	"$rc|$err|$(printf '%s\n' "$out" | sed -n 4p)" "0|| node n1:"
: >"$d/prom.log"
run report --cluster --squeue "$d/slurm/squeue" 15
is "a node list that does not read (n[1-2): exit 2, said, Prometheus not asked" "$rc $(printf '%s\n' "$err" | head -n 1) $(queries)" \
	"2 spank-ebpf: report: Slurm's node list of job 15, \"n[1-2\", cannot be read (a '[' without its ']'): its series could not be told from those of other nodes 0"

# Answers of 50,000 samples naming 4,200 instances, to two of the 11
# queries: read well within timeout= (10 s here; a node looked up in a
# list of 4096 for each sample took 9 s an 8 MiB answer). 8 MiB of
# 175,727 samples is refused for its size in values, in bounded time.
printf 'optional /usr/lib/slurm/spank_ebpf.so prometheus=https://127.0.0.1:%s/ prometheus_ca=%s timeout=%s\n' "$port" "$d/ca.pem" 10 >"$d/t10.conf"
printf 'optional /usr/lib/slurm/spank_ebpf.so prometheus=https://127.0.0.1:%s/ prometheus_ca=%s timeout=%s\n' "$port" "$d/ca.pem" 4 >"$d/t4.conf"
run_timed() { # run_timed CONF ARGS...: run's out, err, rc, and ms, its wall time
	local c=$1 t0
	shift
	t0=$(date +%s%N)
	out=$(env -i PATH=/usr/bin:/bin "$cmd" -c "$c" "$@" 2>"$d/err") && rc=0 || rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	err=$(cat "$d/err")
}
run_timed "$d/t10.conf" report --cluster --squeue "$d/slurm/squeue" 17
is "2 answers of 50,000 samples, 4,200 instances: exit 0, job 17's 4000 nodes" \
	"$rc $(printf '%s\n' "$out" | sed -n 2p)" "0  whole job (4000 nodes with series):"
ok_if "... under timeout=10 ($ms ms)" test "$ms" -lt 10000
like "... the 200 others left out, named (the first), counted" "$err" \
	"^spank-ebpf: report: series of 200 nodes outside job 17's nodes left out: n4001, n4002, n4003, n4004, n4005 and 195 more\$"
run_timed "$d/t10.conf" report --cluster --squeue "$d/slurm/squeue" 18
like "an answer of 175,727 samples in 8 MiB: refused, said, exit 2 (no summary either)" "$rc $err" \
	"^2 spank-ebpf: report: Prometheus cannot be read: JSON: more than [0-9]+ values, [0-9]+ objects or [0-9]+ arrays"
ok_if "... under timeout=10 ($ms ms)" test "$ms" -lt 10000

# A Prometheus answering each query in 1.5 s: 18 queries would take 27
# s, each within timeout=4. The report's whole time is timeout=.
echo "ok slow" >"$d/mode"
run_timed "$d/t4.conf" report --cluster --squeue "$d/slurm/squeue" 14
echo ok >"$d/mode"
like "Prometheus slow, timeout=4: the report stops, exit 2, says why (job 14 has no summary)" "$rc $err" \
	"^2 spank-ebpf: report: Prometheus cannot be read: the report's time ran out \\(timeout=4 s on the plugin's line\\) after [0-9]+ of 18 queries"
ok_if "... within timeout + 2 s ($ms ms)" test "$ms" -lt 6000

# --- what it refuses to tell -------------------------------------------------
: >"$d/prom.log"
run report --cluster --squeue "$d/slurm/squeue" 9
is "a job Slurm does not show the caller: exit 1, the same words as for none" "$rc $err" \
	"1 spank-ebpf: report: Slurm knows no job 9 (or not one you may see)"
is "... and Prometheus was not asked" "$(queries)" 0

rm -f "$d/ac.5"
echo error >"$d/mode"
run report --cluster --squeue "$d/slurm/squeue" 5
like "Prometheus' error answer: exit 2, its words, made printable" "$rc $err" \
	'^2 spank-ebpf: report: Prometheus cannot be read: .*Prometheus: parse error \\x1b\]0;PWNED\\x07 at char 3$'
echo garbage >"$d/mode"
run report --cluster --squeue "$d/slurm/squeue" 5
like "an answer that is not JSON: exit 2, where it broke" "$rc $err" \
	"^2 spank-ebpf: report: Prometheus cannot be read: .*JSON: unexpected"
echo ok >"$d/mode"

kill "$prom_pid"
wait "$prom_pid" 2>/dev/null
prom_pid=
run report --cluster --squeue "$d/slurm/squeue" 5
is "Prometheus down, an ended job without a summary: exit 2, libcurl's words, then no summary either" "$rc $(echo "$err" | sed 's/read: no answer: Failed to connect to .*/read: no answer: Failed to connect to .../' | tr '\n' '|')" \
	"2 spank-ebpf: report: Prometheus cannot be read: no answer: Failed to connect to ...|spank-ebpf: report: job 5 has no summary in Slurm's accounting either|"
printf '%s' "$tok" >"$d/ac.10"
run report --cluster --squeue "$d/slurm/squeue" 10
like "Prometheus down, an ended job with a summary: exit 0, the summary" "$rc $(printf '%s\n' "$out" | head -n 1)" \
	"^0 job 10 .*from its summary in Slurm's accounting"
echo noacct >"$d/mode"
run report --cluster --squeue "$d/slurm/squeue" 5
like "Prometheus down, a running job: exit 2, libcurl's words" "$rc $err" \
	"^2 spank-ebpf: report: Prometheus cannot be read: no answer: Failed to connect to 127\.0\.0\.1 port [0-9]+"
echo ok >"$d/mode"

# --- the configuration --------------------------------------------------------
for u in "http://0x7f.1:9090" "http://010.0.0.1:9090" "http://2130706433/" "http://u:secret@prom:9090" \
	"ftp://prom/" "http://prom:9090/?x=1" "http://prom:0/" "http://prom:65536/" "http://pr\\om/" "http://[::1/"; do
	printf 'optional /usr/lib/slurm/spank_ebpf.so prometheus=%s\n' "$u" >"$d/bad.conf"
	out=$(env -i "$cmd" -c "$d/bad.conf" report --cluster 5 2>&1) && rc=0 || rc=$?
	like "prometheus=$u refused, the URL not repeated" "$rc $out" "^2 spank-ebpf: report: .*prometheus must be Prometheus' URL: "
	case $out in *secret*) tap_point "... the password is not shown" 1 ;; esac
done
# Prometheus on this host at a port any user may bind (the stand-in's):
# without https and a CA, whoever binds it first writes the figures.
for l in "prometheus=http://127.0.0.1:$port/" "prometheus=https://127.0.0.1:$port/" \
	"prometheus=http://localhost:$port/ prometheus_ca=$d/ca.pem"; do
	printf 'optional /usr/lib/slurm/spank_ebpf.so %s\n' "$l" >"$d/local.conf"
	out=$(env -i PATH=/usr/bin:/bin "$cmd" -c "$d/local.conf" report --cluster --squeue "$d/slurm/squeue" 5 2>&1) && rc=0 || rc=$?
	is "$l refused, the fix named" "$rc $out" \
		"2 spank-ebpf: report: $d/local.conf:1: invalid plugstack argument \"prometheus=...\": prometheus is on this host (loopback) at port $port, which any local user may bind first: put Prometheus on a privileged port (below 1024), or use https with prometheus_ca="
done
out=$(env -i PATH=/usr/bin:/bin SLURM_JOB_ID=5 SPANK__SLURM_SPANK_OPTION_spank_ebpf_ebpf=io "$cmd" -c "$d/local.conf" epilog-slurmctld --squeue "$d/slurm/squeue" 2>&1) && rc=0 || rc=$?
like "... and by the summary: exit 0 as EpilogSlurmctld, said, nothing stored" "$rc $out $(test -f "$d/ac.5" && echo written || echo none)" \
	"^0 .*prometheus is on this host \\(loopback\\) at port $port, which any local user may bind first.* none\$"
out=$(env -i "$cmd" -c "$d/none.conf" report --cluster 5 2>&1) && rc=0 || rc=$?
is "report --cluster without prometheus=: exit 2, said" "$rc $out" \
	"2 spank-ebpf: report: the plugin's line in \"$d/none.conf\" has no prometheus=: no place to read other nodes' figures from (--summary reads the job's summary)"
done_testing
