//! The transposition table in simulation (`tt_top`, hdl/search/transposition_table.spade)
//! against its model, src/solver/table.rs: every lookup must answer the same and every
//! store take the same branch of the replacement rule. Fresh random command sequences each
//! run (seed given on failure; `TSUME_SEED` repeats a run, `TSUME_RANDOM` sets the number
//! of sequences), their keys crowded into a few sets so that every branch is taken, the
//! table cleared between sequences; one fixed walk through every rule on one set; and an
//! entry that 300 clears, past the wrap of the table's generation, never bring back.

mod common;

use std::collections::BTreeMap;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use tsume::chip::table::{LOOKUP_LATENCY, STORE_CYCLES, TableChip, chip_geometry};
use tsume::random::seed_from_env;
use tsume::solver::table::{Found, Placement, Table};
use tsume::solver::values::{INF, Pn};

/// Command sequences per default run, each followed by a clear; more than 256, so that
/// the 8-bit generation wraps and the table is swept at least once.
const SEQUENCES: usize = 2_000;

/// The model with the chip's geometry.
fn model() -> Table {
    let (index_bits, _, ways) = chip_geometry().expect("tt_top's geometry");
    Table::new(index_bits, ways)
}

fn key(tag: u32, index: u64) -> u64 {
    (u64::from(tag) << 32) | index
}

/// The chip and the model side by side; every disagreement is kept as a failure.
struct Twins<'ctx> {
    chip: TableChip<'ctx>,
    table: Table,
    failures: Vec<String>,
    rules: BTreeMap<Placement, usize>,
    lookup_cycles: BTreeMap<u64, usize>,
    store_cycles: BTreeMap<u64, usize>,
    clear_cycles: BTreeMap<u64, usize>,
    /// The commands of the sequence in flight, shown with a failure.
    log: Vec<String>,
}

impl Twins<'_> {
    fn fail(&mut self, what: String) {
        let tail = self.log.len().saturating_sub(12);
        self.failures.push(format!(
            "{what}\n    after: {}",
            self.log[tail..].join("; ")
        ));
    }

    fn lookup(&mut self, k: u64) -> Option<Found> {
        let (got, cycles) = self.chip.lookup(k).expect("lookup");
        *self.lookup_cycles.entry(cycles).or_default() += 1;
        let want = self.table.lookup(k);
        if got != want {
            self.fail(format!("lookup {k:#018x}: chip {got:?}, model {want:?}"));
        }
        self.log.push(format!("L {k:#x}"));
        want
    }

    fn lookup_burst(&mut self, keys: &[u64]) {
        let got = self.chip.lookup_burst(keys).expect("lookup burst");
        for (&k, got) in keys.iter().zip(got) {
            let want = self.table.lookup(k);
            if got != want {
                self.fail(format!(
                    "lookup {k:#018x} (burst of {}): chip {got:?}, model {want:?}",
                    keys.len()
                ));
            }
        }
        self.log.push(format!("burst of {}", keys.len()));
    }

    fn store(&mut self, k: u64, pn: Pn, dn: Pn, len: u16, bounded: bool) -> Placement {
        let (got, cycles) = self.chip.store(k, pn, dn, len, bounded).expect("store");
        *self.store_cycles.entry(cycles).or_default() += 1;
        let want = self.table.store(k, pn, dn, len, bounded);
        *self.rules.entry(want).or_default() += 1;
        if got != want {
            self.fail(format!(
                "store {k:#018x} ({pn}, {dn}, {len}, {bounded}): chip {got:?}, model {want:?}"
            ));
        }
        self.log
            .push(format!("S {k:#x} ({pn}, {dn}, {len}, {bounded}) {want:?}"));
        want
    }

    fn clear(&mut self) {
        let cycles = self.chip.clear().expect("clear");
        *self.clear_cycles.entry(cycles).or_default() += 1;
        self.table.clear();
        self.log.clear();
    }
}

/// Fails a fixed test (no seed) on the disagreements found.
fn assert_agrees(t: &Twins) {
    assert!(
        t.failures.is_empty(),
        "{} commands disagree with the model:\n{}",
        t.failures.len(),
        t.failures.join("\n")
    );
}

fn twins(runtime: &tsume::marlin::spade::SpadeRuntime) -> Twins<'_> {
    let mut chip = TableChip::new(runtime, None).expect("tt_top model");
    chip.wait_ready().expect("the reset's sweep");
    Twins {
        chip,
        table: model(),
        failures: Vec::new(),
        rules: BTreeMap::new(),
        lookup_cycles: BTreeMap::new(),
        store_cycles: BTreeMap::new(),
        clear_cycles: BTreeMap::new(),
        log: Vec::new(),
    }
}

/// Values as the search stores them (proofs, disproofs, small unsolved numbers with
/// ties), numbers near INF (the saturating sum) and now and then any pair at all.
fn values(rng: &mut StdRng) -> (Pn, Pn, u16, bool) {
    let len = rng.random_range(0..8);
    let bounded = rng.random_bool(0.5);
    match rng.random_range(0..100) {
        0..30 => (0, INF, len, bounded),
        30..50 => (INF, 0, len, bounded),
        50..80 => (rng.random_range(1..6), rng.random_range(1..6), len, bounded),
        80..92 => {
            let near = |rng: &mut StdRng| INF - rng.random_range(1..4);
            let dn = if rng.random_bool(0.5) {
                near(rng)
            } else {
                rng.random_range(1..4)
            };
            (near(rng), dn, len, bounded)
        }
        _ => {
            let any = |rng: &mut StdRng| match rng.random_range(0..4) {
                0 => 0,
                1 => INF,
                2 => rng.random_range(0..4),
                _ => rng.random(),
            };
            (any(rng), any(rng), rng.random(), bounded)
        }
    }
}

#[test]
fn random_commands_match_the_model() {
    let runtime = common::runtime();
    let seed = seed_from_env();
    let sequences = common::random_count(SEQUENCES);
    let mut rng = StdRng::seed_from_u64(seed ^ 0x7ab1e);
    let mut t = twins(&runtime);
    let (index_bits, ..) = chip_geometry().unwrap();
    for _ in 0..sequences {
        // A few sets (sometimes one), each with a few more tags than ways.
        let indices: Vec<u64> = (0..rng.random_range(1..=3))
            .map(|_| rng.random_range(0..1u64 << index_bits))
            .collect();
        let tags: Vec<u32> = (0..rng.random_range(3..10)).map(|_| rng.random()).collect();
        // The bits between the index and the tag belong to neither: the same entry.
        let pick = |rng: &mut StdRng| {
            let middle = u64::from(rng.random::<u32>()) >> index_bits << index_bits;
            key(
                tags[rng.random_range(0..tags.len())],
                indices[rng.random_range(0..indices.len())],
            ) | middle
        };
        for _ in 0..rng.random_range(10..80) {
            match rng.random_range(0..100) {
                0..55 => {
                    let (pn, dn, len, bounded) = values(&mut rng);
                    let k = pick(&mut rng);
                    t.store(k, pn, dn, len, bounded);
                }
                55..95 => {
                    let k = pick(&mut rng);
                    t.lookup(k);
                }
                _ => {
                    let keys: Vec<u64> = (0..rng.random_range(1..12))
                        .map(|_| pick(&mut rng))
                        .collect();
                    t.lookup_burst(&keys);
                }
            }
        }
        // Everything the sequence could have left, read back, then the table emptied.
        let all: Vec<u64> = indices
            .iter()
            .flat_map(|&i| tags.iter().map(move |&tag| key(tag, i)))
            .collect();
        t.lookup_burst(&all);
        t.clear();
        for k in all {
            if t.table.lookup(k).is_some() {
                t.fail(format!("the model kept {k:#x} through a clear"));
            }
            t.lookup(k);
        }
    }
    common::assert_no_failures(&t.failures, "commands disagree with the model", seed);
    for rule in Placement::ALL {
        assert!(
            t.rules.get(&rule).copied().unwrap_or(0) > 0,
            "branch {rule:?} never taken (seed {seed}, rerun with TSUME_SEED={seed}): {:?}",
            t.rules
        );
    }
    assert!(
        t.clear_cycles.keys().any(|&c| c > 1),
        "no clear wrapped the generation (seed {seed}): {:?}",
        t.clear_cycles
    );
    assert_eq!(
        t.lookup_cycles.keys().copied().collect::<Vec<_>>(),
        [LOOKUP_LATENCY],
        "cycles from a lookup to its answer (seed {seed})"
    );
    assert_eq!(
        t.store_cycles.keys().copied().collect::<Vec<_>>(),
        [STORE_CYCLES],
        "cycles from a store to ready (seed {seed})"
    );
}

/// One set walked through every branch of the rule in turn, each step checked against
/// the branch the rule names and against the model.
#[test]
fn one_set_walks_every_rule() {
    use Placement::*;
    let runtime = common::runtime();
    let mut t = twins(&runtime);
    let k = |tag: u32| key(tag, 5);
    let proof = (0, INF);
    let disproof = (INF, 0);
    let steps: &[(u32, (Pn, Pn), u16, Placement)] = &[
        (1, (5, 5), 0, Empty),
        (1, (3, 4), 0, Overwritten),
        (2, proof, 5, Empty),
        (2, proof, 7, KeptProof),
        (2, (2, 2), 0, KeptProof),
        (2, proof, 3, ShorterProof),
        (3, disproof, 0, Empty),
        (3, proof, 1, KeptDisproof),
        (4, (1, 9), 0, Empty),
        // Full: t1 (3, 4), t2 proof, t3 disproof, t4 (1, 9): the least work is t1's.
        (5, (1, 1), 0, LeastWork),
        (4, (1, 1), 0, Overwritten),
        // t5 and t4 both 2: the lower way goes.
        (6, (3, 3), 0, LeastWork),
        (6, proof, 2, Overwritten),
        (4, disproof, 0, Overwritten),
        // t6 proof, t2 proof, t3 disproof, t4 disproof: the first disproof goes.
        (7, (1, 1), 0, Disproven),
        (7, proof, 4, Overwritten),
        (8, proof, 6, Disproven),
        // Four proofs: way 0.
        (9, proof, 1, First),
    ];
    for (i, &(tag, (pn, dn), len, rule)) in steps.iter().enumerate() {
        let got = t.store(k(tag), pn, dn, len, false);
        assert_eq!(got, rule, "step {i}: t{tag} ({pn}, {dn}, {len})");
        t.lookup_burst(&(1..=9).map(k).collect::<Vec<_>>());
    }
    assert!(t.lookup(k(9)).is_some() && t.lookup(k(6)).is_none());
    // Another set is untouched, and a clear empties this one.
    assert!(t.lookup(key(9, 6)).is_none());
    t.clear();
    assert!(t.lookup(k(9)).is_none());
    // Sums saturate below INF: three ways at INF - 1 (one of them INF - 1 + INF - 1), the
    // lowest of them goes.
    let near = [
        (1, (INF - 2, 1)),
        (2, (INF - 1, INF - 1)),
        (3, (7, 7)),
        (4, (INF - 1, 3)),
    ];
    for &(tag, (pn, dn)) in &near {
        assert_eq!(t.store(k(tag), pn, dn, 0, false), Empty);
    }
    assert_eq!(t.store(k(5), 1, 1, 0, false), LeastWork);
    assert_eq!(t.store(k(5), 0, INF, 3, false), Overwritten);
    assert_eq!(t.store(k(6), 1, 1, 0, false), LeastWork);
    assert!(t.lookup(k(1)).is_none() && t.lookup(k(2)).is_some());
    assert_agrees(&t);
}

/// A clear makes every entry unreachable, also when the generation wraps: 300 clears, the
/// wrapping one sweeping the table, and the entry written before them never comes back.
#[test]
fn clears_never_bring_an_entry_back() {
    let runtime = common::runtime();
    let mut t = twins(&runtime);
    let k = key(0x1234_5678, 77);
    t.store(k, 0, INF, 5, false);
    t.store(key(7, 77), 3, 4, 0, false);
    for _ in 0..300 {
        t.clear();
        t.lookup(k);
    }
    assert_eq!(t.store(k, 2, 2, 0, false), Placement::Empty);
    assert_agrees(&t);
    let sweeps = t.clear_cycles.iter().filter(|&(&c, _)| c > 1).count();
    assert!(sweeps > 0, "no clear swept the table: {:?}", t.clear_cycles);
}
