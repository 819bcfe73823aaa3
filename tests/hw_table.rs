//! The transposition table in simulation (`tt_top`, hdl/search/tt_top.spade around
//! hdl/search/transposition_table.spade) against its models, in every mode: keyed by
//! plies left, src/solver/transposition_table.rs `Table`; depth-free entries, hand
//! superiority, or both, src/solver/pieces.rs `PieceTable` of the same switches. Every
//! lookup must answer the same (the pieces too) and every store
//! take the same branch of the replacement rule. Fresh random command sequences each run
//! and mode (seed given on failure; `TSUME_SEED` repeats a run, `TSUME_RANDOM` sets the
//! number of sequences), their keys crowded into a few sets, their plies left into a few
//! values and their hands into a few hands so that every branch is taken, the table
//! cleared between sequences; fixed walks through the rules on one set; and an entry that
//! 300 clears, past the wrap of the table's generation, never bring back.

mod common;

use std::collections::BTreeMap;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use tsume::chip::table::{LOOKUP_LATENCY, STORE_CYCLES, TableChip, chip_geometry};
use tsume::random::seed_from_env;
use tsume::solver::hands::{EMPTY, FULL, Hand};
use tsume::solver::pieces::{Hit, PieceTable, Probe};
use tsume::solver::transposition_table::{Placement, Table};
use tsume::solver::values::{INF, Pn, TABLE_MAX};

/// Command sequences per default run, each followed by a clear; more than 256, so that
/// the 8-bit generation wraps and the table is swept at least once.
const SEQUENCES: usize = 2_000;

/// The chip's table switches: (depth-free entries, hand superiority).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mode {
    depth_free: bool,
    hands: bool,
}

const KEYED: Mode = Mode {
    depth_free: false,
    hands: false,
};
const DEPTH_FREE: Mode = Mode {
    depth_free: true,
    hands: false,
};
const HANDS: Mode = Mode {
    depth_free: false,
    hands: true,
};
const PIECES: Mode = Mode {
    depth_free: true,
    hands: true,
};

impl Mode {
    fn name(self) -> &'static str {
        match (self.depth_free, self.hands) {
            (false, false) => "keyed",
            (true, false) => "depth-free",
            (false, true) => "hands",
            (true, true) => "pieces",
        }
    }
}

/// The table's model in one of the chip's modes.
enum Model {
    Keyed(Table),
    Pieces(PieceTable),
}

impl Model {
    /// The model with the chip's geometry in `mode`.
    fn new(mode: Mode) -> Model {
        let (index_bits, _, ways) = chip_geometry().expect("tt_top's geometry");
        if mode == KEYED {
            Model::Keyed(Table::new(index_bits, ways))
        } else {
            Model::Pieces(
                PieceTable::try_new(index_bits, ways, mode.hands, mode.depth_free).unwrap(),
            )
        }
    }

    fn probe(key: u64, left: u16, hand: &Hand) -> Probe {
        Probe {
            key,
            hand: *hand,
            left: u32::from(left),
        }
    }

    /// The model's answer; the keyed table keeps no hands, so its pieces read as the
    /// chip's (`chip_pieces`), whatever those are.
    fn lookup(&self, key: u64, left: u16, hand: &Hand, chip_pieces: Hand) -> Option<Hit> {
        match self {
            Model::Keyed(t) => t.lookup(key).map(|f| Hit {
                pn: f.pn,
                dn: f.dn,
                len: f.len,
                bounded: f.bounded,
                pieces: chip_pieces,
            }),
            Model::Pieces(t) => t.lookup(Model::probe(key, left, hand)),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn store(
        &mut self,
        key: u64,
        (pn, dn, len, bounded): (Pn, Pn, u16, bool),
        left: u16,
        hand: &Hand,
        pieces: &Hand,
    ) -> Placement {
        match self {
            Model::Keyed(t) => t.store(key, pn, dn, len, bounded),
            Model::Pieces(t) => {
                t.store(Model::probe(key, left, hand), pn, dn, len, bounded, *pieces)
            }
        }
    }

    fn clear(&mut self) {
        match self {
            Model::Keyed(t) => t.clear(),
            Model::Pieces(t) => t.clear(),
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

    fn lookup(&mut self, k: u64, left: u16) -> Option<Hit> {
        self.lookup_with(k, left, &EMPTY)
    }

    fn lookup_with(&mut self, k: u64, left: u16, hand: &Hand) -> Option<Hit> {
        let (got, cycles) = self.chip.lookup(k, left, hand).expect("lookup");
        *self.lookup_cycles.entry(cycles).or_default() += 1;
        let want = self.model_lookup(k, left, hand, got);
        if got != want {
            self.fail(format!(
                "lookup {k:#018x} at {left} with {hand:?}: chip {got:?}, model {want:?}"
            ));
        }
        self.log.push(format!("L {k:#x} at {left} with {hand:?}"));
        want
    }

    fn model_lookup(&self, k: u64, left: u16, hand: &Hand, got: Option<Hit>) -> Option<Hit> {
        let chip_pieces = got.map_or(EMPTY, |h| h.pieces);
        self.table.lookup(k, left, hand, chip_pieces)
    }

    fn lookup_burst(&mut self, keys: &[(u64, u16)]) {
        let with: Vec<(u64, u16, Hand)> = keys.iter().map(|&(k, l)| (k, l, EMPTY)).collect();
        self.lookup_burst_with(&with);
    }

    fn lookup_burst_with(&mut self, keys: &[(u64, u16, Hand)]) {
        let got = self.chip.lookup_burst(keys).expect("lookup burst");
        for (&(k, left, hand), got) in keys.iter().zip(got) {
            let want = self.model_lookup(k, left, &hand, got);
            if got != want {
                self.fail(format!(
                    "lookup {k:#018x} at {left} with {hand:?} (burst of {}): chip {got:?}, \
                     model {want:?}",
                    keys.len()
                ));
            }
        }
        self.log.push(format!("burst of {}", keys.len()));
    }

    #[allow(clippy::too_many_arguments)]
    fn store(&mut self, k: u64, pn: Pn, dn: Pn, len: u16, bounded: bool, left: u16) -> Placement {
        self.store_with(k, (pn, dn, len, bounded), left, &EMPTY, &EMPTY)
    }

    fn store_with(
        &mut self,
        k: u64,
        value: (Pn, Pn, u16, bool),
        left: u16,
        hand: &Hand,
        pieces: &Hand,
    ) -> Placement {
        let (pn, dn, len, bounded) = value;
        let (got, cycles) = self
            .chip
            .store(k, pn, dn, len, bounded, left, hand, pieces)
            .expect("store");
        *self.store_cycles.entry(cycles).or_default() += 1;
        let want = self.table.store(k, value, left, hand, pieces);
        *self.rules.entry(want).or_default() += 1;
        if got != want {
            self.fail(format!(
                "store {k:#018x} ({pn}, {dn}, {len}, {bounded}) at {left} with {hand:?}, \
                 pieces {pieces:?}: chip {got:?}, model {want:?}"
            ));
        }
        self.log.push(format!(
            "S {k:#x} ({pn}, {dn}, {len}, {bounded}) at {left} with {hand:?} / {pieces:?} {want:?}"
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
fn twins(runtime: &tsume::marlin::spade::SpadeRuntime, mode: Mode) -> Twins<'_> {
    let mut chip = TableChip::new(runtime, None).expect("tt_top model");
    chip.set_depth_free(mode.depth_free);
    chip.set_hand_superiority(mode.hands);
    chip.wait_ready().expect("the reset's sweep");
    Twins {
        chip,
        table: Model::new(mode),
        failures: Vec::new(),
        rules: BTreeMap::new(),
        lookup_cycles: BTreeMap::new(),
        store_cycles: BTreeMap::new(),
        clear_cycles: BTreeMap::new(),
        log: Vec::new(),
    }
}

/// Values as the search stores them (proofs, disproofs, small unsolved numbers with
/// ties), numbers near INF (the saturating sum) and near the table's 24-bit limit, and now
/// and then any pair at all (but (0, 0) in the pieces table: the search never stores it,
/// and the pieces table's rules read proofs and disproofs apart).
fn values(rng: &mut StdRng, pieces: bool) -> (Pn, Pn, u16, bool) {
    let v = any_values(rng);
    if pieces && v.0 == 0 && v.1 == 0 {
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
        80..86 => {
            let near = |rng: &mut StdRng| TABLE_MAX - 1 + rng.random_range(0..4);
            (near(rng), near(rng), len, bounded)
        }
        86..92 => {
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
    random_commands(KEYED);
}

#[test]
fn random_depth_free_commands_match_the_model() {
    random_commands(DEPTH_FREE);
}

#[test]
fn random_hand_superiority_commands_match_the_model() {
    random_commands(HANDS);
}

#[test]
fn random_pieces_table_commands_match_the_model() {
    random_commands(PIECES);
}

/// A few hands of small counts (now and then a full kind), which the sequence's lookups
/// and stores pick from, so that hands compare every way.
fn hand_pool(rng: &mut StdRng) -> Vec<Hand> {
    (0..rng.random_range(2..5))
        .map(|_| {
            std::array::from_fn(|k| {
                if rng.random_bool(0.05) {
                    FULL[k]
                } else {
                    rng.random_range(0..=FULL[k].min(2))
                }
            })
        })
        .collect()
}

/// Random sequences in one mode, each cleared after; every branch of the rule must be
/// taken, a clear must wrap the generation, and the cycles must be the interface's.
fn random_commands(mode: Mode) {
    let runtime = common::runtime();
    let seed = seed_from_env();
    let sequences = common::random_count(SEQUENCES);
    let salt = u64::from(mode.depth_free) | u64::from(mode.hands) << 1;
    let mut rng = StdRng::seed_from_u64(seed ^ 0x7ab1e ^ salt);
    let mut t = twins(&runtime, mode);
    let pieces_table = mode != KEYED;
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
        let hands = hand_pool(&mut rng);
        let hand = |rng: &mut StdRng| hands[rng.random_range(0..hands.len())];
        for _ in 0..rng.random_range(10..80) {
            match rng.random_range(0..100) {
                0..55 => {
                    let value = values(&mut rng, pieces_table);
                    let k = pick(&mut rng);
                    let l = left(&mut rng);
                    let (h, p) = (hand(&mut rng), hand(&mut rng));
                    t.store_with(k, value, l, &h, &p);
                }
                55..95 => {
                    let k = pick(&mut rng);
                    let l = left(&mut rng);
                    let h = hand(&mut rng);
                    t.lookup_with(k, l, &h);
                }
                _ => {
                    let keys: Vec<(u64, u16, Hand)> = (0..rng.random_range(1..12))
                        .map(|_| (pick(&mut rng), left(&mut rng), hand(&mut rng)))
                        .collect();
                    t.lookup_burst_with(&keys);
                }
            }
        }
        // Everything the sequence could have left, read back at every plies left and
        // hand that tells entries apart, then the table emptied.
        let lefts: &[u16] = if mode.depth_free { &[0, 3, 5, 8] } else { &[0] };
        let probe_hands: Vec<Hand> = if mode.hands {
            hands.clone()
        } else {
            vec![EMPTY]
        };
        let all: Vec<(u64, u16, Hand)> = indices
            .iter()
            .flat_map(|&i| tags.iter().map(move |&tag| key(tag, i)))
            .flat_map(|k| lefts.iter().map(move |&l| (k, l)))
            .flat_map(|(k, l)| probe_hands.iter().map(move |&h| (k, l, h)))
            .collect();
        t.lookup_burst_with(&all);
        t.clear();
        for (k, l, h) in all {
            if t.table.lookup(k, l, &h, EMPTY).is_some() {
                t.fail(format!("the model kept {k:#x} through a clear"));
            }
            t.lookup_with(k, l, &h);
        }
    }
    let mode = mode.name();
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
    let mut t = twins(&runtime, KEYED);
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
    // Numbers past the table's 24 bits are kept at TABLE_MAX; sums of them order the
    // unsolved ways: (7, 7) goes first, then the lowest of TABLE_MAX + 1 (from INF - 2,
    // 1), TABLE_MAX + 3 and 2 TABLE_MAX.
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
    assert!(t.lookup(k(3), 0).is_none());
    assert_eq!(t.store(k(5), 0, INF, 3, false, 0), Overwritten);
    assert_eq!(t.store(k(6), 1, 1, 0, false, 0), LeastWork);
    assert!(t.lookup(k(1), 0).is_none() && t.lookup(k(2), 0).is_some());
    let kept = t.lookup(k(4), 0).map(|h| (h.pn, h.dn));
    assert_eq!(kept, Some((TABLE_MAX, 3)));
    assert_agrees(&t);
}

/// A clear makes every entry unreachable, also when the generation wraps: 300 clears, the
/// wrapping one sweeping the table, and the entry written before them never comes back.
#[test]
fn clears_never_bring_an_entry_back() {
    let runtime = common::runtime();
    let mut t = twins(&runtime, KEYED);
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
    let mut t = twins(&runtime, DEPTH_FREE);
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

/// Hand superiority with depth-free entries on one set: a proof answers for hands that
/// hold its proof pieces within its length, a disproof for hands its disproof pieces hold
/// within its plies, an unsolved entry for its own hand alone; each step against the
/// model (its branch and every answer, the pieces too).
#[test]
fn hands_apply_by_superiority() {
    use Placement::*;
    let runtime = common::runtime();
    let mut t = twins(&runtime, PIECES);
    let k = |tag: u32| key(tag, 3);
    let (proof, disproof) = ((0, INF), (INF, 0));
    let pp: Hand = [1, 0, 0, 0, 0, 0, 1];
    let dp: Hand = [2, 0, 0, 0, 0, 0, 4];
    let one_pawn: Hand = [1, 0, 0, 0, 0, 0, 0];
    let found = |t: &mut Twins, tag, left, hand: Hand| {
        t.lookup_with(k(tag), left, &hand)
            .map(|h| (h.pn, h.dn, h.len, h.pieces))
    };
    let store = |t: &mut Twins, tag, (pn, dn), len, bounded, left, hand: Hand, pieces: Hand| {
        t.store_with(k(tag), (pn, dn, len, bounded), left, &hand, &pieces)
    };
    assert_eq!(
        store(&mut t, 1, proof, 5, false, 9, [2, 0, 0, 0, 0, 0, 1], pp),
        Empty
    );
    // More pieces and plies: proven, with the entry's pieces; a gold fewer, or too few
    // plies: not found.
    assert_eq!(
        found(&mut t, 1, 7, [3, 1, 0, 0, 0, 0, 1]),
        Some((0, INF, 5, pp))
    );
    assert_eq!(found(&mut t, 1, 7, [3, 1, 0, 0, 0, 0, 0]), None);
    assert_eq!(found(&mut t, 1, 3, [3, 1, 0, 0, 0, 0, 1]), None);
    // A proof of as many pieces and more plies says nothing new.
    assert_eq!(
        store(&mut t, 1, proof, 7, false, 9, [2, 0, 0, 0, 0, 0, 1], pp),
        KeptProof
    );
    // A disproof of the pawn holder, bounded at 6 plies: it answers for hands within its
    // disproof pieces, at no more plies left.
    assert_eq!(store(&mut t, 2, disproof, 0, true, 6, one_pawn, dp), Empty);
    assert_eq!(
        found(&mut t, 2, 4, [2, 0, 0, 0, 0, 0, 3]),
        Some((INF, 0, 0, dp))
    );
    assert_eq!(found(&mut t, 2, 8, [2, 0, 0, 0, 0, 0, 3]), None);
    assert_eq!(found(&mut t, 2, 4, [3, 0, 0, 0, 0, 0, 0]), None);
    // An unsolved entry at 8 plies left: its own hand only.
    assert_eq!(
        store(&mut t, 2, (3, 2), 0, false, 8, one_pawn, EMPTY),
        Empty
    );
    assert_eq!(found(&mut t, 2, 8, one_pawn), Some((3, 2, 0, one_pawn)));
    assert_eq!(found(&mut t, 2, 8, [2, 0, 0, 0, 0, 0, 0]), None);
    // A final disproof takes the bounded one's way and answers at any plies left.
    assert_eq!(
        store(&mut t, 2, disproof, 0, false, 8, one_pawn, dp),
        Overwritten
    );
    assert_eq!(
        found(&mut t, 2, 20, [0, 0, 0, 0, 0, 0, 1]),
        Some((INF, 0, 0, dp))
    );
    let probes: Vec<(u64, u16, Hand)> = [1, 2]
        .into_iter()
        .flat_map(|g| [0, 4, 8, 20].map(|l| (k(g), l)))
        .flat_map(|(kk, l)| [EMPTY, pp, dp, one_pawn, FULL].map(|h| (kk, l, h)))
        .collect();
    t.lookup_burst_with(&probes);
    assert_agrees(&t);
}
