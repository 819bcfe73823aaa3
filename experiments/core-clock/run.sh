#!/usr/bin/env bash
# The generator's core on a clock of half the stream's (experiments/flow.md, "The
# generator's core on a clock of its own"): a timing probe, not a working chip. The five registers of
# the generator's core (view, masks, context, slides, channels) are moved in Spade's
# Verilog onto a second PLL output at half the frequency, phase-aligned with the first;
# everything else (store, stream, link) stays on the fast clock. Nothing else changes, so
# the start pipeline is as short as before and the chip does not work; what it shows is
# where each clock's paths end up once the core's are charged to the slow one.
#
#   experiments/core-clock/run.sh [OPTIONS] [FAST_MHZ [SEED]]   # from the project root
#
# FAST_MHZ (default 100): the fast clock (25 MHz x 4 by default, the core at half of it);
# placed and routed against 1.1 times both, as the flow does. Synthesis takes about five
# minutes, placement three, routing an hour or more. Options: --no-route (placement
# only), --synth-only (no place and route), --keep-stream (the stream kept as a module
# through the LUT mapping, so that abc9 maps it against its own depth rather than the
# core's). Outputs in build/core-clock/: the patched Verilog, synth.log, board_top.json,
# pnr.log and nextpnr's report.json; the clocks' Fmax and the cross-domain delays on the
# terminal. --core REGS moves only the registers named (comma-separated, of view,
# mask_stage, context, slides, channels) onto the slow clock. `cargo xtask depth
# build/core-clock/board_top.json --verilog build/core-clock/spade.sv` (with --keep-stream
# also `--top 'tsume::movegen::move_stream::move_stream'`) gives the logic depth by register.
source "$(dirname "$0")/../common.sh"
no_route="" pnr=1 keep="" core=""
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --no-route) no_route=--no-route ;;
        --synth-only) pnr="" ;;
        --keep-stream) keep=1 ;;
        --core)
            [ $# -gt 1 ] || { echo "error: --core needs a list of registers, e.g. --core mask_stage,slides" >&2; exit 1; }
            core="$2"; shift ;;
        -*) echo "error: unknown option $1 (options: --no-route, --synth-only, --keep-stream, --core REGS)" >&2; exit 1 ;;
        *) args+=("$1") ;;
    esac
    shift
done
fast="${args[0]:-100}"
seed="${args[1]:-1}"
nextpnr="$root/.tools/bin/nextpnr-ecp5"
[ -x "$nextpnr" ] || { echo "error: $nextpnr is missing: run cargo xtask setup" >&2; exit 1; }
case "$fast" in
    100) fb=4; op=6; os=12 ;;   # VCO 600 MHz: 100 and 50 MHz
    75) fb=3; op=8; os=16 ;;    # VCO 600 MHz: 75 and 37.5 MHz
    *) echo "error: FAST_MHZ $fast: this probe knows 100 and 75" >&2; exit 1 ;;
esac
cd "$root"
cargo xtask hdl
cp build/spade.sv "$out/spade.sv"

# The FPGA flow's Verilog (swim.toml [fpga] verilog): the PLL primitive and the link settings.
pll=$(grep -o '"[^"]*ecp5_pll\.v"' "$root/swim.toml" | tr -d '"' | head -1)
config=$(grep -o '"[^"]*board_config\.v"' "$root/swim.toml" | tr -d '"' | head -1)
[ -n "$pll" ] && [ -n "$config" ] || { echo "error: swim.toml [fpga] verilog names no ecp5_pll.v and board_config.v" >&2; exit 1; }

# The core's registers onto clk_core, threaded from the PLL's CLKOS (added to a copy of
# the PLL's Verilog) through link_top.
python3 "$here/patch.py" "$out/spade.sv" "$root/$pll" "$out/ecp5_pll.v" ${core:+"$core"}

cpb=$(( (fast * 1000000 + 57600) / 115200 ))
cat > "$out/synth.ys" <<EOF
read_verilog -sv "$out/spade.sv"
read_verilog "$out/ecp5_pll.v"
read_verilog "$root/$config"
setparam -set CLKI_DIV 1 -set CLKFB_DIV $fb -set CLKOP_DIV $op -set CLKOP_CPHASE $((op / 2 - 1)) -set CLKOS_DIV $os -set CLKOS_CPHASE $((os / 2 - 1)) board_top/ecp5_pll_0
setparam -set CLOCKS_PER_BIT $cpb -set TIMEOUT_BITS 2000 board_top/board_config_0
synth_ecp5 -top board_top -run begin:coarse
proc
${keep:+setattr -mod -set keep_hierarchy 1 \\tsume::movegen::move_stream::move_stream}
flatten -noscopeinfo
synth_ecp5 -top board_top -run coarse: -json "$out/board_top.json"
EOF
sed 's/^FREQUENCY PORT "clk_25mhz" 25 MHZ;/FREQUENCY PORT "clk_25mhz" 27.5 MHZ;/' \
    "$root/constraints/ulx3s.lpf" > "$out/ulx3s.lpf"
grep -q '27.5 MHZ' "$out/ulx3s.lpf" || { echo "error: no 25 MHz FREQUENCY line in constraints/ulx3s.lpf" >&2; exit 1; }

t0=$SECONDS
echo "  . synth (yosys, about five minutes)"
"$yosys" -q -l "$out/synth.log" "$out/synth.ys" > /dev/null \
    || { echo "error: yosys failed: see $out/synth.log" >&2; tail -5 "$out/synth.log" >&2; exit 1; }
echo "  ✓ synth ($((SECONDS - t0)) s)"
[ -n "$pnr" ] || exit 0
t0=$SECONDS
echo "  . pnr (nextpnr-ecp5, static placer, seed $seed${no_route:+, placement only})"
"$nextpnr" --85k --package CABGA381 --speed 6 --json "$out/board_top.json" --lpf "$out/ulx3s.lpf" \
    --freq "$(python3 -c "print($fast * 1.1)")" --seed "$seed" --placer static --router router1 \
    --timing-allow-fail --report "$out/report.json" $no_route > "$out/pnr.log" 2>&1 \
    || { echo "error: nextpnr failed: see $out/pnr.log" >&2; tail -5 "$out/pnr.log" >&2; exit 1; }
echo "  ✓ pnr ($((SECONDS - t0)) s)"
grep -E "Derived frequency|Max frequency|Max delay posedge" "$out/pnr.log" | sed 's/^Info: */  /'
