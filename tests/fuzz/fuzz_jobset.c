/* Fuzzes the state-file parser (both forms). Invariants: whatever it
 * accepts or salvages formats into a file that parses cleanly back into
 * the same jobs holding the same sets (by name); the jobs stay sorted,
 * unique, within limits, each holding at least one set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "jobset.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jobset set, again;
	char why[160], *text;
	size_t i, len, cap;
	int rc;

	jobset_init(&set);
	jobset_init(&again);
	rc = jobset_parse(&set, (const char *)data, size, why, sizeof(why));
	FUZZ_CHECK(rc == 0 || rc == 1 || rc == 2);
	FUZZ_CHECK((rc != 0) == (why[0] != '\0'));
	FUZZ_CHECK(rc != 2 || set.n == 0);
	FUZZ_CHECK(set.n <= JOBSET_MAX_IDS);
	for (i = 0; i < set.n; i++) {
		FUZZ_CHECK(jobset_valid_id(set.ids[i]));
		FUZZ_CHECK(i == 0 || set.ids[i - 1] < set.ids[i]);
		FUZZ_CHECK(set.masks[i] != 0);
	}
	cap = jobset_text_size(&set);
	text = malloc(cap);
	FUZZ_CHECK(text);
	len = jobset_format(&set, text, cap);
	FUZZ_CHECK(len > 0 && len < cap);
	FUZZ_CHECK(jobset_parse(&again, text, len, why, sizeof(why)) == 0);
	FUZZ_CHECK(again.n == set.n);
	for (i = 0; i < set.n; i++) {
		int b;

		FUZZ_CHECK(again.ids[i] == set.ids[i]);
		/* The same sets, by name (bits may differ between the two). */
		for (b = 0; b < set.nnames; b++) {
			int a = jobset_bit(&again, set.names[b], strlen(set.names[b]));

			if (set.masks[i] & (1u << b))
				FUZZ_CHECK(a >= 0 && (again.masks[i] & (1u << a)));
		}
		FUZZ_CHECK(__builtin_popcount(again.masks[i]) == __builtin_popcount(set.masks[i]));
	}
	free(text);
	jobset_free(&set);
	jobset_free(&again);
	return 0;
}
