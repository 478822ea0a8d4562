#!/bin/bash
# contrib/prometheus and contrib/grafana: the rules load (promtool check
# rules) and do what their unit tests say (promtool test rules); every
# series the rules and the dashboard read is one the project exports
# (the probes' names as spank-ebpf report reads them, spank_ebpf_job_info
# as the plugin writes it, spank-ebpf metrics' families), and the
# dashboard picks its job from spank_ebpf_job_info.
. "${srcdir:-.}/tests/lib/tap.sh"
need_cmd promtool python3
python3 -c 'import yaml' 2>/dev/null || missing "python3's yaml module (python3-yaml)"
top=${srcdir:-.}
rules=$top/contrib/prometheus/slurm-spank-ebpf.rules.yml
rtest=$top/contrib/prometheus/slurm-spank-ebpf.test.yml
dash=$top/contrib/grafana/job-io.json

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

out=$(promtool check rules "$rules" 2>&1)
tap_point "promtool check rules" $? || show "$out"
# promtool test rules resolves rule_files against the test file's directory.
out=$(cd "$(dirname "$rtest")" && promtool test rules "$(basename "$rtest")" 2>&1)
tap_point "promtool test rules" $? || show "$out"

# The names that exist, from the code that reads or writes them.
probes=$({ sed -n 's/.*P "\([a-z_]*\)".*/ebpf_exporter_spank_\1/p' "$top/src/spank-ebpf/report_figures.c"
	grep -o 'strcmp(name, "fs_[a-z_]*")' "$top/src/spank-ebpf/report_fs.c" | sed 's/.*"\(fs_[a-z_]*\)".*/ebpf_exporter_spank_\1/'; } |
	grep -v '_$' | sort -u)
info=$(grep -o 'spank_ebpf_job_info' "$top/src/common/jobinfo.c" | sort -u)
node=$(grep -o '"spank_ebpf_[a-z_]*\( \|"\|{\)' "$top/src/spank-ebpf/cmd_metrics.c" | tr -d '"{ ' | sort -u)
ok_if "the probes' names, from report_figures.c" test "$(printf '%s\n' "$probes" | wc -l)" -ge 6
ok_if "the fs set's names, from report_fs.c" test "$(printf '%s\n' "$probes" | grep -c '_fs_')" -eq 5
# The network file systems' types: the command's one list
# (report_fs_net, which top's query also takes), the rules' and the
# dashboard's regex alike.
net=$(sed -n 's/^static const char \*const report_fs_net\[\] = { \(.*\) };/\1/p' "$top/src/spank-ebpf/report_fs.c" | tr -d '" ' | tr ',' '|')
ok_if "the network fstypes, from report_fs.c" test -n "$net"
for f in "$rules" "$dash"; do
	got=$(grep -o 'fstype=~\\*"[^"\\]*' "$f" | sed 's/.*"//' | sort -u)
	is "$(basename "$f"): its network fstypes are the command's" "$got" "$net|fuse[.].+"
done
ok_if "spank_ebpf_job_info, from jobinfo.c" test "$info" = spank_ebpf_job_info
ok_if "spank-ebpf metrics' families, from cmd_metrics.c" test "$(printf '%s\n' "$node" | grep -c .)" -ge 3
printf '%s\n' $probes $info >"$tmp/dash-names"
printf '%s\n' $probes $info $node >"$tmp/rule-names"

# names.py KIND FILE NAMES: one line per expression, "ok|bad TEXT".
cat >"$tmp/names.py" <<'PY'
import json, re, sys
kind, path, names_file = sys.argv[1:4]
known = set(open(names_file).read().split())
# A histogram's _bucket name stands for its _sum and _count too.
known |= {n[:-7] + s for n in known if n.endswith("_bucket") for s in ("_sum", "_count")}
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "and",
            "or", "unless", "bool", "offset", "inf", "nan"}

def metrics(expr):
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)             # strings
    e = re.sub(r"\{[^}]*\}", "", e)                           # matchers
    e = re.sub(r"\[[^\]]*\]", "", e)                          # ranges
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)
    found = []
    for m in re.finditer(r"(?<![\w.:$])([A-Za-z_:][\w:]*)(?![\w:])(?!\s*\()", e):
        if m.group(1).lower() not in KEYWORDS:
            found.append(m.group(1))
    return found

if kind == "rules":
    import yaml
    doc = yaml.safe_load(open(path))
    rules = [r for g in doc["groups"] for r in g["rules"]]
    known |= {r["record"] for r in rules if "record" in r}
    exprs = [(r.get("record") or r.get("alert"), r["expr"]) for r in rules]
else:
    doc = json.load(open(path))
    exprs = [(p.get("title", "?"), t.get("expr", ""))
             for p in doc.get("panels", []) for t in p.get("targets", [])]
for what, expr in exprs:
    used = metrics(expr)
    unknown = [u for u in used if u not in known]
    if not used:
        print("bad %s: reads no series" % what)
    elif unknown:
        print("bad %s: unknown %s" % (what, ", ".join(unknown)))
    else:
        print("ok %s: %s" % (what, ", ".join(sorted(set(used)))))
PY

while read -r verdict text; do
	tap_point "rules: $text" "$([ "$verdict" = ok ] && echo 0 || echo 1)"
done < <(python3 "$tmp/names.py" rules "$rules" "$tmp/rule-names" 2>&1 || echo "bad the script failed")

# --- the dashboard -----------------------------------------------------------
out=$(python3 -m json.tool "$dash" 2>&1 >/dev/null)
tap_point "dashboard: valid JSON" $? || show "$out"
while read -r verdict text; do
	tap_point "dashboard: $text" "$([ "$verdict" = ok ] && echo 0 || echo 1)"
done < <(python3 "$tmp/names.py" dashboard "$dash" "$tmp/dash-names" 2>&1 || echo "bad the script failed")
# A jobid variable, listed from spank_ebpf_job_info; every query of every
# panel filters on it; the four panels the dashboard is for.
out=$(python3 - "$dash" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = {x["name"]: x for x in d["templating"]["list"]}
j = v.get("jobid")
q = j and (j.get("query", {}).get("query") if isinstance(j.get("query"), dict) else j.get("query"))
print("jobid variable:", "ok" if j and j.get("type") == "query" and q and "spank_ebpf_job_info" in q
      and q.startswith("label_values(") and q.rstrip().endswith("jobid)") else "bad %r" % (q,))
for p in d["panels"]:
    exprs = [t.get("expr", "") for t in p.get("targets", [])]
    # An operators' panel over every job says so in its title, and
    # bounds what it shows (topk); every other panel is the job's.
    if p.get("title", "").startswith("Cluster (operators): "):
        good = exprs and all(e.startswith("topk(") and "$jobid" not in e for e in exprs)
        print("panel %s: every job, bounded by topk: %s" % (p.get("title"), "ok" if good else "bad"))
        continue
    good = exprs and all('jobid="$jobid"' in e for e in exprs)
    print("panel %s filters on $jobid: %s" % (p.get("title"), "ok" if good else "bad"))
titles = " | ".join(p.get("title", "") for p in d["panels"])
for want in ("I/O latency p50", "I/O latency p99", "I/O bytes", "Run-queue latency p99", "Waiting for a CPU",
             "File system bytes per second", "File system metadata operations per second",
             "Cluster (operators): top jobs by metadata operations on network file systems"):
    print("panel %s: %s" % (want, "ok" if want in titles else "bad (have: %s)" % titles))
PY
)
while IFS= read -r line; do
	case $line in
	*": ok") tap_point "dashboard: ${line%: ok}" 0 ;;
	*) tap_point "dashboard: $line" 1 ;;
	esac
done <<<"$out"
# The panels' PromQL parses: each expression, with the dashboard's
# variables filled in, as a recording rule promtool checks.
python3 - "$dash" >"$tmp/dash-rules.yml" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("groups:\n  - name: dashboard\n    rules:")
for i, p in enumerate(d["panels"]):
    for t in p.get("targets", []):
        e = t["expr"].replace("$__rate_interval", "5m").replace("$jobid", "42").replace("$user", "alice")
        print("      - record: dashboard:panel%d" % i)
        print("        expr: %s" % json.dumps(e))
PY
out=$(promtool check rules "$tmp/dash-rules.yml" 2>&1)
tap_point "dashboard: every expression parses (promtool)" $? || show "$out"

# --- docs/OPERATING.md's PromQL ------------------------------------------------
# Each ```promql block (expressions separated by blank lines, # comments)
# parses, and reads only series the project exports.
python3 - "$top/docs/OPERATING.md" >"$tmp/doc-rules.yml" <<'PY'
import json, re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"^```promql\n(.*?)^```", text, re.M | re.S)
print("groups:\n  - name: docs\n    rules:")
i = 0
for b in blocks:
    for e in re.split(r"\n\s*\n", re.sub(r"(?m)^\s*#.*$", "", b)):
        if e.strip():
            print("      - record: docs:expr%d\n        expr: %s" % (i, json.dumps(e.strip())))
            i += 1
PY
ok_if "docs/OPERATING.md: PromQL examples found" grep -q 'docs:expr' "$tmp/doc-rules.yml"
out=$(promtool check rules "$tmp/doc-rules.yml" 2>&1)
tap_point "docs/OPERATING.md: every PromQL example parses (promtool)" $? || show "$out"
while read -r verdict text; do
	tap_point "docs/OPERATING.md: $text" "$([ "$verdict" = ok ] && echo 0 || echo 1)"
done < <(python3 "$tmp/names.py" rules "$tmp/doc-rules.yml" "$tmp/dash-names" 2>&1 || echo "bad the script failed")

# The sets file example is one the parser accepts, and its refusal example
# is the parser's own words.
cmd=${SPANK_EBPF_CMD:-${top_builddir:-.}/src/spank-ebpf/spank-ebpf}
if [ -x "$cmd" ]; then
	sed -n '/^# \/etc\/slurm\/spank_ebpf_sets\.conf: owned by root/,/^```$/p' "$top/docs/OPERATING.md" | sed '$d' >"$tmp/ops-sets.conf"
	out=$("$cmd" check-config --sets "$tmp/ops-sets.conf" 2>&1)
	tap_point "docs/OPERATING.md: the sets file example is valid" $? || show "$out"
	sed 's/127\.0\.0\.1:943/127.0.0.1:941/' "$tmp/ops-sets.conf" >"$tmp/ops-bad.conf"
	out=$("$cmd" check-config --sets "$tmp/ops-bad.conf" 2>&1 | sed 's|[^ ]*/ops-bad\.conf|/etc/slurm/spank_ebpf_sets.conf|')
	like "docs/OPERATING.md: its refusal example, as the parser words it" "$(tr '\n' ' ' <"$top/docs/OPERATING.md" | sed 's/  */ /g')" "$(printf '%s' "$out" | sed 's/[][().|*^$\\]/\\&/g')"
else
	[ -z "${CI:-}" ] || bail "missing in CI: the built $cmd"
	skip_point "the built spank-ebpf missing: OPERATING.md's sets file is not checked"
fi

# --- the Ansible role's sets file ------------------------------------------------
# The role's templates as Ansible renders them: with probe sets, a sets file
# the plugin's parser accepts (the role's validate: runs the same command)
# and sets= on the line; without, no sets= (the line as before sets).
cmd=${SPANK_EBPF_CMD:-${top_builddir:-.}/src/spank-ebpf/spank-ebpf}
role=$top/contrib/ansible/roles/slurm_spank_ebpf
if ! command -v ansible >/dev/null 2>&1 || [ ! -x "$cmd" ]; then
	[ -z "${CI:-}" ] || bail "missing in CI: ansible or the built $cmd"
	skip_point "ansible or the built spank-ebpf missing: the role's templates are not rendered"
else
	cat >"$tmp/vars.yml" <<'YML'
slurm_spank_ebpf_probe_sets:
  - {name: io, description: Block I/O latency and bytes of the job, configs: [spank-io], listen: "127.0.0.1:941", linger: 60}
  - {name: sched, description: Run-queue latency, configs: spank-sched, listen: "127.0.0.1:942"}
  - {name: net, description: TCP and OOM kills, configs: [spank-net, spank-oom], listen: "127.0.0.1:943"}
slurm_spank_ebpf_probe_sets_default: [io, sched]
slurm_spank_ebpf_probe_sets_always: [io]
slurm_spank_ebpf_probe_sets_settings: {textfile: none, config_dir: /nonexistent/spank-ebpf-configs}
_slurm_spank_ebpf_plugin: /usr/lib/slurm/spank_ebpf.so
YML
	render() { # render TEMPLATE DEST [EXTRA-VARS-JSON]
		HOME=$tmp ANSIBLE_HOME=$tmp ANSIBLE_LOCAL_TEMP=$tmp/local ANSIBLE_REMOTE_TEMP=$tmp/remote \
			ANSIBLE_ROLES_PATH=$top/contrib/ansible/roles ansible localhost -c local -i localhost, \
			-m ansible.builtin.template -a "src=$role/templates/$1 dest=$2 mode=0644" \
			-e @"$role/defaults/main.yml" -e @"$tmp/vars.yml" ${3:+-e "$3"} >"$tmp/ansible.out" 2>&1
	}
	render spank_ebpf_sets.conf.j2 "$tmp/sets.conf"
	tap_point "ansible: the sets file renders" $? || show "$(cat "$tmp/ansible.out")"
	out=$("$cmd" check-config --sets "$tmp/sets.conf" 2>&1)
	tap_point "ansible: check-config --sets accepts it" $? || show "$out"
	like "ansible: its sets, defaults and linger as given" "$(printf '%s' "$out" | tr '\n' ' ')" 'probe sets: io, sched, net;.*set io: configs spank-io on 127\.0\.0\.1:941, linger 60s: .*set net: configs spank-net,spank-oom on 127\.0\.0\.1:943'
	like "ansible: default= and always= as given" "$(cat "$tmp/sets.conf")" '^default = io,sched$'
	render spank_ebpf.conf.j2 "$tmp/line.conf"
	like "ansible: the line names the sets file" "$(tail -n 1 "$tmp/line.conf")" ' sets=/etc/slurm/spank_ebpf_sets\.conf$'
	render spank_ebpf.conf.j2 "$tmp/line0.conf" '{"slurm_spank_ebpf_probe_sets": []}'
	is "ansible: without probe sets, the line as before" "$(tail -n 1 "$tmp/line0.conf")" "optional /usr/lib/slurm/spank_ebpf.so mode=opt-in"
fi

done_testing
