/* b32_encode and b32_decode: RFC 4648's vectors (in lower case, without
 * padding), the round trip of every byte, either case read, and what a
 * strict decoder refuses. One function per case. */
#include <string.h>

#include "b32.h"
#include "tap.h"

static void test_vectors(void)
{
	static const char *const plain[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
	static const char *const coded[] = { "", "my", "mzxq", "mzxw6", "mzxw6yq", "mzxw6ytb", "mzxw6ytboi" };
	unsigned char back[16];
	char out[16];
	size_t i;

	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) {
		ok(b32_encode(plain[i], strlen(plain[i]), out, sizeof(out)) == 0 && !strcmp(out, coded[i]),
		   "encode \"%s\": %s (got %s)", plain[i], coded[i], out);
		ok(b32_decode(coded[i], strlen(coded[i]), back, sizeof(back)) == (long)strlen(plain[i]) &&
			   !strcmp((char *)back, plain[i]),
		   "decode %s: \"%s\"", coded[i], plain[i]);
	}
}

static void test_either_case(void)
{
	unsigned char back[16];

	ok(b32_decode("MZXW6YTBOI", 10, back, sizeof(back)) == 6 && !strcmp((char *)back, "foobar"),
	   "upper case reads the same (RFC 4648's own)");
	ok(b32_decode("MzXw6YtBoI", 10, back, sizeof(back)) == 6 && !strcmp((char *)back, "foobar"),
	   "... and mixed");
}

static void test_every_byte(void)
{
	unsigned char in[256], back[260];
	char out[420];
	int i;

	for (i = 0; i < 256; i++)
		in[i] = (unsigned char)(255 - i);
	ok(b32_encode(in, sizeof(in), out, sizeof(out)) == 0 && strlen(out) == b32_encoded_len(256),
	   "encode 256 bytes: %zu characters", b32_encoded_len(256));
	ok(b32_decode(out, strlen(out), back, sizeof(back)) == 256 && !memcmp(in, back, 256),
	   "... decoded back byte for byte");
}

static void test_refused(void)
{
	/* Lengths no encoder writes, spare bits set, padding, a blank, a
	 * newline, base64's characters, digits outside 2-7. */
	static const char *const bad[] = { "m", "mzx", "mzxw6y", "mz", "mzxr", "my======", "mz xw6",
					    "mzxw\n6", "mzx+", "mzx1", "mzx8" };
	unsigned char back[16];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(b32_decode(bad[i], strlen(bad[i]), back, sizeof(back)) == -1, "refused: case %zu of %zu",
		   i + 1, sizeof(bad) / sizeof(bad[0]));
}

/* Lengths 1, 3 and 6 modulo 8 are none an encoder writes (RFC 4648:
 * 5, 15 and 30 bits leave a partial byte), even when the bits left over
 * are 0: each of these would decode to whole bytes ("", "f", "foo",
 * "foobar") if only the spare bits were checked. */
static void test_impossible_lengths(void)
{
	static const char *const bad[] = { "a", "mya", "mzxw6a", "mzxw6ytboia", "mzxw6ytbmzxw6a" };
	unsigned char back[16];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(b32_decode(bad[i], strlen(bad[i]), back, sizeof(back)) == -1,
		   "refused: %s, %zu characters (%zu modulo 8), its spare bits 0", bad[i], strlen(bad[i]),
		   strlen(bad[i]) % 8);
}

static void test_room(void)
{
	unsigned char back[6];
	char out[11];

	ok(b32_encode("foobar", 6, out, 10) == -1, "encode: 10 bytes cannot hold 10 characters and the NUL");
	ok(b32_encode("foobar", 6, out, 11) == 0, "... 11 can");
	ok(b32_decode("mzxw6ytboi", 10, back, sizeof(back)) == -1, "decode: 6 bytes cannot hold 6 and the NUL");
}

int main(void)
{
	test_vectors();
	test_either_case();
	test_every_byte();
	test_refused();
	test_impossible_lengths();
	test_room();
	return tap_done();
}
