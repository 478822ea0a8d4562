#!/bin/bash
# report's server for users (report_peer.c) as spank-ebpf-report.socket
# runs it (Accept=no: the listening socket as fd 3, LISTEN_PID and
# LISTEN_FDS), without systemd: one uid holds 200 connections, opening
# another as soon as one is closed, while another uid asks for its
# report: that one must be answered every time, and quickly. (With
# Accept=yes, systemd 252 let the first uid take all 64 connections:
# tests/system/reportsock.sh, scn_reportsock_crowd, on the real units.)
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/lib/plugin.sh"
need_root
need_cmd python3 setpriv
# The crowd runs as another uid: a python3 that uid can run.
[ -x /usr/bin/python3 ] || missing "/usr/bin/python3"
plugin_built_faces

d=$(mktemp -d /tmp/spank-ebpf-peer.XXXXXX) || exit 1
chmod 0755 "$d"
srv_pid= crowd_pid=
cleanup() {
	[ -z "$crowd_pid" ] || kill "$crowd_pid" 2>/dev/null
	[ -z "$srv_pid" ] || kill "$srv_pid" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$d"
}
trap cleanup EXIT
mkdir "$d/rt"
printf 'optional /usr/lib/slurm/spank_ebpf.so\n' >"$d/plugstack.conf"

# The socket as systemd passes it: bound and listening, then fd 3 of the
# server, LISTEN_PID its pid.
python3 - "$d" "$cmd" <<'EOF_PY' 2>"$d/server.err" &
import os, socket, sys
d, cmd = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX)
s.bind(d + "/report.sock")
os.chmod(d + "/report.sock", 0o666)
s.listen(4096)
if s.fileno() != 3:
    os.dup2(s.fileno(), 3)
os.set_inheritable(3, True)
os.environ.clear()
os.environ.update({"PATH": "/usr/bin:/bin", "LISTEN_PID": str(os.getpid()), "LISTEN_FDS": "1",
                   "RUNTIME_DIRECTORY": d + "/rt"})
os.execv(cmd, [cmd, "-c", d + "/plugstack.conf", "report", "--peer"])
EOF_PY
srv_pid=$!
wait_until 10 "the server's socket" test -S "$d/report.sock"

# As uid 65533: hold argv[3] connections for argv[2] seconds, sending
# nothing, opening another as soon as one is closed.
setpriv --reuid=65533 --regid=65533 --clear-groups /usr/bin/python3 -c '
import select, socket, sys, time
path, end, want = sys.argv[1], time.time() + float(sys.argv[2]), int(sys.argv[3])
conns, made = [], 0
while time.time() < end:
    while len(conns) < want:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(1)
        try:
            s.connect(path)
            conns.append(s)
            made += 1
        except OSError:
            s.close()
            break
    for s in select.select(conns, [], [], 0.05)[0]:
        conns.remove(s)
        s.close()
print("connected %d" % made)
' "$d/report.sock" 9 200 >"$d/crowd.out" 2>&1 &
crowd_pid=$!
sleep 2

answered=0 slow=0
for i in 1 2 3 4 5; do
	t0=$(date +%s%N)
	out=$(env -i PATH=/usr/bin:/bin setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$cmd" -c "$d/plugstack.conf" report --socket "$d/report.sock" 5 2>&1) && rc=0 || rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	diag "uid 65534's report $i: exit $rc, $ms ms: $out"
	case $out in
	*"has no sets=: jobs have no probe sets here"*) answered=$((answered + 1)) ;;
	esac
	[ "$ms" -lt 3000 ] || slow=$((slow + 1))
	sleep 1
done
is "while uid 65533 holds 200 connections, uid 65534's 5 reports are answered, each within 3 s" \
	"$answered $slow" "5 0"
wait "$crowd_pid"
crowd_pid=
diag "uid 65533: $(cat "$d/crowd.out")"
like "... uid 65533's beyond its 4 refused on the spot, said (once a second)" "$(cat "$d/server.err")" \
	"^spank-ebpf: report --peer: uid 65533 has 4 reports under way: refused \\([0-9]+ more refusals before\\)\$"
sleep 1 # its answers under way end (their connections closed)
out=$(env -i PATH=/usr/bin:/bin setpriv --reuid=65533 --regid=65533 --clear-groups \
	"$cmd" -c "$d/plugstack.conf" report --socket "$d/report.sock" 5 2>&1) && rc=0 || rc=$?
like "... and its own report answered once it lets go" "$rc $out" "^2 spank-ebpf: report: the plugin's line in .* has no sets="
ok_if "the server still runs" kill -0 "$srv_pid"
done_testing
