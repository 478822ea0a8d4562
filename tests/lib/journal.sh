# Reading a container's journal (through ct, tests/lib/container.sh):
# cursors, the lines of slurmd, slurmctld, the plugin and its admin
# command, and the jobs systemd ran for a unit. slurmd logs to the journal
# only (no SlurmdLogFile), as under Debian's units: that is where an admin
# looks. Sets PLUGIN_LOG for tests/lib/slurm.sh.

PLUGIN_LOG=_sys_plugin_lines

# A journal cursor: what was logged after it is journal_since's.
journal_mark() {
	ct journalctl -q -n 0 --show-cursor 2>/dev/null | sed -n 's/^-- cursor: //p'
}

# boot_mark: a journal cursor from before the current boot's own entries
# (the journal is persistent: journal_since "" would read earlier boots).
boot_mark() {
	ct journalctl -b -q -o json --no-pager 2>/dev/null | head -n 1 |
		sed -n 's/.*"__CURSOR":"\([^"]*\)".*/\1/p'
}

# journal_since CURSOR [journalctl args...]. A journalctl that fails
# (bad cursor, no journal) says so in the output: checks that expect no
# line ("the unit was never touched") must not pass on it.
journal_since() {
	local c=$1
	shift
	ct journalctl --no-pager -q -o cat ${c:+--after-cursor="$c"} "$@" ||
		echo "JOURNALCTL FAILED (exit $?): journalctl ${c:+--after-cursor=$c} $*"
}

# Lines are picked by the identifier journalctl prints, not by journal
# field matches: with --after-cursor, those lost the first matching entry
# (seen on bookworm's systemd 252: "prolog job 1" missing from -u slurmd,
# from -t spank-ebpf and from _SYSTEMD_UNIT=slurmd.service +
# SYSLOG_IDENTIFIER=slurmd, while the journal held it; an `unlike` check
# on such a read passes on the line it lost).
#
# ident_msgs_since CURSOR IDENT: the messages of the entries since CURSOR
# whose identifier matches the ERE IDENT.
ident_msgs_since() {
	journal_since "$1" -o short |
		sed -nE -e '/^JOURNALCTL FAILED/p' -e "s/^[^ ]+ +[^ ]+ [^ ]+ [^ ]+ ($2)\[[0-9]+\]: //p"
}

_sys_ident_lines() {
	ident_msgs_since "$1" "$2" | grep -o 'spank_ebpf: .*\|^JOURNALCTL FAILED.*'
}

# slurmd's own lines (and its job steps'); slurmctld's.
slurmd_log_since() {
	ident_msgs_since "$1" 'slurmd|slurmstepd'
}

slurmd_log_like() {
	slurmd_log_since "$1" | grep -qE -- "$2"
}

slurmctld_log_since() {
	ident_msgs_since "$1" slurmctld
}

# The plugin's lines from job prologs and epilogs (PLUGIN_LOG), from
# "spank_ebpf: " on. With SYSTEM_SLURMD_SYSLOG_DEBUG=LEVEL
# (SlurmdSyslogDebug=LEVEL) the spank prolog/epilog processes also log to
# syslog: only those copies are read. The admin command's lines
# (identifier spank-ebpf, admin_log_since) are never the plugin's: run as
# Prolog=/Epilog= it lives in slurmd's cgroup too.
_sys_plugin_lines() {
	if [ -n "${SYSTEM_SLURMD_SYSLOG_DEBUG:-}" ]; then
		_sys_ident_lines "$1" 'spank-prolog|spank-epilog'
	else
		_sys_ident_lines "$1" slurmd
	fi
}

# The admin command's lines (Prolog= program, linger-end timer, the
# reconcile service): it logs to syslog as spank-ebpf.
admin_log_since() {
	_sys_ident_lines "$1" spank-ebpf
}

# The unit's journal as JSON since CURSOR ($2: the unit, default the
# exporter's); "JOURNALCTL FAILED" when it cannot be read.
# No field match (see above): every entry, then the unit's.
_unit_json_since() {
	local j
	j=$(ct journalctl --no-pager -q -o json ${1:+--after-cursor="$1"} 2>/dev/null) ||
		{ echo "JOURNALCTL FAILED (exit $?)"; return 0; }
	printf '%s\n' "$j" | grep -F "\"UNIT\":\"${2:-$SYS_UNIT}\""
	return 0
}

# Start and stop jobs of the unit that systemd completed since CURSOR
# (UNIT, default the exporter's); "JOURNALCTL FAILED" rather than nothing
# when the journal cannot be read.
unit_jobs_since() {
	_unit_json_since "$@" |
		grep '"JOB_RESULT"\|^JOURNALCTL FAILED' | sed 's/^.*"JOB_TYPE":"\([a-z]*\)".*$/\1/' | tr '\n' ' ' | sed 's/ $//'
}

# unit_starts_since / unit_stops_since CURSOR [UNIT]: how many.
unit_starts_since() {
	_unit_jobs_count start "$@"
}

unit_stops_since() {
	_unit_jobs_count stop "$@"
}

_unit_jobs_count() {
	local type=$1 j
	shift
	j=$(_unit_json_since "$@")
	case $j in "JOURNALCTL FAILED"*) echo "$j"; return 1 ;; esac
	printf '%s\n' "$j" | grep '"JOB_RESULT"' | grep -c "\"JOB_TYPE\":\"$type\""
}
