/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Counters of transitions. See stats.h. */
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "stats.h"

#define STATS_MAX_BYTES 2048

static const char *const names[STAT_COUNT] = {
	"starts", "stops", "start_failures", "stop_failures", "restarts",
	"reconcile_runs", "reconcile_failures", "reconcile_removed",
	"last_start_ms", "last_stop_ms", "not_observed_records_full",
	"not_observed_user_share",
};

const char *stats_name(enum stat_id id)
{
	return id < STAT_COUNT ? names[id] : "?";
}

static int parse_line(struct stats *st, const char *line, size_t len)
{
	const char *sp = memchr(line, ' ', len);
	uint64_t v = 0;
	size_t i, k;

	if (!sp || sp == line || sp + 1 == line + len)
		return -1;
	for (i = (size_t)(sp - line) + 1; i < len; i++) {
		uint64_t d = (uint64_t)(line[i] - '0');

		if (line[i] < '0' || line[i] > '9' || v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	for (k = 0; k < STAT_COUNT; k++)
		if (strlen(names[k]) == (size_t)(sp - line) && !memcmp(line, names[k], (size_t)(sp - line)))
			st->v[k] = v;
	return 0; /* a name we do not know is fine: another version's */
}

int stats_parse(struct stats *st, const char *buf, size_t len)
{
	size_t off = 0;
	int bad = 0;

	memset(st, 0, sizeof(*st));
	while (off < len) {
		const char *nl = memchr(buf + off, '\n', len - off);
		size_t n = nl ? (size_t)(nl - (buf + off)) : len - off;

		if (n && parse_line(st, buf + off, n) < 0)
			bad++;
		off += n + 1;
	}
	return bad;
}

size_t stats_format(const struct stats *st, char *buf, size_t cap)
{
	size_t n = 0, k;

	buf[0] = '\0';
	for (k = 0; k < STAT_COUNT && n < cap; k++)
		n += (size_t)snprintf(buf + n, cap - n, "%s %llu\n", names[k],
				      (unsigned long long)st->v[k]);
	return n < cap ? n : 0;
}

int stats_load_of(struct statefile *sf, const char *aux, struct stats *st)
{
	char buf[STATS_MAX_BYTES], suffix[64];
	size_t len;
	int rc;

	memset(st, 0, sizeof(*st));
	snprintf(suffix, sizeof(suffix), ".stats%s", aux);
	rc = statefile_read_aux(sf, suffix, buf, sizeof(buf), &len);
	if (rc < 0)
		return -1;
	if (rc == 0 && stats_parse(st, buf, len) > 0)
		log_msg(LOG_ERROR, "counters file \"%s%s\" has damaged lines; they count as 0",
			sf->path, suffix);
	return 0;
}

int stats_load(struct statefile *sf, struct stats *st)
{
	return stats_load_of(sf, "", st);
}

void stats_update_of(struct statefile *sf, const char *aux, const struct stats *add,
		     enum stat_id gid, uint64_t gval)
{
	char buf[STATS_MAX_BYTES], suffix[64];
	struct stats st;
	size_t k, len;

	if (stats_load_of(sf, aux, &st) < 0)
		return;
	for (k = 0; k < STAT_COUNT; k++)
		st.v[k] += add->v[k];
	if (gid < STAT_COUNT)
		st.v[gid] = gval;
	len = stats_format(&st, buf, sizeof(buf));
	snprintf(suffix, sizeof(suffix), ".stats%s", aux);
	if (len)
		statefile_write_aux(sf, suffix, "counters", buf, len);
}

void stats_update(struct statefile *sf, const struct stats *add, enum stat_id gid,
		  uint64_t gval)
{
	stats_update_of(sf, "", add, gid, gval);
}
