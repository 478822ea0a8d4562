/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The monotonic clock in microseconds: for timeouts and the durations in
 * log lines, never for wall-clock times (a clock step must not end a wait
 * early or make a duration negative). clock_gettime is a vDSO call: no
 * system call. */
#ifndef SPANK_EBPF_CLOCK_H
#define SPANK_EBPF_CLOCK_H

#include <time.h>

static inline long long clock_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

#endif
