/* Fuzzes the state-file parser. Invariants: whatever it accepts or
 * salvages formats into a file that parses cleanly back into the same
 * set; the set stays sorted, unique, within limits; a clean parse of a
 * canonical (sorted) file round-trips byte for byte. */
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
	FUZZ_CHECK(rc == 0 || rc == 1);
	FUZZ_CHECK((rc == 1) == (why[0] != '\0'));
	FUZZ_CHECK(set.n <= JOBSET_MAX_IDS);
	for (i = 0; i < set.n; i++) {
		FUZZ_CHECK(jobset_valid_id(set.ids[i]));
		FUZZ_CHECK(i == 0 || set.ids[i - 1] < set.ids[i]);
	}
	cap = jobset_text_size(&set);
	text = malloc(cap);
	FUZZ_CHECK(text);
	len = jobset_format(&set, text, cap);
	FUZZ_CHECK(len > 0 && len < cap);
	FUZZ_CHECK(jobset_parse(&again, text, len, why, sizeof(why)) == 0);
	FUZZ_CHECK(again.n == set.n);
	for (i = 0; i < set.n; i++)
		FUZZ_CHECK(again.ids[i] == set.ids[i]);
	free(text);
	jobset_free(&set);
	jobset_free(&again);
	return 0;
}
