/* SPDX-License-Identifier: GPL-2.0-or-later */
/* BPF maps of another process. See bpfmap.h. */
#include <dirent.h>
#include <limits.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bpfmap.h"

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(SYS_bpf, cmd, attr, sizeof(*attr));
}

/* The map behind fd: its ID, sizes and name. */
static int map_info(int fd, struct bpfmap *m)
{
	struct bpf_map_info info;
	union bpf_attr attr;

	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = (uint32_t)fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (uint64_t)(uintptr_t)&info;
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) < 0)
		return -1;
	m->fd = fd;
	m->id = info.id;
	m->key_size = info.key_size;
	m->value_size = info.value_size;
	m->max_entries = info.max_entries;
	snprintf(m->name, sizeof(m->name), "%.*s", BPF_OBJ_NAME_LEN, info.name);
	return 0;
}

static int open_by_id(uint32_t id)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_id = id;
	return (int)sys_bpf(BPF_MAP_GET_FD_BY_ID, &attr);
}

int bpfmap_by_id(uint32_t id, const char *name, struct bpfmap *m)
{
	int fd = open_by_id(id);

	if (fd < 0)
		return -1;
	if (map_info(fd, m) < 0 || strcmp(m->name, name)) {
		close(fd);
		errno = ENOENT;
		return -1;
	}
	return 0;
}

/* The map_id line of /proc/PID/fdinfo/FD, or 0. */
static uint32_t fd_map_id(pid_t pid, const char *fd)
{
	char path[PATH_MAX], buf[512], *p;
	ssize_t n;
	int f;

	snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", (int)pid, fd);
	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return 0;
	n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strstr(buf, "map_id:");
	return p ? (uint32_t)strtoul(p + 7, NULL, 10) : 0;
}

int bpfmap_of_process(pid_t pid, const char *prefix, struct bpfmap *maps, int max)
{
	char dir[64], link[PATH_MAX], target[64];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((e = readdir(d)) && n < max) {
		ssize_t len;
		uint32_t id;
		int fd;

		if (e->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "%s/%s", dir, e->d_name);
		len = readlink(link, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (strcmp(target, "anon_inode:bpf-map"))
			continue;
		id = fd_map_id(pid, e->d_name);
		fd = id ? open_by_id(id) : -1;
		if (fd < 0)
			continue;
		if (map_info(fd, &maps[n]) < 0 || strncmp(maps[n].name, prefix, strlen(prefix))) {
			close(fd);
			continue;
		}
		n++;
	}
	closedir(d);
	return n;
}

void bpfmap_close(struct bpfmap *m)
{
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
}

static int elem(int cmd, const struct bpfmap *m, const void *key, const void *value)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = (uint32_t)m->fd;
	attr.key = (uint64_t)(uintptr_t)key;
	attr.value = (uint64_t)(uintptr_t)value;
	attr.flags = cmd == BPF_MAP_UPDATE_ELEM ? BPF_ANY : 0;
	return sys_bpf(cmd, &attr) < 0 ? -1 : 0;
}

int bpfmap_update(const struct bpfmap *m, const void *key, const void *value)
{
	return elem(BPF_MAP_UPDATE_ELEM, m, key, value);
}

int bpfmap_delete(const struct bpfmap *m, const void *key)
{
	return elem(BPF_MAP_DELETE_ELEM, m, key, NULL);
}

int bpfmap_lookup(const struct bpfmap *m, const void *key, void *value)
{
	return elem(BPF_MAP_LOOKUP_ELEM, m, key, value);
}

int bpfmap_delete_prefixed(const struct bpfmap *m, const void *prefix, size_t len)
{
	unsigned char *key, *next, *found = NULL;
	size_t nfound = 0, cap = 0, i;
	union bpf_attr attr;
	int n = 0, first = 1;

	if (len > m->key_size) {
		errno = EINVAL;
		return -1;
	}
	key = calloc(2, m->key_size);
	if (!key)
		return -1;
	next = key + m->key_size;
	/* First the keys, then the deletions: deleting while walking would
	 * restart the walk at every hit. */
	for (;;) {
		memset(&attr, 0, sizeof(attr));
		attr.map_fd = (uint32_t)m->fd;
		attr.key = first ? 0 : (uint64_t)(uintptr_t)key;
		attr.next_key = (uint64_t)(uintptr_t)next;
		if (sys_bpf(BPF_MAP_GET_NEXT_KEY, &attr) < 0)
			break; /* ENOENT: the end */
		first = 0;
		memcpy(key, next, m->key_size);
		if (memcmp(key, prefix, len))
			continue;
		if (nfound == cap) {
			unsigned char *more = realloc(found, (cap ? cap * 2 : 64) * m->key_size);

			if (!more)
				break;
			found = more;
			cap = cap ? cap * 2 : 64;
		}
		memcpy(found + nfound++ * m->key_size, key, m->key_size);
	}
	for (i = 0; i < nfound; i++)
		if (bpfmap_delete(m, found + i * m->key_size) == 0)
			n++;
	free(found);
	free(key);
	return n;
}
