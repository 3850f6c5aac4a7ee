#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps-check.sh: every program the build, the checks and the VM scenarios
# run comes from a package `make deps` installs. The programs are read from
# the scripts and the Makefile's recipes by commands.py; each must resolve
# on this machine (with the guest's PATH: the VM runs in this root) to a
# file of a package that is in .ci/deps.sh's PACKAGES, a dependency of one
# of them, or part of the base system (Priority: required, as in a minimal
# debootstrap root). Run after `make deps`; exits 1 on any program that
# fails, naming where it is called.
#
# The initramfs /init runs busybox applets, not this machine's programs:
# its commands must be applets of the busybox in PACKAGES.

set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

mapfile -t listed < <(bash .ci/deps.sh --list)
scripts=(selftests/*.sh selftests/lib/*.sh selftests/vm/*.sh .ci/*.sh .ci/run Makefile)

declare -A allowed=() why=() funcs=() where=() owner=()
for p in "${listed[@]}"; do
	allowed[$p]=1; why[$p]=listed
done
while read -r p prio; do
	[ "$prio" = required ] && [ -z "${allowed[$p]:-}" ] && { allowed[$p]=1; why[$p]=base; }
done < <(dpkg-query -W -f='${Package} ${Priority}\n')
# What installing the list brings along: Depends and Pre-Depends only, as
# deps.sh installs without recommends.
while read -r p; do
	[ -n "${allowed[$p]:-}" ] || { allowed[$p]=1; why[$p]=dependency; }
done < <(apt-cache depends --recurse --installed --no-recommends --no-suggests \
	--no-conflicts --no-breaks --no-replaces --no-enhances "${listed[@]}" 2>/dev/null |
	grep -v '^ ' | sort -u)
# Who ships each program file, from dpkg's file lists.
while IFS=: read -r list path; do
	p=${list##*/}
	p=${p%.list}
	owner[$path]=${p%%:*}
done < <(grep -E '^/(usr/)?s?bin/[^/]+$' /var/lib/dpkg/info/*.list)

# Builtins, keywords and the scripts' own functions are not programs.
while read -r b; do funcs[$b]=1; done < <(compgen -b; compgen -k)
while read -r name loc kind; do
	if [ "$kind" = function ]; then
		funcs[$name]=1
	else
		where[$name]=${where[$name]:-$loc}
	fi
done < <(python3 selftests/vm/commands.py "${scripts[@]}")

# package FILE: the package that ships FILE (merged /usr: dpkg may know it
# under /bin or /usr/bin; alternatives: follow the link to the real file).
package()
{
	local f cand
	for cand in "$1" "$(realpath "$1")"; do
		for f in "$cand" "${cand#/usr}" "/usr$cand"; do
			[ -z "${owner[$f]:-}" ] || { echo "${owner[$f]}"; return 0; }
		done
	done
	return 1
}

failed=0
checked=0
for name in $(printf '%s\n' "${!where[@]}" | sort); do
	[ -z "${funcs[$name]:-}" ] || continue
	checked=$((checked + 1))
	path=$(command -v "$name") || {
		echo "MISSING $name (${where[$name]}): not installed, so no package in the list provides it"
		failed=1
		continue
	}
	pkg=$(package "$path") || {
		echo "MISSING $name (${where[$name]}): $path belongs to no package"
		failed=1
		continue
	}
	if [ -n "${allowed[$pkg]:-}" ]; then
		echo "ok      $name: $pkg (${why[$pkg]})"
	else
		echo "MISSING $name (${where[$name]}): $pkg is not in .ci/deps.sh PACKAGES"
		failed=1
	fi
done

applets=$(busybox --list)
while read -r name loc kind; do
	[ "$kind" != function ] && [ -z "${funcs[$name]:-}" ] || continue
	checked=$((checked + 1))
	if grep -qx "$name" <<<"$applets"; then
		echo "ok      $name: busybox applet"
	else
		echo "MISSING $name ($loc): not a busybox applet (initramfs /init)"
		failed=1
	fi
done < <(python3 selftests/vm/commands.py selftests/vm/init | sort -u -k1,1)

echo "$checked programs checked"
exit $failed
