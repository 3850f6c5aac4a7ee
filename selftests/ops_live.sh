#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ringctl's operations commands against the live kernel: connections per
# backend in show -j, plan's predictions against what the real change
# does, drain to completion, fingerprints of two load balancers, and the
# Prometheus output against show -j.
#
#   ol-cli                 ol-lb                      ol-b1 .. ol-b3
#  +-------------+       +-------------------------+     +-------------+
#  | 10.1.0.2    +-------+ 10.0.0.100:80 tcp       +-----+ 10.2.N.2    |
#  | 60 held TCP |       | b1 b2 b3 (b4 planned)   | x3  | :8080 says  |
#  | connections |       +-------------------------+     | "bN"        |
#  +-------------+       ol-lb2: no links, the same      +-------------+
#                        configuration in another order

set -e
P=ol
. "$(dirname "$0")/lib/topo.sh"
topo_setup 3
lb2() { ip netns exec "$P-lb2" "$RINGCTL" "$@"; }

# RST-closed entries leave conntrack after 1 s instead of 10.
lb sysctl -qw net.netfilter.nf_conntrack_tcp_timeout_close=1
cmd_ok rctl key set "$KEY"
cmd_ok rctl service add "$SVC4"
for i in 1 2 3; do
	cmd_ok rctl backend add "$SVC4" "$(be4 "$i")"
done

# Bad command lines: a message and exit status 1, nothing printed, nothing
# changed. plan's flows: a missing file, a bad line, a flow to no service.
echo "$CLI4:1000 10.9.9.9:80 tcp" >"$W/flows_other"
echo "$CLI4:1000 $VIP4:$VPORT" >"$W/flows_bad"
for bad in "plan backend frob $SVC4 $(be4 1)" "plan backend add $SVC4" \
	"plan key set 00" "stats --bogus" "fingerprint file" \
	"backend drain $SVC4 $(be4 1) wait soon" "show rate 0" \
	"plan backend add $SVC4 10.2.4.2:8080 flows" "plan backend add $SVC4 10.2.4.2:8080 flows $W/none" \
	"plan backend add $SVC4 10.2.4.2:8080 flows $W/flows_other" \
	"plan backend add $SVC4 10.2.4.2:8080 flows $W/flows_bad"; do
	rc=0
	# shellcheck disable=SC2086 # word splitting wanted
	rctl $bad >"$W/out" 2>"$W/err" || rc=$?
	[ "$rc" = 1 ] || die "'ringctl $bad' exited $rc, want 1"
	grep -q '^ringctl: ' "$W/err" || die "'ringctl $bad': no error message"
	[ ! -s "$W/out" ] || die "'ringctl $bad' failed but printed: $(head -n 3 "$W/out")"
done
pass "bad command lines exit 1 with a message and print nothing"

FLOWS=31000-31059
hold_start "$FLOWS" >"$W/open"
no_failures "$W/open" "opening held connections"

# 1. show -j counts the connections each backend serves: those held.
rctl show -j >"$W/show.json"
counts "$W/open" >"$W/held"
"$PY" - "$W/show.json" >"$W/live" <<'PYEOF'
import json, sys
s = json.load(open(sys.argv[1]))["services"][0]
for b in s["backends"]:
    n = b["addr"].split(".")[2]
    if b["conns_established"] or b["conns_other"]:
        print("b%s %d" % (n, b["conns_established"]))
    assert b["conns_other"] == 0, b
assert len(s["fingerprint"]) == 16 and s["generation"] >= 1, s
PYEOF
cmp -s "$W/live" "$W/held" || die "show -j connections $(tr '\n' ' ' <"$W/live"), held $(tr '\n' ' ' <"$W/held")"
pass "show -j: established connections per backend = held: $(tr '\n' ' ' <"$W/held")"

# 2. plan del: exactly b1's held connections would be reset.
held1=$(awk '$1 == "b1" { print $2 }' "$W/held")
rctl plan -j backend del "$SVC4" "$(be4 1)" >"$W/plan_del.json"
"$PY" - "$W/plan_del.json" "${held1:-0}" <<'PYEOF' || die "plan backend del: $(cat "$W/plan_del.json")"
import json, sys
p = json.load(open(sys.argv[1]))["services"][0]
assert p["connections_effect"] == "reset" and p["connections_exact"], p
assert p["connections_moving"] == int(sys.argv[2]), p
assert p["collateral_positions"] == 0, p
PYEOF
pass "plan backend del: $held1 connections reset, collateral 0"

# 3. plan add: the predicted fraction is what lookup sees move.
N=10000
lookup 20000-29999 >"$W/before"
rctl plan -j backend add "$SVC4" 10.2.4.2:8080 >"$W/plan_add.json"
rctl show -j >"$W/show2.json"
ring_id()
{
	"$PY" -c 'import json,sys; s = json.load(open(sys.argv[1]))["services"][0]; print(s["generation"], s["fingerprint"])' "$1"
}
[ "$(ring_id "$W/show.json")" = "$(ring_id "$W/show2.json")" ] ||
	die "plan changed the ring: $(ring_id "$W/show.json") before, $(ring_id "$W/show2.json") after"
cmd_ok rctl backend add "$SVC4" 10.2.4.2:8080
lookup 20000-29999 >"$W/after"
moves "$W/before" "$W/after" >"$W/moves"
"$PY" - "$W/plan_add.json" "$W/moves" "$N" <<'PYEOF' || die "plan backend add vs lookup"
import json, math, sys
p = json.load(open(sys.argv[1]))["services"][0]
n = int(sys.argv[3])
moved = 0
for line in open(sys.argv[2]):
    frm, to, c = line.split()
    assert to == "b4", "a flow moved to %s, not the new backend" % to
    moved += int(c)
q = p["moved"]
bound = 4 * math.sqrt(n * q * (1 - q))
print("predicted %.5f, lookup %d/%d, 4 sd = %.1f" % (q, moved, n, bound))
assert p["collateral_positions"] == 0 and not p["connections_exact"], p
assert abs(moved - n * q) <= bound, (moved, n * q, bound)
PYEOF
pass "plan backend add: predicted fraction within 4 standard deviations of lookup over $N flows"
cmd_ok rctl backend del "$SVC4" 10.2.4.2:8080

# 4. Fingerprints: lb2 configured in another order, equal; then differ.
newns "$P-lb2"
lb2 key set "$KEY"
lb2 service add "$SVC4"
for i in 3 1 2; do
	cmd_ok lb2 backend add "$SVC4" "$(be4 "$i")"
done
rctl fingerprint >"$W/fp1"
lb2 fingerprint >"$W/fp2"
[ "$(wc -l <"$W/fp1")" = 1 ] || die "fingerprint: $(cat "$W/fp1")"
cmp -s "$W/fp1" "$W/fp2" || die "fingerprints differ: $(cat "$W/fp1") / $(cat "$W/fp2")"
rctl save >"$W/saved"
"$RINGCTL" fingerprint file "$W/saved" >"$W/fp3"
cmp -s "$W/fp1" "$W/fp3" || die "offline fingerprint $(cat "$W/fp3") != live $(cat "$W/fp1")"
cmd_ok lb2 backend set "$SVC4" "$(be4 3)" weight 2
lb2 fingerprint >"$W/fp2"
! cmp -s "$W/fp1" "$W/fp2" || die "fingerprint unchanged by a weight change"
cmd_ok lb2 backend set "$SVC4" "$(be4 3)" weight 1
lb2 fingerprint >"$W/fp2"
cmp -s "$W/fp1" "$W/fp2" || die "fingerprints differ after the weight is back"
# The same ring, hashing only the client address: other mapping.
cmd_ok lb2 service set "$SVC4" hash source
lb2 fingerprint >"$W/fp2"
! cmp -s "$W/fp1" "$W/fp2" || die "fingerprint unchanged by a hash mode change"
pass "fingerprint: equal across configuration orders and offline, differs after a weight or hash mode change"

# 5. stats --prometheus parses, and its numbers are show -j's.
rctl show -j >"$W/show3.json"
rctl stats --prometheus >"$W/prom"
"$PY" - "$W/prom" "$W/show3.json" <<'PYEOF' || die "stats --prometheus: $(head -c 600 "$W/prom")"
import json, re, sys
sample = re.compile(r'^([a-z_]+)\{((?:[a-z]+="(?:[^"\\]|\\.)*",?)*)\} (\S+)$')
m, types = {}, {}
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith("# TYPE "):
        _, _, name, t = line.split(" ")
        assert name not in types, "two TYPE lines for " + name
        types[name] = t
        continue
    if line.startswith("# HELP "):
        continue
    g = sample.match(line)
    assert g, "unparsable line: " + line
    assert g.group(1) in types, "sample before its TYPE: " + line
    labels = dict(re.findall(r'([a-z]+)="((?:[^"\\]|\\.)*)"', g.group(2)))
    m[(g.group(1), labels.get("backend"), labels.get("state"))] = float(g.group(3))
s = json.load(open(sys.argv[2]))["services"][0]
assert m[("ringsteer_service_new_flows_total", None, None)] == s["flows"]
assert m[("ringsteer_service_ring_points", None, None)] == s["points"]
for b in s["backends"]:
    k = "%s:%d" % (b["addr"], b["port"])
    assert m[("ringsteer_backend_new_flows_total", k, None)] == b["flows"], k
    assert m[("ringsteer_backend_connections", k, "established")] == b["conns_established"], k
    assert m[("ringsteer_backend_weight", k, None)] == b["weight"], k
    assert m[("ringsteer_backend_active", k, None)] == (b["state"] == "active"), k
PYEOF
pass "stats --prometheus parses and matches show -j"

# 6. Drain to completion: times out (3) while b2's connections are held,
# completes (0) once they are closed, and deletes the backend if asked.
held2=$(awk '$1 == "b2" { print $2 }' "$W/held")
[ -n "$held2" ] || die "no held connection on b2"
rc=0; rctl backend drain "$SVC4" "$(be4 2)" wait 2 >"$W/drain1" 2>&1 || rc=$?
[ "$rc" = 3 ] || die "drain wait with $held2 held connections exited $rc, want 3: $(cat "$W/drain1")"
grep -q ": $held2 connections left" "$W/drain1" || die "drain wait progress: $(cat "$W/drain1")"
pass "drain wait 2: exit 3 with $held2 connections held"
hold_stop
rc=0; rctl backend drain "$SVC4" "$(be4 2)" wait 300 delete >"$W/drain2" 2>&1 || rc=$?
[ "$rc" = 0 ] || die "drain wait after closing exited $rc: $(tail -n 3 "$W/drain2")"
grep -q "^drained " "$W/drain2" || die "drain wait: no 'drained' line: $(tail -n 3 "$W/drain2")"
rctl show -j | grep -q '"10.2.2.2"' && die "drain wait delete left the backend"
pass "drain wait: exit 0 once the connections closed, backend deleted"
