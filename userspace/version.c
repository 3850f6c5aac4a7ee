// SPDX-License-Identifier: GPL-2.0
/* ringctl version (and -V, --version): ringctl's and the loaded module's releases. */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "uapi/ringsteer.h"
#include "uapi/ringsteer_version.h"
#include "cli.h"
#include "cmd.h"
#include "nl.h"
#include "version.h"

/* MODULE_VERSION's file; the directory alone is a module built without one. */
#define SYSFS_MODULE "/sys/module/ringsteer"

void cmd_version_usage(FILE *f)
{
	fprintf(f, "Usage: ringctl version\n\n"
		"Prints ringctl's release and, if the module is loaded, the module's\n"
		"release and its generic netlink family's version. Warns on stderr when\n"
		"the two releases differ in MAJOR.MINOR: the module in the kernel is\n"
		"not the one installed with this ringctl (reload it). Never loads the\n"
		"module.\n");
}

/* "MAJOR.MINOR." or "MAJOR.MINOR" and the end: the length of MAJOR.MINOR, or 0. */
static size_t series_len(const char *v)
{
	size_t n = strspn(v, "0123456789"), m;

	if (!n || v[n] != '.')
		return 0;
	m = strspn(v + n + 1, "0123456789");
	if (!m || (v[n + 1 + m] != '.' && v[n + 1 + m] != '\0'))
		return 0;
	return n + 1 + m;
}

bool version_same_series(const char *a, const char *b)
{
	size_t n = series_len(a);

	return n && n == series_len(b) && !strncmp(a, b, n);
}

bool version_report_module(FILE *out, const char *mod)
{
	fprintf(out, "kernel: ringsteer module %s\n", mod ? mod : "(no version)");
	if (mod && version_same_series(RINGSTEER_VERSION, mod))
		return false;
	fflush(out);
	fprintf(stderr, "ringctl: warning: ringctl is %s, the loaded module %s: %s\n",
		RINGSTEER_VERSION, mod ? mod : "has no version (built before 0.9)",
		"use both of one release (after an upgrade: rmmod ringsteer; modprobe ringsteer)");
	return true;
}

/* The module's release into BUF: 0, -ENOENT (not loaded) or -ENODATA (no version). */
static int module_version(char *buf, size_t len)
{
	FILE *f = fopen(SYSFS_MODULE "/version", "r");

	if (!f)
		return access(SYSFS_MODULE, F_OK) ? -ENOENT : -ENODATA;
	if (!fgets(buf, len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf[0] ? 0 : -ENODATA;
}

int cmd_version(int argc, char **argv)
{
	char mod[64];
	struct nl_conn nl;
	int err;

	if (argc > 1)
		return cli_error("version: unexpected argument '%s'", argv[1]);
	printf("ringctl %s\n", RINGSTEER_VERSION);
	/* Asking netlink for the family would load an installed module. */
	err = module_version(mod, sizeof(mod));
	if (err == -ENOENT) {
		printf("kernel: ringsteer module not loaded\n");
		return 0;
	}
	version_report_module(stdout, err ? NULL : mod);
	err = nl_open(&nl);
	if (err)
		return cli_nl_error(err, NULL, "netlink");
	printf("kernel: generic netlink family %s version %u (id %u)\n",
	       RINGSTEER_GENL_NAME, nl.family_version, nl.family_id);
	nl_close(&nl);
	return 0;
}
