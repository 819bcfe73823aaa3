//! The bitstream report: resources per block and of the chip, device utilisation, the
//! clocks against their targets, the critical paths, the seeds of a sweep, the logic
//! depth and the stages' wall times, as markdown (`build/bitstream-report.md`), JSON
//! (`build/bitstream-report.json`) and a summary on the terminal.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::depth::Depth;
use crate::device::{Device, LinkSettings, Pll};
use crate::netlist::{CriticalPath, Fmax, Resources, Utilisation};
use crate::pnr::SeedRun;
use crate::util;
use tsume::project::manifest::Board;

/// The transposition table the chip is built with.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Table {
    /// 2^index_bits sets.
    pub index_bits: u32,
    pub ways: usize,
    pub entries: usize,
    /// swim.toml [search]'s set-index bits (the simulated chip's).
    pub search_index_bits: u32,
}

/// The report, as written to `build/bitstream-report.json`.
#[derive(Debug, Serialize)]
pub struct Report {
    pub board: String,
    pub board_config: Board,
    pub table: Table,
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
    pub logic_depth: Option<Depth>,
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

pub fn percent(used: u64, available: u64) -> f64 {
    if available == 0 {
        0.0
    } else {
        100.0 * used as f64 / available as f64
    }
}

impl Report {
    /// The report as markdown (`build/bitstream-report.md`): its sections in order.
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        self.header_section(&mut s);
        self.resources_section(&mut s);
        self.utilisation_section(&mut s);
        self.clocks_section(&mut s);
        self.critical_paths_section(&mut s);
        self.seeds_section(&mut s);
        self.logic_depth_section(&mut s);
        self.stages_section(&mut s);
        self.outcome_section(&mut s);
        s
    }

    /// The title, the board, its clock and UART, the search's table and the command.
    fn header_section(&self, s: &mut String) {
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
        let t = &self.table;
        let _ = writeln!(
            s,
            "The search's table: 2^{} sets of {} ways, {} entries{}.\n",
            t.index_bits,
            t.ways,
            util::thousands(t.entries),
            if t.index_bits == t.search_index_bits {
                " (swim.toml [search])".to_string()
            } else {
                format!(
                    " (the board's `tt_index_bits`; the simulated chip's [search] table has \
                     2^{} sets)",
                    t.search_index_bits
                )
            }
        );
        let _ = writeln!(s, "Command: `{}`\n", self.command);
    }

    /// "Resources per block": the per-block table, their sum and the flat chip.
    fn resources_section(&self, s: &mut String) {
        let _ = writeln!(s, "## Resources per block\n");
        let _ = writeln!(
            s,
            "One row per unit of the link top and of the move generator inside it (the \
             position store, the pipeline stages and the host link; each generator is counted in \
             the stage that calls it, `pipeline_stages` or `move_channels`), each synthesised as its own module after whole-design \
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
    }

    /// "Device utilisation": the LUT4 share against the budget, nextpnr's table.
    fn utilisation_section(&self, s: &mut String) {
        let _ = writeln!(s, "## Device utilisation\n");
        let _ = writeln!(
            s,
            "LUT4: {:.1} % of {} (budget {} %).\n",
            self.lut_percent, self.device.luts, self.max_lut_percent
        );
        if self.utilisation.is_empty() {
            return;
        }
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

    /// "Clocks": each clock net against its target (after place and route only).
    fn clocks_section(&self, s: &mut String) {
        if self.fmax.is_empty() {
            return;
        }
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

    /// The critical path of each clock domain, a paragraph each.
    fn critical_paths_section(&self, s: &mut String) {
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
    }

    /// "Seeds": every run of a seed sweep.
    fn seeds_section(&self, s: &mut String) {
        if self.seeds.is_empty() {
            return;
        }
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

    /// "Logic depth after synthesis": the deepest register groups.
    fn logic_depth_section(&self, s: &mut String) {
        let Some(d) = &self.logic_depth else {
            return;
        };
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

    /// "Stages": the wall time of each stage and of the run.
    fn stages_section(&self, s: &mut String) {
        let _ = writeln!(s, "## Stages\n");
        let _ = writeln!(s, "| stage | wall time |");
        let _ = writeln!(s, "|---|---:|");
        for (name, secs) in &self.stages {
            let _ = writeln!(s, "| {name} | {secs:.1} s |");
        }
        let _ = writeln!(s, "| **total** | **{:.1} s** |\n", self.total_seconds);
    }

    /// The bitstream written or not, and the checks passed or those that failed.
    fn outcome_section(&self, s: &mut String) {
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
    }
}

/// `Depth::deeper_than` in words: "6 / 7 / 8 / 9 levels: 1,405 / 602 / 84 / 0".
fn deeper_than(d: &Depth) -> String {
    let (levels, counts): (Vec<String>, Vec<String>) = d
        .deeper_than
        .iter()
        .map(|&(t, n)| (t.to_string(), util::thousands(n)))
        .unzip();
    format!("{} levels: {}", levels.join(" / "), counts.join(" / "))
}

/// The terminal summary.
pub fn summary(root: &Path, r: &Report, md: &Path) {
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
    use super::*;
    use crate::depth::Group;
    use crate::device::{device, link_settings, pll_params};

    /// A report with every section: each appears once, in order, with its figures.
    #[test]
    fn the_markdown_has_every_section_in_order() {
        let manifest = tsume::project::Manifest::load(&crate::checkout()).unwrap();
        let board = manifest.board(None).unwrap().1.clone();
        let pll = pll_params(25.0, 65.0).unwrap();
        let r = |lut4, ff| Resources {
            lut4,
            ff,
            ..Resources::default()
        };
        let f = |achieved: f64| Fmax {
            achieved,
            constraint: 71.5,
            target: 65.0,
        };
        let report = Report {
            board: "b".into(),
            board_config: board,
            table: Table {
                index_bits: 10,
                ways: 4,
                entries: 4096,
                search_index_bits: 12,
            },
            device: device("LFE5U-85F").unwrap(),
            pll,
            link: link_settings(pll.out_mhz, 115_200, 2000).unwrap(),
            blocks: vec![("a".into(), r(30, 4)), ("c".into(), r(10, 2))],
            blocks_sum: r(40, 6),
            total: r(38, 6),
            lut_percent: 0.05,
            max_lut_percent: 80.0,
            fmax: [("clk".to_string(), f(60.0))].into(),
            pnr_margin: 1.1,
            utilisation: [(
                "TRELLIS_COMB".to_string(),
                Utilisation {
                    used: 40,
                    available: 83_640,
                },
            )]
            .into(),
            critical_paths: vec![CriticalPath {
                clocks: "posedge clk -> posedge clk".into(),
                delay_ns: 16.0,
                logic_ns: 6.0,
                routing_ns: 10.0,
                logic_levels: 9,
                start: "x".into(),
                end: "y".into(),
                blocks: vec!["a".into(), "c".into()],
            }],
            seeds: vec![SeedRun {
                seed: 2,
                fmax_mhz: Some(60.0),
                of_target: Some(60.0 / 65.0),
                seconds: 100.0,
                chosen: true,
                error: None,
            }],
            logic_depth: Some(Depth {
                groups: vec![Group {
                    name: "k0".into(),
                    levels: 11.06,
                    flip_flops: 20,
                    deep: 12,
                }],
                worst_path: Vec::new(),
                deeper_than: vec![(6, 1405), (7, 602)],
            }),
            stages: vec![("synth (yosys)".into(), 12.5)],
            total_seconds: 20.0,
            bitstream: Some("build/tsume.bit".into()),
            command: "cargo xtask bitstream --board b".into(),
            failures: vec!["clock clk reaches 60.00 MHz, the target is 65.00 MHz".into()],
        };
        let md = report.markdown();
        let mut at = 0;
        for line in [
            "# Bitstream report: b (",
            "The search's table: 2^10 sets of 4 ways, 4,096 entries (the board's",
            "Command: `cargo xtask bitstream --board b`",
            "## Resources per block",
            "| a | 30 | 75.0 % | 4 | 0 | 0 | 0 |",
            "| sum of the blocks | 40 | 100 % | 6 | 0 | 0 | 0 |",
            "| **chip (flat synthesis)** | **38** |",
            "## Device utilisation",
            "| TRELLIS_COMB | 40 | 83640 | 0.0 % |",
            "## Clocks",
            "| clk | 60.00 MHz | 65.00 MHz | 71.50 MHz | MISSED |",
            "Placed and routed against clocks 1.1 times the targets",
            "Critical path (posedge clk -> posedge clk): 16.00 ns, 9 logic levels",
            "## Seeds",
            "| 2 | 60.00 MHz | 92.3 % | 100 s | kept |",
            "## Logic depth after synthesis",
            "| `k0` | 11.06 | 20 | 12 |",
            "Flip-flops behind more than 6 / 7 levels: 1,405 / 602",
            "## Stages",
            "| synth (yosys) | 12.5 s |",
            "| **total** | **20.0 s** |",
            "Bitstream: `build/tsume.bit`.",
            "## Failed checks",
            "- clock clk reaches 60.00 MHz",
        ] {
            let found = md[at..]
                .find(line)
                .unwrap_or_else(|| panic!("`{line}` missing after byte {at} of\n{md}"));
            at += found + line.len();
        }
    }
}
