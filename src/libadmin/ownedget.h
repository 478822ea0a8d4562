/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A set's /metrics read only while its own unit holds the set's address:
 * checked before the GET and again after the answer, since any local
 * user may serve a port the unit has let go (once it stopped), and that
 * server's numbers would be shown as the job's. */
#ifndef SPANK_EBPF_OWNEDGET_H
#define SPANK_EBPF_OWNEDGET_H

#include <stddef.h>

#include "config.h"
#include "listenaddr.h"

/* The body (malloc'd, at most cap bytes) of a's /metrics when unit's
 * processes hold a before and after the answer; NULL with err saying
 * why otherwise (nothing listens, someone else holds it, the GET's own
 * error). */
char *owned_get_metrics(const struct config *cfg, const char *unit, const struct listen_addr *a,
			unsigned int timeout_ms, size_t cap, char *err, size_t errlen);

#endif
