/* Fuzzes the counters parser. Invariants: it never fails, the number of
 * damaged lines is at most the number of lines, and what it read formats
 * into text that parses back cleanly into the same counters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stats st, again;
	char text[2048];
	size_t i, lines = 1, len;
	int bad;

	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	bad = stats_parse(&st, (const char *)data, size);
	FUZZ_CHECK(bad >= 0 && (size_t)bad <= lines);
	len = stats_format(&st, text, sizeof(text));
	FUZZ_CHECK(len > 0 && len < sizeof(text));
	FUZZ_CHECK(stats_parse(&again, text, len) == 0);
	FUZZ_CHECK(!memcmp(&st, &again, sizeof(st)));
	return 0;
}
