//! `cargo xtask solve`: tsume problems solved by the search of docs/search.md, on the
//! simulated chip (`solver_top`, the default) or by the software model (`tsume::solver`,
//! `--engine model`); the suite runs both side by side.
//!
//! - `--sfen`: one position, as a report (board, result, line, counters, time) or JSON;
//! - `--positions FILE`: one line per position, readable or JSON (`--json`);
//! - neither: the problem suite (problems/), checked against its expected results
//!   ([`suite`]); [`output`]: the words and JSON of the answers.
//!
//! Exit codes: 2 for an option's value the run cannot take (as clap's own errors), 1 for
//! an input that is not a usable position, a wrong result in the suite, or a table this
//! machine cannot hold.

mod composer;
mod every;
mod output;
mod suite;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::Result;
use clap::{Args, ValueEnum};
use tsume::chip::solver::{ChipSearcher, Cycles, OnChip, SolverTop, Walked};
use tsume::futile::Rule;
use tsume::input::{Input, catch, given, parse};
use tsume::marlin::spade::SpadeRuntime;
use tsume::position::Position;
use tsume::solver::modes::parse_modes;
use tsume::solver::transposition_table::TableTooLarge;
use tsume::solver::{
    Config, Limits, Outcome, Reason, Root, SearchResult, Searcher, Solver, solve_on,
};

use crate::util::{self, Failure, count};
use output::{Asked, JsonAnswer, JsonError, LateBar};
use tsume::project::manifest::Manifest;

/// The node limit when neither `--nodes` nor a long problem's own limit gives one: none,
/// as USI's `NodeLimit` (docs/usi.md, "The same defaults"): a position is answered the same
/// by both fronts, and a run ends when it has its answer (or is interrupted).
pub const DEFAULT_NODES: u64 = 0;

/// What searches (`--engine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SolveEngine {
    /// The chip's search (`solver_top`, simulated by Verilator).
    #[value(alias = "hardware")]
    Chip,
    /// The software model of the search (`tsume::solver`).
    #[value(alias = "reference")]
    Model,
}

/// How lines are written (`--notation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Notation {
    /// USI: `3c3b+ 2a3b`.
    Usi,
    /// Japanese, as composers write (KI2): `1 ▲３三角成  2 △同　玉  まで2手詰`.
    Ja,
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
    /// size); `hardware` and `reference` are read as `chip` and `model`. The suite runs the
    /// model beside the chip and fails on any difference.
    #[arg(long, value_enum, default_value_t = SolveEngine::Chip)]
    pub engine: SolveEngine,
    /// Write a waveform of the whole run (every signal of the chip) to this VCD file; the
    /// first such run builds a second, traced model. Chip only; short runs only
    /// (the file grows by megabytes a thousand cycles).
    #[arg(long, value_name = "FILE")]
    pub vcd: Option<PathBuf>,
    /// One position in SFEN: quote it, or give its words after --sfen
    /// (`--sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1`). A leading `sfen` and the move
    /// number are optional; positions as shogi tools write them are read too (`startpos
    /// moves 7g7f`, `position sfen ... moves ...`): the position after the moves. Which
    /// side attacks: --root.
    #[arg(long, num_args = 1.., value_name = "SFEN", conflicts_with = "positions")]
    pub sfen: Option<Vec<String>>,
    /// A text file of positions, one per line as --sfen takes them (blank lines and `#`
    /// comments skipped; a file with none is an error); `-` reads standard input. A problem
    /// as composers keep it: a .kif file (Shift_JIS) or .kifu (UTF-8) with a board diagram
    /// and `先手の持駒：`/`後手の持駒：` lines (`残り全部`: all the rest), or a .csa file
    /// (`P1`..`P9`, `P+00KI`, `P-00AL`); the side to move is sente unless the file says
    /// `後手番`. A folder: each .kif, .kifu, .csa (a problem a file), .sfen and .txt file (a
    /// SFEN a line) in it, sorted by name; a file that cannot be read is reported (file,
    /// line, what to write) and the others run.
    #[arg(long, value_name = "FILE")]
    pub positions: Option<PathBuf>,
    /// One JSON object per position and line (with --sfen too): {"sfen" (the position's full
    /// SFEN), "engine" (chip or model), "root", "result", "pv", "plies", "rule", "nodes",
    /// "expansions", "probes", "stores"} (+ "input" where the position was given otherwise,
    /// "proven_shortest" for a mate, "cycles" on the chip, "reason" for unknown; for a mate
    /// by the composers' rule "length" by the rule and "left_out", and when it is proven
    /// shortest "every_interposition_plies", the length counting every interposition,
    /// unless its second search ended without it, and "every_interposition_nodes", that
    /// search's moves, when there was one), or
    /// {"sfen" (as given), "error"}. A problem file's answer and error have its "name" (the
    /// file, and the title of a KIF's 作品名/表題); with --notation ja an answer has "line_ja"
    /// beside "pv" (USI either way): the moves in Japanese, one a string.
    #[arg(long)]
    pub json: bool,
    /// How the line of a mate is written: usi (`3c3b+ 2a3b`), or ja, Japanese as composers
    /// write it (`1 ▲３三角成  2 △同　玉  まで2手詰`: KI2, `打` only where a piece on the
    /// board could also go there). For --sfen and --positions; the JSON's "pv" stays USI.
    #[arg(long, value_enum, default_value_t = Notation::Usi)]
    pub notation: Notation,
    /// The problem suite to run when neither --sfen nor --positions is given.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["sfen", "positions"])]
    pub suite: Option<PathBuf>,
    /// Moves made at most per position (every search of its solve counted); beyond it the
    /// answer is `unknown`. 0: no limit. Default: no limit, as USI's NodeLimit; in the
    /// suite a long problem's own limit. The second search of the length counting every
    /// interposition has the same limit, of its own.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = util::whole::<u64>)]
    pub nodes: Option<u64>,
    /// Which side the side to move plays: attacker (it mates, even from check), defender
    /// (it is in check and is mated: a position one check into a problem) or auto (the
    /// defender when in check, else the attacker).
    #[arg(long, value_enum, default_value_t = RootArg::Attacker)]
    pub root: RootArg,
    /// The default (as USI's Shortest): after a mate, search again within 1, 3, 5, ...
    /// plies until one proves it: the line is then a shortest mate (its length the minimax
    /// distance). When the limits end those searches first, the line is answered as not
    /// proven shortest. --first-mate turns it off; the last of the two given counts.
    #[arg(long, overrides_with = "first_mate")]
    pub shortest: bool,
    /// Answer the first mate the proof gives, without the searches of --shortest (as USI's
    /// Shortest false).
    #[arg(long, overrides_with = "shortest", alias = "no-shortest")]
    pub first_mate: bool,
    /// Count every interposition as a reply. By default the model (`--engine model`)
    /// follows the composers' rule (docs/search.md, "Futile interpositions", as USI's
    /// Interpositions): a futile interposition is no reply, and the answer lists the ones
    /// its line left out and gives, for a shortest mate, its length counting every
    /// interposition too (a second search when the line left one out). The chip and the
    /// suite (whose expected lengths count every interposition) always count every one.
    #[arg(long)]
    pub every_interposition: bool,
    /// The composer's checks after a shortest mate: at each attacker move of the line and
    /// of the defender's variations of greatest length, every other move that also mates
    /// within the plies left (its line; the last move's apart), and those variations
    /// (docs/search.md, "Alternative mates"). Searched on the engine that solved.
    #[arg(long, conflicts_with = "first_mate")]
    pub alternatives: bool,
    /// Entries of the transposition table (a power-of-two number of sets of swim.toml's
    /// ways). Default: swim.toml [search] (the chip's table); in the suite a long
    /// problem's own size. Long problems need millions. The chip takes its own size or
    /// fewer sets (a small table that evicts). The table must fit in the memory available.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = util::whole::<usize>)]
    pub tt_entries: Option<usize>,
    /// The table in MiB, as USI's USI_Hash: MIB x 2^20 bytes over the 16 bytes of an
    /// entry, in a power-of-two number of sets (--hash 16 is --tt-entries 1048576).
    #[arg(long, value_name = "MIB", conflicts_with = "tt_entries", value_parser = clap::value_parser!(u32).range(1..))]
    pub hash: Option<u32>,
    /// Child frames: mates of up to N - 1 plies are searched (2 to 1024). Default:
    /// swim.toml [search] max_plies; in the suite a long problem's own. The chip takes
    /// its own or fewer.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = util::whole::<usize>)]
    pub max_plies: Option<usize>,
    /// The table (docs/search.md): plies (keyed by plies left), hands (hand_superiority),
    /// depth (depth_free, swim.toml's default), pieces (both), counts (plies with
    /// child_counts), pieces-counts, depth-counts, or a count estimate (est-ring,
    /// est-checker, est-attacked, est-replies: depth with child_estimates; pieces-est-*);
    /// the chip takes all but the counts and the estimates.
    #[arg(long, value_name = "MODE")]
    pub table: Option<String>,
    /// The model with a board's table (`--engine model` only): the first level of the
    /// board's block RAM (swim.toml [fpga.boards.NAME] tt_index_bits, [search]'s ways) and
    /// the second of its SDRAM (tt2_index_bits; docs/search.md, "The second level (the
    /// board's SDRAM)"), what the board will search with. NAME: swim.toml [fpga] board
    /// when left out. In the suite every problem takes this table (its plies and nodes
    /// stay its own).
    #[arg(
        long,
        value_name = "NAME",
        num_args = 0..=1,
        default_missing_value = "",
        conflicts_with_all = ["tt_entries", "hash"]
    )]
    pub board: Option<String>,
    /// The table's second level: 2^N slots of one entry behind the table (`--engine model`
    /// only; 1 to 32, 0 for none). With --board, instead of the board's.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=32))]
    pub tt2_bits: Option<u32>,
}

impl SolveArgs {
    /// Whether the mates are shortest (`--shortest`, the default, or `--first-mate`).
    pub fn shortest_mode(&self) -> bool {
        !self.first_mate
    }

    /// Which of the defender's replies the model counts (`--every-interposition`).
    pub fn rule(&self) -> Rule {
        if self.every_interposition {
            Rule::EveryInterposition
        } else {
            Rule::Composers
        }
    }

    /// The table's entries asked for: `--tt-entries`, or `--hash` in MiB.
    pub fn table_entries(&self) -> Option<usize> {
        self.tt_entries.or(self
            .hash
            .map(|mib| tsume::solver::transposition_table::entries_in_mib(mib as usize)))
    }
}

pub fn run(args: &SolveArgs) -> Result<()> {
    let manifest = Manifest::load(&util::project_root())?;
    let mut base = manifest.search()?;
    let on_chip = args.engine == SolveEngine::Chip;
    if let Some(name) = &args.table {
        let modes =
            parse_modes(name).map_err(|e| Failure::error(2, format!("--table {name}: {e}")))?;
        if on_chip && !modes[0].on_chip() {
            return Err(Failure::error(
                2,
                format!(
                    "--table {name}: the chip takes no child counts and no estimate but its count \
                     unit's (est-attacked, pieces-est-attacked); add `--engine model`"
                ),
            ));
        }
        base = modes[0].apply(base);
    }
    base = board_table(&manifest, args, base, on_chip)?;
    if let Some(vcd) = &args.vcd {
        if !on_chip {
            return Err(Failure::error(
                2,
                "--vcd needs the chip: drop `--engine model`",
            ));
        }
        crate::sim::check_writable(vcd)?;
    }
    // The positions are read, and the geometry checked, before any model is built.
    let inputs = given(args.sfen.as_deref(), args.positions.as_deref())?;
    let config = geometry(args, base, inputs.is_some(), on_chip)?;
    let runtime: SpadeRuntime;
    let mut chip = None;
    if on_chip {
        runtime = crate::simulator::runtime()?;
        let (top, _) = crate::simulator::open_top::<SolverTop>(
            &runtime,
            args.vcd.as_deref(),
            "solver_top",
            "solve",
        )?;
        chip = Some(Chip {
            searcher: Box::new(ChipSearcher::new(top, base)),
            clock_mhz: manifest.clock_mhz(None)?,
        });
    }
    let result = run_on(args, inputs, base, config, chip.as_mut());
    drop(chip);
    if let Some(vcd) = &args.vcd {
        eprintln!("waveform written to {}", vcd.display());
    }
    result
}

/// `base` with the table of `--board` (its first level's sets and its second level) and
/// `--tt2-bits`; refused on the chip, which has no second level yet (issue 76).
pub fn board_table(
    manifest: &Manifest,
    args: &SolveArgs,
    base: Config,
    on_chip: bool,
) -> Result<Config> {
    if on_chip && (args.board.is_some() || args.tt2_bits.is_some()) {
        return Err(Failure::error(
            2,
            "--board/--tt2-bits: the chip has no second level yet (issue 76); add `--engine \
             model` to search the model with the board's two levels, or search the board's \
             first level on the simulated board top with `cargo xtask run --sim --solve`",
        ));
    }
    let mut config = base;
    if let Some(name) = &args.board {
        config = with_board_levels(manifest, name, config)?;
    }
    if let Some(bits) = args.tt2_bits {
        config.tt2_index_bits = bits;
    }
    Ok(config)
}

/// `config` with the two levels of board `name`'s table (`--board [NAME]`: empty for
/// swim.toml's default board; `Manifest::board_model`).
pub fn with_board_levels(manifest: &Manifest, name: &str, config: Config) -> Result<Config> {
    let name = (!name.is_empty()).then_some(name);
    let board = manifest
        .board_model(name)
        .map_err(|e| Failure::error(2, format!("--board: {e:#}")))?;
    Ok(Config {
        tt_index_bits: board.tt_index_bits,
        tt2_index_bits: board.tt2_index_bits,
        ..config
    })
}

/// The geometry the options ask for when there are `positions` (the suite picks its own
/// per problem), checked against the chip `on_chip`: before the chip is built, so that a
/// wrong option is refused at once.
pub fn geometry(
    args: &SolveArgs,
    base: Config,
    positions: bool,
    on_chip: bool,
) -> Result<Option<Config>> {
    if !positions {
        return Ok(None);
    }
    let config = configure(base, args.table_entries(), args.max_plies)?;
    if on_chip {
        fit_the_chip(base, config)?;
    }
    Ok(Some(config))
}

/// The positions of `inputs` (the suite without them) solved as `args` asks with
/// `config` (from [`geometry`]), on `chip` when given (the simulated chip, or the board:
/// `cargo xtask run --solve`).
pub fn run_on(
    args: &SolveArgs,
    inputs: Option<Vec<Input>>,
    base: Config,
    config: Option<Config>,
    chip: Option<&mut Chip>,
) -> Result<()> {
    match (&inputs, config) {
        (Some(inputs), Some(config)) => positions(args, inputs, base, config, chip),
        _ => {
            let dir = args
                .suite
                .clone()
                .unwrap_or_else(crate::toolchain::problems_dir);
            suite::run(&dir, base, args, chip)
        }
    }
}

/// The chip of a chip run (simulated `solver_top`, or the board) and the clock its cycles
/// are timed at.
pub struct Chip<'ctx> {
    pub searcher: Box<dyn OnChip + 'ctx>,
    pub clock_mhz: f64,
}

/// Checks that the chip takes `config`: its own geometry, or a table of fewer sets, fewer
/// plies.
fn fit_the_chip(base: Config, config: Config) -> Result<()> {
    tsume::chip::solver::chip_takes(base, config).map_err(|why| {
        Failure::error(
            2,
            format!(
                "--tt-entries/--max-plies: {why}; change swim.toml [search], or solve with \
                 --engine model"
            ),
        )
    })
}

/// What solves the positions of an `--sfen` or `--positions` run.
enum Engine<'a, 'ctx> {
    Chip(&'a mut Chip<'ctx>),
    Model(Box<Solver>),
}

impl Engine<'_, '_> {
    /// The position of `sfen` solved, or what is wrong with the input.
    /// With `asked.alternatives`, the composer's checks after it.
    fn solve(&mut self, sfen: &str, limits: Limits, asked: Asked) -> Result<Solved, String> {
        match self {
            Engine::Chip(chip) => {
                let before = chip.searcher.walked();
                let mut solved = solve(chip.searcher.as_mut(), sfen, limits)?;
                let cycles = chip.searcher.cycles();
                solved.cycles = Some(cycles);
                solved.walked = Some(chip.searcher.walked().since(before));
                if asked.alternatives {
                    solved.composed =
                        composer::check(chip.searcher.as_mut(), &solved, limits).map(|c| {
                            composer::Composed {
                                cycles: Some(chip.searcher.cycles().total - cycles.total),
                                ..c
                            }
                        });
                }
                Ok(solved)
            }
            Engine::Model(solver) => {
                let solver = solver.as_mut();
                let mut solved = solve(solver, sfen, limits)?;
                if asked.alternatives {
                    solved.composed = composer::check(solver, &solved, limits);
                }
                // After the checks, which read the solve's table: this search clears it.
                solved.every = every::length(solver, &solved, limits);
                Ok(solved)
            }
        }
    }

    /// The clock of the chip's cycles.
    fn clock_mhz(&self) -> Option<f64> {
        match self {
            Engine::Chip(chip) => Some(chip.clock_mhz),
            Engine::Model(_) => None,
        }
    }
}

/// The positions of `--sfen` (a report, or one JSON line) or `--positions` (a line each).
fn positions(
    args: &SolveArgs,
    inputs: &[Input],
    base: Config,
    config: Config,
    chip: Option<&mut Chip>,
) -> Result<()> {
    let asked = Asked {
        shortest: args.shortest_mode(),
        chip_plies: chip.as_ref().map(|_| base.max_plies),
        ja: args.notation == Notation::Ja,
        alternatives: args.alternatives,
        level_two: config.tt2_index_bits > 0,
    };
    let mut engine = match chip {
        Some(chip) => {
            chip.searcher
                .set_config(config)
                .map_err(|why| Failure::error(2, why))?;
            Engine::Chip(chip)
        }
        None => {
            let mut solver = model(config, args.table_entries())?;
            solver.set_interpositions(args.rule());
            Engine::Model(Box::new(solver))
        }
    };
    let limits = limits(args, None);
    // One position (--sfen, or one problem file): the whole report.
    let problem_file = inputs.len() == 1 && inputs[0].name.is_some() && inputs[0].error.is_none();
    if (args.sfen.is_some() || problem_file) && !args.json {
        let name = inputs[0].name.as_deref();
        return one(&inputs[0].sfen, name, config, limits, asked, &mut engine);
    }
    let failed = many(inputs, limits, asked, args.json, &mut engine)?;
    if failed == 0 {
        return Ok(());
    }
    let message = match &args.positions {
        Some(file) => {
            let name = if file == Path::new("-") {
                "standard input".to_string()
            } else {
                file.display().to_string()
            };
            let (one, many) = if inputs.iter().any(|i| i.name.is_some() || i.error.is_some()) {
                ("problem", "problems")
            } else {
                ("line", "lines")
            };
            format!(
                "{failed} of {} in {name} {} (see their errors)",
                count(inputs.len() as u64, one, many),
                if failed == 1 {
                    "is not a usable position"
                } else {
                    "are not usable positions"
                }
            )
        }
        None => unsolved(&inputs[0].sfen, "its error is in the JSON line"),
    };
    Err(Failure::error(1, message))
}

/// The model's solver of `config`, or an error naming `--tt-entries` when this machine
/// cannot hold its table.
pub fn model(config: Config, tt_entries: Option<usize>) -> Result<Solver> {
    Solver::try_new(config).map_err(|e| table_error(&e, config, tt_entries))
}

/// The error of a table this machine cannot hold (exit code 1): the option, the size, and
/// the largest table that fits.
fn table_error(e: &TableTooLarge, config: Config, tt_entries: Option<usize>) -> anyhow::Error {
    let asked = match tt_entries {
        Some(n) => format!("--tt-entries {n}"),
        None => "the table of swim.toml [search]".to_string(),
    };
    let fix = match e.fitting(config.tt_ways as u64) {
        Some(entries) => format!("give --tt-entries {entries} or fewer"),
        None => "give fewer --tt-entries".to_string(),
    };
    Failure::error(1, format!("{asked}: {e}; {fix}"))
}

/// The node limit and mode of a run: `--nodes` (0: none), else the problem's own, else
/// the default.
fn limits(args: &SolveArgs, own: Option<u64>) -> Limits {
    let nodes = match args.nodes.or(own).unwrap_or(DEFAULT_NODES) {
        0 => u64::MAX,
        n => n,
    };
    Limits {
        nodes,
        shortest: args.shortest_mode(),
        root: args.root.root(),
    }
}

/// The project's geometry with the table and frames asked for; an option out of range is
/// an error with exit code 2.
fn configure(base: Config, tt_entries: Option<usize>, max_plies: Option<usize>) -> Result<Config> {
    let mut config = base;
    if let Some(entries) = tt_entries {
        if entries < config.tt_ways {
            return Err(Failure::error(
                2,
                format!(
                    "--tt-entries {entries}: the table needs at least one set of {} ways; give \
                     {} or more",
                    config.tt_ways, config.tt_ways
                ),
            ));
        }
        config = config.with_tt_entries(entries);
    }
    if let Some(plies) = max_plies {
        config.max_plies = plies;
    }
    config.check().map_err(|e| {
        Failure::error(
            2,
            format!("--max-plies: {e:#}; give a number of frames from 2 to 1024"),
        )
    })?;
    Ok(config)
}

/// The message of a position `text` that gave no answer for `error`: the SFEN is blamed
/// only when it is not a usable position, not when the options ask what a usable one
/// cannot be (`--root defender` on a position not in check).
fn unsolved(text: &str, error: &str) -> String {
    if parse(text).is_ok() {
        format!("the position {text:?}: {error}")
    } else {
        format!("the SFEN {text:?} is not a usable position: {error}")
    }
}

/// A solved position: the outcome, its wall time, and on the chip its cycles.
pub struct Solved {
    pub pos: Position,
    pub outcome: Outcome,
    pub time: Duration,
    pub cycles: Option<Cycles>,
    /// The chip's walks of the mating line in this solve.
    pub walked: Option<Walked>,
    /// `--alternatives`: the composer's checks.
    pub composed: Option<composer::Composed>,
    /// A shortest mate by the composers' rule: its length counting every interposition.
    pub every: Option<every::Every>,
}

/// The position of `text` (a SFEN or a position as shogi tools write it, read as every
/// command reads positions: [`tsume::input::parse`]) solved on `searcher`, or what is wrong
/// with the input.
fn solve(searcher: &mut dyn Searcher, text: &str, limits: Limits) -> Result<Solved, String> {
    let pos = parse(text)?;
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
        composed: None,
        every: None,
    })
}

/// One position as a report on stdout; exit 1 when it is not usable.
fn one(
    text: &str,
    name: Option<&str>,
    config: Config,
    limits: Limits,
    asked: Asked,
    engine: &mut Engine,
) -> Result<()> {
    let solved = engine
        .solve(text, limits, asked)
        .map_err(|error| Failure::error(1, unsolved(text, &error)))?;
    let o = &solved.outcome;
    let c = &o.counters;
    let mut out = name.map(|n| format!("problem: {n}\n")).unwrap_or_default();
    out.push_str(&solved.pos.diagram());
    if !out.ends_with('\n') {
        out.push('\n');
    }
    let sfen = solved.pos.to_sfen();
    out.push_str(&format!("sfen:   {sfen}\n"));
    if let Some(given) = output::given_otherwise(text, &sfen) {
        out.push_str(&format!("input:  {given}\n"));
    }
    out.push_str(&format!(
        "root:   the side to move is the {}\n",
        output::root_word(o.root)
    ));
    out.push_str(&format!(
        "result: {}{}\n",
        output::describe(o, asked),
        every::result_words(&solved)
    ));
    if o.result == SearchResult::Mate {
        out.push_str(&format!("line:   {}\n", output::line(&solved, asked)));
        out.push_str(&format!("plies:  {}\n", o.pv.len()));
        out.push_str(&format!("rule:   {}\n", output::rule_text(o)));
    }
    out.push_str(&every::text(&solved, asked));
    if asked.alternatives {
        out.push_str(&composer::text(&solved, asked.ja));
    }
    let limit = if limits.nodes == u64::MAX {
        "no limit".to_string()
    } else {
        format!("limit {}", limits.nodes)
    };
    let counts = if c.counts == 0 {
        String::new()
    } else {
        format!(", counts {}", c.counts)
    };
    out.push_str(&format!(
        "nodes:  {} (expansions {}, probes {}, stores {}{counts}; {limit})\n",
        c.nodes, c.expansions, c.probes, c.stores
    ));
    out.push_str(&format!(
        "table:  {} entries ({} ways), {} frames{}\n",
        config.tt_entries(),
        config.tt_ways,
        config.max_plies,
        match config.tt2_index_bits {
            0 => String::new(),
            bits => format!("; second level of 2^{bits} slots"),
        }
    ));
    if config.tt2_index_bits > 0 {
        out.push_str(&format!("level2: {}\n", output::level_two_text(c)));
    }
    let clock_mhz = engine.clock_mhz();
    let engine = if clock_mhz.is_some() {
        "simulated"
    } else {
        "model"
    };
    out.push_str(&format!(
        "time:   {:.3} s {engine} ({})\n",
        solved.time.as_secs_f64(),
        output::rate(c.nodes, solved.time)
    ));
    if let (Some(cycles), Some(mhz)) = (&solved.cycles, clock_mhz) {
        out.push_str(&format!(
            "chip:   {}\n",
            output::cycles_text(cycles, c.nodes, mhz)
        ));
    }
    if let Some(w) = solved.walked.filter(|w| w.walks > 0) {
        out.push_str(&format!(
            "walk:   the line on chip: {} in {}, {} to the mate, {} cycles\n",
            count(w.moves, "move", "moves"),
            count(w.walks, "walk", "walks"),
            w.complete,
            w.cycles
        ));
    }
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(out.as_bytes())?;
    stdout.flush()?;
    Ok(())
}

/// Every input solved and printed in input order, one line each (JSON with `json`);
/// returns how many were not usable positions.
fn many(
    inputs: &[Input],
    limits: Limits,
    asked: Asked,
    json: bool,
    engine: &mut Engine,
) -> Result<usize> {
    let mut bar = LateBar::new(inputs.len() as u64);
    let mut failed = 0;
    for input in inputs {
        bar.start_item(&input.label);
        let result = match &input.error {
            Some(error) => Err(error.clone()),
            None => engine.solve(&input.sfen, limits, asked),
        };
        let name = input
            .name
            .as_deref()
            .or(input.error.as_ref().map(|_| input.label.as_str()));
        let line = match (&result, json) {
            (Ok(s), true) => {
                let mut answer = JsonAnswer::new(None, &input.sfen, s, asked);
                answer.name = name;
                serde_json::to_string(&answer)?
            }
            (Err(error), true) => serde_json::to_string(&JsonError {
                id: None,
                name,
                sfen: &input.sfen,
                error,
            })?,
            (Ok(s), false) => {
                let o = &s.outcome;
                let line = if o.result == SearchResult::Mate {
                    format!(": {}", output::line(s, asked))
                } else {
                    String::new()
                };
                let cycles = s
                    .cycles
                    .map(|c| format!(", {} cycles", c.total))
                    .unwrap_or_default();
                format!(
                    "{}: {}{line} ({}{} nodes, {} expansions, {} probes{cycles}, {:.3} s)",
                    input.label,
                    output::describe(o, asked),
                    every::aside(s),
                    o.counters.nodes,
                    o.counters.expansions,
                    o.counters.probes,
                    s.time.as_secs_f64()
                )
            }
            (Err(error), false) if input.sfen.is_empty() => {
                format!("{}: error: {error}", input.label)
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
