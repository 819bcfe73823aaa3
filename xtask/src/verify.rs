//! `cargo xtask verify --random N`: the chip against the software reference on N fresh
//! random tsume-like positions (half of them in check), for runs too long for the default
//! tests, compared as the tests compare them (`ChipMoves::reference_difference`: mode,
//! moves with their categories, check flags). Every disagreement is printed with its SFEN
//! and what differs; exit 1 if there is any.
//! `cargo xtask verify --solver N`: the chip's search against the solver model on N fresh
//! random positions (the defender's root when in check, half in shortest mode).

use std::time::Instant;

use anyhow::Result;
use clap::Args;
use tsume::random::{Kind, TsumeGenerator};

use crate::simulator;
use crate::util::{self, Failure};

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Number of random positions.
    #[arg(long, default_value_t = 100_000, allow_negative_numbers = true, value_parser = util::whole::<u64>)]
    pub random: u64,
    /// Seed of the random positions (default: TSUME_SEED, else a fresh one, printed).
    #[arg(long, allow_negative_numbers = true, value_parser = util::whole::<u64>)]
    pub seed: Option<u64>,
    /// Instead of the generator: solve this many random positions on the chip's search
    /// and by the model, and compare result, line and counters.
    #[arg(long, value_name = "N", conflicts_with = "random", allow_negative_numbers = true, value_parser = util::whole::<u64>)]
    pub solver: Option<u64>,
    /// With --solver: moves made at most per solve (its searches counted together).
    #[arg(long, value_name = "N", default_value_t = 2_000, requires = "solver", allow_negative_numbers = true, value_parser = util::whole::<u64>)]
    pub nodes: u64,
}

pub fn run(args: &VerifyArgs) -> Result<()> {
    let seed = args.seed.unwrap_or_else(tsume::random::seed_from_env);
    if let Some(count) = args.solver {
        return solver(count, args.nodes, seed);
    }
    let runtime = simulator::runtime()?;
    let (mut chip, _) = simulator::open(&runtime, None)?;
    let mut generator = TsumeGenerator::new(seed);
    eprintln!("verify: {} random positions, seed {seed}", args.random);
    let bar = util::progress_bar(args.random);
    let start = Instant::now();
    let (mut checks, mut evasions, mut moves, mut cycles, mut max_cycles) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    let mut failures = Vec::new();
    for i in 0..args.random {
        let pos = generator.next_position(Kind::Any);
        let verdict = match simulator::generate(&mut chip, &pos) {
            Ok(answer) => {
                cycles += answer.cycles;
                max_cycles = max_cycles.max(answer.cycles);
                moves += answer.moves.len() as u64;
                answer.reference_difference(&pos).map(|d| d.to_string())
            }
            Err(error) => Some(format!("{error:#}")),
        };
        // The reference's mode: evasions when the side to move is in check.
        if pos.in_check() {
            evasions += 1;
        } else {
            checks += 1;
        }
        if let Some(why) = verdict {
            let line = format!("position #{i} `{}`: {why}", pos.to_sfen());
            bar.println(&line);
            failures.push(line);
            bar.set_message(format!("{} disagree", failures.len()));
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let took = start.elapsed();
    println!(
        "verify: {} positions ({checks} checks, {evasions} evasions), {moves} moves, seed {seed}: \
         {} disagree with the reference; mean {:.2} cycles, max {max_cycles}; {} ({:.0} positions/s)",
        args.random,
        failures.len(),
        cycles as f64 / args.random.max(1) as f64,
        util::secs(took),
        args.random as f64 / took.as_secs_f64()
    );
    if failures.is_empty() {
        Ok(())
    } else {
        Err(Failure::error(
            1,
            format!(
                "{} of {} positions disagree (rerun with --seed {seed})",
                failures.len(),
                args.random
            ),
        ))
    }
}

/// `count` random positions solved on the chip and by the model with `nodes` at most.
fn solver(count: u64, nodes: u64, seed: u64) -> Result<()> {
    use tsume::chip::solver::{ChipSearcher, SolverTop};
    use tsume::solver::{Limits, Root, Solver, solve_on};

    let config = tsume::project::manifest::Manifest::load(&util::project_root())?.search()?;
    let runtime = simulator::runtime()?;
    let (top, _) = simulator::open_top::<SolverTop>(&runtime, None, "solver_top", "verify")?;
    let mut searcher = ChipSearcher::new(top, config);
    let mut model = Solver::new(config);
    let mut generator = TsumeGenerator::new(seed);
    eprintln!("verify: {count} random positions solved on the chip and by the model, seed {seed}");
    let bar = util::progress_bar(count);
    let start = Instant::now();
    let (mut solved_nodes, mut cycles) = (0u64, 0u64);
    let mut failures = Vec::new();
    for i in 0..count {
        let pos = generator.next_position(Kind::Any);
        let limits = Limits {
            nodes,
            shortest: i % 2 == 1,
            root: Root::Auto,
        };
        let want = model.solve(&pos, limits);
        let got = solve_on(&mut searcher, &pos, limits);
        solved_nodes += got.counters.nodes;
        cycles += searcher.cycles().total;
        if got != want {
            let line = format!(
                "position #{i} `{}` ({limits:?}):\n  chip  {got:?}\n  model {want:?}",
                pos.to_sfen()
            );
            bar.println(&line);
            failures.push(line);
            bar.set_message(format!("{} differ", failures.len()));
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    let took = start.elapsed();
    println!(
        "verify: {count} solves, seed {seed}: {} differ from the model; {solved_nodes} nodes, \
         {:.1} cycles a node; {}",
        failures.len(),
        cycles as f64 / solved_nodes.max(1) as f64,
        util::secs(took)
    );
    if failures.is_empty() {
        Ok(())
    } else {
        Err(Failure::error(
            1,
            format!(
                "{} of {count} solves differ (rerun with --seed {seed})",
                failures.len()
            ),
        ))
    }
}
