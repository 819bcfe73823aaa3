//! The position store and the direct-cover generators in simulation, against the software
//! reference: on the problem suite, on every position of `tests/data` (nshogi's and the
//! famous problems), and on fresh random tsume-like positions each run (seed printed on
//! failure; `TSUME_SEED` repeats it).

mod common;

use tsume::bus::{self, squares_usi};
use tsume::chip::CoverChip;
use tsume::cover::{Direction, direct_cover};
use tsume::position::Position;
use tsume::random::{Kind, TsumeGenerator, seed_from_env};
use tsume::rsshogi::types::{Color, File};

/// Random positions per default test run (`TSUME_RANDOM` overrides).
const DEFAULT_RANDOM: usize = 10_000;
/// Cycles from the first load word to `cover_valid`: ten load words, one cover register.
const COVER_LATENCY: u64 = bus::LOAD_WORDS as u64 + 1;

/// Compare the chip with the reference on one position; a description of every
/// difference, empty when they agree.
fn check(chip: &mut CoverChip, pos: &Position) -> Vec<String> {
    let mut diffs = Vec::new();
    let got = match chip.cover(pos, 4) {
        Ok(got) => got,
        Err(error) => return vec![error.to_string()],
    };
    if got.cycles != COVER_LATENCY {
        diffs.push(format!(
            "cover valid after {} cycles, expected {COVER_LATENCY}",
            got.cycles
        ));
    }
    for (colour_index, colour) in [Color::Black, Color::White].into_iter().enumerate() {
        let want = direct_cover(pos, colour);
        for direction in Direction::ALL {
            let (w, g) = (
                want.by_direction[direction.index()],
                got.by_colour[colour_index][direction.index()],
            );
            if w != g {
                diffs.push(format!(
                    "{colour:?} cover {direction:?}: missing {:?}, extra {:?}",
                    squares_usi(w & !g),
                    squares_usi(g & !w)
                ));
            }
        }
    }
    for (colour_index, colour) in [Color::Black, Color::White].into_iter().enumerate() {
        for file in 0..9u8 {
            let want = pos.pawn_on_file(colour, File::new(file as i8));
            let got = got.pawn_files >> (9 * colour_index + usize::from(file)) & 1 == 1;
            if want != got {
                diffs.push(format!(
                    "{colour:?} pawn on file {}: chip says {got}",
                    file + 1
                ));
            }
        }
    }
    for (addr, word) in bus::load_words(pos) {
        let read = chip.read_word(addr);
        if read != word {
            diffs.push(format!(
                "store word {addr}: wrote {word:#x}, read {read:#x}"
            ));
        }
    }
    diffs
}

/// Compare a batch with the reference on a fresh chip; fails with the first differences.
fn run_batch(label: &str, positions: impl Iterator<Item = (String, Position)>, seed: u64) -> usize {
    let runtime = common::runtime();
    let mut chip = CoverChip::new(&runtime, None).expect("cover_top model");
    let mut failures = Vec::new();
    let mut count = 0;
    for (name, pos) in positions {
        count += 1;
        let diffs = check(&mut chip, &pos);
        if !diffs.is_empty() && failures.len() < 10 {
            failures.push(format!(
                "[{label}] {name} `{}`:\n    {}",
                pos.to_sfen(),
                diffs.join("\n    ")
            ));
        } else if !diffs.is_empty() {
            failures.push(String::new());
        }
    }
    common::assert_no_failures(&failures, "positions disagree with the reference", seed);
    count
}

/// Every position of a `tests/data` folder that is a legal position.
fn data_batch(subdir: &str) -> usize {
    let positions = common::data_positions(subdir)
        .into_iter()
        .filter_map(|(name, sfen)| Position::from_sfen(&sfen).ok().map(|pos| (name, pos)));
    run_batch(subdir, positions, 0)
}

#[test]
fn suite_cover_matches_reference() {
    let positions = common::suite().into_iter().map(|(p, pos)| (p.id, pos));
    assert!(run_batch("suite", positions, 0) > 0);
}

#[test]
fn nshogi_cover_matches_reference() {
    assert!(data_batch("nshogi") > 10_000);
}

#[test]
fn famous_problems_cover_matches_reference() {
    assert!(data_batch("famous") > 50);
}

#[test]
fn random_cover_matches_reference() {
    let seed = seed_from_env();
    let count = common::random_count(DEFAULT_RANDOM);
    let mut generator = TsumeGenerator::new(seed);
    let random = (0..count).map(|i| (format!("random #{i}"), generator.next_position(Kind::Any)));
    run_batch("random", random, seed);
}
