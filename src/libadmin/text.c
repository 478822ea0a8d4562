/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Printable text. See text.h. */
#include <stdio.h>
#include <string.h>

#include "text.h"

/* Appends piece to out at *at unless it would not fit whole; 0 or -1. */
static int text_append(char *out, size_t len, size_t *at, const char *piece)
{
	size_t n = strlen(piece);

	if (*at + n + 1 > len)
		return -1;
	memcpy(out + *at, piece, n + 1);
	*at += n;
	return 0;
}

char *text_printable(const char *in, char *out, size_t len)
{
	const unsigned char *c;
	size_t at = 0;

	if (len == 0)
		return out;
	out[0] = '\0';
	for (c = (const unsigned char *)in; in && *c; c++) {
		char piece[8];

		if (*c >= 0x20 && *c < 0x7f && *c != '\\')
			snprintf(piece, sizeof(piece), "%c", *c);
		else
			snprintf(piece, sizeof(piece), "\\x%02x", *c);
		if (text_append(out, len, &at, piece) < 0)
			break;
	}
	return out;
}
