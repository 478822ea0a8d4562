/* SPDX-License-Identifier: GPL-2.0-or-later */
#include <stdlib.h>

#include "httpget.h"
#include "ownedget.h"
#include "unit.h"

char *owned_get_metrics(const struct config *cfg, const char *unit, const struct listen_addr *a,
			unsigned int timeout_ms, size_t cap, char *err, size_t errlen)
{
	char *body;

	/* Nothing listening: the connection's own error says so. */
	if (unit_holds_address(cfg, unit, a, err, errlen) == 0)
		return NULL;
	body = http_get_metrics(a, timeout_ms, cap, err, errlen);
	/* The answer came from whoever held the port while it was read:
	 * the unit's only if it still holds it. */
	if (body && unit_holds_address(cfg, unit, a, err, errlen) != 1) {
		free(body);
		return NULL;
	}
	return body;
}
