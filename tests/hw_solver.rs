//! The chip's df-pn search (`solver_top`) against the model: every solve on the chip must
//! equal the model's solve, result, line and counters (nodes, expansions, probes, stores).

mod common;

use std::time::Instant;

use tsume::hw_solver::{ChipSearcher, SolverChip};
use tsume::solver::{Config, Limits, Root, Solver, solve_on};

fn config() -> Config {
    Config::from_manifest(&common::root().join("swim.toml")).expect("swim.toml [search]")
}

#[test]
fn suite_problems_solve_as_in_the_model() {
    let runtime = common::runtime();
    let chip = SolverChip::new(&runtime, None).unwrap();
    let mut searcher = ChipSearcher::new(chip, config(), 1 << 30);
    let mut model = Solver::new(config());
    let mut failures = Vec::new();
    for (p, pos) in common::suite() {
        if p.solve_only.is_some() {
            continue;
        }
        let limits = Limits { nodes: 20_000, shortest: true, root: Root::Attacker };
        let want = model.solve(&pos, limits);
        let t = Instant::now();
        let got = solve_on(&mut searcher, &pos, limits);
        let c = searcher.cycles();
        eprintln!("{}: {:?} nodes {} cycles {} ({:.1}/node) {:.2}s", p.id, got.result, got.counters.nodes, c.total, c.total as f64 / got.counters.nodes.max(1) as f64, t.elapsed().as_secs_f64());
        if got != want {
            failures.push(format!("{}: chip {got:?}\nmodel {want:?}", p.id));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
