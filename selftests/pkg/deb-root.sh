#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deb-root.sh [--dist trixie] [--reuse-debs] (make check-deb): the Debian
# packages of this tree, used as an operator uses them, in a new minimal
# Debian 12 root (the fresh-root checks' cached debootstrap,
# selftests/vm/fresh-lib.sh), or Debian 13 with --dist trixie (make
# check-deb DIST=trixie):
#
#  1. builds the packages for that release (make deb's dist/build-deb.sh
#     --dist, lintian included: here for this machine's own release, in a
#     new root of the other one) and, from the same tree, those of a lower
#     release to upgrade from;
#  2. installs the root's kernel and headers (linux-image-amd64,
#     linux-headers-amd64) and the packages' dependencies, and notes every
#     file of the root (path, type, mode, owner; the checksum of those in
#     /etc), as piuparts does;
#  3. `apt install ./ringsteer-dkms_OLD.deb ./ringsteer_OLD.deb`, which must
#     bring nothing else: DKMS builds the module for the root's kernel; no
#     unit is enabled; then the same with this release's packages, an
#     upgrade: DKMS drops the old release's module and source;
#  4. boots the root's kernel in the VM (run.sh -r) with the root's modules,
#     where the packaged module is loaded by modprobe and the packaged
#     ringctl restores the packaged example and steers steer_tcp.sh's
#     2,000 connections (deb-guest.sh);
#  5. `apt remove`, then `apt purge`: no module, no DKMS tree, no source,
#     no unit left, and every file of the root as noted in 2, but what
#     dpkg's and apt's own records, logs and caches hold, and the module
#     signing key dkms makes at its first build (it belongs to dkms, which
#     stays installed).
#
# Prints how long each step took; logs in build/check-deb/ (Debian 13:
# build/check-deb-trixie/). Needs root (debootstrap, chroot, mounts);
# RS_FRESH_KEEP=1 keeps the root. --reuse-debs takes the packages a run
# before built (new/ and old/ there) instead of step 1, when this tree has
# not changed since.

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${RS_FRESH_CACHE:-/var/cache/ringsteer-fresh}
dist=bookworm
root=
start_all=$(date +%s)
reuse=
while [ $# -gt 0 ]; do
	case $1 in
	--reuse-debs) reuse=1 ;;
	--dist) dist=${2:-}; shift ;;
	*) echo "usage: $0 [--dist bookworm|trixie] [--reuse-debs]" >&2; exit 2 ;;
	esac
	shift
done
case $dist in
bookworm) out=$repo/build/check-deb name="Debian 12" ;;
trixie) out=$repo/build/check-deb-$dist name="Debian 13" ;;
*) echo "check-deb: --dist: bookworm or trixie, not '$dist'" >&2; exit 2 ;;
esac

say()
{
	echo "check-deb: $*"
}

# shellcheck source=selftests/vm/fresh-lib.sh
. "$repo/selftests/vm/fresh-lib.sh"

# step NAME: the time the previous step took, and the next one's name.
step_start=
step_name=
step()
{
	local now
	now=$(date +%s)
	[ -z "$step_name" ] || say "$step_name: $(fresh_duration $((now - step_start)))"
	step_start=$now
	step_name=$1
	[ -z "$1" ] || say "==> $1"
}

# in_root COMMAND...: COMMAND chrooted in the root (fresh_chroot: /proc,
# /sys, /dev, an empty /run, no systemd, as in a build chroot).
in_root()
{
	fresh_chroot "$root" "$@"
}

# apt_root LOG ARGS...: apt-get ARGS in the root, its output in $out/LOG.log.
apt_root()
{
	local log=$out/$1.log
	shift
	in_root apt-get -y -o Dpkg::Use-Pty=0 "$@" >>"$log" 2>&1 ||
		{ tail -n 30 "$log" >&2; die "apt-get $* (log: $log)"; }
}

cleanup()
{
	[ -z "$root" ] || fresh_remove "$root"
}

# shellcheck source=selftests/pkg/deb-lib.sh
. "$here/deb-lib.sh"

[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mounts)"
command -v debootstrap >/dev/null || die "no debootstrap: run 'make deps'"
mkdir -p "$cache"
[ -n "$reuse" ] || rm -rf "$out"
mkdir -p "$out"
rm -f "$out"/*.log
exec 9>"$cache/lock"
flock -n 9 || die "another run holds $cache/lock"
# build-deb.sh builds for another release in a root of the same cache.
export RS_FRESH_LOCKED=1

step "$name packages of this tree and of the release before"
release=$(ringsteer_version)
old=$(release_before "$release")
dpkg --compare-versions "$old" lt "$release" || die "$old is not below $release"
if [ -n "$reuse" ] && compgen -G "$out/new/ringsteer_${release}_*.deb" >/dev/null &&
	compgen -G "$out/old/ringsteer_${old}_*.deb" >/dev/null; then
	pass "packages of $release and $old as a run before built them"
else
	bash "$repo/dist/build-deb.sh" --dist "$dist" "$out/new" >"$out/new.log" 2>&1 ||
		{ tail -n 30 "$out/new.log" >&2; die "make deb DIST=$dist (log: $out/new.log)"; }
	bash "$repo/dist/build-deb.sh" --dist "$dist" --release "$old" "$out/old" >"$out/old.log" 2>&1 ||
		{ tail -n 30 "$out/old.log" >&2; die "make deb DIST=$dist DEB_RELEASE=$old (log: $out/old.log)"; }
	pass "built $release and $old for $dist, both lintian clean"
fi

step "a new $name root, its kernel and the packages' dependencies"
base=$(fresh_base "$dist" "$out/debootstrap.log") || exit 1
root=$(fresh_root "$dist" "$base") || exit 1
trap cleanup EXIT
mkdir -p "$root/root/debs"
cp "$out"/new/*.deb "$out"/old/*.deb "$root/root/debs/"
apt_root apt update
apt_root apt install --no-install-recommends linux-image-amd64 linux-headers-amd64
kver=$(root_kernel) || die "no kernel with its headers in the root"
apt_root apt satisfy "$(package_deps "$out"/new/*.deb)"
expect_built_for_root "$out/new" "$out/old"
snapshot >"$out/files-before"
pass "root's kernel $kver; $(wc -l <"$out/files-before") files noted"

step "install $old"
install_debs old "$old"
expect_installed "$old"

step "upgrade to $release"
install_debs new "$release"
expect_installed "$release"
[ ! -e "$root/usr/src/ringsteer-$old" ] || die "the source of $old is left in /usr/src"
[ ! -e "$root/var/lib/dkms/ringsteer/$old" ] || die "DKMS still has $old"
pass "upgrade: DKMS dropped $old's module and source"

step "the packaged module and ringctl in the VM, on the root's $kver"
# The release before's ringctl, to see it warn about the new module.
rm -rf "$out/old-files"
dpkg-deb -x "$(compgen -G "$out/old/ringsteer_${old}_*.deb")" "$out/old-files" || die "dpkg-deb -x"
bash "$repo/selftests/vm/run.sh" -t 1800 -k "$kver" -r "$root" -- \
	bash "$here/deb-guest.sh" "$root" "$release" "$out/old-files/usr/sbin/ringctl" 2>&1 | tee "$out/vm.log"
[ "${PIPESTATUS[0]}" = 0 ] || die "the VM run failed (log: $out/vm.log)"

step "remove and purge"
apt_root remove remove ringsteer ringsteer-dkms
expect_removed
apt_root purge purge ringsteer ringsteer-dkms
expect_purged
step ""
say "passed in $(fresh_duration $(($(date +%s) - start_all)))"
