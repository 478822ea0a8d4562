/* SPDX-License-Identifier: GPL-2.0-or-later */
/* BPF maps of another process (the exporter of a probe set), by the
 * bpf(2) system call alone: no libbpf in the plugin. A map is found by
 * its owner (the descriptors /proc/PID/fd lists as anon_inode:bpf-map,
 * their map_id in /proc/PID/fdinfo) and its name: BPF objects are
 * kernel-global, and another container's exporter has maps of the same
 * names. Needs CAP_SYS_ADMIN (map by ID) and CAP_SYS_PTRACE-level access
 * to /proc/PID/fdinfo: the plugin's hooks run as root. */
#ifndef SPANK_EBPF_BPFMAP_H
#define SPANK_EBPF_BPFMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BPFMAP_NAME_MAX 16   /* the kernel's BPF_OBJ_NAME_LEN */

struct bpfmap {
	int fd;
	uint32_t id, key_size, value_size, max_entries;
	char name[BPFMAP_NAME_MAX];
};

/* The maps pid holds whose name starts with prefix, into maps (at most
 * max; each opened: close with bpfmap_close). Returns how many, -1 when
 * pid's descriptors cannot be read. */
int bpfmap_of_process(pid_t pid, const char *prefix, struct bpfmap *maps, int max);

/* The map with this ID, when it still exists and is still called name. */
int bpfmap_by_id(uint32_t id, const char *name, struct bpfmap *m);

void bpfmap_close(struct bpfmap *m);

/* bpf(2) on one element: 0, or -1 with errno. */
int bpfmap_update(const struct bpfmap *m, const void *key, const void *value);
int bpfmap_delete(const struct bpfmap *m, const void *key);
int bpfmap_lookup(const struct bpfmap *m, const void *key, void *value);

/* Deletes every element whose key begins with the len bytes of prefix
 * (a job's series: their key starts with the job ID). Returns how many,
 * or -1 with errno. */
int bpfmap_delete_prefixed(const struct bpfmap *m, const void *prefix, size_t len);

#endif
