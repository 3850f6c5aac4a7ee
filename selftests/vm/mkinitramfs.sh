#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh KVER OUT [BASEDIR]: a busybox initramfs that loads the
# virtio and 9p modules of kernel KVER (from BASEDIR/lib/modules/KVER when
# given, for a kernel unpacked outside /lib/modules), mounts the host's root read-only over 9p and
# switch_roots into it (see init).

set -euo pipefail

kver=$1
out=$2
base=(-b "${3:-/}")
here=$(cd "$(dirname "$0")" && pwd)
# Modules the 9p root needs, dependencies first. Some are built into newer
# kernels (6.12 has virtio built in and no separate fscache); those are
# skipped, and dependencies modinfo reports are pulled in ahead of users.
wanted=(virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev virtio_pci
	netfs fscache 9pnet 9pnet_virtio 9p)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"/{bin,dev,proc,sys,newroot,mods}
cp /bin/busybox "$work/bin/busybox"
ln -s busybox "$work/bin/sh"
cp "$here/init" "$work/init"
chmod 0755 "$work/init"

declare -A seen=()
order=()
add_module()
{
	local name=$1 path dep
	[ -n "${seen[$name]:-}" ] && return 0
	seen[$name]=1
	path=$(modinfo "${base[@]}" -k "$kver" -n "$name" 2>/dev/null) || return 0
	case "$path" in /*) ;; *) return 0 ;; esac	# "(builtin)"
	for dep in $(modinfo "${base[@]}" -k "$kver" -F depends "$name" | tr ',' ' '); do
		add_module "$dep"
	done
	# busybox insmod cannot read compressed modules
	case "$path" in
	*.xz)  xz -dc "$path" >"$work/mods/$name.ko" ;;
	*.zst) zstd -qdc "$path" >"$work/mods/$name.ko" ;;
	*.gz)  gzip -dc "$path" >"$work/mods/$name.ko" ;;
	*)     cp "$path" "$work/mods/$name.ko" ;;
	esac
	order+=("$name")
}
for m in "${wanted[@]}"; do
	add_module "$m"
done
printf '%s\n' "${order[@]}" >"$work/mods/order"

mkdir -p "$(dirname "$out")"
(cd "$work" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out.$$.tmp"
mv "$out.$$.tmp" "$out"
