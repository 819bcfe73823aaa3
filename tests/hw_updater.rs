//! The position updater in simulation: a move applied on chip (two cycles) must leave the
//! store holding exactly the reference's position after that move, and the chip's next
//! list must be the reference's list for it. Walks random lines of play from random
//! positions (seed printed on failure; `TSUME_SEED` repeats a run).

mod common;

use tsume::bus;
use tsume::chip::MovegenChip;
use tsume::random::{Kind, TsumeGenerator, seed_from_env};
use tsume::reference::tsume_moves;

use rand::{Rng, SeedableRng};

const LINES: usize = 1_500;
const PLIES: usize = 6;

#[test]
fn applied_moves_match_reference() {
    let runtime = common::runtime();
    let mut chip = MovegenChip::new(&runtime, None).expect("movegen_top model");
    let seed = seed_from_env();
    let mut generator = TsumeGenerator::new(seed);
    let mut pick = rand::rngs::StdRng::seed_from_u64(seed ^ 0x5eed);
    let mut failures = Vec::new();
    for line in 0..LINES {
        let mut pos = generator.next_position(Kind::Any);
        chip.generate(&pos, 2_000).expect("first list");
        for ply in 0..PLIES {
            let list = tsume_moves(&pos);
            if list.moves.is_empty() {
                break;
            }
            let mv = list.moves[pick.random_range(0..list.moves.len())].mv;
            let before = pos.to_sfen();
            pos = pos.after(mv);
            let got = chip.apply(mv, 2_000).expect("list after the move");
            let stored: Vec<(u8, u64)> = (0..bus::LOAD_WORDS as u8)
                .map(|a| (a, chip.read_word(a)))
                .collect();
            let mut diffs = Vec::new();
            if stored != bus::load_words(&pos) {
                diffs.push(format!(
                    "store holds {stored:x?}, expected {:x?}",
                    bus::load_words(&pos)
                ));
            }
            let want: std::collections::BTreeSet<_> = tsume_moves(&pos)
                .moves
                .iter()
                .map(|m| (m.mv.to_usi(), m.category.as_str()))
                .collect();
            let have: std::collections::BTreeSet<_> = got
                .moves
                .iter()
                .map(|m| (m.mv.to_usi(), m.category.as_str()))
                .collect();
            if want != have {
                diffs.push(format!(
                    "list differs: missing {:?}, extra {:?}",
                    want.difference(&have),
                    have.difference(&want)
                ));
            }
            if !diffs.is_empty() {
                failures.push(format!(
                    "line {line} ply {ply}: `{before}` + {}:\n    {}",
                    mv.to_usi(),
                    diffs.join("\n    ")
                ));
                break;
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} lines disagree (seed {seed}, rerun with TSUME_SEED={seed}):\n{}",
        failures.len(),
        failures
            .iter()
            .take(6)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
