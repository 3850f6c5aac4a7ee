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

# The release every packaging file must carry, from its one place.
ringsteer_version()
{
	sed -n 's/^#define RINGSTEER_VERSION "\(.*\)"$/\1/p' kmod/uapi/ringsteer_version.h
}
