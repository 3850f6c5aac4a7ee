#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers for the packaging checks in selftests/pkg/, which run on the host
# as part of `make check`. They never install anything outside a temporary
# directory and never load a module.

pass()
{
	echo "ok: $*"
}

die()
{
	echo "FAIL: $*" >&2
	exit 1
}

# The version every packaging file must carry, from ringctl's source.
ringsteer_version()
{
	sed -n 's/^#define RINGCTL_VERSION "\(.*\)"$/\1/p' userspace/lib/cli.h
}
