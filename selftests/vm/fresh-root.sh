#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fresh-root.sh [--quick] [--dist trixie]: the README's two commands, `make
# demo` and then `make check`, run for the first time in a new minimal
# Debian 12 root, as a newcomer runs them (make check-fresh). --quick runs
# `make check-host` there instead: packages, builds, static checks,
# packaging and host unit tests, no VM (make check-fresh-quick). --dist
# trixie does the same in a Debian 13 root, whose target is trixie's own
# 6.12 (make check-fresh DIST=trixie).
#
# The root is `debootstrap --variant=minbase bookworm` (or trixie) plus git
# and make, from the mirror the machine's apt sources name (.ci/deps.sh
# --mirror), given the machine's Debian 12 apt sources (bookworm, its
# updates and security suites, as an installed Debian 12 has them; for
# trixie the same sources with trixie's suites). The debootstrapped
# base is cached as a tarball in RS_FRESH_CACHE (/var/cache/ringsteer-fresh,
# outside the clone; RS_FRESH_REBASE=1 makes a new one); every run unpacks
# it anew, so each starts from a pristine base. The committed HEAD of this
# checkout is cloned into /root/ringsteer (root's home is 0700 there, as
# Debian makes it). The commands run chrooted, in a mount namespace of
# their own (/proc, /sys, /dev with /dev/pts, /run), with the environment
# of a root login and nothing else from here.
#
# One thing is reused: the debug kernel cache (/var/cache/ringsteer,
# RINGSTEER_CACHE) is bind-mounted into the root, so that a make
# check-debug there does not spend 12 to 84 minutes building it again.
# make check no longer runs the debug kernel (selftests/vm/check.sh).
#
# Prints each command's last lines, its exit status and how long it took
# (and each of its phases), and keeps the logs in build/fresh/full/ or
# build/fresh/quick/ (with the root's build/check and the VM runs kept
# there). Exits 1 if either command fails. RS_FRESH_KEEP=1
# keeps the root.

set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
cache=${RS_FRESH_CACHE:-/var/cache/ringsteer-fresh}
debug_cache=${RINGSTEER_CACHE:-/var/cache/ringsteer}
dist=bookworm
dir=ringsteer
login_env=(HOME=/root USER=root LOGNAME=root SHELL=/bin/bash TERM=dumb
	   PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)

say()
{
	echo "fresh-root: $*"
}

die()
{
	echo "fresh-root: $*" >&2
	exit 1
}

# shellcheck source=selftests/vm/fresh-lib.sh
. "$here/fresh-lib.sh"

duration()
{
	fresh_duration "$@"
}

# stamp START NAME: copy standard input to standard output and
# $out/NAME.log; each "==> [N/M]" phase line goes to NAME.phases
# too, after the seconds since START.
stamp()
{
	local start=$1 name=$2 line
	while IFS= read -r line; do
		case $line in
		"==> ["*) echo "$(($(date +%s) - start)) $line" >>"$out/$name.phases" ;;
		esac
		printf '%s\n' "$line"
	done | tee "$out/$name.log"
}

# run_in_root ROOT NAME COMMAND: COMMAND in the clone, as root logged in
# there; its output to the terminal and $out/NAME.log, its status and
# seconds to $out/results.
run_in_root()
{
	local root=$1 name=$2 cmd=$3 start rc
	say "running '$cmd' in /root/$dir"
	start=$(date +%s)
	chroot "$root" /usr/bin/env -i "${login_env[@]}" bash -c "cd /root/$dir && $cmd" \
		</dev/null 2>&1 | stamp "$start" "$name"
	rc=${PIPESTATUS[0]}
	echo "$name $rc $(($(date +%s) - start)) $cmd" >>"$out/results"
}

# phases NAME TOTAL: how long each phase of NAME took.
phases()
{
	local prev= line t
	while read -r t line; do
		[ -z "$prev" ] || echo "$(duration $((t - ${prev%% *})))  ${prev#* }"
		prev="$t $line"
	done <"$out/$1.phases"
	[ -z "$prev" ] || echo "$(duration $(($2 - ${prev%% *})))  ${prev#* }"
}

# inner ROOT MODE: in a mount namespace of its own (unshare), so that no
# mount outlives the run or shows outside it; the trap unmounts them even
# so, before the namespace goes.
inner()
{
	local mode=$2
	root=$1
	trap 'umount -R "$root/proc" "$root/sys" "$root/dev" "$root/run" \
		"$root/var/cache/ringsteer" 2>/dev/null' EXIT
	mount --make-rprivate / || exit 1
	mount -t proc proc "$root/proc" || exit 1
	mount -t sysfs sysfs "$root/sys" || exit 1
	mount --rbind /dev "$root/dev" || exit 1
	mount -t tmpfs -o mode=0755 tmpfs "$root/run" || exit 1
	if [ "$mode" = quick ]; then
		run_in_root "$root" check-host "make check-host"
		return
	fi
	# A machine that never ran make check-debug has no cache yet.
	mkdir -p "$root/var/cache/ringsteer" "$debug_cache"
	mount --bind "$debug_cache" "$root/var/cache/ringsteer" || exit 1
	run_in_root "$root" demo "make demo"
	run_in_root "$root" check "make check"
}

if [ "${1:-}" = --inner ]; then
	out=$repo/build/fresh/$4
	inner "$2" "$3"
	exit
fi

mode=full
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) mode=quick ;;
	--dist) dist=${2:-}; shift ;;
	*) sed -n 's/^# \{0,1\}//; 3,9p' "$0" >&2; exit 2 ;;
	esac
	shift
done
case "$dist" in
bookworm) out=$repo/build/fresh/$mode ;;
trixie) out=$repo/build/fresh/$dist-$mode ;;
*) die "--dist: bookworm or trixie, not '$dist'" ;;
esac
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mounts)"
command -v debootstrap >/dev/null || die "no debootstrap: run 'make deps'"
mkdir -p "$cache" "$out"
exec 9>"$cache/lock"
flock -n 9 || die "another run holds $cache/lock"
rm -f "$out/results" "$out"/*.log "$out"/*.phases
rm -rf "$out/root-build"
[ -z "$(git -C "$repo" status --porcelain --untracked-files=no)" ] ||
	say "uncommitted changes here are not part of the run: it clones HEAD"

base=$(fresh_base "$dist" "$out/debootstrap.log") || exit 1

root=$(fresh_root "$dist" "$base") || exit 1
# Nothing is mounted under the root in this namespace; fresh_remove's
# check guards against a future change that mounts here.
cleanup() { fresh_remove "$root"; }
trap cleanup EXIT

git clone -q "$repo" "$root/root/$dir" || die "git clone $repo"
say "cloned $(git -C "$root/root/$dir" log --oneline -1) into /root/$dir"

unshare --mount --propagation private bash "$0" --inner "$root" "$mode" "${out##*/}"

# What the root's make check left, for a look after the root is gone.
mkdir -p "$out/root-build"
for d in build/check build/vm/runs; do
	[ ! -d "$root/root/$dir/$d" ] || cp -a "$root/root/$dir/$d" "$out/root-build/"
done

rc=0
while read -r name status secs cmd; do
	if [ "$status" = 0 ]; then
		say "$cmd: passed in $(duration "$secs"); its last lines:"
	else
		say "$cmd: FAILED (exit status $status) in $(duration "$secs"); its last lines:"
		rc=1
	fi
	if grep -q '^# failed:$' "$out/$name.log"; then
		sed -n '/^# failed:$/,$p' "$out/$name.log" | tail -n 40
	else
		tail -n 4 "$out/$name.log"
	fi | sed 's/^/    /'
	if [ -s "$out/$name.phases" ]; then
		say "$cmd: its phases:"
		phases "$name" "$secs" | sed 's/^/    /'
	fi
done <"$out/results"
[ -s "$out/results" ] || { say "no command ran"; rc=1; }
exit $rc
