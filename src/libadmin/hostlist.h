/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Slurm's host list expressions, as sacct's NodeList and squeue's %N
 * give them ("n[1-2,5],m3", "gpu[001-016]-ib", "r[1-2]n[1-3]"),
 * expanded as `scontrol show hostnames` does, into a sorted set of names
 * that is searched by bisection. Bounded: at most max names, each
 * shorter than HOSTLIST_NAME_MAX, counted before any is written. */
#ifndef SPANK_EBPF_HOSTLIST_H
#define SPANK_EBPF_HOSTLIST_H

#include <stddef.h>

#define HOSTLIST_NAME_MAX 128

struct hostlist {
	size_t n;
	char (*name)[HOSTLIST_NAME_MAX]; /* sorted, each once; malloc'd */
};

/* expr's names into *hl (freed with hostlist_free). 0, or -1 with why
 * (not Slurm's syntax, a name too long, more than max names). */
int hostlist_expand(const char *expr, size_t max, struct hostlist *hl, char *why, size_t whylen);

/* name's index in hl, or -1. */
long hostlist_find(const struct hostlist *hl, const char *name);

void hostlist_free(struct hostlist *hl);

#endif
