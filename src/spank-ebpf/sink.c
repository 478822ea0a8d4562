/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Where the core's log lines go when the admin command runs. Kept apart:
 * <syslog.h> and the core's log.h both name their levels LOG_INFO. */
#include <stdbool.h>
#include <stdio.h>
#include <syslog.h>

void sink_stderr(int level, const char *msg);
void sink_open_syslog(void);

static bool use_syslog;

void sink_open_syslog(void)
{
	openlog("spank-ebpf", LOG_PID, LOG_DAEMON);
	use_syslog = true;
}

/* level: 0 error, 1 info, 2 verbose, 3 debug (log.h's order). */
void sink_stderr(int level, const char *msg)
{
	static const char *const names[] = { "error", "info", "verbose", "debug" };

	if (level >= 2)
		return; /* debug output is the plugin's, for slurmd's log */
	fprintf(stderr, "%s: %s\n", names[level], msg);
	if (use_syslog)
		syslog(level == 0 ? LOG_ERR : LOG_INFO, "%s", msg);
}
