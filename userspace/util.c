// SPDX-License-Identifier: GPL-2.0
/*
 * ringctl's globals and error reporting. Kept out of ringctl.c so that
 * every other file, and the unit tests that link them, can use them.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "nl.h"
#include "ringctl.h"

bool json_output;
const char *prog = "ringctl";

int errorf(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

int nl_errorf(int err, const char *ext_msg, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s", strerror(err < 0 ? -err : err));
	if (ext_msg && *ext_msg)
		fprintf(stderr, ": %s", ext_msg);
	fputc('\n', stderr);
	return -1;
}

int rc_nl_open(struct rs_nl *nl)
{
	int err = rs_nl_open(nl);

	if (err == -ENOENT)
		return errorf("ringsteer module not loaded (modprobe ringsteer)");
	if (err)
		return nl_errorf(err, NULL, "cannot open generic netlink socket");
	return 0;
}

const char *rc_service_name(char buf[RC_SERVICE_NAME_LEN], const struct rc_service *s)
{
	char ep[RC_ENDPOINT_LEN];

	rc_endpoint_format(ep, &s->vip);
	snprintf(buf, RC_SERVICE_NAME_LEN, "%s %s", ep, rc_proto_name(s->proto));
	return buf;
}
