/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin's own line in a plugstack file, for the programs that are not
 * loaded by Slurm (the admin command, the Prolog=/Epilog= entry): found and
 * split as Slurm does (required|optional PATH ARGS..., '#' to the end of
 * the line is a comment), then parsed by config_parse(), so a line is
 * accepted or refused with exactly the plugin's words. */
#ifndef SPANK_EBPF_CONFFILE_H
#define SPANK_EBPF_CONFFILE_H

#include <stddef.h>
#include <stdio.h>

#include "config.h"

#define CONFFILE_PLUGIN "spank_ebpf.so"
#define CONFFILE_LINE_MAX 4096

/* Reads f (named name in messages) and fills *cfg from the one line that
 * declares CONFFILE_PLUGIN. Returns 0, or -1 with err saying why ("name:N:
 * invalid plugstack argument ...", "no line declares spank_ebpf.so", ...). */
int conffile_read(FILE *f, const char *name, struct config *cfg, char *err, size_t errlen);

/* The same for a path ("-": standard input). */
int conffile_load(const char *path, struct config *cfg, char *err, size_t errlen);

#endif
