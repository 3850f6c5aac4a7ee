#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install every Debian package ringsteer needs to build, check and test
# itself: the target kernels (image + headers), QEMU, the busybox used for
# the VM initramfs, libraries and network tools. Idempotent: when all is
# already there it returns without touching apt. --list prints the list,
# --mirror the Debian mirror URI the machine's apt sources use,
# --security-mirror the URI they use for this release's security suite.
#
# On Debian 12 (bookworm) the targets are its 6.1 and bookworm-backports'
# 6.12; that apt source is built from the mirror URI this machine is already
# configured with, so the repository never names a mirror host itself. On
# Debian 13 (trixie) the target is trixie's own 6.12, and checkpatch and the
# kselftest harness come from its linux-source-6.12 (it has no 6.1).

set -euo pipefail

# Every program a build step, test or scenario runs comes from one of these
# or from the base system (selftests/vm/deps-check.sh checks it), and so do
# the programs those start: man-db because systemd-analyze verify looks up
# the unit's Documentation=man:ringctl(8) with man, the way a user reads it.
# The VM's scenarios run in this machine's root, so their tools belong here
# too (bird2: the BGP and BFD daemon of the fleet scenarios; Debian's
# package enables its unit, which a host without systemd running never
# starts, and the scenarios run their own on their own files).
# debootstrap builds the minimal root of make check-fresh. libcurl and
# json-c are ringctl's etcd client (doc/fleet.md); etcd-server and
# etcd-client run make check-etcd's etcd and its etcdctl (Debian's
# etcd-server enables its own unit, which a host without systemd running
# never starts; the test runs its own on other ports, in a namespace).
# debhelper, dh-dkms and lintian build and check the Debian packages (make
# deb; dpkg-buildpackage comes with build-essential's dpkg-dev).
PACKAGES=(
	build-essential bc kmod cpio xz-utils zstd
	linux-image-amd64 linux-headers-amd64
	qemu-system-x86 busybox-static
	libmnl-dev libsodium-dev pkg-config
	libcurl4-openssl-dev libjson-c-dev etcd-server etcd-client
	iproute2 procps libcap2-bin nftables iptables ipvsadm conntrack socat ethtool
	bird2
	python3 python3-yaml python3-jsonschema python3-matplotlib jq strace
	linux-perf
	sparse
	flex bison libelf-dev libssl-dev
	linux-source-6.12
	bash-completion dkms openssl systemd man-db
	debootstrap
	debhelper dh-dkms lintian
)
# The release this machine runs; anything but trixie is treated as
# bookworm, the release the project started on.
suite=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
[ "$suite" = trixie ] || suite=bookworm
[ $suite = trixie ] || PACKAGES+=(linux-source-6.1)
BACKPORTS_LIST=/etc/apt/sources.list.d/ringsteer-backports.sources
export DEBIAN_FRONTEND=noninteractive

have_backports_kernel()
{
	[ $suite = bookworm ] || return 0
	compgen -G '/lib/modules/6.12.*-amd64/build' >/dev/null &&
		compgen -G '/boot/vmlinuz-6.12.*-amd64' >/dev/null
}

all_installed()
{
	local status
	status=$(dpkg-query -W -f='${db:Status-Abbrev}\n' "${PACKAGES[@]}" 2>/dev/null) || return 1
	[ "$(grep -c '^ii' <<<"$status")" -eq "${#PACKAGES[@]}" ] && have_backports_kernel
}

# The first "deb" URI serving this release's suite (or the suite given),
# from deb822 or one-line sources. Security mirrors are skipped: backports
# live on the main archive.
debian_mirror_uri()
{
	local f uri suite=${1:-$suite}
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] && [ "$f" != "$BACKPORTS_LIST" ] || continue
		uri=$(awk -v suite=$suite '
			/^[[:space:]]*$/ { if (ok && uri != "") { print uri; exit } ok = 0; uri = "" }
			/^URIs:/ { uri = $2 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) ok = 1 }
			END { if (ok && uri != "") print uri }
		' "$f" | head -n1)
		[ -n "$uri" ] && { echo "$uri"; return 0; }
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -e "$f" ] || continue
		uri=$(awk -v suite=$suite '$1 == "deb" && $3 == suite { print $2; exit }' "$f")
		[ -n "$uri" ] && { echo "$uri"; return 0; }
	done
	return 1
}

add_backports()
{
	local uri
	uri=$(debian_mirror_uri) || {
		echo "deps: no bookworm apt source found to derive backports from" >&2
		exit 1
	}
	cat >"$BACKPORTS_LIST.tmp" <<EOF
Types: deb
URIs: $uri
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	mv "$BACKPORTS_LIST.tmp" "$BACKPORTS_LIST"
}

# The backports meta package depends on the versioned image; installing the
# versioned packages directly keeps the 6.1 meta package from stable.
backports_kernel_packages()
{
	local what dep
	for what in image headers; do
		dep=$(apt-cache show "linux-$what-amd64/bookworm-backports" |
		      sed -n 's/^Depends: \(linux-'"$what"'-6\.12[^ ,]*\).*/\1/p' | head -n1)
		[ -n "$dep" ] || {
			echo "deps: bookworm-backports has no 6.12 linux-$what-amd64" >&2
			exit 1
		}
		echo "$dep"
	done
}

if [ "${1:-}" = --list ]; then
	printf '%s\n' "${PACKAGES[@]}"
	exit 0
fi
if [ "${1:-}" = --mirror ]; then
	debian_mirror_uri || { echo "deps: no $suite apt source found" >&2; exit 1; }
	exit 0
fi
if [ "${1:-}" = --security-mirror ]; then
	debian_mirror_uri "$suite-security" ||
		{ echo "deps: no $suite-security apt source found" >&2; exit 1; }
	exit 0
fi

if all_installed; then
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages; run 'make deps' as root" >&2
	exit 1
fi

echo "deps: downloading and installing packages (about 680 MB on a minimal root)"
BPO=()
[ $suite = trixie ] || add_backports
apt-get update -qq
[ $suite = trixie ] || mapfile -t BPO < <(backports_kernel_packages)
apt-get install -y -qq --no-install-recommends "${PACKAGES[@]}" "${BPO[@]}" >/dev/null
all_installed || { echo "deps: packages still missing after install" >&2; exit 1; }
echo "deps: installed ${PACKAGES[*]} ${BPO[*]}"
