#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [-k KVER [-r ROOT] | -d DEBUGDIR] [-m MODULE.ko] [-t SECONDS] [-e VAR=VALUE]... -- COMMAND...
#
# Boot Debian kernel KVER, installed here, unpacked in
# $RINGSTEER_CACHE/kernels/KVER (Debian 13's, trixie-root.sh), or
# installed in the root directory ROOT (with its modules, those DKMS
# built there too: make check-deb), or the debug
# kernel that build-debug-kernel.sh built in DEBUGDIR, under QEMU (TCG: KVM hangs on these machines) with
# the host's root mounted read-only over 9p, run COMMAND as root in the
# current directory, and exit with COMMAND's status. The run fails (exit 1)
# when the guest kernel log shows a warning, BUG, oops, RCU stall, lockdep
# report, sleep-in-atomic, refcount or list corruption, when ringsteer cannot
# be unloaded afterwards, when the guest kernel panics (exit 125, whatever
# the command had reported by then), or when the guest does not report back
# within the timeout (exit 124). The guest's console and dmesg go to a log whose path
# is printed on failure.

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
kver=
label=
# A loaded host can starve the TCG guest's timer check and panic the boot
# ("IO-APIC + timer doesn't work"): Debian's kernels skip the check.
append=no_timer_check
# A late write into freed memory shows where it happens, not as a crash
# in some later allocation: SLUB checks free objects (poison), red zones
# and its own lists on every free and allocation, freed pages are
# poisoned, and where the kernel has KFENCE (6.12) it samples every 10 ms.
# Without U: recording every allocation's and free's stack trace took over
# half the LB's CPU time in a profile, and the suite's time is what keeps
# make check within CI's 90 minutes; it detects nothing the others miss,
# it only names the culprit's stacks in the report, which the debug
# kernel's run (U and KASAN) or RINGSTEER_SLAB_DEBUG=stacks gives.
# A benchmark measures the kernel as shipped: RINGSTEER_SLAB_DEBUG=0
# leaves these out.
case ${RINGSTEER_SLAB_DEBUG:-1} in
0) ;;
stacks) append+=" slub_debug=FZPU page_poison=1 kfence.sample_interval=10" ;;
*) append+=" slub_debug=FZP page_poison=1 kfence.sample_interval=10" ;;
esac
debugdir=
# The root of the kernel's /lib/modules, when not this host's.
modbase=
module=
timeout=900
envs=()
# A root directory whose installed kernel and modules the guest gets.
kroot=

usage()
{
	sed -n 's/^# \{0,1\}//; 3,16p' "$0" >&2
	exit 2
}

while getopts "k:r:d:m:t:e:h" opt; do
	case "$opt" in
	k) kver=$OPTARG ;;
	r) kroot=$OPTARG ;;
	d) debugdir=$OPTARG ;;
	m) module=$OPTARG ;;
	t) timeout=$OPTARG ;;
	e) envs+=("$OPTARG") ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || usage

if [ -n "$debugdir" ]; then
	kver=$(cat "$debugdir/kernelrelease") || { echo "run.sh: no debug kernel in $debugdir" >&2; exit 2; }
	kernel=$debugdir/bzImage
	label=debug-$kver
	envs+=("RSVM_MODDIR=$debugdir/lib/modules")
	# KASAN and lockdep make the guest several times slower.
	timeout=$((timeout * 3))
	# Every report counts, not only the first. (no_timer_check, below,
	# is left out: with it this 6.1 kernel reports a wild access in its
	# own early IRQ path under TCG, which turns lockdep off for the run.)
	append="kasan_multi_shot slub_debug=FZPU page_poison=1 kfence.sample_interval=10"
else
	if [ -z "$kver" ]; then
		kver=$(ls /lib/modules 2>/dev/null | grep -E '^6\.(1\.0-[0-9]+|12\..*)-amd64$' | sort -V | tail -n1)
		[ -n "$kver" ] || { echo "run.sh: no target kernel in /lib/modules (run 'make deps')" >&2; exit 2; }
	fi
	# "-k -m x.ko" is an empty KVER that swallowed the next option.
	case "$kver" in -*) echo "run.sh: -k needs a kernel version, got '$kver'" >&2; exit 2 ;; esac
	kernel=/boot/vmlinuz-$kver
	# A kernel this host has no package of: its unpacked image, and its
	# modules lent to the guest as the debug kernel's are.
	cached=${RINGSTEER_CACHE:-/var/cache/ringsteer}/kernels/$kver
	if [ -n "$kroot" ]; then
		cached=$kroot
		[ -e "$kroot/boot/vmlinuz-$kver" ] ||
			{ echo "run.sh: no kernel $kver installed in $kroot" >&2; exit 2; }
	fi
	if { [ -n "$kroot" ] || [ ! -e "$kernel" ]; } && [ -e "$cached/boot/vmlinuz-$kver" ]; then
		cached=$(realpath "$cached")
		kernel=$cached/boot/vmlinuz-$kver
		modbase=$cached
		envs+=("RSVM_MODDIR=$cached/lib/modules")
	fi
fi
[ -r "$kernel" ] || { echo "run.sh: no kernel $kernel (run 'make deps')" >&2; exit 2; }
[ -z "$module" ] || module=$(realpath "$module")

vmdir=$repo/build/vm
# Another root's kernel of the same release may be another build.
initrd=$vmdir/initramfs-$kver${kroot:+-$(realpath "$kroot" | sha256sum | cut -c1-8)}.cpio.gz
if [ ! -s "$initrd" ] || [ "$here/init" -nt "$initrd" ] || [ "$here/mkinitramfs.sh" -nt "$initrd" ]; then
	bash "$here/mkinitramfs.sh" "$kver" "$initrd" $modbase || exit 2
fi

mkdir -p "$vmdir/runs"
run=$(mktemp -d "$vmdir/runs/$kver.XXXXXX")
{
	printf 'export RSVM_CWD=%q\n' "$PWD"
	printf 'export RSVM_KVER=%q\n' "${label:-$kver}"
	printf 'export RINGSTEER_KO=%q\n' "$module"
	printf 'export RINGSTEER_SRC=%q\n' "$repo"
	[ -z "${RS_BINDIR:-}" ] || printf 'export RS_BINDIR=%q\n' "$RS_BINDIR"
	for e in "${envs[@]}"; do
		printf 'export %q=%q\n' "${e%%=*}" "${e#*=}"
	done
} >"$run/env"
printf '%q ' "$@" >"$run/cmd"
echo >>"$run/cmd"
: >"$run/output.log"

# timeout(1) rather than a watchdog subshell: a stray sleep would hold
# our stdout open and stall whoever reads it through a pipe.
# Both vCPUs on one TCG thread: QEMU's multi-threaded TCG is not safe
# for kernel text patched while the other vCPU runs it (the static keys
# of netfilter's hooks flip as namespaces come and go: "Oops: int3" at
# nf_hook()'s branch, doc/testing.md "The VM harness"), and for these
# scenarios it was no faster.
# RINGSTEER_TCG_THREAD=multi brings the threads back.
accel=tcg,thread=${RINGSTEER_TCG_THREAD:-single}
timeout -k 5 "$timeout" qemu-system-x86_64 -accel "$accel" -cpu max -smp 2 -m 2048 \
	-nodefaults -display none -no-reboot \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 $append rsvm.out=$run rsvm.init=$here/guest.sh rsvm.repo=$repo" \
	-virtfs local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap \
	-virtfs "local,path=$repo,mount_tag=repo,security_model=none,readonly=on,multidevs=remap" \
	-virtfs "local,path=$run,mount_tag=out,security_model=none" \
	-serial "file:$run/console.log" -serial "file:$run/output.log" \
	-device virtio-rng-pci \
	</dev/null >"$run/qemu.log" 2>&1 &
qemu=$!
# Stream the command's output while it runs.
tail -n +1 -f --pid=$qemu "$run/output.log" &
tailer=$!
wait "$qemu"
wait "$tailer" 2>/dev/null

log=$run/vm.log
{
	echo "### qemu"; cat "$run/qemu.log"
	echo "### console"; cat "$run/console.log"
	echo "### dmesg"; cat "$run/dmesg" 2>/dev/null
	echo "### kmemleak"; cat "$run/kmemleak" 2>/dev/null
	echo "### command output"; cat "$run/output.log"
} >"$log"

fail()
{
	echo "run.sh: $kver: $*" >&2
	echo "run.sh: full log: $log" >&2
}

# A panic is its own failure, whatever else the guest managed to report:
# the cases after it never ran, and the ones before it may have passed.
# The report itself goes to the output, whole (registers, stack, trace up
# to the panic line), prefixed "run.sh-console: " so that make check can
# repeat it beside its verdict: a CI log may be all there is of a crash.
if grep -qE 'Kernel panic - not syncing|PANIC: double fault' "$run/console.log"; then
	tr -d '\r' <"$run/console.log" | awk '
		!on && /PANIC:|BUG:|Oops|general protection fault|stack guard page|traps:|Kernel panic/ { on = 1 }
		on && n < 120 { print "run.sh-console: " $0; n++ }
		on && /end Kernel panic/ { exit }' >&2
	fail "guest kernel panicked"
	exit 125
fi
if [ ! -s "$run/rc" ]; then
	fail "guest did not report a result (timeout after ${timeout}s or crash)"
	exit 124
fi
rc=$(cat "$run/rc")

# Anything the kernel says that means it is broken fails the run, whatever
# the command returned. Tainting by an unsigned out-of-tree module is fine.
bad='WARNING:|BUG:|Oops|general protection fault|Kernel panic|rcu.*(stall|detected stalls)'
bad+='|INFO: task .* blocked|possible circular locking|possible recursive locking'
# lockdep's own reports, not its banner ("RCU lockdep checking is enabled").
bad+='|inconsistent lock state|suspicious RCU usage|lockdep is turned off|DEBUG_LOCKS_WARN_ON'
bad+='|sleeping function called from invalid context|using smp_processor_id\(\) in preemptible'
bad+='|scheduling while atomic|refcount_t:|list_add corruption|list_del corruption'
bad+='|UBSAN:|KASAN:|unreferenced object|double free|slab.*corrupt'
# slub_debug, page_poison and KFENCE reports ("BUG kmalloc-64 (Tainted: G):
# Poison overwritten", "pagealloc: memory corruption", "BUG: KFENCE: ...").
bad+='|BUG [A-Za-z0-9_:.-]+ \(|Poison overwritten|Redzone overwritten|Padding overwritten'
bad+='|Freepointer corrupt|Freechain corrupt|Object already free|pagealloc: (memory corruption|single bit)'
bad+='|KFENCE:'
# Only the logs this run has: grep exits 2 on a missing file, even with
# matches in the others, which would hide them.
logs=()
for f in "$run/console.log" "$run/dmesg" "$run/kmemleak"; do
	[ -e "$f" ] && logs+=("$f")
done
if grep -E "$bad" "${logs[@]}" >"$run/bad"; then
	sed 's/^/  /' "$run/bad" >&2
	fail "kernel log shows a problem"
	exit 1
fi
if [ -e "$run/unload" ]; then
	sed 's/^/  /' "$run/unload" >&2
	fail "ringsteer could not be unloaded"
	exit 1
fi
if [ "$rc" != 0 ]; then
	fail "command exited with status $rc"
	exit "$rc"
fi
[ -n "${RSVM_KEEP:-}" ] || rm -rf "$run"
exit 0
