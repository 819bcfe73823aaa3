//! `cargo xtask solve`: tsume problems solved by the search of docs/search.md, on the
//! simulated chip (`solver_top`, the default) or by the software model (`tsume::solver`,
//! `--engine reference`); the suite runs both side by side.
//!
//! - `--sfen`: one position, as a report (board, result, line, counters, time);
//! - `--positions FILE`: one line per position, readable or JSON (`--json`);
//! - neither: the problem suite (problems/), checked against its expected results
//!   ([`suite`]).

mod suite;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use tsume::chip::solver::{ChipSearcher, Cycles, SolverTop, Walked};
use tsume::marlin::spade::SpadeRuntime;
use tsume::position::Position;
use tsume::solver::{
    Config, Kind, Limits, Outcome, Reason, Root, SearchResult, Searcher, Solver, solve_on,
};

use crate::sim::{Input, catch, read_positions};
use crate::util::{self, Failure};
use tsume::project::manifest::Manifest;

/// The node limit when neither `--nodes` nor a long problem's own limit gives one.
pub const DEFAULT_NODES: u64 = 1_000_000;

/// Runs of at least this long show a progress bar (on a terminal).
const BAR_AFTER: Duration = Duration::from_secs(2);

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SolveEngine {
    /// The chip's search (`solver_top`, simulated by Verilator).
    Hardware,
    /// The software model of the search (`tsume::solver`).
    Reference,
}

/// Which side the side to move plays (`--root`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RootArg {
    /// The side to move mates (a problem as set; USI's `go mate`), also when it is in check
    /// (its moves are then the evasions that give check).
    Attacker,
    /// The defender when the side to move is in check (a position one check into a
    /// problem), else the attacker.
    Auto,
    /// The side to move is in check and is mated; the line starts with its reply.
    Defender,
}

impl RootArg {
    pub fn root(self) -> Root {
        match self {
            RootArg::Auto => Root::Auto,
            RootArg::Attacker => Root::Attacker,
            RootArg::Defender => Root::Defender,
        }
    }
}

#[derive(Debug, Args)]
pub struct SolveArgs {
    /// Which search answers: the simulated chip, or the software model (faster; any table
    /// size). The suite runs the model beside the chip and fails on any difference.
    #[arg(long, value_enum, default_value_t = SolveEngine::Hardware)]
    pub engine: SolveEngine,
    /// Write a waveform of the whole run (every signal of the chip) to this VCD file; the
    /// first such run builds a second, traced model. Hardware engine only; short runs only
    /// (the file grows by megabytes a thousand cycles).
    #[arg(long, value_name = "FILE")]
    pub vcd: Option<PathBuf>,
    /// One position in SFEN: quote it, or give its words after --sfen
    /// (`--sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1`). A leading `sfen` and the move
    /// number are optional. Which side attacks: --root.
    #[arg(long, num_args = 1.., value_name = "SFEN", conflicts_with = "positions")]
    pub sfen: Option<Vec<String>>,
    /// A text file of positions, one SFEN per line (blank lines and `#` comments skipped);
    /// `-` reads standard input.
    #[arg(long, value_name = "FILE")]
    pub positions: Option<PathBuf>,
    /// One JSON object per position and line: {"sfen", "engine", "root", "result", "pv",
    /// "plies", "nodes", "expansions", "probes", "stores"} (+ "cycles" on the chip, "reason"
    /// for unknown), or {"sfen", "error"}.
    #[arg(long)]
    pub json: bool,
    /// The problem suite to run when neither --sfen nor --positions is given.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["sfen", "positions"])]
    pub suite: Option<PathBuf>,
    /// Moves made at most per position (every search of its solve counted); beyond it the
    /// answer is `unknown`. Default 1000000; in the suite a long problem's own limit.
    #[arg(long, value_name = "N")]
    pub nodes: Option<u64>,
    /// Which side the side to move plays: attacker (it mates, even from check), defender
    /// (it is in check and is mated: a position one check into a problem) or auto (the
    /// defender when in check, else the attacker).
    #[arg(long, value_enum, default_value_t = RootArg::Attacker)]
    pub root: RootArg,
    /// After a mate, search again within 1, 3, 5, ... plies until one proves it: the line
    /// is then a shortest mate (its length the minimax distance).
    #[arg(long)]
    pub shortest: bool,
    /// Entries of the transposition table (a power-of-two number of sets of swim.toml's
    /// ways). Default: swim.toml [search] (the chip's table); in the suite a long
    /// problem's own size. Long problems need millions. The chip takes its own size or
    /// fewer sets (a small table that evicts).
    #[arg(long, value_name = "N")]
    pub tt_entries: Option<usize>,
    /// Child frames: mates of up to N - 1 plies are searched (2 to 1024). Default:
    /// swim.toml [search] max_plies; in the suite a long problem's own. The chip takes
    /// its own or fewer.
    #[arg(long, value_name = "N")]
    pub max_plies: Option<usize>,
}

pub fn run(args: &SolveArgs) -> Result<()> {
    let manifest = Manifest::load(&util::project_root())?;
    let base = manifest.search()?;
    let hardware = args.engine == SolveEngine::Hardware;
    if let Some(vcd) = &args.vcd {
        if !hardware {
            return Err(Failure::error(
                2,
                "--vcd needs the hardware engine: drop `--engine reference`",
            ));
        }
        crate::sim::check_writable(vcd)?;
    }
    let runtime: SpadeRuntime;
    let mut chip = None;
    if hardware {
        if args.sfen.is_some() || args.positions.is_some() {
            fit_the_chip(base, args)?;
        }
        runtime = crate::simulator::runtime()?;
        let (top, _) = crate::simulator::open_top::<SolverTop>(
            &runtime,
            args.vcd.as_deref(),
            "solver_top",
            "solve",
        )?;
        chip = Some(Chip {
            searcher: ChipSearcher::new(top, base),
            clock_mhz: manifest.clock_mhz(None)?,
        });
    }
    let result = run_with(args, base, chip.as_mut());
    drop(chip);
    if let Some(vcd) = &args.vcd {
        eprintln!("waveform written to {}", vcd.display());
    }
    result
}

/// The chip of a hardware run and the clock its cycles are timed at.
pub struct Chip<'ctx> {
    pub searcher: ChipSearcher<'ctx>,
    pub clock_mhz: f64,
}

/// The geometry of an `--sfen` or `--positions` run; on the chip, one it can take (its
/// own, or a table of fewer sets, fewer plies).
fn fit_the_chip(base: Config, args: &SolveArgs) -> Result<Config> {
    let config = configure(base, args.tt_entries, args.max_plies)?;
    tsume::chip::solver::chip_takes(base, config).map_err(|why| {
        Failure::error(
            2,
            format!(
                "--tt-entries/--max-plies: {why}; change swim.toml [search], or solve with \
                 --engine reference"
            ),
        )
    })?;
    Ok(config)
}

fn run_with(args: &SolveArgs, base: Config, mut chip: Option<&mut Chip>) -> Result<()> {
    if let Some(words) = &args.sfen {
        let text = words.join(" ");
        let config = configure(base, args.tt_entries, args.max_plies)?;
        use_config(chip.as_deref_mut(), config)?;
        return one(&text, config, limits(args, None), chip);
    }
    if let Some(file) = &args.positions {
        let config = configure(base, args.tt_entries, args.max_plies)?;
        use_config(chip.as_deref_mut(), config)?;
        let inputs = read_positions(file)?;
        let failed = many(
            &inputs,
            config,
            limits(args, None),
            args.json,
            chip.as_deref_mut(),
        )?;
        let name = if file == Path::new("-") {
            "standard input".to_string()
        } else {
            file.display().to_string()
        };
        return if failed > 0 {
            Err(Failure::error(
                1,
                format!(
                    "{failed} of {} lines in {name} are not usable positions (see their errors)",
                    inputs.len()
                ),
            ))
        } else {
            Ok(())
        };
    }
    let dir = args
        .suite
        .clone()
        .unwrap_or_else(crate::toolchain::problems_dir);
    suite::run(&dir, base, args, chip)
}

/// The chip searches with `config` (checked by `fit_the_chip` before it was built).
fn use_config(chip: Option<&mut Chip>, config: Config) -> Result<()> {
    if let Some(chip) = chip {
        chip.searcher
            .set_config(config)
            .map_err(|why| Failure::error(2, why))?;
    }
    Ok(())
}

/// The node limit and mode of a run: `--nodes`, else the problem's own, else the default.
fn limits(args: &SolveArgs, own: Option<u64>) -> Limits {
    Limits {
        nodes: args.nodes.or(own).unwrap_or(DEFAULT_NODES),
        shortest: args.shortest,
        root: args.root.root(),
    }
}

/// The project's geometry with the table and frames asked for.
fn configure(base: Config, tt_entries: Option<usize>, max_plies: Option<usize>) -> Result<Config> {
    let mut config = base;
    if let Some(entries) = tt_entries {
        if entries < config.tt_ways {
            anyhow::bail!(
                "--tt-entries {entries}: the table needs at least one set of {} ways; give \
                 {} or more",
                config.tt_ways,
                config.tt_ways
            );
        }
        config = config.with_tt_entries(entries);
    }
    if let Some(plies) = max_plies {
        config.max_plies = plies;
    }
    config
        .check()
        .with_context(|| "--max-plies: give a number of frames from 2 to 1024".to_string())?;
    Ok(config)
}

/// A solved position: the outcome, its wall time, and on the chip its cycles.
pub struct Solved {
    pub pos: Position,
    pub outcome: Outcome,
    pub time: Duration,
    pub cycles: Option<Cycles>,
    /// The chip's walks of the mating line in this solve.
    pub walked: Option<Walked>,
}

/// The position of `sfen` solved on `chip` if given, else by a model of `config`, or what
/// is wrong with the input.
fn solve_either(
    chip: Option<&mut Chip>,
    config: Config,
    sfen: &str,
    limits: Limits,
) -> Result<Solved, String> {
    match chip {
        Some(chip) => {
            let before = chip.searcher.walked();
            let mut solved = solve(&mut chip.searcher, sfen, limits)?;
            solved.cycles = Some(chip.searcher.cycles());
            solved.walked = Some(chip.searcher.walked().since(before));
            Ok(solved)
        }
        None => solve(&mut Solver::new(config), sfen, limits),
    }
}

/// The position of `sfen` solved on `searcher`, or what is wrong with the input.
fn solve(searcher: &mut dyn Searcher, sfen: &str, limits: Limits) -> Result<Solved, String> {
    let pos =
        catch("the position rules", || Position::from_sfen(sfen))?.map_err(|e| e.to_string())?;
    let start = Instant::now();
    let outcome = catch("the solver", || solve_on(searcher, &pos, limits))?;
    if outcome.result == SearchResult::Unknown(Reason::DefenderNotInCheck) {
        return Err(format!("--root defender: {}", Reason::DefenderNotInCheck));
    }
    Ok(Solved {
        pos,
        outcome,
        time: start.elapsed(),
        cycles: None,
        walked: None,
    })
}

/// `41,234 cycles (52.1 a node): 0.550 ms at 75 MHz (1.44 M nodes/s)`.
pub fn cycles_text(cycles: &Cycles, nodes: u64, clock_mhz: f64) -> String {
    let secs = cycles.total as f64 / (clock_mhz * 1e6);
    let rate = if secs > 0.0 {
        format!("{:.2} M nodes/s", nodes as f64 / secs / 1e6)
    } else {
        "-".to_string()
    };
    format!(
        "{} cycles ({:.1} a node): {:.3} ms at {clock_mhz} MHz ({rate})",
        cycles.total,
        cycles.total as f64 / nodes.max(1) as f64,
        secs * 1e3
    )
}

/// The line in USI, space-separated.
pub fn usi(outcome: &Outcome) -> String {
    outcome
        .pv
        .iter()
        .map(|m| m.to_usi())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `mate`, `nomate` or `unknown`.
pub fn result_word(result: &SearchResult) -> &'static str {
    match result {
        SearchResult::Mate => "mate",
        SearchResult::NoMate => "nomate",
        SearchResult::Unknown(_) => "unknown",
    }
}

/// `attacker` or `defender`: the side to move's part at the root.
pub fn root_word(kind: Kind) -> &'static str {
    match kind {
        Kind::Or => "attacker",
        Kind::And => "defender",
    }
}

/// `mate in 5 (shortest)`, `no mate`, `unknown (node limit: ...)`.
pub fn describe(outcome: &Outcome) -> String {
    match &outcome.result {
        SearchResult::Mate => {
            let shortest = if outcome.shortest { " (shortest)" } else { "" };
            format!("mate in {}{shortest}", outcome.pv.len())
        }
        SearchResult::NoMate => "no mate".to_string(),
        SearchResult::Unknown(reason) => format!("unknown: {reason}"),
    }
}

/// Moves made per second, rounded.
pub fn rate(nodes: u64, time: Duration) -> String {
    let secs = time.as_secs_f64();
    if secs <= 0.0 {
        return "-".to_string();
    }
    format!("{:.0} nodes/s", nodes as f64 / secs)
}

/// One position as a report on stdout; exit 1 when it is not usable.
fn one(sfen: &str, config: Config, limits: Limits, mut chip: Option<&mut Chip>) -> Result<()> {
    let clock_mhz = chip.as_ref().map(|c| c.clock_mhz);
    let solved = match solve_either(chip.as_deref_mut(), config, sfen, limits) {
        Ok(s) => s,
        Err(error) => {
            return Err(Failure::error(
                1,
                format!("the SFEN {sfen:?} is not a usable position: {error}"),
            ));
        }
    };
    let o = &solved.outcome;
    let c = &o.counters;
    let mut out = solved.pos.diagram();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!("sfen:   {sfen}\n"));
    out.push_str(&format!(
        "root:   the side to move is the {}\n",
        root_word(o.root)
    ));
    out.push_str(&format!("result: {}\n", describe(o)));
    if o.result == SearchResult::Mate {
        out.push_str(&format!("line:   {}\n", usi(o)));
        out.push_str(&format!("plies:  {}\n", o.pv.len()));
    }
    out.push_str(&format!(
        "nodes:  {} (expansions {}, probes {}, stores {}; limit {})\n",
        c.nodes, c.expansions, c.probes, c.stores, limits.nodes
    ));
    out.push_str(&format!(
        "table:  {} entries ({} ways), {} frames\n",
        config.tt_entries(),
        config.tt_ways,
        config.max_plies
    ));
    let engine = if chip.is_some() { "simulated" } else { "model" };
    out.push_str(&format!(
        "time:   {:.3} s {engine} ({})\n",
        solved.time.as_secs_f64(),
        rate(c.nodes, solved.time)
    ));
    if let (Some(cycles), Some(mhz)) = (&solved.cycles, clock_mhz) {
        out.push_str(&format!("chip:   {}\n", cycles_text(cycles, c.nodes, mhz)));
    }
    if let Some(w) = solved.walked.filter(|w| w.walks > 0) {
        out.push_str(&format!(
            "walk:   the line on chip: {} moves in {} walks, {} to the mate, {} cycles\n",
            w.moves, w.walks, w.complete, w.cycles
        ));
    }
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(())
}

/// The JSON object of one answer.
#[derive(Serialize)]
pub struct JsonAnswer<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<&'a str>,
    pub sfen: &'a str,
    pub engine: &'static str,
    pub root: &'static str,
    pub result: &'static str,
    pub pv: Vec<String>,
    pub plies: usize,
    pub nodes: u64,
    pub expansions: u64,
    pub probes: u64,
    pub stores: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycles: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl<'a> JsonAnswer<'a> {
    pub fn new(id: Option<&'a str>, sfen: &'a str, solved: &Solved) -> JsonAnswer<'a> {
        let outcome = &solved.outcome;
        JsonAnswer {
            id,
            sfen,
            engine: if solved.cycles.is_some() {
                "hardware"
            } else {
                "reference"
            },
            root: root_word(outcome.root),
            result: result_word(&outcome.result),
            pv: outcome.pv.iter().map(|m| m.to_usi()).collect(),
            plies: outcome.pv.len(),
            nodes: outcome.counters.nodes,
            expansions: outcome.counters.expansions,
            probes: outcome.counters.probes,
            stores: outcome.counters.stores,
            cycles: solved.cycles.map(|c| c.total),
            reason: match &outcome.result {
                SearchResult::Unknown(reason) => Some(reason.to_string()),
                _ => None,
            },
        }
    }
}

#[derive(Serialize)]
struct JsonError<'a> {
    sfen: &'a str,
    error: &'a str,
}

/// A progress bar on stderr that appears once a run has lasted [`BAR_AFTER`] (and only on
/// a terminal).
pub struct LateBar {
    bar: ProgressBar,
    start: Instant,
    shown: bool,
}

impl LateBar {
    pub fn new(len: u64) -> LateBar {
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{bar:30.cyan/blue} {pos}/{len} [{elapsed}<{eta}] {msg}")
                .expect("valid template"),
        );
        LateBar {
            bar,
            start: Instant::now(),
            shown: false,
        }
    }

    /// Before an item: its name, and the bar shown if the run has become long.
    pub fn start_item(&mut self, name: &str) {
        if !self.shown && self.start.elapsed() >= BAR_AFTER && std::io::stderr().is_terminal() {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.bar.enable_steady_tick(Duration::from_millis(200));
            self.shown = true;
        }
        self.bar.set_message(name.to_string());
    }

    /// After an item.
    pub fn inc(&self) {
        self.bar.inc(1);
    }

    /// Writes through the bar (so that it is not drawn over).
    pub fn println(&self, text: &str) -> Result<()> {
        self.bar.suspend(|| -> Result<()> {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{text}")?;
            out.flush()?;
            Ok(())
        })
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Every input solved and printed in input order, one line each; returns how many lines
/// were not usable positions.
fn many(
    inputs: &[Input],
    config: Config,
    limits: Limits,
    json: bool,
    mut chip: Option<&mut Chip>,
) -> Result<usize> {
    let mut bar = LateBar::new(inputs.len() as u64);
    let mut failed = 0;
    for input in inputs {
        bar.start_item(&input.label);
        let result = solve_either(chip.as_deref_mut(), config, &input.sfen, limits);
        let line = match (&result, json) {
            (Ok(s), true) => serde_json::to_string(&JsonAnswer::new(None, &input.sfen, s))?,
            (Err(error), true) => serde_json::to_string(&JsonError {
                sfen: &input.sfen,
                error,
            })?,
            (Ok(s), false) => {
                let o = &s.outcome;
                let line = if o.result == SearchResult::Mate {
                    format!(": {}", usi(o))
                } else {
                    String::new()
                };
                let cycles = s
                    .cycles
                    .map(|c| format!(", {} cycles", c.total))
                    .unwrap_or_default();
                format!(
                    "{}: {}{line} ({} nodes, {} expansions, {} probes{cycles}, {:.3} s)",
                    input.label,
                    describe(o),
                    o.counters.nodes,
                    o.counters.expansions,
                    o.counters.probes,
                    s.time.as_secs_f64()
                )
            }
            (Err(error), false) => format!("{}: error: {error} ({})", input.label, input.sfen),
        };
        failed += usize::from(result.is_err());
        bar.println(&line)?;
        bar.inc();
    }
    bar.finish();
    Ok(failed)
}
