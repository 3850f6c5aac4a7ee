#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The steps of deb-root.sh (make check-deb), sourced by it: it sets $repo,
# $root, $out and $kver and defines in_root and apt_root.

# shellcheck source=selftests/pkg/lib.sh
. "$repo/selftests/pkg/lib.sh"

# release_before R: a release below R, from another MAJOR.MINOR when R
# has a minor to go down from (0.9.0: 0.8.99).
release_before()
{
	local a b c
	IFS=. read -r a b c <<<"$1"
	c=${c:-0}
	if [ "$b" -gt 0 ]; then
		echo "$a.$((b - 1)).99"
	elif [ "$c" -gt 0 ]; then
		echo "$a.$b.$((c - 1))"
	else
		echo "$((a - 1)).99.99"
	fi
}

# root_kernel: the newest kernel of the root that has its headers.
root_kernel()
{
	local k found=
	for k in $(ls "$root/lib/modules" | sort -V); do
		[ -e "$root/boot/vmlinuz-$k" ] && [ -e "$root/lib/modules/$k/build/Makefile" ] && found=$k
	done
	[ -n "$found" ] && echo "$found"
}

# package_deps DEB...: their Depends and Recommends, but those on each
# other, as one apt relation list.
package_deps()
{
	local deb
	for deb in "$@"; do
		dpkg-deb -f "$deb" Depends Recommends | sed 's/^[A-Za-z-]*: //'
	done | tr ',' '\n' | sed 's/^ *//; s/ *$//' | grep -v '^ringsteer' | grep . | sort -u |
		paste -sd, | sed 's/,/, /g'
}

# expect_built_for_root DIR...: the packages in each DIR were built
# against the root's release: the glibc their .buildinfo names is the
# root's (make check-deb DIST=trixie on a Debian 12 host must not test
# Debian 12's packages in a Debian 13 root).
expect_built_for_root()
{
	local dir built have
	have=$(in_root dpkg-query -W -f='${Version}' libc6) || die "no libc6 in the root"
	have=${have%%-*}
	for dir in "$@"; do
		built=$(sed -n 's/^ libc6-dev (= \([^-]*\)-.*/\1/p' "$dir"/*.buildinfo)
		[ "$built" = "$have" ] ||
			die "$(basename "$dir")/*.deb were built with glibc '$built', the root has $have"
	done
	pass "the packages were built against the root's glibc $have"
}

# snapshot: every file of the root (path, type, mode, owner) and the
# checksum of /etc's, but what dpkg's and apt's records, logs, caches and
# the virtual file systems hold (piuparts leaves the same out).
snapshot()
{
	(cd "$root" && find . -xdev \( -path ./proc -o -path ./sys -o -path ./dev -o -path ./run \
		-o -path ./tmp -o -path ./var/tmp -o -path ./var/log -o -path ./var/cache/apt \
		-o -path ./var/lib/apt -o -path ./var/lib/dpkg -o -path ./var/cache/man \
		-o -path ./root/debs \) -prune -o -printf '%p %y %m %u %g\n'
	 find ./etc -xdev -type f -exec md5sum {} +) | LC_ALL=C sort
}

# install_debs WHICH RELEASE: apt install ./ringsteer-dkms_R.deb
# ./ringsteer_R.deb, which must bring no other package.
install_debs()
{
	local debs extra
	debs=("./debs/ringsteer-dkms_$2_all.deb" "./debs/ringsteer_$2_$(dpkg --print-architecture).deb")
	extra=$(in_root sh -c 'cd /root && apt-get -s install "$@"' sh "${debs[@]}" |
		awk '$1 == "Inst" && $2 !~ /^ringsteer(-dkms)?$/ { print $2 }')
	[ -z "$extra" ] || die "apt install of $2 brings more than the dependencies installed: $extra"
	in_root sh -c 'cd /root && apt install -y -o Dpkg::Use-Pty=0 "$@"' sh "${debs[@]}" \
		>"$out/install-$1.log" 2>&1 ||
		{ tail -n 30 "$out/install-$1.log" >&2; die "apt install $2 (log: $out/install-$1.log)"; }
	pass "apt install ./ringsteer-dkms_$2_all.deb ./ringsteer_$2_*.deb"
}

# expect_installed RELEASE: both packages at RELEASE, the module DKMS built
# for the root's kernel, the units there and none enabled, ringctl runs.
expect_installed()
{
	local v=$1 ko st units
	st=$(in_root dpkg-query -W -f='${Package} ${Version} ${db:Status-Abbrev}\n' ringsteer ringsteer-dkms)
	[ "$st" = "ringsteer $v ii 
ringsteer-dkms $v ii " ] || die "dpkg says: $st"
	ko=$(compgen -G "$root/lib/modules/$kver/updates/dkms/ringsteer.ko*") ||
		die "no ringsteer.ko under /lib/modules/$kver/updates/dkms"
	[ "$(modinfo -F version "$ko")" = "$v" ] || die "$ko is version $(modinfo -F version "$ko")"
	[ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$kver" ] || die "$ko: vermagic"
	in_root dkms status -m ringsteer | tee "$out/dkms-$v" | grep -q "^ringsteer/$v, $kver, [^:]*: installed" ||
		die "dkms status: $(cat "$out/dkms-$v")"
	pass "DKMS built and installed ringsteer $v for $kver ($(basename "$ko"))"
	units=$(in_root dpkg -L ringsteer | grep -c '/systemd/system/ringsteer.*\.service$')
	[ "$units" = 3 ] || die "$units units in the package, want 3"
	[ -z "$(find "$root/etc/systemd" -name 'ringsteer*' 2>/dev/null)" ] ||
		die "a unit is enabled: $(find "$root/etc/systemd" -name 'ringsteer*')"
	[ "$(stat -c %a "$root/etc/ringsteer")" = 700 ] || die "/etc/ringsteer is not 0700"
	in_root ringctl --version >"$out/version-$v" 2>&1 || die "ringctl --version failed"
	grep -qx "ringctl $v" "$out/version-$v" || die "ringctl --version: $(cat "$out/version-$v")"
	pass "3 units installed, none enabled; /etc/ringsteer 0700; ringctl --version says $v"
}

expect_removed()
{
	! compgen -G "$root/lib/modules/$kver/updates/dkms/ringsteer.ko*" >/dev/null ||
		die "apt remove left the module"
	! compgen -G "$root/usr/src/ringsteer-*" >/dev/null || die "apt remove left /usr/src/ringsteer-*"
	[ ! -e "$root/var/lib/dkms/ringsteer" ] || die "apt remove left the DKMS tree"
	[ ! -e "$root/usr/sbin/ringctl" ] || die "apt remove left ringctl"
	pass "apt remove: no module, no DKMS tree, no source, no ringctl"
}

# The module signing key dkms made at its first build is dkms's.
expect_purged()
{
	local st
	st=$(in_root dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' ringsteer ringsteer-dkms 2>/dev/null)
	[ -z "$st" ] || die "dpkg still knows: $st"
	snapshot >"$out/files-after"
	diff "$out/files-before" "$out/files-after" |
		grep -Ev '^[<>] \./var/lib/dkms/mok\.(key|pub) f ' | grep '^[<>]' >"$out/files-diff"
	if [ -s "$out/files-diff" ]; then
		cat "$out/files-diff"
		die "purge: the root differs from before the install (above: < before, > after)"
	fi
	pass "apt purge: every file of the root as before the install ($(wc -l <"$out/files-after") noted)"
}
