/* Fuzzes the plugstack argument parser: the input is split at newlines
 * into at most 16 arguments. Invariants: an accepted configuration only
 * holds values the plugin may safely use; a rejection always comes with a
 * printable message naming an argument. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = malloc(size + 1), *argv[16], *p;
	struct config cfg;
	char err[512];
	int argc = 0;

	FUZZ_CHECK(copy);
	memcpy(copy, data, size);
	copy[size] = '\0';
	for (p = copy; argc < 16; argc++) {
		argv[argc] = p;
		p = strchr(p, '\n');
		if (!p) {
			argc++;
			break;
		}
		*p++ = '\0';
	}
	if (config_parse(&cfg, argc, argv, err, sizeof(err)) == 0) {
		size_t n = strlen(cfg.unit);

		FUZZ_CHECK(cfg.mode == MODE_OPT_IN || cfg.mode == MODE_ALWAYS);
		FUZZ_CHECK(n > 8 && !strcmp(cfg.unit + n - 8, ".service"));
		FUZZ_CHECK(cfg.unit[0] != '-' && fuzz_printable(cfg.unit) && !strchr(cfg.unit, '/'));
		FUZZ_CHECK(cfg.state[0] == '/' && fuzz_printable(cfg.state) && !strstr(cfg.state, "/../"));
		FUZZ_CHECK(cfg.systemctl[0] == '/' && fuzz_printable(cfg.systemctl));
		FUZZ_CHECK(cfg.timeout >= 1 && cfg.timeout <= CONFIG_TIMEOUT_MAX);
		FUZZ_CHECK(cfg.lock_timeout >= 1 && cfg.lock_timeout <= CONFIG_TIMEOUT_MAX);
	} else {
		FUZZ_CHECK(!strncmp(err, "invalid plugstack argument \"", 28));
		FUZZ_CHECK(fuzz_printable(err));
		FUZZ_CHECK(!strcmp(cfg.unit, DEFAULT_UNIT) && cfg.mode == MODE_OPT_IN);
	}
	free(copy);
	return 0;
}
