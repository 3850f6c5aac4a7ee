#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# empty-kernel-check.sh: the Makefile's kernel targets on a machine where
# `make deps` has never run. Prints KTAP.
#
# What it simulates: make reading the Makefile while /lib/modules and /boot
# hold no kernel, which is what `make demo` and `make check` see on a new
# machine before their deps step installs one. The script re-runs itself in
# a private mount namespace with empty read-only tmpfs over both; the host's
# own mounts are untouched. Every target must then stop with a one-line
# hint, and none may go on with an empty kernel name ("/boot/vmlinuz--m",
# "-k ''", "/lib/modules//build", check.sh with no kernel).
#
# What it cannot: it runs no deps step (nothing is downloaded or
# installed), and every other package (compiler, QEMU) is still there. So it
# shows that the kernel list is read again after deps (the demo and check
# goals hand over to a second make, which stops here for lack of a kernel,
# after the deps line), not that deps then installs one: the first run on a
# really fresh root is the proof of that. Needs root.
#
# Then the choice among kernels that are installed: in a made-up modules
# directory (MODULES_DIR) holding a 6.1 and a 6.12 with their build trees
# and a newer 6.12 without (as a host that keeps Debian 13's kernel beside
# Debian 12's has), the targets are those with a build tree, the newer one
# is named with the package that would make it one, and asking for it
# stops with that package named before anything is built.
#
# Where no private mount namespace can be made (a chroot whose root is not
# a mount point, a container without CAP_SYS_ADMIN), the make cases run with
# KVER= TEST_KVERS= on the command line instead, which is what make's
# lookup yields with no kernel installed, and run.sh's own lookup is not
# tried: a weaker stand-in, said so in the output.

set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
# Run from `make check`: KVER=... given to it must not reach these makes.
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL

if [ "${1:-}" != --inside ]; then
	echo "TAP version 13"
	# Outside the namespace: the positive twin, with the real directories.
	out=$(make -n check 2>&1)
	echo "$out" | sed 's/^/# /'
	kvers=$(ls /lib/modules | grep -E '^6\.(1\.0-[0-9]+|12\.[0-9]+\+[a-z0-9]+)-amd64$' | sort -V |
		while read -r k; do [ -e "/lib/modules/$k/build/Makefile" ] && echo "$k"; done | tr '\n' ' ')
	if [ -n "$kvers" ] && grep -qxF "bash selftests/vm/check.sh ${kvers% }" <<<"$out"; then
		pos="ok 1 with kernels installed, make -n check runs check.sh on ${kvers% }"
	else
		pos="not ok 1 with kernels installed, make -n check runs check.sh on the installed kernels"
	fi
	if unshare -m --propagation private true 2>/dev/null; then
		exec unshare -m --propagation private bash "$0" --inside "$pos" hide
	fi
	exec bash "$0" --inside "$pos" override
fi
if [ "$3" = hide ]; then
	echo "1..18"
	mount -t tmpfs -o ro,mode=0755 empty /lib/modules || { echo "Bail out! cannot mount over /lib/modules"; exit 1; }
	mount -t tmpfs -o ro,mode=0755 empty /boot || { echo "Bail out! cannot mount over /boot"; exit 1; }
	novars=()
else
	echo "1..17"
	echo "# no private mount namespace here: KVER= TEST_KVERS= on make's command line stand for empty /lib/modules"
	novars=(KVER= TEST_KVERS=)
fi
echo "$2"

n=1
failed=0
out=$(mktemp)
destdir=$(mktemp -d)
trap 'rm -rf "$out" "$destdir"' EXIT

result()
{
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2 # $3"
		failed=$((failed + 1))
	fi
}

# An empty kernel name that was passed on as if it were one.
empty_name()
{
	grep -nE 'vmlinuz-(-|$|[[:space:]])|-k +(-|$|'"''"')|/lib/modules//|kernel//|selftests/vm/check\.sh *$' "$out"
}

# expect_hint NAME LINES MAKE-ARGS...: make fails, says "make deps" and
# uses no empty kernel name; with LINES, prints exactly that many lines.
expect_hint()
{
	local name=$1 lines=$2 rc
	shift 2
	make "$@" "${novars[@]}" >"$out" 2>&1
	rc=$?
	sed 's/^/# /' "$out"
	if [ $rc -eq 0 ]; then
		result fail "$name" "exit status 0"
	elif empty_name >/dev/null; then
		result fail "$name" "an empty kernel name was passed on: $(empty_name | head -n1)"
	elif ! grep -q "run 'make deps'" "$out"; then
		result fail "$name" "no hint to run 'make deps'"
	elif [ -n "$lines" ] && [ "$(wc -l <"$out")" -ne "$lines" ]; then
		result fail "$name" "$(wc -l <"$out") lines of output, not $lines"
	else
		result ok "$name"
	fi
}

# demo and check start with deps: its command comes first, then the hint
# from the make that resolves the kernel after it.
deps_first()
{
	local name=$1
	shift
	make "$@" "${novars[@]}" >"$out" 2>&1
	sed 's/^/# /' "$out"
	if [ "$(grep -n -m1 -F 'bash .ci/deps.sh' "$out" | cut -d: -f1)" \
		-lt "$(grep -n -m1 "run 'make deps'" "$out" | cut -d: -f1 || echo 0)" ] 2>/dev/null; then
		result ok "$name"
	else
		result fail "$name" "no deps command before the hint"
	fi
}

expect_hint "make -n demo stops with a hint" "" -n demo
deps_first "make -n demo resolves the kernel after deps" -n demo
expect_hint "make -n check stops with a hint" "" -n check
deps_first "make -n check resolves the kernels after deps" -n check
expect_hint "make stops with a one-line hint" 1
expect_hint "make module stops with a one-line hint" 1 module
expect_hint "make modules-all stops with a one-line hint" 1 modules-all
expect_hint "make sparse stops with a one-line hint" 1 sparse
expect_hint "make vm-test stops with a one-line hint" 1 vm-test
expect_hint "make install stops with a one-line hint" 1 install DESTDIR="$destdir"
if [ -z "$(ls -A "$destdir")" ]; then
	result ok "make install wrote nothing under DESTDIR"
else
	result fail "make install wrote nothing under DESTDIR" "$(find "$destdir" | head -n3 | tr '\n' ' ')"
fi

# run.sh on its own: no kernel to pick, and an empty -k that took the
# next option as its value.
runs=("-k -m x.ko")
[ "$3" != hide ] || runs+=("")
for args in "${runs[@]}"; do
	# shellcheck disable=SC2086
	bash selftests/vm/run.sh $args -- true >"$out" 2>&1
	rc=$?
	sed 's/^/# /' "$out"
	name="run.sh ${args:+$args }-- true stops with a one-line hint"
	if [ $rc -ne 0 ] && [ "$(wc -l <"$out")" -eq 1 ] && ! grep -q vmlinuz "$out"; then
		result ok "$name"
	else
		result fail "$name" "exit status $rc"
	fi
done
# A made-up modules directory: 6.1 and 6.12 with build trees, a newer 6.12
# without. (Its name sorts after any real Debian 13 kernel's, so that a
# Debian 13 root made by trixie-root.sh never claims it.)
mods=$(mktemp -d)
trap 'rm -rf "$out" "$destdir" "$mods"' EXIT
new612=6.12.9999+deb13-amd64
for k in 6.1.0-57-amd64 6.12.95+deb12-amd64; do
	mkdir -p "$mods/all/$k/build" && touch "$mods/all/$k/build/Makefile"
done
mkdir -p "$mods/all/$new612/kernel" "$mods/nohdrs/$new612/kernel"

make -n check MODULES_DIR="$mods/all" >"$out" 2>&1
sed 's/^/# /' "$out"
name="a newer 6.12 without its build tree: the targets are those with one, the newer named with its package"
if ! grep -qxF "bash selftests/vm/check.sh 6.1.0-57-amd64 6.12.95+deb12-amd64" "$out"; then
	result fail "$name" "check.sh not run on 6.1.0-57-amd64 6.12.95+deb12-amd64"
elif ! grep -q "$new612 in .* has no build tree: install linux-headers-$new612" "$out"; then
	result fail "$name" "no line naming linux-headers-$new612"
else
	result ok "$name"
fi

mkdir -p "$mods/build"
make modules-all MODULES_DIR="$mods/all" TEST_KVERS="$new612" BUILD="$mods/build" >"$out" 2>&1
rc=$?
sed 's/^/# /' "$out"
name="make modules-all for a kernel without its build tree stops, naming its package"
if [ $rc -eq 0 ]; then
	result fail "$name" "exit status 0"
elif ! grep -q "install linux-headers-$new612" "$out" || grep -q 'Directory nonexistent' "$out"; then
	result fail "$name" "no linux-headers-$new612 hint, or a build was tried"
elif [ -n "$(ls -A "$mods/build")" ]; then
	result fail "$name" "something was built in BUILD: $(ls "$mods/build")"
else
	result ok "$name"
fi

expect_package()
{
	local name=$1 rc
	shift
	make "$@" >"$out" 2>&1
	rc=$?
	sed 's/^/# /' "$out"
	if [ $rc -eq 0 ]; then
		result fail "$name" "exit status 0"
	elif [ "$(wc -l <"$out")" -ne 1 ] || ! grep -q "install linux-headers-$new612" "$out"; then
		result fail "$name" "not one line naming linux-headers-$new612"
	else
		result ok "$name"
	fi
}
expect_package "make module with KVER= a kernel without its build tree stops, naming its package" \
	-n module MODULES_DIR="$mods/all" KVER="$new612"
expect_package "make with only kernels without build trees stops, naming the package" \
	-n module MODULES_DIR="$mods/nohdrs"

[ "${2#ok }" != "$2" ] || failed=$((failed + 1))
[ $failed -eq 0 ]
