/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The linger window (linger=SECONDS): after the last job leaves, the
 * exporter keeps running that long, so that a job arriving soon after
 * finds it running (no stop, no start, no probes reloaded) and Prometheus
 * scrapes the last job's final interval.
 *
 * The window is a file beside the state, <state>.linger, read and written
 * only under the state lock, replaced atomically:
 *
 *     end <E>               the window's end, 0 when no window is open
 *     timer <NAME> <DUE>    the one pending timer, when it fires
 *
 * (CLOCK_BOOTTIME seconds: tmpfs and the clock both start again at boot.
 * A file of an earlier release, "end <E>" alone, reads as a window whose
 * timer is not known.) The window's end comes from a transient systemd
 * timer (systemd-run, beside systemctl) that runs `spank-ebpf linger-end`
 * with the plugin's settings. There is at most one pending timer: a
 * window that opens while one is pending (a stream of short jobs) only
 * moves the end, and the timer's run arms the next one for what is left.
 * Its record is the plugin's own; reconcile, the backstop, asks systemd
 * whether the recorded timer is still there and arms a new one if not. */
#ifndef SPANK_EBPF_LINGER_H
#define SPANK_EBPF_LINGER_H

#include <stddef.h>

#include "config.h"
#include "sets.h"
#include "statefile.h"
#include "transition.h"

/* Each function acts on one target's window (transition.h): unit= or a
 * probe set, each with its own file and linger. */

/* Under the lock, when the last job left: records the window's end and
 * arms a timer unless one is pending. Returns 0, or -1 (logged) when no
 * timer could be armed: the caller then stops the unit at once. */
int linger_open(struct statefile *sf, const struct config *cfg, const struct target *t);

/* Under the lock: ends the window (a job joined). Returns 1 when there
 * was one, 0 when not. The pending timer stays recorded: it is still
 * there, and finds nothing to do when it fires. */
int linger_close(struct statefile *sf, const struct target *t);

/* Removes the window and its record (the unit is being stopped). */
void linger_forget(struct statefile *sf, const struct target *t);

/* Seconds left in the window (0 once expired), or -1 when there is none
 * (or its file is unreadable: logged). A window ending more than the
 * target's linger from now (a damaged or forged file) is capped there. */
long linger_left(struct statefile *sf, const struct target *t);

/* The recorded timer's unit name into name (empty when none) and when it
 * is due, in seconds from now (negative: past). Returns 0, or -1 when
 * none is recorded. */
int linger_timer(struct statefile *sf, const struct target *t, char *name, size_t len,
		 long *due_in);

/* Under the lock: arms a timer for the open window when none is pending
 * (reconcile, when systemd says the recorded one is gone). Returns 0 or
 * -1 (logged). */
int linger_rearm(struct statefile *sf, const struct config *cfg, const struct target *t);

/* The timer's end of the window, under the lock: stops the unit if no job
 * holds it and the window is over; arms the next timer if the window was
 * moved on meanwhile. Returns 0, or -1 when the state cannot be used. */
int linger_end(const struct config *cfg, const struct sets *sets, const struct target *t);

#endif
