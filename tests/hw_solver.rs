//! The chip's df-pn search (`solver_top`, driven as a `Searcher` by `tsume::chip::solver`)
//! against the model (`tsume::solver::Solver`): a solve on the chip must equal the model's
//! solve, result, line, shortest flag and counters (nodes, expansions, probes, stores), on
//! the problem suite (half of it a default run, all with `TSUME_LONG`; with the nshogi
//! samples), on fresh random positions every run (seed
//! printed on failure; `TSUME_SEED` repeats a run, `TSUME_RANDOM` sets the number), at
//! the limits (a node limit mid-search, a stop), each solve on the chip the last one left,
//! and with smaller geometries the chip takes: a table of 2 sets that must evict, a child
//! limit and a ply limit that problems reach; in swim.toml's table mode, and some of it in
//! the other (depth-free entries, or the table keyed by plies left). The lines are walked
//! on chip (the suite's must be), and with the small table some walks must leave a node to
//! the host.

mod common;

use common::limits;
use common::twins::{Twin, Twins};

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use tsume::chip::solver::{ChipSearcher, SolverChip, Walked};
use tsume::position::Position;
use tsume::random::{Kind as PositionKind, TsumeGenerator, seed_from_env};
use tsume::solver::count_estimate::Estimate;
use tsume::solver::{
    Config, Limits, Outcome, Reason, Root, SearchResult, Solver, StoreRecord, solve_on,
};

/// Random positions per default run, and in the table mode swim.toml does not set.
const POSITIONS: usize = 100;
const OTHER_MODE_POSITIONS: usize = 30;
/// The node limit of a suite problem: longer ones end `unknown` in both engines.
const SUITE_NODES: u64 = 5_000;
/// A default run solves every other suite problem (all with `TSUME_LONG`).
const SUITE_SHARE: usize = 2;
/// The small table's set-index bits: 2 sets of swim.toml's ways, which the suite's
/// searches overflow at once.
const SMALL_TABLE_BITS: u32 = 1;
/// Suite problems searched with the small table, and their node limit.
const SMALL_TABLE_PROBLEMS: usize = 12;
const SMALL_TABLE_NODES: u64 = 1_000;

/// The chip against the model (`common::twins`); with hand superiority, every table
/// store of both is logged and compared (key, value, plies left and the pieces or hand
/// kept).
type ChipAndModel<'ctx> = Twins<ChipSearcher<'ctx>, Solver>;

fn chip_and_model(runtime: &tsume::marlin::spade::SpadeRuntime) -> ChipAndModel<'_> {
    chip_and_model_with(runtime, common::search_config())
}

/// The chip searching with `config` (its own geometry or a table of fewer sets), the
/// model built for it.
fn chip_and_model_with(
    runtime: &tsume::marlin::spade::SpadeRuntime,
    config: Config,
) -> ChipAndModel<'_> {
    let chip = SolverChip::new(runtime, None).expect("the solver_top model");
    let mut chip = ChipSearcher::new(chip, common::search_config());
    chip.set_config(config).expect("a geometry the chip takes");
    let mut model = Solver::new(config);
    if config.hand_superiority {
        chip.stores().start();
        model.stores().start();
    }
    Twins::new(chip, model, ["chip", "model"])
}

/// The chip's trace: its table stores (none unless logging).
impl Twin for ChipSearcher<'_> {
    type Trace = Vec<StoreRecord>;

    fn solve_traced(&mut self, pos: &Position, limits: Limits) -> (Outcome, Vec<StoreRecord>) {
        let outcome = solve_on(self, pos, limits);
        (outcome, self.stores().take())
    }

    fn trace_difference(chip: &Vec<StoreRecord>, model: &Vec<StoreRecord>, _: [&str; 2]) -> String {
        stores_difference(chip, model)
    }
}

/// The model's trace: its table stores (none unless logging).
impl Twin for Solver {
    type Trace = Vec<StoreRecord>;

    fn solve_traced(&mut self, pos: &Position, limits: Limits) -> (Outcome, Vec<StoreRecord>) {
        let outcome = self.solve(pos, limits);
        (outcome, self.stores().take())
    }

    fn trace_difference(chip: &Vec<StoreRecord>, model: &Vec<StoreRecord>, _: [&str; 2]) -> String {
        stores_difference(chip, model)
    }
}

/// The first store where the chip's log and the model's differ.
fn stores_difference(chip: &[StoreRecord], model: &[StoreRecord]) -> String {
    let i = chip
        .iter()
        .zip(model)
        .position(|(a, b)| a != b)
        .unwrap_or(chip.len().min(model.len()));
    format!(
        "store {i} of {} (chip) / {} (model) differs:\n  chip  {:?}\n  model {:?}",
        chip.len(),
        model.len(),
        chip.get(i),
        model.get(i)
    )
}

#[test]
fn the_suite_solves_as_in_the_model() {
    let runtime = common::runtime();
    let mut twins = chip_and_model(&runtime);
    let mut failures = Vec::new();
    let mut mates = 0;
    let seed = seed_from_env();
    let problems = common::suite_share(SUITE_SHARE, seed);
    for (p, pos) in &problems {
        match twins.solve(&p.id, pos, limits(SUITE_NODES, true, Root::Attacker)) {
            Ok(out) => mates += usize::from(out.result == SearchResult::Mate),
            Err(e) => failures.push(e),
        }
    }
    assert!(
        mates * 3 >= problems.len(),
        "only {mates} of {} suite problems proven within {SUITE_NODES} nodes",
        problems.len()
    );
    // The lines are walked on chip: every proven problem's, at least in part.
    let walked = twins.tested.walked();
    assert!(
        walked.moves > 0 && walked.complete > 0,
        "the chip walked no line: {walked:?}"
    );
    common::assert_no_failures(&failures, "suite problems differ from the model", seed);
}

#[test]
fn random_positions_solve_as_in_the_model() {
    random_positions(common::search_config(), POSITIONS);
}

/// The chip's other table mode (swim.toml [search] depth_free = true: the table keyed by
/// plies left, else depth-free) on random positions, the suite's first problems and with
/// a table of 2 sets.
#[test]
fn the_other_table_mode_solves_as_in_the_model() {
    let base = common::search_config();
    let other = Config {
        depth_free: !base.depth_free,
        ..base
    };
    random_positions(other, OTHER_MODE_POSITIONS);
    let (outcomes, _) = smaller_geometry(other, "the other table mode");
    // The modes' keys and entries differ: the searches must too, on some problem.
    let changed = differ_from(&outcomes, base);
    assert!(
        changed > 0,
        "both table modes searched alike on every problem"
    );
    let small = Config {
        tt_index_bits: SMALL_TABLE_BITS,
        ..other
    };
    smaller_geometry(small, "the other table mode with a table of 2 sets");
}

/// Hand superiority (the pieces table: hands out of the key, proof and disproof pieces,
/// depth-free entries) on random positions, the suite and with a table of 2 sets, where
/// superiority and replacement meet; every store compared.
#[test]
fn hand_superiority_solves_as_in_the_model() {
    let base = common::search_config();
    let pieces = Config {
        hand_superiority: true,
        depth_free: true,
        ..base
    };
    random_positions(pieces, OTHER_MODE_POSITIONS);
    let runtime = common::runtime();
    let mut twins = chip_and_model_with(&runtime, pieces);
    let seed = seed_from_env();
    let failures: Vec<String> = common::suite_share(SUITE_SHARE, seed)
        .iter()
        .filter_map(|(p, pos)| {
            twins
                .solve(&p.id, pos, limits(SUITE_NODES, true, Root::Attacker))
                .err()
        })
        .collect();
    common::assert_no_failures(
        &failures,
        "suite problems differ with hand superiority",
        seed,
    );
    let (outcomes, _) = smaller_geometry(pieces, "hand superiority");
    let changed = differ_from(
        &outcomes,
        Config {
            hand_superiority: false,
            ..pieces
        },
    );
    assert!(
        changed > 0,
        "hand superiority searched as the depth-free table on every problem"
    );
    let small = Config {
        tt_index_bits: SMALL_TABLE_BITS,
        ..pieces
    };
    smaller_geometry(small, "hand superiority with a table of 2 sets");
}

/// Count estimates (the count unit in EXPAND, `child_estimates = "attacked"`): an OR
/// node's new children start at the unit's estimate, in both twins, on random positions
/// and the suite's first problems (every store compared with hand superiority too); the
/// searches must differ from those without estimates.
#[test]
fn count_estimates_solve_as_in_the_model() {
    let base = common::search_config();
    let est = Config {
        child_estimates: Some(Estimate::Attacked),
        child_counts: false,
        ..base
    };
    random_positions(est, OTHER_MODE_POSITIONS);
    let (outcomes, _) = smaller_geometry(est, "count estimates");
    let changed = differ_from(
        &outcomes,
        Config {
            child_estimates: None,
            ..est
        },
    );
    assert!(
        changed > 0,
        "the count estimates changed no search of the suite's first problems"
    );
    let pieces = Config {
        hand_superiority: true,
        depth_free: true,
        ..est
    };
    smaller_geometry(pieces, "count estimates with hand superiority");
}

/// Fresh random positions (seed printed on failure) solved by both with `config`; with
/// the default count every kind of answer must occur.
fn random_positions(config: Config, count: usize) {
    let seed = seed_from_env();
    let mut g = TsumeGenerator::new(seed);
    let mut rng = StdRng::seed_from_u64(seed ^ 0x50_1e);
    let runtime = common::runtime();
    let mut twins = chip_and_model_with(&runtime, config);
    let mut failures = Vec::new();
    let (mut mates, mut nomates, mut limited, mut defenders) = (0, 0, 0, 0);
    for i in 0..common::random_count(count) {
        let pos = g.next_position(PositionKind::Any);
        let nodes = rng.random_range(0..400);
        let lim = limits(nodes, rng.random_bool(0.5), Root::Auto);
        match twins.solve(&format!("random position {i}"), &pos, lim) {
            Ok(out) => {
                defenders += usize::from(pos.in_check());
                match out.result {
                    SearchResult::Mate => mates += 1,
                    SearchResult::NoMate => nomates += 1,
                    SearchResult::Unknown(Reason::NodeLimit { .. }) => limited += 1,
                    SearchResult::Unknown(_) => {}
                }
            }
            Err(e) => failures.push(e),
        }
    }
    let what = format!(
        "random positions (depth_free = {}, hand_superiority = {}) differ from the model",
        config.depth_free, config.hand_superiority
    );
    common::assert_no_failures(&failures, &what, seed);
    if common::random_count(count) >= POSITIONS {
        assert!(
            mates > 0 && nomates > 0 && limited > 0 && defenders > 0,
            "a kind of answer never occurred: {mates} mates, {nomates} no mates, {limited} node \
             limits, {defenders} defender roots (seed {seed}, rerun with TSUME_SEED={seed})"
        );
    }
}

/// The limits of a smaller geometry's solves.
fn small_limits() -> Limits {
    limits(SMALL_TABLE_NODES, true, Root::Attacker)
}

/// The suite's first problems solved by both with `config`, which the chip takes: their
/// outcomes (equal in both, or the test fails) and what the chip's walks did.
fn smaller_geometry(config: Config, what: &str) -> (Vec<(Position, Outcome)>, Walked) {
    let runtime = common::runtime();
    let mut twins = chip_and_model_with(&runtime, config);
    let mut failures = Vec::new();
    let mut outcomes = Vec::new();
    let problems = common::suite()
        .into_iter()
        .filter(|(p, _)| p.solve_only.is_none());
    for (p, pos) in problems.take(SMALL_TABLE_PROBLEMS) {
        match twins.solve(&p.id, &pos, small_limits()) {
            Ok(out) => outcomes.push((pos, out)),
            Err(e) => failures.push(e),
        }
    }
    common::assert_no_failures(&failures, &format!("{what}: the chip differs"), 0);
    (outcomes, twins.tested.walked())
}

/// How many of `outcomes` (solved with the limits of a smaller geometry) have other
/// counters than the model's solves of their positions with `config`.
fn differ_from(outcomes: &[(Position, Outcome)], config: Config) -> usize {
    let mut model = Solver::new(config);
    outcomes
        .iter()
        .filter(|(pos, out)| out.counters != model.solve(pos, small_limits()).counters)
        .count()
}

#[test]
fn a_small_table_evicts_as_in_the_model() {
    let small = Config {
        tt_index_bits: SMALL_TABLE_BITS,
        ..common::search_config()
    };
    let (outcomes, walked) = smaller_geometry(small, "suite with a table of 2 sets");
    // The evictions must change the search: not every counter as with the whole table.
    let changed = differ_from(&outcomes, common::search_config());
    assert!(
        changed > 0,
        "a table of {} entries searched as the whole table on every problem: nothing evicted",
        small.tt_entries()
    );
    // Lost proofs: walks of the line that leave a node to the host (a search again).
    assert!(
        walked.complete < walked.walks,
        "every walk reached the mate with a table of 2 sets: {walked:?}"
    );
}

#[test]
fn a_child_limit_and_a_ply_limit_answer_as_in_the_model() {
    fn child_limit(r: &SearchResult) -> bool {
        matches!(r, SearchResult::Unknown(Reason::ChildLimit { .. }))
    }
    fn ply_limit(r: &SearchResult) -> bool {
        matches!(r, SearchResult::Unknown(Reason::PlyLimit { .. }))
    }
    type Reached = fn(&SearchResult) -> bool;
    let geometries: [(&str, Config, Reached); 2] = [
        (
            "a child limit of 16",
            Config {
                max_children: 16,
                ..common::search_config()
            },
            child_limit,
        ),
        (
            "a ply limit of 3 plies",
            Config {
                max_plies: 4,
                ..common::search_config()
            },
            ply_limit,
        ),
    ];
    for (what, geometry, reached) in geometries {
        let (outcomes, _) = smaller_geometry(geometry, &format!("suite with {what}"));
        assert!(
            outcomes.iter().any(|(_, out)| reached(&out.result)),
            "no problem reached {what}"
        );
    }
}

#[test]
fn limits_and_stops_leave_the_chip_ready() {
    let runtime = common::runtime();
    let mut twins = chip_and_model(&runtime);
    let mate3 = common::pos("3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1");
    let run = |twins: &mut ChipAndModel, what: &str, pos: &Position, lim: Limits| {
        Some(
            twins
                .solve(what, pos, lim)
                .unwrap_or_else(|e| panic!("{e}")),
        )
    };
    // A node limit in the middle of a search, then the same problem whole.
    for nodes in [0, 1, 7, 30] {
        let out = run(
            &mut twins,
            "node limit",
            &mate3,
            limits(nodes, false, Root::Attacker),
        );
        assert!(matches!(
            out.map(|o| o.result),
            Some(SearchResult::Unknown(Reason::NodeLimit { .. }))
        ));
    }
    let out = run(
        &mut twins,
        "after the limits",
        &mate3,
        limits(u64::MAX, true, Root::Attacker),
    );
    assert_eq!(out.map(|o| o.pv.len()), Some(3));
    // A stop asked for before the search: stopped before its first move in both.
    let stop = Arc::new(AtomicBool::new(true));
    twins.tested.set_stop(Some(stop.clone()));
    twins.reference.set_stop(Some(stop));
    let out = run(&mut twins, "stopped", &mate3, Limits::default());
    assert!(matches!(
        out.map(|o| o.result),
        Some(SearchResult::Unknown(Reason::Stopped))
    ));
    twins.tested.set_stop(None);
    twins.reference.set_stop(None);
    let out = run(&mut twins, "after the stop", &mate3, Limits::default());
    assert_eq!(out.map(|o| o.result), Some(SearchResult::Mate));
}
