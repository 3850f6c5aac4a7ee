// SPDX-License-Identifier: GPL-2.0
/* Files of lines of words, for the parse layer; see lines.h. */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "lines.h"

#define MAX_WORDS 32

int parse_split(char *line, char **argv, int max)
{
	char *save, *w;
	int argc = 0;

	line[strcspn(line, "#")] = '\0';
	for (w = strtok_r(line, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
		if (argc == max)
			return -E2BIG;
		argv[argc++] = w;
	}
	return argc;
}

int parse_lines(FILE *f, const char *ctx, const char *name, parse_line_t cb,
		void *data)
{
	char lctx[512], *line = NULL, *argv[MAX_WORDS];
	unsigned int lineno = 0;
	size_t len = 0;
	int argc, ret = 0;

	while (!ret && getline(&line, &len, f) > 0) {
		lineno++;
		snprintf(lctx, sizeof(lctx), "%s: %s:%u", ctx, name, lineno);
		argc = parse_split(line, argv, MAX_WORDS);
		if (argc < 0)
			ret = cli_error("%s: too many words", lctx);
		else if (argc > 0)
			ret = cb(lctx, argc, argv, lineno, data);
	}
	if (!ret && ferror(f))
		ret = cli_error("%s: %s: %s", ctx, name, strerror(errno));
	free(line);
	return ret;
}

int parse_file(const char *path, const char *ctx, parse_line_t cb, void *data)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	int err;

	if (!f)
		return cli_error("%s: %s: %s", ctx, path, strerror(errno));
	err = parse_lines(f, ctx, f == stdin ? "<stdin>" : path, cb, data);
	if (f != stdin)
		fclose(f);
	return err;
}

char *parse_join(int argc, char **argv)
{
	size_t len = 1;
	char *s;
	int i;

	for (i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	s = calloc(1, len);
	for (i = 0; s && i < argc; i++) {
		if (i)
			strcat(s, " ");
		strcat(s, argv[i]);
	}
	return s;
}
