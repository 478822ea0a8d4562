#!/bin/bash
# linger=SECONDS on a real Slurm: the last job's epilog keeps the exporter
# and arms a timer (the systemd-run double records it; the test runs what
# the timer would run, when it would); a job inside the window neither
# stops nor starts it; an earlier window's timer does not end a later
# window; slurmd restarted inside a window changes nothing; the window's
# end stops the unit once.
. "${srcdir:-.}/tests/lib/tap.sh"
. "${srcdir:-.}/tests/e2e/lib.sh"
need_admin_cmd
e2e_start linger=3
RUNLOG=$DBL/systemd-run.log

# The timer's command, as systemd-run was asked to run it, with the built
# spank-ebpf in place of the installed one.
timer_cmd() { # timer_cmd N: the Nth armed timer (1 = first)
	sed -n "${1}p" "$RUNLOG" | sed 's/^.* -- [^ ]*spank-ebpf /X /' | cut -d' ' -f2-
}
fire() { # fire N: run the Nth timer's command
	# shellcheck disable=SC2046
	"$CMD" $(timer_cmd "$1") 2>>"$E2E_DIR/log/linger.log"
}

reset_calls
m=$(log_mark)
a=$(submit -J s20-a --ebpf "$PAYLOAD" s20-a s20-a)
wait_started s20-a
release s20-a
wait_job_done "$a"
like "the last job leaves: the exporter is kept" "$(plugin_log_since "$m")" 'spank_ebpf: epilog job [0-9]+: keeping ebpf_exporter for 3 s$'
is "... no stop, unit active, window recorded" "$(calls); $(unit_active); $(test -e "$STATE.linger" && echo window)" \
	"start $UNIT count=1 locked=yes; yes; window"
like "... a timer armed for 3 s running spank-ebpf linger-end with the plugin's settings, every key" "$(cat "$RUNLOG")" \
	"^--quiet --collect --unit=spank-ebpf-linger-ebpf_exporter-[0-9]+-[0-9]+ --on-active=3 --timer-property=AccuracySec=1s -- .*/spank-ebpf linger-end mode=opt-in unit=$UNIT state=$STATE systemctl=$SYSTEMCTL timeout=10 lock_timeout=60 start=wait linger=3$"

m=$(log_mark)
b=$(submit -J s20-b --ebpf "$PAYLOAD" s20-b s20-b)
wait_started s20-b
like "a job inside the window: kept running" "$(plugin_log_since "$m")" \
	"spank_ebpf: prolog job $b: joined within the linger window: $UNIT keeps running"
is "... its payload saw the exporter and no second start" "$(snap s20-b.start.active); $(calls_of "$E2E_DIR/snap/s20-b.start.calls")" \
	"yes; start $UNIT count=1 locked=yes"
fire 1
is "the first window's timer fires while b runs: nothing stopped" "$(ncalls stop) $(unit_active)" "0 yes"
release s20-b
wait_job_done "$b"
is "b leaves: a second window" "$(wc -l <"$RUNLOG") $(ncalls stop)" "2 0"

restart_slurmd
is "slurmd restarted inside the window: window and unit untouched" \
	"$(test -e "$STATE.linger" && echo window) $(unit_active) $(ncalls stop)" "window yes 0"
sleep 3
fire 2
is "the window's end: one stop" "$(calls)" "start $UNIT count=1 locked=yes
stop $UNIT count=0 locked=yes"
like "... said by linger-end" "$(cat "$E2E_DIR/log/linger.log")" "spank_ebpf: linger-end: stopping ebpf_exporter after 3 s without jobs"
is "state empty, window gone, unit inactive" "$(state); $(test -e "$STATE.linger" && echo window); $(unit_active)" "0; ; no"
cluster_finish
