#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the test VM, in the host's root (read-only, over 9p). Runs the
# command the host left in the run directory, then checks the module can be
# unloaded, saves the kernel log and powers off. The host side (run.sh)
# judges the result.

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp LANG=C

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	rsvm.out=*) out=${arg#rsvm.out=} ;;
	esac
done

mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
hostname rsvm
ip link set lo up
# The guest's netns scenarios need these; the host root mount is read-only,
# so nothing here can leak back to the host.
sysctl -qw kernel.panic_on_oops=0
echo 1 >/proc/sys/kernel/sysrq

# shellcheck disable=SC1091
. "$out/env"
cd "$RSVM_CWD" || echo "rsvm: cannot cd to $RSVM_CWD"

# A kernel with no /lib/modules of its own here (the debug kernel, built
# outside Debian; Debian 13's, unpacked in the cache): lend it the
# directory its build or its unpacking made, so that modprobe finds its
# modules, built in or not.
if [ -n "${RSVM_MODDIR:-}" ]; then
	mount --bind "$RSVM_MODDIR" /lib/modules
fi
# With kmemleak, only what the command leaks counts: forget boot's.
kmemleak=/sys/kernel/debug/kmemleak
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
[ -e $kmemleak ] && echo clear >$kmemleak

# The command's output goes to the second serial port, which the host
# streams; the kernel console stays on the first.
bash "$out/cmd" </dev/null >/dev/ttyS1 2>&1
rc=$?

if grep -q '^ringsteer ' /proc/modules; then
	if ! rmmod ringsteer 2>"$out/unload"; then
		echo "rsvm: rmmod ringsteer failed" >>"$out/unload"
	else
		rm -f "$out/unload"
	fi
fi
# kmemleak reports an object only once it is a few seconds old and was
# unreferenced on two scans.
if [ -e $kmemleak ]; then
	echo scan >$kmemleak
	sleep 6
	echo scan >$kmemleak
	cat $kmemleak >"$out/kmemleak"
fi
dmesg >"$out/dmesg"
echo "$rc" >"$out/rc"
sync
# Power off, then wait with nothing left to load: the root over 9p goes
# away under this shell, and an external sleep that then cannot load its
# libraries makes init exit, which panics the kernel ("Attempted to kill
# init") and fails a run whose tests all passed. A read on a pipe this
# shell holds both ends of waits with builtins only.
exec 3<> <(:)
echo o >/proc/sysrq-trigger
while :; do
	read -rt 10 -u 3 _ || true
done
