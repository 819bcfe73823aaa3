//! The engine's chip: the search of `solver_top` (`crate::chip::solver`) simulated by
//! Verilator (`setoption name Engine value chip`), or the board's chip over its serial port
//! (`Engine board`, `BoardPort`; `crate::chip::link::BoardSearcher`), on a thread of its own.
//!
//! marlin's runtime and the Verilator model it builds may not cross threads, so one thread
//! ([`ChipThread`]) owns the chip for the whole session and takes the solves from a channel:
//! the worker of `go mate` sends the position, the limits and the stop flag, and waits for
//! the outcome and the chip's cycles. The chip's geometry is the one of swim.toml
//! `[search]` it was built with; a job may ask for fewer plies (`MaxPlies`).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use crate::chip::link::{BoardSearcher, LinkDriver, SerialTransport};
use crate::chip::solver::{ChipSearcher, OnChip, SolverChip};
use crate::position::Position;
use crate::solver::{Config, Limits, Outcome, solve_on};

/// What the chip needs: the checkout it was built in, its Verilator and its Verilog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChipFiles {
    /// The project's checkout (the directory of `swim.toml`, where marlin looks for the
    /// Verilog and keeps its built models in `build/thirdparty/marlin`).
    pub root: PathBuf,
    /// The Verilator marlin calls: `TSUME_VERILATOR` if set, otherwise `.tools/bin/verilator`
    /// of the checkout (installed by `cargo xtask setup`).
    pub verilator: PathBuf,
    /// All of `hdl/` compiled (`build/spade.sv`, made by `cargo xtask hdl`).
    pub verilog: PathBuf,
}

impl ChipFiles {
    /// The files of the checkout the engine was compiled from.
    pub fn of_checkout() -> ChipFiles {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        ChipFiles {
            verilator: crate::project::verilator(&root),
            verilog: crate::project::verilog(&root),
            root,
        }
    }

    /// Whether the files are there; the error names the missing one and the command that
    /// makes it.
    pub fn check(&self) -> Result<(), String> {
        if !self.root.join("swim.toml").is_file() {
            return Err(format!(
                "the checkout the engine was built from is gone (no {}); the chip runs from \
                 a checkout of the project: build the engine there",
                self.root.join("swim.toml").display()
            ));
        }
        if !self.verilator.exists() {
            return Err(format!(
                "Verilator not found at {}: run `cargo xtask setup` in {} (or set \
                 TSUME_VERILATOR to a Verilator >= 5.025)",
                self.verilator.display(),
                self.root.display()
            ));
        }
        if !self.verilog.is_file() {
            return Err(format!(
                "the chip's Verilog is not built ({} is missing): run `cargo xtask hdl` in {}",
                self.verilog.display(),
                self.root.display()
            ));
        }
        Ok(())
    }
}

/// Where the engine's chip runs.
#[derive(Debug, Clone, PartialEq)]
pub enum ChipTarget {
    /// Simulated by Verilator from the checkout's files.
    Sim(ChipFiles),
    /// On an FPGA board at the serial port `port`, its UART at `baud`, clocked at
    /// `clock_mhz` (swim.toml's default board).
    Board {
        port: String,
        baud: u32,
        clock_mhz: f64,
    },
}

/// A solve on the chip: its outcome and the chip's cycles.
pub type ChipAnswer = Result<(Outcome, u64), String>;

/// One solve sent to the chip's thread.
struct Job {
    pos: Position,
    config: Config,
    limits: Limits,
    stop: Arc<AtomicBool>,
    reply: Sender<ChipAnswer>,
}

/// The thread that owns the simulated chip. Dropping it ends the thread and waits for it
/// (once the chip is built), so that the chip is taken down before the process exits:
/// a Verilator model still running at the exit would crash it.
pub struct ChipThread {
    jobs: Option<Sender<Job>>,
    /// Set once the chip is built (or its build failed) and it takes solves.
    ready: Arc<AtomicBool>,
    /// Set when the chip could not be built or the board not reached: the thread then
    /// answers every solve with that error, and a new thread must be started to try again.
    failed: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl ChipThread {
    /// Starts the thread, which builds the simulated chip (or loads marlin's cached build)
    /// of the geometry `config` from its files ([`check`](ChipFiles::check) them first), or
    /// opens the board's port and asks its geometry. That runs in the background: the
    /// first solve waits for it.
    pub fn start(target: ChipTarget, config: Config) -> ChipThread {
        let (jobs, inbox) = mpsc::channel();
        let ready = Arc::new(AtomicBool::new(false));
        let built = ready.clone();
        let failed = Arc::new(AtomicBool::new(false));
        let failing = failed.clone();
        let thread = thread::Builder::new()
            .name("tsume-chip".to_string())
            .spawn(move || run(&target, config, &inbox, &built, &failing))
            .expect("the chip's thread starts");
        ChipThread {
            jobs: Some(jobs),
            ready,
            failed,
            thread: Some(thread),
        }
    }

    /// Whether the chip could not be built or the board not reached (its solves all answer
    /// that error).
    pub fn failed(&self) -> bool {
        self.failed.load(Ordering::Acquire)
    }

    /// A handle for a worker thread.
    pub fn handle(&self) -> ChipHandle {
        ChipHandle {
            jobs: self
                .jobs
                .clone()
                .expect("the jobs' channel is open until the drop"),
            ready: self.ready.clone(),
        }
    }
}

impl Drop for ChipThread {
    fn drop(&mut self) {
        // The thread ends when the last sender is gone (the workers' handles go with their
        // searches, which the session has stopped and joined).
        self.jobs = None;
        // A build still running is left to the exit: it has loaded nothing yet.
        if self.ready.load(Ordering::Acquire)
            && let Some(thread) = self.thread.take()
        {
            let _ = thread.join();
        }
    }
}

/// What a worker needs to solve on the chip.
pub struct ChipHandle {
    jobs: Sender<Job>,
    ready: Arc<AtomicBool>,
}

impl ChipHandle {
    /// Solves `pos` on the chip and waits for the answer. A stop while the chip is still
    /// being built answers at once (the chip polls `stop` itself once it runs).
    pub fn solve(
        &self,
        pos: &Position,
        config: Config,
        limits: Limits,
        stop: &Arc<AtomicBool>,
    ) -> ChipAnswer {
        let (reply, answer) = mpsc::channel();
        let job = Job {
            pos: pos.clone(),
            config,
            limits,
            stop: stop.clone(),
            reply,
        };
        let gone = || "the chip's thread has ended; restart the engine".to_string();
        self.jobs.send(job).map_err(|_| gone())?;
        loop {
            match answer.recv_timeout(Duration::from_millis(20)) {
                Ok(answer) => return answer,
                Err(RecvTimeoutError::Disconnected) => return Err(gone()),
                Err(RecvTimeoutError::Timeout) => {
                    if stop.load(Ordering::Relaxed) && !self.ready.load(Ordering::Acquire) {
                        return Err("stopped while the chip's Verilator model was being \
                                    built; the build goes on, the next go mate uses it"
                            .to_string());
                    }
                }
            }
        }
    }
}

/// The chip's thread: builds the chip or connects to the board, then solves the jobs until
/// the session ends.
fn run(
    target: &ChipTarget,
    config: Config,
    inbox: &Receiver<Job>,
    ready: &AtomicBool,
    failed: &AtomicBool,
) {
    let fail = |error: String| {
        failed.store(true, Ordering::Release);
        ready.store(true, Ordering::Release);
        for job in inbox {
            let _ = job.reply.send(Err(error.clone()));
        }
    };
    let files = match target {
        ChipTarget::Sim(files) => files,
        ChipTarget::Board {
            port,
            baud,
            clock_mhz,
        } => {
            let transport = match SerialTransport::open(port, *baud) {
                Ok(t) => t,
                Err(e) => return fail(format!("Engine board: {e:#}; set BoardPort")),
            };
            let link = LinkDriver::new(transport);
            return match BoardSearcher::new(link, clock_mhz * 1e6, config) {
                Ok(mut board) => serve(&mut board, inbox, ready),
                Err(e) => fail(format!("Engine board at {port}: {e}")),
            };
        }
    };
    // marlin finds the Verilog from the working directory (the directory of swim.toml).
    if let Err(e) = std::env::set_current_dir(&files.root) {
        return fail(format!(
            "cannot change to the checkout {}: {e}",
            files.root.display()
        ));
    }
    let runtime = match crate::chip::runtime(&files.verilator, &files.verilog) {
        Ok(runtime) => runtime,
        Err(e) => return fail(format!("the chip is not available: {e:#}")),
    };
    let chip = match SolverChip::new(&runtime, None) {
        Ok(chip) => chip,
        Err(e) => {
            return fail(format!(
                "the chip is not available: {e:#}; run `cargo xtask hdl` in {} and restart \
                 the engine",
                files.root.display()
            ));
        }
    };
    serve(&mut ChipSearcher::new(chip, config), inbox, ready);
}

/// Solves the jobs on `searcher` until the session ends.
fn serve(searcher: &mut dyn OnChip, inbox: &Receiver<Job>, ready: &AtomicBool) {
    ready.store(true, Ordering::Release);
    for job in inbox {
        searcher.set_stop(Some(job.stop));
        if let Err(why) = searcher.set_config(job.config) {
            let _ = job.reply.send(Err(why));
            continue;
        }
        let solved = catch_unwind(AssertUnwindSafe(|| {
            solve_on(&mut *searcher, &job.pos, job.limits)
        }));
        let answer = match solved {
            Ok(outcome) => Ok((outcome, searcher.cycles().total)),
            Err(_) => Err(format!(
                "the chip's search failed on {}; please report it",
                job.pos
            )),
        };
        // A worker that stopped waiting reads no answer.
        let _ = job.reply.send(answer);
    }
}
