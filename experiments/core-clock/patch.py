"""The core-clock probe's edits (run.sh): the generator core's five registers in Spade's
Verilog onto a second clock `clk_core`, threaded from board_top's PLL through link_top, and
a copy of the PLL with that clock on CLKOS.

    python3 patch.py SPADE_SV PLL_IN PLL_OUT [REGS]   # SPADE_SV is edited in place

REGS: the generator's registers to move, comma-separated (default: all five of CORE).
"""

import re
import sys

CORE = ("view", "mask_stage", "context", "slides", "channels")


def once(text, old, new):
    """`text` with its one occurrence of `old` replaced."""
    assert text.count(old) == 1, f"not exactly once: {old!r}"
    return text.replace(old, new)


def core_on_its_clock(text, core=CORE):
    lines = text.split("\n")
    i = next(
        k
        for k, line in enumerate(lines)
        if line.startswith("module \\tsume::movegen::move_generator::move_generator ")
    )
    j = next(k for k in range(i, len(lines)) if lines[k].startswith("endmodule"))
    moved = 0
    for k in range(i, j):
        if lines[k].strip() == "always @(posedge \\clk ) begin" and re.match(
            r"\\(%s)  <=" % "|".join(core), lines[k + 1].strip()
        ):
            lines[k] = lines[k].replace("\\clk ", "\\clk_core ")
            moved += 1
    assert moved == len(core), f"{moved} of {len(core)} registers found: the generator's Verilog has changed"
    # The clock's port and wire, inserted after the edits so that no index above moves.
    k = next(k for k in range(i, j) if lines[k].strip() == "assign \\clk  = clk_i;")
    lines[k + 1 : k + 1] = ["    logic \\clk_core ;", "    assign \\clk_core  = clk_core_i;"]
    assert lines[i + 1].strip() == "input clk_i,"
    lines.insert(i + 2, "        input clk_core_i,")
    s = "\n".join(lines)
    s = once(s, "module link_top (\n        input clk,\n", "module link_top (\n        input clk,\n        input clk_core,\n")
    s = once(s, ".output__(\\clk ));", ".output__(\\clk ), .clkos(clk_core_w));")
    s = once(s, "link_top \\link_top_0 (.clk(\\clk ),", "link_top \\link_top_0 (.clk(\\clk ), .clk_core(clk_core_w),")
    s = once(s, "    ecp5_pll \\ecp5_pll_0", "    wire clk_core_w;\n    ecp5_pll \\ecp5_pll_0")

    # Every instance of the generator: link_top's gets clk_core, the others (movegen_top,
    # not built here) their own clock.
    def clocked(m):
        module = s[: m.start()].rsplit("\nmodule ", 1)[-1].split(" ", 1)[0]
        clock = "clk_core" if module == "link_top" else "\\clk "
        return m.group(1) + f".clk_core_i({clock}), "

    s, n = re.subn(r"(\\move_generator_0 \(\.clk_i\(\\clk \), )", clocked, s)
    assert n >= 1
    return s


def pll_with_clkos(text):
    s = once(
        text,
        "    parameter integer CLKOP_CPHASE = 2\n",
        "    parameter integer CLKOP_CPHASE = 2,\n"
        "    parameter integer CLKOS_DIV = 12,\n"
        "    parameter integer CLKOS_CPHASE = 5\n",
    )
    s = once(s, "    output wire output__\n", "    output wire output__,\n    output wire clkos\n")
    s = once(
        s,
        "        .CLKOP_FPHASE(0),\n",
        "        .CLKOP_FPHASE(0),\n"
        '        .CLKOS_ENABLE("ENABLED"),\n'
        "        .CLKOS_DIV(CLKOS_DIV),\n"
        "        .CLKOS_CPHASE(CLKOS_CPHASE),\n"
        "        .CLKOS_FPHASE(0),\n",
    )
    s = once(s, "        .CLKOP(clkop),\n", "        .CLKOP(clkop),\n        .CLKOS(clkos),\n")
    return once(s, "        .ENCLKOP(1'b0),\n", "        .ENCLKOP(1'b0),\n        .ENCLKOS(1'b0),\n")


if __name__ == "__main__":
    spade, pll_in, pll_out = sys.argv[1:4]
    core = tuple(sys.argv[4].split(",")) if len(sys.argv) > 4 else CORE
    unknown = [r for r in core if r not in CORE]
    if unknown:
        sys.exit(f"error: {', '.join(unknown)}: not a core register (they are {', '.join(CORE)})")
    with open(spade) as f:
        text = f.read()
    with open(spade, "w") as f:
        f.write(core_on_its_clock(text, core))
    with open(pll_in) as f:
        text = f.read()
    with open(pll_out, "w") as f:
        f.write(pll_with_clkos(text))
