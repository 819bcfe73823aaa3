#!/usr/bin/env python3
"""LUT levels in front of every flip-flop of a mapped ECP5 netlist (yosys JSON), grouped by
the stage register each flip-flop drives.

Delay model as in the bitstream report (xtask/src/depth.rs): LUT4 1 level, PFUMX and
L6MUX21 0.35, a carry cell 1 from its inputs and 0.06 along the chain; flip-flops, I/O,
the PLL and RAM start and end paths. Every flip-flop input (DI, CE, LSR, M) counts.

usage: depth_by_stage.py NETLIST.json GROUPS_DIR
GROUPS_DIR holds one `ff-<stage>.txt` per stage: `select -list` output (module/cell) of
the flip-flop cells of that stage in the netlist before mapping; cell names survive
mapping when the netlist is written before synth_ecp5's renaming (`-run map_cells:check`).
A cell flattened out of the `chanstub` instance (the cone mapped apart) is matched without
its `$flatten\\chanstub.` prefix.
"""
import json
import pathlib
import sys
import threading

# As xtask/src/depth.rs (SEQUENTIAL, delay): keep the two the same.
SOURCES = ("TRELLIS_FF", "TRELLIS_IO", "EHXPLLL", "DCCA", "DP16KD", "MULT18X18D")


def delay(kind, port):
    if kind in ("PFUMX", "L6MUX21"):
        return 0.35
    if kind == "CCU2C" and port == "CIN":
        return 0.06
    return 1.0


def main():
    netlist, groups_dir = sys.argv[1], pathlib.Path(sys.argv[2])
    module = json.load(open(netlist))["modules"]["board_top"]
    cells = module["cells"]
    driver = {}
    for name, c in cells.items():
        for port, bits in c["connections"].items():
            if c["port_directions"].get(port) == "output":
                for b in bits:
                    if isinstance(b, int):
                        driver[b] = name
    memo = {}

    def arrival(bit):
        if not isinstance(bit, int) or bit not in driver:
            return 0.0
        name = driver[bit]
        c = cells[name]
        if c["type"] in SOURCES:
            return 0.0
        if name not in memo:
            memo[name] = 0.0
            best = 0.0
            for port, bits in c["connections"].items():
                if c["port_directions"].get(port) == "input":
                    d = delay(c["type"], port)
                    for b in bits:
                        best = max(best, arrival(b) + d)
            memo[name] = best
        return memo[name]

    stage_of = {}
    for f in sorted(groups_dir.glob("ff-*.txt")):
        for line in f.read_text().split():
            stage_of[line.split("/", 1)[1]] = f.stem[3:]
    kinds = {}
    for c in cells.values():
        kinds[c["type"]] = kinds.get(c["type"], 0) + 1
    levels = {}
    for name, c in cells.items():
        if c["type"] != "TRELLIS_FF":
            continue
        v = max(
            (arrival(b) for p in ("DI", "CE", "LSR", "M") for b in c["connections"].get(p, [])),
            default=0.0,
        )
        key = name.split(".", 1)[1] if name.startswith("$flatten\\chanstub.") else name
        levels.setdefault(stage_of.get(key, "others (store, stream, link)"), []).append(v)
    print(f"{netlist}: LUT4 {kinds.get('LUT4', 0):,}, FF {kinds.get('TRELLIS_FF', 0):,}, "
          f"PFUMX {kinds.get('PFUMX', 0):,}, L6MUX21 {kinds.get('L6MUX21', 0):,}")
    parts = {}
    for name, c in cells.items():
        if c["type"] in ("LUT4", "PFUMX", "L6MUX21") and name.startswith("$flatten\\"):
            part = name[len("$flatten\\"):].split(".", 1)[0]
            parts.setdefault(part, {}).setdefault(c["type"], 0)
            parts[part][c["type"]] += 1
    for part, k in sorted(parts.items()):
        print(f"  mapped in `{part}`: LUT4 {k.get('LUT4', 0):,}, PFUMX {k.get('PFUMX', 0):,}, "
              f"L6MUX21 {k.get('L6MUX21', 0):,}")
    print(f"  {'registers':<30} {'FF':>6} {'deepest':>8} {'>5':>6} {'>6':>6} {'>7':>6}")
    every = []
    for stage, ls in sorted(levels.items()):
        every += ls
        print(f"  {stage:<30} {len(ls):>6} {max(ls):>8.2f} {sum(x > 5 for x in ls):>6} "
              f"{sum(x > 6 for x in ls):>6} {sum(x > 7 for x in ls):>6}")
    print(f"  {'all':<30} {len(every):>6} {max(every):>8.2f} {sum(x > 5 for x in every):>6} "
          f"{sum(x > 6 for x in every):>6} {sum(x > 7 for x in every):>6}")


sys.setrecursionlimit(1_000_000)
threading.stack_size(1 << 29)
t = threading.Thread(target=main)
t.start()
t.join()
