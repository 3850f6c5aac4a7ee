#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-guest.sh ROOT RELEASE OLDCTL: in the VM that booted ROOT's kernel
# with ROOT's modules (run.sh -r; make check-deb), the packages installed
# in ROOT at work: modprobe loads the module DKMS built there, ROOT's
# ringctl reports both releases alike, restores the packaged example
# configuration in a namespace of its own, and steers steer_tcp.sh's
# connections. OLDCTL, the ringctl of the release before, warns that the
# loaded module is another release.
#
# The VM's userland is this machine's (its root over 9p), not ROOT's, and
# ROOT may be of another release (make check-deb DIST=trixie from Debian
# 12). Debian 13's ringctl asks only for GLIBC_2.34 and would start with
# Debian 12's libraries too, but no Debian 13 machine runs it that way:
# both ringctls run with ROOT's dynamic loader and ROOT's libraries (glibc
# 2.41, libcurl4t64 there), those the packages' dependencies brought, and
# keep this machine's file system view, which steer_tcp.sh's files are in.

set -euo pipefail
cd "$(dirname "$0")/../.." || exit 1
. selftests/pkg/lib.sh

root=${1:?usage: $0 ROOT RELEASE OLDCTL}
release=${2:?usage: $0 ROOT RELEASE OLDCTL}
oldctl=${3:?usage: $0 ROOT RELEASE OLDCTL}

# root_program PROGRAM NAME: /tmp/NAME runs PROGRAM with ROOT's loader
# and libraries; prints /tmp/NAME.
root_program()
{
	local libs=$root/usr/lib/x86_64-linux-gnu
	[ -x "$libs/ld-linux-x86-64.so.2" ] || die "no dynamic loader in $libs"
	printf '#!/bin/bash\nexec %q --inhibit-cache --library-path %q %q "$@"\n' \
		"$libs/ld-linux-x86-64.so.2" "$libs" "$1" >"/tmp/$2"
	chmod 0755 "/tmp/$2"
	echo "/tmp/$2"
}
ringctl=$(root_program "$root/usr/sbin/ringctl" ringctl)
oldctl=$(root_program "$oldctl" ringctl-old)

modprobe ringsteer || die "modprobe ringsteer"
ko=$(modinfo -n ringsteer)
case $ko in
"/lib/modules/$(uname -r)/updates/dkms/ringsteer.ko"*) ;;
*) die "modprobe found $ko, not DKMS's" ;;
esac
[ "$(cat /sys/module/ringsteer/version)" = "$release" ] ||
	die "loaded module is $(cat /sys/module/ringsteer/version), want $release"
pass "modprobe loaded DKMS's ringsteer $release on $(uname -r)"

"$ringctl" version >/tmp/version.out 2>/tmp/version.err || die "ringctl version failed"
cat /tmp/version.out
grep -qx "ringctl $release" /tmp/version.out || die "not ringctl $release"
grep -qx "kernel: ringsteer module $release" /tmp/version.out || die "module release not shown"
grep -q "family ringsteer version" /tmp/version.out || die "no family line"
[ ! -s /tmp/version.err ] || die "ringctl version warned: $(cat /tmp/version.err)"
pass "ringctl version: both $release, no warning"

"$oldctl" version >/tmp/old.out 2>/tmp/old.err || die "the old ringctl's version failed"
cat /tmp/old.out /tmp/old.err
grep -q "warning: ringctl is .*, the loaded module $release" /tmp/old.err ||
	die "the ringctl of the release before does not warn about module $release"
pass "the release before's ringctl warns: $(cat /tmp/old.err)"

# The example as an operator would start from it (it has no key line).
example=$root/usr/share/doc/ringsteer/examples/ringsteer.conf
ip netns add pkgex
"$ringctl" health check "$root/usr/share/doc/ringsteer/examples/health.conf" ||
	die "the packaged health.conf example does not check"
ip netns exec pkgex "$ringctl" restore "$example" || die "restore of the packaged example"
ip netns exec pkgex "$ringctl" save >/tmp/example.saved
[ "$(grep -c '^service ' /tmp/example.saved)" = 3 ] &&
	[ "$(grep -c 'backend ' /tmp/example.saved)" = 7 ] ||
	die "the example restored as: $(cat /tmp/example.saved)"
ip netns del pkgex
pass "the packaged examples: health.conf checks, ringsteer.conf restores 3 services, 7 backends"

RINGCTL=$ringctl RINGSTEER_KO=$ko bash selftests/steer_tcp.sh || die "steer_tcp.sh with the packaged ringctl"
pass "steer_tcp.sh with the packaged module and ringctl"
