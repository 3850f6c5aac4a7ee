#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Turn datapath.sh's "BENCH ..." lines into a table, JSON and a chart.

report.py RAW OUT_PREFIX writes OUT_PREFIX.json, OUT_PREFIX.png and prints
the table. Rates are compared within a round (same boot, same minute):
each round's rate of a contender divided by the same round's rate of
nftables fixed "dnat to"; the table shows the median of those per-round
ratios, their min-max, and every round's ratio, so the noise is visible.
"""

import json
import math
import statistics
import sys
from collections import defaultdict

BASE = "fixed"
NAMES = {
    "plain": "routing only (no NAT, no conntrack)",
    "fixed": "nft dnat to one backend",
    "jhash": "nft dnat jhash mod N map",
    "rs256": "ringsteer 256 vnodes",
    "rs4096": "ringsteer 4096 vnodes",
    "mh": "IPVS mh, conntrack=0",
    "mhct": "IPVS mh, conntrack=1",
    "mhport": "IPVS mh mh-port",
    "sh": "IPVS sh",
    "tunipip": "ringsteer tunnel ipip",
    "tungue": "ringsteer tunnel gue",
    "tunnoft": "ringsteer tunnel ipip, no flow table",
    "tunct": "ringsteer tunnel ipip, conntrack on",
    "mhipip": "IPVS mh tun ipip",
    "mhgue": "IPVS mh tun gue",
    "slots": "ringsteer placement slots",
    "tunslots": "ringsteer tunnel ipip, slots",
    "slotsgw": "ringsteer placement slots, routed backends",
    "tunslotsgw": "ringsteer tunnel ipip, slots, routed backends",
    "mhgw": "IPVS mh, routed backends",
    "mhipipgw": "IPVS mh tun ipip, routed backends",
    "rs256gw": "ringsteer 256 vnodes, routed backends",
    "tunipipgw": "ringsteer tunnel ipip, routed backends",
}
# Placement slots against the ring and IPVS mh at 100 backends, on the
# same flows: (slots, ring, mh) for NAT and for the tunnel.
SLOTS_PEERS = [("NAT", "slots", "rs256", "mh"), ("tunnel ipip", "tunslots", "tunipip", "mhipip")]
ORDER = list(NAMES)
# Issue 18's targets: NAME over PEER, per round, at least TARGET (None: no
# target, the ratio is the finding).
TUNNEL_PAIRS = [
    ("tunipip", "mh", 1.2), ("tungue", "mh", 1.2),
    ("tunipip", "mhipip", 1.05), ("tungue", "mhgue", 1.05),
    ("tunct", "tunipip", 0.95), ("tunnoft", "tunipip", None),
]


def parse(path):
    d = {"env": {}, "rate": [], "tcp": [], "bal": [], "disr": [], "cp": [],
         "prof": {}, "profsym": defaultdict(list), "mem": [], "walk": [], "ftmem": [],
         "order": [], "orderlk": [], "slmem": [], "svcmem": [], "simdiff": []}
    for line in open(path, errors="replace"):
        w = line.split()
        if len(w) < 2 or w[0] != "BENCH":
            continue
        k, a = w[1], w[2:]
        if k == "env":
            d["env"][a[0]] = " ".join(a[1:])
        elif k == "rate":
            d["rate"].append(dict(name=a[0], kind=a[1], backends=int(a[2]), mode=a[3],
                                  round=int(a[4]), pps=float(a[5]), offered=float(a[6]),
                                  cpu0=float(a[7]), cpu1=float(a[8])))
        elif k == "tcp":
            d["tcp"].append(dict(name=a[0], kind=a[1], round=int(a[3]), cps=float(a[4]),
                                 failed=int(a[5])))
        elif k == "bal":
            d["bal"].append(dict(name=a[0], backends=int(a[1]), flows=int(a[2]),
                                 peak_mean=float(a[3]), max_min=float(a[4]),
                                 exact_peak_mean=None if a[5] == "-" else float(a[5]),
                                 counts=[int(x) for x in a[7:]]))
        elif k == "disr":
            d["disr"].append(dict(name=a[0], change=a[1], flows=int(a[2]), moved=float(a[3]),
                                  involved=float(a[4]), collateral=float(a[5]),
                                  exact=None if a[6] == "-" else float(a[6]),
                                  ideal=float(a[7]), lost=int(a[9])))
        elif k == "cp":
            d["cp"].append(dict(what=a[0], tool=a[1], round=int(a[2]), ms=float(a[3])))
        elif k == "prof":
            d["prof"][a[0]] = {a[i]: float(a[i + 1]) for i in range(1, len(a) - 1, 2)}
        elif k == "profsym":
            d["profsym"][a[0]].append(dict(pct=float(a[1]), dso=a[2], sym=a[3]))
        elif k == "mem":
            d["mem"].append(dict(backends=int(a[0]), vnodes=int(a[1]), points=int(a[2]),
                                 bytes=int(a[3]), peak_mean=float(a[4])))
        elif k == "ftmem":
            d["ftmem"].append(dict(name=a[0], backends=int(a[1]), entries=int(a[2]),
                                   charged=int(a[3]), cpus=int(a[4]), entry_bytes=int(a[5])))
        elif k == "order":
            d["order"].append(dict(name=a[0], flows=int(a[1]), differ=int(a[2]),
                                   fraction=float(a[3]), fp_a=a[4], fp_b=a[5], lost=int(a[7])))
        elif k == "orderlk":
            d["orderlk"].append(dict(name=a[0], flows=int(a[1]), differ=int(a[2]),
                                     fp_a=a[3], fp_b=a[4]))
        elif k == "simdiff":
            d["simdiff"].append(dict(name=a[0], flows=int(a[1]), differ=int(a[2]), first=a[3:]))
        elif k == "slmem":
            d["slmem"].append(dict(backends=int(a[0]), capacity=int(a[1]), bytes=int(a[2]),
                                   probes_mean=float(a[3]), probes_max=int(a[4])))
        elif k == "svcmem":
            d["svcmem"].append(dict(name=a[0], backends=int(a[1]), charged=int(a[2])))
        elif k == "walk":
            d["walk"].append(dict(size=int(a[0]), entries=int(a[1]), round=int(a[2]),
                                  ms=float(a[3])))
    return d


def walk_costs(rows):
    """Per table size: show's time, and the walk's share over the empty table."""
    by = defaultdict(list)
    for r in rows:
        by[r["size"]].append(r)
    if 0 not in by:
        return []
    base = statistics.median(r["ms"] for r in by[0])
    out = []
    for size in sorted(by):
        ms = summary([r["ms"] for r in by[size]])
        entries = max(r["entries"] for r in by[size])
        walk = ms["median"] - base
        out.append(dict(size=size, entries=entries, show_ms=ms, walk_ms=walk,
                        ns_per_entry=walk * 1e6 / entries if entries else None))
    return out


def ratios(rows, key, base_name, value):
    """Per-round ratio of every name to base_name, same round and key."""
    by = defaultdict(dict)
    for r in rows:
        by[(key(r), r["round"])][r["name"]] = r[value]
    out = defaultdict(list)
    for (k, rnd), m in sorted(by.items(), key=lambda x: (str(x[0][0]), x[0][1])):
        if base_name not in m or not m[base_name]:
            continue
        for n, v in m.items():
            out[(k, n)].append(v / m[base_name])
    return out


def summary(vals):
    return dict(median=statistics.median(vals), min=min(vals), max=max(vals), rounds=vals)


def build(d):
    res = {"env": d["env"], "rates": {}, "tcp": {}, "scaling": {}}
    rr = [r for r in d["rate"] if r["backends"] == 8 or r["name"] == BASE]
    rat = ratios(rr, lambda r: r["mode"], BASE, "pps")
    rat_plain = ratios(rr, lambda r: r["mode"], "plain", "pps")
    for mode in ("new", "est"):
        res["rates"][mode] = {}
        for n in ORDER:
            rows = [r for r in rr if r["name"] == n and r["mode"] == mode]
            if not rows:
                continue
            res["rates"][mode][n] = dict(
                pps=summary([r["pps"] for r in rows]),
                offered=statistics.median(r["offered"] for r in rows),
                cpu0=statistics.median(r["cpu0"] for r in rows),
                cpu1=statistics.median(r["cpu1"] for r in rows),
                vs_fixed=summary(rat[(mode, n)]) if rat[(mode, n)] else None,
                vs_plain=summary(rat_plain[(mode, n)]) if rat_plain[(mode, n)] else None)
    # ringsteer against each peer, per round.
    for mode in ("new", "est"):
        rs = ratios(rr, lambda r: r["mode"], "rs256", "pps")
        res["rates"][mode + "_rs256_over"] = {
            n: summary([1 / x for x in rs[(mode, n)]]) for n in ORDER
            if rs[(mode, n)] and n != "rs256"}
    sc = [r for r in d["rate"] if r["mode"] == "new" and (r["name"] == BASE or "-" in r["name"])]
    srat = ratios(sc, lambda r: "new", BASE, "pps")
    for r in sc:
        if "-" not in r["name"]:
            continue
        kind, nb = r["name"].split("-")
        ent = res["scaling"].setdefault(kind, {}).setdefault(nb, {})
        ent.setdefault("pps", []).append(r["pps"])
    for kind, m in res["scaling"].items():
        for nb, ent in m.items():
            ent["pps"] = summary(ent["pps"])
            v = srat[("new", f"{kind}-{nb}")]
            ent["vs_fixed"] = summary(v) if v else None
    trat = ratios(d["tcp"], lambda r: "tcp", BASE, "cps")
    for n in ORDER:
        rows = [r for r in d["tcp"] if r["name"] == n]
        if rows:
            res["tcp"][n] = dict(cps=summary([r["cps"] for r in rows]),
                                 failed=sum(r["failed"] for r in rows),
                                 vs_fixed=summary(trat[("tcp", n)]) if trat[("tcp", n)] else None)
    res["tunnel"] = {}
    for mode in ("new", "est"):
        for n, peer, target in TUNNEL_PAIRS:
            v = ratios(rr, lambda r: r["mode"], peer, "pps")[(mode, n)]
            if v:
                res["tunnel"][f"{mode} {n}/{peer}"] = dict(
                    ratio=summary(v), target=target,
                    met=None if target is None else statistics.median(v) >= target)
    res["flow_table_memory"] = d["ftmem"]
    res["balance"] = d["bal"]
    res["slots_balance"] = slots_balance(d["bal"], d["disr"])
    res["flatness"] = {k: flatness(sc, k) for k in res["scaling"]}
    res["steadiness"] = steadiness(d["env"])
    res["order"] = d["order"]
    res["order_lookups"] = d["orderlk"]
    res["kernel_vs_simulate"] = d["simdiff"]
    res["slots_memory"] = d["slmem"]
    res["service_memory"] = d["svcmem"]
    res["disruption"] = d["disr"]
    cp = defaultdict(list)
    for r in d["cp"]:
        cp[(r["what"], r["tool"])].append(r["ms"])
    res["control_ms"] = {f"{w} {t}": summary(v) for (w, t), v in cp.items()}
    res["profile"] = d["prof"]
    res["profile_top"] = d["profsym"]
    res["memory"] = d["mem"]
    res["walk"] = walk_costs(d["walk"])
    return res


def slots_balance(bal, disr):
    """At 100 backends: each placement's peak/mean on the same flows, the
    floor 1 + 3 sqrt(N/F), slots over the ring and over IPVS mh, and the
    collateral of the 101st joining."""
    out = []
    for what, sl, ring, mh in SLOTS_PEERS:
        b = {x["name"]: x for x in bal if x["backends"] == 100 and x["name"] in (sl, ring, mh)}
        if sl not in b:
            continue
        f = b[sl]["flows"]
        e = dict(what=what, slots=sl, flows=f, floor=1 + 3 * (100 / f) ** 0.5,
                 peak_mean={n: b[n]["peak_mean"] for n in b},
                 max_min={n: b[n]["max_min"] for n in b})
        for peer in (ring, mh):
            if peer in b:
                e[f"slots_over_{peer}"] = b[sl]["peak_mean"] / b[peer]["peak_mean"]
        j = [x for x in disr if x["name"] == sl and x["change"] == "join100"]
        if j:
            e["join_moved"], e["join_collateral"] = j[0]["moved"], j[0]["collateral"]
            e["join_exact"] = j[0]["exact"]
        out.append(e)
    return out


# The LB's CPU (cpu1) busy share, in percent, from which a rate is its own.
SATURATED = 97


def flatness(rows, kind):
    """New flows at the most backends over the fewest, each round's pair
    divided in that round (the two run a few seconds apart, so a slow
    minute of the host slows both): the median of those ratios and the
    confidence interval of that median."""
    by = defaultdict(dict)
    for r in rows:
        k, _, nb = r["name"].partition("-")
        if k == kind and nb:
            by[r["round"]][int(nb)] = r
    sizes = sorted({nb for m in by.values() for nb in m})
    if len(sizes) < 2:
        return None
    lo, hi = sizes[0], sizes[-1]
    pairs = [(m[lo], m[hi]) for _, m in sorted(by.items()) if lo in m and hi in m]
    if not pairs:
        return None
    busy = statistics.median(r["cpu1"] for p in pairs for r in p)
    # Below saturation the rate is the generator's: compare the LB's CPU
    # a packet instead (busy share over rate), fewest over most.
    by_cpu = busy < SATURATED
    if by_cpu:
        per = [(a["cpu1"] / a["pps"]) / (b["cpu1"] / b["pps"]) for a, b in pairs]
    else:
        per = [b["pps"] / a["pps"] for a, b in pairs]
    ci = median_ci(per)
    return dict(low=lo, high=hi, ratio=statistics.median(per), rounds=per,
                by_cpu=by_cpu, cpu1=busy,
                ci=ci[:2] if ci else None, ci_level=ci[2] if ci else None)


def median_ci(vals, level=0.95):
    """The distribution-free interval of the median, from order statistics:
    the widest k with P(Binomial(n, 1/2) < k) <= (1 - level) / 2 gives
    [x(k), x(n-k+1)], which holds the true median with probability at
    least level whatever the rounds' distribution. None below 6 rounds,
    where even [min, max] holds it with less than 95%."""
    n = len(vals)
    xs = sorted(vals)
    tail = 0.0
    k = 0
    while True:
        nxt = tail + math.comb(n, k) / 2 ** n
        if nxt > (1 - level) / 2:
            break
        tail = nxt
        k += 1
    if k == 0:
        return None
    return xs[k - 1], xs[n - k], 1 - 2 * tail


def fmt_sum(s, f="{:.2f}"):
    if not s:
        return "-"
    return f"{f.format(s['median'])} ({f.format(s['min'])}-{f.format(s['max'])})"


# Below this, the guest's speed moved more within seconds than the 5% the
# scaling targets are read at (speed.py).
STEADY = 0.9


def steadiness(env):
    """Each speed probe's slowest window over its fastest, the lower of
    the two CPUs; {} for a run made before datapath.sh had the probes."""
    out = {}
    for when in ("before", "after"):
        w = env.get(f"speed_{when}", "").split()
        lows = [int(w[i + 1]) / int(w[i + 3]) for i in range(0, len(w) - 3, 4)
                if w[i].startswith("cpu") and int(w[i + 3]) > 0]
        if lows:
            out[when] = min(lows)
    return out


def table(res):
    out = []
    p = out.append
    p(f"kernel {res['env'].get('kernel', '?')}, {res['env'].get('cpus', '?')} vCPUs (TCG), "
      f"{res['env'].get('date', '?')}, host load {res['env'].get('host_load', '?')}")
    st = res["steadiness"]
    if st:
        p("guest CPU speed, slowest window of a measurement's length over fastest: " +
          ", ".join(f"{w} {v:.2f}" for w, v in st.items()))
        if min(st.values()) < STEADY:
            p(f"WARNING: below {STEADY}: the host's speed moved within seconds, and ratios "
              "of measurements seconds apart may not be readable to 5%: read the 96% intervals")
    for mode, title in (("new", "UDP new flows/s (every packet a new flow)"),
                        ("est", "UDP packets/s on 64 established flows")):
        p("")
        p(f"{title}: median of rounds, ratio to '{NAMES[BASE]}' in the same round")
        p(f"  {'contender':38} {'pps':>16} {'vs fixed dnat':>22} {'vs routing':>8}  cpu0/cpu1%  per-round vs fixed")
        for n, e in res["rates"].get(mode, {}).items():
            per = " ".join(f"{x:.2f}" for x in (e["vs_fixed"] or {}).get("rounds", []))
            p(f"  {NAMES[n]:38} {fmt_sum(e['pps'], '{:.0f}'):>16} {fmt_sum(e['vs_fixed']):>22} "
              f"{(e['vs_plain'] or {}).get('median', 0):8.2f}  {e['cpu0']:3.0f}/{e['cpu1']:3.0f}     {per}")
        over = res["rates"].get(mode + "_rs256_over", {})
        if over:
            p("  ringsteer 256 / peer: " + ", ".join(
                f"{n} {s['median']:.2f}" for n, s in over.items()))
    if res["tcp"]:
        p("")
        p("TCP short connections/s (client and server share cpu0, see doc/performance.md)")
        for n, e in res["tcp"].items():
            p(f"  {NAMES[n]:38} {fmt_sum(e['cps'], '{:.0f}'):>16} {fmt_sum(e['vs_fixed']):>22}  failed {e['failed']}")
    if res["scaling"]:
        p("")
        p("Scaling: new flows/s by backend count, ratio to fixed dnat; most over fewest backends, "
          "the median of each round's own ratio")
        for kind, m in res["scaling"].items():
            fl = res["flatness"].get(kind)
            p(f"  {kind:8} " + "  ".join(
                f"{nb}: {fmt_sum(e['vs_fixed'])}" for nb, e in sorted(m.items(), key=lambda x: int(x[0])))
              + (f"  {fl['high']}/{fl['low']}: {fl['ratio']:.3f}" if fl else ""))
            if fl:
                ci = (f"{fl['ci_level']:.0%} interval of the median {fl['ci'][0]:.3f}-{fl['ci'][1]:.3f}"
                      if fl["ci"] else "too few rounds for a 95% interval")
                if fl["by_cpu"]:
                    p(f"           the LB not saturated (cpu1 {fl['cpu1']:.0f}%): "
                      "ratios of its CPU a packet, not of rates")
                p(f"           {fl['high']}/{fl['low']} per round: "
                  + " ".join(f"{x:.3f}" for x in fl["rounds"]) + f"; {ci}")
    for m in res["service_memory"]:
        p(f"  {m['name']:12} {m['backends']:5} backends: {m['charged'] / 1024:9.1f} KiB charged to its restore")
    if res["tunnel"]:
        p("")
        p("Forward tunnel: per-round ratio NAME/PEER on UDP, median (min-max), issue 18's target")
        for k, e in res["tunnel"].items():
            t = "" if e["target"] is None else (
                f"  target >= {e['target']:.2f}: {'met' if e['met'] else 'MISSED'}")
            p(f"  {k:24} {fmt_sum(e['ratio'])}{t}")
    for m in res.get("flow_table_memory", []):
        p(f"  {m['name']} ({m['backends']} backends): flow table of {m['entries']} entries a CPU, "
          f"{m['cpus']} possible CPUs: "
          f"{m['charged'] / 1024:.0f} KiB charged, {m['charged'] / m['cpus'] / 1024:.0f} KiB a CPU "
          f"({m['entry_bytes'] / 1024:.0f} KiB of entries; the service's ring included)")
    if res["memory"]:
        p("")
        p("Ring memory per service (ringctl simulate)")
        for m in res["memory"]:
            p(f"  {m['backends']:5} backends, {m['vnodes']:5} vnodes: {m['points']:8} points "
              f"{m['bytes'] / 1024:9.1f} KiB  peak/mean {m['peak_mean']:.3f}")
    if res["walk"]:
        p("")
        p("Live connection count: 'ringctl show' of one service (one conntrack walk), ms")
        for w in res["walk"]:
            per = f"  {w['ns_per_entry']:.0f} ns per entry" if w["ns_per_entry"] else ""
            p(f"  {w['entries']:8} conntrack entries: {fmt_sum(w['show_ms'], '{:.1f}'):>22}  "
              f"walk {w['walk_ms']:.1f}{per}")
    if res["balance"]:
        p("")
        p("Balance on real flows: peak/mean, max/min (exact ring peak/mean)")
        for b in res["balance"]:
            ex = f" (exact {b['exact_peak_mean']:.3f})" if b["exact_peak_mean"] else ""
            p(f"  {NAMES.get(b['name'], b['name']):38} {b['backends']:4} backends {b['flows']:7} flows: "
              f"{b['peak_mean']:.3f} {b['max_min']:8.3f}{ex}")
    if res["disruption"]:
        p("")
        p("Disruption: fraction of flows moved, of which involving the changed backend / collateral")
        for x in res["disruption"]:
            ex = f" exact {x['exact']:.4f}" if x["exact"] is not None else ""
            p(f"  {NAMES.get(x['name'], x['name']):38} {x['change']:7} moved {x['moved']:.4f} = "
              f"{x['involved']:.4f} + collateral {x['collateral']:.4f}  ideal {x['ideal']:.4f}{ex}"
              f"{'  lost %d' % x['lost'] if x['lost'] else ''}")
    if res["slots_balance"]:
        p("")
        p("Placement slots against the ring and IPVS mh, 100 backends, the same flows: peak/mean")
        for e in res["slots_balance"]:
            pm = e["peak_mean"]
            p(f"  {e['what']:12} {e['flows']} flows: " + ", ".join(
                f"{NAMES.get(n, n)} {v:.3f}" for n, v in pm.items())
              + f"; floor 1 + 3 sqrt(N/F) = {e['floor']:.3f}: slots "
              + ("within" if pm[e["slots"]] <= e["floor"] else "ABOVE"))
            p("    slots over " + ", ".join(f"{k[11:]} {v:.3f}" for k, v in e.items()
                                            if k.startswith("slots_over_")))
            if "join_moved" in e:
                p(f"    a 101st joins: moved {e['join_moved']:.4f} (rule {e['join_exact']}), "
                  f"collateral {e['join_collateral']:.6f}")
    for x in res["kernel_vs_simulate"]:
        p(f"  {NAMES.get(x['name'], x['name']):38} kernel vs ringctl simulate on the same flows: "
          f"{x['differ']} of {x['flows']} differ {' '.join(x['first'])}")
    if res["order"]:
        p("")
        p("Order: in order, then reverse order with one deleted and added again: flows that differ")
        for o in res["order"]:
            fp = "" if o["fp_a"] == "-" else (
                f", fingerprints {'equal' if o['fp_a'] == o['fp_b'] else 'DIFFER'} ({o['fp_a']})")
            p(f"  {NAMES.get(o['name'], o['name']):38} {o['differ']} of {o['flows']} "
              f"({o['fraction']:.4%}){fp}{'  lost %d' % o['lost'] if o['lost'] else ''}")
        for o in res["order_lookups"]:
            p(f"  {NAMES.get(o['name'], o['name']):38} kernel lookups: {o['differ']} of {o['flows']} differ, "
              f"fingerprints {'equal' if o['fp_a'] == o['fp_b'] else 'DIFFER'}")
    if res["slots_memory"]:
        p("")
        p("Placement slots per service (ringctl simulate): bytes, probes a lookup")
        for m in res["slots_memory"]:
            p(f"  {m['backends']:5} of {m['capacity']:5} slots: {m['bytes']:8} bytes, "
              f"probes {m['probes_mean']:.3f} mean, {m['probes_max']} max")
    if res["control_ms"]:
        p("")
        p("Control plane, ms per command (process start included; 'exec' is /bin/true)")
        for k, s in sorted(res["control_ms"].items()):
            p(f"  {k:28} {fmt_sum(s, '{:.1f}')}")
    if res["profile"]:
        p("")
        p("Where the LB CPU goes on new flows (perf cpu-clock on the LB's CPU, % of samples)")
        for n, m in res["profile"].items():
            p(f"  {NAMES.get(n, n):38} " + " ".join(
                f"{c} {v:.1f}" for c, v in sorted(m.items(), key=lambda x: -x[1])))
    return "\n".join(out)


def chart(res, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 3, figsize=(15, 4.8))
    names = [n for n in ORDER if n in res["rates"].get("new", {})]
    x = range(len(names))
    for off, mode, lab in ((-0.2, "new", "new flows"), (0.2, "est", "established")):
        e = [res["rates"].get(mode, {}).get(n) for n in names]
        med = [v["vs_fixed"]["median"] if v and v["vs_fixed"] else 0 for v in e]
        lo = [m - v["vs_fixed"]["min"] if v and v["vs_fixed"] else 0 for m, v in zip(med, e)]
        hi = [v["vs_fixed"]["max"] - m if v and v["vs_fixed"] else 0 for m, v in zip(med, e)]
        ax[0].bar([i + off for i in x], med, 0.4, yerr=[lo, hi], capsize=3, label=lab)
    ax[0].axhline(1, color="k", lw=0.8)
    ax[0].set_xticks(list(x), names, rotation=45, ha="right")
    ax[0].set_title("UDP rate / nft fixed dnat (median, min-max)")
    ax[0].legend()
    bal = [b for b in res["balance"] if b["backends"] == 100]
    ax[1].bar([b["name"] for b in bal], [b["peak_mean"] for b in bal])
    ax[1].set_ylim(bottom=0.9)
    ax[1].set_title("balance: peak/mean, 100 backends")
    ax[1].tick_params(axis="x", rotation=45)
    dis = res["disruption"]
    dn = list(dict.fromkeys(x["name"] for x in dis))
    for j, ch in enumerate(("join", "leave", "drain", "weight")):
        v = [next((x["moved"] for x in dis if x["name"] == n and x["change"] == ch), 0) for n in dn]
        c = [next((x["collateral"] for x in dis if x["name"] == n and x["change"] == ch), 0) for n in dn]
        pos = [i + (j - 1.5) * 0.2 for i in range(len(dn))]
        ax[2].bar(pos, v, 0.2, label=ch)
        ax[2].bar(pos, c, 0.2, color="k")
    ax[2].set_xticks(range(len(dn)), dn, rotation=45, ha="right")
    ax[2].set_yscale("log")
    ax[2].set_title("flows moved per change (black: collateral)")
    ax[2].legend(fontsize=8)
    fig.suptitle(f"ringsteer vs IPVS and nftables, kernel {res['env'].get('kernel', '?')}, "
                 f"TCG, {res['env'].get('date', '')}")
    fig.tight_layout()
    fig.savefig(path, dpi=70)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: report.py RAW OUT_PREFIX")
    res = build(parse(sys.argv[1]))
    with open(sys.argv[2] + ".json", "w") as f:
        json.dump(res, f, indent=1)
    print(table(res))
    try:
        chart(res, sys.argv[2] + ".png")
    except (ValueError, KeyError, IndexError) as e:
        print(f"no chart: {e}")
    print(f"\nwrote {sys.argv[2]}.json {sys.argv[2]}.png")


if __name__ == "__main__":
    main()
