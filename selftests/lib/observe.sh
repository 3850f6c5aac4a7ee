# SPDX-License-Identifier: GPL-2.0
#
# What scenarios run beside the LB to watch or hold its work: a snapshot of
# its state, ringctl monitor, nfq_hold.py holding packets in an NFQUEUE, and
# udp_send.py sending until the scenario ends. topo.sh sources this file;
# a scenario without its topology (monitor.sh) sources it after common.sh.
# Background processes go in SERVERS, which topo_cleanup ends.

OBSERVE_LIBDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# snap [FILTER]: everything a rejected command must leave alone, to compare
# before and after it: the saved configuration, the key, and show -j through
# jq FILTER (which drops what traffic moves meanwhile, if there is traffic).
snap()
{
	rctl save && rctl key show && rctl show -j | jq -c "${1:-.}" &&
		rctl -j backend-mode
}

# rcmon_*: ringctl's monitor (fleet.sh's monitor_* watch rtr's routes).
# rcmon_start NS FILE [ARGS]: ringctl monitor ARGS in namespace NS, its
# output appended to FILE (truncating FILE then leaves no hole), its errors
# in FILE.err, its pid in MON. It returns once the monitor is subscribed:
# the key is set until the change shows in FILE, to MON_KEY (default:
# random; a scenario whose lookups depend on the key passes its own).
rcmon_start()
{
	local ns=$1 out=$2 i
	shift 2
	: >"$out"
	ip netns exec "$ns" "$RINGCTL" monitor "$@" >>"$out" 2>"$out.err" &
	MON=$!
	SERVERS+=("$MON")
	for i in $(seq 1 100); do
		ip netns exec "$ns" "$RINGCTL" key set "${MON_KEY:-random}"
		[ ! -s "$out" ] || return 0
		sleep 0.1
	done
	die "monitor in $ns never saw an event: $(cat "$out.err")"
}

# rcmon_clear FILE: FILE emptied of the key changes rcmon_start made,
# once the last of them has had time to show.
rcmon_clear() { sleep 0.5; : >"$1"; }

rcmon_stop() { kill "$MON" 2>/dev/null || true; wait "$MON" 2>/dev/null || true; MON=; }

# nfq_start: nfq_hold.py holding what the LB's nftables rules queue to
# queue 0, as the coprocess NFQ (bash keeps one coprocess at a time), bound
# before it returns.
nfq_start()
{
	local line=
	coproc NFQ { ip netns exec "$P-lb" "$PY" "$OBSERVE_LIBDIR/nfq_hold.py" 0; }
	read -r -t 30 line <&"${NFQ[0]}" && [ "$line" = bound ] || die "nfq_hold.py did not bind: $line"
}

# nfq_held WHAT: the first packet was queued and is held; WHAT names it.
nfq_held()
{
	local line=
	read -r -t 30 line <&"${NFQ[0]}" || die "$1 was not queued"
	case $line in held*) ;; *) die "nfq_hold.py: $line" ;; esac
}

# nfq_release: every held packet goes on; nfq_quit: and nfq_hold.py ends.
nfq_release()
{
	local line=
	echo release >&"${NFQ[1]}"
	read -r -t 30 line <&"${NFQ[0]}" || die "nfq_hold.py did not release"
}

nfq_quit() { echo quit >&"${NFQ[1]}"; }

# udp_sender ARGS: udp_send.py ARGS from the client, in the background
# until the scenario ends (its pid in SENDER); sent counts its datagrams.
udp_sender()
{
	ip netns exec "$P-cli" "$PY" "$OBSERVE_LIBDIR/udp_send.py" --count-file "$W/sent" "$@" &
	SENDER=$!
	SERVERS+=("$SENDER")
}

sent() { cat "$W/sent" 2>/dev/null || echo 0; }
