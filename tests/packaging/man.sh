#!/bin/bash
# The manual pages (spank_ebpf(8), spank-ebpf(8), spank_ebpf_sets.conf(5)),
# the plugstack drop-in and the systemd preset as built:
# lint-clean for groff and man-db (lintian's own check), reachable under
# both names, complete (every argument with its default, the user option,
# files, failure policy, the log lines the plugin really prints, examples
# for both modes), and with version, date and paths filled in.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/packaging/pkglib.sh"

need_cmd groff man
page=$top_builddir/src/spank/spank_ebpf.8
dropin=$top_builddir/etc/spank_ebpf.conf
preset=${srcdir:-.}/etc/50-slurm-spank-ebpf.preset
[ -f "$page" ] && [ -f "$dropin" ] || missing "built man page and drop-in (run make first)"

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# --- lint ---------------------------------------------------------------
out=$(groff -ww -z -man -t "$page" 2>&1)
is "groff -ww: no warnings" "$out" ""
out=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 >/dev/null)
is "man --warnings (as lintian runs it): no warnings" "$out" ""
unlike "no unsubstituted @VARIABLE@" "$(cat "$page" "$dropin")" '@[A-Za-z_]+@'

# man_repeats PAGE: a heading twice, or a tag twice under one heading
# (a key= by its name, any other by its whole line): a merge once left a
# second copy of 200 lines of this page, its keys twice.
man_repeats() {
	awk '/^\.S[HS] / { if (heading[$0]++) print "heading twice: " $0; sec = $0; tp = 0; next }
		tp && /^\.[BIR]+ / { k = $2 ~ /=$/ ? $2 : $0; if (tag[sec SUBSEP k]++) print "tag twice under " sec ": " $0 }
		{ tp = ($0 == ".TP") }' "$1"
}
is "no heading twice, no key twice in one section" "$(man_repeats "$page")" ""

# --- spank-ebpf(8), the admin command's page --------------------------------
cpage=$top_builddir/src/spank-ebpf/spank-ebpf.8
out=$(groff -ww -z -man -t "$cpage" 2>&1)
is "spank-ebpf(8): groff -ww: no warnings" "$out" ""
out=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$cpage" 2>&1 >/dev/null)
is "spank-ebpf(8): man --warnings: no warnings" "$out" ""
unlike "spank-ebpf(8): no unsubstituted @VARIABLE@" "$(cat "$cpage" 2>&1)" '@[A-Za-z_]+@'
is "spank-ebpf(8): no heading twice, no key twice in one section" "$(man_repeats "$cpage")" ""
ctext=$(MANWIDTH=200 man -l "$cpage" 2>/dev/null | sed -e 's/[[:space:]]\{1,\}/ /g' -e 's/^ //' | tr '\n' ' ')
for c in status reconcile metrics check-config; do
	like "spank-ebpf(8): command $c" "$ctext" "spank-ebpf .*$c"
done
like "spank-ebpf(8): the configured default plugstack file" "$ctext" "Default: $(mkexpand slurmconfdir)/plugstack\.conf\.d/spank_ebpf\.conf"
like "spank-ebpf(8): exit statuses 0, 1, 2" "$ctext" 'EXIT STATUS 0 .* 1 .* 2 Cannot tell'
like "spank-ebpf(8): the timer's textfile directory" "$ctext" "metrics --textfile $(mkvar TEXTFILE_DIR)"
like "spank-ebpf(8): every metric" "$ctext" 'spank_ebpf_jobs.*spank_ebpf_unit_up.*spank_ebpf_last_start_duration_seconds.*spank_ebpf_last_stop_duration_seconds.*spank_ebpf_starts_total.*spank_ebpf_stops_total.*spank_ebpf_start_failures_total.*spank_ebpf_stop_failures_total.*spank_ebpf_restarts_total.*spank_ebpf_reconcile_runs_total.*spank_ebpf_reconcile_failures_total.*spank_ebpf_reconcile_removed_jobs_total'
like "spank-ebpf(8): in the base package, for submit hosts too" "$ctext" 'base package slurm-spank-ebpf'

# The man page's sections as rendered: section NAME's text, flattened.
# section TEXT NAME prints the lines from the heading NAME to the next one.
section() {
	printf '%s\n' "$1" | awk -v h="$2" '/^[A-Z][A-Z ]*$/ { on = ($0 == h); next } on' |
		sed -e 's/[[:space:]]\{1,\}/ /g' -e 's/^ //' | tr '\n' ' '
}
crender=$(MANWIDTH=200 man -l "$cpage" 2>/dev/null)
csyn=$(section "$crender" SYNOPSIS)
ccmds=$(section "$crender" COMMANDS)
cexit=$(section "$crender" "EXIT STATUS")
cfiles=$(section "$crender" FILES)
# Each probe-set command: in SYNOPSIS with its arguments, in COMMANDS as a
# tag of its own, and in EXIT STATUS; each must also be one the program
# knows (its usage text: every form, as a usage error prints them, a form
# that goes on over lines joined into one).
cmd=${SPANK_EBPF_CMD:-$top_builddir/src/spank-ebpf/spank-ebpf}
[ -x "$cmd" ] || missing "built $cmd (run make first)"
usage=$(env -i "$cmd" 2>&1 | awk '/^        / { sub(/^ +/, ""); form = form " " $0; next }
	{ if (NR > 1) print form; form = $0 } END { print form }')
while IFS=';' read -r syn tag; do
	like "spank-ebpf(8): the program knows \"$syn\"" "$usage" "spank-ebpf .*$(printf '%s' "$syn" | sed 's/[][]/\\&/g')"
	like "spank-ebpf(8): SYNOPSIS has \"$syn\"" "$csyn" "spank-ebpf (\\[-c FILE\\] )?$(printf '%s' "$syn" | sed 's/[][|]/\\&/g')"
	like "spank-ebpf(8): COMMANDS has \"$tag\"" "$(printf '%s\n' "$crender" | sed -n '/^COMMANDS/,/^OPTIONS/p')" "^       $(printf '%s' "$tag" | sed 's/[][|]/\\&/g')\$"
done <<'EOF2'
check-config [--sets] FILE|-;check-config --sets FILE|-
exporter [--check] SET;exporter [--check] SET
admit SET;admit SET
report [--json] [--cluster] [--summary] [--squeue=PATH] [--socket=PATH] JOBID;report [--json] [--socket=PATH] JOBID
report [--json] [--cluster] [--summary] [--squeue=PATH] [--socket=PATH] JOBID;report --cluster [--json] [--squeue=PATH] JOBID
report --peer;report --peer
summary [--print] [--wait=SECONDS] [--squeue=PATH] JOBID;summary [--print] [--wait=SECONDS] [--squeue=PATH] JOBID
epilog-slurmctld [--print] [--wait=SECONDS] [--squeue=PATH];epilog-slurmctld [--print] [--wait=SECONDS] [--squeue=PATH]
EOF2
for c in "check-config --sets" exporter admit report summary; do
	like "spank-ebpf(8): EXIT STATUS covers $c" "$cexit" "[(,] ?$c[),:]"
done
like "spank-ebpf(8): report: another user's job, the same words as none" "$ccmds" 'report: job 42 holds no probe set on this node \(or is not yours\)'
like "spank-ebpf(8): the code says those words" "$(cat "${srcdir:-.}/src/spank-ebpf/cmd_report.c")" 'holds no probe set on this node%s.*\n?.*or is not yours|or is not yours'
for f in spank_ebpf_sets.conf 'refcount\.jobs' spank_ebpf_jobs.prom 'spank-ebpf-exporter@\.service' 'spank-ebpf-report\.socket' 'spank-ebpf-report@\.service'; do
	like "spank-ebpf(8): FILES has $f" "$cfiles" "$f"
done

# --- both names -----------------------------------------------------------
mkdir -p "$tmp/man/man8"
cp "$page" "$tmp/man/man8/spank_ebpf.8"
cp "${srcdir:-.}/man/slurm-spank-ebpf.8" "$tmp/man/man8/slurm-spank-ebpf.8"
a=$(MANPATH=$tmp/man MANWIDTH=80 man 8 spank_ebpf 2>&1)
b=$(MANPATH=$tmp/man MANWIDTH=80 man 8 slurm-spank-ebpf 2>&1)
like "man spank_ebpf renders" "$a" '^NAME'
is "man slurm-spank-ebpf shows the same page" "$b" "$a"
like "NAME lists both names" "$a" 'spank_ebpf, slurm-spank-ebpf - '
text=$(MANWIDTH=200 man -l "$page" 2>/dev/null | sed -e 's/[[:space:]]\{1,\}/ /g' -e 's/^ //')
flat=$(printf '%s\n' "$text" | tr '\n' ' ')

# --- header, sections ------------------------------------------------------
like "header: section 8, version $VERSION, date $(mkvar DATE)" "$(head -n 3 "$page")" \
	"^\\.TH SPANK_EBPF 8 \"$(mkvar DATE)\" \"slurm\\\\-spank\\\\-ebpf $VERSION\""
for s in NAME SYNOPSIS DESCRIPTION ARGUMENTS "USER OPTION" INSTALLATION FILES \
	"FAILURE POLICY" DIAGNOSTICS EXAMPLES "SEE ALSO"; do
	like "section $s" "$(grep '^\.SH' "$page")" "^\\.SH \"?$s\"?\$"
done

# --- content ----------------------------------------------------------------
plugindir=$(mkexpand slurmplugindir)
slurmconfdir=$(mkexpand slurmconfdir)
like "synopsis: the plugstack line with the configured plugin path" "$flat" \
	"optional $plugindir/spank_ebpf.so \\[mode=opt-in\\|always\\] \\[unit=UNIT\\] \\[state=FILE\\] \\[systemctl=PATH\\] \\[timeout=SECONDS\\] \\[lock_timeout=SECONDS\\] \\[start=wait\\|background\\] \\[linger=SECONDS\\]"
like "argument mode, default opt-in" "$flat" 'opt-in \(default\)'
like "argument unit, default" "$flat" 'unit=UNIT .*Default: ebpf_exporter\.service'
like "argument state, default" "$flat" 'state=FILE .*Default: /run/ebpf_exporter\.refcount'
like "state: lock, temp and corrupt files" "$flat" 'FILE\.lock .*FILE\.tmp .*FILE\.corrupt'
like "argument systemctl, default $(mkvar SYSTEMCTL)" "$flat" "systemctl=PATH .*Default: $(mkvar SYSTEMCTL)\\."
like "argument timeout, 1-600, default 10" "$flat" 'timeout=SECONDS How long each .* from 1 to 600\. Default: 10\.'
like "argument lock_timeout, 1-600, default 60, more than 3 x timeout" "$flat" 'lock_timeout=SECONDS .* from 1 to 600\. Default: 60\. It must be more than 3 × timeout'
like "argument start, wait or background" "$flat" 'start=wait\|background wait \(the default\): the first job.s prolog waits for systemctl start'
like "user option --ebpf with its help text" "$flat" '--ebpf Enable eBPF observability \(ebpf_exporter\) for this job\.'
like "install on submit hosts too" "$flat" 'must be installed and declared on every submit host'
like "restart slurmd after install or upgrade" "$flat" 'Restart slurmd after installing or upgrading the plugin'
like "the three packages" "$flat" 'slurm-spank-ebpf .*slurm-spank-ebpf-compute .*slurm-spank-ebpf-submit'
like "failure policy: never drains" "$flat" 'never fails a job and never drains a node'
like "files: the drop-in, and the link Slurm reads" "$flat" "$slurmconfdir/spank_ebpf\\.conf The plugin's line.* $slurmconfdir/plugstack\\.conf\\.d/spank_ebpf\\.conf A symbolic link to the file above"
like "files: the preset" "$flat" '50-slurm-spank-ebpf\.preset'
like "example: opt-in mode" "$text" "optional $plugindir/spank_ebpf\\.so mode=opt-in\$"
like "example: mode=always" "$text" "optional $plugindir/spank_ebpf\\.so mode=always"
like "example: sbatch --ebpf" "$text" 'sbatch --ebpf job\.sh'
like "see also spank(8), slurm.conf(5), plugstack.conf" "$flat" 'spank\(8\) .*plugstack\.conf; slurm\.conf\(5\)'

# --- probe sets ---------------------------------------------------------------
render=$(MANWIDTH=200 man -l "$page" 2>/dev/null)
sets_text=$(section "$render" "PROBE SETS")
files_text=$(section "$render" FILES)
useropt=$(section "$render" "USER OPTION")
like "section PROBE SETS, before USER OPTION" "$(grep '^\.SH' "$page" | tr '\n' ' ')" '\.SH "?PROBE SETS"? .*\.SH "?USER OPTION"?'
like "synopsis: sets=FILE on the line" "$flat" '\[linger=SECONDS\] \[sets=FILE\]'
like "argument sets=FILE" "$flat" 'sets=FILE The probe sets file'
like "PROBE SETS: the file's format is spank_ebpf_sets.conf(5)" "$sets_text" 'format, keys and defaults are in spank_ebpf_sets\.conf\(5\)'
unlike "PROBE SETS: no key left here (they are in spank_ebpf_sets.conf(5))" "$(sed -n '/^\.SH PROBE SETS/,/^\.SH /p' "$page")" '^\.TP'
like "PROBE SETS: plain --ebpf is default=" "$sets_text" 'plain --ebpf means the sets of default='
like "PROBE SETS: mode=always is always=" "$sets_text" 'mode=always every job that did not ask holds the sets of always='
like "PROBE SETS: one instance per set, the template unit" "$sets_text" 'instance spank-ebpf-exporter@io\.service starts'
like "PROBE SETS: without sets=, exactly as before" "$sets_text" 'A site without sets= behaves exactly as before'
like "PROBE SETS: check-config --sets" "$sets_text" 'spank-ebpf check-config --sets FILE'
like "user option: --ebpf[=SET[,SET...]]" "$useropt" '--ebpf\[=SET\[,SET\.\.\.\]\]'
like "user option: the refusal, in the code's words" "$(cat "${srcdir:-.}/src/spank/spank_init.c")" 'unknown probe set \\"%s\\"; allowed: %s'
like "user option: the refusal, on the page" "$useropt" 'unknown probe set "X"; allowed: io, sched, net'
like "files: the sets file" "$files_text" 'spank_ebpf_sets\.conf The probe sets file.*spank_ebpf_sets\.conf\(5\)'
like "files: <state>.jobs" "$files_text" 'refcount\.jobs With probe sets'
like "files: the job_info textfile" "$files_text" 'spank_ebpf_jobs\.prom With probe sets, the spank_ebpf_job_info'

# --- spank_ebpf_sets.conf(5), the probe sets file ------------------------------
spage=$top_builddir/src/common/spank_ebpf_sets.conf.5
[ -f "$spage" ] || missing "built $spage (run make first)"
out=$(groff -ww -z -man -t "$spage" 2>&1)
is "spank_ebpf_sets.conf(5): groff -ww: no warnings" "$out" ""
out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$spage" 2>&1 >/dev/null)
is "spank_ebpf_sets.conf(5): man --warnings: no warnings" "$out" ""
out=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$spage" 2>&1 >/dev/null)
is "spank_ebpf_sets.conf(5): man --warnings (as lintian runs it): no warnings" "$out" ""
unlike "spank_ebpf_sets.conf(5): no unsubstituted @VARIABLE@" "$(cat "$spage" 2>&1)" '@[A-Za-z_]+@'
is "spank_ebpf_sets.conf(5): no heading twice, no key twice in one section" "$(man_repeats "$spage")" ""
like "spank_ebpf_sets.conf(5): header: section 5, version $VERSION, date $(mkvar DATE)" "$(head -n 3 "$spage")" \
	"^\\.TH SPANK_EBPF_SETS\\.CONF 5 \"$(mkvar DATE)\" \"slurm\\\\-spank\\\\-ebpf $VERSION\""
for s in NAME SYNOPSIS DESCRIPTION "FILE FORMAT" "GLOBAL KEYS" "SET KEYS" EXAMPLES FILES "SEE ALSO"; do
	like "spank_ebpf_sets.conf(5): section $s" "$(grep '^\.SH' "$spage")" "^\\.SH \"?$s\"?\$"
done
srender=$(MANWIDTH=200 man -l "$spage" 2>/dev/null)
sflat=$(printf '%s\n' "$srender" | sed -e 's/[[:space:]]\{1,\}/ /g' -e 's/^ //' | tr '\n' ' ')
sglobal=$(section "$srender" "GLOBAL KEYS")
sset=$(section "$srender" "SET KEYS")
sformat=$(section "$srender" "FILE FORMAT")
# The keys the parser accepts, in its own words: an unknown key is refused
# with the list of the known ones, before the first [set] and inside one.
probe() {
	printf '%s' "$1" | "$cmd" check-config --sets - 2>&1 | sed -n 's/.*unknown key "zz_unknown" (\(before the first \[set\]: \)\{0,1\}\(.*\))$/\2/p' | tr -d ' ' | tr ',' ' '
}
gkeys=$(probe 'zz_unknown = 1
')
skeys=$(probe '[io]
zz_unknown = 1
')
ok_if "the parser lists its global keys (check-config --sets)" test -n "$gkeys"
ok_if "the parser lists its set keys (check-config --sets)" test -n "$skeys"
# Each key: under its heading, and a tag once on the whole page.
for k in $gkeys; do
	like "spank_ebpf_sets.conf(5): GLOBAL KEYS documents $k" "$sglobal" "(^| )$k="
done
for k in $skeys; do
	like "spank_ebpf_sets.conf(5): SET KEYS documents $k" "$sset" "(^| )$k="
done
for k in $gkeys $skeys; do
	is "spank_ebpf_sets.conf(5): $k= is a tag once" "$(awk -v k="$k=" 'tp && /^\.[BIR]+ / && $2 ~ "^" k { n++ } { tp = ($0 == ".TP") } END { print n + 0 }' "$spage")" 1
done
# The defaults, as the parser fills them in for a file that gives none.
minimal=$(printf 'default = a\n[a]\ndescription = x\nconfigs = c\nlisten = 127.0.0.1:941\n' | "$cmd" check-config --sets - 2>&1)
def_unit=$(printf '%s\n' "$minimal" | sed -n 's/^probe sets: .*; template \([^,]*\),.*/\1/p')
def_exporter=$(printf '%s\n' "$minimal" | sed -n 's/^probe sets: .*, exporter \([^,]*\),.*/\1/p')
def_config_dir=$(printf '%s\n' "$minimal" | sed -n 's/^probe sets: .*, config_dir \([^,]*\)$/\1/p')
ok_if "the parser names its default template, exporter and config_dir" test -n "$def_unit" -a -n "$def_exporter" -a -n "$def_config_dir"
like "spank_ebpf_sets.conf(5): unit= default, the parser's" "$sglobal" "unit=NAME@\\.service .*Default: $def_unit,"
like "spank_ebpf_sets.conf(5): exporter= default, the parser's" "$sglobal" "exporter=PATH The ebpf_exporter binary\\. Default: $def_exporter\\."
like "spank_ebpf_sets.conf(5): config_dir= default, the parser's" "$sglobal" "config_dir=DIR .*Default: $def_config_dir,"
like "spank_ebpf_sets.conf(5): textfile= default, the configured one" "$sglobal" "textfile=DIR\\|none .*Default: $(mkvar TEXTFILE_DIR)\\."
def_group=$(sed -n 's/^#define TEXTFILE_GROUP "\([^"]*\)".*/\1/p' "${srcdir:-.}/src/common/sets.c")
like "spank_ebpf_sets.conf(5): textfile_group= default, the code's ($def_group)" "$sglobal" "textfile_group=GROUP .*Default: ${def_group:-?} "
like "spank_ebpf_sets.conf(5): default= required" "$sglobal" 'default=SET\[,SET\.\.\.\] Required\.'
like "spank_ebpf_sets.conf(5): always= defaults to default=" "$sglobal" 'always=SET\[,SET\.\.\.\] With the plugin.s mode=always: .* Default: the sets of default=\.'
like "spank_ebpf_sets.conf(5): linger= defaults to the line's" "$sset" "linger=SECONDS The set's own linger window, from 0 to 86400\\. Default: the plugin line's linger="
for k in description configs listen; do
	like "spank_ebpf_sets.conf(5): $k= required" "$sset" "$k=[^ ]* Required\\."
done
# The limits, from sets.h.
lim() { sed -n "s/^#define $1 \\([0-9]*\\).*/\\1/p" "${srcdir:-.}/src/common/sets.h"; }
like "spank_ebpf_sets.conf(5): the file's size limit, SETS_FILE_MAX" "$sformat" "of at most $(lim SETS_FILE_MAX) bytes"
like "spank_ebpf_sets.conf(5): a set's name, SET_NAME_MAX; the sets, SETS_MAX" "$sformat" "\\[a-z\\]\\[a-z0-9_-\\]\\* of at most $(lim SET_NAME_MAX) characters; at most $(lim SETS_MAX) sets"
like "spank_ebpf_sets.conf(5): description, SET_DESC_MAX" "$sset" "1 to $(lim SET_DESC_MAX) printable ASCII characters"
like "spank_ebpf_sets.conf(5): configs, SET_CONFIGS_MAX and SET_CONFIG_NAME_MAX" "$sset" "Up to $(lim SET_CONFIGS_MAX) ebpf_exporter config names of at most $(lim SET_CONFIG_NAME_MAX) characters"
like "spank_ebpf_sets.conf(5): textfile_group, SETS_GROUP_MAX" "$sglobal" "of at most $(lim SETS_GROUP_MAX) characters"
like "spank_ebpf_sets.conf(5): listen, a privileged port (LISTENADDR_PORT_MAX)" "$sset" "a privileged port, 1 to $(sed -n 's/^#define LISTENADDR_PORT_MAX \([0-9]*\).*/\1/p' "${srcdir:-.}/src/common/listenaddr.h"),"
like "spank_ebpf_sets.conf(5): an example sets file" "$(section "$srender" EXAMPLES)" '\[io\] description = .* configs = spank-io listen = 127\.0\.0\.1:941'
# The page's example sets file, as rendered, is one the parser accepts.
printf '%s\n' "$srender" | sed -n '/^ *# .*spank_ebpf_sets\.conf$/,/^ *and on the plugin.s line:/p' | sed '$d' |
	sed 's/^ *//' >"$tmp/sets.conf"
out=$("$cmd" check-config --sets "$tmp/sets.conf" 2>&1)
tap_point "spank_ebpf_sets.conf(5): the example is a valid sets file (check-config --sets)" $? || show "$out"
like "spank_ebpf_sets.conf(5): the example declares io, sched, sched-detail, net, fs, fs-all" "$out" '^probe sets: io, sched, sched-detail, net, fs, fs-all;'
like "spank_ebpf_sets.conf(5): the plugin line's sets=, configured" "$sflat" "optional $plugindir/spank_ebpf\\.so sets=$slurmconfdir/spank_ebpf_sets\\.conf"
like "spank_ebpf_sets.conf(5): check-config --sets" "$sflat" 'spank-ebpf check-config --sets '
printf 'default = io\n[io]\ndescription = x\nconfigs = c\nlisten = 127.0.0.1:941\n[net]\ndescription = y\nconfigs = d\nlisten = 127.0.0.1:941\n' >"$tmp/clash.conf"
clash=$("$cmd" check-config --sets "$tmp/clash.conf" 2>&1 | sed -n 's/.*clash\.conf:[0-9]*: //p' | sed -e 's/[]().[]/\\&/g' -e 's/[0-9][0-9]*/[0-9]+/g')
ok_if "the parser refuses a port twice (check-config --sets)" test -n "$clash"
like "spank_ebpf_sets.conf(5): a refusal names the file and line, in the parser's words" "$sformat" "spank_ebpf_sets\\.conf:[0-9]+: ${clash:-?}"
like "spank_ebpf_sets.conf(5): WHO CAN TAKE A SET'S ADDRESS" "$(grep '^\.SH' "$spage")" "WHO CAN TAKE A SET'S ADDRESS"

# --- which page is which: the first lines, and SEE ALSO --------------------------
# first_lines RENDER: NAME and the first paragraph of DESCRIPTION, flattened.
first_lines() {
	printf '%s\n' "$1" | awk '/^NAME$/ { on = 1; next } /^SYNOPSIS$/ { on = 0 }
		/^DESCRIPTION$/ { on = 2; next } on == 2 && /^$/ { exit } on' |
		sed -e 's/[[:space:]]\{1,\}/ /g' -e 's/^ //' | tr '\n' ' '
}
pfirst=$(first_lines "$render")
cfirst=$(first_lines "$crender")
sfirst=$(first_lines "$srender")
like "spank_ebpf(8) says first it is the plugin Slurm loads" "$pfirst" 'Slurm SPANK plugin .* is the SPANK plugin that Slurm loads'
like "spank_ebpf(8) points first to the command spank-ebpf(8)" "$pfirst" "administrator's command.* is spank-ebpf\\(8\\)"
like "spank-ebpf(8) says first it is the admin command" "$cfirst" "admin command of slurm-spank-ebpf.* is the administrator's command"
like "spank-ebpf(8) points first to the plugin spank_ebpf(8)" "$cfirst" 'The SPANK plugin that Slurm loads is spank_ebpf\(8\)'
like "spank_ebpf_sets.conf(5) names the plugin that reads it" "$sfirst" 'probe sets of the spank_ebpf Slurm plugin'
like "spank_ebpf(8): SEE ALSO spank-ebpf(8), spank_ebpf_sets.conf(5)" "$(section "$render" "SEE ALSO")" 'spank-ebpf\(8\), spank_ebpf_sets\.conf\(5\)'
like "spank-ebpf(8): SEE ALSO spank_ebpf(8), spank_ebpf_sets.conf(5)" "$(section "$crender" "SEE ALSO")" 'spank_ebpf\(8\), spank_ebpf_sets\.conf\(5\)'
like "spank_ebpf_sets.conf(5): SEE ALSO both section-8 pages" "$(section "$srender" "SEE ALSO")" 'spank_ebpf\(8\), spank-ebpf\(8\)'

# Every log line the admin can meet is explained: each phrase must be in
# the plugin's sources (so that the page follows the code) and the page.
src=$(cat "${srcdir:-.}"/src/*/*.c)
while IFS='|' read -r code doc; do
	[ -n "$code" ] || continue
	n=$((n + 1))
	doc=${doc//VERSION/$VERSION}
	if printf '%s' "$src" | grep -qF -- "$code" && printf '%s' "$flat" | grep -qF -- "$doc"; then
		echo "ok $n - diagnostics: \"$doc\""
	else
		echo "not ok $n - diagnostics: \"$doc\" (source has \"$code\": $(printf '%s' "$src" | grep -cF -- "$code"))"
		failed=$((failed + 1))
	fi
done <<'EOF'
spank_ebpf: %s%s|spank_ebpf: context: message
"slurmd"|slurmd: version VERSION loaded: mode=opt-in unit=ebpf_exporter.service state=... systemctl=... timeout=10s lock_timeout=60s start=wait linger=0s
version %s loaded: mode=%s unit=%s state=%s systemctl=%s timeout=%us lock_timeout=%us start=%s linger=%us|version VERSION loaded: mode=opt-in
"%s job %u", hook, job|prolog job 42: --ebpf: taking a hold on ebpf_exporter
"%s: taking a hold on %s", always ? "mode=always" : "--ebpf"|prolog job 42: mode=always: taking a hold on ebpf_exporter
releasing its hold on %s|epilog job 42: releasing its hold on ebpf_exporter
refcount now %zu|refcount now 1
"starting" : "stopping"|starting ebpf_exporter
"started" : "stopped"|ebpf_exporter started in 850 ms
done in %.1f ms (state lock: waited %.1f ms, held %.1f ms)|done in 851.2 ms (state lock: waited 0.1 ms, held 850.9 ms)
keeping %s for %u s|keeping ebpf_exporter for 60 s
joined within the linger window: %s keeps running|joined within the linger window: ebpf_exporter.service keeps running
stopping %s after %u s without jobs|linger-end: stopping ebpf_exporter after 60 s without jobs
start queued in %lu ms (start=background: the job does not wait for it)|ebpf_exporter start queued in 12 ms (start=background: the job does not wait for it)
the job already holds %s; refcount stays %zu|the job already holds ebpf_exporter.service; refcount stays 1
the job holds no reference on %s; refcount stays %zu|the job holds no reference on ebpf_exporter.service; refcount stays 0
failed to %s %s: %s %s %s %s|failed to start ebpf_exporter.service: /usr/bin/systemctl start ebpf_exporter.service exited with status 5
the job is not affected: it runs without the exporter|the job is not affected: it runs without the exporter
timed out after %u s and was killed|timed out after 10 s and was killed
could not be executed: %s|could not be executed: No such file or directory
invalid plugstack argument|slurmd: invalid plugstack argument "mode=on": mode must be "opt-in" or "always"
the plugin is disabled on this node, jobs run without the exporter|the plugin is disabled on this node, jobs run without the exporter
is not on tmpfs: after a reboot the state would still name dead jobs|slurmd: state directory "/var/lib/x" is not on tmpfs: after a reboot the state would still name dead jobs
it is a symbolic link|refusing state file "/run/ebpf_exporter.refcount": it is a symbolic link
owned by uid %u, not uid %u|owned by uid 1000, not uid 0
writable by group or others (mode %04o)|writable by group or others (mode 0666)
it has %lu hard links|it has 2 hard links
is damaged (%s); kept as \"%s.corrupt\", continuing with the %zu valid job IDs it holds|is damaged (...); kept as "/run/ebpf_exporter.refcount.corrupt", continuing with the 3 valid job IDs it holds
was written by a newer release of the plugin (%s): refusing it, left as it is|was written by a newer release of the plugin (line 1: "spank_ebpf state 3": a newer form than this release reads (1 and 2)): refusing it, left as it is
gave up waiting %u s for the lock on \"%s.lock\"|gave up waiting 30 s for the lock on "/run/ebpf_exporter.refcount.lock"
probe sets: %s (template %s)|slurmd: probe sets: io, sched, net (template spank-ebpf-exporter@.service)
jobs asking for probe sets run without them until it is fixed|jobs asking for probe sets run without them until it is fixed
without its probe sets the job holds nothing|without its probe sets the job holds nothing
--ebpf=%s: taking a hold on its probe sets|prolog job 42: --ebpf=io,sched: taking a hold on its probe sets
--ebpf: taking a hold on the default probe sets|prolog job 42: --ebpf: taking a hold on the default probe sets
mode=always: taking a hold on the always= probe sets|prolog job 42: mode=always: taking a hold on the always= probe sets
"its probe sets" : display|epilog job 42: releasing its hold on its probe sets
refcount now %zu; %s|refcount now 3; io 2, sched 1
unknown probe set \"%s\"; allowed: %s: not held|unknown probe set "iox"; allowed: io, sched, net: not held
no running process of its unit has the probes' filter (map %s)|set io: no running process of its unit has the probes' filter (map spank_jobs)
runs none of the project's configs: no job filter to fill|set io runs none of the project's configs: no job filter to fill
EOF
like "diagnostics: the version line names this version" "$flat" "version $VERSION loaded: mode=opt-in"

# --- the drop-in and the preset ----------------------------------------------
is "drop-in: one active line, optional, the configured plugin, opt-in" \
	"$(active_lines "$dropin")" "optional $plugindir/spank_ebpf.so mode=opt-in"
like "drop-in documents every argument and its default" "$(cat "$dropin")" \
	'mode=opt-in.*'
for kv in "unit=ebpf_exporter.service" "state=/run/ebpf_exporter.refcount" \
	"systemctl=$(mkvar SYSTEMCTL)" "timeout=10 " "lock_timeout=60 "; do
	like "drop-in documents $kv" "$(cat "$dropin")" "^#[[:space:]]+$kv"
done
is "preset: keeps the exporter's service, socket and the sets' template disabled, enables the reconcile timer and report's socket" \
	"$(active_lines "$preset")" "disable ebpf_exporter.service
disable ebpf_exporter.socket
disable spank-ebpf-exporter@.service
enable spank-ebpf-reconcile.timer
enable spank-ebpf-report.socket"

done_testing
