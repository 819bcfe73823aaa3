//! The FPGA flow: `cargo xtask bitstream`, `block-fmax` and `depth`.
//!
//! The board top goes through yosys (`synth_ecp5`; native, the pyosys wheel), yowasp's
//! nextpnr-ecp5 and ecppack into `build/<name>.bit`, with a resource and timing report. Everything about the board
//! comes from swim.toml (`tsume::project::manifest`): `[fpga]` names the board, the top unit, the
//! FPGA-only Verilog and the LUT budget; `[fpga.boards.NAME]` gives the device, package,
//! speed grade, constraint file, oscillator, generator clock target, baud rate and frame
//! timeout.
//!
//! nextpnr-ecp5 and ecppack run in WebAssembly with a private `/tmp` of their own: every
//! tool runs in the project root and is handed paths relative to it, in its arguments and
//! in the scripts it reads ([`tools`]); yosys, native, is handed the same.
//!
//! Rooms, each using only those listed before it:
//! - [`tools`]: running a tool as a stage (log, spinner, an optional watcher that stops it),
//!   paths relative to the project root;
//! - [`device`]: the ECP5 parts, the PLL setting and the UART divider;
//! - [`netlist`]: reading what the tools write: the Spade Verilog's hierarchy and the blocks
//!   of the per-block table, yosys' statistics, nextpnr's report and critical paths;
//! - [`synth`]: the yosys scripts (the chip, the per-block pass, a block alone);
//! - [`pnr`]: nextpnr's options, the router watch, seed sweeps, the LPF margin;
//! - [`depth`]: LUT levels in front of the flip-flops of a netlist (`cargo xtask depth`);
//! - [`report`]: the bitstream report (markdown, JSON, terminal summary);
//! - [`flow`]: `cargo xtask bitstream`, the orchestration of the stages;
//! - [`block_fmax`]: `cargo xtask block-fmax`, every block placed and routed alone.

pub mod block_fmax;
pub mod depth;
pub mod device;
pub mod flow;
pub mod netlist;
pub mod pnr;
pub mod report;
pub mod synth;
pub mod tools;
