//! The USI engine: the df-pn solver answering a shogi GUI's mate search (docs/usi.md).
//!
//! [`Session`] reads one command line at a time ([`Session::handle`]) and writes its
//! answers to a shared writer; `go mate` runs the solve on a worker thread, so that `stop`,
//! `quit` and `isready` are read while it searches. The `tsume-usi` binary is a loop over
//! standard input around it.
//!
//! - [`options`]: the options of `setoption` and the arguments of `go`.
//! - [`chip_thread`]: the simulated chip that solves with `setoption name Engine value chip`.
//!
//! ```
//! use tsume::usi::{Flow, Session, built_in_config};
//! # use std::sync::{Arc, Mutex};
//! # #[derive(Clone, Default)]
//! # struct Buf(Arc<Mutex<Vec<u8>>>);
//! # impl std::io::Write for Buf {
//! #     fn write(&mut self, b: &[u8]) -> std::io::Result<usize> { self.0.lock().unwrap().write(b) }
//! #     fn flush(&mut self) -> std::io::Result<()> { Ok(()) }
//! # }
//! let out = Buf::default();
//! let mut session = Session::new(built_in_config()?, out.clone());
//! session.handle("position sfen 4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1")?;
//! session.handle("go mate 10000")?;
//! session.wait();
//! assert_eq!(session.handle("quit")?, Flow::Quit);
//! let text = String::from_utf8(out.0.lock().unwrap().clone())?;
//! assert!(text.ends_with("checkmate G*5b\n"), "{text}");
//! # anyhow::Ok(())
//! ```

pub mod chip_thread;
pub mod options;

use std::io::Write;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use anyhow::Context;

use crate::futile::Rule;
use crate::position::Position;
use crate::solver::{Config, Limits, Outcome, Reason, Root, SearchResult, Solver};
use chip_thread::{ChipFiles, ChipHandle, ChipTarget, ChipThread};
use options::{Engine, Go, Options};

/// The engine's name, answered to `usi`.
pub const NAME: &str = concat!("tsume-usi ", env!("CARGO_PKG_VERSION"));
/// The engine's author, answered to `usi`.
pub const AUTHOR: &str = "the tsume project";

/// The commands a session reads, named in the error of an unknown one.
const COMMANDS: &str =
    "usi, isready, setoption, usinewgame, position, go, stop, ponderhit, gameover, quit";

/// The geometry of `[search]` in the swim.toml the engine was built from.
pub fn built_in_config() -> anyhow::Result<Config> {
    crate::project::Manifest::built_in()
        .and_then(|m| m.search())
        .context("the [search] table of the swim.toml the engine was built with")
}

/// The geometry of the chip on the board swim.toml builds by default: `[search]`'s, with
/// the board's table where it has fewer sets (`[fpga.boards.NAME] tt_index_bits`).
pub fn built_in_board_config() -> anyhow::Result<Config> {
    crate::project::Manifest::built_in()
        .and_then(|m| m.board_search(None))
        .context("the default board's table in the swim.toml the engine was built with")
}

/// The clock of the board swim.toml builds by default (`[fpga] board`), in MHz: the
/// chip's time of a solve is its cycles at this clock.
pub fn built_in_clock_mhz() -> f64 {
    // The manifest is compiled in; `the_clock_is_the_boards` checks that it has the clock.
    crate::project::Manifest::built_in()
        .and_then(|m| m.clock_mhz(None))
        .expect("the built-in swim.toml names its default board's clock")
}

/// Whether the session goes on after a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Read the next command.
    Continue,
    /// `quit`: the search (if any) is stopped; exit.
    Quit,
}

/// A search on the worker thread.
struct Search {
    stop: Arc<AtomicBool>,
    /// Set just before the answer is written: a GUI that read it may send the next `go`
    /// while the worker is still returning.
    answered: Arc<AtomicBool>,
    /// Gives the model's solver back (none if the solve panicked or ran on the chip).
    worker: JoinHandle<Option<Solver>>,
}

/// One engine session: options, position and solver, and the search running on the worker.
pub struct Session<W: Write + Send + 'static> {
    out: Arc<Mutex<W>>,
    base: Config,
    options: Options,
    /// The last `USI_Hash` whose table was allocated (the one a refused size goes back to).
    ready_hash_mb: usize,
    /// The position of the last `position` command, or why there is none.
    position: Result<Position, String>,
    /// The solver while no search runs (built at `isready` or the first `go`).
    solver: Option<Solver>,
    search: Option<Search>,
    /// The chip's thread and where it runs, started when `Engine` is set to `chip` or to
    /// `board` (with `BoardPort`).
    chip: Option<(ChipTarget, ChipThread)>,
    /// Where the chip's files are.
    chip_files: ChipFiles,
    /// An option was set during a search: the chip's thread it asks for is started when
    /// the engine is idle again (at `isready` or `go`), not under the running search.
    chip_pending: bool,
}

impl<W: Write + Send + 'static> Session<W> {
    /// A session with the geometry `base` (the table sized by `USI_Hash`) answering to `out`.
    pub fn new(base: Config, out: W) -> Session<W> {
        Session {
            out: Arc::new(Mutex::new(out)),
            base,
            options: Options::for_this_machine(),
            ready_hash_mb: options::DEFAULT_HASH_MB,
            position: Err("no position yet: send `position sfen <SFEN>` or `position \
                           startpos moves ...` before `go mate`"
                .to_string()),
            solver: None,
            search: None,
            chip: None,
            chip_files: ChipFiles::of_checkout(),
            chip_pending: false,
        }
    }

    /// Handles one command line. Bad input is answered with an `info string` error and
    /// the session goes on; the error is a failure to write the answer.
    pub fn handle(&mut self, line: &str) -> anyhow::Result<Flow> {
        self.reap();
        let line = line.trim();
        let (command, args) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
        let args = args.trim();
        match command {
            "" | "usinewgame" | "ponderhit" | "gameover" => {}
            "usi" => {
                let mut lines = vec![format!("id name {NAME}"), format!("id author {AUTHOR}")];
                lines.extend(self.options.announce(self.base));
                lines.push("usiok".to_string());
                say(&self.out, &lines)?;
            }
            "isready" => {
                if self.search.is_none() {
                    self.start_pending_chip()?;
                    self.solver = self.ready_solver()?;
                }
                say(&self.out, &["readyok".to_string()])?;
            }
            "setoption" => {
                let before = (self.options.engine, self.options.board_port.clone());
                if let Err(e) = self.options.set(args) {
                    self.error(&e)?;
                } else if self.search.is_none() {
                    self.start_chip()?;
                } else {
                    // The chip's thread serves the running search: it is replaced (or
                    // started) once the search ends, by the next `isready` or `go`.
                    self.chip_pending = true;
                    if before != (self.options.engine, self.options.board_port.clone()) {
                        say(
                            &self.out,
                            &[format!(
                                "info string setoption {args}: applies after the running search \
                             (from the next go mate)"
                            )],
                        )?;
                    }
                }
            }
            "position" => match Position::from_usi(args) {
                Ok(pos) => self.position = Ok(pos),
                Err(e) => {
                    self.position = Err(format!(
                        "the last `position` was refused ({e}); send a valid `position` \
                         before `go mate`"
                    ));
                    self.error(&format!("`position {args}`: {e}"))?;
                }
            },
            "go" => self.go(args)?,
            "stop" => self.finish(),
            "quit" => {
                self.finish();
                return Ok(Flow::Quit);
            }
            _ => self.error(&format!(
                "unknown command `{command}`; the engine reads {COMMANDS}"
            ))?,
        }
        Ok(Flow::Continue)
    }

    /// Stops the running search, if any, and waits for its answer.
    pub fn finish(&mut self) {
        if let Some(search) = &self.search {
            search.stop.store(true, Ordering::Relaxed);
        }
        self.join();
    }

    /// Waits for the running search (if any) to answer, without stopping it.
    pub fn wait(&mut self) {
        self.join();
    }

    /// `go`: a mate search on the worker thread. Every `go mate` is answered with one
    /// `checkmate` line: one that cannot search is refused with an `info string error` and
    /// `checkmate timeout` (nothing was searched, so nothing is claimed about a mate).
    fn go(&mut self, args: &str) -> anyhow::Result<()> {
        let time = match Go::parse(args) {
            Ok(Go::Mate(time)) => time,
            Ok(Go::Game) => {
                self.error(&format!(
                    "`go {args}`: this engine solves mate problems and plays no games; send \
                     `go mate <milliseconds>` or `go mate infinite`"
                ))?;
                return say(&self.out, &["bestmove resign".to_string()]);
            }
            Err(e) => return self.refuse_go(&e),
        };
        if self.search.is_some() {
            return self.refuse_go(&format!(
                "`go {args}`: a search is running; send `stop` and wait for its `checkmate` first \
                 (this `go` is answered now, the running search when it ends)"
            ));
        }
        let pos = match &self.position {
            Ok(pos) => pos.clone(),
            Err(e) => return self.refuse_go(&format!("`go {args}`: {e}")),
        };
        self.start_pending_chip()?;
        let stop = Arc::new(AtomicBool::new(false));
        if self.options.engine == Engine::Board && self.options.board_port.is_none() {
            return self.refuse_go(
                "Engine board: no BoardPort; send `setoption name BoardPort value <serial port>`",
            );
        }
        let mut engine = match (self.options.engine, &self.chip) {
            (Engine::Chip | Engine::Board, Some((_, chip))) => {
                // The chip's table is built in; it takes MaxPlies up to its frames.
                let base = self.chip_base();
                let mut config = base;
                let mut notes = Vec::new();
                if self.options.hash_mb != options::DEFAULT_HASH_MB {
                    notes.push(format!(
                        "info string the chip's table ({} entries) is that of swim.toml \
                         [search] or of the board, built in: USI_Hash applies to the model only",
                        base.tt_entries()
                    ));
                }
                if self.options.interpositions == Rule::Composers {
                    notes.push(
                        "info string the chip counts every interposition (no futility test on \
                         chip): Interpositions composers applies to the model only"
                            .to_string(),
                    );
                }
                match self.options.max_plies {
                    Some(plies) if plies <= base.max_plies => config.max_plies = plies,
                    Some(plies) => notes.push(format!(
                        "info string MaxPlies {plies}: the chip's frames hold {} plies \
                         (swim.toml [search]); it searches with those",
                        base.max_plies
                    )),
                    None => {}
                }
                say(&self.out, &notes)?;
                Worker::Chip(chip.handle(), built_in_clock_mhz(), config)
            }
            _ => match self.ready_solver()? {
                Some(solver) => Worker::Model(solver),
                None => {
                    return self.refuse_go("no table could be allocated; send a smaller USI_Hash");
                }
            },
        };
        if let Worker::Model(solver) = &mut engine {
            solver.set_stop(Some(stop.clone()));
            solver.set_interpositions(self.options.interpositions);
        }
        let limits = Limits {
            nodes: self.options.nodes(),
            shortest: self.options.shortest,
            // `go mate` asks whether the side to move mates.
            root: Root::Attacker,
        };
        let out = self.out.clone();
        let flag = stop.clone();
        let flag_of_chip = stop.clone();
        let answered = Arc::new(AtomicBool::new(false));
        let said = answered.clone();
        let worker = thread::spawn(move || {
            let start = Instant::now();
            let (done, finished) = mpsc::channel::<()>();
            let timer = time.map(|limit| {
                thread::spawn(move || {
                    if finished.recv_timeout(limit) == Err(RecvTimeoutError::Timeout) {
                        flag.store(true, Ordering::Relaxed);
                    }
                })
            });
            let (solved, solver) = match engine {
                Worker::Model(mut solver) => {
                    match catch_unwind(AssertUnwindSafe(|| solver.solve(&pos, limits))) {
                        Ok(outcome) => (Ok((outcome, None)), Some(solver)),
                        Err(_) => (
                            Err(format!("the solver failed on {pos}; please report it")),
                            None,
                        ),
                    }
                }
                Worker::Chip(chip, mhz, config) => (
                    chip.solve(&pos, config, limits, &flag_of_chip)
                        .map(|(outcome, cycles)| (outcome, Some((cycles, mhz)))),
                    None,
                ),
            };
            drop(done);
            if let Some(timer) = timer {
                let _ = timer.join();
            }
            let lines = match &solved {
                Ok((outcome, cycles)) => {
                    let mut lines = answer(outcome, start.elapsed());
                    if let Some((cycles, mhz)) = cycles {
                        lines.insert(1, chip_time(*cycles, outcome.counters.nodes, *mhz));
                    }
                    lines
                }
                Err(e) => vec![
                    format!("info string error: {e}"),
                    "checkmate timeout".to_string(),
                ],
            };
            said.store(true, Ordering::Release);
            // A GUI that closed the pipe reads no answer; the main thread sees its end.
            let _ = say(&out, &lines);
            solver
        });
        self.search = Some(Search {
            stop,
            answered,
            worker,
        });
        Ok(())
    }

    /// The idle solver, built anew if the options changed its geometry; or, when this
    /// machine cannot hold the table of `USI_Hash`, why (`USI_Hash` then goes back to the
    /// last size that was allocated, or to the default).
    fn take_solver(&mut self) -> Result<Solver, String> {
        let config = self.options.config(self.base);
        let old = match self.solver.take() {
            Some(solver) if *solver.config() == config => return Ok(solver),
            old => old,
        };
        // The old table is freed first: both may not fit.
        drop(old);
        match Solver::try_new(config) {
            Ok(solver) => {
                self.ready_hash_mb = self.options.hash_mb;
                Ok(solver)
            }
            Err(e) => {
                let asked = self.options.hash_mb;
                self.options.hash_mb = if asked != self.ready_hash_mb {
                    self.ready_hash_mb
                } else {
                    options::DEFAULT_HASH_MB
                };
                Err(format!(
                    "USI_Hash {asked}: {e}; the table is {} MiB now; send a smaller USI_Hash",
                    self.options.hash_mb
                ))
            }
        }
    }

    /// The idle solver ([`Session::take_solver`]); a table this machine cannot hold is
    /// answered with an `info string` error and the table of the size `USI_Hash` went back
    /// to is allocated instead (`None` if that fails too, after a second error).
    fn ready_solver(&mut self) -> anyhow::Result<Option<Solver>> {
        for _ in 0..2 {
            match self.take_solver() {
                Ok(solver) => return Ok(Some(solver)),
                Err(e) => self.error(&e)?,
            }
        }
        Ok(None)
    }

    /// Takes the solver back from a search that has answered.
    fn reap(&mut self) {
        if self
            .search
            .as_ref()
            .is_some_and(|s| s.answered.load(Ordering::Acquire))
        {
            self.join();
        }
    }

    /// Waits for the search (if any) and takes the model's solver back (a chip's search
    /// leaves it where it was; a panicked solve took it, and a new one is built).
    fn join(&mut self) {
        if let Some(search) = self.search.take()
            && let Ok(Some(solver)) = search.worker.join()
        {
            self.solver = Some(solver);
        }
    }

    /// An `info string` error.
    /// The geometry the chip searches with: `[search]`'s for the simulated chip, the
    /// board's table (fewer sets, where it has them) for the board.
    fn chip_base(&self) -> Config {
        if self.options.engine == Engine::Board {
            // The manifest is compiled in; `the_boards_table_is_the_manifests` checks it.
            built_in_board_config().expect("the built-in swim.toml's default board has a table")
        } else {
            self.base
        }
    }

    /// The chip's thread of an `Engine` or `BoardPort` set during the last search
    /// ([`Session::start_chip`]), once no search runs.
    fn start_pending_chip(&mut self) -> anyhow::Result<()> {
        if self.search.is_some() || !std::mem::take(&mut self.chip_pending) {
            return Ok(());
        }
        self.start_chip()
    }

    /// Starts the chip's thread that `Engine` (and `BoardPort`) ask for, unless it runs and
    /// has not failed (a board unplugged, a port that could not be opened: setting the
    /// option again tries again): the chip is built (or loaded from marlin's cache), or the
    /// board connected, in the background; the first `go mate` waits for it.
    fn start_chip(&mut self) -> anyhow::Result<()> {
        let target = match self.options.engine {
            Engine::Model => return Ok(()),
            Engine::Chip => match self.chip_files.check() {
                Ok(()) => ChipTarget::Sim(self.chip_files.clone()),
                Err(e) => {
                    self.options.engine = Engine::Model;
                    return self.error(&format!(
                        "Engine chip: {e}; the engine searches with the model"
                    ));
                }
            },
            Engine::Board => match &self.options.board_port {
                Some(port) => {
                    let board = crate::project::Manifest::built_in()
                        .and_then(|m| m.board(None).map(|(_, b)| b.baud))
                        .expect("the built-in swim.toml names its default board");
                    ChipTarget::Board {
                        port: port.clone(),
                        baud: board,
                        clock_mhz: built_in_clock_mhz(),
                    }
                }
                // `go mate` asks for the port.
                None => return Ok(()),
            },
        };
        if self
            .chip
            .as_ref()
            .is_some_and(|(running, thread)| *running == target && !thread.failed())
        {
            return Ok(());
        }
        let base = self.chip_base();
        self.chip = Some((target.clone(), ChipThread::start(target, base)));
        Ok(())
    }

    fn error(&self, message: &str) -> anyhow::Result<()> {
        say(&self.out, &[format!("info string error: {message}")])
    }

    /// A `go mate` that cannot search: the `info string` error, and its `checkmate`
    /// answer, `timeout` (no answer), so that a GUI waiting for one does not wait forever.
    fn refuse_go(&self, message: &str) -> anyhow::Result<()> {
        say(
            &self.out,
            &[
                format!("info string error: {message}"),
                "checkmate timeout".to_string(),
            ],
        )
    }
}

/// What a worker solves with.
enum Worker {
    /// The model's solver.
    Model(Solver),
    /// The chip, its clock in MHz and the geometry it searches with.
    Chip(ChipHandle, f64, Config),
}

/// The `info string` of a chip's solve: its cycles and their time at the board's clock.
pub fn chip_time(cycles: u64, nodes: u64, clock_mhz: f64) -> String {
    let ms = cycles as f64 / (clock_mhz * 1e3);
    let per_node = if nodes > 0 {
        format!(" ({:.1} a node)", cycles as f64 / nodes as f64)
    } else {
        String::new()
    };
    format!("info string chip: {cycles} cycles{per_node}, {ms:.3} ms at {clock_mhz} MHz")
}

/// The answer to `go mate`: the counters, then `checkmate` with the line, `nomate`, or
/// `timeout` (the time or node limit, a stop, or a capacity reached; an `info string`
/// says which).
pub fn answer(outcome: &Outcome, elapsed: Duration) -> Vec<String> {
    let c = &outcome.counters;
    let ms = elapsed.as_millis();
    let nps = (c.nodes as f64 / elapsed.as_secs_f64().max(1e-3)) as u64;
    let mut lines = vec![format!("info time {ms} nodes {} nps {nps}", c.nodes)];
    match &outcome.result {
        SearchResult::Mate => {
            let line: Vec<String> = outcome.pv.iter().map(|m| m.to_usi()).collect();
            let shortest = if outcome.shortest {
                ", the shortest"
            } else {
                ""
            };
            let plies = match outcome.pv.len() {
                1 => "1 ply".to_string(),
                n => format!("{n} plies"),
            };
            let rule = outcome.rule.length_words();
            lines.push(format!("info string mate in {plies}{rule}{shortest}"));
            for gap in &outcome.left_out {
                lines.push(format!(
                    "info string futile interpositions left out {}",
                    gap.text()
                ));
            }
            lines.push(format!("checkmate {}", line.join(" ")));
        }
        SearchResult::NoMate => {
            lines.push(
                "info string no mate: no sequence of checks forces mate (a repetition counts \
                 as the attacker's loss)"
                    .to_string(),
            );
            lines.push("checkmate nomate".to_string());
        }
        SearchResult::Unknown(reason) => {
            let why = match reason {
                Reason::Stopped => "stopped (stop, or the time of go mate ran out)".to_string(),
                // The engine's own names for the capacities.
                Reason::PlyLimit { plies, max_plies } => format!(
                    "ply limit: no mate within {plies} plies, the most MaxPlies = {max_plies} \
                     holds; for a longer mate raise the option MaxPlies"
                ),
                Reason::ChildLimit {
                    children,
                    max_children,
                } => format!(
                    "child limit: a node has {children} moves, a frame holds {max_children} \
                     (max_children of swim.toml [search], built into the engine: raise it \
                     there and rebuild)"
                ),
                other => other.to_string(),
            };
            lines.push(format!("info string no answer: {why}"));
            lines.push("checkmate timeout".to_string());
        }
    }
    lines
}

/// Writes `lines` to `out` and flushes (one GUI line each, never split).
fn say<W: Write>(out: &Mutex<W>, lines: &[String]) -> anyhow::Result<()> {
    let mut out = out.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    for line in lines {
        writeln!(out, "{}", line.replace(['\r', '\n'], " "))
            .context("cannot write an answer to the GUI")?;
    }
    out.flush().context("cannot write an answer to the GUI")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::Counters;

    fn outcome(result: SearchResult, pv: &[&str]) -> Outcome {
        Outcome {
            result,
            pv: pv
                .iter()
                .map(|m| rsshogi::types::Move::from_usi(m).unwrap())
                .collect(),
            shortest: true,
            root: crate::solver::Kind::Or,
            rule: crate::futile::Rule::EveryInterposition,
            left_out: Vec::new(),
            counters: Counters {
                nodes: 2000,
                ..Counters::default()
            },
        }
    }

    #[test]
    fn the_clock_is_the_boards() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let board = crate::project::Manifest::load(root)
            .unwrap()
            .clock_mhz(None)
            .unwrap();
        assert_eq!(built_in_clock_mhz(), board);
        assert_eq!(
            chip_time(7500, 100, 75.0),
            "info string chip: 7500 cycles (75.0 a node), 0.100 ms at 75 MHz"
        );
    }

    #[test]
    fn the_boards_table_is_the_manifests() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let manifest = crate::project::Manifest::load(root).unwrap();
        let board = built_in_board_config().unwrap();
        assert_eq!(board, manifest.board_search(None).unwrap());
        let search = manifest.search().unwrap();
        assert!(board.tt_index_bits <= search.tt_index_bits);
        assert_eq!(board.max_plies, search.max_plies);
    }

    #[test]
    fn answers_end_with_checkmate() {
        let second = Duration::from_secs(1);
        let mate = answer(&outcome(SearchResult::Mate, &["G*5b"]), second);
        assert_eq!(
            mate,
            [
                "info time 1000 nodes 2000 nps 2000",
                "info string mate in 1 ply, the shortest",
                "checkmate G*5b"
            ]
        );
        let nomate = answer(&outcome(SearchResult::NoMate, &[]), second);
        assert_eq!(nomate.last().unwrap(), "checkmate nomate");
        assert!(nomate[1].starts_with("info string no mate"), "{nomate:?}");
        let limit = Reason::NodeLimit { nodes: 2000 };
        let unknown = answer(&outcome(SearchResult::Unknown(limit), &[]), second);
        assert_eq!(unknown.last().unwrap(), "checkmate timeout");
        assert!(unknown[1].contains("node limit"), "{unknown:?}");
        let plies = Reason::PlyLimit {
            plies: 63,
            max_plies: 64,
        };
        let unknown = answer(&outcome(SearchResult::Unknown(plies), &[]), second);
        assert!(unknown[1].contains("MaxPlies = 64"), "{unknown:?}");
    }
}
