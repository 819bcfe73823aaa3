//! `cargo xtask run`: the board's chip through its host link, with the driver the tests use
//! (`tsume::chip::link::LinkDriver`): on a board over a serial port (`--port`), or on the
//! simulated board top (`--sim`, `solver_link_top` in Verilator behind a bit-level UART
//! model). Move lists, or with `--solve` solves on the board's search
//! (`tsume::chip::link::BoardSearcher`) answered as `cargo xtask solve` answers them.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Args;
use tsume::chip::link::{
    BoardSearcher, LinkDriver, LinkList, SerialTransport, SimConfig, SimUart, SolverLinkTop,
    Transport,
};
use tsume::input::Input;
use tsume::position::Position;
use tsume::reference::{Category, MoveSet, tsume_moves};

use crate::sim;
use crate::simulator;
use crate::solve::{self, Chip, RootArg, SolveArgs, SolveEngine};
use crate::util::{self, Failure};
use tsume::project::manifest::Manifest;

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Serial port of the board's USB-serial adapter, e.g. /dev/ttyUSB0 (or --sim).
    #[arg(long, value_name = "PORT")]
    pub port: Option<String>,
    /// Talk to the simulated board top (solver_link_top in Verilator) instead of a serial
    /// port.
    #[arg(long, conflicts_with = "port")]
    pub sim: bool,
    /// Board of swim.toml [fpga.boards] whose baud rate and clock to use (default: [fpga] board).
    #[arg(long, value_name = "NAME")]
    pub board: Option<String>,
    /// Baud rate (default: the board's, from swim.toml).
    #[arg(long)]
    pub baud: Option<u32>,
    /// One position in SFEN: quote it, or give its words after --sfen. Positions as shogi
    /// tools write them are read too (`startpos moves 7g7f`): the position after the moves.
    #[arg(long, num_args = 1.., value_name = "SFEN", conflicts_with = "positions")]
    pub sfen: Option<Vec<String>>,
    /// A text file of positions, one per line as --sfen takes them (blank lines and `#`
    /// comments skipped); `-` reads standard input.
    #[arg(long, value_name = "FILE")]
    pub positions: Option<PathBuf>,
    /// Compare every list with the software reference; exit 1 if any differs.
    #[arg(long)]
    pub check: bool,
    /// Print the chip's STATUS frame (alone, or after the positions).
    #[arg(long)]
    pub status: bool,
    /// One JSON object per position and line, as `sim --json` prints them: {"sfen", "mode",
    /// "moves": [{"usi", "category"}], "cycles"}, or {"sfen", "error"} for a position that
    /// is not usable; `sfen` is the position as given.
    #[arg(long)]
    pub json: bool,
    /// Solve the positions on the board's search rather than list their moves, as `cargo
    /// xtask solve` does on the simulated chip (the same results, lines and counters); with
    /// no --sfen or --positions, the problem suite. --json prints solve's JSON.
    #[arg(long, conflicts_with_all = ["check", "status"])]
    pub solve: bool,
    /// With --solve: the problem suite to run (default problems/).
    #[arg(long, value_name = "DIR", requires = "solve", conflicts_with_all = ["sfen", "positions"])]
    pub suite: Option<PathBuf>,
    /// With --solve: moves made at most per position (0: no limit), as `solve --nodes`.
    #[arg(long, value_name = "N", requires = "solve", allow_negative_numbers = true, value_parser = util::whole::<u64>)]
    pub nodes: Option<u64>,
    /// With --solve: which side the side to move plays, as `solve --root`.
    #[arg(long, value_enum, default_value_t = RootArg::Attacker, requires = "solve")]
    pub root: RootArg,
    /// With --solve: a shortest mate, as `solve --shortest` (the default).
    #[arg(long, requires = "solve", overrides_with = "first_mate")]
    pub shortest: bool,
    /// With --solve: the first mate the proof gives, as `solve --first-mate`.
    #[arg(
        long,
        requires = "solve",
        overrides_with = "shortest",
        alias = "no-shortest"
    )]
    pub first_mate: bool,
    /// With --solve: a table of fewer entries than the board's, as `solve --tt-entries`.
    #[arg(long, value_name = "N", requires = "solve", allow_negative_numbers = true, value_parser = util::whole::<usize>)]
    pub tt_entries: Option<usize>,
    /// With --solve: fewer child frames than the board's, as `solve --max-plies`.
    #[arg(long, value_name = "N", requires = "solve", allow_negative_numbers = true, value_parser = util::whole::<usize>)]
    pub max_plies: Option<usize>,
    /// With --solve: how lines are written, as `solve --notation` (`ja`: the report's line
    /// and the JSON's "line_ja" in Japanese notation, `▲３三角成`).
    #[arg(long, value_enum, default_value_t = crate::solve::Notation::Usi, requires = "solve")]
    pub notation: crate::solve::Notation,
}

impl RunArgs {
    /// The `solve` options of a `--solve` run.
    fn solve_args(&self) -> SolveArgs {
        SolveArgs {
            engine: SolveEngine::Chip,
            vcd: None,
            sfen: self.sfen.clone(),
            positions: self.positions.clone(),
            json: self.json,
            suite: self.suite.clone(),
            nodes: self.nodes,
            root: self.root,
            shortest: self.shortest,
            first_mate: self.first_mate,
            // The board counts every interposition, as the chip does.
            every_interposition: true,
            alternatives: false,
            tt_entries: self.tt_entries,
            hash: None,
            max_plies: self.max_plies,
            table: None,
            notation: self.notation,
            board: None,
            tt2_bits: None,
        }
    }
}

fn read_positions(args: &RunArgs) -> Result<Vec<Input>> {
    let given = tsume::input::given(args.sfen.as_deref(), args.positions.as_deref())?;
    Ok(given.unwrap_or_default())
}

pub fn run(args: &RunArgs) -> Result<()> {
    if args.port.is_none() && !args.sim {
        return Err(Failure::error(
            2,
            "run: no board: give --port PORT (the board's USB-serial port, e.g. /dev/ttyUSB0), \
             or --sim to talk to the simulated board top (no board needed)",
        ));
    }
    let root = util::project_root();
    let manifest = Manifest::load(&root)?;
    let (board_name, board) = manifest.board(args.board.as_deref())?;
    let positions = read_positions(args)?;
    if positions.is_empty() && !args.status && !args.solve {
        bail!("nothing to do: give --sfen, --positions, --solve or --status");
    }
    // The board's table (swim.toml [fpga.boards.NAME] tt_index_bits, or [search]'s): the
    // simulated board top takes fewer sets than it is built with, so it searches as the board.
    let base = manifest.board_search(Some(board_name))?;
    if args.solve && base != manifest.search()? {
        let mode = tsume::solver::modes::mode_of(&base)
            .map_or(String::new(), |m| format!(" --table {}", m.name));
        eprintln!(
            "run: {board_name}'s table: 2^{} sets, {} entries (swim.toml [fpga.boards.\
             {board_name}] tt_index_bits), no count estimates; `cargo xtask solve --tt-entries \
             {}{mode}` searches the same",
            base.tt_index_bits,
            base.tt_entries(),
            base.tt_entries()
        );
    }
    let geometry = if args.solve {
        solve::geometry(&args.solve_args(), base, !positions.is_empty(), true)?
    } else {
        None
    };
    let clock_hz = board.clock_mhz * 1e6;
    if args.sim {
        let runtime = simulator::runtime()?;
        eprintln!("run: building (or reusing) the Verilator model of solver_link_top");
        // The simulation stands for the board's generator clock.
        let config = SimConfig::at_mhz(board.clock_mhz);
        let sim = {
            // marlin prints Verilator's command line on stdout: keep stdout for the lists.
            let _quiet = simulator::StdoutToStderr::new();
            SimUart::<SolverLinkTop>::new(&runtime, config, None)?
        };
        eprintln!(
            "run: simulated solver_link_top ({board_name}: clock {} MHz), {} clocks per bit, \
             frame timeout {} bit times",
            board.clock_mhz, config.clocks_per_bit, config.timeout_bits
        );
        if args.solve {
            return solve_on_board(
                LinkDriver::new(sim),
                args,
                positions,
                clock_hz,
                base,
                geometry,
            );
        }
        drive(LinkDriver::new(sim), args, &positions, board.clock_mhz)
    } else {
        let port = args
            .port
            .as_deref()
            .expect("run checks for --port or --sim first");
        let baud = args.baud.unwrap_or(board.baud);
        let serial = SerialTransport::open(port, baud)?;
        eprintln!(
            "run: {port} at {baud} baud ({board_name}: clock {} MHz)",
            board.clock_mhz
        );
        if args.solve {
            return solve_on_board(
                LinkDriver::new(serial),
                args,
                positions,
                clock_hz,
                base,
                geometry,
            );
        }
        drive(LinkDriver::new(serial), args, &positions, board.clock_mhz)
    }
}

/// `--solve`: the positions (the suite without them) solved on the board's search.
fn solve_on_board<T: Transport>(
    link: LinkDriver<T>,
    args: &RunArgs,
    positions: Vec<Input>,
    clock_hz: f64,
    base: tsume::solver::Config,
    config: Option<tsume::solver::Config>,
) -> Result<()> {
    let board = BoardSearcher::new(link, clock_hz, base).map_err(|why| Failure::error(1, why))?;
    let mut chip = Chip {
        searcher: Box::new(board),
        clock_mhz: clock_hz / 1e6,
    };
    let inputs = (!positions.is_empty()).then_some(positions);
    solve::run_on(&args.solve_args(), inputs, base, config, Some(&mut chip))
}

/// Every position through the driver; the lists printed, checked against the reference when
/// asked.
fn drive<T: Transport>(
    mut link: LinkDriver<T>,
    args: &RunArgs,
    positions: &[Input],
    clock_mhz: f64,
) -> Result<()> {
    let mut differ = 0usize;
    let mut unusable = 0usize;
    let start = Instant::now();
    for input in positions {
        let text = &input.sfen;
        let pos = match input.position() {
            Ok(pos) => pos,
            Err(error) => {
                unusable += 1;
                if args.json {
                    println!("{}", sim::json_error(input, &error)?);
                } else {
                    let what = if input.error.is_some() {
                        &input.label
                    } else {
                        text
                    };
                    eprintln!("{what}: not a usable position: {error}");
                }
                continue;
            }
        };
        let list: LinkList = link
            .generate(&pos)
            .with_context(|| format!("position `{text}` over the link"))?;
        let mismatch = args.check.then(|| check(&pos, &list)).flatten();
        if mismatch.is_some() {
            differ += 1;
        }
        if args.json {
            let set = MoveSet {
                mode: list.mode,
                moves: list.moves.clone(),
            };
            println!(
                "{}",
                sim::json_answer(input, &set, Some(u64::from(list.cycles)))?
            );
            if let Some(diff) = &mismatch {
                eprintln!("run: `{text}` DIFFERS from the reference: {diff}");
            }
        } else {
            print_list(&pos, &list, clock_mhz);
            if let Some(diff) = &mismatch {
                println!("  DIFFERS from the reference: {diff}");
            } else if args.check {
                println!("  matches the reference");
            }
        }
    }
    if !positions.is_empty() {
        eprintln!(
            "run: {} in {}",
            util::count(positions.len() as u64, "position", "positions"),
            util::secs(start.elapsed())
        );
    }
    if args.status {
        let s = link.status().context("STATUS over the link")?;
        if args.json {
            println!(
                "{}",
                serde_json::json!({
                    "status": {
                        "version": s.version, "loaded": s.loaded, "streaming": s.streaming,
                        "last_in_check": s.last_in_check, "frames_ok": s.frames_ok,
                        "errors": s.errors, "clocks_per_bit": s.clocks_per_bit,
                    }
                })
            );
        } else {
            println!(
                "status: protocol {}, position loaded {}, streaming {}, last list {}, {} good \
                 requests, {} errors, {} clocks per bit",
                s.version,
                s.loaded,
                s.streaming,
                if s.last_in_check {
                    "evasions"
                } else {
                    "checks"
                },
                s.frames_ok,
                s.errors,
                s.clocks_per_bit
            );
        }
    }
    let (dropped, bad) = link.decoder_losses();
    if dropped > 0 || bad > 0 {
        eprintln!("run: the host dropped {dropped} bytes and {bad} bad frames from the chip");
    }
    let mut failures = Vec::new();
    if differ > 0 {
        failures.push(format!(
            "{differ} of {} lists differ from the reference",
            positions.len() - unusable
        ));
    }
    if unusable > 0 {
        failures.push(format!(
            "{unusable} of {} {} not usable (see above)",
            util::count(positions.len() as u64, "position", "positions"),
            if unusable == 1 { "is" } else { "are" }
        ));
    }
    if !failures.is_empty() {
        return Err(Failure::error(1, failures.join("; ")));
    }
    Ok(())
}

/// The difference between the chip's list and the reference, if any: other moves or
/// categories, or the same ones in another order (both follow the stream order).
fn check(pos: &Position, list: &LinkList) -> Option<String> {
    let want = tsume_moves(pos);
    if want.mode != list.mode {
        return Some(format!("mode {} vs {}", list.mode, want.mode));
    }
    let key = |m: &tsume::reference::TsumeMove| (m.mv.to_usi(), m.category);
    let w: std::collections::BTreeSet<_> = want.moves.iter().map(key).collect();
    let g: std::collections::BTreeSet<_> = list.moves.iter().map(key).collect();
    if w != g || g.len() != list.moves.len() {
        return Some(format!(
            "missing {:?}, extra {:?}",
            w.difference(&g).collect::<Vec<_>>(),
            g.difference(&w).collect::<Vec<_>>()
        ));
    }
    (want.moves != list.moves).then(|| {
        "the same moves, in another order than the stream order (tsume::stream_order)".to_string()
    })
}

fn print_list(pos: &Position, list: &LinkList, clock_mhz: f64) {
    println!("{}", pos.to_sfen());
    println!(
        "  {}: {} in {} cycles ({:.2} µs at {clock_mhz} MHz)",
        list.mode,
        util::count(list.moves.len() as u64, "move", "moves"),
        list.cycles,
        f64::from(list.cycles) / clock_mhz
    );
    let mut by_category: BTreeMap<Category, Vec<String>> = BTreeMap::new();
    for m in &list.moves {
        by_category
            .entry(m.category)
            .or_default()
            .push(m.mv.to_usi());
    }
    for (category, moves) in by_category {
        println!("  {:<16} {}", category.as_str(), moves.join(" "));
    }
}
