//! The move generator in simulation against the software reference: every legal check, or
//! every legal evasion when the side to move is in check, each with its category, on the
//! problem suite, on `../shared/data` (and the evasion positions after each of their
//! checks) and on fresh random tsume-like positions, half of them in check (seed printed
//! on failure; `TSUME_SEED` repeats a run); the stream under back-pressure; lists cut
//! short by a new position; lists abandoned (`cancel`) at every cycle of their
//! pipeline; and thousands of pawn-drop-mate positions, every kind of taker among them.

mod common;

use std::collections::BTreeSet;

use tsume::hw::{self, MovegenChip};
use tsume::position::Position;
use tsume::random::{Kind, TsumeGenerator, seed_from_env};

use rand::{Rng, SeedableRng};
use rsshogi::types::Square;
use tsume::reference::{Mode, tsume_moves};

const DEFAULT_RANDOM: usize = 10_000;
/// Far more than any list needs: a missing end beat fails instead of hanging.
const MAX_CYCLES: u64 = 2_000;

type MoveKey = (String, &'static str);

fn key_set(moves: &[tsume::reference::TsumeMove]) -> BTreeSet<MoveKey> {
    moves
        .iter()
        .map(|m| (m.mv.to_usi(), m.category.as_str()))
        .collect()
}

/// Differences between chip and reference on one position (empty when they agree).
fn check(chip: &mut MovegenChip, pos: &Position, stats: &mut Stats) -> Option<String> {
    outcome(pos, chip.generate(pos, MAX_CYCLES), stats)
}

/// Differences between the chip's answer `got` for `pos` (a list, or why none came) and
/// the reference's.
fn outcome(
    pos: &Position,
    got: anyhow::Result<hw::ChipMoves>,
    stats: &mut Stats,
) -> Option<String> {
    match got {
        Ok(got) => differences(pos, &got, stats),
        Err(error) => Some(error.to_string()),
    }
}

/// Differences between the chip's list `got` and the reference's for `pos`.
fn differences(pos: &Position, got: &hw::ChipMoves, stats: &mut Stats) -> Option<String> {
    let want = tsume_moves(pos);
    if got.in_check != (want.mode == Mode::Evasions) {
        return Some(format!(
            "chip in_check = {}, reference mode {:?}",
            got.in_check, want.mode
        ));
    }
    let s = if got.in_check {
        &mut stats.evasions
    } else {
        &mut stats.checks
    };
    s.positions += 1;
    s.moves += got.moves.len() as u64;
    s.cycles += got.cycles;
    s.max_cycles = s.max_cycles.max(got.cycles);
    let (w, g) = (key_set(&want.moves), key_set(&got.moves));
    if got.moves.len() != g.len() {
        return Some(format!(
            "chip sent duplicate moves: {} moves, {} distinct",
            got.moves.len(),
            g.len()
        ));
    }
    if w != g {
        return Some(format!(
            "missing {:?}\n    extra {:?}",
            w.difference(&g).collect::<Vec<_>>(),
            g.difference(&w).collect::<Vec<_>>()
        ));
    }
    None
}

#[derive(Default)]
struct ModeStats {
    positions: u64,
    moves: u64,
    cycles: u64,
    max_cycles: u64,
}

impl ModeStats {
    fn line(&self, mode: &str) -> String {
        format!(
            "{mode}: {} positions, {} moves, mean {:.1} cycles, max {}",
            self.positions,
            self.moves,
            self.cycles as f64 / self.positions.max(1) as f64,
            self.max_cycles
        )
    }
}

#[derive(Default)]
struct Stats {
    checks: ModeStats,
    evasions: ModeStats,
}

#[test]
fn move_generator_matches_reference() {
    let runtime = hw::runtime().expect("Verilator runtime");
    let mut chip = MovegenChip::new(&runtime, None).expect("movegen_top model");
    let mut failures = Vec::new();
    let mut stats = Stats::default();
    let mut run = |name: String, pos: Position, stats: &mut Stats, chip: &mut MovegenChip| {
        if let Some(diff) = check(chip, &pos, stats) {
            failures.push(format!("{name} `{}`:\n    {diff}", pos.to_sfen()));
        }
    };

    let suite =
        tsume::problems::load_suite(&tsume::problems::default_dir()).expect("problem suite");
    for p in &suite {
        run(
            p.id.clone(),
            Position::from_sfen(&p.sfen).unwrap(),
            &mut stats,
            &mut chip,
        );
    }
    for (name, sfen) in common::shared_positions("nshogi") {
        if let Ok(pos) = Position::from_sfen(&sfen) {
            // The evasion position after each check (the first few of each position).
            if !pos.in_check() {
                for (i, m) in tsume_moves(&pos).moves.iter().take(3).enumerate() {
                    run(
                        format!("{name} after check {i} {}", m.mv.to_usi()),
                        pos.after(m.mv),
                        &mut stats,
                        &mut chip,
                    );
                }
            }
            run(name, pos, &mut stats, &mut chip);
        }
    }
    let seed = seed_from_env();
    let count = common::random_count(DEFAULT_RANDOM);
    let mut generator = TsumeGenerator::new(seed);
    for i in 0..count {
        run(
            format!("random #{i}"),
            generator.next_position(Kind::Any),
            &mut stats,
            &mut chip,
        );
    }
    eprintln!("{} (seed {seed})", stats.checks.line("checks"));
    eprintln!("{} (seed {seed})", stats.evasions.line("evasions"));
    common::assert_no_failures(&failures, "positions disagree with the reference", seed);
}

/// Pawn-drop-mate positions by the thousand: the defending king with the square in front
/// of it empty, a pawn in the attacker's hand, an attacking piece guarding that square
/// most of the time, escape squares taken or covered at random, and the defender's
/// possible takers of the pawn next to the square, a knight's jump away or sliding from
/// far along its lines, some of them pinned against their king on its rank, diagonals or
/// file. The chip must give exactly the reference's checks, the pawn drop included or
/// left out; both outcomes must be common, so the test fails if the positions stop
/// exercising the rule.
#[test]
fn pawn_drop_mate_matches_reference() {
    let runtime = hw::runtime().expect("Verilator runtime");
    let mut chip = MovegenChip::new(&runtime, None).expect("movegen_top model");
    let seed = seed_from_env();
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed ^ 0x7061_776e);
    let count = common::random_count(DEFAULT_RANDOM) / 4;
    let mut stats = Stats::default();
    let mut failures = Vec::new();
    let (mut mates, mut legal) = (0usize, 0usize);
    for i in 0..count {
        let (pos, drop) = pawn_drop_position(&mut rng);
        let listed = tsume_moves(&pos)
            .moves
            .iter()
            .any(|m| m.mv.to_usi() == drop);
        if listed {
            legal += 1;
        } else {
            mates += 1;
        }
        if let Some(diff) = check(&mut chip, &pos, &mut stats) {
            failures.push(format!(
                "pawn drop #{i} ({drop}) `{}`:\n    {diff}",
                pos.to_sfen()
            ));
        }
    }
    eprintln!("{count} pawn-drop positions: {mates} drops that mate, {legal} legal (seed {seed})");
    common::assert_no_failures(
        &failures,
        "pawn-drop positions disagree with the reference",
        seed,
    );
    assert!(
        mates >= count / 20 && legal >= count / 20,
        "the pawn-drop positions no longer exercise the rule: {mates} mates, {legal} legal drops \
         in {count} (seed {seed})"
    );
}

/// A random position for `pawn_drop_mate_matches_reference` (Black to move, not in
/// check, a pawn in hand and none on the king's file) and the USI of its checking pawn
/// drop.
fn pawn_drop_position(rng: &mut rand::rngs::StdRng) -> (Position, String) {
    // (file index 0..9 = file 1..9, rank index 0..9 = rank a..i); Black moves towards rank a.
    type Board = [[Option<&'static str>; 9]; 9];
    const DIRS: [(i8, i8); 8] = [
        (0, -1),
        (1, -1),
        (1, 0),
        (1, 1),
        (0, 1),
        (-1, 1),
        (-1, 0),
        (-1, -1),
    ];
    let on = |f: i8, r: i8| (0..9).contains(&f) && (0..9).contains(&r);
    loop {
        let mut b: Board = [[None; 9]; 9];
        // Mostly on the edge, where a few pieces take every escape square.
        let kf = if rng.random_bool(0.3) {
            [0, 8][rng.random_range(0..2)]
        } else {
            rng.random_range(0..9i8)
        };
        let kr = if rng.random_bool(0.7) {
            0
        } else {
            rng.random_range(1..6i8)
        };
        let (pf, pr) = (kf, kr + 1);
        b[kf as usize][kr as usize] = Some("k");
        let put = |b: &mut Board, f: i8, r: i8, piece: &'static str| {
            if on(f, r) && (f, r) != (pf, pr) && b[f as usize][r as usize].is_none() {
                b[f as usize][r as usize] = Some(piece);
            }
        };
        // A guard of the square, so the king cannot take the pawn.
        if rng.random_bool(0.95) {
            let side = if rng.random_bool(0.5) { 1 } else { -1 };
            match rng.random_range(0..6) {
                0 => put(&mut b, pf, pr + 1, "G"),
                1 => put(&mut b, pf + side, pr + 1, "S"),
                2 => put(&mut b, pf, pr + rng.random_range(1..4), "L"),
                3 => put(&mut b, pf + side, pr + 2, "N"),
                4 => {
                    let d = rng.random_range(1..4);
                    put(&mut b, pf + side * d, pr + d, "B");
                }
                _ => put(&mut b, pf + side, pr, "+R"),
            }
        }
        // The king's other neighbours: mostly its own pieces that cannot take on the square
        // (pawns, lances and knights beside the king), so that the drop often mates.
        for &(df, dr) in &DIRS {
            if rng.random_bool(0.85) {
                let own = ["p", "p", "l", "l", "n", "s", "g", "+p"][rng.random_range(0..8)];
                put(&mut b, kf + df, kr + dr, own);
            }
        }
        // Attacking pieces near the king, covering escape squares.
        for _ in 0..rng.random_range(0..4) {
            let piece = ["G", "S", "+R", "+B", "B", "R", "N"][rng.random_range(0..7)];
            put(
                &mut b,
                kf + rng.random_range(-3..4),
                kr + rng.random_range(-2..4),
                piece,
            );
        }
        // The defender's possible takers, none to two: next to the square, a knight's
        // jump from it, or sliding along one of its lines from farther away.
        let takers = match rng.random_range(0..10) {
            0..4 => 0,
            4..8 => 1,
            _ => 2,
        };
        for _ in 0..takers {
            let (df, dr) = DIRS[rng.random_range(1..8)];
            let diagonal = df != 0 && dr != 0;
            let slider = if diagonal { ["b", "+b"] } else { ["r", "+r"] }[rng.random_range(0..2)];
            match rng.random_range(0..10) {
                0..3 => {
                    let piece = [slider, "g", "s", "+p"][rng.random_range(0..4)];
                    put(&mut b, pf + df, pr + dr, piece);
                }
                3 => put(&mut b, pf + [1, -1][rng.random_range(0..2)], pr - 2, "n"),
                _ => {
                    let d = rng.random_range(2..9);
                    put(&mut b, pf + df * d, pr + dr * d, slider);
                }
            }
        }
        // Pins: an attacking slider beyond a defending piece on one of the king's lines.
        if rng.random_bool(0.6) {
            // The king's file (through the square) a quarter of the time.
            let (df, dr) = if rng.random_bool(0.25) {
                (0, 1)
            } else {
                DIRS[rng.random_range(0..8)]
            };
            let near = rng.random_range(1..3);
            let far = near + rng.random_range(1..5);
            let diagonal = df != 0 && dr != 0;
            let slider = if diagonal {
                ["B", "+B"][rng.random_range(0..2)]
            } else {
                ["R", "+R"][rng.random_range(0..2)]
            };
            if rng.random_bool(0.7) {
                let piece = ["g", "s", "r", "b", "+r", "+b", "n"][rng.random_range(0..7)];
                put(&mut b, kf + df * near, kr + dr * near, piece);
            }
            put(&mut b, kf + df * far, kr + dr * far, slider);
        }
        // Occasionally the attacker's own king, far from the action.
        if rng.random_bool(0.3) {
            put(&mut b, rng.random_range(0..9), 8, "K");
        }
        // SFEN ranks a to i, each from file 9 to file 1, runs of empty squares as digits.
        let rows: Vec<String> = (0..9)
            .map(|r| {
                let mut row = String::new();
                let mut gap = 0;
                for file in b.iter().rev() {
                    match file[r] {
                        Some(piece) => {
                            if gap > 0 {
                                row.push_str(&gap.to_string());
                                gap = 0;
                            }
                            row.push_str(piece);
                        }
                        None => gap += 1,
                    }
                }
                if gap > 0 {
                    row.push_str(&gap.to_string());
                }
                row
            })
            .collect();
        let hand = ["P", "PG", "PS", "2PN", "PL", "PB"][rng.random_range(0..6)];
        let sfen = format!("{} b {hand} 1", rows.join("/"));
        // Positions the rules reject (dead pieces, double pawns, the side not to move in
        // check) and Black in check are drawn again.
        if let Ok(pos) = Position::from_sfen(&sfen)
            && !pos.in_check()
        {
            let drop = format!("P*{}", Square::new(pf * 9 + pr).to_usi());
            return (pos, drop);
        }
    }
}

/// The stream under back-pressure: the consumer is ready in a random half of the cycles,
/// and every list must still arrive complete, once, in the same order as
/// without stalls.
#[test]
fn stream_keeps_every_move_under_back_pressure() {
    let runtime = hw::runtime().expect("Verilator runtime");
    let mut chip = MovegenChip::new(&runtime, None).expect("movegen_top model");
    let seed = seed_from_env();
    let mut generator = TsumeGenerator::new(seed ^ 0x5741_4c4c);
    let mut state = seed | 1;
    let mut ready = move || {
        // xorshift64: ready in about half of the cycles (3/4 * 2/3).
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        !state.is_multiple_of(4) && !(state >> 8).is_multiple_of(3)
    };
    let count = common::random_count(DEFAULT_RANDOM) / 10;
    let mut stalled_cycles = 0;
    let mut failures = Vec::new();
    for i in 0..count {
        let pos = generator.next_position(Kind::Any);
        let free = chip
            .generate(&pos, MAX_CYCLES)
            .expect("list without stalls");
        let slow = match chip.generate_with_ready(&pos, 20 * MAX_CYCLES, &mut ready) {
            Ok(slow) => slow,
            Err(error) => {
                failures.push(format!("random #{i} `{}`: {error}", pos.to_sfen()));
                continue;
            }
        };
        stalled_cycles += slow.cycles - free.cycles;
        let key = |m: &tsume::reference::TsumeMove| (m.mv.to_usi(), m.category.as_str());
        let (a, b): (Vec<_>, Vec<_>) = (
            free.moves.iter().map(key).collect(),
            slow.moves.iter().map(key).collect(),
        );
        if a != b || free.in_check != slow.in_check {
            failures.push(format!(
                "random #{i} `{}`:\n    without stalls {a:?}\n    with stalls    {b:?}",
                pos.to_sfen()
            ));
        }
    }
    eprintln!("{count} lists under back-pressure, {stalled_cycles} cycles stalled (seed {seed})");
    assert!(stalled_cycles > 0, "the consumer never stalled the stream");
    common::assert_no_failures(&failures, "lists changed under back-pressure", seed);
}

/// A new position while a list is in flight: a load or a move applied at a random point
/// (the pipeline still filling, the first moves streaming, the list over) ends the old
/// list at once, and what the chip sends next is exactly the new position's list.
#[test]
fn new_position_mid_list_ends_the_old_list() {
    let runtime = hw::runtime().expect("Verilator runtime");
    let mut chip = MovegenChip::new(&runtime, None).expect("movegen_top model");
    let seed = seed_from_env();
    let mut generator = TsumeGenerator::new(seed ^ 0x4d49_4421);
    let mut pick = rand::rngs::StdRng::seed_from_u64(seed ^ 0x6d69_6421);
    let count = common::random_count(DEFAULT_RANDOM) / 20;
    let mut stats = Stats::default();
    let (mut loads, mut applies, mut cut_short) = (0, 0, 0);
    let mut failures = Vec::new();
    for i in 0..count {
        let first = generator.next_position(Kind::Any);
        chip.load(&first);
        // Up to 40 cycles of the first list: lists here are 15 cycles plus one a move.
        let cycles = pick.random_range(0..40);
        let (taken, ended) = chip.stream_for(cycles);
        let first_moves = tsume_moves(&first).moves;
        cut_short += u64::from(!ended);
        let (what, pos, got) = if pick.random_bool(0.5) || first_moves.is_empty() {
            loads += 1;
            let next = generator.next_position(Kind::Any);
            let got = chip.generate(&next, MAX_CYCLES);
            ("load", next, got)
        } else {
            applies += 1;
            let mv = first_moves[pick.random_range(0..first_moves.len())].mv;
            let got = chip.apply(mv, MAX_CYCLES);
            ("apply", first.after(mv), got)
        };
        if let Some(diff) = outcome(&pos, got, &mut stats) {
            failures.push(format!(
                "#{i}: `{}`, {taken} moves taken in {cycles} cycles, then {what} `{}`:\n    {diff}",
                first.to_sfen(),
                pos.to_sfen()
            ));
        }
    }
    eprintln!(
        "{count} lists cut by a new position ({loads} loads, {applies} moves applied; \
         {cut_short} before their end beat) (seed {seed})"
    );
    assert!(
        cut_short > 0 && loads > 0 && applies > 0,
        "no list was cut short by both a load and a move"
    );
    common::assert_no_failures(&failures, "lists after a new position mid-list", seed);
}

/// Cycles after a cancel in which no beat may come: longer than the generator's pipeline
/// and the stream's (a stale list would be streaming by then).
const SILENCE: u64 = 60;

/// A list abandoned with `cancel` (the store unchanged) at each cycle from the load to
/// well into its moves: in the pipeline's stages, the stream's arming cycles, the drain.
/// Not one beat may follow, not even the old list's start from a stage the cancel missed,
/// and the next load's list is exactly the reference's.
#[test]
fn cancel_ends_the_list_at_every_cycle() {
    let runtime = hw::runtime().expect("Verilator runtime");
    let mut chip = MovegenChip::new(&runtime, None).expect("movegen_top model");
    let seed = seed_from_env();
    let mut generator = TsumeGenerator::new(seed ^ 0x4341_4e43);
    let count = (common::random_count(DEFAULT_RANDOM) / 200).max(1);
    // From the cycle after the last load word: the pipeline and the stream's arming (the
    // first move comes 15 cycles after the position is ready), then the first moves.
    let offsets: u64 = 24;
    let mut stats = Stats::default();
    let (mut cancelled, mut mid_list) = (0, 0);
    let mut failures = Vec::new();
    for i in 0..count {
        let pos = generator.next_position(Kind::Any);
        for offset in 0..offsets {
            chip.load(&pos);
            let (taken, ended) = chip.stream_for(offset);
            chip.cancel();
            cancelled += 1;
            mid_list += u64::from(taken > 0 && !ended);
            let (after, end_after) = chip.stream_for(SILENCE);
            if after > 0 || end_after {
                failures.push(format!(
                    "#{i}: `{}` cancelled {offset} cycles after its load ({taken} moves taken): \
                     {after} moves{} followed",
                    pos.to_sfen(),
                    if end_after { " and an end beat" } else { "" }
                ));
            }
        }
        let next = generator.next_position(Kind::Any);
        if let Some(diff) = outcome(&next, chip.generate(&next, MAX_CYCLES), &mut stats) {
            failures.push(format!(
                "#{i}: after `{}` cancelled, `{}`:\n    {diff}",
                pos.to_sfen(),
                next.to_sfen()
            ));
        }
    }
    eprintln!(
        "{cancelled} lists cancelled at {} offsets ({mid_list} while streaming), then {count} \
         lists checked (seed {seed})",
        offsets
    );
    assert!(
        mid_list > 0,
        "no list was cancelled while streaming its moves"
    );
    common::assert_no_failures(&failures, "lists after a cancel", seed);
}
