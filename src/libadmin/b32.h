/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Base32 (RFC 4648's alphabet, written in lower case, no padding): the
 * job summary's token in Slurm's AdminComment. Case does not matter to
 * it: Slurm 22.05's sacctmgr, the one way to write the field once a job
 * has ended, lowercases what it stores. */
#ifndef SPANK_EBPF_B32_H
#define SPANK_EBPF_B32_H

#include <stddef.h>

/* The encoded length of n bytes, without the NUL. */
size_t b32_encoded_len(size_t n);
/* n bytes of in as base32 into out (NUL-terminated); -1 when out, of len
 * bytes, cannot hold it all. */
int b32_encode(const void *in, size_t n, char *out, size_t len);
/* The base32 text in (n characters, either case, no padding, no blanks)
 * into out (len bytes; a NUL is added after the bytes); the number of
 * bytes, or -1 when in is not base32 by that rule (a length no encoder
 * writes, bits an encoder leaves 0 set) or out cannot hold them. */
long b32_decode(const char *in, size_t n, unsigned char *out, size_t len);

#endif
