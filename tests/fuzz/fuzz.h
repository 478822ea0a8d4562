/* libFuzzer entry points, shared by the fuzzers (clang -fsanitize=fuzzer)
 * and by replay.c, which runs the seed corpus and every past crash as a
 * plain unit test. Each harness aborts when an invariant breaks. */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                  \
	do {                                                              \
		if (!(cond)) {                                            \
			fprintf(stderr, "invariant broken: %s (%s:%d)\n", \
				#cond, __FILE__, __LINE__);               \
			abort();                                          \
		}                                                         \
	} while (0)

/* Whether s is printable ASCII: what a parser may echo in a message. */
static inline int fuzz_printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

#endif
