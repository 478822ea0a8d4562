/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The linger window (linger=SECONDS): after the last job leaves, the
 * exporter keeps running that long, so that a job arriving soon after
 * finds it running (no stop, no start, no probes reloaded) and Prometheus
 * scrapes the last job's final interval. The window is a file beside the
 * state, <state>.linger, holding its end (CLOCK_BOOTTIME seconds: tmpfs
 * and the clock both start again at boot), read and written only under
 * the state lock, like every other transition. Its end comes from a
 * transient systemd timer (systemd-run, beside systemctl) that runs
 * `spank-ebpf linger-end ARGS` with the plugin's own arguments; the
 * reconcile timer is the backstop when that one is lost. */
#ifndef SPANK_EBPF_LINGER_H
#define SPANK_EBPF_LINGER_H

#include <stdint.h>

#include "config.h"
#include "statefile.h"

/* Under the lock, when the last job left: records the window's end and
 * arms the timer (job names it). Returns 0, or -1 (logged) when the
 * timer could not be armed: the caller then stops the unit at once. */
int linger_open(struct statefile *sf, const struct config *cfg, uint32_t job);

/* Under the lock: ends the window (a job joined, or it expired). Returns
 * 1 when there was one, 0 when not. */
int linger_close(struct statefile *sf);

/* Seconds left in the window (0 once expired), or -1 when there is none
 * (or its file is unreadable: logged). */
long linger_left(struct statefile *sf);

/* The timer's end of the window, under the lock: stops the unit if no job
 * came and the window (not a later one) is over. Returns 0, or -1 when
 * the state cannot be used. */
int linger_end(const struct config *cfg);

#endif
