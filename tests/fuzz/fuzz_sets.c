/* Fuzzes the probe sets file parser (and a job's --ebpf value against
 * it). Invariants: an accepted file only holds names, configs and
 * addresses the units and the option may use as they are; a refusal
 * comes with a printable message naming the file; a request never sets
 * a bit beyond the declared sets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sets s;
	char err[512], bad[64];
	uint32_t mask, all;
	int i;

	if (sets_parse((const char *)data, size, "f", &s, err, sizeof(err)) < 0) {
		FUZZ_CHECK(!strncmp(err, "f:", 2) && fuzz_printable(err));
		return 0;
	}
	FUZZ_CHECK(s.n >= 1 && s.n <= SETS_MAX);
	all = s.n == 32 ? ~0u : (1u << s.n) - 1;
	FUZZ_CHECK(s.default_mask && !(s.default_mask & ~all) && s.always_mask && !(s.always_mask & ~all));
	for (i = 0; i < s.n; i++) {
		const struct probe_set *ps = &s.set[i];

		FUZZ_CHECK(ps->name[0] >= 'a' && ps->name[0] <= 'z');
		FUZZ_CHECK(strspn(ps->name, "abcdefghijklmnopqrstuvwxyz0123456789_-") == strlen(ps->name));
		FUZZ_CHECK(ps->configs[0] && !strchr(ps->configs, '/') && fuzz_printable(ps->configs));
		FUZZ_CHECK(strchr(ps->listen, ':') && ps->port >= 1 && ps->port <= 65535);
		FUZZ_CHECK(ps->description[0] && fuzz_printable(ps->description));
		FUZZ_CHECK(sets_find(&s, ps->name, strlen(ps->name)) == i);
	}
	FUZZ_CHECK(s.exporter[0] == '/' && !strpbrk(s.exporter, "$% ") && fuzz_printable(s.exporter));
	FUZZ_CHECK(s.config_dir[0] == '/' && !strpbrk(s.config_dir, "$% ") && fuzz_printable(s.config_dir));
	FUZZ_CHECK(strstr(s.unit, "@.service") && fuzz_printable(s.unit));
	FUZZ_CHECK(s.textfile_group[0] && !strpbrk(s.textfile_group, " :\n") &&
		   fuzz_printable(s.textfile_group));
	/* The file's own text as a request: never a bit beyond the sets. */
	{
		char *req = malloc(size + 1);

		FUZZ_CHECK(req);
		memcpy(req, data, size);
		req[size] = '\0';
		/* A refused request holds nothing: never part of it. */
		FUZZ_CHECK(sets_request(&s, req, &mask, bad, sizeof(bad)) == 0 || mask == 0);
		FUZZ_CHECK(!(mask & ~all) && fuzz_printable(bad));
		free(req);
	}
	return 0;
}
