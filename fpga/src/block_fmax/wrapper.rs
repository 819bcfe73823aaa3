//! The wrapper that puts a block alone between registers: the block's ports read from the
//! Spade Verilog, every input bit fed from shift registers, every output bit registered
//! and folded onto one pin, and the clock pin's constraints from the board's LPF.

use std::fmt::Write as _;

use anyhow::{Context, Result, bail};

use crate::netlist::module_of;
use crate::util;

/// A port of a Spade module: its name and width in bits.
#[derive(Debug, Clone, PartialEq)]
pub struct Port {
    pub name: String,
    pub width: usize,
    pub input: bool,
}

/// The ports of module `unit` in Spade's Verilog (`module \unit (` then one port a line:
/// `input clk_i,`, `input[2085:0] v_i,`, `output[20:0] output__`).
pub fn module_ports(verilog: &str, unit: &str) -> Result<Vec<Port>> {
    let mut lines = verilog.lines();
    lines
        .by_ref()
        .find(|l| module_of(l).as_deref() == Some(unit))
        .with_context(|| {
            format!(
                "module `{unit}` not found in the Spade Verilog: name a unit as Spade does, \
                 e.g. `tsume::movegen::pipeline_stages::masks` (file::function), or see the `module` \
                 lines of build/spade.sv"
            )
        })?;
    let mut ports = Vec::new();
    for line in lines {
        let line = line.trim();
        if line.starts_with(");") {
            return Ok(ports);
        }
        if line.is_empty() {
            continue;
        }
        let line = line.trim_end_matches(',');
        let (input, rest) = if let Some(r) = line.strip_prefix("input") {
            (true, r)
        } else if let Some(r) = line.strip_prefix("output") {
            (false, r)
        } else {
            bail!("module `{unit}`: cannot read the port line `{line}`");
        };
        let (width, name) = match rest.trim_start().strip_prefix('[') {
            Some(r) => {
                let (range, name) = r
                    .split_once(']')
                    .with_context(|| format!("module `{unit}`: port line `{line}`"))?;
                let (hi, lo) = range
                    .split_once(':')
                    .with_context(|| format!("module `{unit}`: port line `{line}`"))?;
                let (hi, lo): (usize, usize) = (
                    hi.trim().parse().context("port range")?,
                    lo.trim().parse().context("port range")?,
                );
                (hi.abs_diff(lo) + 1, name.trim())
            }
            None => (1, rest.trim()),
        };
        ports.push(Port {
            name: name.to_string(),
            width,
            input,
        });
    }
    bail!("module `{unit}`: its port list does not end")
}

/// Bits of one input shift register of the wrapper. One register for all the inputs would
/// be a chain of thousands of flip-flops, each driving the next, and yosys sorts such a
/// chain recursively in `techmap` (yowasp's WebAssembly stack ran out on a long one).
/// Each register has a pin of its own: registers fed by the same pin would be the same
/// register to yosys (`opt_merge` merges flip-flops with the same input, then their
/// successors), which would make input bits copies of each other, constants of the logic.
const CHAIN: usize = 512;

/// The input pins of a wrapper with `inputs` input bits: one per shift register.
pub fn input_pins(inputs: usize) -> usize {
    inputs.div_ceil(CHAIN).max(1)
}

impl Port {
    /// A Spade entity's clock (`clk_i`): the wrapper's clock pin, not a data input.
    fn is_clock(&self) -> bool {
        self.input && self.width == 1 && self.name == "clk_i"
    }
}

/// The data bits of `ports` going in (`input`) or out: every port but the clock.
pub(super) fn data_bits(ports: &[Port], input: bool) -> usize {
    ports
        .iter()
        .filter(|p| p.input == input && !p.is_clock())
        .map(|p| p.width)
        .sum()
}

/// The wrapper of `unit`: its clock (`clk_i`, if it has one) from the clock pin, every other
/// input bit from shift registers of [`CHAIN`] bits, each fed by a pin of its own
/// (`din[j]`), every output bit registered and the registers XORed onto pin `dout`.
pub fn wrapper(unit: &str, ports: &[Port]) -> Result<String> {
    let (inputs, outputs) = (data_bits(ports, true), data_bits(ports, false));
    if outputs == 0 {
        bail!("module `{unit}` has no output: nothing to time");
    }
    let mut v = String::new();
    let _ = writeln!(
        v,
        "// `{unit}` alone between registers (cargo xtask block-fmax).\n\
         module block_alone(input clk, input [{}:0] din, output dout);",
        input_pins(inputs) - 1
    );
    let mut connections = Vec::new();
    if inputs > 0 {
        let _ = writeln!(
            v,
            "  // The inputs: shift registers of {CHAIN} bits, each fed by a pin of its own.\n  \
             reg [{}:0] in_sh;\n  genvar k;\n  generate for (k = 0; k < {inputs}; k = k + 1) \
             begin : chain\n    if (k % {CHAIN} == 0) begin\n      always @(posedge clk) \
             in_sh[k] <= din[k / {CHAIN}];\n    end else begin\n      always @(posedge clk) \
             in_sh[k] <= in_sh[k - 1];\n    end\n  end endgenerate",
            inputs - 1
        );
    }
    let _ = writeln!(v, "  wire [{}:0] o;", outputs - 1);
    let (mut at_in, mut at_out) = (0, 0);
    for p in ports {
        let (bus, at) = if p.is_clock() {
            connections.push(format!(".{}(clk)", p.name));
            continue;
        } else if p.input {
            ("in_sh", &mut at_in)
        } else {
            ("o", &mut at_out)
        };
        connections.push(format!(".{}({bus}[{}:{}])", p.name, *at + p.width - 1, *at));
        *at += p.width;
    }
    let _ = writeln!(v, "  \\{unit} b ({});", connections.join(", "));
    let _ = writeln!(v, "  reg [{}:0] q;", outputs - 1);
    let _ = writeln!(v, "  always @(posedge clk) q <= o;");
    let _ = writeln!(v, "  assign dout = ^q;\nendmodule");
    Ok(v)
}

/// The wrapper's constraints: its `clk` pin on the board's clock pin (the port of the board
/// LPF's `FREQUENCY PORT` line, with that port's `LOCATE` and `IOBUF`), so that the clock
/// enters the global network from a clock-capable pad (router2 cannot route a clock from
/// any other), at `mhz`. Every other pin is left to the placer.
pub fn clock_lpf(board_lpf: &str, mhz: f64) -> Result<String> {
    let port = board_lpf
        .lines()
        .find_map(|line| {
            let w: Vec<&str> = line.split_whitespace().collect();
            (w.len() >= 3 && w[0] == "FREQUENCY" && w[1] == "PORT").then(|| w[2].to_string())
        })
        .context("the board's LPF has no `FREQUENCY PORT` line naming its clock pin")?;
    let mut out = String::new();
    for line in board_lpf.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let names_port = w.len() >= 3 && w[2].trim_end_matches(';') == port;
        if names_port
            && ((w[0] == "LOCATE" && w[1] == "COMP") || (w[0] == "IOBUF" && w[1] == "PORT"))
        {
            let _ = writeln!(out, "{}", line.replacen(&port, "\"clk\"", 1));
        }
    }
    if !out.contains("LOCATE") {
        bail!("the board's LPF has no `LOCATE COMP {port}` line: the clock pin's site is unknown");
    }
    let _ = writeln!(out, "FREQUENCY PORT \"clk\" {} MHZ;", util::mhz_text(mhz));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SV: &str = "module \\tsume::a::b  (\n        input clk_i,\n        input rst_i,\n        \
                      input[3:0] x_i,\n        output[20:0] output__\n    );\nendmodule\n\
                      module \\tsume::a::c  (\n        input[80:0] v_i,\n    ";

    #[test]
    fn ports_are_read_with_their_widths() {
        let ports = module_ports(SV, "tsume::a::b").unwrap();
        let got: Vec<(&str, usize, bool)> = ports
            .iter()
            .map(|p| (p.name.as_str(), p.width, p.input))
            .collect();
        assert_eq!(
            got,
            [
                ("clk_i", 1, true),
                ("rst_i", 1, true),
                ("x_i", 4, true),
                ("output__", 21, false)
            ]
        );
    }

    #[test]
    fn unknown_and_unterminated_modules_are_errors() {
        let e = module_ports(SV, "tsume::a::zz").unwrap_err().to_string();
        assert!(e.contains("`tsume::a::zz` not found"), "{e}");
        let e = module_ports(SV, "tsume::a::c").unwrap_err().to_string();
        assert!(e.contains("does not end"), "{e}");
    }

    #[test]
    fn the_clock_pin_comes_from_the_board_lpf() {
        let root = crate::checkout();
        let manifest = tsume::project::manifest::Manifest::load(&root).unwrap();
        let path = root.join(&manifest.board(None).unwrap().1.constraints);
        let lpf = std::fs::read_to_string(&path).expect("the default board's LPF");
        let got = clock_lpf(&lpf, 100.0 * 1.1).unwrap();
        assert!(got.contains("LOCATE COMP \"clk\" SITE \"G2\";"), "{got}");
        assert!(
            got.contains("IOBUF PORT \"clk\" PULLMODE=NONE IO_TYPE=LVCMOS33;"),
            "{got}"
        );
        assert!(got.contains("FREQUENCY PORT \"clk\" 110 MHZ;"), "{got}");
        assert_eq!(got.lines().count(), 3, "{got}");
        let e = clock_lpf("LOCATE COMP \"x\" SITE \"A1\";", 100.0).unwrap_err();
        assert!(e.to_string().contains("no `FREQUENCY PORT`"), "{e}");
        let e = clock_lpf("FREQUENCY PORT \"x\" 25 MHZ;", 100.0).unwrap_err();
        assert!(e.to_string().contains("no `LOCATE COMP \"x\"`"), "{e}");
    }

    #[test]
    fn wrapper_feeds_every_input_bit_and_registers_every_output_bit() {
        let ports = module_ports(SV, "tsume::a::b").unwrap();
        let v = wrapper("tsume::a::b", &ports).unwrap();
        // rst (1) + x (4) = 5 input bits in shift registers; the clock is the pin.
        assert!(v.contains("reg [4:0] in_sh;"), "{v}");
        assert!(v.contains("k < 5;"), "{v}");
        assert!(v.contains("if (k % 512 == 0)"), "{v}");
        assert!(v.contains("in_sh[k] <= din[k / 512];"), "{v}");
        assert!(v.contains("input [0:0] din"), "{v}");
        assert_eq!(
            (input_pins(512), input_pins(513), input_pins(11_890)),
            (1, 2, 24)
        );
        assert!(
            v.contains(
                "\\tsume::a::b b (.clk_i(clk), .rst_i(in_sh[0:0]), .x_i(in_sh[4:1]), \
                 .output__(o[20:0]));"
            ),
            "{v}"
        );
        assert!(v.contains("reg [20:0] q;"), "{v}");
        assert!(v.contains("assign dout = ^q;"), "{v}");
    }
}
