#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: runs inside the VM and shows what ringsteer does.

set -e
. "$(dirname "$0")/lib.sh"

step()
{
	echo
	echo "\$ $*"
	"$@"
}

echo "== ringsteer demo on $(uname -r)"
step modprobe nf_nat
step insmod "$RINGSTEER_KO"
step genl ctrl get name ringsteer
step "$RINGCTL" version
step rmmod ringsteer
