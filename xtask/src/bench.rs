//! `cargo xtask bench`: measured figures of the move generator. Cycle counts come from the
//! simulated chip (clock cycles from the position being ready to the first move and to the
//! end of its list), over the problem suite and fresh random positions, for checks and
//! evasions separately and together; in the same run, the simulation speed and the software
//! reference's speed on the same positions. With `--solver`, the df-pn model beside
//! cshogi's DfPn, and the chip's search on the same positions ([`solver`]).

use std::time::{Duration, Instant};

use anyhow::Result;
use clap::Args;
use tsume::chip::ChipMoves;
use tsume::position::Position;
use tsume::random::{Kind, TsumeGenerator};
use tsume::reference::tsume_moves;

use crate::simulator;
use crate::util::{self, Failure};

mod solver;

#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Random positions (half of them in check) besides the problem suite.
    #[arg(long, default_value_t = 20_000, allow_negative_numbers = true, value_parser = util::whole::<u64>)]
    pub random: u64,
    /// Seed of the random positions (default: TSUME_SEED, else a fresh one, printed).
    #[arg(long, allow_negative_numbers = true, value_parser = util::whole::<u64>)]
    pub seed: Option<u64>,
    /// Clock frequency for the positions-per-second figures, in MHz (default: the generator
    /// clock of swim.toml's default board, the clock its bitstream is built and checked for).
    #[arg(long)]
    pub mhz: Option<f64>,
    /// The solver beside cshogi's DfPn on the same positions instead of the generator's cycles.
    #[arg(long)]
    pub solver: bool,
    /// With --solver: the node limit of every solve, for both engines.
    #[arg(long, default_value_t = 1_000_000, allow_negative_numbers = true, value_parser = util::whole::<u64>)]
    pub nodes: u64,
    /// With --solver: positions taken from the start of each nshogi mate-N file.
    #[arg(long, default_value_t = 100, allow_negative_numbers = true, value_parser = util::whole::<usize>)]
    pub sample: usize,
    /// With --solver: the sets, comma-separated (suite, mate-3, mate-5, mate-7, mate-9,
    /// mate-11, famous; default: all).
    #[arg(long)]
    pub sets: Option<String>,
    /// With --solver: the model's table size in entries (swim.toml [search] ways, the
    /// largest power-of-two number of sets that fits).
    #[arg(long, default_value_t = 1 << 20, allow_negative_numbers = true, value_parser = util::whole::<usize>)]
    pub tt_entries: usize,
    /// With --solver: the model's child frames (mates of up to N - 1 plies; default
    /// swim.toml [search] max_plies, the chip's).
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = util::whole::<usize>)]
    pub max_plies: Option<usize>,
    /// With --solver: the chip's node limit. The simulated chip (about 1,000 nodes a second
    /// of wall time) runs a position when the model at the chip's geometry (swim.toml
    /// [search]) answers it within this many nodes (and --nodes), at that limit; 0: no chip.
    #[arg(long, value_name = "N", default_value_t = 20_000, allow_negative_numbers = true, value_parser = util::whole::<u64>)]
    pub chip_nodes: u64,
    /// With --solver: the positions of each set looked at for the chip, from its start;
    /// 0: no chip.
    #[arg(long, value_name = "K", default_value_t = 10, allow_negative_numbers = true, value_parser = util::whole::<usize>)]
    pub chip_sample: usize,
    /// With --solver: the model's table modes, a row each, comma-separated: plies (the
    /// table keyed by plies left), hands (hand_superiority), depth (depth_free), pieces
    /// (both), counts (plies with child_counts), pieces-counts, depth-counts, the count
    /// estimates est-ring, est-checker, est-attacked (swim.toml's: the chip's count unit),
    /// est-replies (depth with child_estimates) and pieces-est-*; default
    /// est-attacked,depth,pieces. The chip searches with swim.toml [search] (or
    /// --chip-table); its column compares with the first.
    #[arg(long, value_name = "MODES")]
    pub model_modes: Option<String>,
    /// With --solver: the chip's table mode (one of --model-modes' names without child
    /// counts or estimates) instead of swim.toml [search]'s; its twin, the model it must equal, searches
    /// with the same.
    #[arg(long, value_name = "MODE")]
    pub chip_table: Option<String>,
    /// With --solver: the model with a board's table (swim.toml [fpga.boards.NAME]: the
    /// first level's tt_index_bits, the second level's tt2_index_bits; NAME: [fpga] board
    /// when left out) instead of --tt-entries, and a table of the second level's counters.
    #[arg(
        long,
        value_name = "NAME",
        num_args = 0..=1,
        default_missing_value = "",
        conflicts_with = "tt_entries"
    )]
    pub board: Option<String>,
}

/// Cycle statistics of one group of positions.
#[derive(Default, Clone)]
struct Group {
    positions: u64,
    moves: u64,
    cycles: u64,
    max_cycles: u64,
    first: u64,
    with_moves: u64,
    max_first: u64,
}

impl Group {
    fn add(&mut self, answer: &ChipMoves) {
        self.positions += 1;
        self.moves += answer.moves.len() as u64;
        self.cycles += answer.cycles;
        self.max_cycles = self.max_cycles.max(answer.cycles);
        if let Some(first) = answer.first_move_cycles {
            self.with_moves += 1;
            self.first += first;
            self.max_first = self.max_first.max(first);
        }
    }

    fn merge(&self, other: &Group) -> Group {
        Group {
            positions: self.positions + other.positions,
            moves: self.moves + other.moves,
            cycles: self.cycles + other.cycles,
            max_cycles: self.max_cycles.max(other.max_cycles),
            first: self.first + other.first,
            with_moves: self.with_moves + other.with_moves,
            max_first: self.max_first.max(other.max_first),
        }
    }

    fn row(&self, label: &str, mhz: f64) -> String {
        let n = self.positions.max(1) as f64;
        let mean_cycles = self.cycles as f64 / n;
        format!(
            "| {label} | {} | {:.1} | {:.1} | {} | {:.1} | {} | {:.2} | {:.2} M |",
            self.positions,
            self.moves as f64 / n,
            mean_cycles,
            self.max_cycles,
            self.first as f64 / self.with_moves.max(1) as f64,
            self.max_first,
            (self.cycles as f64 - self.moves as f64) / n,
            mhz / mean_cycles.max(1e-9),
        )
    }
}

/// The chip's figures for one set of positions.
#[derive(Default)]
struct Measured {
    checks: Group,
    evasions: Group,
    sim_time: Duration,
    sim_cycles: u64,
}

fn measure(chip: &mut tsume::chip::MovegenChip, positions: &[Position]) -> Result<Measured> {
    let mut m = Measured::default();
    let bar = util::progress_bar(positions.len() as u64);
    let cycles_before = chip.cycles();
    let start = Instant::now();
    for pos in positions {
        let answer = simulator::generate(chip, pos)?;
        if answer.in_check {
            m.evasions.add(&answer);
        } else {
            m.checks.add(&answer);
        }
        bar.inc(1);
    }
    m.sim_time = start.elapsed();
    m.sim_cycles = chip.cycles() - cycles_before;
    bar.finish_and_clear();
    Ok(m)
}

/// Positions per second of the software reference on `positions` (best of three runs).
fn reference_speed(positions: &[Position]) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..3 {
        let start = Instant::now();
        let mut moves = 0;
        for pos in positions {
            moves += std::hint::black_box(tsume_moves(pos)).moves.len();
        }
        std::hint::black_box(moves);
        best = best.min(start.elapsed().as_secs_f64());
    }
    positions.len() as f64 / best
}

pub fn run(args: &BenchArgs) -> Result<()> {
    if args.solver {
        return solver::run(&solver::Options {
            nodes: args.nodes,
            sample: args.sample,
            sets: args.sets.clone(),
            tt_entries: args.tt_entries,
            max_plies: args.max_plies,
            chip_nodes: args.chip_nodes,
            chip_sample: args.chip_sample,
            model_modes: args.model_modes.clone(),
            chip_table: args.chip_table.clone(),
            board: args.board.clone(),
        });
    }
    let mhz = match args.mhz {
        Some(mhz) if mhz > 0.0 && mhz.is_finite() => mhz,
        Some(mhz) => {
            return Err(Failure::error(
                2,
                format!("--mhz {mhz}: give the clock in MHz, e.g. --mhz 100"),
            ));
        }
        None => tsume::project::manifest::Manifest::load(&util::project_root())?.clock_mhz(None)?,
    };
    let seed = args.seed.unwrap_or_else(tsume::random::seed_from_env);
    let runtime = simulator::runtime()?;
    let (mut chip, model_time) = simulator::open(&runtime, None)?;

    let suite: Vec<Position> = tsume::problems::load_suite(&crate::toolchain::problems_dir())?
        .iter()
        .map(|p| Position::from_sfen(&p.sfen).map_err(|e| anyhow::anyhow!("problem {}: {e}", p.id)))
        .collect::<Result<_>>()?;
    let mut generator = TsumeGenerator::new(seed);
    let random: Vec<Position> = (0..args.random)
        .map(|_| generator.next_position(Kind::Any))
        .collect();

    eprintln!("bench: problem suite ({} positions)", suite.len());
    let s = measure(&mut chip, &suite)?;
    eprintln!("bench: {} random positions, seed {seed}", random.len());
    let r = measure(&mut chip, &random)?;
    eprintln!("bench: software reference on the same positions");
    let reference_suite = reference_speed(&suite);
    let reference_random = reference_speed(&random);
    if s.checks.positions + s.evasions.positions == 0 {
        return Err(Failure::error(1, "the problem suite is empty"));
    }

    println!(
        "## Move generator, measured by `cargo xtask bench --random {} --seed {seed}`\n",
        args.random
    );
    println!(
        "Cycles: clock cycles from the position being ready in the chip (the cycle after its last \
         load word) to the first move and to the end-of-list beat; overhead = cycles - moves. \
         Positions/s at {mhz} MHz = {mhz} MHz / mean cycles (one generator, positions loaded \
         back to back).\n"
    );
    println!(
        "| positions | count | moves (mean) | cycles (mean) | cycles (max) | first move (mean) | first move (max) | overhead (mean) | positions/s at {mhz} MHz |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for (label, m) in [("suite", &s), ("random", &r)] {
        println!("{}", m.checks.row(&format!("{label}: checks"), mhz));
        println!("{}", m.evasions.row(&format!("{label}: evasions"), mhz));
        println!(
            "{}",
            m.checks
                .merge(&m.evasions)
                .row(&format!("{label}: together"), mhz)
        );
    }
    let sim_cycles = s.sim_cycles + r.sim_cycles;
    let sim_time = s.sim_time + r.sim_time;
    let positions = (suite.len() + random.len()) as f64;
    println!();
    println!("| measurement | value |");
    println!("|---|---|");
    println!(
        "| Verilator model of movegen_top: build or load | {} |",
        util::secs(model_time)
    );
    println!(
        "| simulation speed | {:.0} cycles/s ({:.0} positions/s, loads included) |",
        sim_cycles as f64 / sim_time.as_secs_f64(),
        positions / sim_time.as_secs_f64()
    );
    println!(
        "| software reference (rsshogi + categories), suite | {reference_suite:.0} positions/s |"
    );
    println!(
        "| software reference (rsshogi + categories), random | {reference_random:.0} positions/s |"
    );
    Ok(())
}
