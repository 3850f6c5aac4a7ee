#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-deb.sh [--release R] OUTDIR: the Debian packages of this tree
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

set -euo pipefail
cd "$(dirname "$0")/.." || exit 1
release=
if [ "${1:-}" = --release ]; then
	release=${2:?usage: $0 --release R OUTDIR}
	shift 2
fi
out=${1:?usage: $0 [--release R] OUTDIR}
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
