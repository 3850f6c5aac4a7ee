/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stderr of the code under test, captured so that its messages can be
 * checked: capture(), run the code, then captured() gives what it wrote
 * (the first 4 KiB) and puts stderr back.
 */
#ifndef _RINGSTEER_STDERR_CAPTURE_H
#define _RINGSTEER_STDERR_CAPTURE_H

#include <stdio.h>
#include <unistd.h>

static char errbuf[4096];
static int saved_stderr = -1;
static FILE *errfile;

static inline void capture(void)
{
	fflush(stderr);
	errfile = tmpfile();
	saved_stderr = dup(STDERR_FILENO);
	dup2(fileno(errfile), STDERR_FILENO);
}

static inline const char *captured(void)
{
	size_t n;

	fflush(stderr);
	dup2(saved_stderr, STDERR_FILENO);
	close(saved_stderr);
	rewind(errfile);
	n = fread(errbuf, 1, sizeof(errbuf) - 1, errfile);
	errbuf[n] = '\0';
	fclose(errfile);
	return errbuf;
}

#endif
