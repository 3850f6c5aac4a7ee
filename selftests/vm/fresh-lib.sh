#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The new minimal Debian root of the fresh-root checks (fresh-root.sh) and
# of the package check (selftests/pkg/deb-root.sh), sourced by both:
#
#   fresh_base DIST LOG   the cached `debootstrap --variant=minbase DIST`
#                         plus git and make, as a tarball in $cache (made
#                         the first time, or again with RS_FRESH_REBASE=1);
#                         prints its path
#   fresh_root DIST BASE  unpacks BASE into a new directory under $cache,
#                         with this machine's Debian 12 apt sources (their
#                         suites renamed to DIST's) and resolv.conf; prints it
#   fresh_remove ROOT     removes such a root at the end (RS_FRESH_KEEP=1
#                         keeps it), never one with something mounted below
#   fresh_chroot ROOT CMD...  CMD chrooted in ROOT as a root login, with
#                         /proc, /sys, /dev and an empty /run mounted in a
#                         mount namespace of its own
#   fresh_build_base DIST LOG  BASE plus what building the Debian packages
#                         takes (debian/control's Build-Depends,
#                         build-essential, lintian), cached as a tarball
#                         beside it; prints its path (dist/build-deb.sh)
#
# The caller sets $repo (the checkout) and $cache (RS_FRESH_CACHE), defines
# say and die, and holds $cache/lock. The mirror is the one the machine's
# apt sources name (.ci/deps.sh --mirror): the repository names none.

# fresh_duration SECONDS: "M min S s"
fresh_duration()
{
	echo "$(($1 / 60)) min $(($1 % 60)) s"
}

fresh_base()
{
	local dist=$1 log=$2 base=$cache/$1-minbase-git-make.tar uri tmpd start
	if [ -s "$base" ] && [ -z "${RS_FRESH_REBASE:-}" ]; then
		echo "$base"
		return 0
	fi
	uri=$(bash "$repo/.ci/deps.sh" --mirror) || die "no Debian mirror in the apt sources"
	tmpd=$(mktemp -d "$cache/base.XXXXXX")
	say "debootstrap --variant=minbase --include=git,make $dist (a few minutes; cached in $cache)" >&2
	start=$(date +%s)
	# debootstrap's own mounts stay in a namespace of their own.
	if ! unshare --mount --propagation private \
		debootstrap --variant=minbase --include=git,make "$dist" "$tmpd/root" "$uri" \
		>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		rm -rf --one-file-system "$tmpd"
		die "debootstrap failed (log: $log)"
	fi
	tar -C "$tmpd/root" --numeric-owner --xattrs -cf "$base.tmp" . && mv "$base.tmp" "$base" ||
		die "cannot write $base"
	rm -rf --one-file-system "$tmpd"
	say "base made in $(fresh_duration $(($(date +%s) - start)))" >&2
	echo "$base"
}

# Debian 12's apt sources of this machine replace debootstrap's one line
# (bookworm main only); a Debian 13 root gets them with trixie's suites
# (trixie, trixie-updates, trixie-security). Backports are left out: make
# deps adds them itself.
fresh_sources()
{
	local root=$1 dist=$2 f k keys_ok copied=0
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && [ "$f" != /etc/apt/sources.list.d/ringsteer-backports.sources ] || continue
		grep -Eq '^[^#]*[[:space:]]bookworm' "$f" || continue
		# A source signed by a key the root does not have would fail apt.
		keys_ok=1
		for k in $(sed -n 's/.*[Ss]igned-[Bb]y[:=] *\([^] ]*\).*/\1/p' "$f"); do
			[ -e "$root$k" ] || keys_ok=
		done
		[ -n "$keys_ok" ] || continue
		if [ $copied = 0 ]; then
			rm -f "$root/etc/apt/sources.list"
		fi
		sed "s/\bbookworm/$dist/g" "$f" >"$root$f"
		copied=$((copied + 1))
	done
	[ $copied -gt 0 ] || say "no Debian 12 apt source to copy: the root keeps debootstrap's" >&2
}

fresh_root()
{
	local dist=$1 base=$2 root
	root=$(mktemp -d "$cache/root.XXXXXX")
	chmod 0755 "$root"
	tar -C "$root" --numeric-owner --xattrs -xpf "$base" &&
		[ "$(stat -c %a "$root/root")" = 700 ] || {
		rm -rf --one-file-system "$root"
		die "cannot unpack $base, or its /root is not 0700"
	}
	fresh_sources "$root" "$dist"
	cp -L /etc/resolv.conf "$root/etc/resolv.conf"
	echo "$root"
}

# fresh_chroot ROOT COMMAND...: no systemd runs there, as in a build
# chroot; the mounts go with the namespace.
fresh_chroot()
{
	unshare --mount --propagation private bash -c '
		r=$1; shift
		mount -t proc proc "$r/proc" && mount -t sysfs sysfs "$r/sys" &&
			mount --rbind /dev "$r/dev" && mount -t tmpfs -o mode=0755 tmpfs "$r/run" || exit 1
		exec chroot "$r" /usr/bin/env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash \
			TERM=dumb DEBIAN_FRONTEND=noninteractive \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"' \
		fresh_chroot "$@"
}

# The build root is made again when debian/control's Build-Depends change
# (they key its name) or the base is newer; each build unpacks a new copy,
# so a package is built as a buildd builds it, with nothing installed but
# the base and what it declares.
fresh_build_base()
{
	local dist=$1 log=$2 base key build root start
	base=$(fresh_base "$dist" "$log") || return 1
	key=$(sed -n '/^Build-Depends:/,/^[A-Z]/p' "$repo/debian/control" | sha256sum | cut -c1-12)
	build=$cache/$dist-debbuild-$key.tar
	if [ -s "$build" ] && [ ! "$base" -nt "$build" ]; then
		echo "$build"
		return 0
	fi
	say "$dist build root: the base, the build dependencies and lintian (cached in $cache)" >&2
	start=$(date +%s)
	root=$(fresh_root "$dist" "$base") || return 1
	mkdir -p "$root/tmp/control/debian"
	cp "$repo/debian/control" "$root/tmp/control/debian/"
	if ! { fresh_chroot "$root" apt-get update &&
		fresh_chroot "$root" apt-get install -y --no-install-recommends build-essential lintian &&
		fresh_chroot "$root" apt-get build-dep -y --no-install-recommends /tmp/control &&
		fresh_chroot "$root" apt-get clean; } >>"$log" 2>&1; then
		tail -n 20 "$log" >&2
		RS_FRESH_KEEP= fresh_remove "$root"
		die "cannot install the build dependencies in the $dist root (log: $log)"
	fi
	rm -rf "$root/tmp/control" "$cache/$dist"-debbuild-*.tar
	tar -C "$root" --numeric-owner --xattrs -cf "$build.tmp" . && mv "$build.tmp" "$build" ||
		die "cannot write $build"
	RS_FRESH_KEEP= fresh_remove "$root"
	say "$dist build root made in $(fresh_duration $(($(date +%s) - start)))" >&2
	echo "$build"
}

# fresh_remove ROOT: the root goes unless RS_FRESH_KEEP is set. Nothing
# should be mounted under it by then; if something is, removing it would
# reach through the mount, so it stays.
fresh_remove()
{
	local root=$1
	if findmnt -rn -o TARGET | grep -q "^$root/"; then
		say "mounts left under $root: not removing it"
	elif [ -z "${RS_FRESH_KEEP:-}" ]; then
		rm -rf --one-file-system "$root"
	else
		say "root kept in $root"
	fi
}
