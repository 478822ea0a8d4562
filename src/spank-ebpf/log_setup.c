/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Routes the core's log lines (see sink.c). */
#include "log.h"
#include "spank-ebpf.h"

void sink_stderr(int level, const char *msg);
void sink_open_syslog(void);

static void sink(enum log_level level, const char *msg)
{
	sink_stderr((int)level, msg);
}

void log_to_stderr(bool also_syslog)
{
	if (also_syslog)
		sink_open_syslog();
	log_set_sink(sink);
}
