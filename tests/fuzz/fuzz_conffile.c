/* Fuzzes the reading of a plugstack file (check-config's input, written by
 * config management). Invariants: it never crashes, always says why when
 * it refuses, and what it accepts is a configuration the plugin accepts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conffile.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config cfg;
	char err[700];
	FILE *f;
	int rc;

	if (size == 0)
		return 0;
	f = fmemopen((void *)data, size, "r");
	FUZZ_CHECK(f);
	rc = conffile_read(f, "fuzz.conf", &cfg, err, sizeof(err));
	fclose(f);
	FUZZ_CHECK(rc == 0 || rc == -1);
	FUZZ_CHECK(rc == 0 || (err[0] && strlen(err) < sizeof(err)));
	if (rc == 0) {
		FUZZ_CHECK(cfg.state[0] == '/' && cfg.systemctl[0] == '/');
		FUZZ_CHECK(cfg.timeout >= 1 && cfg.lock_timeout > CONFIG_LOCKED_CALLS * cfg.timeout);
		FUZZ_CHECK(strchr(cfg.unit, '.') != NULL);
	}
	return 0;
}
