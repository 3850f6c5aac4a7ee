#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# in-root.sh COMMAND...: run COMMAND chrooted in the Debian 13 build root
# (selftests/vm/trixie-root.sh, made first if it is not cached), in the
# current directory, with this source tree bind-mounted at its own path, so
# that the paths in a Kbuild command line and its logs are the same inside
# and out. The Makefile builds a module for a kernel this host has no
# compiler for this way (make build/kernel/7.3.4+deb13-amd64/kmod/ringsteer.ko).
# The mounts live in a mount namespace of their own and go with it; the
# environment is kept but PATH (the root's) and TMPDIR (the root's /tmp).

set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
[ $# -gt 0 ] || { sed -n 's/^# \{0,1\}//; 3,11p' "$0" >&2; exit 2; }
case "$PWD/" in
"$repo"/*) ;;
*) echo "in-root: run from inside $repo (it is the only host directory the root sees)" >&2; exit 2 ;;
esac
dir=$(bash "$here/trixie-root.sh") || exit 1
root=$dir/root

exec unshare --mount --propagation private bash -c '
	root=$1 repo=$2 cwd=$3
	shift 3
	mount -t proc proc "$root/proc" || exit 1
	mount --rbind /dev "$root/dev" || exit 1
	mkdir -p "$root$repo" && mount --bind "$repo" "$root$repo" || exit 1
	cd "$root$cwd" || exit 1
	exec env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		TMPDIR=/tmp chroot "$root" /bin/sh -c "cd \"\$0\" && exec \"\$@\"" "$cwd" "$@"' \
	in-root "$root" "$repo" "$PWD" "$@"
