/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Probe sets. See sets.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sets.h"

#ifndef EXPORTER_PATH
#define EXPORTER_PATH "/usr/local/bin/ebpf_exporter"
#endif
#ifndef TEXTFILE_PATH
#define TEXTFILE_PATH "/var/lib/prometheus/node-exporter"
#endif
#ifndef EXPORTER_CONFIG_DIR
#define EXPORTER_CONFIG_DIR "/usr/lib/slurm-spank-ebpf/ebpf_exporter"
#endif
#define TEXTFILE_GROUP "prometheus" /* Debian's prometheus-node-exporter runs as it */
#define DEFAULT_TEMPLATE "spank-ebpf-exporter@.service"

static const char set_name_chars[] = "abcdefghijklmnopqrstuvwxyz0123456789_-";
static const char group_first_chars[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_";
static const char group_chars[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
static const char config_name_chars[] =
	"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";

/* The parse in progress: where messages point, and what is resolved at
 * the end (default= and always= may name sets declared below them). */
struct parser {
	const char *file;
	int line;
	char *err;
	size_t errlen;
	char default_list[512], always_list[512];
	int default_line, always_line;
	int set_line[SETS_MAX], port_line[SETS_MAX];
	unsigned int seen_global, seen_set; /* bits: keys given in this scope */
};

static int refuse(struct parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int refuse(struct parser *p, const char *fmt, ...)
{
	char why[400];
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (p->line)
		snprintf(p->err, p->errlen, "%.200s:%d: %s", p->file, p->line, why);
	else
		snprintf(p->err, p->errlen, "%.200s: %s", p->file, why);
	/* It quotes the file, and goes to logs and terminals: printable only. */
	for (i = 0; p->err[i]; i++)
		if ((unsigned char)p->err[i] < 0x20 || (unsigned char)p->err[i] >= 0x7f)
			p->err[i] = '?';
	return -1;
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

bool sets_valid_name(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len > SET_NAME_MAX || s[0] < 'a' || s[0] > 'z')
		return false;
	for (i = 1; i < len; i++)
		if (!s[i] || !strchr(set_name_chars, s[i]))
			return false;
	return true;
}

/* Absolute, normalised, printable, without "$" or "%" (systemd would
 * expand them in a unit's command line). */
static int check_path(struct parser *p, const char *key, const char *v)
{
	size_t len = strlen(v);

	if (len >= SETS_PATH_MAX)
		return refuse(p, "%s is longer than %d bytes", key, SETS_PATH_MAX - 1);
	if (v[0] != '/' || strstr(v, "//") || strstr(v, "/./") || strstr(v, "/../") ||
	    (len > 1 && v[len - 1] == '/') || (len >= 2 && !strcmp(v + len - 2, "/.")) ||
	    (len >= 3 && !strcmp(v + len - 3, "/..")))
		return refuse(p, "%s must be an absolute, normalised path: \"%.80s\"", key, v);
	if (strpbrk(v, " $%\\") || !printable(v))
		return refuse(p, "%s may hold only printable ASCII, without spaces, \"$\", \"%%\" or \"\\\": \"%.80s\"",
			      key, v);
	return 0;
}

/* "name,name": each a config file's name (config_dir/<name>.yaml). */
static int check_configs(struct parser *p, struct probe_set *ps, const char *v)
{
	const char *c = v;
	int n = 0;

	if (!*v)
		return refuse(p, "set %s: configs is empty", ps->name);
	for (;;) {
		size_t len = strcspn(c, ",");

		if (len == 0 || len > SET_CONFIG_NAME_MAX || c[0] == '.' ||
		    strspn(c, config_name_chars) < len)
			return refuse(p, "set %s: \"%.*s\" is not a config name (letters, digits, \"_.-\", not starting with \".\", at most %d)",
				      ps->name, (int)(len > 64 ? 64 : len), c, SET_CONFIG_NAME_MAX);
		if (++n > SET_CONFIGS_MAX)
			return refuse(p, "set %s: more than %d configs", ps->name, SET_CONFIGS_MAX);
		if (!c[len])
			break;
		c += len + 1;
	}
	snprintf(ps->configs, sizeof(ps->configs), "%s", v);
	return 0;
}

/* ADDRESS:PORT, by the one parser every reader of it uses (listenaddr.h). */
static int check_listen(struct parser *p, struct probe_set *ps, const char *v)
{
	char why[200];

	if (listenaddr_parse(v, &ps->addr, why, sizeof(why)) < 0)
		return refuse(p, "set %s: listen %s: \"%.80s\"", ps->name, why, v);
	snprintf(ps->listen, sizeof(ps->listen), "%s", v);
	ps->port = ps->addr.port;
	return 0;
}

static int check_seconds(struct parser *p, const char *what, const char *v, unsigned int *out)
{
	unsigned long x = 0;
	const char *q;

	if (!*v || strlen(v) > 6 || strspn(v, "0123456789") != strlen(v))
		return refuse(p, "%s must be a whole number of seconds from 0 to 86400", what);
	for (q = v; *q; q++)
		x = x * 10 + (unsigned long)(*q - '0');
	if (x > 86400)
		return refuse(p, "%s must be a whole number of seconds from 0 to 86400", what);
	*out = (unsigned int)x;
	return 0;
}

/* A key given twice in one scope is refused: the file is templated, a
 * repeat is a template bug, and which one wins would be a guess. */
static int once(struct parser *p, unsigned int *seen, int bit, const char *key)
{
	if (*seen & (1u << bit))
		return refuse(p, "%s given twice", key);
	*seen |= 1u << bit;
	return 0;
}

static int global_key(struct parser *p, struct sets *s, const char *k, const char *v)
{
	static const char *const keys[] = { "unit", "exporter", "config_dir", "default", "always",
					    "textfile", "textfile_group" };
	size_t i, len = strlen(v);

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]) && strcmp(k, keys[i]); i++)
		;
	if (i == sizeof(keys) / sizeof(keys[0]))
		return refuse(p, "unknown key \"%.40s\" (before the first [set]: unit, exporter, config_dir, default, always, textfile, textfile_group)",
			      k);
	if (once(p, &p->seen_global, (int)i, k) < 0)
		return -1;
	switch (i) {
	case 0:
		if (len < 10 || len >= sizeof(s->unit) || strcmp(v + len - 9, "@.service") ||
		    strspn(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.\\") != len - 9 ||
		    v[0] == '-' || v[0] == '.')
			return refuse(p, "unit must be a template service, NAME@.service: \"%.80s\"", v);
		snprintf(s->unit, sizeof(s->unit), "%s", v);
		return 0;
	case 1:
		if (check_path(p, "exporter", v) < 0)
			return -1;
		snprintf(s->exporter, sizeof(s->exporter), "%s", v);
		return 0;
	case 2:
		if (check_path(p, "config_dir", v) < 0)
			return -1;
		snprintf(s->config_dir, sizeof(s->config_dir), "%s", v);
		return 0;
	case 3:
		snprintf(p->default_list, sizeof(p->default_list), "%s", v);
		p->default_line = p->line;
		return 0;
	case 5:
		/* "none": no job_info textfile (no node_exporter here). */
		if (strcmp(v, "none") && check_path(p, "textfile", v) < 0)
			return -1;
		snprintf(s->textfile, sizeof(s->textfile), "%s", strcmp(v, "none") ? v : "");
		return 0;
	case 6:
		/* Looked up in /etc/group when the textfile is written. */
		if (len == 0 || len > SETS_GROUP_MAX || !strchr(group_first_chars, v[0]) ||
		    strspn(v, group_chars) != len)
			return refuse(p, "textfile_group must be a group name ([A-Za-z_][A-Za-z0-9_.-]*, at most %d characters): \"%.40s\"",
				      SETS_GROUP_MAX, v);
		snprintf(s->textfile_group, sizeof(s->textfile_group), "%s", v);
		return 0;
	default:
		snprintf(p->always_list, sizeof(p->always_list), "%s", v);
		p->always_line = p->line;
		return 0;
	}
}

static int set_key(struct parser *p, struct probe_set *ps, const char *k, const char *v)
{
	static const char *const keys[] = { "description", "configs", "listen", "linger" };
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]) && strcmp(k, keys[i]); i++)
		;
	if (i == sizeof(keys) / sizeof(keys[0]))
		return refuse(p, "set %s: unknown key \"%.40s\" (description, configs, listen, linger)",
			      ps->name, k);
	if (once(p, &p->seen_set, (int)i, k) < 0)
		return -1;
	switch (i) {
	case 0:
		if (!*v || strlen(v) > SET_DESC_MAX || !printable(v))
			return refuse(p, "set %s: description must be 1 to %d printable ASCII characters",
				      ps->name, SET_DESC_MAX);
		snprintf(ps->description, sizeof(ps->description), "%s", v);
		return 0;
	case 1:
		return check_configs(p, ps, v);
	case 2:
		return check_listen(p, ps, v);
	default:
		ps->linger_given = true;
		return check_seconds(p, "linger", v, &ps->linger);
	}
}

/* A section's end: what every set must have. */
static int set_done(struct parser *p, const struct sets *s)
{
	const struct probe_set *ps = &s->set[s->n - 1];
	int i, line = p->line;

	p->line = p->set_line[s->n - 1];
	if (!ps->description[0] || !ps->configs[0] || !ps->listen[0])
		return refuse(p, "set %s: description, configs and listen are all required", ps->name);
	for (i = 0; i < s->n - 1; i++)
		if (s->set[i].port == ps->port) {
			p->line = p->port_line[s->n - 1];
			return refuse(p, "set %s: listen port %u is also set %s's (line %d)", ps->name,
				      ps->port, s->set[i].name, p->port_line[i]);
		}
	p->line = line;
	return 0;
}

/* "a,b" of declared sets into a mask. */
static int resolve_list(struct parser *p, const struct sets *s, const char *key,
			const char *list, int line, uint32_t *mask)
{
	const char *c = list;

	p->line = line;
	*mask = 0;
	for (;;) {
		size_t len = strcspn(c, ",");
		int i = sets_find(s, c, len);
		char allowed[400];

		if (i < 0) {
			sets_allowed(s, allowed, sizeof(allowed));
			return refuse(p, "%s: \"%.*s\" is not a declared set (declared: %s)", key,
				      (int)(len > 40 ? 40 : len), c, allowed);
		}
		*mask |= 1u << i;
		if (!c[len])
			return 0;
		c += len + 1;
	}
}

static char *trim(char *s)
{
	char *e;

	s += strspn(s, " \t\r");
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

int sets_parse(const char *text, size_t len, const char *name, struct sets *s,
	       char *err, size_t errlen)
{
	struct parser p;
	char line[1024];
	size_t off = 0;

	memset(&p, 0, sizeof(p));
	memset(s, 0, sizeof(*s));
	if (errlen)
		err[0] = '\0'; /* a good file: an empty message, never stale bytes */
	p.file = name;
	p.err = err;
	p.errlen = errlen;
	snprintf(s->unit, sizeof(s->unit), "%s", DEFAULT_TEMPLATE);
	snprintf(s->exporter, sizeof(s->exporter), "%s", EXPORTER_PATH);
	snprintf(s->config_dir, sizeof(s->config_dir), "%s", EXPORTER_CONFIG_DIR);
	snprintf(s->textfile, sizeof(s->textfile), "%s", TEXTFILE_PATH);
	snprintf(s->textfile_group, sizeof(s->textfile_group), "%s", TEXTFILE_GROUP);
	if (len > SETS_FILE_MAX)
		return refuse(&p, "larger than %d bytes", SETS_FILE_MAX);
	if (memchr(text, '\0', len))
		return refuse(&p, "holds NUL bytes");
	while (off < len) {
		const char *nl = memchr(text + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - text - off) : len - off;
		char *l, *eq, *hash;

		p.line++;
		if (n >= sizeof(line))
			return refuse(&p, "line longer than %zu bytes", sizeof(line) - 1);
		memcpy(line, text + off, n);
		line[n] = '\0';
		off += n + 1;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		l = trim(line);
		if (!*l)
			continue;
		if (*l == '[') {
			size_t nlen = strlen(l);

			if (s->n && set_done(&p, s) < 0)
				return -1;
			if (l[nlen - 1] != ']' || !sets_valid_name(l + 1, nlen - 2))
				return refuse(&p, "\"%.40s\": a set's name is [a-z][a-z0-9_-]*, at most %d characters, in brackets",
					      l, SET_NAME_MAX);
			if (sets_find(s, l + 1, nlen - 2) >= 0)
				return refuse(&p, "set %.*s declared twice", (int)(nlen - 2), l + 1);
			if (s->n == SETS_MAX)
				return refuse(&p, "more than %d sets", SETS_MAX);
			snprintf(s->set[s->n].name, sizeof(s->set[s->n].name), "%.*s", (int)(nlen - 2), l + 1);
			p.set_line[s->n++] = p.line;
			p.seen_set = 0;
			continue;
		}
		eq = strchr(l, '=');
		if (!eq)
			return refuse(&p, "\"%.40s\": expected KEY = VALUE or [SET]", l);
		*eq = '\0';
		if (s->n == 0) {
			if (global_key(&p, s, trim(l), trim(eq + 1)) < 0)
				return -1;
		} else {
			if (!strcmp(trim(l), "listen"))
				p.port_line[s->n - 1] = p.line;
			if (set_key(&p, &s->set[s->n - 1], trim(l), trim(eq + 1)) < 0)
				return -1;
		}
	}
	p.line = 0;
	if (s->n == 0)
		return refuse(&p, "declares no set ([NAME] sections)");
	p.line = p.set_line[s->n - 1];
	if (set_done(&p, s) < 0)
		return -1;
	p.line = 0;
	if (!p.default_list[0])
		return refuse(&p, "no default = SET[,SET...] (what a plain --ebpf asks for)");
	if (resolve_list(&p, s, "default", p.default_list, p.default_line, &s->default_mask) < 0)
		return -1;
	if (!p.always_list[0])
		s->always_mask = s->default_mask;
	else if (resolve_list(&p, s, "always", p.always_list, p.always_line, &s->always_mask) < 0)
		return -1;
	return 0;
}

int sets_load(const char *path, struct sets *s, char *err, size_t errlen)
{
	struct stat st;
	char *buf;
	ssize_t n;
	int fd, rc;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "cannot read the probe sets file \"%.200s\": %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (st.st_mode & (S_IWGRP | S_IWOTH)) ||
	    (st.st_uid != 0 && st.st_uid != geteuid()) || st.st_size > SETS_FILE_MAX) {
		snprintf(err, errlen, "refusing the probe sets file \"%.200s\": it must be a regular file of at most %d bytes, owned by root and not writable by group or others",
			 path, SETS_FILE_MAX);
		close(fd);
		return -1;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		snprintf(err, errlen, "out of memory reading \"%.200s\"", path);
		return -1;
	}
	do
		n = read(fd, buf, (size_t)st.st_size + 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 0) {
		snprintf(err, errlen, "cannot read the probe sets file \"%.200s\": %s", path, strerror(errno));
		free(buf);
		return -1;
	}
	rc = sets_parse(buf, (size_t)n, path, s, err, errlen);
	free(buf);
	return rc;
}

int sets_find(const struct sets *s, const char *name, size_t len)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (strlen(s->set[i].name) == len && !strncmp(s->set[i].name, name, len))
			return i;
	return -1;
}

int sets_request(const struct sets *s, const char *value, uint32_t *mask,
		 char *bad, size_t badlen)
{
	const char *c = value;
	int rc = 0;

	*mask = 0;
	if (bad && badlen)
		bad[0] = '\0';
	if (!value || !*value || !strcmp(value, "(null)")) {
		*mask = s->default_mask;
		return 0;
	}
	for (;;) {
		size_t len = strcspn(c, ",");
		int i = sets_find(s, c, len);

		if (i >= 0) {
			*mask |= 1u << i;
		} else if (rc == 0) {
			rc = -1;
			if (bad && badlen) {
				size_t k;

				/* Quoted in logs and on users' terminals: printable only. */
				snprintf(bad, badlen, "%.*s", (int)(len > 40 ? 40 : len), c);
				for (k = 0; bad[k]; k++)
					if ((unsigned char)bad[k] < 0x20 || (unsigned char)bad[k] >= 0x7f)
						bad[k] = '?';
			}
		}
		if (!c[len])
			break;
		c += len + 1;
	}
	/* sbatch refuses the whole request: the node holds none of it. */
	if (rc < 0)
		*mask = 0;
	return rc;
}

void sets_allowed(const struct sets *s, char *buf, size_t len)
{
	size_t n = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < s->n && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", s->set[i].name);
}

void sets_unit(const struct sets *s, const char *set_name, char *buf, size_t len)
{
	const char *at = strchr(s->unit, '@');

	snprintf(buf, len, "%.*s@%s.service", (int)(at - s->unit), s->unit, set_name);
}

int sets_check_configs(const struct sets *s, char *err, size_t errlen)
{
	int i;

	for (i = 0; i < s->n; i++) {
		const char *c = s->set[i].configs;

		while (*c) {
			size_t len = strcspn(c, ",");
			char path[SETS_PATH_MAX + SET_CONFIG_NAME_MAX + 8];

			snprintf(path, sizeof(path), "%s/%.*s.yaml", s->config_dir, (int)len, c);
			if (access(path, R_OK) < 0) {
				snprintf(err, errlen, "set %s: config %.*s: no \"%.300s\" (%s)", s->set[i].name,
					 (int)len, c, path, strerror(errno));
				return -1;
			}
			c += len + (c[len] ? 1 : 0);
		}
	}
	return 0;
}
