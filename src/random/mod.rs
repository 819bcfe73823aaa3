//! Seeded generator of tsume-like positions for differential tests.
//!
//! Every position is built as an SFEN string, parsed with [`Position::from_sfen`] (so it
//! passes the same validation as user input) and retried on the rare rejection. The same
//! seed gives the same sequence of positions on every machine (rand's `StdRng`, a
//! ChaCha12 stream, seeded with [`rand::SeedableRng::seed_from_u64`]).
//!
//! # The distribution
//!
//! A position is drawn in a canonical frame (Black attacks, White defends) and turned
//! through 180 degrees with colours swapped half of the time, so both colours attack
//! about equally often (`tests/random_positions.rs`: Black attacks in 45 to 55 % of the
//! positions of each kind). The figures below are the drawing probabilities; in brackets,
//! the share of what comes out that `tests/random_positions.rs` requires of 10,000
//! positions of each kind.
//!
//! - **Defending king**: on one of its own three back ranks with probability 0.7,
//!   anywhere on the board otherwise [off its back ranks: at least 10 %].
//! - **Attacking king**: with probability 0.3, never adjacent to the defending king;
//!   on its own three back ranks with probability 0.65, anywhere otherwise [an attacking
//!   king: 20 to 40 %].
//! - **Pins and batteries**, each drawn independently, in up to six random directions
//!   until one fits:
//!   - 0.4: a defending piece 1-2 squares from its king, pinned by an attacking rook,
//!     dragon, bishop, horse or lance 1-3 squares beyond it;
//!   - 0.45 when there is an attacking king: an attacking piece pinned against it by a
//!     defending slider the same way;
//!   - 0.45: a battery, an attacking piece between an attacking slider and the defending
//!     king, so that discovered and double checks exist.
//!
//!   [a pinned defending piece: at least 15 %; a pinned attacking piece: at least 3 %]
//! - **Attacking pieces**: 2 to 7 on the board (pins and batteries included; 2 to 3 in
//!   the boards drawn to find positions without a check), placed within Chebyshev
//!   distance 3 of the defending king; a slider goes farther away on one of its lines
//!   through the king with probability 0.35. Each attacking piece is promoted with
//!   probability 0.3, and always when it could not move otherwise (a pawn or lance on
//!   the last rank, a knight on the last two) [a promoted piece on the board: at least
//!   50 %].
//! - **Defending pieces**: 0 to 5 around the king (distance at most 2, sometimes 3),
//!   mostly golds, silvers and pawns; promoted with probability 0.12.
//! - **Hands**: of the pieces left over, all go to the attacker with probability 0.2; with
//!   probability 0.45 each goes to the attacker with a probability drawn between 0.3 and
//!   0.9; otherwise the attacker gets 0 to 3 of them, mostly non-pawns. The rest goes to
//!   the defender, so the totals are exactly the game's (18 P, 4 L, 4 N, 4 S, 4 G, 2 B,
//!   2 R), never more [attacker with 5 or more pieces in hand: at least 30 %; defender's
//!   hand empty: at least 8 %].
//! - **[`Kind::Checks`]**: the attacker is to move and neither king is in check. With
//!   probability 0.06 the position is one without any legal check (looked for among
//!   boards whose attacker has an empty hand, at most 200 of them); otherwise boards are
//!   drawn until one has a check [with a check: 85 to 99.5 %; with a direct check, a
//!   drop, a discovered one and a double check: at least 5 % each].
//! - **[`Kind::Evasions`]**: a Checks position with at least one check, after one of its
//!   checks played (through [`Position::after`]): a direct+indirect check (a double
//!   check) with probability 0.5 when one exists, else a purely discovered one with
//!   probability 0.3 when one exists, else any check uniformly [double checks: at least
//!   5 %; with a king escape, a capture, a drop block and a move block: at least 10 %
//!   each].
//! - [`Kind::Any`]: Checks or Evasions with probability one half each [in check: 45 to
//!   55 %].
//!
//! Everything is legal by construction (no dead piece, no double pawn, no king in check
//! except the defender's in Evasions positions); `from_sfen` is the final judge, and a
//! rejected board (counted by [`TsumeGenerator::rejected`]) is simply drawn again.
//!
//! [`PawnDropGenerator`] draws positions of another shape: a pawn drop in front of the
//! defending king that mates (an illegal drop) or not, with the defender's possible takers
//! and pins around it ([`pawn_drop`]).
//!
//! # Cost
//!
//! A board costs one `from_sfen` and usually one `tsume_moves`; a Checks position draws
//! boards until one has a check ([`TsumeGenerator::drawn`] counts them).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rsshogi::types::PieceType;

use crate::position::Position;
use crate::reference::{Category, tsume_moves};

mod board;
pub mod pawn_drop;

use board::{ALL_DIRS, ATT, Board, DEF, idx, on_board, side_index, sliders_for};
pub use pawn_drop::PawnDropGenerator;

/// What kind of position to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The side to move is not in check and gives checks (the attacker's turn).
    Checks,
    /// The side to move is in check (the defender's turn), double checks and pins included.
    Evasions,
    /// Either, about half each.
    Any,
}

/// A deterministic generator: the same seed gives the same positions on every machine.
pub struct TsumeGenerator {
    rng: StdRng,
    /// Positions rejected by [`Position::from_sfen`] so far (should stay at zero).
    rejected: u64,
    /// Boards drawn so far (including the ones thrown away for having no check).
    drawn: u64,
}

/// Probability that a Checks position is one without any legal check.
const WITHOUT_CHECK: f64 = 0.06;
/// How many positions are drawn at most when looking for one without any check.
const WITHOUT_CHECK_TRIES: usize = 200;

/// A cheap sufficient condition for "the side to move (not in check) has a check": a
/// non-pawn piece in hand that can be dropped on an empty square from which it attacks the
/// enemy king. Such a drop is always legal (it cannot expose the own king, and a checking
/// square is never one where the piece could not move). Pawns are left out (double pawn
/// and pawn-drop mate would need checking).
fn has_drop_check(pos: &Position) -> bool {
    let inner = pos.inner();
    let hand = pos.hand(pos.side_to_move());
    let empties = inner.empties();
    // HandPiece order: pawn, lance, knight, silver, bishop, rook, gold.
    const TYPES: [PieceType; 6] = [
        PieceType::LANCE,
        PieceType::KNIGHT,
        PieceType::SILVER,
        PieceType::BISHOP,
        PieceType::ROOK,
        PieceType::GOLD,
    ];
    TYPES
        .iter()
        .zip(&hand[1..])
        .any(|(&pt, &n)| n > 0 && (inner.check_square(pt) & empties).any())
}

/// How the pieces left over are shared between the hands.
enum HandMode {
    /// Every one to the attacker.
    All,
    /// Each one to the attacker with this probability, otherwise to the defender.
    Share(f64),
    /// This many to the attacker (mostly non-pawns), the rest to the defender.
    Few(u32),
}

/// Attacking piece types and their weights (promotion is decided separately).
const ATTACKER_KINDS: [(PieceType, u32); 7] = [
    (PieceType::GOLD, 5),
    (PieceType::SILVER, 5),
    (PieceType::KNIGHT, 4),
    (PieceType::LANCE, 3),
    (PieceType::PAWN, 4),
    (PieceType::BISHOP, 3),
    (PieceType::ROOK, 3),
];

/// Defending piece types and their weights.
const DEFENDER_KINDS: [(PieceType, u32); 7] = [
    (PieceType::GOLD, 6),
    (PieceType::SILVER, 5),
    (PieceType::PAWN, 6),
    (PieceType::KNIGHT, 3),
    (PieceType::LANCE, 3),
    (PieceType::BISHOP, 1),
    (PieceType::ROOK, 1),
];

impl TsumeGenerator {
    /// A generator whose whole sequence of positions is determined by `seed`.
    pub fn new(seed: u64) -> Self {
        TsumeGenerator {
            rng: StdRng::seed_from_u64(seed),
            rejected: 0,
            drawn: 0,
        }
    }

    /// How many built positions `Position::from_sfen` has rejected so far (a generator
    /// bug if not zero; the generator retries them).
    pub fn rejected(&self) -> u64 {
        self.rejected
    }

    /// How many boards have been drawn so far, kept or not (a measure of the generator's
    /// efficiency: positions without a check are mostly thrown away).
    pub fn drawn(&self) -> u64 {
        self.drawn
    }

    /// The next random legal tsume-like position of the given kind.
    pub fn next_position(&mut self, kind: Kind) -> Position {
        let kind = match kind {
            Kind::Any => {
                if self.rng.random_bool(0.5) {
                    Kind::Checks
                } else {
                    Kind::Evasions
                }
            }
            k => k,
        };
        match kind {
            Kind::Evasions => self.evasion_position(),
            _ => self.checks_position(),
        }
    }

    /// A position where the attacker is to move, not in check, preferring ones with checks.
    fn checks_position(&mut self) -> Position {
        if self.rng.random_bool(WITHOUT_CHECK) {
            // A position without any check: rare among the usual boards, so look for one
            // among boards with an empty attacker hand (at most WITHOUT_CHECK_TRIES of
            // them; if none qualifies, a position with a check is made instead).
            for _ in 0..WITHOUT_CHECK_TRIES {
                let pos = self.quiet_position(true);
                if tsume_moves(&pos).moves.is_empty() {
                    return pos;
                }
            }
        }
        loop {
            let pos = self.quiet_position(false);
            if has_drop_check(&pos) || !tsume_moves(&pos).moves.is_empty() {
                return pos;
            }
        }
    }

    /// A Checks position with at least one check, after one of them.
    fn evasion_position(&mut self) -> Position {
        loop {
            let pos = self.quiet_position(false);
            let set = tsume_moves(&pos);
            if set.moves.is_empty() {
                continue;
            }
            let pick = |cat: Category| -> Vec<_> {
                set.moves
                    .iter()
                    .filter(|m| m.category == cat)
                    .map(|m| m.mv)
                    .collect()
            };
            let double = pick(Category::DirectIndirect);
            let discovered = pick(Category::Indirect);
            let mv = if !double.is_empty() && self.rng.random_bool(0.5) {
                double[self.rng.random_range(0..double.len())]
            } else if !discovered.is_empty() && self.rng.random_bool(0.3) {
                discovered[self.rng.random_range(0..discovered.len())]
            } else {
                set.moves[self.rng.random_range(0..set.moves.len())].mv
            };
            return pos.after(mv);
        }
    }

    /// A legal position with the attacker to move and neither king in check.
    /// `empty_hand`: the attacker gets no piece in hand (makes positions without checks).
    fn quiet_position(&mut self, empty_hand: bool) -> Position {
        loop {
            self.drawn += 1;
            let (board, hands) = self.build(empty_hand);
            let flip = self.rng.random_bool(0.5);
            let sfen = board.sfen(hands, flip);
            match Position::from_sfen(&sfen) {
                Ok(pos) if !pos.in_check() => return pos,
                _ => self.rejected += 1,
            }
        }
    }

    fn weighted(&mut self, table: &[(PieceType, u32)]) -> PieceType {
        let total: u32 = table.iter().map(|&(_, w)| w).sum();
        let mut x = self.rng.random_range(0..total);
        for &(pt, w) in table {
            if x < w {
                return pt;
            }
            x -= w;
        }
        table[0].0
    }

    fn random_dir(&mut self) -> (i8, i8) {
        ALL_DIRS[self.rng.random_range(0..8)]
    }

    /// Maybe promote a raw type: with probability `p`, or when it would be dead on rank `r`.
    fn maybe_promote(&mut self, pt: PieceType, attacker: bool, r: i8, p: f64) -> PieceType {
        if pt.is_promotable() && (Board::dead(attacker, pt, r) || self.rng.random_bool(p)) {
            pt.promote()
        } else {
            pt
        }
    }

    /// A line from the king of `target_side` in a random direction: a blocker of side
    /// `blocker_side` 1-2 squares away, then a slider of the other side 1-3 squares
    /// beyond. A blocker of the king's side is pinned; one of the slider's side makes a
    /// battery (discovered checks). Nothing is placed when the line does not fit.
    fn line(&mut self, b: &mut Board, target_side: bool, blocker_side: bool, defender_kinds: bool) {
        for _ in 0..6 {
            if self.try_line(b, target_side, blocker_side, defender_kinds) {
                return;
            }
        }
    }

    /// One attempt of [`Self::line`] in one random direction; whether it placed the line.
    fn try_line(
        &mut self,
        b: &mut Board,
        target_side: bool,
        blocker_side: bool,
        defender_kinds: bool,
    ) -> bool {
        let Some(k) = b.kings[side_index(target_side)] else {
            return false;
        };
        let dir = self.random_dir();
        let d1 = self.rng.random_range(1..=2);
        let bsq = (k.0 + dir.0 * d1, k.1 + dir.1 * d1);
        if !on_board(bsq.0, bsq.1) || !b.empty(bsq.0, bsq.1) || !b.clear_between(k, bsq) {
            return false;
        }
        let gap = self.rng.random_range(1..=3);
        let ssq = (bsq.0 + dir.0 * gap, bsq.1 + dir.1 * gap);
        if !on_board(ssq.0, ssq.1) || !b.empty(ssq.0, ssq.1) || !b.clear_between(bsq, ssq) {
            return false;
        }
        let slider_side = !target_side;
        let choices = sliders_for(dir, slider_side);
        let slider = choices[self.rng.random_range(0..choices.len())];
        let raw_slider = if slider.is_promoted() {
            slider.demote()
        } else {
            slider
        };
        if b.pool[raw_slider.raw() as usize] == 0 {
            return false;
        }
        let table = if defender_kinds {
            &DEFENDER_KINDS
        } else {
            &ATTACKER_KINDS
        };
        for _ in 0..4 {
            let raw = self.weighted(table);
            let p = if blocker_side == ATT { 0.3 } else { 0.12 };
            let pt = self.maybe_promote(raw, blocker_side, bsq.1, p);
            if b.try_place(bsq, blocker_side, pt) {
                if b.try_place(ssq, slider_side, slider) {
                    return true;
                }
                // Undo the blocker: the line could not be completed.
                b.cells[idx(bsq.0, bsq.1)] = None;
                b.pool[raw.raw() as usize] += 1;
                return false;
            }
        }
        false
    }

    /// Draw a board (canonical frame) and the two hands.
    fn build(&mut self, empty_hand: bool) -> (Board, [[u8; 8]; 2]) {
        let rng_f = |g: &mut Self| g.rng.random_range(0..9i8);
        let mut b = Board::new();
        // Defending (White) king: its back ranks are 0..=2.
        let kd = if self.rng.random_bool(0.7) {
            (rng_f(self), self.rng.random_range(0..3i8))
        } else {
            (rng_f(self), rng_f(self))
        };
        b.cells[idx(kd.0, kd.1)] = Some((DEF, PieceType::KING));
        b.kings[side_index(DEF)] = Some(kd);
        // Attacking (Black) king: never adjacent to the defending one.
        if self.rng.random_bool(0.3) {
            for _ in 0..20 {
                let ka = if self.rng.random_bool(0.65) {
                    (rng_f(self), self.rng.random_range(6..9i8))
                } else {
                    (rng_f(self), rng_f(self))
                };
                if (ka.0 - kd.0).abs().max((ka.1 - kd.1).abs()) >= 2 {
                    b.cells[idx(ka.0, ka.1)] = Some((ATT, PieceType::KING));
                    b.kings[side_index(ATT)] = Some(ka);
                    break;
                }
            }
        }
        // Pins and batteries.
        if self.rng.random_bool(0.4) {
            self.line(&mut b, DEF, DEF, true);
        }
        if b.kings[side_index(ATT)].is_some() && self.rng.random_bool(0.45) {
            self.line(&mut b, ATT, ATT, false);
        }
        if self.rng.random_bool(0.45) {
            self.line(&mut b, DEF, ATT, false);
        }
        // Attacking pieces.
        let count = |b: &Board, side: bool| {
            b.cells
                .iter()
                .filter(|c| matches!(c, Some((s, pt)) if *s == side && *pt != PieceType::KING))
                .count()
        };
        let target = if empty_hand {
            self.rng.random_range(2..=3usize)
        } else {
            self.rng.random_range(2..=7usize)
        };
        let mut tries = 0;
        while count(&b, ATT) < target && tries < 60 {
            tries += 1;
            let raw = self.weighted(&ATTACKER_KINDS);
            let slider = matches!(raw, PieceType::BISHOP | PieceType::ROOK | PieceType::LANCE);
            let sq = if slider && self.rng.random_bool(0.35) {
                let dir = if raw == PieceType::LANCE {
                    (0, 1)
                } else if raw == PieceType::BISHOP {
                    ALL_DIRS[self.rng.random_range(4..8)]
                } else {
                    ALL_DIRS[self.rng.random_range(0..4)]
                };
                let d = self.rng.random_range(2..=8);
                (kd.0 + dir.0 * d, kd.1 + dir.1 * d)
            } else {
                (
                    kd.0 + self.rng.random_range(-3..=3),
                    kd.1 + self.rng.random_range(-3..=3),
                )
            };
            if !on_board(sq.0, sq.1) {
                continue;
            }
            let pt = self.maybe_promote(raw, ATT, sq.1, 0.3);
            b.try_place(sq, ATT, pt);
        }
        // Defending pieces around the king.
        let n_def = self.rng.random_range(0..=5usize);
        let mut tries = 0;
        let mut placed = 0;
        while placed < n_def && tries < 40 {
            tries += 1;
            let reach = if self.rng.random_bool(0.85) { 2 } else { 3 };
            let sq = (
                kd.0 + self.rng.random_range(-reach..=reach),
                kd.1 + self.rng.random_range(-reach..=reach),
            );
            if !on_board(sq.0, sq.1) {
                continue;
            }
            let raw = self.weighted(&DEFENDER_KINDS);
            let pt = self.maybe_promote(raw, DEF, sq.1, 0.12);
            if b.try_place(sq, DEF, pt) {
                placed += 1;
            }
        }
        // Hands: every piece left over goes to one of them.
        let mut hands = [[0u8; 8]; 2];
        let hand_mode = if empty_hand {
            HandMode::Few(0)
        } else {
            match self.rng.random_range(0..100) {
                0..20 => HandMode::All,
                20..65 => HandMode::Share(self.rng.random_range(0.3..0.9)),
                _ => HandMode::Few(self.rng.random_range(0..=3)),
            }
        };
        match hand_mode {
            HandMode::All => hands[side_index(ATT)] = b.pool,
            HandMode::Share(p) => {
                for (raw, &n) in b.pool.iter().enumerate() {
                    for _ in 0..n {
                        hands[side_index(self.rng.random_bool(p))][raw] += 1;
                    }
                }
            }
            HandMode::Few(n) => {
                for _ in 0..n {
                    // Mostly a non-pawn piece, sometimes a pawn.
                    let others: u32 = (2..8).map(|raw| u32::from(b.pool[raw])).sum();
                    let raw = if others > 0 && self.rng.random_bool(0.8) {
                        let mut x = self.rng.random_range(0..others);
                        (2..8).find(|&raw| {
                            let c = u32::from(b.pool[raw]);
                            if x < c {
                                true
                            } else {
                                x -= c;
                                false
                            }
                        })
                    } else {
                        (b.pool[1] > 0).then_some(1)
                    };
                    if let Some(raw) = raw {
                        b.pool[raw] -= 1;
                        hands[side_index(ATT)][raw] += 1;
                    }
                }
                hands[side_index(DEF)] = b.pool;
            }
        }
        b.pool = [0; 8];
        (b, hands)
    }
}

/// The seed for a test run: `TSUME_SEED` if set, otherwise a fresh one from the clock.
/// Tests print it on failure so a run can be repeated.
///
/// `TSUME_SEED` is read as a decimal `u64` (or hexadecimal with a `0x` prefix); an
/// unparsable value panics rather than silently testing something else.
pub fn seed_from_env() -> u64 {
    if let Ok(text) = std::env::var("TSUME_SEED") {
        let text = text.trim();
        let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => text.parse::<u64>(),
        };
        return parsed.unwrap_or_else(|e| panic!("TSUME_SEED={text:?} is not a u64: {e}"));
    }
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    // Mix the clock (splitmix64 finaliser) so that close runs get unrelated seeds.
    let mut z = (nanos as u64) ^ ((nanos >> 64) as u64) ^ u64::from(std::process::id());
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests;
