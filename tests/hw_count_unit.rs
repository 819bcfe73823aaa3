//! The count unit on the simulated chip (`count_unit_top`) against the model's
//! `Estimate::Attacked` (src/solver/count_estimate.rs): on fresh random OR positions
//! (tsume-like, with checks; seed printed on failure, `TSUME_SEED` repeats a run,
//! `TSUME_RANDOM` sets the number of positions), for every check of each position, the
//! unit's estimate is the model's, and its node signals (the ring masks and the kinds in
//! the defender's hand) are the model's. The comparison is shown live: the estimates seen
//! span many values, and a few checks worked out by hand give their known estimates.

mod common;

use std::collections::BTreeMap;

use tsume::chip::count::{ChipNode, CountChip};
use tsume::position::Position;
use tsume::random::{Kind as Draw, TsumeGenerator, seed_from_env};
use tsume::rsshogi::types::{Bitboard, Move, Square};
use tsume::solver::Kind;
use tsume::solver::count_estimate::{Estimate, NodeSignals, estimate};
use tsume::solver::moves::node_moves;

/// Random positions per default run.
const POSITIONS: usize = 6_000;

/// The ring mask of `b` around `king` as the chip orders it: bit d for the neighbour in
/// direction d (0 N, 1 NE, 2 E, 3 SE, 4 S, 5 SW, 6 W, 7 NW; north is rank a, east file 1).
fn ring8(king: Square, b: Bitboard) -> u8 {
    const STEPS: [(i8, i8); 8] = [
        (0, -1),
        (-1, -1),
        (-1, 0),
        (-1, 1),
        (0, 1),
        (1, 1),
        (1, 0),
        (1, -1),
    ];
    let (f, r) = (king.raw() / 9, king.raw() % 9);
    let mut m = 0;
    for (d, (df, dr)) in STEPS.into_iter().enumerate() {
        let (nf, nr) = (f + df, r + dr);
        if (0..9).contains(&nf) && (0..9).contains(&nr) && b.test(Square::new(nf * 9 + nr)) {
            m |= 1 << d;
        }
    }
    m
}

/// The model's node signals as the chip keeps them.
fn model_node(node: &NodeSignals) -> ChipNode {
    ChipNode {
        attacked: ring8(node.king(), node.attacked()),
        attacked2: ring8(node.king(), node.attacked2()),
        hand_kinds: node.hand_kinds() as u8,
    }
}

/// Compare the chip with the model on every check of `pos`: the differences, and the
/// estimates seen counted into `seen`.
fn check(chip: &mut CountChip, pos: &Position, seen: &mut BTreeMap<u8, usize>) -> Vec<String> {
    let board = pos.inner();
    let node = NodeSignals::of(board);
    let got = chip.load_node(pos);
    let want = model_node(&node);
    let mut diffs = Vec::new();
    if got != want {
        diffs.push(format!("node: chip {got:?}, model {want:?}"));
    }
    let mut moves = Vec::new();
    node_moves(board, Kind::Or, &mut moves);
    // One check a cycle, as EXPAND gives them; a difference is looked at again alone,
    // for its terms.
    let streamed = chip.estimates_streamed(&moves);
    for (mv, got) in moves.into_iter().zip(streamed) {
        let want = estimate(board, &node, Estimate::Attacked, mv) as u8;
        *seen.entry(got).or_default() += 1;
        if got != want {
            chip.estimate(mv);
            diffs.push(format!(
                "{}: chip {got} (squares, takers, between, direct, discovered: {:?}), model {want}",
                mv.to_usi(),
                chip.terms()
            ));
        }
    }
    diffs
}

#[test]
fn count_unit_matches_the_model_on_random_positions() {
    let seed = seed_from_env();
    let count = common::random_count(POSITIONS);
    let runtime = common::runtime();
    let mut chip = CountChip::new(&runtime, None).expect("count_unit_top model");
    let mut generator = TsumeGenerator::new(seed);
    let mut seen = BTreeMap::new();
    let mut failures = Vec::new();
    for i in 0..count {
        let pos = generator.next_position(Draw::Checks);
        let diffs = check(&mut chip, &pos, &mut seen);
        if !diffs.is_empty() {
            failures.push(format!(
                "random #{i} `{}`:\n    {}",
                pos.to_sfen(),
                diffs.join("\n    ")
            ));
        }
    }
    common::assert_no_failures(&failures, "positions disagree with the model", seed);
    // A live comparison: many checks, and estimates over the whole range.
    let checks: usize = seen.values().sum();
    eprintln!("{count} positions, {checks} checks; estimates seen (estimate: checks): {seen:?}");
    assert!(checks > 1_000, "seed {seed}: only {checks} checks");
    // Both clamps (1 and 31) and most values between: every term of the sum shows.
    assert!(
        seen.len() >= 20 && seen.contains_key(&1) && seen.contains_key(&31),
        "seed {seed}: the estimates seen span only {:?}",
        seen.keys().collect::<Vec<_>>()
    );
}

/// The model's checks worked out by hand (count_estimate.rs's
/// `estimates_of_checks_by_hand`, the `attacked` column: where it differs from `ring` and
/// `checker`, a unit that computed those would fail here), and every other check of
/// those positions as the model gives it.
#[test]
fn count_unit_gives_the_known_estimates() {
    let cases = [
        ("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1", "G*5b", 1),
        ("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1", "G*4b", 3),
        ("4k4/9/9/9/9/9/9/9/9 b R2B4G4S4N4L18Pr 1", "R*5e", 7),
        ("4ks3/9/9/9/9/9/9/9/9 b G2r2b3g3s4n4l18p 1", "G*5b", 2),
        ("4k4/9/3P5/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1", "G*4b", 2),
    ];
    let runtime = common::runtime();
    let mut chip = CountChip::new(&runtime, None).expect("count_unit_top model");
    for (sfen, usi, want) in cases {
        let pos = common::pos(sfen);
        chip.load_node(&pos);
        let mv = Move::from_usi(usi).unwrap();
        let got = chip.estimate(mv);
        assert_eq!(got, want, "{sfen} {usi}");
        let mut seen = BTreeMap::new();
        assert!(check(&mut chip, &pos, &mut seen).is_empty(), "{sfen}");
    }
}
