/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Logging for the plugin core. */
#include <stdarg.h>
#include <stdio.h>

#include "log.h"

static void stderr_sink(enum log_level level, const char *msg)
{
	static const char *const names[] = { "error", "info", "verbose", "debug" };

	fprintf(stderr, "%s: %s\n", names[level], msg);
}

static log_sink_fn current_sink = stderr_sink;
static char context[64];

void log_set_sink(log_sink_fn sink)
{
	current_sink = sink ? sink : stderr_sink;
}

void log_set_context(const char *fmt, ...)
{
	va_list ap;

	context[0] = '\0';
	if (!fmt)
		return;
	va_start(ap, fmt);
	vsnprintf(context, sizeof(context), fmt, ap);
	va_end(ap);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	char buf[1024];
	int n;
	va_list ap;

	n = snprintf(buf, sizeof(buf), "spank_ebpf: %s%s", context, context[0] ? ": " : "");
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - (size_t)n, fmt, ap);
	va_end(ap);
	current_sink(level, buf);
}
