#!/usr/bin/env bash
# The chip's longest paths after placement, in minutes rather than the hours of a route
# (experiments/flow.md, "Critical paths from the placement"): the netlist of the last
# `cargo xtask bitstream --synth-only` (or full run) placed with the flow's device and
# placer, not routed, its SDF written (nextpnr's interconnect estimates), then the paths
# worked out from the SDF by paths.py (the arithmetic of nextpnr's own estimate).
#
#   experiments/placed-paths/run.sh [MARGIN]   # from the project root; default 1.1
#
# As the flow does, the clock is placed against the target times MARGIN: the board's LPF
# (constraints/ulx3s.lpf) with its oscillator's FREQUENCY scaled, in a copy.
#
# Outputs in build/placed-paths/: pnr.log, placed.sdf, placed.json (the placement, which
# `nextpnr-ecp5 --json placed.json --no-pack --no-place` routes alone), paths.txt.
source "$(dirname "$0")/../common.sh"
cd "$root"
net="$root/build/bitstream/board_top.json"
[ -f "$net" ] || { echo "error: $net is missing: run cargo xtask bitstream --synth-only first" >&2; exit 1; }
margin=${1:-1.1}
lpf="$out/ulx3s.lpf"
awk -v m="$margin" '/^FREQUENCY PORT "clk_25mhz"/ { printf "FREQUENCY PORT \"clk_25mhz\" %g MHZ;\n", 25 * m; next } { print }' \
    "$root/constraints/ulx3s.lpf" > "$lpf"
echo "  placing (static placer, seed 1, the clock times $margin): log in $out/pnr.log"
"$root/.tools/bin/nextpnr-ecp5" --85k --package CABGA381 --speed 6 --json "$net" --lpf "$lpf" \
    --seed 1 --placer static --timing-allow-fail --no-route \
    --sdf "$out/placed.sdf" --write "$out/placed.json" > "$out/pnr.log" 2>&1 \
    || { echo "error: nextpnr failed: see $out/pnr.log" >&2; tail -5 "$out/pnr.log" >&2; exit 1; }
grep 'Max frequency' "$out/pnr.log" | tail -1
python3 "$here/paths.py" "$out/placed.sdf" | tee "$out/paths.txt"
