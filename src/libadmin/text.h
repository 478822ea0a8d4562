/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bytes from another process (an exporter's answer, a user name from
 * NSS) made safe to print: nothing that reaches a terminal can carry an
 * escape sequence or an unvalidated byte. JSON has its own writer,
 * jsonout.h. */
#ifndef SPANK_EBPF_TEXT_H
#define SPANK_EBPF_TEXT_H

#include <stddef.h>

/* in as printable ASCII into out (always NUL-terminated when len > 0):
 * bytes 0x20..0x7e other than '\' as they are, every other byte as \xNN.
 * Cut at a whole escape when out is too small. Returns out. */
char *text_printable(const char *in, char *out, size_t len);

#endif
