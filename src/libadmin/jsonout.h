/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The admin command's one JSON writer: every --json output is a json-c
 * tree built with these and printed by jsonout_print, so that one rule
 * holds for all of it. Strings from outside (user names, unit names,
 * Slurm's and exporters' words) become valid UTF-8: each byte that is
 * not part of a valid UTF-8 character, and each control character
 * json-c would leave raw (DEL, U+0080..U+009F), is written U+FFFD; the
 * controls below 0x20 are escaped by json-c (\u001b). A number that is
 * not finite (NaN, infinities) is written null: JSON has no such number.
 * A NULL from these (out of memory too) is written null. */
#ifndef SPANK_EBPF_JSONOUT_H
#define SPANK_EBPF_JSONOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <json.h>

/* s as a JSON string by the rule above; NULL for s NULL. */
struct json_object *jsonout_string(const char *s);
/* v with decimals digits after the point (printf's %.*f), or NULL
 * (null) when v is not finite. */
struct json_object *jsonout_double(double v, int decimals);
/* v with digits significant digits (printf's %.*g), or NULL. */
struct json_object *jsonout_double_g(double v, int digits);
struct json_object *jsonout_int(long long v);
struct json_object *jsonout_bool(bool b);
/* Adds key: value to obj, value's reference with it (NULL: null). */
void jsonout_add(struct json_object *obj, const char *key, struct json_object *value);
/* Appends value to array arr, value's reference with it. */
void jsonout_append(struct json_object *arr, struct json_object *value);

/* in by the rule above into out (always NUL-terminated when len > 0, cut
 * at a whole character). Returns out. */
char *jsonout_utf8(const char *in, char *out, size_t len);

/* obj as one line (json-c's plain form, '/' not escaped) and a newline
 * to f; obj is put. Returns 0, or -1 when it could not be written. */
int jsonout_print(FILE *f, struct json_object *obj);

#endif
