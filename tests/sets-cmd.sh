#!/bin/bash
# Probe sets through every face, without Slurm, against the systemctl
# double: the sets file checked (check-config --sets, and through the
# plugin's line), --ebpf=SET[,SET...] as the plugin's hooks and the
# Prolog= program get it, status and metrics per set, linger-end --set,
# and spank-ebpf exporter SET (what the template unit runs) exec'ing the
# exporter with the set's configs and address.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/lib/plugin.sh"
need_root
need_cmd python3 promtool
plugin_built_faces

d=$(mktemp -d /dev/shm/spank-ebpf-sets.XXXXXX) || exit 1
www_pid= peer_pid=
trap '[ -z "$www_pid" ] || kill "$www_pid" 2>/dev/null; [ -z "$peer_pid" ] || kill "$peer_pid" 2>/dev/null; rm -rf "$d"' EXIT
chmod 0755 "$d"
mkdir -p "$d/bin" "$d/configs" "$d/prom" "$d/textfile" "$d/www"
install -m 0755 "$top/tests/bin/systemctl-double" "$d/bin/systemctl"
install -m 0755 "$top/tests/bin/systemd-run-double" "$d/bin/systemd-run"
echo "$d/state" >"$d/bin/statefile"
for c in bio sched tcp; do echo "metrics: {}" >"$d/configs/$c.yaml"; done
# A stand-in exporter: records how it was run.
printf '#!/bin/sh\necho "$0 $*" >"%s/exporter.args"\n' "$d" >"$d/bin/ebpf_exporter"
chmod 0755 "$d/bin/ebpf_exporter"
cat >"$d/sets.conf" <<EOF
# the site's probe sets
unit = ebpf_exporter@.service
exporter = $d/bin/ebpf_exporter
config_dir = $d/configs
default = io
always = io,sched
textfile = $d/textfile

[io]
description = Block I/O latency and bytes
configs = bio
listen = 127.0.0.1:9441
linger = 30

[sched]
description = Run-queue latency
configs = sched
listen = 127.0.0.1:9442

[net]
description = TCP retransmits
configs = tcp
listen = 127.0.0.1:9443
EOF
args="systemctl=$d/bin/systemctl state=$d/state sets=$d/sets.conf"
printf 'optional /usr/lib/slurm/spank_ebpf.so %s\n' "$args" >"$d/plugstack.conf"
OPT=SPANK__SLURM_SPANK_OPTION_spank_ebpf_ebpf

run() { # run ARGS...: sets out, err, rc
	out=$("$cmd" "$@" 2>"$d/err") && rc=0 || rc=$?
	err=$(cat "$d/err")
}

calls() { # the starts and stops
	if [ -s "$d/bin/calls.log" ]; then grep -E '^(start|stop) ' "$d/bin/calls.log" | cut -d' ' -f1,2 | tr '\n' ';'; fi
}

state() {
	if [ -s "$d/state" ]; then cat "$d/state"; else echo none; fi
}

reset() {
	rm -rf "$d/state" "$d/state".* "$d/bin/calls.log" "$d/bin/active" "$d/bin/active.d" "$d/log" \
		"$d/bin/systemd-run.log" "$d/bin/timers" "$d/textfile"/*
}

# --- check-config ---------------------------------------------------------
run check-config --sets "$d/sets.conf"
is "check-config --sets: a good file, exit 0" "$rc $(echo "$out" | head -n 1)" "0 $d/sets.conf: valid"
like "... its sets listed" "$out" "^set io: configs bio on 127.0.0.1:9441, linger 30s: Block I/O latency and bytes$"
run check-config "$d/plugstack.conf"
like "check-config of the line: its sets file checked too" "$rc $out" "^0 .*valid: .* sets=$d/sets.conf"
run check-config --sets - <<<"default = io
[io]
description = x
configs = bio
listen = :9441
[net]
description = y
configs = tcp
listen = 127.0.0.1:9441"
is "clashing ports: refused, naming the line" "$rc $err" \
	"1 spank-ebpf: check-config: (standard input):9: set net: listen port 9441 is also set io's (line 5)"
run check-config --sets - <<<"config_dir = $d/configs
default = io
[io]
description = x
configs = bio,nosuch
listen = :9441"
is "a config with no file in config_dir: refused, naming it" "$rc $err" \
	"1 spank-ebpf: check-config: set io: config nosuch: no \"$d/configs/nosuch.yaml\" (No such file or directory)"
run check-config --sets - <<<"config_dir = /nonexistent/configs
default = io
[io]
description = x
configs = nosuch
listen = :9441"
like "config_dir not on this host (a submit host): not checked, said" "$rc $out" \
	'^0 .*note: config_dir "/nonexistent/configs" is not on this host'
run check-config --sets - <<<"default = io
[IO]"
is "a bad set name: refused, naming the line" "$rc $err" \
	"1 spank-ebpf: check-config: (standard input):2: \"[IO]\": a set's name is [a-z][a-z0-9_-]*, at most 32 characters, in brackets"
sed 's/^listen = 127.0.0.1:9443$/listen = 127.0.0.1:9441/' "$d/sets.conf" >"$d/bad.sets"
printf 'optional /usr/lib/slurm/spank_ebpf.so systemctl=/bin/true sets=%s\n' "$d/bad.sets" >"$d/bad.conf"
run check-config "$d/bad.conf"
like "check-config of a line whose sets file is wrong: refused" "$rc $err" \
	"^1 spank-ebpf: check-config: $d/bad.sets:[0-9]+: set net: listen port 9441 is also set io's"

# --- the hooks, both faces --------------------------------------------------
hook() { # hook plugin|program prolog|epilog JOB [VAR=VALUE...]
	local f=$1 h=$2 j=$3
	shift 3
	if [ "$f" = plugin ]; then
		env -i SLURM_JOB_ID="$j" "$@" "$face" "$so" "$h" "$j" $args 2>>"$d/log"
	else
		env -i SLURM_JOB_ID="$j" SLURM_SCRIPT_CONTEXT="${h}_slurmd" "$@" "$cmd" -c "$d/plugstack.conf" 2>>"$d/log"
	fi
}

for f in plugin program; do
	reset
	hook "$f" prolog 5 "$OPT=io,sched"
	hook "$f" prolog 6 "$OPT=sched"
	is "$f: --ebpf=io,sched and --ebpf=sched: the state names each job's sets" "$(state)" \
		"spank_ebpf state 2
5 io,sched
6 sched"
	is "$f: ... io and sched started once each" "$(calls)" "start ebpf_exporter@io.service;start ebpf_exporter@sched.service;"
	hook "$f" epilog 5 "$OPT=io,sched"
	hook "$f" epilog 6 "$OPT=sched"
	is "$f: both gone: io lingers (its own linger), sched stopped" "$(calls)" \
		"start ebpf_exporter@io.service;start ebpf_exporter@sched.service;stop ebpf_exporter@sched.service;"
	like "$f: the prolog says what was asked" "$(cat "$d/log")" "$(hold_taken_re 5 | sed 's/(--ebpf|mode=always)/--ebpf=io,sched/')its probe sets"
	reset
	hook "$f" prolog 7 "$OPT=iox"
	is "$f: an unknown set: nothing held, no call" "$(state); $(calls)" "none; "
	like "$f: ... refused on the node, naming the allowed ones" "$(cat "$d/log")" \
		'prolog job 7: unknown probe set "iox"; allowed: io, sched, net: not held'
	hook "$f" prolog 8 "$OPT=(null)"
	is "$f: a plain --ebpf: the default set" "$(state | tail -n 1); $(calls)" "8 io; start ebpf_exporter@io.service;"
done

# --- status, metrics ---------------------------------------------------------
reset
hook plugin prolog 5 "$OPT=io,sched"
run -c "$d/plugstack.conf" status --json --node node7 --squeue /bin/false
is "status --json: each target, held and active" \
	"$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print([(t["set"], t["held"], t["active"]) for t in d["targets"]], d["state"]["holds"])' 2>&1)" \
	"[('io', 1, True), ('sched', 1, True), ('net', 0, False)] [{'id': 5, 'sets': ['io', 'sched']}]"
printf 'not_observed_records_full 3\n' >"$d/state.stats.net"
run -c "$d/plugstack.conf" metrics
pc=$(printf '%s\n' "$out" | promtool check metrics 2>&1) && prc=0 || prc=$?
is "metrics with sets: promtool accepts them" "$prc $pc" "0 "
like "... jobs kept out of a set's filter, by reason" "$out" \
	'^spank_ebpf_jobs_not_observed_total\{set="net",unit="ebpf_exporter@net\.service",reason="records_full"\} 3$'
like "... 0 where none was" "$out" \
	'^spank_ebpf_jobs_not_observed_total\{set="io",unit="ebpf_exporter@io\.service",reason="records_full"\} 0$'
is "... every family has HELP and TYPE before its samples" "$(printf '%s\n' "$out" | prom_structure)" ""
like "... jobs per set" "$out" '^spank_ebpf_jobs\{set="sched",unit="ebpf_exporter@sched\.service"\} 1$'
like "... starts per set" "$out" '^spank_ebpf_starts_total\{set="io",unit="ebpf_exporter@io\.service"\} 1$'
like "... the idle set too" "$out" '^spank_ebpf_unit_up\{set="net",unit="ebpf_exporter@net\.service"\} 0$'

# --- linger-end --set ----------------------------------------------------------
hook plugin epilog 5 "$OPT=io,sched"
is "io's last job left: a window of its own, its timer armed" \
	"$(test -e "$d/state.linger.io" && echo window); $(grep -c -- 'linger-end --set=io ' "$d/bin/systemd-run.log")" "window; 1"
sed -i 's/^end [0-9]*$/end 1/' "$d/state.linger.io"
env -i "$cmd" linger-end --set=io $args 2>>"$d/log"
is "linger-end --set=io at the window's end: io stopped" "$(calls)" \
	"start ebpf_exporter@io.service;start ebpf_exporter@sched.service;stop ebpf_exporter@sched.service;stop ebpf_exporter@io.service;"

# --- job records, job_info, report --------------------------------------------
# The set's exporter is a plain HTTP server with a fixed /metrics: two
# jobs' series, as ebpf_exporter writes the spank-io config's.
reset
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
sed -i "s/^listen = 127.0.0.1:9441$/listen = 127.0.0.1:$port/" "$d/sets.conf"
{
	echo '# HELP ebpf_exporter_spank_io_latency_seconds Block I/O request latency'
	echo '# TYPE ebpf_exporter_spank_io_latency_seconds histogram'
	for j in 5 6; do
		echo "ebpf_exporter_spank_io_latency_seconds_bucket{jobid=\"$j\",operation=\"read\",le=\"0.001\"} 10"
		echo "ebpf_exporter_spank_io_latency_seconds_bucket{jobid=\"$j\",operation=\"read\",le=\"0.002\"} 90"
		echo "ebpf_exporter_spank_io_latency_seconds_bucket{jobid=\"$j\",operation=\"read\",le=\"0.004\"} 100"
		echo "ebpf_exporter_spank_io_latency_seconds_bucket{jobid=\"$j\",operation=\"read\",le=\"+Inf\"} 100"
		echo "ebpf_exporter_spank_io_latency_seconds_count{jobid=\"$j\",operation=\"read\"} 100"
	done
	echo '# HELP ebpf_exporter_spank_io_bytes_total Bytes'
	echo '# TYPE ebpf_exporter_spank_io_bytes_total counter'
	echo 'ebpf_exporter_spank_io_bytes_total{jobid="5",operation="read"} 409600'
	echo 'ebpf_exporter_spank_io_bytes_total{jobid="6",operation="read"} 8192'
} >"$d/www/metrics"
python3 -m http.server --bind 127.0.0.1 --directory "$d/www" "$port" >/dev/null 2>&1 &
www_pid=$!
wait_until 20 "the stand-in /metrics answers" python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' "http://127.0.0.1:$port/metrics"
hook program prolog 5 "$OPT=io" SLURM_JOB_USER=alice SLURM_JOB_SLUID=sEKNKTV3WPV500
hook plugin prolog 6 "$OPT=io" SLURM_JOB_USER=bob
hook program prolog 7 "$OPT=io" SLURM_JOB_USER=nobody
tf=$(cat "$d/textfile/spank_ebpf_jobs.prom" 2>&1)
like "job_info: job 5 with its user and SLUID from the prolog's environment (program face)" "$tf" \
	'^spank_ebpf_job_info\{jobid="5",user="alice",sluid="sEKNKTV3WPV500",sets="io"\} 1$'
like "job_info: job 6 from the plugin face" "$tf" '^spank_ebpf_job_info\{jobid="6",user="bob",sluid="",sets="io"\} 1$'
pc=$(printf '%s\n' "$tf" | promtool check metrics 2>&1) && prc=0 || prc=$?
is "job_info: promtool accepts it" "$prc $pc" "0 "
is "job_info: HELP and TYPE before its samples" "$(printf '%s\n' "$tf" | prom_structure)" ""
run -c "$d/plugstack.conf" report 5
is "report 5: exit 0" "$rc $err" "0 "
is "report 5: the job, its user and sets; its reads' count, bytes, p50 and p99" "$out" \
	"job 5 (user alice), probe sets io
  I/O read   100 requests, 409600 bytes, latency p50 0.001500 s, p99 0.003800 s"
run -c "$d/plugstack.conf" report --json 6
is "report --json 6: job 6's own figures (bytes 8192), null for sets it does not hold" \
	"$(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); r=d["io"]["read"]; print(d["job"], d["user"], r["bytes"], r["latency"]["count"], r["latency"]["p99_seconds"], d["net"], d["errors"])' 2>&1)" \
	"6 bob 8192 100 0.0038 None []"
run -c "$d/plugstack.conf" report 99
is "report of a job holding nothing here: exit 1, said" "$rc $err" \
	"1 spank-ebpf: report: job 99 holds no probe set on this node"
asnobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
# The job list is as private as Slurm's: the state, the records and the
# textfile name every job's user; a user reads none of them.
for f in state state.jobs textfile/spank_ebpf_jobs.prom; do
	asnobody cat "$d/$f" >/dev/null 2>&1 && r="readable by nobody" || r=refused
	is "$f: private ($(stat -c %a "$d/$f" 2>&1))" "$r" refused
done
# So a user's report needs root's report service: without it, nothing.
out=$(asnobody "$cmd" -c "$d/plugstack.conf" report 7 2>"$d/err") && rc=0 || rc=$?
like "report as nobody without the report service: exit 2, the records are root's" \
	"$rc $(cat "$d/err")" "^2 .*cannot open file \"$d/state\\.jobs\": Permission denied"
# Through the report service (spank-ebpf-report.socket; here
# systemd-socket-activate, as the socket unit runs it): the kernel names
# the user who asks, so the service answers for that user's jobs only.
sock=$d/report.sock
systemd-socket-activate -l "$sock" --accept --inetd "$cmd" -c "$d/plugstack.conf" report --peer \
	2>"$d/peer.log" &
peer_pid=$!
wait_until 20 "the report socket" test -S "$sock"
chmod 0666 "$sock"
out=$(asnobody "$cmd" report --socket "$sock" 7 2>"$d/err") && rc=0 || rc=$?
like "report through the service, as nobody, of nobody's job: its figures" "$rc $out $(cat "$d/err")" \
	"^0 job 7 \\(user nobody\\), probe sets io"
out=$(asnobody "$cmd" report --socket "$sock" 5 2>"$d/err") && rc=0 || rc=$?
is "report through the service, as nobody, of alice's job: refused as if it were not there" \
	"$rc $out$(cat "$d/err")" "1 spank-ebpf: report: job 5 holds no probe set on this node (or is not yours)"
out=$(asnobody "$cmd" report --socket "$sock" --json 7 2>"$d/err") && rc=0 || rc=$?
is "report --json through the service: nobody's job (no I/O series)" \
	"$rc $(printf '%s' "$out" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["job"], d["user"], d["io"])' 2>&1)" \
	"0 7 nobody None"
run report --socket "$sock" 5
like "report through the service, as root: alice's job" "$rc $out" "^0 job 5 \\(user alice\\)"
like "the service logs who asked what, and the outcome" "$(cat "$d/peer.log")" \
	"job 5 for nobody \\(uid [0-9]+\\): exit 1"
run report --socket "$d/none.sock" 5
is "report --socket where there is none: exit 2, said" "$rc $err" \
	"2 spank-ebpf: report: no report service at \"$d/none.sock\""
kill "$peer_pid"
wait "$peer_pid" 2>/dev/null
systemd-socket-activate -l "$d/echo.sock" --accept --inetd /bin/sh -c 'read -r line; echo "exit 0"' &
peer_pid=$!
wait_until 20 "the stand-in socket" test -S "$d/echo.sock"
run report --socket "$d/echo.sock" 5
is "a service answering outside the protocol: exit 2, said" "$rc $err" \
	"2 spank-ebpf: report: an answer not in its protocol from the report service at \"$d/echo.sock\""
kill "$peer_pid"
wait "$peer_pid" 2>/dev/null
peer_pid=
run report --peer </dev/null
like "report --peer without a connection on standard input: exit 2, said" "$rc $err" \
	"^2 spank-ebpf: report --peer: cannot tell who asks"
out=$(asnobody "$cmd" report --peer 2>&1 </dev/null) && rc=0 || rc=$?
is "report --peer as a user: exit 2, it must run as root" "$rc $out" \
	"2 spank-ebpf: report --peer must run as root (spank-ebpf-report@.service)"
run report --peer 5
like "report --peer with a job on the command line: a usage error" "$rc $err" "^2 spank-ebpf: report: --peer takes its request"
kill "$www_pid"
wait "$www_pid" 2>/dev/null
www_pid=
run -c "$d/plugstack.conf" report 5
like "report with the set's exporter down: exit 1, naming the set and the address" "$rc $err" \
	"^1 spank-ebpf: report: set io: cannot connect to 127.0.0.1:$port: Connection refused"
hook program epilog 5 "$OPT=io"
like "epilog: job 5's join key stays while io lingers (30 s)" "$(cat "$d/textfile/spank_ebpf_jobs.prom")" 'jobid="5"'
run -c "$d/plugstack.conf" admit io
like "admit io, whose configs are not the project's: nothing to fill, exit 0" "$rc $err" \
	"^0 info: spank_ebpf: admit io: set io runs none of the project's configs: no job filter to fill"
sed -i 's/^configs = bio$/configs = spank-io/' "$d/sets.conf"
run -c "$d/plugstack.conf" admit io
is "admit io (spank-io) without a running exporter: exit 1, said" "$rc $err" \
	"1 error: spank_ebpf: admit io: set io: no running process of its unit has the probes' filter (map spank_jobs)"
sed -i 's/^configs = spank-io$/configs = bio/' "$d/sets.conf"
run -c "$d/plugstack.conf" admit nosuch
is "admit of an unknown set: exit 2" "$rc" 2

# --- exporter SET ------------------------------------------------------------
run -c "$d/plugstack.conf" exporter sched
is "exporter sched: becomes the exporter with the set's configs and address" \
	"$rc $(cat "$d/exporter.args" 2>&1)" \
	"0 $d/bin/ebpf_exporter --config.dir=$d/configs --config.names=sched --web.listen-address=127.0.0.1:9442 --config.strict --capabilities.keep=none"
like "... and says so on stderr (the unit's journal)" "$err" "^spank-ebpf: exporter: set sched: $d/bin/ebpf_exporter "
run -c "$d/plugstack.conf" exporter iox
is "exporter with an unknown set: exit 1, said" "$rc $err" \
	"1 spank-ebpf: exporter: unknown probe set \"iox\"; declared in \"$d/sets.conf\": io, sched, net"
rm "$d/configs/tcp.yaml"
run -c "$d/plugstack.conf" exporter net
is "exporter net, its config's file gone: exit 1, naming it" "$rc $err" \
	"1 spank-ebpf: exporter: set net: config tcp: no \"$d/configs/tcp.yaml\" (No such file or directory)"
rm "$d/bin/ebpf_exporter"
run -c "$d/plugstack.conf" exporter io
is "exporter io, the binary missing: exit 1" "$rc" 1
like "... naming it" "$err" "^spank-ebpf: exporter: cannot run \"$d/bin/ebpf_exporter\": No such file or directory$"
done_testing
