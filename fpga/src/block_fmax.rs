//! Blocks alone (`cargo xtask block-fmax`): every block of the chip placed and routed alone, between
//! registers, for its own LUT4, FF and Fmax (build/block-fmax.{md,json}).
//!
//! The blocks are the rows of the bitstream report's per-block table (swim.toml [fpga]
//! `blocks_of`: the pipeline stages and the host link). Each one gets a wrapper
//! (`block_alone`, Verilog written under `build/block-fmax/<block>/`) that feeds every
//! input bit from short shift registers (each fed by a pin) and registers every output
//! bit, folded by an XOR onto one output pin, so that the block's logic is
//! exactly register to register, as it is in the chip, and nothing of it can be optimised
//! away. The wrapper goes through the bitstream's flow (yosys `synth_ecp5`, nextpnr-ecp5 on
//! the board's device with swim.toml's placer and router), its clock on the board's clock
//! pin and its other pins wherever the placer puts them.
//!
//! A block alone has the whole device to itself and none of the chip's other wiring around
//! it, so its Fmax is what the block can reach at best: a block below the goal cannot
//! reach it inside the chip either, and the gap between the blocks' figures and the chip's
//! is what the chip's wiring costs.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use serde::Serialize;

use crate::device::device;
use crate::netlist::{
    CriticalPath, Hierarchy, Resources, critical_path, design_totals, read_nextpnr_report,
    stage_units, tag,
};
use crate::pnr::{Nextpnr, NextpnrArgs, NextpnrChoice, RouterWatch};
use crate::synth::{SynthArgs, alone_script, yosys};
use crate::tools::{remove_stale, tool_path, watched_stage};
use crate::{Host, Project, util};
use tsume::project::manifest::{Board, Fpga};

mod wrapper;

use wrapper::{Port, clock_lpf, data_bits, module_ports, wrapper};

#[derive(Debug, Args)]
pub struct BlockFmaxArgs {
    /// Board whose device the blocks are placed on: a table of swim.toml [fpga.boards]
    /// (default: [fpga] board).
    #[arg(long, value_name = "NAME")]
    pub board: Option<String>,
    /// The clock to check each block against, in MHz (default: swim.toml [fpga] goal_mhz).
    /// Place and route runs against it times [fpga] pnr_margin.
    #[arg(long, value_name = "MHZ")]
    pub mhz: Option<f64>,
    /// Only these blocks (their names in the table, e.g. `pipeline_stages__masks`).
    #[arg(long, value_delimiter = ',', value_name = "BLOCK[,BLOCK...]")]
    pub only: Vec<String>,
    /// Any units of the Spade Verilog instead of the blocks (e.g.
    /// `tsume::movegen::direct_cover::direct_cover`, a function inside the masks), to find which part
    /// of a block holds its critical path.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "UNIT[,UNIT...]",
        conflicts_with = "only"
    )]
    pub unit: Vec<String>,
    /// Blocks at a time (default: the machine's cores).
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Seed of nextpnr's placer.
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub seed: u64,
    #[command(flatten)]
    pub nextpnr: NextpnrArgs,
    #[command(flatten)]
    pub synth: SynthArgs,
}

/// One block's row of the table.
#[derive(Debug, Clone, Serialize)]
pub struct BlockRun {
    pub block: String,
    pub unit: String,
    /// Input and output bits of the block (the wrapper's registers).
    pub input_bits: usize,
    pub output_bits: usize,
    /// The wrapper's resources after synthesis (the block, its input shift register and
    /// its output registers).
    pub resources: Option<Resources>,
    /// Fmax after routing, MHz.
    pub fmax_mhz: Option<f64>,
    pub critical_path: Option<CriticalPath>,
    pub synth_seconds: f64,
    pub pnr_seconds: f64,
    /// Why the block has no figures.
    pub error: Option<String>,
}

/// The whole table.
#[derive(Debug, Serialize)]
pub struct BlockFmaxReport {
    pub board: String,
    pub device: String,
    pub speed: u8,
    pub goal_mhz: f64,
    pub pnr_mhz: f64,
    pub placer: String,
    pub router: String,
    pub seed: u64,
    pub command: String,
    pub blocks: Vec<BlockRun>,
    pub total_seconds: f64,
}

struct Job<'a> {
    tag: String,
    unit: String,
    ports: Vec<Port>,
    dir: PathBuf,
    /// nextpnr's run of every block but for its netlist: the tools, the project root where
    /// they run, the device, the constraints, the options.
    nextpnr: &'a Nextpnr<'a>,
    seed: u64,
    verilog: &'a Path,
    /// ABC commands for the LUT mapping (`crate::synth::abc9_script_arg`), or abc9's default.
    abc9: Option<&'a str>,
    /// swim.toml [fpga] `no_rw_check`.
    no_rw_check: &'a [String],
}

impl Job<'_> {
    fn run(&self) -> BlockRun {
        let mut row = BlockRun {
            block: self.tag.clone(),
            unit: self.unit.clone(),
            input_bits: data_bits(&self.ports, true),
            output_bits: data_bits(&self.ports, false),
            resources: None,
            fmax_mhz: None,
            critical_path: None,
            synth_seconds: 0.0,
            pnr_seconds: 0.0,
            error: None,
        };
        if let Err(e) = self.steps(&mut row) {
            row.error = Some(
                format!("{e:#}")
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .to_string(),
            );
            eprintln!("  {}: {e:#}", self.tag);
        }
        row
    }

    fn steps(&self, row: &mut BlockRun) -> Result<()> {
        let dir = &self.dir;
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let (wrap, script, netlist, stat, report) = (
            dir.join("block_alone.v"),
            dir.join("synth.ys"),
            dir.join("block_alone.json"),
            dir.join("synth-stat.json"),
            dir.join("nextpnr-report.json"),
        );
        remove_stale(&[&netlist, &stat, &report])?;
        std::fs::write(&wrap, wrapper(&self.unit, &self.ports)?)
            .with_context(|| format!("cannot write {}", wrap.display()))?;
        let root = self.nextpnr.root;
        let at = |p: &Path| tool_path(root, p);
        let ys = alone_script(
            "block_alone",
            &[&at(self.verilog)?],
            &[&at(&wrap)?],
            self.abc9,
            self.no_rw_check,
            &at(&netlist)?,
            &at(&stat)?,
        );
        std::fs::write(&script, ys)
            .with_context(|| format!("cannot write {}", script.display()))?;
        let mut cmd = yosys(self.nextpnr.tools, root, &script, true)?;
        let took = watched_stage(
            &format!("{} synth", self.tag),
            "yosys synth_ecp5",
            &mut cmd,
            &dir.join("synth.log"),
            None,
        )?;
        row.synth_seconds = took.as_secs_f64();
        row.resources = Some(design_totals(&stat)?);
        let nextpnr = Nextpnr {
            netlist: &netlist,
            ..*self.nextpnr
        };
        let mut cmd = nextpnr.command(self.seed, &report, None)?;
        let took = watched_stage(
            &format!("{} pnr", self.tag),
            "nextpnr-ecp5",
            &mut cmd,
            &dir.join("pnr.log"),
            Some(RouterWatch::new(4).boxed()),
        )?;
        row.pnr_seconds = took.as_secs_f64();
        let parsed = read_nextpnr_report(&report)?;
        row.fmax_mhz = parsed
            .fmax
            .values()
            .map(|f| f.achieved)
            .min_by(f64::total_cmp);
        if row.fmax_mhz.is_none() {
            bail!("{} names no clock domain", report.display());
        }
        row.critical_path = parsed
            .critical_paths
            .iter()
            .map(critical_path)
            .find(|c| c.clocks.contains("posedge") && !c.clocks.contains("async"));
        Ok(())
    }
}

/// `cargo xtask block-fmax` on `project`: the tools and the Spade's Verilog from `host`.
pub fn run(project: &Project, host: &dyn Host, args: &BlockFmaxArgs) -> Result<()> {
    let start = Instant::now();
    let root = &project.root;
    let fpga = project.manifest.fpga()?;
    let (board_name, board) = project.manifest.board(args.board.as_deref())?;
    let device = device(&board.device)?;
    let goal = args.mhz.unwrap_or(fpga.goal_mhz);
    if !(goal.is_finite() && goal > 0.0) {
        bail!("--mhz {goal}: give the clock to check the blocks against, e.g. --mhz 100");
    }
    let jobs = util::jobs(args.jobs, "blocks")?;
    let pnr_mhz = goal * fpga.pnr_margin;
    let mut command = format!("cargo xtask block-fmax --board {board_name}");
    let (abc9, chosen) = options(args, fpga, &mut command)?;

    host.require_tools()?;
    let verilog = host.compile_spade()?;
    let text = std::fs::read_to_string(&verilog)
        .with_context(|| format!("cannot read {}", verilog.display()))?;
    let units = chosen_units(args, fpga, &text)?;
    eprintln!(
        "block-fmax: {} units of the chip alone on {} {} speed {}, placed and routed against \
         {pnr_mhz:.2} MHz ({goal} MHz goal x {} margin), {jobs} at a time",
        units.len(),
        board.device,
        board.package,
        board.speed,
        fpga.pnr_margin
    );

    let out = root.join("build").join("block-fmax");
    std::fs::create_dir_all(&out).with_context(|| format!("cannot create {}", out.display()))?;
    let lpf = write_clock_lpf(root, board_name, board, pnr_mhz, &out)?;
    let options = chosen.options();
    let nextpnr = Nextpnr {
        tools: &project.tools,
        root,
        device: &device,
        package: &board.package,
        speed: board.speed,
        // Each block's own netlist (`Job::steps`).
        netlist: Path::new(""),
        lpf: &lpf,
        // Only the clock pin is placed by the LPF: `din[]` and `dout` go anywhere.
        lpf_allow_unconstrained: true,
        freq_mhz: None,
        options: &options,
    };
    let mut queue = Vec::new();
    for (tag, unit) in &units {
        queue.push(Job {
            tag: tag.clone(),
            unit: unit.clone(),
            ports: module_ports(&text, unit)?,
            dir: out.join(tag),
            nextpnr: &nextpnr,
            seed: args.seed,
            verilog: &verilog,
            abc9: abc9.as_deref(),
            no_rw_check: &fpga.no_rw_check,
        });
    }
    let report = BlockFmaxReport {
        board: board_name.to_string(),
        device: board.device.clone(),
        speed: board.speed,
        goal_mhz: goal,
        pnr_mhz,
        placer: chosen.placer.to_string(),
        router: chosen.router.to_string(),
        seed: args.seed,
        command,
        blocks: run_jobs(&queue, jobs),
        total_seconds: start.elapsed().as_secs_f64(),
    };
    write_report(root, &report)?;
    let failed: Vec<&str> = report
        .blocks
        .iter()
        .filter(|b| b.error.is_some())
        .map(|b| b.block.as_str())
        .collect();
    if !failed.is_empty() {
        bail!(
            "no figures for {} (logs under {}/<block>/); the other blocks are in the table",
            failed.join(", "),
            util::rel(root, &out)
        );
    }
    Ok(())
}

/// The synthesis and place-and-route options of the run (the ABC script, nextpnr's
/// algorithms), each checked; every option given joins the reproducing `command`.
fn options<'a>(
    args: &'a BlockFmaxArgs,
    fpga: &'a Fpga,
    command: &mut String,
) -> Result<(Option<String>, NextpnrChoice<'a>)> {
    if let Some(m) = args.mhz {
        let _ = write!(command, " --mhz {m}");
    }
    if !args.only.is_empty() {
        let _ = write!(command, " --only {}", args.only.join(","));
    }
    if !args.unit.is_empty() {
        let _ = write!(command, " --unit {}", args.unit.join(","));
    }
    let abc9 = args.synth.choose(command)?;
    if args.seed != 1 {
        let _ = write!(command, " --seed {}", args.seed);
    }
    let chosen = args.nextpnr.choose(fpga, command)?;
    Ok((abc9, chosen))
}

/// The units placed alone, as (tag, unit): the blocks of the per-block table (`--only`
/// some of them), or `--unit`'s units of the Spade Verilog `text`.
fn chosen_units(args: &BlockFmaxArgs, fpga: &Fpga, text: &str) -> Result<Vec<(String, String)>> {
    let mut units = if args.unit.is_empty() {
        stage_units(&Hierarchy::parse(text), &fpga.blocks_of)?
    } else {
        args.unit.iter().map(|u| (tag(u), u.clone())).collect()
    };
    if !args.only.is_empty() {
        for name in &args.only {
            if !units.iter().any(|(tag, _)| tag == name) {
                bail!(
                    "--only {name}: no such block; the blocks are {}",
                    units
                        .iter()
                        .map(|(t, _)| t.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
        }
        units.retain(|(tag, _)| args.only.contains(tag));
    }
    Ok(units)
}

/// The wrappers' constraints in `out/clock.lpf`: the board's clock pin at `mhz`.
fn write_clock_lpf(
    root: &Path,
    board_name: &str,
    board: &Board,
    mhz: f64,
    out: &Path,
) -> Result<PathBuf> {
    let board_lpf = root.join(&board.constraints);
    let text_lpf = std::fs::read_to_string(&board_lpf).with_context(|| {
        format!(
            "cannot read {} (swim.toml [fpga.boards.{board_name}] constraints)",
            board_lpf.display()
        )
    })?;
    let lpf = out.join("clock.lpf");
    std::fs::write(
        &lpf,
        clock_lpf(&text_lpf, mhz).with_context(|| board_lpf.display().to_string())?,
    )
    .with_context(|| format!("cannot write {}", lpf.display()))?;
    Ok(lpf)
}

/// Every job, `jobs` at a time, the largest first (so that the runs side by side end
/// close together); the rows in the jobs' order.
fn run_jobs(queue: &[Job], jobs: usize) -> Vec<BlockRun> {
    let mut order: Vec<usize> = (0..queue.len()).collect();
    order
        .sort_by_key(|&i| std::cmp::Reverse(queue[i].ports.iter().map(|p| p.width).sum::<usize>()));
    let mut rows: Vec<(usize, BlockRun)> = order
        .iter()
        .copied()
        .zip(util::parallel_map(&order, jobs, |i| queue[i].run()))
        .collect();
    rows.sort_by_key(|(i, _)| *i);
    rows.into_iter().map(|(_, r)| r).collect()
}

/// The table into `build/block-fmax.{md,json}`, and on the terminal.
fn write_report(root: &Path, report: &BlockFmaxReport) -> Result<()> {
    let md = root.join("build").join("block-fmax.md");
    let json = root.join("build").join("block-fmax.json");
    std::fs::write(&md, markdown(report))
        .with_context(|| format!("cannot write {}", md.display()))?;
    std::fs::write(&json, serde_json::to_string_pretty(report)? + "\n")
        .with_context(|| format!("cannot write {}", json.display()))?;
    eprintln!();
    eprintln!(
        "  {:<30} {:>7} {:>7} {:>11} {:>9}",
        "block", "LUT4", "FF", "Fmax alone", "of goal"
    );
    for b in &report.blocks {
        match (b.resources, b.fmax_mhz) {
            (Some(r), Some(f)) => eprintln!(
                "  {:<30} {:>7} {:>7} {:>7.2} MHz {:>8.1} %",
                b.block,
                r.lut4,
                r.ff,
                f,
                100.0 * f / report.goal_mhz
            ),
            _ => eprintln!(
                "  {:<30} failed: {}",
                b.block,
                b.error.as_deref().unwrap_or("no figures")
            ),
        }
    }
    eprintln!(
        "\nblock-fmax: {} ({}), {}",
        util::rel(root, &md),
        util::rel(root, &json),
        util::secs(Duration::from_secs_f64(report.total_seconds))
    );
    Ok(())
}

/// The functions of the block a critical path passes through, from the wrapper's cell
/// names (`b.identify_0.kind_at_0.x` -> `identify/kind_at`): where in the Spade source
/// the path runs. The wrapper's own registers (`in_sh`, `q`) are left out, and so are
/// Spade's branch scopes (`if#false`) and the repeats of a recursive function.
fn path_units(c: &CriticalPath) -> String {
    let mut units: Vec<String> = Vec::new();
    for b in &c.blocks {
        let Some(path) = b.strip_prefix("b/") else {
            continue;
        };
        let mut parts: Vec<&str> = Vec::new();
        for part in path.split('/') {
            if !part.starts_with("if#") && parts.last() != Some(&part) {
                parts.push(part);
            }
        }
        let unit = parts.join("/");
        if units.last() != Some(&unit) {
            units.push(unit);
        }
    }
    if units.is_empty() {
        "the block's top level".into()
    } else {
        units
            .iter()
            .map(|u| format!("`{u}`"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The report as markdown.
pub fn markdown(r: &BlockFmaxReport) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# Blocks alone: {} ({} speed grade {})\n",
        r.board, r.device, r.speed
    );
    let _ = writeln!(
        s,
        "Each block of the chip placed and routed alone on the whole device, its inputs from \
         registers (shift registers of 512 bits, each fed by a pin) and its outputs into registers (XORed \
         onto a pin), against {:.2} MHz ({} MHz x the place-and-route margin); nextpnr {} \
         placer, {}, seed {}. LUT4 and FF are the wrapper's (the block with those \
         registers), carry cells counted as two LUT4.\n\nCommand: `{}`\n",
        r.pnr_mhz, r.goal_mhz, r.placer, r.router, r.seed, r.command
    );
    let _ = writeln!(
        s,
        "| block | inputs | outputs | LUT4 | FF | Fmax alone | of {} MHz | critical path | synth | pnr |",
        r.goal_mhz
    );
    let _ = writeln!(s, "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|");
    for b in &r.blocks {
        let (lut, ff) = b.resources.map_or(("-".into(), "-".into()), |x| {
            (x.lut4.to_string(), x.ff.to_string())
        });
        let (fmax, of) = b.fmax_mhz.map_or(("-".into(), "-".into()), |f| {
            (
                format!("{f:.2} MHz"),
                format!("{:.1} %", 100.0 * f / r.goal_mhz),
            )
        });
        let path = match (&b.critical_path, &b.error) {
            (_, Some(e)) => format!("failed: {e}"),
            (Some(c), None) => format!(
                "{:.2} ns, {} logic levels, {:.0} % routing; through {}",
                c.delay_ns,
                c.logic_levels,
                100.0 * c.routing_ns / c.delay_ns.max(f64::MIN_POSITIVE),
                path_units(c)
            ),
            (None, None) => "-".into(),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {lut} | {ff} | {fmax} | {of} | {path} | {:.0} s | {:.0} s |",
            b.block, b.input_bits, b.output_bits, b.synth_seconds, b.pnr_seconds
        );
    }
    let _ = writeln!(
        s,
        "\nWall time {:.0} s. A block alone has the device and its wiring to itself: its \
         Fmax is an upper bound of what it reaches inside the chip.",
        r.total_seconds
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_units_name_the_functions_once() {
        let path = |blocks: &[&str]| CriticalPath {
            clocks: String::new(),
            delay_ns: 1.0,
            logic_ns: 0.5,
            routing_ns: 0.5,
            logic_levels: 1,
            start: String::new(),
            end: String::new(),
            blocks: blocks.iter().map(|b| b.to_string()).collect(),
        };
        let c = path(&[
            "b/rotate/flip/if#false/flip/if#false/flip",
            "b/rotate/flip/if#false/flip",
            "q",
            "b/make_beat",
        ]);
        assert_eq!(path_units(&c), "`rotate/flip`, `make_beat`");
        assert_eq!(
            path_units(&path(&["q", "din$tr_io"])),
            "the block's top level"
        );
    }

    /// A small unit of Spade's shape through the tools as block-fmax runs them, in a project
    /// under `/tmp` (which the WebAssembly tools cannot see by its absolute path): the
    /// wrapper, yosys, nextpnr-ecp5 with the router watch and its report read back; then
    /// the same netlist placed and routed into a configuration that ecppack packs into a
    /// bitstream.
    #[test]
    #[ignore = "needs the FPGA tools (yosys, nextpnr-ecp5): run `cargo xtask setup`, then \
                `cargo test -p tsume-fpga -- --ignored` (`cargo xtask test` runs it)"]
    fn a_small_unit_goes_through_yosys_nextpnr_and_ecppack_under_tmp() {
        let checkout = crate::checkout();
        let tools = crate::Tools::of_checkout(&checkout);
        let manifest = tsume::project::Manifest::load(&checkout).unwrap();
        let board = manifest.board(None).unwrap().1;
        let board_lpf = std::fs::read_to_string(checkout.join(&board.constraints)).unwrap();
        let root = Path::new("/tmp").join(format!("tsume-tools-{}", std::process::id()));
        let dir = root.join("build").join("sum");
        std::fs::create_dir_all(&dir).unwrap();
        let (verilog, lpf) = (root.join("t.sv"), root.join("clock.lpf"));
        let unit = "tsume::t::sum";
        let text = "module \\tsume::t::sum  (\n        input clk_i,\n        input[7:0] a_i,\n        \
                    input[7:0] b_i,\n        output[8:0] output__\n    );\n    \
                    reg[8:0] r;\n    always @(posedge clk_i) r <= a_i + b_i;\n    \
                    assign output__ = r;\nendmodule\n";
        std::fs::write(&verilog, text).unwrap();
        std::fs::write(&lpf, clock_lpf(&board_lpf, 50.0).unwrap()).unwrap();
        // The smallest part in the board's package: the same pins, a quicker run.
        let device = device("LFE5U-12F").unwrap();
        let nextpnr = Nextpnr {
            tools: &tools,
            root: &root,
            device: &device,
            package: &board.package,
            speed: board.speed,
            netlist: Path::new(""),
            lpf: &lpf,
            lpf_allow_unconstrained: true,
            freq_mhz: None,
            options: &["--placer", "heap", "--router", "router1"],
        };
        let job = Job {
            tag: "sum".into(),
            unit: unit.into(),
            ports: module_ports(text, unit).unwrap(),
            dir: dir.clone(),
            nextpnr: &nextpnr,
            seed: 1,
            verilog: &verilog,
            abc9: None,
            no_rw_check: &[],
        };
        let row = job.run();
        let (config, bit) = (dir.join("sum.config"), dir.join("sum.bit"));
        let packed = (|| -> Result<()> {
            let netlist = dir.join("block_alone.json");
            let nextpnr = Nextpnr {
                netlist: &netlist,
                ..nextpnr
            };
            let mut cmd = nextpnr.command(1, &dir.join("again.json"), Some(&config))?;
            crate::tools::tool_stage("pnr", "nextpnr-ecp5", &mut cmd, &dir.join("again.log"))?;
            let mut cmd = crate::flow::ecppack(&tools, &root, &config, &bit)?;
            crate::tools::tool_stage("pack", "ecppack", &mut cmd, &dir.join("pack.log"))?;
            Ok(())
        })();
        let bit_bytes = std::fs::metadata(&bit).map(|m| m.len()).unwrap_or(0);
        let logs: Vec<String> = ["synth.log", "pnr.log", "again.log", "pack.log"]
            .iter()
            .map(|l| std::fs::read_to_string(dir.join(l)).unwrap_or_default())
            .collect();
        std::fs::remove_dir_all(&root).ok();
        let logs = logs.join("\n");
        assert_eq!(row.error, None, "{logs}");
        let resources = row.resources.expect("the wrapper's resources");
        // The sum's 9 output bits registered twice (the unit's and the wrapper's), and the
        // inputs' 16-bit shift register.
        assert!(resources.ff >= 9 + 9 + 16, "{resources:?}");
        assert!(row.fmax_mhz.is_some_and(|f| f > 50.0), "{row:?}");
        assert!(row.critical_path.is_some(), "{row:?}");
        packed.unwrap_or_else(|e| panic!("{e:#}\n{logs}"));
        assert!(bit_bytes > 1000, "a bitstream of {bit_bytes} bytes");
    }
}
