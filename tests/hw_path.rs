//! The search path's position on chip (`path_top`): along random lines of play from random
//! positions, every move applied and then every move taken back must leave the store
//! holding the reference's position and the hash register holding the model's hash of it
//! (`Keys::hash`, src/solver/position_hash.rs) and the table key register the model's table key
//! under a random rule of each line (`KeyRule::key` without plies, src/solver/hands.rs),
//! node for node; the undo's reference is rsshogi's
//! `undo_move`; a load, an apply and an undo take the cycles of docs/search.md. Seed given on
//! failure; `TSUME_SEED` repeats a run.

mod common;

use rand::{Rng, SeedableRng};

use tsume::bus;
use tsume::chip::path::{PathChip, pawn_files};
use tsume::position::Position;
use tsume::random::{Kind, TsumeGenerator, seed_from_env};
use tsume::rsshogi::types::Color;
use tsume::rsshogi::types::Move;
use tsume::solver::hands;
use tsume::solver::position_hash::{KeyRule, Keys};

const LINES: usize = 2_000;
const PLIES: usize = 10;
const MAX_CYCLES: u64 = 200;

/// Moves that change a hand count or promote, and which side made them.
#[derive(Default)]
struct Seen {
    drops: usize,
    captures: usize,
    promoted_captured: usize,
    promotions: usize,
    white: usize,
    black: usize,
}

impl Seen {
    /// The move `mv` of `pos`, which takes the piece of code `taken` (0 for none).
    fn count(&mut self, pos: &Position, mv: Move, taken: u8) {
        if mv.is_drop() {
            self.drops += 1;
        }
        if taken != 0 {
            self.captures += 1;
            self.promoted_captured += usize::from(taken & 0xf > 8);
        }
        self.promotions += usize::from(mv.is_promotion());
        if pos.side_to_move() == Color::White {
            self.white += 1;
        } else {
            self.black += 1;
        }
    }
}

/// Cycle counts: least and most.
#[derive(Debug, PartialEq)]
struct Span(u64, u64);

impl Span {
    fn new() -> Self {
        Span(u64::MAX, 0)
    }
    fn add(&mut self, c: u64) {
        self.0 = self.0.min(c);
        self.1 = self.1.max(c);
    }
}

/// What differs between the chip and the reference position `pos` with hash `hash`, its
/// table key under `rule` included.
fn compare(chip: &mut PathChip, pos: &Position, hash: u64, rule: &KeyRule) -> Vec<String> {
    let mut diffs = Vec::new();
    let key = rule.key(hash, &hands::hands(pos.inner()), 0);
    if chip.table_key() != key {
        diffs.push(format!(
            "table key {:#018x}, expected {key:#018x} (XOR {:#018x}; {} attacks, complete {:?})",
            chip.table_key(),
            chip.table_key() ^ key,
            if rule.attacker == Color::Black {
                "black"
            } else {
                "white"
            },
            rule.complete
        ));
    }
    if chip.hash() != hash {
        diffs.push(format!(
            "hash {:#018x}, expected {hash:#018x} (XOR {:#018x})",
            chip.hash(),
            chip.hash() ^ hash
        ));
    }
    let stored = chip.store_words();
    let want = bus::load_words(pos);
    if stored != want {
        diffs.push(format!("store holds {stored:x?}, expected {want:x?}"));
    }
    if chip.pawn_files() != pawn_files(pos) {
        diffs.push(format!(
            "pawn files {:#07x}, expected {:#07x}",
            chip.pawn_files(),
            pawn_files(pos)
        ));
    }
    diffs
}

/// A random legal move of `pos`, half the time (when there is one) a drop, a capture or a
/// promotion, so that hand counts change often.
fn pick(pos: &Position, rng: &mut impl Rng) -> Option<Move> {
    let legal = common::legal_all(pos.inner());
    let special: Vec<Move> = legal
        .iter()
        .copied()
        .filter(|m| m.is_drop() || m.is_promotion() || pos.piece_on(m.to_sq()).is_some())
        .collect();
    let from = if !special.is_empty() && rng.random_bool(0.5) {
        &special
    } else {
        &legal
    };
    (!from.is_empty()).then(|| from[rng.random_range(0..from.len())])
}

/// What the lines went through: the kinds of moves, and the cycles of each step.
struct Tally {
    seen: Seen,
    load: Span,
    apply: Span,
    undo: Span,
}

/// The table key's rule of a line: most lines with hand superiority, either side
/// attacking, any kinds complete.
fn line_rule(rng: &mut impl Rng) -> KeyRule {
    KeyRule {
        hand_superiority: rng.random_bool(0.9),
        depth_free: true,
        attacker: if rng.random_bool(0.5) {
            Color::Black
        } else {
            Color::White
        },
        complete: std::array::from_fn(|_| rng.random_bool(0.5)),
    }
}

/// Line `line` from `root`: loaded, played forward (moves picked with `rng`), then taken
/// back to the root, the chip compared with the reference at every node; the first
/// difference, as a failure.
fn follow_line(
    chip: &mut PathChip,
    rng: &mut impl Rng,
    rule: &KeyRule,
    root: &Position,
    line: usize,
    tally: &mut Tally,
) -> Result<(), String> {
    let root_hash = Keys::get().hash(root.inner());
    match chip.load_hashed(root, MAX_CYCLES) {
        Ok(c) => tally.load.add(c),
        Err(e) => return Err(format!("line {line}: load of `{}`: {e:#}", root.to_sfen())),
    }
    let diffs = compare(chip, root, root_hash, rule);
    if !diffs.is_empty() {
        return Err(format!(
            "line {line}: after the load of `{}`:\n    {}",
            root.to_sfen(),
            diffs.join("\n    ")
        ));
    }
    // The reference board that makes and takes back the moves (rsshogi's apply_move
    // and undo_move), and the positions of the line with their hashes.
    let mut board = root.inner().clone_compact();
    let mut positions = vec![(root.clone(), root_hash)];
    let made = play_forward(chip, rng, rule, &mut board, &mut positions, line, tally)?;
    take_back(chip, rule, &mut board, positions, made, line, tally)
}

/// Up to PLIES moves from the last of `positions`, made on the chip and on `board`, the
/// positions reached pushed on `positions`: the moves with the chip's undo records.
fn play_forward(
    chip: &mut PathChip,
    rng: &mut impl Rng,
    rule: &KeyRule,
    board: &mut tsume::rsshogi::board::Position,
    positions: &mut Vec<(Position, u64)>,
    line: usize,
    tally: &mut Tally,
) -> Result<Vec<(Move, u8)>, String> {
    let keys = Keys::get();
    let mut made: Vec<(Move, u8)> = Vec::new();
    for ply in 0..PLIES {
        let (pos, hash) = positions.last().expect("the root").clone();
        let Some(mv) = pick(&pos, rng) else {
            break;
        };
        let taken = (!mv.is_drop())
            .then(|| pos.piece_on(mv.to_sq()))
            .flatten()
            .map_or(0, |(colour, kind)| bus::piece_code(colour, kind));
        tally.seen.count(&pos, mv, taken);
        let next = pos.after(mv);
        board.apply_move(mv);
        let next_hash = keys.hash(next.inner());
        let model_hash = keys.after(pos.inner(), hash, mv);
        assert_eq!(model_hash, next_hash, "the model's own incremental hash");
        let step = chip.apply(mv, MAX_CYCLES);
        let mut diffs = match &step {
            Ok(a) => {
                tally.apply.add(a.cycles);
                compare(chip, &next, next_hash, rule)
            }
            Err(e) => vec![format!("{e:#}")],
        };
        if let Ok(a) = &step
            && a.captured != taken
        {
            diffs.push(format!(
                "undo record {:#x}, expected {taken:#x}",
                a.captured
            ));
        }
        if !diffs.is_empty() {
            return Err(format!(
                "line {line} ply {ply}: `{}` + {}:\n    {}",
                pos.to_sfen(),
                mv.to_usi(),
                diffs.join("\n    ")
            ));
        }
        made.push((mv, taken));
        positions.push((next, next_hash));
    }
    Ok(made)
}

/// Back to the root, one move at a time, with the record the chip gave at apply, the
/// reference board taken back by rsshogi's `undo_move`.
fn take_back(
    chip: &mut PathChip,
    rule: &KeyRule,
    board: &mut tsume::rsshogi::board::Position,
    mut positions: Vec<(Position, u64)>,
    mut made: Vec<(Move, u8)>,
    line: usize,
    tally: &mut Tally,
) -> Result<(), String> {
    let keys = Keys::get();
    while let Some((mv, record)) = made.pop() {
        let after = positions.pop().expect("the position after the move").0;
        let (before, hash) = positions.last().expect("the position before").clone();
        board.undo_move(mv).expect("undo of a move just made");
        assert_eq!(
            board.to_sfen(None),
            before.inner().to_sfen(None),
            "rsshogi's undo_move gives the position before the move"
        );
        assert_eq!(
            keys.hash(board),
            hash,
            "the model's hash of the undone board"
        );
        let diffs = match chip.undo(mv, record, MAX_CYCLES) {
            Ok(c) => {
                tally.undo.add(c);
                compare(chip, &before, hash, rule)
            }
            Err(e) => vec![format!("{e:#}")],
        };
        if !diffs.is_empty() {
            return Err(format!(
                "line {line}, undo of {} from `{}` (record {record:#x}):\n    {}",
                mv.to_usi(),
                after.to_sfen(),
                diffs.join("\n    ")
            ));
        }
    }
    Ok(())
}

#[test]
fn hash_and_store_follow_moves_and_undo() {
    let runtime = common::runtime();
    let mut chip = PathChip::new(&runtime, None).expect("path_top model");
    let seed = seed_from_env();
    let mut generator = TsumeGenerator::new(seed);
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ 0x9a7_0001);
    let mut failures = Vec::new();
    let mut tally = Tally {
        seen: Seen::default(),
        load: Span::new(),
        apply: Span::new(),
        undo: Span::new(),
    };
    let mut rules_seen = [0usize; 2];
    for line in 0..LINES {
        let root = generator.next_position(Kind::Any);
        let rule = line_rule(&mut rng);
        rules_seen[usize::from(rule.hand_superiority)] += 1;
        chip.set_key_rule(&rule);
        if let Err(failure) = follow_line(&mut chip, &mut rng, &rule, &root, line, &mut tally) {
            failures.push(failure);
        }
    }
    common::assert_no_failures(&failures, "lines disagree with the reference", seed);
    let seen = &tally.seen;
    assert!(
        seen.drops > 0
            && seen.captures > 0
            && seen.promoted_captured > 0
            && seen.promotions > 0
            && seen.white > 0
            && seen.black > 0,
        "the lines missed a kind of move (seed {seed})"
    );
    assert!(
        rules_seen.iter().all(|&n| n > 0),
        "the lines missed a table key rule (seed {seed}): {rules_seen:?}"
    );
    // The cycles of docs/search.md's table: from the hands word, or from the request, to
    // hash_valid.
    assert_eq!(
        [tally.load, tally.apply, tally.undo],
        [Span(52, 52), Span(7, 7), Span(7, 7)],
        "the cycles (least, most) of a load, an apply and an undo (seed {seed})"
    );
}

/// A load stops the sweep or the move under way: the hash that follows is the new
/// position's, whatever the cycle the load came in.
#[test]
fn a_load_starts_the_hash_again() {
    let runtime = common::runtime();
    let mut chip = PathChip::new(&runtime, None).expect("path_top model");
    let seed = seed_from_env();
    let mut generator = TsumeGenerator::new(seed);
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ 0x10ad);
    let keys = Keys::get();
    let mut failures = Vec::new();
    // The table key follows the load too (black attacks, the pawns incomplete).
    let rule = KeyRule {
        hand_superiority: true,
        depth_free: true,
        attacker: Color::Black,
        complete: [false, true, true, true, true, true, true],
    };
    chip.set_key_rule(&rule);
    for round in 0..120 {
        let first = generator.next_position(Kind::Any);
        let second = generator.next_position(Kind::Any);
        let (into, waited) = if round % 2 == 0 {
            chip.load(&first);
            ("the sweep of", round % 52)
        } else {
            chip.load_hashed(&first, MAX_CYCLES).expect("first load");
            let Some(mv) = pick(&first, &mut rng) else {
                continue;
            };
            let model = chip.model_mut();
            model.apply_valid = 1;
            model.apply_move = bus::encode_move(mv);
            chip.tick();
            chip.model_mut().apply_valid = 0;
            ("a move of", round % 6)
        };
        for _ in 0..waited {
            chip.tick();
        }
        match chip.load_hashed(&second, MAX_CYCLES) {
            Ok(_) => {
                let diffs = compare(&mut chip, &second, keys.hash(second.inner()), &rule);
                if !diffs.is_empty() {
                    failures.push(format!(
                        "round {round}: `{}` loaded {waited} cycles into {into} `{}`:\n    {}",
                        second.to_sfen(),
                        first.to_sfen(),
                        diffs.join("\n    ")
                    ));
                }
            }
            Err(e) => failures.push(format!("round {round}: {e:#}")),
        }
    }
    common::assert_no_failures(&failures, "loads disagree with the reference", seed);
}
