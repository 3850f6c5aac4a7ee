// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl version's comparison of its release with the loaded module's
 * (userspace/version.c): same MAJOR.MINOR is quiet, another one, a module
 * without a version, or a number that is not a release warns on stderr
 * and names both; the kernel line is printed either way.
 */
/* The 6.1 harness has unused parameters, -Wextra would fail on them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "stderr_capture.h"
#include "uapi/ringsteer_version.h"
#include "version.h"

TEST(same_series)
{
	EXPECT_TRUE(version_same_series("0.9.0", "0.9.0"));
	EXPECT_TRUE(version_same_series("0.9.0", "0.9.3"));
	EXPECT_TRUE(version_same_series("1.12", "1.12.7"));
	EXPECT_FALSE(version_same_series("0.9.0", "0.8.99"));
	EXPECT_FALSE(version_same_series("0.9.0", "1.9.0"));
	/* A prefix is not the same minor. */
	EXPECT_FALSE(version_same_series("0.9.0", "0.90.0"));
	EXPECT_FALSE(version_same_series("0.1.0", "0.10"));
	EXPECT_FALSE(version_same_series("0.9.0", ""));
	EXPECT_FALSE(version_same_series("0.9.0", "0"));
	EXPECT_FALSE(version_same_series("0.9.0", "0.x"));
	EXPECT_FALSE(version_same_series("x.y", "x.y"));
}

/* The kernel line MOD gives on stdout, and what went to stderr. */
static bool report(const char *mod, char *out, size_t len, const char **err)
{
	FILE *f = fmemopen(out, len, "w");
	bool warned;

	capture();
	warned = version_report_module(f, mod);
	*err = captured();
	fclose(f);
	return warned;
}

TEST(kernel_line_and_warning)
{
	char out[256], same[32];
	const char *err;

	/* This ringctl's own release, with another patch level. */
	snprintf(same, sizeof(same), "%.*s.99", (int)(strrchr(RINGSTEER_VERSION, '.') - RINGSTEER_VERSION),
		 RINGSTEER_VERSION);
	EXPECT_FALSE(report(RINGSTEER_VERSION, out, sizeof(out), &err));
	EXPECT_STREQ("", err);
	EXPECT_EQ(0, strncmp(out, "kernel: ringsteer module " RINGSTEER_VERSION "\n", sizeof(out)));
	EXPECT_FALSE(report(same, out, sizeof(out), &err));
	EXPECT_STREQ("", err);

	EXPECT_TRUE(report("0.0.1", out, sizeof(out), &err));
	EXPECT_STREQ("kernel: ringsteer module 0.0.1\n", out);
	EXPECT_NE(NULL, strstr(err, "warning: ringctl is " RINGSTEER_VERSION ", the loaded module 0.0.1"));
	EXPECT_NE(NULL, strstr(err, "modprobe ringsteer"));

	EXPECT_TRUE(report(NULL, out, sizeof(out), &err));
	EXPECT_STREQ("kernel: ringsteer module (no version)\n", out);
	EXPECT_NE(NULL, strstr(err, "has no version"));
}

TEST_HARNESS_MAIN
