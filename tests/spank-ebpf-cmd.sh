#!/bin/bash
# The admin command as an admin (and a monitoring system, and config
# management) uses it, against the recording systemctl and squeue doubles:
# usage errors, root, check-config, status (text and --json, read with a
# real JSON parser), reconcile, metrics (checked by promtool). The real
# Slurm and systemd: tests/e2e/17-admin-command.sh, tests/system.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/lib/plugin.sh"

bin=${SPANK_EBPF_CMD:-${top_builddir:-.}/src/spank-ebpf/spank-ebpf}
need_cmd python3 promtool setpriv
need_root
[ -x "$bin" ] || missing "built $bin (run make first)"
top=${srcdir:-.}

d=$(mktemp -d /dev/shm/spank-ebpf-cmd.XXXXXX) || exit 1
trap 'rm -rf "$d"' EXIT
chmod 0755 "$d"
mkdir -p "$d/bin" "$d/prom"
install -m 0755 "$top/tests/bin/systemctl-double" "$d/bin/systemctl"
install -m 0755 "$top/tests/bin/squeue-double" "$d/bin/squeue"
echo "$d/state" >"$d/bin/statefile"
conf=$d/spank_ebpf.conf
line="optional /usr/lib/slurm/spank_ebpf.so systemctl=$d/bin/systemctl state=$d/state timeout=30 lock_timeout=100"
printf '# the plugin\n%s\n' "$line" >"$conf"

invoke() { # invoke ARGS...: the command; sets out, err, rc
	out=$("$bin" "$@" 2>"$d/err") && rc=0 || rc=$?
	err=$(cat "$d/err")
}
sq() { echo "$1" >"$d/bin/squeue.behaviour"; printf '%b' "${2:-}" >"$d/bin/squeue.answer"; }
active() { if [ "$1" = yes ]; then touch "$d/bin/active"; else rm -f "$d/bin/active"; fi; }
set_state() { if [ -n "$1" ]; then printf '%b' "$1" >"$d/state"; else rm -f "$d/state"; fi; }
# json EXPR (tests/lib/plugin.sh): a Python expression over the parsed status.
S="status --squeue $d/bin/squeue --node node7"
R="reconcile --squeue $d/bin/squeue --node node7"

# --- usage ---
invoke
is "no command: exit 2" "$rc" 2
like "... with the usage line" "$err" '^usage: spank-ebpf \[-c FILE\] status'
invoke --bogus status
is "unknown global option: exit 2" "$rc $(echo "$err" | head -n 1)" '2 spank-ebpf: unknown option "--bogus"'
invoke frobnicate
is "unknown command: exit 2" "$rc $(echo "$err" | head -n 1)" '2 spank-ebpf: unknown command "frobnicate"'
invoke -c "$conf" status --jsn
is "unknown subcommand option: exit 2" "$rc $(echo "$err" | head -n 1)" '2 spank-ebpf: status: unknown option "--jsn"'
invoke -c "$conf" reconcile --node
is "option without its value: exit 2" "$rc $(echo "$err" | head -n 1)" '2 spank-ebpf: reconcile: option --node needs a value'
invoke -c "$conf" status extra
is "stray argument: exit 2" "$rc $(echo "$err" | head -n 1)" '2 spank-ebpf: status: unexpected argument "extra"'
invoke check-config
is "check-config without a file: exit 2" "$rc" 2
invoke -c
is "-c without a file: exit 2" "$rc" 2
invoke --help
is "--help: exit 0" "$rc" 0
like "... lists the four commands" "$out" 'check-config'
invoke --version
like "--version" "$rc $out" '^0 spank-ebpf [0-9]+\.[0-9]+\.[0-9]+$'

# --- the options before or after the command ---
set_state '1\n5\n'; active yes; sq ok '5|RUNNING\n'
invoke -c "$conf" $S --json
before="$rc $out"
invoke $S -c "$conf" --json
is "status -c FILE: as -c FILE status" "$rc $out" "$before"
invoke $S --json --config "$conf"
is "status --config FILE: the same" "$rc $out" "$before"
invoke status --config="$conf" --squeue "$d/bin/squeue" --node node7 --json
is "status --config=FILE among its options: the same" "$rc $out" "$before"
invoke -c /nonexistent.conf $S -c "$conf" --json
is "-c after the command wins over -c before it (the last one)" "$rc $out" "$before"
invoke check-config "$conf" -c /nonexistent.conf
is "check-config FILE -c OTHER: FILE checked, -c taken (and unused)" "$rc" 0
invoke $S --bogus -c "$conf"
is "an unknown option after the command: the same words as before -c" "$rc $(echo "$err" | head -n 1)" '2 spank-ebpf: status: unknown option "--bogus"'
like "... its usage and where its --help is" "$err" "^Try 'spank-ebpf status --help'"
invoke status -c
is "-c without its FILE after the command: exit 2, named" "$rc $(echo "$err" | head -n 1)" '2 spank-ebpf: status: option -c needs a FILE'
like "... with the command's usage" "$err" '^usage: spank-ebpf \[-c FILE\] status '
invoke status --config=
is "--config= without its FILE: exit 2, named" "$rc $(echo "$err" | head -n 1)" '2 spank-ebpf: status: option --config needs a FILE'
invoke status -V
like "status -V: the version" "$rc $out" '^0 spank-ebpf [0-9]+\.[0-9]+\.[0-9]+$'
invoke status -c "$conf" --help
is "status -c FILE --help: status's help" "$rc $(echo "$out" | head -n 1)" "0 usage: spank-ebpf [-c FILE] status [--json] [--node=NAME] [--squeue=PATH]"
invoke -c "$conf" status --squeue "$d/bin/squeue" --node -c --json
like "--node -c: -c is the node's name, not an option" "$rc $(json 'd["node"]')" "^[0-9] -c$"
invoke check-config -- -c
is "after --, -c is an operand: check-config's file" "$rc $err" '1 spank-ebpf: check-config: cannot read "-c": No such file or directory'

# --- root ---
for c in status reconcile metrics; do
	out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" -c "$conf" $c 2>&1) && rc=0 || rc=$?
	like "$c as nobody: exit 2, says root is needed" "$rc $out" "^2 spank-ebpf: $c must run as root"
done
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$bin" check-config "$conf" 2>&1) && rc=0 || rc=$?
is "check-config as nobody: works" "$rc" 0

# --- check-config: the plugin's own words ---
invoke check-config "$conf"
is "valid file: exit 0 and the effective settings" "$rc $out" \
	"0 $conf: valid: mode=opt-in unit=ebpf_exporter.service state=$d/state systemctl=$d/bin/systemctl timeout=30s lock_timeout=100s start=wait linger=0s"
invoke check-config - <<<"optional spank_ebpf.so mode=always unit=-H"
is "invalid line on stdin: exit 1, the plugin's message" "$rc $err" \
	'1 spank-ebpf: check-config: (standard input):1: invalid plugstack argument "unit=-H": unit name must not start with "-"'
invoke check-config - <<<"optional spank_ebpf.so timeout=10 lock_timeout=30"
like "the lock rule, naming both keys" "$rc $err" '^1 .*"lock_timeout=30": lock_timeout \(30 s\) must be more than 3 x timeout \(3 x 10 s = 30 s\)'
invoke check-config /nonexistent.conf
is "missing file: exit 1" "$rc $err" "1 spank-ebpf: check-config: cannot read \"/nonexistent.conf\": No such file or directory"
invoke -c /nonexistent.conf status
is "status with a missing config: exit 2 (cannot tell)" "$rc" 2

# --- status ---
set_state ""; active no; sq ok ""
invoke -c "$conf" $S
is "idle node: healthy, exit 0" "$rc" 0
like "... says so" "$out" '^health: healthy$'
invoke -c "$conf" $S --json
is "--json idle: exit 0" "$rc" 0
is "--json is one object: version, node, health" "$(json 'd["version"], d["node"], d["health"]')" "(1, 'node7', 'healthy')"
is "--json: state and unit" "$(json 'd["state"]["count"], d["state"]["jobs"], d["state"]["readable"], d["unit"]["active"], d["slurm"]["asked"]')" \
	"(0, [], True, False, False)"

set_state '2\n5\n7\n'; active yes; sq ok '5|RUNNING\n7|COMPLETED\n'
invoke -c "$conf" $S --json
is "a gone job: exit 1 (anomaly)" "$rc" 1
is "--json: the jobs and what Slurm says" "$(json '[(j["id"], j["here"], j["state"]) for j in d["slurm"]["jobs"]]')" \
	"[(5, True, 'RUNNING'), (7, False, 'COMPLETED')]"
is "--json: anomaly kinds" "$(json '[a["kind"] for a in d["anomalies"]], d["health"]')" "(['jobs_gone'], 'anomalies')"
invoke -c "$conf" $S
like "text: the anomaly in plain words" "$out" '^anomaly: 1 held job IDs Slurm no longer runs on node7: 7 \(spank-ebpf reconcile removes them\)$'
is "status changed nothing" "$(cat "$d/state")" "$(printf '2\n5\n7')"

set_state '1\n5\n'; active no; sq ok '5|RUNNING\n'
invoke -c "$conf" $S --json
is "held, unit dead: anomaly holders_without_unit" "$rc $(json '[a["kind"] for a in d["anomalies"]]')" "1 ['holders_without_unit']"
set_state ""; active yes
invoke -c "$conf" $S --json
is "unit running, nobody holds it: unit_without_holder" "$rc $(json '[a["kind"] for a in d["anomalies"]]')" "1 ['unit_without_holder']"
set_state '1\n5\n'; sq down
invoke -c "$conf" $S --json
is "slurmctld down: exit 2 (cannot tell)" "$rc $(json 'd["health"], [u["kind"] for u in d["unknowns"]], d["slurm"]["answered"]')" \
	"2 ('unknown', ['slurm_unknown'], False)"
set_state '1\n5\n'; printf 'x' >"$d/state.corrupt"; sq ok '5|RUNNING\n'
invoke -c "$conf" $S --json
is ".corrupt present: anomaly corrupt_copy" "$rc $(json '[a["kind"] for a in d["anomalies"]]')" "1 ['corrupt_copy']"
rm -f "$d/state.corrupt"
printf '3\n5\nxx\n' >"$d/state"
invoke -c "$conf" $S --json
is "damaged state: anomaly state_damaged, salvaged ID shown" "$rc $(json '[a["kind"] for a in d["anomalies"]], d["state"]["jobs"]')" "1 (['state_damaged'], [5])"
ln -sf /etc/hostname "$d/state.link" && rm -f "$d/state" && ln -s /etc/hostname "$d/state"
invoke -c "$conf" $S --json
is "a symlinked state: cannot tell, exit 2" "$rc $(json 'd["state"]["readable"], [u["kind"] for u in d["unknowns"]]')" "2 (False, ['state_unreadable'])"
is "... what the state would say is unknown, not 0: count, jobs, linger_left null" \
	"$(json 'd["state"]["count"], d["state"]["jobs"], d["state"]["linger_left"]')" "(None, None, None)"
invoke -c "$conf" $S
like "... text: the state unreadable" "$out" '^state .*: unreadable$'
like "... text: the linger window unknown" "$out" '^linger window: unknown$'
unlike "... text: no window length made up" "$out" 'linger window: [0-9]+ s left'
invoke -c "$conf" metrics --textfile "$d/prom"
is "metrics --textfile with the state unreadable: cannot tell (2), file written" \
	"$rc $(grep '^spank_ebpf_state_readable' "$d/prom/spank_ebpf.prom")" "2 spank_ebpf_state_readable 0"
invoke -c "$conf" metrics
is "metrics on stdout with the state unreadable: cannot tell (2)" "$rc $(echo "$out" | grep '^spank_ebpf_state_readable')" "2 spank_ebpf_state_readable 0"
rm -f "$d/state" "$d/state.link" "$d/prom/spank_ebpf.prom"
# A state directory the plugin refuses (writable by others): nothing of
# the state can be read, its window neither.
mkdir -m 0777 "$d/gw" && chmod 0777 "$d/gw"
printf '%s\n' "optional /usr/lib/slurm/spank_ebpf.so systemctl=$d/bin/systemctl state=$d/gw/state timeout=30 lock_timeout=100" >"$d/gw.conf"
invoke -c "$d/gw.conf" $S
is "a refused state directory: cannot tell (2)" "$rc" 2
like "... text: the linger window unknown" "$out" '^linger window: unknown$'
unlike "... text: no window length made up" "$out" 'linger window: [0-9]+ s left'
invoke -c "$d/gw.conf" $S --json
is "... JSON: count, jobs, linger_left null" \
	"$(json 'd["state"]["count"], d["state"]["jobs"], d["state"]["linger_left"]')" "(None, None, None)"

# --- reconcile ---
set_state '2\n5\n7\n'; active yes; sq ok '5|RUNNING\n'
invoke -c "$conf" $R --dry-run
is "dry run: exit 0, says what it would do" "$rc $out" "0 dry run: 2 held, 1 would be removed; unit active"
is "... state untouched" "$(cat "$d/state")" "$(printf '2\n5\n7')"
unlike "... and logs no refcount it did not set" "$err" 'refcount now'
like "... but what it would leave" "$err" 'reconcile: would leave 1 job in the state$'

invoke -c "$conf" $R
is "reconcile: removes the gone job" "$rc $out" "0 2 held, 1 removed; unit active"
is "... state" "$(cat "$d/state")" "$(printf '1\n5')"
like "... the reason on stderr" "$err" 'removing job 7 from the state: Slurm does not list it on node node7 any more'
sq down
invoke -c "$conf" $R
is "slurmctld down: exit 2, nothing changed" "$rc $(cat "$d/state" | tr '\n' ' ')" "2 1 5 "
like "... and says why" "$out" '^cannot tell: .*Unable to contact slurm controller.*; nothing changed$'
sq ok ''
invoke -c "$conf" $R
is "last job gone: removed, unit stopped" "$rc $out" "0 1 held, 1 removed; unit active, stopped"
is "... unit really stopped (double)" "$(test -e "$d/bin/active" && echo active || echo inactive)" inactive

# A start or stop reconcile runs that fails: exit 1 (an anomaly it could
# not mend), and no word of a job (there is none).
set_state '1\n5\n'; active no; sq ok '5|RUNNING\n'; echo fail-actions >"$d/bin/behaviour"
invoke -c "$conf" $R
is "reconcile whose start fails: exit 1" "$rc $out" "1 1 held, 0 removed; unit inactive, started (failed)"
like "... the failure logged" "$err" 'error: spank_ebpf: reconcile: failed to start ebpf_exporter.service:'
unlike "... no word of a job" "$err" 'the job'
rm -f "$d/bin/behaviour"; set_state ''; sq ok ''

# --- metrics ---
invoke -c "$conf" metrics
is "metrics: exit 0" "$rc" 0
pc=$(printf '%s\n' "$out" | promtool check metrics 2>&1) && prc=0 || prc=$?
is "promtool check metrics accepts it" "$prc $pc" "0 "
is "every family has # HELP and # TYPE before its samples (promtool does not check TYPE)" \
	"$(printf '%s\n' "$out" | prom_structure)" ""
like "jobs gauge" "$out" '^spank_ebpf_jobs\{unit="ebpf_exporter.service"\} 0$'
like "unit_up gauge" "$out" '^spank_ebpf_unit_up\{unit="ebpf_exporter.service"\} 0$'
like "stops counted (the reconcile's stop)" "$out" '^spank_ebpf_stops_total\{unit="ebpf_exporter.service"\} 1$'
like "reconcile removals counted" "$out" '^spank_ebpf_reconcile_removed_jobs_total\{unit="ebpf_exporter.service"\} 2$'
like "reconcile failures counted" "$out" '^spank_ebpf_reconcile_failures_total\{unit="ebpf_exporter.service"\} 1$'
invoke -c "$conf" metrics --textfile "$d/prom"
is "--textfile: exit 0, nothing on stdout" "$rc|$out" "0|"
is "... spank_ebpf.prom, mode 0644, no temporary file left" "$(cd "$d/prom" && stat -c '%n %a' .* * 2>/dev/null | grep -v '^\.\.\? ')" "spank_ebpf.prom 644"
pc=$(promtool check metrics <"$d/prom/spank_ebpf.prom" 2>&1) && prc=0 || prc=$?
is "... promtool accepts the file" "$prc $pc" "0 "
# A unit name with a backslash (systemd's escape, which the config
# accepts): the label value is escaped, or promtool, and node_exporter
# with it, would reject the whole file.
printf '%s\n' "$line unit=ebpf\\x2dexporter" >"$d/esc.conf"
invoke -c "$d/esc.conf" metrics
pc=$(printf '%s\n' "$out" | promtool check metrics 2>&1) && prc=0 || prc=$?
is "unit=ebpf\\x2dexporter: promtool accepts the metrics" "$prc $pc" "0 "
like "... the label escaped" "$out" '^spank_ebpf_jobs\{unit="ebpf\\\\x2dexporter\.service"\} 0$'
invoke -c "$conf" metrics --textfile "$d/nonexistent"
like "--textfile into a missing directory: exit 1, says why" "$rc $err" "^1 spank-ebpf: metrics: cannot write in \"$d/nonexistent\": No such file or directory"

# The alert rules of docs/OPERATING.md are valid Prometheus rules on these
# metrics.
rules=$d/rules.yml
sed -n '/^Prometheus alerts on these metrics/,/^## /p' "$top/docs/OPERATING.md" |
	sed -n '/^```yaml$/,/^```$/p' | sed '1d;$d' >"$rules"
like "docs/OPERATING.md: the alert example is there" "$(cat "$rules")" '^- name: spank-ebpf$'
pc=$(promtool check rules "$rules" 2>&1) && prc=0 || prc=$?
like "docs/OPERATING.md: promtool check rules accepts the alerts" "$prc $(echo $pc)" '^0 Checking .* SUCCESS: 4 rules found$'
done_testing
