//! The move generator in simulation against the software reference: every legal check, or
//! every legal evasion when the side to move is in check, each with its category, on the
//! problem suite, on the nshogi positions of `tests/data` (and the evasion positions after
//! each of their checks) and on fresh random tsume-like positions, half of them in check
//! (seed printed on failure; `TSUME_SEED` repeats a run), every move's check flag against
//! rsshogi's `gives_check_move` (always set on checks; on evasions the counter-checks the
//! search's OR nodes keep); the lists in the stream order of
//! `tsume::stream_order`; the stream under back-pressure; lists cut short by a new
//! position; lists abandoned (`cancel`) at every cycle of their pipeline; and thousands of
//! pawn-drop-mate positions, every kind of taker among them.

mod common;

use tsume::chip::{self, MovegenChip};
use tsume::position::Position;
use tsume::random::{Kind, PawnDropGenerator, TsumeGenerator, seed_from_env};

use rand::{Rng, SeedableRng};
use tsume::reference::tsume_moves;

const DEFAULT_RANDOM: usize = 10_000;
/// Far more than any list needs: a missing end beat fails instead of hanging.
const MAX_CYCLES: u64 = 2_000;

/// Differences between chip and reference on one position (empty when they agree).
fn check(chip: &mut MovegenChip, pos: &Position, stats: &mut Stats) -> Option<String> {
    outcome(pos, chip.generate(pos, MAX_CYCLES), stats)
}

/// Differences between the chip's answer `got` for `pos` (a list, or why none came) and
/// the reference's.
fn outcome(
    pos: &Position,
    got: anyhow::Result<chip::ChipMoves>,
    stats: &mut Stats,
) -> Option<String> {
    match got {
        Ok(got) => differences(pos, &got, stats),
        Err(error) => Some(error.to_string()),
    }
}

/// Differences between the chip's list `got` and the reference's for `pos`
/// (`ChipMoves::reference_difference`), the list counted in `stats`.
fn differences(pos: &Position, got: &chip::ChipMoves, stats: &mut Stats) -> Option<String> {
    stats.count(pos, got);
    got.reference_difference(pos).map(|d| d.to_string())
}

#[derive(Default)]
struct ModeStats {
    positions: u64,
    moves: u64,
    // Moves that give check (every check; the counter-checks among the evasions).
    checking: u64,
    cycles: u64,
    max_cycles: u64,
}

impl ModeStats {
    fn line(&self, mode: &str) -> String {
        format!(
            "{mode}: {} positions, {} moves ({} giving check), mean {:.1} cycles, max {}",
            self.positions,
            self.moves,
            self.checking,
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

impl Stats {
    /// The chip's list `got` for `pos`, counted in its mode: its moves, those that give
    /// check (by rsshogi's `gives_check_move`) and its cycles.
    fn count(&mut self, pos: &Position, got: &chip::ChipMoves) {
        let s = if got.in_check {
            &mut self.evasions
        } else {
            &mut self.checks
        };
        s.positions += 1;
        s.moves += got.moves.len() as u64;
        s.cycles += got.cycles;
        s.max_cycles = s.max_cycles.max(got.cycles);
        let board = pos.inner();
        s.checking += got
            .moves
            .iter()
            .filter(|m| board.gives_check_move(m.mv))
            .count() as u64;
    }
}

/// The chip's lists against the reference's on `positions`: failures named by `name`.
fn run_batch(
    positions: impl IntoIterator<Item = (String, Position)>,
    seed: u64,
    what: &str,
) -> Stats {
    let runtime = common::runtime();
    let mut chip = MovegenChip::new(&runtime, None).expect("movegen_top model");
    let mut stats = Stats::default();
    let mut failures = Vec::new();
    for (name, pos) in positions {
        if let Some(diff) = check(&mut chip, &pos, &mut stats) {
            failures.push(format!("{name} `{}`:\n    {diff}", pos.to_sfen()));
        }
    }
    common::assert_no_failures(
        &failures,
        &format!("{what} positions disagree with the reference"),
        seed,
    );
    stats
}

#[test]
fn suite_matches_reference() {
    let positions = common::suite().into_iter().map(|(p, pos)| (p.id, pos));
    let stats = run_batch(positions, 0, "suite");
    assert!(stats.checks.positions > 0 && stats.evasions.positions > 0);
}

/// The nshogi positions, and the evasion positions after the first few checks of each.
#[test]
fn nshogi_positions_match_reference() {
    let mut positions = Vec::new();
    for (name, sfen) in common::data_positions("nshogi") {
        let Ok(pos) = Position::from_sfen(&sfen) else {
            continue;
        };
        if !pos.in_check() {
            for (i, m) in tsume_moves(&pos).moves.iter().take(3).enumerate() {
                positions.push((
                    format!("{name} after check {i} {}", m.mv.to_usi()),
                    pos.after(m.mv),
                ));
            }
        }
        positions.push((name, pos));
    }
    let stats = run_batch(positions, 0, "nshogi");
    assert!(
        stats.checks.positions > 10_000,
        "{}",
        stats.checks.line("checks")
    );
}

#[test]
fn random_positions_match_reference() {
    let seed = seed_from_env();
    let count = common::random_count(DEFAULT_RANDOM);
    let mut generator = TsumeGenerator::new(seed);
    let positions =
        (0..count).map(|i| (format!("random #{i}"), generator.next_position(Kind::Any)));
    let stats = run_batch(positions, seed, "random");
    // The evasions' check flags are only tested when some evasions give check.
    assert!(
        stats.evasions.checking > 0 && stats.evasions.checking < stats.evasions.moves,
        "{} (seed {seed})",
        stats.evasions.line("evasions")
    );
}

/// The chip streams every list in the order `tsume::stream_order` states, which the
/// reference's lists follow: the same moves, categories and order, on fresh random
/// positions.
#[test]
fn lists_come_in_stream_order() {
    let runtime = common::runtime();
    let mut chip = MovegenChip::new(&runtime, None).expect("movegen_top model");
    let seed = seed_from_env();
    let mut generator = TsumeGenerator::new(seed ^ 0x6f72_6465);
    let count = common::random_count(DEFAULT_RANDOM) / 10;
    let mut failures = Vec::new();
    let mut moves = 0;
    for i in 0..count {
        let pos = generator.next_position(Kind::Any);
        let want = tsume_moves(&pos).moves;
        moves += want.len();
        match chip.generate(&pos, MAX_CYCLES) {
            Ok(got) if got.moves == want => {}
            Ok(got) => {
                let usi = |ms: &[tsume::reference::TsumeMove]| {
                    ms.iter()
                        .map(|m| m.mv.to_usi())
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                failures.push(format!(
                    "random #{i} `{}`:\n    chip      {}\n    reference {}",
                    pos.to_sfen(),
                    usi(&got.moves),
                    usi(&want)
                ));
            }
            Err(error) => failures.push(format!("random #{i} `{}`: {error:#}", pos.to_sfen())),
        }
    }
    assert!(
        moves > count,
        "the positions have almost no moves: {moves} in {count} lists (seed {seed})"
    );
    common::assert_no_failures(&failures, "lists out of stream order", seed);
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
    let runtime = common::runtime();
    let mut chip = MovegenChip::new(&runtime, None).expect("movegen_top model");
    let seed = seed_from_env();
    let mut generator = PawnDropGenerator::new(seed ^ 0x7061_776e);
    let count = common::random_count(DEFAULT_RANDOM) / 4;
    let mut stats = Stats::default();
    let mut failures = Vec::new();
    let (mut mates, mut legal) = (0usize, 0usize);
    for i in 0..count {
        let (pos, drop) = generator.next_position();
        let listed = tsume_moves(&pos).moves.iter().any(|m| m.mv == drop);
        if listed {
            legal += 1;
        } else {
            mates += 1;
        }
        if let Some(diff) = check(&mut chip, &pos, &mut stats) {
            failures.push(format!(
                "pawn drop #{i} ({}) `{}`:\n    {diff}",
                drop.to_usi(),
                pos.to_sfen()
            ));
        }
    }
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

/// The stream under back-pressure: the consumer is ready in a random half of the cycles,
/// and every list must still arrive complete, once, in the same order as
/// without stalls.
#[test]
fn stream_keeps_every_move_under_back_pressure() {
    let runtime = common::runtime();
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
    assert!(
        stalled_cycles > 0,
        "the consumer never stalled the stream in {count} lists (seed {seed})"
    );
    common::assert_no_failures(&failures, "lists changed under back-pressure", seed);
}

/// A new position while a list is in flight: a load or a move applied at a random point
/// (the pipeline still filling, the first moves streaming, the list over) ends the old
/// list at once, and what the chip sends next is exactly the new position's list.
#[test]
fn new_position_mid_list_ends_the_old_list() {
    let runtime = common::runtime();
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
    assert!(
        cut_short > 0 && loads > 0 && applies > 0,
        "no list was cut short by both a load and a move: {count} lists, {loads} loads, \
         {applies} moves applied, {cut_short} before their end beat (seed {seed})"
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
    let runtime = common::runtime();
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
    assert!(
        mid_list > 0,
        "no list was cancelled while streaming its moves: {cancelled} lists cancelled at \
         {offsets} offsets (seed {seed})"
    );
    common::assert_no_failures(&failures, "lists after a cancel", seed);
}
