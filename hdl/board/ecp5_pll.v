// The generator clock from the board oscillator: one ECP5 EHXPLLL, feedback from CLKOP.
//
//   f_out = f_in * CLKFB_DIV / CLKI_DIV,  f_vco = f_out * CLKOP_DIV (400..800 MHz),
//   f_pfd = f_in / CLKI_DIV (3.125..400 MHz).
//
// The defaults are 25 MHz -> 100 MHz (VCO 600 MHz). `cargo xtask bitstream` sets the
// parameters from swim.toml with yosys `chparam`. Only the FPGA flow reads this file (it is
// not in swim.toml [verilog] sources, so Verilator never sees the primitive). The port
// names are the ones Spade gives an `extern entity` with a return value (`output__`).
module ecp5_pll #(
    parameter integer CLKI_DIV = 1,
    parameter integer CLKFB_DIV = 4,
    parameter integer CLKOP_DIV = 6,
    parameter integer CLKOP_CPHASE = 2
) (
    input wire clkin,
    output wire locked,
    output wire output__
);
    wire clkop;
    (* ICP_CURRENT="12" *) (* LPF_RESISTOR="8" *) (* MFG_ENABLE_FILTEROPAMP="1" *) (* MFG_GMCREF_SEL="2" *)
    EHXPLLL #(
        .PLLRST_ENA("DISABLED"),
        .INTFB_WAKE("DISABLED"),
        .STDBY_ENABLE("DISABLED"),
        .DPHASE_SOURCE("DISABLED"),
        .OUTDIVIDER_MUXA("DIVA"),
        .OUTDIVIDER_MUXB("DIVB"),
        .OUTDIVIDER_MUXC("DIVC"),
        .OUTDIVIDER_MUXD("DIVD"),
        .CLKI_DIV(CLKI_DIV),
        .CLKOP_ENABLE("ENABLED"),
        .CLKOP_DIV(CLKOP_DIV),
        .CLKOP_CPHASE(CLKOP_CPHASE),
        .CLKOP_FPHASE(0),
        .FEEDBK_PATH("CLKOP"),
        .CLKFB_DIV(CLKFB_DIV)
    ) pll (
        .RST(1'b0),
        .STDBY(1'b0),
        .CLKI(clkin),
        .CLKOP(clkop),
        .CLKFB(clkop),
        .CLKINTFB(),
        .PHASESEL0(1'b0),
        .PHASESEL1(1'b0),
        .PHASEDIR(1'b1),
        .PHASESTEP(1'b1),
        .PHASELOADREG(1'b1),
        .PLLWAKESYNC(1'b0),
        .ENCLKOP(1'b0),
        .LOCK(locked)
    );
    assign output__ = clkop;
endmodule
