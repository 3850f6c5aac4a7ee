#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-deb.sh [--release R] [--dist D] OUTDIR: the Debian packages of this tree
# (make deb): its files as git sees them (tracked ones, with their changes
# not yet committed, and new ones .gitignore does not name) are copied to
# OUTDIR/src, where `dpkg-buildpackage -us -uc -b`
# builds ringsteer-dkms and ringsteer; the .debs, .buildinfo and .changes
# land in OUTDIR, nothing outside it. lintian then checks the .changes and
# fails on any error or warning (debian/*.lintian-overrides give the
# reasons for the tags left).
#
# --release R builds the same tree as release R: the copy's
# kmod/uapi/ringsteer_version.h, its changelog's first entry and NEWS say R
# (make check-deb builds a lower one to upgrade from).
#
# --dist D builds them for Debian release D (bookworm or trixie; make deb
# DIST=D). For this machine's own release they are built here, as above;
# for another, in a new minimal root of D (the fresh-root checks' cached
# debootstrap plus debian/control's Build-Depends, build-essential and
# lintian, selftests/vm/fresh-lib.sh), since ringctl links against its
# release's libraries (Debian 13's libcurl4t64, which Debian 12 has not)
# and the units go where its release's systemd says: dpkg-buildpackage
# and lintian, D's own, run chrooted there, and only OUTDIR's results are
# kept. That needs root and the lock of the fresh-root cache
# (RS_FRESH_CACHE, /var/cache/ringsteer-fresh), unless the caller holds
# it (RS_FRESH_LOCKED=1: make check-deb).

set -euo pipefail
cd "$(dirname "$0")/.." || exit 1
usage="usage: $0 [--release R] [--dist D] OUTDIR"
release=
dist=
while [ $# -gt 1 ]; do
	case $1 in
	--release) release=${2:?$usage}; shift 2 ;;
	--dist) dist=${2:?$usage}; shift 2 ;;
	*) echo "$usage" >&2; exit 2 ;;
	esac
done
out=${1:?$usage}
host_dist=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ "$dist" != "$host_dist" ] || dist=
[ -z "$dist" ] || [ "$dist" = bookworm ] || [ "$dist" = trixie ] ||
	{ echo "build-deb: --dist: bookworm or trixie, not '$dist'" >&2; exit 2; }
case $out in /*) ;; *) out=$PWD/$out ;; esac

rm -rf "$out"
mkdir -p "$out/src"
# A tracked file deleted here is left out, as a commit would leave it.
if [ -d .git ] || [ -f .git ]; then
	git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
		[ ! -e "$f" ] || printf '%s\0' "$f"
	done | xargs -0 cp -p --parents -t "$out/src"
else
	tar -c --exclude=./build . | tar -x -C "$out/src"
fi
if [ -n "$release" ]; then
	sed -i "s/^#define RINGSTEER_VERSION \".*\"$/#define RINGSTEER_VERSION \"$release\"/" \
		"$out/src/kmod/uapi/ringsteer_version.h"
	sed -i "1s/(.*)/($release)/" "$out/src/debian/changelog"
	sed -i "1s/^ringsteer [^ ]* /ringsteer $release /" "$out/src/NEWS"
fi

if [ -z "$dist" ]; then
	echo "build-deb: dpkg-buildpackage -us -uc -b in $out/src (log: $out/build.log)"
	if ! (cd "$out/src" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1; then
		tail -n 30 "$out/build.log" >&2
		echo "build-deb: dpkg-buildpackage failed (log: $out/build.log)" >&2
		exit 1
	fi
	ls "$out"/*.deb
	changes=$(ls "$out"/*.changes)
	echo "build-deb: lintian $(basename "$changes")"
	lintian --fail-on error,warning --display-info --info "$changes"
	echo "build-deb: lintian: no error, no warning"
	exit 0
fi

# Another release's: in a new root of it, OUTDIR's copy at /build/src.
repo=$PWD
cache=${RS_FRESH_CACHE:-/var/cache/ringsteer-fresh}
say() { echo "build-deb: $*"; }
die() { echo "build-deb: $*" >&2; exit 1; }
# shellcheck source=selftests/vm/fresh-lib.sh
. "$repo/selftests/vm/fresh-lib.sh"
[ "$(id -u)" = 0 ] || die "building for $dist on $host_dist needs root (debootstrap, chroot)"
command -v debootstrap >/dev/null || die "no debootstrap: run 'make deps'"
mkdir -p "$cache"
if [ -z "${RS_FRESH_LOCKED:-}" ]; then
	exec 9>"$cache/lock"
	flock -n 9 || die "another run holds $cache/lock"
fi
base=$(fresh_build_base "$dist" "$out/build-root.log") || exit 1
root=$(fresh_root "$dist" "$base") || exit 1
trap 'fresh_remove "$root"' EXIT
mkdir "$root/build"
mv "$out/src" "$root/build/src"
say "dpkg-buildpackage -us -uc -b in a new $dist root (log: $out/build.log)"
if ! fresh_chroot "$root" sh -c 'cd /build/src && dpkg-buildpackage -us -uc -b' >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	die "dpkg-buildpackage failed in the $dist root (log: $out/build.log)"
fi
mv "$root/build/src" "$out/src"
cp "$root"/build/*.deb "$root"/build/*.buildinfo "$root"/build/*.changes "$out/"
ls "$out"/*.deb
changes=$(basename "$(ls "$out"/*.changes)")
say "lintian $changes ($dist's)"
fresh_chroot "$root" lintian --fail-on error,warning --display-info --info "/build/$changes"
say "lintian: no error, no warning"
