/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A job's hold on the exporter: the plugin's core logic, plain C.
 *
 * acquire: add the job to the state, with the probe sets it asked for (or
 * unit= alone, without sets); each unit starts with its first holder.
 * release: remove the job; each unit it was the last holder of stops.
 * Both run entirely under the state lock, so a start and a stop never
 * cross. The state is committed before systemctl runs: it records what
 * should be, and the unit is brought in line with it.
 *
 * A job joining a busy set also makes sure the unit did not die under the
 * jobs holding it: one stat() of the unit's cgroup, which systemd removes
 * when a service stops; if it is gone, the unit is started again. */
#ifndef SPANK_EBPF_HOLD_H
#define SPANK_EBPF_HOLD_H

#include <stdbool.h>
#include <stdint.h>

#include "config.h"
#include "observe.h"
#include "statefile.h"
#include "transition.h"

enum hold_op { HOLD_ACQUIRE, HOLD_RELEASE };

/* The prolog's side: the job holds what it asked for. value: its --ebpf
 * option's value (NULL when it gave none); always: mode=always and the job
 * did not ask. Without probe sets it holds unit=; with them, the sets
 * value names (default= when plain), or always= (sets.h). Each target's
 * unit starts with its first holder. Returns 0 when the state was updated
 * (or needed no update), -1 when it could not be (logged). A failed
 * start/stop is not an error here: it is logged and reported through
 * *events (enum event, transition.h). events may be NULL. */
int hold_acquire(const struct config *cfg, uint32_t job, const char *value, bool always,
		 int *events);

/* The same, for a job whose user and SLUID Slurm gave (observe.h): with
 * probe sets, they label its series' join key and name its cgroup. */
int hold_acquire_as(const struct config *cfg, uint32_t job, const struct job_who *who,
		    const char *value, bool always, int *events);

/* The epilog's side: the job lets go of everything it holds; each unit
 * it was the last holder of lingers or stops. Returns as hold_acquire. */
int hold_release(const struct config *cfg, uint32_t job, int *events);

/* The same, as one call: acquire (a plain request) or release. */
int hold_update(const struct config *cfg, uint32_t job, enum hold_op op, int *events);

/* Lock-free: does the state name this job? A hint only. */
int hold_is_held(const struct config *cfg, uint32_t job);

#endif
