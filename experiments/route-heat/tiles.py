"""Used pips per tile of a routed ECP5 design, from nextpnr's --textcfg output.

    tiles.py board_top.config tiles.png

Prints the count, its quantiles over the tiles that have any, the busiest tiles, the arcs
by the kind of wire they drive (H01/V01 one tile, H02/V02 two, H06/V06 six, H00/V00 and
the tiles' local inputs) and by row and column, and draws the counts as a heat map.
"""
import collections
import re
import sys

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

cfg, png = sys.argv[1], sys.argv[2]
tile_re = re.compile(r"^\.tile (?:\w+_)?R(\d+)C(\d+):(\S+)")
arcs = collections.Counter()
kinds = collections.Counter()
cur = None
with open(cfg) as f:
    for line in f:
        if line.startswith(".tile"):
            m = tile_re.match(line)
            cur = (int(m.group(1)), int(m.group(2))) if m else None
        elif line.startswith("arc:") and cur:
            dst = re.sub(r"^[NSEW]\d_", "", line.split()[1])
            arcs[cur] += 1
            kinds[dst[:3] if dst[:1] in "HV" and dst[1:3].isdigit() else "local"] += 1
rows = max(r for r, _ in arcs) + 1
cols = max(c for _, c in arcs) + 1
grid = np.zeros((rows, cols))
for (r, c), n in arcs.items():
    grid[r, c] += n
counts = sorted(arcs.values())
print(f"tiles with arcs: {len(arcs)}, arcs: {sum(counts)}")
print("arcs by the wire they drive:", dict(kinds.most_common()))
print("arcs a tile, quantiles 50 / 90 / 99 / max:",
      [counts[min(len(counts) - 1, int(q * len(counts)))] for q in (0.5, 0.9, 0.99, 1.0)])
print("busiest tiles (row, column): arcs:", arcs.most_common(10))
print("arcs by column, every fifth:", [int(grid[:, c].sum()) for c in range(0, cols, 5)])
print("arcs by row, every fifth:", [int(grid[r, :].sum()) for r in range(0, rows, 5)])
plt.figure(figsize=(12, 9))
plt.imshow(grid, cmap="inferno", interpolation="nearest")
plt.colorbar(label="used pips a tile")
plt.xlabel("column")
plt.ylabel("row")
plt.savefig(png, dpi=80)
