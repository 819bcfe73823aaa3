#!/usr/bin/env bash
# The channel registers' cone mapped apart for depth inside the flat chip
# (experiments/pipeline.md, "The channel registers' cone mapped apart, inside the flat chip").
# Synthesis only: three netlists of the same chip and their logic depth by stage.
#
#   cargo xtask bitstream --synth-only       # build/spade.sv and build/bitstream/synth.ys
#   experiments/channel-cone/run.sh     # from the project root; about ten minutes
#
# An argument names another synthesis script of the flow instead of build/bitstream/synth.ys
# (another board's: the PLL and the UART divider differ). The saved netlist before mapping
# (premap.il) is reused by later runs while it is newer than build/spade.sv and the script.
#
# Outputs in build/channel-cone/: flow.json (one abc9 run, the flow's mapping), cut.json
# (the cone cut out as is), copy.json (the cone copied whole), their yosys logs, and the
# depth table of each on the terminal (`cargo xtask depth NETLIST --groups DIR`, by the
# stage registers' lists ff-<stage>.txt; it reruns in seconds on the saved netlists).
source "$(dirname "$0")/../common.sh"
synth="${1:-$root/build/bitstream/synth.ys}"
[ -f "$synth" ] || { echo "error: $synth is missing: run cargo xtask bitstream --synth-only" >&2; exit 1; }
cd "$out"

# The balanced mapping for the cone, and the register whose cone is cut out.
balanced='+&scorr;&sweep;&b;&if,-W,300,-F,0,-A,0,-v'
reg=link_top_0.move_generator_0
lib='read_verilog -overwrite -lib -specify +/ecp5/cells_sim.v +/ecp5/cells_bb.v'

run() { # name: run name.ys with a log, print the wall time
    local t0=$SECONDS
    echo "  . yosys $1.ys"
    "$yosys" -q -l "$1.log" "$1.ys" > /dev/null || { echo "error: yosys $1.ys failed: see $out/$1.log" >&2; tail -5 "$1.log" >&2; exit 1; }
    echo "  ✓ $1 ($((SECONDS - t0)) s)"
}

# 1. The flow's synthesis up to the LUT mapping, saved.
{
    sed -n '1,/^flatten -noscopeinfo$/p' "$synth"
    echo 'synth_ecp5 -top board_top -run coarse:map_luts'
    echo "write_rtlil $out/premap.il"
} > premap.ys
if [ premap.il -nt "$synth" ] && [ premap.il -nt "$root/build/spade.sv" ]; then
    echo "  ✓ premap: build/channel-cone/premap.il is newer than the HDL and the script: kept"
else
    run premap
fi

# The cone: the channel registers and the gates in front of them back to flip-flop and
# carry-cell inputs.
select_cone="read_rtlil $out/premap.il
$lib
select -set chanff w:$reg.channels %ci1 t:TRELLIS_FF %i
select -set din @chanff %ci1:+TRELLIS_FF[DI,CE,LSR,M] @chanff %d
select -set cone @din %ci*:-TRELLIS_FF[DI,CE,LSR,CLK,M]:-CCU2C[A0,A1,B0,B1,C0,C1,D0,D1,CIN]
select -set chancells @cone t:\$_* %i"

# 2. The stage registers' flip-flops, and the cone's inputs once cut out with its registers.
{
    echo "$select_cone"
    for r in view mask_stage context slides channels; do
        echo "tee -q -o $out/ff-$r.txt select -list w:$reg.$r %ci1 t:TRELLIS_FF %i"
    done
    echo 'tee -q -o '"$out"'/cone-gates.txt select -count @chancells'
    echo 'submod -name chan @chancells @chanff %u'
    echo "tee -q -o $out/chan-in.txt select -list chan/i:*"
} > lists.ys
run lists

finish() { # json: map the cells and write the netlist without renaming its cells
    echo 'synth_ecp5 -top board_top -run map_cells:check'
    echo 'hierarchy -top board_top'
    echo 'select board_top'
    echo "write_json -selected $out/$1"
}

# 3. One abc9 run with its default script: the flow's mapping of the saved netlist.
{
    echo "read_rtlil $out/premap.il"
    echo "$lib"
    echo 'abc9 -W 300'
    finish flow.json
} > flow.ys

# The rest's module (`rest`, beside the mapped `chan` in the design stash `chanmapped`)
# mapped with abc9's default script, both joined under board_top and flattened.
map_rest_and_join() { # json
    echo 'design -save split'
    echo 'delete board_top chan'
    echo 'abc9 -W 300'
    echo 'design -stash restmapped'
    echo 'design -load split'
    echo 'delete chan rest'
    echo 'design -copy-from restmapped rest'
    echo 'design -copy-from chanmapped chan'
    echo 'hierarchy -top board_top'
    echo 'flatten'
    finish "$1"
}

# 4. The cone's gates cut out as they are (signals the rest reads become ports), mapped
#    balanced; the rest's gates a module of their own, mapped with the default script.
{
    echo "$select_cone"
    echo 'select -set restcells board_top/t:$_* @chancells %d'
    echo 'submod -name chan @chancells'
    echo 'submod -name rest @restcells'
    echo 'design -save cut'
    echo 'delete board_top rest'
    echo "abc9 -W 300 -script \"$balanced\""
    echo 'design -stash chanmapped'
    echo 'design -load cut'
    map_rest_and_join cut.json
} > cut.ys

# 5. The cone copied whole with its registers, mapped balanced; the rest keeps its own
#    copy of what it reads (the registers' inputs tied off there), default script.
inputs=$(grep -v '/clk$' chan-in.txt | sed 's#^chan/##')
{
    echo "$select_cone"
    echo 'design -save base'
    echo 'submod -name chan @chancells @chanff %u'
    echo 'delete board_top'
    echo "abc9 -W 300 -script \"$balanced\""
    echo 'design -stash chanmapped'
    echo 'design -load base'
    for w in $inputs; do echo "setattr -set keep 1 board_top/w:$w"; done
} > copy-a.ys
# The tie-offs need the registers' names: a first pass lists them.
{ echo "$select_cone"; echo "tee -q -o $out/chanff.txt select -list @chanff"; } > chanff.ys
run chanff
{
    cat copy-a.ys
    echo 'cd board_top'
    sed 's#^board_top/\(.*\)$#connect -nomap -port \1 DI 1'"'"'0#' chanff.txt
    echo 'cd'
    echo 'opt_clean'
    echo 'submod -name chanstub @chanff'
    echo 'chtype -set chan board_top/chanstub'
    echo 'cd board_top'
    for w in $inputs; do echo "connect -nomap -port chanstub $w $w"; done
    echo 'cd'
    for w in $inputs; do echo "setattr -unset keep board_top/w:$w"; done
    echo 'delete chanstub'
    echo 'select -set restcells board_top/t:$_*'
    echo 'submod -name rest @restcells'
    map_rest_and_join copy.json
} > copy.ys

run flow
run cut
run copy
# Depth by stage register: the ff-<stage>.txt lists name the flip-flops of each stage.
cd "$root"
for n in flow cut copy; do
    cargo xtask depth "$out/$n.json" --groups "$out"
done
