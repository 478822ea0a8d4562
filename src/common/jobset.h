/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The set of job IDs holding the exporter, and its text form:
 *
 *     <count>\n<jobid>\n<jobid>\n...
 *
 * The first line is the count so that `cat` shows it, as the design
 * promised; the IDs (ascending) are the truth. */
#ifndef SPANK_EBPF_JOBSET_H
#define SPANK_EBPF_JOBSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JOBSET_MAX_IDS 65536          /* far above any node's job count */
#define JOBSET_MAX_BYTES (1u << 20)   /* the text of JOBSET_MAX_IDS fits */

struct jobset {
	uint32_t *ids;  /* ascending, no duplicates */
	size_t n;
	size_t cap;
};

void jobset_init(struct jobset *set);
void jobset_free(struct jobset *set);

bool jobset_contains(const struct jobset *set, uint32_t id);
/* Return 1 if changed, 0 if not (already present / absent), -1 on ENOMEM
 * or when the set is full. */
int jobset_add(struct jobset *set, uint32_t id);
int jobset_remove(struct jobset *set, uint32_t id);

/* A job ID as Slurm hands it out: 1 .. 0xfffffffd (NO_VAL and INFINITE
 * are not job IDs). */
bool jobset_valid_id(uint64_t id);

/* Parses the text form. Returns 0 when the text is exactly well formed.
 * Returns 1 when it is not: *set then holds every valid, distinct job ID
 * found on lines 2.. (the salvage), and why[] says what was wrong.
 * Returns -1 only on ENOMEM. */
int jobset_parse(struct jobset *set, const char *buf, size_t len,
		 char *why, size_t whylen);

/* Writes the text form into buf. Returns its length, or 0 if cap is too
 * small (the caller sizes buf with jobset_text_size()). */
size_t jobset_format(const struct jobset *set, char *buf, size_t cap);
size_t jobset_text_size(const struct jobset *set);

#endif
