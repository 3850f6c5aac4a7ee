#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# install.sh KVER: `make install DESTDIR=...` installs exactly ringctl, ringsteer-backend, their man pages, its bash
# completion, the example configurations (a fleet's BIRD, ringsteer.conf, health.conf,
# fleet.conf), the systemd units (paths filled in),
# the private configuration
# directory and the module; PREFIX moves them; `make uninstall` removes them.

set -euo pipefail
cd "$(dirname "$0")/../.." || exit 1
. selftests/pkg/lib.sh

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
kver=${1:?usage: $0 KVER}

# files DIR: every file and symlink under DIR, relative, sorted.
files()
{
	(cd "$1" && find . ! -type d | sed 's|^\./||' | sort)
}

# expect_mode MODE PATH
expect_mode()
{
	[ "$(stat -c %a "$2")" = "$1" ] || die "$2: mode $(stat -c %a "$2"), want $1"
}

# expect_unit UNIT SBINDIR SYSCONFDIR: the placeholders were filled in.
expect_unit()
{
	! grep -n '@[A-Z]*@' "$1" || die "$1: placeholder left"
	grep -qx "ExecStart=$2/ringctl restore $3/ringsteer/ringsteer.conf" "$1" ||
		die "$1: ExecStart does not run $2/ringctl on $3/ringsteer/ringsteer.conf"
}

# expect_health_unit UNIT SBINDIR SYSCONFDIR: the same for the checker's unit.
expect_health_unit()
{
	! grep -n '@[A-Z]*@' "$1" || die "$1: placeholder left"
	grep -qx "ExecStart=$2/ringctl health run $3/ringsteer/health.conf" "$1" ||
		die "$1: ExecStart does not run $2/ringctl health run on $3/ringsteer/health.conf"
}

make -s install KVER="$kver" DESTDIR="$tmp/a" >"$tmp/install.log" 2>&1 || {
	cat "$tmp/install.log"
	die "make install"
}
got=$(files "$tmp/a")
echo "$got"
want="lib/modules/$kver/MODDIR/kmod/ringsteer.ko
usr/local/lib/systemd/system/ringsteer-health.service
usr/local/lib/systemd/system/ringsteer-sync.service
usr/local/lib/systemd/system/ringsteer.service
usr/local/sbin/ringctl
usr/local/sbin/ringsteer-backend
usr/local/share/bash-completion/completions/ringctl
usr/local/share/doc/ringsteer/examples/bird/lb.conf
usr/local/share/doc/ringsteer/examples/bird/router.md
usr/local/share/doc/ringsteer/examples/fleet.conf
usr/local/share/doc/ringsteer/examples/health.conf
usr/local/share/doc/ringsteer/examples/ringsteer.conf
usr/local/share/man/man8/ringctl.8
usr/local/share/man/man8/ringsteer-backend.8"
# The kernel decides the module directory (extra/ or updates/) and
# whether modules_install compresses.
[ "$(sed -E 's/\.ko\.[a-z]+$/.ko/; s#^(lib/modules/[^/]*/)(extra|updates)/#\1MODDIR/#' <<<"$got")" = "$want" ] ||
	die "make install: files differ from: $want"
[ -d "$tmp/a/etc/ringsteer" ] || die "no /etc/ringsteer"
expect_mode 700 "$tmp/a/etc/ringsteer"
expect_mode 755 "$tmp/a/usr/local/sbin/ringctl"
expect_mode 755 "$tmp/a/usr/local/sbin/ringsteer-backend"
expect_mode 644 "$tmp/a/usr/local/lib/systemd/system/ringsteer.service"
expect_mode 644 "$tmp/a/usr/local/share/bash-completion/completions/ringctl"
expect_mode 644 "$tmp/a/usr/local/share/man/man8/ringctl.8"
expect_mode 644 "$tmp/a/usr/local/share/man/man8/ringsteer-backend.8"
expect_mode 644 "$tmp/a/usr/local/share/doc/ringsteer/examples/bird/lb.conf"
expect_unit "$tmp/a/usr/local/lib/systemd/system/ringsteer.service" /usr/local/sbin /etc
expect_mode 644 "$tmp/a/usr/local/lib/systemd/system/ringsteer-health.service"
expect_health_unit "$tmp/a/usr/local/lib/systemd/system/ringsteer-health.service" /usr/local/sbin /etc
expect_mode 644 "$tmp/a/usr/local/lib/systemd/system/ringsteer-sync.service"
grep -qx "ExecStart=/usr/local/sbin/ringctl sync run /etc/ringsteer/fleet.conf" \
	"$tmp/a/usr/local/lib/systemd/system/ringsteer-sync.service" ||
	die "the sync unit does not run /usr/local/sbin/ringctl sync run on /etc/ringsteer/fleet.conf"
"$tmp/a/usr/local/sbin/ringctl" --version | grep -qx "ringctl $(ringsteer_version)" ||
	die "installed ringctl is not version $(ringsteer_version)"
pass "make install DESTDIR: $(wc -l <<<"$got") files, modes, unit paths"

# A configuration written there is kept by uninstall; all else goes.
echo "# kept" >"$tmp/a/etc/ringsteer/ringsteer.conf"
make -s uninstall KVER="$kver" DESTDIR="$tmp/a" >/dev/null
[ "$(files "$tmp/a")" = etc/ringsteer/ringsteer.conf ] ||
	die "make uninstall left: $(files "$tmp/a")"
pass "make uninstall removes everything but the configuration"

# Debian's own layout: PREFIX=/usr puts the unit in /lib/systemd/system.
make -s install-files DESTDIR="$tmp/b" PREFIX=/usr >/dev/null
want="lib/systemd/system/ringsteer-health.service
lib/systemd/system/ringsteer-sync.service
lib/systemd/system/ringsteer.service
usr/sbin/ringctl
usr/sbin/ringsteer-backend
usr/share/bash-completion/completions/ringctl
usr/share/doc/ringsteer/examples/bird/lb.conf
usr/share/doc/ringsteer/examples/bird/router.md
usr/share/doc/ringsteer/examples/fleet.conf
usr/share/doc/ringsteer/examples/health.conf
usr/share/doc/ringsteer/examples/ringsteer.conf
usr/share/man/man8/ringctl.8
usr/share/man/man8/ringsteer-backend.8"
[ "$(files "$tmp/b")" = "$want" ] || die "PREFIX=/usr: got $(files "$tmp/b")"
expect_unit "$tmp/b/lib/systemd/system/ringsteer.service" /usr/sbin /etc
expect_health_unit "$tmp/b/lib/systemd/system/ringsteer-health.service" /usr/sbin /etc
pass "PREFIX=/usr: unit in /lib/systemd/system, ringctl in /usr/sbin"

make -s uninstall DESTDIR="$tmp/b" PREFIX=/usr >/dev/null
[ -z "$(files "$tmp/b")" ] || die "make uninstall PREFIX=/usr left: $(files "$tmp/b")"
[ ! -e "$tmp/b/etc/ringsteer" ] || die "empty configuration directory left"
pass "make uninstall PREFIX=/usr removes everything"
