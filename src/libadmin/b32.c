/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Base32. See b32.h. */
#include "b32.h"

static const char b32_alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";

size_t b32_encoded_len(size_t n)
{
	return (n * 8 + 4) / 5;
}

int b32_encode(const void *in, size_t n, char *out, size_t len)
{
	const unsigned char *p = in;
	unsigned long acc = 0;
	size_t i, o = 0;
	int bits = 0;

	if (len < b32_encoded_len(n) + 1)
		return -1;
	for (i = 0; i < n; i++) {
		acc = (acc << 8 | p[i]) & 0xfff;
		bits += 8;
		while (bits >= 5) {
			bits -= 5;
			out[o++] = b32_alphabet[acc >> bits & 31];
		}
	}
	if (bits)
		out[o++] = b32_alphabet[acc << (5 - bits) & 31];
	out[o] = '\0';
	return 0;
}

/* A character's 5 bits, either case; -1 for any other character. */
static int b32_value(char c)
{
	if (c >= 'a' && c <= 'z')
		return c - 'a';
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= '2' && c <= '7')
		return c - '2' + 26;
	return -1;
}

long b32_decode(const char *in, size_t n, unsigned char *out, size_t len)
{
	unsigned long acc = 0;
	size_t i, o = 0;
	int bits = 0;

	/* The lengths an encoder writes: 8 per 5 bytes, then 2, 4, 5 or 7. */
	switch (n % 8) {
	case 1: case 3: case 6:
		return -1;
	}
	if (n / 8 * 5 + (n % 8) * 5 / 8 + 1 > len)
		return -1;
	for (i = 0; i < n; i++) {
		int v = b32_value(in[i]);

		if (v < 0)
			return -1;
		acc = (acc << 5 | (unsigned long)v) & 0xfff;
		bits += 5;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (unsigned char)(acc >> bits);
		}
	}
	if (acc & ((1ul << bits) - 1)) /* bits a canonical encoder leaves 0 */
		return -1;
	out[o] = '\0';
	return (long)o;
}
