/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The jobs holding the exporter, each with the probe sets it holds, and
 * the state file's text. Two forms, both read:
 *
 *   1 (no probe sets, and every job holds only the unit= unit):
 *       <count>\n<jobid>\n<jobid>\n...
 *     The first line is the count so that `cat` shows it; the IDs
 *     (ascending) are the truth. Written whenever it says all there is,
 *     so a site without sets keeps the file it always had (and an older
 *     release can still read it).
 *   2 (probe sets):
 *       spank_ebpf state 2\n<jobid> <set>[,<set>...]\n...
 *     IDs ascending; "-" is the unit= unit (a job of form 1).
 * A job's sets are bits of a mask, bit i naming names[i]; the table grows
 * as names are met (a set no longer declared is still released). */
#ifndef SPANK_EBPF_JOBSET_H
#define SPANK_EBPF_JOBSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JOBSET_MAX_IDS 65536          /* far above any node's job count */
#define JOBSET_MAX_BYTES (4u << 20)   /* JOBSET_MAX_IDS jobs with a few sets each */
#define JOBSET_SETS_MAX 32            /* names in one state: declared, and gone ones */
#define JOBSET_NAME_MAX 32
#define JOBSET_LEGACY "-"             /* the unit= unit, without probe sets */
#define JOBSET_V2_LINE "spank_ebpf state 2"
#define JOBSET_FORM_PREFIX "spank_ebpf state " /* then the form's number */

struct jobset {
	uint32_t *ids;    /* ascending, no duplicates */
	uint32_t *masks;  /* the sets each job holds: never 0 */
	size_t n;
	size_t cap;
	int nnames;
	char names[JOBSET_SETS_MAX][JOBSET_NAME_MAX + 1];
};

void jobset_init(struct jobset *set);
void jobset_free(struct jobset *set);

bool jobset_contains(const struct jobset *set, uint32_t id);
/* Without probe sets: the job holds the unit= unit, or no longer holds
 * anything. Return 1 if changed, 0 if not (already present / absent), -1
 * on ENOMEM or when the set is full. */
int jobset_add(struct jobset *set, uint32_t id);
int jobset_remove(struct jobset *set, uint32_t id);

/* The bit of the set called name (len bytes), registered if new; -1 when
 * the table is full or the name is not a set's (a-z, 0-9, "_-", or "-"). */
int jobset_bit(struct jobset *set, const char *name, size_t len);
/* The job holds the sets of mask too / no longer holds those of mask (a
 * job holding none is removed). Return as jobset_add. */
int jobset_hold(struct jobset *set, uint32_t id, uint32_t mask);
int jobset_release(struct jobset *set, uint32_t id, uint32_t mask);
/* The sets a job holds (0: not held); the number of jobs holding a set. */
uint32_t jobset_mask(const struct jobset *set, uint32_t id);
size_t jobset_holders(const struct jobset *set, int bit);
/* "io,sched": the names the mask holds ("" for none). */
void jobset_names_text(const struct jobset *set, uint32_t mask, char *buf, size_t len);

/* A job ID as Slurm hands it out: 1 .. 0xfffffffd (NO_VAL and INFINITE
 * are not job IDs). */
bool jobset_valid_id(uint64_t id);

/* Parses the text form (either). Returns 0 when the text is exactly well
 * formed. Returns 1 when it is not: *set then holds every valid, distinct
 * job (ID and sets) found on lines 2.. (the salvage), and why[] says what
 * was wrong. Returns 2 when line 1 names a form newer than 2 ("spank_ebpf
 * state 3"): a newer release wrote it, nothing of it is read (*set is
 * empty), why[] says so. Returns -1 only on ENOMEM. */
int jobset_parse(struct jobset *set, const char *buf, size_t len,
		 char *why, size_t whylen);

/* Writes the text form into buf (form 1 when it says all there is).
 * Returns its length, or 0 if cap is too small (the caller sizes buf with
 * jobset_text_size()). */
size_t jobset_format(const struct jobset *set, char *buf, size_t cap);
size_t jobset_text_size(const struct jobset *set);

#endif
