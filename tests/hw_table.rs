//! The transposition table in simulation (`tt_top`, hdl/search/transposition_table.spade)
//! against its models, in both modes: keyed by plies left, src/solver/table.rs `Table`;
//! depth-free, src/solver/pieces.rs `PieceTable` without hand superiority. Every lookup
//! must answer the same and every store take the same branch of the replacement rule.
//! Fresh random command sequences each run and mode (seed given on failure; `TSUME_SEED`
//! repeats a run, `TSUME_RANDOM` sets the number of sequences), their keys crowded into a
//! few sets and their plies left into a few values so that every branch is taken, the
//! table cleared between sequences; one fixed walk through every rule on one set in each
//! mode; and an entry that 300 clears, past the wrap of the table's generation, never
//! bring back.

mod common;

use std::collections::BTreeMap;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use tsume::chip::table::{LOOKUP_LATENCY, STORE_CYCLES, TableChip, chip_geometry};
use tsume::random::seed_from_env;
use tsume::solver::hands::EMPTY;
use tsume::solver::pieces::{PieceTable, Probe};
use tsume::solver::table::{Found, Placement, Table};
use tsume::solver::values::{INF, Pn};

/// Command sequences per default run, each followed by a clear; more than 256, so that
/// the 8-bit generation wraps and the table is swept at least once.
const SEQUENCES: usize = 2_000;

/// The table's model in one of the chip's modes.
enum Model {
    Keyed(Table),
    DepthFree(PieceTable),
}

impl Model {
    /// The model with the chip's geometry, depth-free or keyed by plies left.
    fn new(depth_free: bool) -> Model {
        let (index_bits, _, ways) = chip_geometry().expect("tt_top's geometry");
        if depth_free {
            Model::DepthFree(PieceTable::try_new(index_bits, ways, false, true).unwrap())
        } else {
            Model::Keyed(Table::new(index_bits, ways))
        }
    }

    fn probe(key: u64, left: u16) -> Probe {
        Probe {
            key,
            hand: EMPTY,
            left: u32::from(left),
        }
    }

    fn lookup(&self, key: u64, left: u16) -> Option<Found> {
        match self {
            Model::Keyed(t) => t.lookup(key),
            Model::DepthFree(t) => t.lookup(Model::probe(key, left)).map(|h| Found {
                pn: h.pn,
                dn: h.dn,
                len: h.len,
                bounded: h.bounded,
            }),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn store(&mut self, key: u64, pn: Pn, dn: Pn, len: u16, bounded: bool, left: u16) -> Placement {
        match self {
            Model::Keyed(t) => t.store(key, pn, dn, len, bounded),
            Model::DepthFree(t) => t.store(Model::probe(key, left), pn, dn, len, bounded, EMPTY),
        }
    }

    fn clear(&mut self) {
        match self {
            Model::Keyed(t) => t.clear(),
            Model::DepthFree(t) => t.clear(),
        }
    }
}

fn key(tag: u32, index: u64) -> u64 {
    (u64::from(tag) << 32) | index
}

/// The chip and the model side by side; every disagreement is kept as a failure.
struct Twins<'ctx> {
    chip: TableChip<'ctx>,
    table: Model,
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

    fn lookup(&mut self, k: u64, left: u16) -> Option<Found> {
        let (got, cycles) = self.chip.lookup(k, left).expect("lookup");
        *self.lookup_cycles.entry(cycles).or_default() += 1;
        let want = self.table.lookup(k, left);
        if got != want {
            self.fail(format!(
                "lookup {k:#018x} at {left}: chip {got:?}, model {want:?}"
            ));
        }
        self.log.push(format!("L {k:#x} at {left}"));
        want
    }

    fn lookup_burst(&mut self, keys: &[(u64, u16)]) {
        let got = self.chip.lookup_burst(keys).expect("lookup burst");
        for (&(k, left), got) in keys.iter().zip(got) {
            let want = self.table.lookup(k, left);
            if got != want {
                self.fail(format!(
                    "lookup {k:#018x} at {left} (burst of {}): chip {got:?}, model {want:?}",
                    keys.len()
                ));
            }
        }
        self.log.push(format!("burst of {}", keys.len()));
    }

    #[allow(clippy::too_many_arguments)]
    fn store(&mut self, k: u64, pn: Pn, dn: Pn, len: u16, bounded: bool, left: u16) -> Placement {
        let (got, cycles) = self
            .chip
            .store(k, pn, dn, len, bounded, left)
            .expect("store");
        *self.store_cycles.entry(cycles).or_default() += 1;
        let want = self.table.store(k, pn, dn, len, bounded, left);
        *self.rules.entry(want).or_default() += 1;
        if got != want {
            self.fail(format!(
                "store {k:#018x} ({pn}, {dn}, {len}, {bounded}) at {left}: chip {got:?}, \
                 model {want:?}"
            ));
        }
        self.log.push(format!(
            "S {k:#x} ({pn}, {dn}, {len}, {bounded}) at {left} {want:?}"
        ));
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

/// The chip and the model in one mode, the chip's reset sweep done.
fn twins(runtime: &tsume::marlin::spade::SpadeRuntime, depth_free: bool) -> Twins<'_> {
    let mut chip = TableChip::new(runtime, None).expect("tt_top model");
    chip.set_depth_free(depth_free);
    chip.wait_ready().expect("the reset's sweep");
    Twins {
        chip,
        table: Model::new(depth_free),
        failures: Vec::new(),
        rules: BTreeMap::new(),
        lookup_cycles: BTreeMap::new(),
        store_cycles: BTreeMap::new(),
        clear_cycles: BTreeMap::new(),
        log: Vec::new(),
    }
}

/// Values as the search stores them (proofs, disproofs, small unsolved numbers with
/// ties), numbers near INF (the saturating sum) and now and then any pair at all (but
/// (0, 0) when `depth_free`: the search never stores it, and the depth-free rules read
/// proofs and disproofs apart).
fn values(rng: &mut StdRng, depth_free: bool) -> (Pn, Pn, u16, bool) {
    let v = any_values(rng);
    if depth_free && v.0 == 0 && v.1 == 0 {
        (0, INF, v.2, v.3)
    } else {
        v
    }
}

fn any_values(rng: &mut StdRng) -> (Pn, Pn, u16, bool) {
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
    random_commands(false);
}

#[test]
fn random_depth_free_commands_match_the_model() {
    random_commands(true);
}

/// Random sequences in one mode, each cleared after; every branch of the rule must be
/// taken, a clear must wrap the generation, and the cycles must be the interface's.
fn random_commands(depth_free: bool) {
    let runtime = common::runtime();
    let seed = seed_from_env();
    let sequences = common::random_count(SEQUENCES);
    let mut rng = StdRng::seed_from_u64(seed ^ 0x7ab1e ^ u64::from(depth_free));
    let mut t = twins(&runtime, depth_free);
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
        // Plies left from a few values, next to the lengths of `values` (0 to 7).
        let left = |rng: &mut StdRng| rng.random_range(0..9u16);
        for _ in 0..rng.random_range(10..80) {
            match rng.random_range(0..100) {
                0..55 => {
                    let (pn, dn, len, bounded) = values(&mut rng, depth_free);
                    let k = pick(&mut rng);
                    let l = left(&mut rng);
                    t.store(k, pn, dn, len, bounded, l);
                }
                55..95 => {
                    let k = pick(&mut rng);
                    let l = left(&mut rng);
                    t.lookup(k, l);
                }
                _ => {
                    let keys: Vec<(u64, u16)> = (0..rng.random_range(1..12))
                        .map(|_| (pick(&mut rng), left(&mut rng)))
                        .collect();
                    t.lookup_burst(&keys);
                }
            }
        }
        // Everything the sequence could have left, read back at every plies left that
        // tells entries apart, then the table emptied.
        let lefts: &[u16] = if depth_free { &[0, 3, 5, 8] } else { &[0] };
        let all: Vec<(u64, u16)> = indices
            .iter()
            .flat_map(|&i| tags.iter().map(move |&tag| key(tag, i)))
            .flat_map(|k| lefts.iter().map(move |&l| (k, l)))
            .collect();
        t.lookup_burst(&all);
        t.clear();
        for (k, l) in all {
            if t.table.lookup(k, l).is_some() {
                t.fail(format!("the model kept {k:#x} through a clear"));
            }
            t.lookup(k, l);
        }
    }
    let mode = if depth_free { "depth-free" } else { "keyed" };
    common::assert_no_failures(
        &t.failures,
        &format!("{mode} commands disagree with the model"),
        seed,
    );
    for rule in Placement::ALL {
        assert!(
            t.rules.get(&rule).copied().unwrap_or(0) > 0,
            "{mode}: branch {rule:?} never taken (seed {seed}, rerun with TSUME_SEED={seed}): \
             {:?}",
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
    let mut t = twins(&runtime, false);
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
        let got = t.store(k(tag), pn, dn, len, false, 0);
        assert_eq!(got, rule, "step {i}: t{tag} ({pn}, {dn}, {len})");
        t.lookup_burst(&(1..=9).map(|g| (k(g), 0)).collect::<Vec<_>>());
    }
    assert!(t.lookup(k(9), 0).is_some() && t.lookup(k(6), 0).is_none());
    // Another set is untouched, and a clear empties this one.
    assert!(t.lookup(key(9, 6), 0).is_none());
    t.clear();
    assert!(t.lookup(k(9), 0).is_none());
    // Sums saturate below INF: three ways at INF - 1 (one of them INF - 1 + INF - 1), the
    // lowest of them goes.
    let near = [
        (1, (INF - 2, 1)),
        (2, (INF - 1, INF - 1)),
        (3, (7, 7)),
        (4, (INF - 1, 3)),
    ];
    for &(tag, (pn, dn)) in &near {
        assert_eq!(t.store(k(tag), pn, dn, 0, false, 0), Empty);
    }
    assert_eq!(t.store(k(5), 1, 1, 0, false, 0), LeastWork);
    assert_eq!(t.store(k(5), 0, INF, 3, false, 0), Overwritten);
    assert_eq!(t.store(k(6), 1, 1, 0, false, 0), LeastWork);
    assert!(t.lookup(k(1), 0).is_none() && t.lookup(k(2), 0).is_some());
    assert_agrees(&t);
}

/// A clear makes every entry unreachable, also when the generation wraps: 300 clears, the
/// wrapping one sweeping the table, and the entry written before them never comes back.
#[test]
fn clears_never_bring_an_entry_back() {
    let runtime = common::runtime();
    let mut t = twins(&runtime, false);
    let k = key(0x1234_5678, 77);
    t.store(k, 0, INF, 5, false, 0);
    t.store(key(7, 77), 3, 4, 0, false, 0);
    for _ in 0..300 {
        t.clear();
        t.lookup(k, 0);
    }
    assert_eq!(t.store(k, 2, 2, 0, false, 0), Placement::Empty);
    assert_agrees(&t);
    let sweeps = t.clear_cycles.iter().filter(|&(&c, _)| c > 1).count();
    assert!(sweeps > 0, "no clear swept the table: {:?}", t.clear_cycles);
}

/// Depth-free entries on one set: several ways of a tag side by side, each store's branch
/// as docs/search.md ("The entry, lookup and store") names it, each lookup by its plies
/// left, the chip checked against the model at every step.
#[test]
fn depth_free_entries_share_a_set() {
    use Placement::*;
    let runtime = common::runtime();
    let mut t = twins(&runtime, true);
    let k = |tag: u32| key(tag, 9);
    let (proof, disproof) = ((0, INF), (INF, 0));
    // (tag, value, length, bounded, plies left, branch)
    type Step = (u32, (Pn, Pn), u16, bool, u16, Placement);
    let steps: &[Step] = &[
        (1, proof, 5, false, 9, Empty),
        // A proof no shorter than one held: nothing written.
        (1, proof, 7, false, 9, KeptProof),
        // Unsolved at 3 plies left: a way of its own beside the proof.
        (1, (2, 2), 0, false, 3, Empty),
        // A shorter proof takes the longer one's way (before the unsolved entry's).
        (1, proof, 3, false, 3, ShorterProof),
        // A bounded disproof at 2 covers neither the proof nor the entry of 3 plies.
        (1, disproof, 0, true, 2, Empty),
        // One at 1 says less than the one at 2.
        (1, disproof, 0, true, 1, KeptDisproof),
        // One at 4 makes the unsolved entry of 3 useless, the first of the tag it does.
        (1, disproof, 0, true, 4, Overwritten),
        (2, (1, 1), 0, false, 5, Empty),
        // Unsolved at another plies left: the victim, the unsolved way of least work.
        (2, (3, 3), 0, false, 6, LeastWork),
        // A final disproof replaces the first bounded one.
        (1, disproof, 0, false, 9, Overwritten),
        (3, proof, 1, false, 1, LeastWork),
        (4, (1, 1), 0, false, 1, Disproven),
    ];
    for (i, &(tag, (pn, dn), len, bounded, left, rule)) in steps.iter().enumerate() {
        let got = t.store(k(tag), pn, dn, len, bounded, left);
        assert_eq!(
            got, rule,
            "step {i}: t{tag} ({pn}, {dn}, {len}, {bounded}) at {left}"
        );
        let probes: Vec<(u64, u16)> = (1..=4)
            .flat_map(|g| [0, 1, 2, 3, 4, 6, 9, 20].map(|l| (k(g), l)))
            .collect();
        t.lookup_burst(&probes);
    }
    // Ways: t1 proof of 3, t4 (1, 1) at 1, t1 bounded disproof at 2, t3 proof of 1.
    let found = |t: &mut Twins, tag, left| t.lookup(k(tag), left).map(|f| (f.pn, f.dn, f.len));
    assert_eq!(found(&mut t, 1, 20), Some((0, INF, 3)));
    assert_eq!(found(&mut t, 1, 2), Some((INF, 0, 0)));
    assert_eq!(found(&mut t, 1, 3), Some((0, INF, 3)));
    assert_eq!(found(&mut t, 3, 0), None);
    assert_eq!(found(&mut t, 4, 1), Some((1, 1, 0)));
    assert_eq!(found(&mut t, 4, 2), None);
    assert_agrees(&t);
}
