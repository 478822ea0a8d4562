/* Fuzzes the job summary's reader (report_summary.c): what a site's
 * AdminComment may hold. The first byte chooses the input's form: the
 * field as it is, or the rest as the token's text (base32-encoded here,
 * so the fuzzer reaches the lines). Invariants: a refusal is one
 * printable message and no node; an accepted token keeps at most the
 * nodes its head says, and written again and read again it gives the
 * same token (the writer and the reader agree). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b32.h"
#include "fuzz.h"
#include "report.h"

#define FUZZ_JOB 5

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char field[SUMMARY_TOKEN_MAX * 2 + 16], tok[SUMMARY_TOKEN_MAX + 1], again[SUMMARY_TOKEN_MAX + 1];
	static struct figures all, all2;
	struct cluster c, c2;
	struct summary h, h2;
	char why[200];
	long kept;
	int rc;

	if (size < 1 || size > SUMMARY_TOKEN_MAX)
		return 0;
	if (data[0] & 1) {
		memcpy(field, data + 1, size - 1);
		field[size - 1] = '\0';
	} else {
		memcpy(field, SUMMARY_TAG, sizeof(SUMMARY_TAG) - 1);
		if (b32_encode(data + 1, size - 1, field + sizeof(SUMMARY_TAG) - 1,
			       sizeof(field) - sizeof(SUMMARY_TAG)) < 0)
			return 0;
	}
	why[0] = '\0';
	rc = summary_decode(field, FUZZ_JOB, &h, &all, &c, why, sizeof(why));
	FUZZ_CHECK(rc >= -1 && rc <= 1);
	if (rc <= 0) {
		FUZZ_CHECK(c.n == 0 && c.node == NULL);
		FUZZ_CHECK(rc == 0 || (why[0] && fuzz_printable(why)));
		return 0;
	}
	FUZZ_CHECK(c.n <= h.nodes);
	kept = summary_encode(&h, &all, &c, tok, sizeof(tok));
	if (kept >= 0) {
		FUZZ_CHECK(strlen(tok) <= SUMMARY_TOKEN_MAX);
		rc = summary_decode(tok, FUZZ_JOB, &h2, &all2, &c2, why, sizeof(why));
		FUZZ_CHECK(rc == 1);
		FUZZ_CHECK(summary_encode(&h2, &all2, &c2, again, sizeof(again)) == kept);
		FUZZ_CHECK(!strcmp(tok, again));
		report_cluster_free(&c2);
		report_figures_free(&all2);
	}
	report_cluster_free(&c);
	report_figures_free(&all);
	return 0;
}
