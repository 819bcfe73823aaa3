// The host link's settings on the board, as constants (Spade `extern entity
// board_config` in hdl/board/board_top.spade). `cargo xtask bitstream` sets them from
// swim.toml with yosys `chparam`: CLOCKS_PER_BIT = round(generator clock / baud),
// TIMEOUT_BITS = the longest gap inside a frame in bit times. The defaults are 100 MHz /
// 115200 baud and 2,000 bit times (17 ms). Only the FPGA flow reads this file.
module board_config #(
    parameter integer CLOCKS_PER_BIT = 868,
    parameter integer TIMEOUT_BITS = 2000
) (
    output wire [15:0] clocks_per_bit,
    output wire [15:0] timeout_bits
);
    assign clocks_per_bit = CLOCKS_PER_BIT;
    assign timeout_bits = TIMEOUT_BITS;
endmodule
