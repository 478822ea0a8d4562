# What every release's system suite runs (tests/system/<release>.sh): the
# libraries and scenarios, then sys_main. Sourced after tests/lib/tap.sh.
. "${srcdir:-.}/tests/lib/system.sh"
. "${srcdir:-.}/tests/system/scenarios.sh"
. "${srcdir:-.}/tests/system/pace.sh"
. "${srcdir:-.}/tests/system/real.sh"
. "${srcdir:-.}/tests/system/jobmetrics.sh"
. "${srcdir:-.}/tests/system/jmtop.sh"
. "${srcdir:-.}/tests/system/dbd.sh"
. "${srcdir:-.}/tests/system/upgrade.sh"
. "${srcdir:-.}/tests/system/reportsock.sh"

# system_suite RELEASE
system_suite() {
	case $1 in
	# Probe sets with the real exporter on the oldest and the newest
	# Slurm (--ebpf=SET is parsed by each release's option code), and
	# the job metrics' end to end (Prometheus, node_exporter) on one
	# release: what it checks is the probes' and the plugin's, the same
	# on every release, and it takes a minute or two; one user's share
	# of the probes' capacity (spank-io built for 4 jobs: half a
	# minute) and spank-ebpf top's ranking of three jobs there too. The upgrade from the
	# release before probe sets on the oldest Slurm (its packages built
	# for it too: two more minutes).
	# Slurm's accounting (slurmdbd on MariaDB) once, on the oldest
	# Slurm, turned off again after its scenario: the others run, as
	# before, on squeue alone.
	bookworm) SYS_MORE_SCENARIOS="real_sets job_metrics jm_user_share jm_top dbd jm_summary jm_sched upgrade" ;;
	*)
		# From 24.11 slurmd logs what a prolog/epilog writes to stderr
		# only at debug2; with the journal as its only log, the plugin's
		# lines (errors included) show up only with SlurmdSyslogDebug
		# (docs/OPERATING.md, "Logging").
		export SYSTEM_SLURMD_SYSLOG_DEBUG=${SYSTEM_SLURMD_SYSLOG_DEBUG-info}
		[ "$1" != sid ] || SYS_MORE_SCENARIOS=real_sets
		;;
	esac
	# The report socket under a hostile user, on the oldest systemd and
	# a newer one (252, 257): its limits are systemd's and the service's.
	case $1 in
	bookworm | trixie) SYS_MORE_SCENARIOS="${SYS_MORE_SCENARIOS:-} reportsock" ;;
	esac
	# The job summary in Slurm's accounting on a Slurm whose sacctmgr
	# keeps the field's case (bookworm's 22.05 lowercases it): there
	# jobstats' token beside it reads as jobstats reads it.
	[ "$1" != trixie ] || SYS_MORE_SCENARIOS="${SYS_MORE_SCENARIOS:-} jm_summary"
	sys_main "$1"
}
