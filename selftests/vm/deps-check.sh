#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps-check.sh: every program the build, the checks and the VM scenarios
# run comes from a package `make deps` installs. The programs are read from
# the scripts and the Makefiles' recipes by commands.py; each must resolve
# on this machine (with the guest's PATH: the VM runs in this root) to a
# file of a package that is in .ci/deps.sh's PACKAGES, a dependency of one
# of them, or part of the base system (Priority: required, as in a minimal
# debootstrap root). Run after `make deps`; exits 1 on any program that
# fails, naming where it is called.
#
# Programs that those programs start are not in the scripts: systemd-analyze
# runs man for Documentation=, dkms runs make, openssl and sign-file, kbuild
# runs pahole. So the host-side checks that run such programs (packaging,
# checkpatch, the generated code) run once more here under strace, and every
# program they start must come from a package as above; a name they looked
# for along PATH and never found fails, as does "command not found" in their
# output (bash's own search leaves no trace). The modules the Python files
# import (the project's, the kernel's ynl-gen-c.py, `python3 -c` programs in
# the scripts) resolve to files of such packages the same way.
#
# The initramfs /init runs busybox applets, not this machine's programs:
# its commands must be applets of the busybox in PACKAGES.

set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

mapfile -t listed < <(bash .ci/deps.sh --list)
# and the 6.12 kernel's versioned packages, which deps.sh takes from
# bookworm-backports.
mapfile -t -O "${#listed[@]}" listed < <(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' \
	'linux-image-6.12.*-amd64' 'linux-headers-6.12.*-amd64' 2>/dev/null | awk '$1 == "ii" { print $2 }')
scripts=(selftests/*.sh selftests/fleet/*.sh selftests/etcd/*.sh selftests/lib/*.sh selftests/vm/*.sh
	selftests/pkg/*.sh dist/build-deb.sh .ci/*.sh .ci/run Makefile selftests/Makefile)

# The checks that run programs which start others, traced (see above).
traced=(systemd-check completion-check gen-check style install-check dkms-check)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

declare -A allowed=() why=() funcs=() where=() owner=() done_path=()
for p in "${listed[@]}"; do
	allowed[$p]=1; why[$p]=listed
done
# What the README starts from: a Debian 12 root with git and make added.
for p in git make; do
	allowed[$p]=1; why[$p]="the README's starting point"
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
read_owners()
{
	local line p
	# /var/lib/dpkg/info/PKG[:ARCH].list:PATH
	while IFS= read -r line; do
		p=${line%%.list:*}
		p=${p##*/}
		owner[${line#*.list:}]=${p%%:*}
	done
}
read_owners < <(grep -E '^/(usr/)?s?bin/[^/]+$' /var/lib/dpkg/info/*.list)

# variants FILE: the names dpkg may know FILE by (merged /usr, links).
variants()
{
	local cand
	for cand in "$1" "$(realpath -m "$1")"; do
		echo "$cand"; echo "${cand#/usr}"; echo "/usr$cand"
	done
}

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
	local f
	while read -r f; do
		[ -z "${owner[$f]:-}" ] || { echo "${owner[$f]}"; return 0; }
	done < <(variants "$1")
	return 1
}

# check_file WHAT FILE CONTEXT: FILE, which WHAT names, is in an allowed
# package.
check_file()
{
	local what=$1 file=$2 ctx=$3 pkg
	checked=$((checked + 1))
	pkg=$(package "$file") || {
		echo "MISSING $what ($ctx): $file belongs to no package"
		failed=1
		return
	}
	if [ -n "${allowed[$pkg]:-}" ]; then
		echo "ok      $what: $pkg (${why[$pkg]})"
	else
		echo "MISSING $what ($ctx): $pkg is not in .ci/deps.sh PACKAGES"
		failed=1
	fi
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
	checked=$((checked - 1))
	check_file "$name" "$path" "${where[$name]}"
done

# Second level: what the traced checks start. Their own results are their
# steps' business; a failure here only means the trace ends early.
for t in "${traced[@]}"; do
	strace -f --seccomp-bpf -qq -o "$tmp/$t.trace" -e signal=none \
		-e trace=execve,execveat,clone,clone3,fork,vfork \
		make -s "$t" >"$tmp/$t.out" 2>&1 ||
		echo "note    make $t failed under strace (its own step says why); checked what it ran until then"
	[ -s "$tmp/$t.trace" ] || { echo "MISSING strace could not trace make $t"; failed=1; }
	if grep -E ': command not found|^(/bin/)?sh: [0-9]+: [^ ]+: not found' "$tmp/$t.out"; then
		echo "MISSING a program (make $t): see \"not found\" above"
		failed=1
	fi
	python3 selftests/vm/execs.py "$tmp/$t.trace" | sed "s/\$/ $t/" >>"$tmp/execs"
done
# Python modules: the project's scripts, the kernel's YNL generator (which
# the build extracts) and python3 -c programs in the scripts.
make -s build/ynl/.stamp >/dev/null 2>&1 || { echo "MISSING the YNL generator: make build/ynl/.stamp failed"; failed=1; }
mapfile -t pyfiles < <(git ls-files '*.py'; find build/ynl/tools/net/ynl -name '*.py' 2>/dev/null)
python3 selftests/vm/pyimports.py "${pyfiles[@]}" "${scripts[@]}" >"$tmp/py" || failed=1

# "WHAT|FILE|CONTEXT" for each file to map onto a package. The kernel's
# build trees run their tools by relative paths; the project's own
# programs, and what the checks build or install under their temporary
# directories, are left out.
roots=("$PWD" /lib/modules/*/build)
while read -r kind file runner t; do
	if [ "$kind" = absent ]; then
		checked=$((checked + 1))
		echo "MISSING $file (run by $runner under make $t): not installed, so no package in the list provides it"
		failed=1
		continue
	fi
	if [ "${file:0:1}" != / ]; then
		for r in "${roots[@]}"; do
			[ ! -e "$r/$file" ] || { file=$r/$file; break; }
		done
	fi
	case $file in "$PWD"/*|/tmp/*|[!/]*) continue ;; esac
	[ "$runner" != - ] || runner="make $t"
	echo "$(basename "$file")|$file|run by $runner under make $t"
done < <(sort -u -k1,2 "$tmp/execs") >"$tmp/files"
while read -r mod file loc opt; do
	checked=$((checked + 1))
	if [ "$file" = built-in ]; then
		echo "ok      python $mod: built into python3"
	elif [ "$file" = - ]; then
		echo "MISSING python $mod ($loc${opt:+, $opt}): not installed, so no package in the list provides it"
		failed=1
	else
		checked=$((checked - 1))
		echo "python $mod|$file|$loc${opt:+, $opt}" >>"$tmp/files"
	fi
done < <(sort -u -k1,1 "$tmp/py")
while IFS='|' read -r what file ctx; do
	variants "$file"
done <"$tmp/files" | sort -u >"$tmp/names"
read_owners < <(grep -Fxf "$tmp/names" /var/lib/dpkg/info/*.list)
while IFS='|' read -r what file ctx; do
	check_file "$what" "$file" "$ctx"
done <"$tmp/files"

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
