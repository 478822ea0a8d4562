# What every release's system suite runs (tests/system/<release>.sh): the
# libraries and scenarios, then sys_main. Sourced after tests/lib/tap.sh.
. "${srcdir:-.}/tests/lib/system.sh"
. "${srcdir:-.}/tests/system/scenarios.sh"
. "${srcdir:-.}/tests/system/pace.sh"
. "${srcdir:-.}/tests/system/real.sh"

# system_suite RELEASE
system_suite() {
	case $1 in
	bookworm) ;;
	*)
		# From 24.11 slurmd logs what a prolog/epilog writes to stderr
		# only at debug2; with the journal as its only log, the plugin's
		# lines (errors included) show up only with SlurmdSyslogDebug
		# (docs/OPERATING.md, "Logging").
		export SYSTEM_SLURMD_SYSLOG_DEBUG=${SYSTEM_SLURMD_SYSLOG_DEBUG-info}
		;;
	esac
	sys_main "$1"
}
