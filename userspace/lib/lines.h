/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Part of the parse layer (prefix parse_): the line reader of the
 * configuration file, health checks' files, lookup's and simulate's
 * batches. Knows words, not what they mean.
 */
#ifndef RINGCTL_LINES_H
#define RINGCTL_LINES_H

#include <stdio.h>

/* Split LINE in place into words; '#' starts a comment. -E2BIG if over MAX. */
int parse_split(char *line, char **argv, int max);
/*
 * Files of lines of words ('#' starts a comment, blank lines skipped): CB
 * gets each line's words, with "CTX: NAME:LINE" as its context for
 * messages; the first error it returns stops the reading.
 */
typedef int (*parse_line_t)(const char *ctx, int argc, char **argv,
			    unsigned int lineno, void *data);
int parse_lines(FILE *f, const char *ctx, const char *name, parse_line_t cb,
		void *data);
/* The same for the file at PATH, or standard input for "-". */
int parse_file(const char *path, const char *ctx, parse_line_t cb, void *data);

/* The words of ARGV joined by single spaces (a command); malloc'd, NULL if out of memory. */
char *parse_join(int argc, char **argv);

#endif /* RINGCTL_LINES_H */
