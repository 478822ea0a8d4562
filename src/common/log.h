/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Logging for the plugin core: one sink, replaced by the SPANK edge with
 * Slurm's logger and by tests with a capture buffer. Every line reads
 * "spank_ebpf: CONTEXT: message", the context saying where it comes from
 * ("prolog job 42", "epilog job 42", "linger-end", "reconcile"), so that
 * a line read alone in slurmd's log or the journal is understood. */
#ifndef SPANK_EBPF_LOG_H
#define SPANK_EBPF_LOG_H

enum log_level { LOG_ERROR, LOG_INFO, LOG_VERBOSE, LOG_DEBUG };

typedef void (*log_sink_fn)(enum log_level level, const char *msg);

/* NULL restores the default sink (stderr). */
void log_set_sink(log_sink_fn sink);

/* The context of the lines that follow (NULL or "": none). */
void log_set_context(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Formats "spank_ebpf: <context>: <message>" and hands it to the sink. */
void log_msg(enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
