/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What "ringctl version" compares, for its unit test: releases are
 * MAJOR.MINOR.PATCH (uapi/ringsteer_version.h).
 */
#ifndef RINGCTL_VERSION_H
#define RINGCTL_VERSION_H

#include <stdbool.h>
#include <stdio.h>

/* Whether releases A and B have the same MAJOR.MINOR (false if either is not a release number). */
bool version_same_series(const char *a, const char *b);
/*
 * The report's kernel line for the module release MOD (NULL: loaded but
 * without a version) on OUT, and the warning on stderr when ringctl's
 * release and the module's differ in MAJOR.MINOR; returns whether it warned.
 */
bool version_report_module(FILE *out, const char *mod);

#endif
