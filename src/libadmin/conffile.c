/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The plugin's line in a plugstack file. See conffile.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "conffile.h"

#define ARGS_MAX 64

static bool is_plugin(const char *path)
{
	const char *slash = strrchr(path, '/');

	return !strcmp(slash ? slash + 1 : path, CONFFILE_PLUGIN);
}

int conffile_read(FILE *f, const char *name, struct config *cfg, char *err, size_t errlen)
{
	char line[CONFFILE_LINE_MAX + 2], keep[CONFFILE_LINE_MAX + 2] = "";
	int lineno = 0, found = 0, first = 0;

	err[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		char *hash, *tok, *save;

		lineno++;
		if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
			snprintf(err, errlen, "%.200s:%d: line longer than %d bytes", name, lineno,
				 CONFFILE_LINE_MAX);
			return -1;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		tok = strtok_r(line, " \t\r\n", &save);
		if (!tok || (strcmp(tok, "required") != 0 && strcmp(tok, "optional") != 0))
			continue;
		tok = strtok_r(NULL, " \t\r\n", &save);
		if (!tok || !is_plugin(tok))
			continue;
		if (found++ == 0) {
			first = lineno;
			/* the rest of the line, after the path */
			snprintf(keep, sizeof(keep), "%s", save ? save : "");
		}
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%.200s: read error: %s", name, strerror(errno));
		return -1;
	}
	if (found == 0) {
		snprintf(err, errlen, "%.200s: no required or optional line declares %s", name,
			 CONFFILE_PLUGIN);
		return -1;
	}
	if (found > 1) {
		snprintf(err, errlen, "%.200s: %d lines declare %s (the first on line %d): Slurm would load it more than once",
			 name, found, CONFFILE_PLUGIN, first);
		return -1;
	}
	{
		char *argv[ARGS_MAX], *tok, *save = NULL, why[512];
		int argc = 0;

		for (tok = strtok_r(keep, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
			if (argc == ARGS_MAX) {
				snprintf(err, errlen, "%.200s:%d: more than %d arguments", name, first,
					 ARGS_MAX);
				return -1;
			}
			argv[argc++] = tok;
		}
		if (config_parse(cfg, argc, argv, why, sizeof(why)) < 0) {
			snprintf(err, errlen, "%.200s:%d: %s", name, first, why);
			return -1;
		}
	}
	return 0;
}

int conffile_load(const char *path, struct config *cfg, char *err, size_t errlen)
{
	FILE *f;
	int rc;

	if (!strcmp(path, "-"))
		return conffile_read(stdin, "(standard input)", cfg, err, errlen);
	f = fopen(path, "re");
	if (!f) {
		snprintf(err, errlen, "cannot read \"%.200s\": %s", path, strerror(errno));
		return -1;
	}
	rc = conffile_read(f, path, cfg, err, errlen);
	fclose(f);
	return rc;
}
