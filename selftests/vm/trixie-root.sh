#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# trixie-root.sh [--dir | --kvers]: print the directory of a Debian 13
# (trixie) build root, making it first if it is not cached. Debian 13's
# kernels are built with gcc-14 against glibc 2.41, which a Debian 12 host
# has neither of: their module builds, sparse and dkms run chrooted in this
# root (selftests/vm/in-root.sh). The kernels are trixie's own 6.12 (the
# newest of trixie and trixie-security: a Debian 13 machine has its security
# suite from the installer on, and runs that kernel, not the point
# release's) and the newest one trixie-backports offers (7.x).
#
# The directory holds
#   root/          debootstrap --variant=minbase trixie, plus gcc-14, make,
#                  sparse, dkms and both kernels' headers (/lib/modules/KVER/build)
#   kernels/KVER/  each kernel's image packages unpacked (boot/vmlinuz-KVER,
#                  lib/modules/KVER with depmod run), for run.sh to boot
#   kvers          the two kernel releases, oldest first
#   build.log      what apt and debootstrap said
# and each kernels/KVER is linked as $RINGSTEER_CACHE/kernels/KVER, where
# selftests/vm/run.sh looks for kernels that are not installed here.
#
# The packages come from the mirrors this machine's apt sources use
# (.ci/deps.sh --mirror and --security-mirror): the repository names no
# mirror itself; a host without a security source makes a root without
# trixie-security, and says so. The cache
# (RINGSTEER_CACHE, /var/cache/ringsteer, outside the clone) is keyed by the
# hash of this script and those mirrors, so a fresh clone reuses it and a
# change to the recipe makes a new one; RS_TRIXIE_REBUILD=1 makes a new one
# anyway (a newer kernel in the archive). 2 to 17 minutes (3 measured on
# a lightly loaded 2-core machine, 17 with load 8 to 10) and 1.2 GiB.
# --dir prints the directory without making it; --kvers prints the kernel
# releases of a made root (nothing if there is none).

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache_root=${RINGSTEER_CACHE:-/var/cache/ringsteer}
export DEBIAN_FRONTEND=noninteractive

uri=$(bash "$repo/.ci/deps.sh" --mirror 2>/dev/null) || uri=
sec_uri=$(bash "$repo/.ci/deps.sh" --security-mirror 2>/dev/null) || sec_uri=
key=$( { cat "$0"; echo "$uri"; echo "$sec_uri"; } | sha256sum | cut -c1-16)
dir=$cache_root/trixie-root-$key

case "${1:-}" in
--dir) echo "$dir"; exit 0 ;;
--kvers) [ ! -e "$dir/done" ] || cat "$dir/kvers"; exit 0 ;;
"") ;;
*) sed -n 's/^# \{0,1\}//; 3,8p' "$0" >&2; exit 2 ;;
esac

if [ -e "$dir/done" ] && [ -z "${RS_TRIXIE_REBUILD:-}" ]; then
	echo "$dir"
	exit 0
fi
[ "$(id -u)" = 0 ] || { echo "trixie-root: making $dir needs root (debootstrap, chroot)" >&2; exit 1; }
[ -n "$uri" ] || { echo "trixie-root: no Debian mirror in the apt sources (.ci/deps.sh --mirror)" >&2; exit 1; }
command -v debootstrap >/dev/null || { echo "trixie-root: no debootstrap: run 'make deps'" >&2; exit 1; }
mkdir -p "$cache_root/kernels"
exec 9>"$cache_root/trixie-root.lock"
flock 9
# Another run may have made it while this one waited.
if [ -e "$dir/done" ] && [ -z "${RS_TRIXIE_REBUILD:-}" ]; then
	echo "$dir"
	exit 0
fi

tmp=$(mktemp -d "$cache_root/trixie-root-$key.XXXXXX")
chmod 0755 "$tmp"
trap 'rm -rf --one-file-system "$tmp"' EXIT
root=$tmp/root
log=$tmp/build.log
echo "trixie-root: making $dir (log $log), 2 to 17 min" >&2
start=$SECONDS

# in_root CMD...: CMD chrooted, with /proc and /dev, in a mount namespace
# of its own so that nothing stays mounted.
in_root()
{
	unshare --mount --propagation private bash -c '
		root=$1; shift
		mount -t proc proc "$root/proc" && mount --rbind /dev "$root/dev" &&
			exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
				DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 "$@"' \
		in_root "$root" "$@"
}

fail()
{
	tail -n 30 "$log" >&2
	echo "trixie-root: $* (log kept in $cache_root/trixie-root-failed.log)" >&2
	cp "$log" "$cache_root/trixie-root-failed.log"
	exit 1
}

unshare --mount --propagation private \
	debootstrap --variant=minbase trixie "$root" "$uri" >>"$log" 2>&1 ||
	fail "debootstrap failed"
# Stable, its point-release updates, security and backports, as a Debian
# 13 machine that took a backports kernel has them.
rm -f "$root/etc/apt/sources.list"
cat >"$root/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $uri
Suites: trixie trixie-updates trixie-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
if [ -n "$sec_uri" ]; then
	cat >>"$root/etc/apt/sources.list.d/debian.sources" <<EOF

Types: deb
URIs: $sec_uri
Suites: trixie-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
else
	echo "trixie-root: no security source on this host: the root has no trixie-security" >&2
fi
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
in_root apt-get update -qq >>"$log" 2>&1 || fail "apt-get update failed"

# newest_kernel SUITE: the kernel release the suite's linux-image-amd64
# points at (its versioned image package, less the prefix).
newest_kernel()
{
	in_root apt-cache show "linux-image-amd64/$1" 2>>"$log" | sed -n 's/^Depends: //p' |
		grep -o 'linux-image-[0-9][^ ,]*-amd64' | sed 's/^linux-image-//' | sort -V | tail -n1
}
k_stable=$( { newest_kernel trixie; [ -z "$sec_uri" ] || newest_kernel trixie-security; } |
	sort -V | tail -n1)
k_bpo=$(newest_kernel trixie-backports)
case "$k_stable" in 6.12.*) ;; *) fail "trixie's kernel is '$k_stable', not a 6.12" ;; esac
[ -n "$k_bpo" ] || fail "trixie-backports has no kernel"
kvers=("$k_stable" "$k_bpo")
echo "trixie-root: kernels ${kvers[*]}" >&2

# dkms for make dkms-check on these kernels; openssl for its signing key.
in_root apt-get install -y -qq --no-install-recommends \
	gcc-14 make sparse dkms openssl kmod \
	"linux-headers-$k_stable" "linux-headers-$k_bpo/trixie-backports" >>"$log" 2>&1 ||
	fail "apt-get install failed"

# 7.x's headers use __typeof_unqual__ under sparse too, which sparse parses
# from 0.6.5 on; trixie's is 0.6.4 (it errs in every file) and has no
# backport. sid's sparse binary checks the 7.x builds: unpacked, not
# installed (it needs only libc; its package pulls in gcc-16 for cgcc), as
# /usr/local/bin/sparse-sid. apt reads sid's list from a directory of
# its own, so that the root's apt state stays trixie's; sid's Release is
# valid a week, so a mirror's copy may have expired: its signature is
# checked, its age not.
in_root sh -c 'u=$1 f=/tmp/sid
	mkdir -p $f/lists/partial $f/archives/partial $f/dl &&
	echo "deb $u sid main" >$f/sources.list &&
	set -- -o Dir::Etc::sourcelist=$f/sources.list -o Dir::Etc::sourceparts=$f/none \
		-o Dir::State::lists=$f/lists -o Dir::Cache=$f -o Acquire::Check-Valid-Until=false &&
	apt-get "$@" update -qq && cd $f/dl && apt-get "$@" download sparse &&
	dpkg-deb -x sparse_*.deb x && install -m 0755 x/usr/bin/sparse /usr/local/bin/sparse-sid &&
	rm -rf $f' sh "$uri" >>"$log" 2>&1 || fail "cannot unpack sid's sparse"

# image_packages KVER: the image package and the packages of the same
# release it depends on (7.x splits the image into -binary, -modules, ...).
image_packages()
{
	local todo=("linux-image-$1") seen=" " p dep
	while [ ${#todo[@]} -gt 0 ]; do
		p=${todo[0]}
		todo=("${todo[@]:1}")
		case "$seen" in *" $p "*) continue ;; esac
		seen+="$p "
		echo "$p"
		for dep in $(in_root apt-cache depends --no-recommends --no-suggests "$p" 2>>"$log" |
				sed -n 's/^ *\(Pre\)\{0,1\}Depends: \([^ <]*\)$/\2/p'); do
			case "$dep" in *"$1"*) todo+=("$dep") ;; esac
		done
	done
}

# The images are unpacked, not installed: nothing boots the root itself.
mkdir -p "$root/debs"
for k in "${kvers[@]}"; do
	mapfile -t pkgs < <(image_packages "$k")
	(cd "$root/debs" && rm -f ./*.deb && in_root sh -c "cd /debs && apt-get download -q ${pkgs[*]}") \
		>>"$log" 2>&1 || fail "cannot download ${pkgs[*]}"
	kd=$tmp/kernels/$k
	mkdir -p "$kd"
	for deb in "$root"/debs/*.deb; do
		dpkg-deb -x "$deb" "$kd" || fail "cannot unpack $deb"
	done
	# Packages of a merged /usr put modules in usr/lib: one layout for run.sh.
	if [ -d "$kd/usr/lib/modules/$k" ]; then
		mkdir -p "$kd/lib/modules"
		cp -a "$kd/usr/lib/modules/$k" "$kd/lib/modules/" && rm -rf "$kd/usr/lib/modules/$k"
	fi
	if [ ! -e "$kd/boot/vmlinuz-$k" ] && [ -e "$kd/lib/modules/$k/vmlinuz" ]; then
		mkdir -p "$kd/boot"
		cp "$kd/lib/modules/$k/vmlinuz" "$kd/boot/vmlinuz-$k"
	fi
	[ -s "$kd/boot/vmlinuz-$k" ] || fail "no vmlinuz in the image packages of $k"
	depmod -b "$kd" "$k" >>"$log" 2>&1 || fail "depmod for $k"
	[ -d "$root/lib/modules/$k/build/" ] || fail "no headers at /lib/modules/$k/build in the root"
done
rm -rf "$root/debs"
printf '%s\n' "${kvers[@]}" >"$tmp/kvers"
in_root apt-get clean >>"$log" 2>&1 || true

rm -rf --one-file-system "$dir"
mv "$tmp" "$dir"
trap - EXIT
for k in "${kvers[@]}"; do
	ln -sfn "$dir/kernels/$k" "$cache_root/kernels/$k"
done
touch "$dir/done"
echo "trixie-root: made in $(( (SECONDS - start) / 60 )) min" >&2
echo "$dir"
