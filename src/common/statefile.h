/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The node-local state file: opened without following symlinks, checked
 * for ownership and mode, locked with a bounded wait, replaced atomically
 * (write a temporary file, rename it over the old one) so a process killed
 * at any instant leaves the old or the new state, never a torn one. It is
 * meant for tmpfs (/run): a reboot must forget the jobs it names.
 *
 * Every file is root's alone (0600): they list the jobs that asked for
 * probes, as private as Slurm's job list. An older release's 0644 file is
 * made 0600 when a locked writer first reads it.
 *
 * Files, all in the state file's directory:
 *   <state>          the job set (see jobset.h)
 *   <state>.lock     flock()ed while updating; never removed, and released
 *                    by the kernel when its holder dies
 *   <state>.tmp      the next state, before its rename
 *   <state>.corrupt  a copy of the last damaged state file, for inspection
 *   <state>.stats    counters of transitions (see stats.h), and its .tmp */
#ifndef SPANK_EBPF_STATEFILE_H
#define SPANK_EBPF_STATEFILE_H

#include <stdint.h>

#include "config.h"
#include "jobset.h"

struct statefile {
	const char *path;
	int dirfd;
	int lockfd;
	char base[CONFIG_PATH_MAX];
	char lockname[CONFIG_PATH_MAX + 16];
	char tmpname[CONFIG_PATH_MAX + 16];
	char corruptname[CONFIG_PATH_MAX + 16];
	long long locked_at_us; /* when the lock was taken, else 0 */
};

/* What the state lock cost this process since the last
 * statefile_lock_times_reset(): the time spent waiting for it and the
 * time it was held (start=wait starts the unit under it), summed over
 * the times it was taken. The hooks log them: a slow prolog shows
 * whether it queued behind other jobs or held the lock itself. */
struct lock_times {
	long long wait_us;
	long long held_us;
};
void statefile_lock_times(struct lock_times *out);
void statefile_lock_times_reset(void);

/* Opens and checks the directory, without the lock: for readers (status,
 * metrics), whom atomic renames keep safe. Returns 0, or -1 (logged). */
int statefile_open(struct statefile *sf, const char *path);

/* Opens and checks the directory, then the lock file, and takes the lock,
 * waiting at most timeout_ms. Returns 0, or -1 after logging why. */
int statefile_open_locked(struct statefile *sf, const char *path,
			  unsigned int timeout_ms);

/* Reads the job set. A missing file is an empty set. A damaged file is
 * logged, copied to <state>.corrupt (when locked), and whatever valid job
 * IDs it holds are returned. Returns 0, 1 when the file was damaged (the
 * caller should store the salvaged set), or -1 (logged) when the file is
 * unsafe to use (symlink, hard link, not a regular file, wrong owner or
 * mode), cannot be read, or is of a newer form than this release reads
 * (a downgrade under running jobs: refused, left as it is). */
int statefile_load(struct statefile *sf, struct jobset *set);

/* Atomically replaces the state. Returns 0, or -1 (logged) with the
 * previous state left intact. */
int statefile_store(struct statefile *sf, const struct jobset *set);

/* The small files beside the state, named <state><suffix> (".stats"):
 * read (same safety checks; at most cap - 1 bytes, NUL-terminated;
 * returns 0, 1 when missing, -1 logged) and replaced atomically (lock
 * held; what names it in messages; returns 0 or -1 logged). has_aux: does it exist (".corrupt")? */
int statefile_read_aux(struct statefile *sf, const char *suffix, char *buf,
		       size_t cap, size_t *len);
int statefile_write_aux(struct statefile *sf, const char *suffix, const char *what,
			const char *buf, size_t len);
int statefile_has_aux(struct statefile *sf, const char *suffix);
/* Removes it (lock held): 1 when it was there, 0 when not (or logged). */
int statefile_remove_aux(struct statefile *sf, const char *suffix);

/* Is the state's directory on tmpfs (as it must be, so that a reboot
 * forgets the jobs)? 1 yes, 0 no, -1 cannot tell. */
int statefile_on_tmpfs(const char *path);

/* Releases the lock and closes everything. Safe on a failed open. */
void statefile_close(struct statefile *sf);

/* Lock-free check whether job is in the state at path: 1 yes, 0 no (or no
 * usable state). Only ever a hint for taking the locked path. */
int statefile_peek(const char *path, uint32_t job);

#endif
