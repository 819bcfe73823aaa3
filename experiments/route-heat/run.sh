#!/usr/bin/env bash
# Where the chip's routing goes (experiments/flow.md, "Where the routing goes"): the last
# place and route of `cargo xtask bitstream` run again with its own command (the first line
# of build/bitstream/pnr.log: same netlist, seed and options, so the same placement and
# route), writing the routed netlist; then the used pips per tile of the device (a heat map)
# and per net, summed by the driving cell's block and by fan-out.
#
#   experiments/route-heat/run.sh      # from the project root, after a bitstream run;
#                                           # as long as that run's place and route
#
# Outputs in build/route-heat/: routed.json, board_top.config, pnr.log, tiles.png,
# tiles.txt, nets.txt. numpy and matplotlib go into a venv of their own there.
source "$(dirname "$0")/../common.sh"
cd "$root"
log="$root/build/bitstream/pnr.log"
[ -f "$log" ] || { echo "error: $log is missing: run cargo xtask bitstream first" >&2; exit 1; }
cmd=$(head -1 "$log" | sed -n 's/^\$ //p')
[ -n "$cmd" ] || { echo "error: the first line of $log is not the nextpnr command" >&2; exit 1; }
cmd=$(sed -e "s#--textcfg [^ ]*#--textcfg $out/board_top.config#" \
    -e "s#--report [^ ]*#--report $out/nextpnr-report.json#" <<< "$cmd")

venv="$out/venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import numpy, matplotlib' 2> /dev/null; then
    echo "  installing numpy and matplotlib into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q numpy==2.4.6 matplotlib==3.11.2
fi

echo "  place and route (the flow's command, with --write): log in $out/pnr.log"
# shellcheck disable=SC2086 # the command's words, as the flow logged them
$cmd --write "$out/routed.json" > "$out/pnr.log" 2>&1 \
    || { echo "error: nextpnr failed: see $out/pnr.log" >&2; tail -5 "$out/pnr.log" >&2; exit 1; }
grep 'Max frequency' "$out/pnr.log" | tail -1
"$venv/bin/python" "$here/tiles.py" "$out/board_top.config" "$out/tiles.png" | tee "$out/tiles.txt"
"$venv/bin/python" "$here/nets.py" "$out/routed.json" | tee "$out/nets.txt"
