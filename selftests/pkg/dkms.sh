#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms.sh KVER...: `make dkms-install` has dkms add, build, sign and install
# the module for each kernel, as Debian's dkms does on a kernel upgrade, and
# dkms removes it again. Everything dkms writes goes under one temporary
# directory: its tree (--dkmstree), the source (--sourcetree), the install
# root (--installtree, no depmod) and the signing key, which dkms would
# otherwise create in /var/lib/dkms.

set -euo pipefail
cd "$(dirname "$0")/../.." || exit 1
. selftests/pkg/lib.sh

[ $# -gt 0 ] || die "usage: $0 KVER..."
version=$(ringsteer_version)
[ -n "$version" ] || die "no RINGSTEER_VERSION in kmod/uapi/ringsteer_version.h"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# openssl makes the key; Debian signs dkms modules for Secure Boot.
export mok_signing_key=$tmp/mok.key mok_certificate=$tmp/mok.pub
trees="--dkmstree $tmp/dkms --sourcetree $tmp/root/usr/src --installtree $tmp/lib --no-depmod"
mod=(-m ringsteer -v "$version")

mkdir -p "$tmp/dkms" "$tmp/lib"
# dkms 3.2 (Debian 13) looks for a kernel's headers in the install tree
# too, as KVER/build there: point it at the installed ones.
for k in "$@"; do
	mkdir -p "$tmp/lib/$k"
	ln -s "/lib/modules/$k/build" "$tmp/lib/$k/build"
done
make -s dkms-install DESTDIR="$tmp/root" DKMS="dkms $trees" DKMS_KVERS="$*" ||
	die "make dkms-install"
[ -f "$tmp/root/usr/src/ringsteer-$version/dkms.conf" ] ||
	die "no source tree at /usr/src/ringsteer-$version"
# dkms sources dkms.conf as bash, so reading it this way sees what dkms sees.
# shellcheck disable=SC1091
conf_version=$(. "$tmp/root/usr/src/ringsteer-$version/dkms.conf" && echo "$PACKAGE_VERSION")
[ "$conf_version" = "$version" ] ||
	die "installed dkms.conf PACKAGE_VERSION $conf_version, release $version"
pass "installed dkms.conf carries the release $version"

for k in "$@"; do
	# The kernel's own configuration decides whether modules are compressed.
	ko=$(compgen -G "$tmp/lib/$k/updates/dkms/ringsteer.ko*") ||
		die "$k: no ringsteer.ko under updates/dkms"
	[ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$k" ] ||
		die "$k: vermagic is '$(modinfo -F vermagic "$ko")'"
	[ "$(modinfo -F name "$ko")" = ringsteer ] || die "$k: module name"
	[ "$(modinfo -F signer "$ko")" = "DKMS module signing key" ] ||
		die "$k: not signed with the dkms key"
	pass "$k: built, signed and installed as $(basename "$ko")"
done

# shellcheck disable=SC2086 # $trees is a list of options
status=$(dkms status "${mod[@]}" $trees 2>/dev/null)
echo "$status"
for k in "$@"; do
	grep -q "^ringsteer/$version, $k, [^:]*: installed" <<<"$status" ||
		die "dkms status: not installed for $k"
done
pass "dkms status: installed for $*"
# shellcheck disable=SC2086
dkms remove "${mod[@]}" --all $trees
for k in "$@"; do
	! compgen -G "$tmp/lib/$k/updates/dkms/ringsteer.ko*" >/dev/null ||
		die "$k: module left behind by dkms remove"
done
pass "dkms remove"
