"""Routing per net of a routed nextpnr netlist (--write), summed by the driving cell.

    nets.py routed.json

A net's routing is its used pips (the ROUTING attribute); its block is the first name
below the move generator (or the link top) in the driving cell's name. Synthesis names a
register's cells after the first port that reads it, so a pipeline register shows under
the stage that reads it (the view, mask and context registers under the slide and
channel stages), not the stage that computes it. Prints the sums by block and kind of
driver (flip-flop or logic), by fan-out, and the nets with the most pips; the clock's
global network apart.
"""
import collections
import json
import re
import sys

d = json.load(open(sys.argv[1]))
m = d["modules"]["top"]
cells = m["cells"]
# The driving cell and the reading cells (one entry per input port) of every net bit.
driver = {}
users = collections.defaultdict(list)
for cn, c in cells.items():
    for p, bits in c["connections"].items():
        dirn = c["port_directions"].get(p)
        for b in bits:
            if dirn == "output":
                driver[b] = cn
            elif dirn == "input":
                users[b].append(cn)


def block(name):
    p = name.split(".")
    if p[0] != "link_top_0":
        return "glue"
    if len(p) > 2 and p[1] == "move_generator_0":
        return re.sub(r"_\d+$", "", p[2]) if len(p) > 3 else "gen_regs"
    return re.sub(r"_\d+$", "", p[1]) if len(p) > 2 else "link_regs"


def loc(cn):
    a = cells[cn]["attributes"].get("NEXTPNR_BEL", "")
    mm = re.match(r"X(\d+)/Y(\d+)/", a)
    return (int(mm.group(1)), int(mm.group(2))) if mm else None


rows = []
seen = set()
for name, n in m["netnames"].items():
    r = n["attributes"].get("ROUTING")
    if not r or not n["bits"]:
        continue
    b = n["bits"][0]
    if b in seen:
        continue
    seen.add(b)
    parts = r.split(";")
    pips = sum(1 for i in range(1, len(parts), 3) if parts[i])
    drv = driver.get(b)
    L = [loc(u) for u in users[b]] + ([loc(drv)] if drv else [])
    L = [x for x in L if x]
    hpwl = (max(x for x, y in L) - min(x for x, y in L) + max(y for x, y in L) - min(y for x, y in L)) if L else 0
    dtype = cells[drv]["type"] if drv else "?"
    if dtype == "DCCA":
        # The clock, on the global network: not counted with the signal nets.
        print(f"clock net {name}: {pips} pips, {len(users[b])} sinks")
        continue
    rows.append((pips, len(users[b]), hpwl, block(drv) if drv else "?", dtype, name))
tot = sum(r[0] for r in rows)
print("signal nets", len(rows), "pips", tot)
byb = collections.defaultdict(lambda: [0, 0, 0, 0])
for p, s, h, bl, dt, nm in rows:
    k = (bl, "FF" if dt == "TRELLIS_FF" else "comb")
    byb[k][0] += p; byb[k][1] += 1; byb[k][2] += s; byb[k][3] += h
print(f"{'driver block':24s} {'kind':5s} {'nets':>7s} {'sinks':>7s} {'pips':>8s} {'%':>5s} {'pips/sink':>9s} {'hpwl':>8s}")
for k, (p, n, s, h) in sorted(byb.items(), key=lambda x: -x[1][0]):
    print(f"{k[0]:24s} {k[1]:5s} {n:7d} {s:7d} {p:8d} {100*p/tot:5.1f} {p/max(s,1):9.2f} {h:8d}")
fan = collections.defaultdict(lambda: [0, 0, 0])
for p, s, h, bl, dt, nm in rows:
    f = "1" if s <= 1 else "2-4" if s <= 4 else "5-16" if s <= 16 else "17-64" if s <= 64 else ">64"
    fan[f][0] += p; fan[f][1] += 1; fan[f][2] += s
print("by fan-out: sinks a net: nets, sinks, pips, % of pips")
for k in ("1", "2-4", "5-16", "17-64", ">64"):
    v = fan[k]
    print(f"  {k:6s} {v[1]:7d} {v[2]:7d} {v[0]:8d} {100 * v[0] / tot:5.1f}")
print("nets with the most pips: pips, sinks, hpwl, block, driver, name")
for r in sorted(rows, reverse=True)[:25]:
    print(r[0], r[1], r[2], r[3], r[4], r[5][:150])
