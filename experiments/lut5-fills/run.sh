#!/usr/bin/env bash
# The fills as hand-mapped LUT5 pairs (experiments/fills.md, "Fills as LUT5 pairs"): the eight
# slide modules of build/spade.sv replaced by gen.py's ECP5 version, proved equivalent by
# yosys, then the mask stage and the slide stage placed and routed alone.
#
#   experiments/lut5-fills/run.sh [SEED]     # from the project root; about ten minutes
#
# build/spade.sv is patched for the block runs and compiled again from the Spade at the end
# (`cargo xtask hdl --force`), so nothing else may use it meanwhile. Outputs in
# build/lut5-fills/ (the Verilog, the equivalence log) and build/block-fmax.{md,json}.
source "$(dirname "$0")/../common.sh"
seed="${1:-1}"
cd "$root"
cargo xtask hdl --force
spade="$root/build/spade.sv"

python3 "$here/gen.py" > "$out/slides_lut5.v"
python3 "$here/gen.py" --check > "$out/slides_check.v"
# Models of the two LUT4 functions and the PFUMX for the proof (the primitives' semantics:
# Z = INIT[{D, C, B, A}], Z = C0 ? ALUT : BLUT).
{
    for init in $(grep -o 'LUT4_[0-9A-F]\{4\}' "$out/slides_check.v" | sort -u | cut -c6-); do
        printf 'module LUT4_%s(input A, B, C, D, output Z);\n' "$init"
        printf "    wire [15:0] INIT = 16'h%s;\n    assign Z = INIT[{D, C, B, A}];\nendmodule\n" "$init"
    done
    printf 'module PFUMX(input ALUT, BLUT, C0, output Z);\n    assign Z = C0 ? ALUT : BLUT;\nendmodule\n'
} > "$out/prims.v"

dirs="n s e w ne se nw sw"
{
    echo "read_verilog -sv $spade"
    for d in $dirs; do echo "rename \\tsume::movegen::bitboard::slide_$d orig_$d"; done
    echo "read_verilog $out/prims.v"
    echo "read_verilog $out/slides_check.v"
    echo "design -save base"
    for d in $dirs; do
        echo "design -load base"
        echo "miter -equiv -flatten -make_outputs orig_$d \\tsume::movegen::bitboard::slide_$d m_$d"
        echo "hierarchy -top m_$d"
        echo "proc; opt_clean"
        echo "sat -verify -prove trigger 0 m_$d"
    done
} > "$out/equiv.ys"
"$yosys" -q -l "$out/equiv.log" "$out/equiv.ys" > /dev/null \
    || { echo "error: the LUT5 slides are not equivalent to Spade's: see $out/equiv.log" >&2; exit 1; }
echo "  ✓ the eight LUT5 slides proved equivalent to Spade's ($(grep -c 'SUCCESS!' "$out/equiv.log") SAT proofs)"

# Spade's slide modules out, the LUT5 ones in.
python3 - "$spade" "$out/slides_lut5.v" <<'PY'
import sys
path, new = sys.argv[1], sys.argv[2]
s = open(path).read()
for d in ["n", "s", "e", "w", "ne", "se", "nw", "sw"]:
    i = s.index(f"module \\tsume::movegen::bitboard::slide_{d}  (")
    j = s.index("endmodule", i) + len("endmodule")
    s = s[:i] + f"// slide_{d}: the LUT5 version below" + s[j:]
open(path, "w").write(s + "\n" + open(new).read())
PY
status=0
cargo xtask block-fmax --only pipeline_stages__masks,pipeline_stages__slide_stage --seed "$seed" || status=$?
cargo xtask hdl --force
exit $status
