/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The monotonic clock in microseconds: for timeouts and the durations in
 * log lines, never for wall-clock times (a clock step must not end a wait
 * early or make a duration negative). clock_gettime is a vDSO call: no
 * system call. */
#ifndef SPANK_EBPF_CLOCK_H
#define SPANK_EBPF_CLOCK_H

#include <errno.h>
#include <poll.h>
#include <time.h>

static inline long long clock_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Waits until fd is ready for events or the deadline (clock_us) passes:
 * poll()'s answer, 0 (errno ETIMEDOUT) at the deadline. */
static inline int clock_wait_fd(int fd, short events, long long deadline_us)
{
	struct pollfd p = { .fd = fd, .events = events };
	long long left = deadline_us - clock_us();
	int rc;

	if (left <= 0) {
		errno = ETIMEDOUT;
		return 0;
	}
	do
		rc = poll(&p, 1, (int)((left + 999) / 1000));
	while (rc < 0 && errno == EINTR);
	if (rc == 0)
		errno = ETIMEDOUT;
	return rc;
}

#endif
