#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-debug-kernel.sh: print the directory of a debug kernel built from
# the kernel source the machine's Debian release has with
# selftests/vm/debug.config (KASAN, lockdep, PROVE_RCU, kmemleak, UBSAN,
# DEBUG_PREEMPT), building it first if it is not cached: Debian 12's
# linux-source-6.1, Debian 13's linux-source-6.12 (it has no 6.1; the
# lifetimes checked are then those of the kernel its users run). The cache
# lives outside the clone, keyed by the hash of the fragment, this script,
# the source package and its version and the compiler (the module for it is
# built with the same), so a fresh clone reuses it and any change to the
# recipe rebuilds.
#
# The directory holds bzImage, the configured build tree (build/, for
# out-of-tree modules) and lib/modules/KVER (modules.builtin, so that
# modprobe finds built-in modules in the guest).
# About 25 minutes on 2 cores; progress goes to standard error.

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache_root=${RINGSTEER_CACHE:-/var/cache/ringsteer}
# The source .ci/deps.sh installs: anything but trixie is taken as bookworm.
case "$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")" in
trixie) srcpkg=linux-source-6.12 ;;
*) srcpkg=linux-source-6.1 ;;
esac
tarball=/usr/src/$srcpkg.tar.xz

[ -r "$tarball" ] || { echo "build-debug-kernel: $tarball missing: run 'make deps'" >&2; exit 1; }
srcver=$(dpkg-query -W -f='${Version}' "$srcpkg")
key=$( { cat "$here/debug.config" "$0"; echo "$srcpkg $srcver"; gcc --version | head -n1; } |
	sha256sum | cut -c1-16)
dir=$cache_root/debug-kernel-$key

if [ -s "$dir/bzImage" ] && [ -e "$dir/done" ]; then
	echo "$dir"
	exit 0
fi

rm -rf "$dir"
mkdir -p "$dir"
tree=$dir/build
log=$dir/build.log
echo "build-debug-kernel: building into $dir (log $log), about 25 min on 2 cores" >&2
start=$SECONDS
mkdir -p "$tree"
tar -xJf "$tarball" -C "$tree" --strip-components=1
make -C "$tree" -s x86_64_defconfig >>"$log" 2>&1
(cd "$tree" && scripts/kconfig/merge_config.sh -m .config \
	kernel/configs/kvm_guest.config "$here/debug.config") >>"$log" 2>&1
make -C "$tree" -s olddefconfig >>"$log" 2>&1

# merge_config warns and goes on when a symbol does not stick; a debug
# option that silently fell away would make the whole run meaningless.
missing=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=n) sym=${line%%=*}; grep -q "^$sym=" "$tree/.config" && { echo "not off: $sym" >&2; missing=1; } ;;
	CONFIG_*=*) grep -qx "$line" "$tree/.config" || { echo "not set: $line" >&2; missing=1; } ;;
	esac
done < <(grep -E '^CONFIG_' "$here/debug.config")
[ $missing -eq 0 ] || { echo "build-debug-kernel: the fragment did not apply" >&2; exit 1; }

echo "build-debug-kernel: config done, compiling" >&2
make -C "$tree" -j"$(nproc)" >>"$log" 2>&1 || { tail -n 40 "$log" >&2; exit 1; }
make -C "$tree" -s INSTALL_MOD_PATH="$dir" modules_install >>"$log" 2>&1
cp "$tree/arch/x86/boot/bzImage" "$dir/bzImage"
make -C "$tree" -s kernelrelease >"$dir/kernelrelease"
touch "$dir/done"
echo "build-debug-kernel: built in $(( (SECONDS - start) / 60 )) min" >&2
echo "$dir"
