//! What a bitstream run is to do ([`Plan`]), from swim.toml and the options, each checked
//! before any tool runs: the board and its clock, the table, the PLL and the UART, the
//! board's files, the placer seeds, nextpnr's and ABC's options, the place-and-route margin,
//! and the command line that reproduces the run.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use super::BitstreamArgs;
use crate::device::{Device, LinkSettings, Pll, device, link_settings, pll_params};
use crate::pnr::{NextpnrChoice, seed_list};
use crate::tools::tool_path;
use crate::{Project, util};
use tsume::project::manifest::{Board, Fpga};
use tsume::solver::Config;

/// What a run is to do, from swim.toml and the options, each checked before any tool runs.
pub(super) struct Plan<'a> {
    pub(super) project: &'a Project,
    pub(super) args: &'a BitstreamArgs,
    pub(super) fpga: &'a Fpga,
    pub(super) board_name: String,
    /// The board of swim.toml, with `--clock-mhz`'s clock.
    pub(super) board: Board,
    /// swim.toml [search]'s table and the board's (fewer sets with its `tt_index_bits`).
    pub(super) search: Config,
    pub(super) table: Config,
    /// The folder where the Spade is compiled with the board's table, when it is not
    /// [search]'s.
    pub(super) own_geometry: Option<PathBuf>,
    pub(super) device: Device,
    pub(super) pll: Pll,
    pub(super) link: LinkSettings,
    /// The board's LPF and the FPGA-only Verilog, absolute.
    pub(super) constraints: PathBuf,
    pub(super) fpga_verilog: Vec<PathBuf>,
    pub(super) placer: Vec<u64>,
    pub(super) jobs: usize,
    pub(super) nextpnr: NextpnrChoice<'a>,
    pub(super) abc9: Option<String>,
    /// The command line that reproduces the run, for the report.
    pub(super) command: String,
}

impl<'a> Plan<'a> {
    pub(super) fn new(project: &'a Project, args: &'a BitstreamArgs) -> Result<Plan<'a>> {
        let (root, manifest) = (&project.root, &project.manifest);
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
        let (constraints, fpga_verilog) = board_files(root, fpga, &board, &board_name)?;
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
        let nextpnr = args.nextpnr.choose(fpga, &mut command)?;
        if args.router_patience != 4 {
            command.push_str(&format!(" --router-patience {}", args.router_patience));
        }
        if let Some(m) = args.pnr_margin {
            command.push_str(&format!(" --pnr-margin {m}"));
        }
        let abc9 = args.synth.choose(&mut command)?;
        Ok(Plan {
            project,
            args,
            fpga,
            board_name,
            board,
            search,
            table,
            own_geometry,
            device,
            pll,
            link,
            constraints,
            fpga_verilog,
            placer,
            jobs,
            nextpnr,
            abc9,
            command,
        })
    }

    /// The board, its clock and its UART, on the terminal.
    pub(super) fn announce(&self) {
        let (board, pll) = (&self.board, &self.pll);
        eprintln!(
            "bitstream: {} ({}): {} {} speed {}; generator clock {:.3} MHz (target {} \
             MHz); UART {} baud = {} clocks per bit",
            self.board_name,
            board.description,
            board.device,
            board.package,
            board.speed,
            pll.out_mhz,
            board.clock_mhz,
            board.baud,
            self.link.clocks_per_bit
        );
    }
}

/// The board's constraint file and swim.toml [fpga]'s FPGA-only Verilog, absolute, each
/// there and below `root` (where the tools run).
fn board_files(
    root: &Path,
    fpga: &Fpga,
    board: &Board,
    board_name: &str,
) -> Result<(PathBuf, Vec<PathBuf>)> {
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
        tool_path(root, v).context("swim.toml [fpga] verilog")?;
    }
    tool_path(root, &constraints)
        .with_context(|| format!("swim.toml [fpga.boards.{board_name}] constraints"))?;
    Ok((constraints, fpga_verilog))
}

/// The place-and-route margin of this run: `--pnr-margin` or swim.toml's, from 1 to 2; under
/// `--report-only` the one the last run saved in `saved` (absent: 1).
pub(super) fn pnr_margin(args: &BitstreamArgs, manifest: f64, saved: &Path) -> Result<f64> {
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

#[cfg(test)]
mod tests {
    use super::super::tests::args;

    #[test]
    fn seeds_come_from_the_option_or_the_board() {
        let manifest = tsume::project::Manifest::load(&crate::checkout()).unwrap();
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
