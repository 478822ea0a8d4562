/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A job's hold on the exporter: the plugin's core logic, plain C.
 *
 * acquire: add the job to the state; if the set was empty, start the unit.
 * release: remove the job; if the set became empty, stop the unit.
 * Both run entirely under the state lock, so a start and a stop never
 * cross. The state is committed before systemctl runs: it records what
 * should be, and the unit is brought in line with it.
 *
 * A job joining a busy set also makes sure the unit did not die under the
 * jobs holding it: one stat() of the unit's cgroup, which systemd removes
 * when a service stops; if it is gone, the unit is started again. */
#ifndef SPANK_EBPF_HOLD_H
#define SPANK_EBPF_HOLD_H

#include <stdint.h>

#include "config.h"
#include "statefile.h"
#include "transition.h"

enum hold_op { HOLD_ACQUIRE, HOLD_RELEASE };

/* Returns 0 when the state was updated (or needed no update), -1 when it
 * could not be (logged). A failed start/stop is not an error here: it is
 * logged and reported through *events (enum event, transition.h). events
 * may be NULL. */
int hold_update(const struct config *cfg, uint32_t job, enum hold_op op,
		int *events);

/* Lock-free: does the state name this job? A hint only. */
int hold_is_held(const struct config *cfg, uint32_t job);

#endif
