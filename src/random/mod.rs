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
//! about equally often. The figures below are the drawing probabilities; what comes out
//! (measured by `tests/random_positions.rs` over 10,000 positions of each kind) is in
//! brackets.
//!
//! - **Defending king**: on one of its own three back ranks with probability 0.7,
//!   anywhere on the board otherwise [off its back ranks: ~20 %].
//! - **Attacking king**: with probability 0.3, never adjacent to the defending king;
//!   on its own three back ranks with probability 0.65, anywhere otherwise [~30 %].
//! - **Pins and batteries**, each drawn independently, in up to six random directions
//!   until one fits:
//!   - 0.4: a defending piece 1-2 squares from its king, pinned by an attacking rook,
//!     dragon, bishop, horse or lance 1-3 squares beyond it;
//!   - 0.45 when there is an attacking king: an attacking piece pinned against it by a
//!     defending slider the same way;
//!   - 0.45: a battery, an attacking piece between an attacking slider and the defending
//!     king, so that discovered and double checks exist.
//!
//!   [a pinned defending piece: ~25 %; a pinned attacking piece: ~12 % of all positions,
//!   ~40 % of those with an attacking king]
//! - **Attacking pieces**: 2 to 7 on the board (pins and batteries included; 2 to 3 in
//!   the boards drawn to find positions without a check), placed within Chebyshev
//!   distance 3 of the defending king; a slider goes farther away on one of its lines
//!   through the king with probability 0.35. Each attacking piece is promoted with
//!   probability 0.3, and always when it could not move otherwise (a pawn or lance on
//!   the last rank, a knight on the last two) [a promoted piece on the board: ~85 %].
//! - **Defending pieces**: 0 to 5 around the king (distance at most 2, sometimes 3),
//!   mostly golds, silvers and pawns; promoted with probability 0.12.
//! - **Hands**: of the pieces left over, all go to the attacker with probability 0.2; with
//!   probability 0.45 each goes to the attacker with a probability drawn between 0.3 and
//!   0.9; otherwise the attacker gets 0 to 3 of them, mostly non-pawns. The rest goes to
//!   the defender, so the totals are exactly the game's (18 P, 4 L, 4 N, 4 S, 4 G, 2 B,
//!   2 R), never more [attacker with 5 or more pieces in hand: ~63 %; defender's hand
//!   empty: ~19 %].
//! - **[`Kind::Checks`]**: the attacker is to move and neither king is in check. With
//!   probability 0.06 the position is one without any legal check (looked for among
//!   boards whose attacker has an empty hand, at most 200 of them); otherwise boards are
//!   drawn until one has a check [with a check: ~94 %; with a direct check ~81 %, a drop
//!   ~83 %, a discovered one ~29 %, a double check ~17 %].
//! - **[`Kind::Evasions`]**: a Checks position with at least one check, after one of its
//!   checks played (through [`Position::after`]): a direct+indirect check (a double
//!   check) with probability 0.5 when one exists, else a purely discovered one with
//!   probability 0.3 when one exists, else any check uniformly [double checks: ~10 %;
//!   mated (no evasion): ~4 %; with a king escape ~91 %, a capture ~26 %, a drop block
//!   ~24 %, a move block ~12 %].
//! - [`Kind::Any`]: Checks or Evasions with probability one half each.
//!
//! Everything is legal by construction (no dead piece, no double pawn, no king in check
//! except the defender's in Evasions positions); `from_sfen` is the final judge, and a
//! rejected board (counted by [`TsumeGenerator::rejected`]) is simply drawn again.
//!
//! [`PawnDropGenerator`] draws positions of another shape: a pawn drop in front of the
//! defending king that mates (an illegal drop) or not, with the defender's possible takers
//! and pins around it ([`pawn_drop`]).
//!
//! # Speed
//!
//! A board costs one `from_sfen` and usually one `tsume_moves`; about 1.4 boards are drawn
//! per Checks position and 1.0 per Evasions position. In the default test profile this
//! gives some 20,000-45,000 positions per second, depending on the machine's load.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rsshogi::types::PieceType;

use crate::position::Position;
use crate::reference::{Category, tsume_moves};

pub mod pawn_drop;

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

/// Black (the canonical attacker) and White (the canonical defender).
const ATT: bool = true;
const DEF: bool = false;

/// A piece of the canonical frame: (is attacker (Black), piece type).
type Cell = Option<(bool, PieceType)>;

/// The board of the canonical frame: index `file * 9 + rank`, file 0 = file 1,
/// rank 0 = rank a (Black moves towards rank 0).
#[derive(Clone)]
struct Board {
    cells: [Cell; 81],
    kings: [Option<(i8, i8)>; 2],
    /// Pieces not yet used, indexed by the raw piece type (1 = pawn .. 7 = gold).
    pool: [u8; 8],
}

const ALL_DIRS: [(i8, i8); 8] = [
    (0, -1),
    (0, 1),
    (-1, 0),
    (1, 0),
    (-1, -1),
    (1, -1),
    (-1, 1),
    (1, 1),
];

fn on_board(f: i8, r: i8) -> bool {
    (0..9).contains(&f) && (0..9).contains(&r)
}

fn idx(f: i8, r: i8) -> usize {
    (f as usize) * 9 + r as usize
}

fn side_index(attacker: bool) -> usize {
    usize::from(attacker)
}

/// Whether a raw piece type is a slider that can pin or form a battery along `dir`
/// (from the target king outwards) for the given side. Returns the possible types.
fn sliders_for(dir: (i8, i8), attacker: bool) -> &'static [PieceType] {
    let (df, dr) = dir;
    if df != 0 && dr != 0 {
        &[PieceType::BISHOP, PieceType::HORSE]
    } else if df == 0 && ((attacker && dr == 1) || (!attacker && dr == -1)) {
        // A Black lance below the king (larger rank) attacks upwards; a White lance above.
        &[PieceType::ROOK, PieceType::DRAGON, PieceType::LANCE]
    } else {
        &[PieceType::ROOK, PieceType::DRAGON]
    }
}

impl Board {
    fn new() -> Self {
        Board {
            cells: [None; 81],
            kings: [None; 2],
            // index: 0 none, 1 pawn, 2 lance, 3 knight, 4 silver, 5 bishop, 6 rook, 7 gold
            pool: [0, 18, 4, 4, 4, 2, 2, 4],
        }
    }

    fn get(&self, f: i8, r: i8) -> Cell {
        self.cells[idx(f, r)]
    }

    fn empty(&self, f: i8, r: i8) -> bool {
        self.cells[idx(f, r)].is_none()
    }

    /// The squares strictly between two aligned squares are empty.
    fn clear_between(&self, from: (i8, i8), to: (i8, i8)) -> bool {
        let sf = (to.0 - from.0).signum();
        let sr = (to.1 - from.1).signum();
        let (mut f, mut r) = (from.0 + sf, from.1 + sr);
        while (f, r) != to {
            if !self.empty(f, r) {
                return false;
            }
            f += sf;
            r += sr;
        }
        true
    }

    /// Whether the piece `pt` of side `attacker` on `from` attacks `to` on this board.
    fn attacks(&self, from: (i8, i8), attacker: bool, pt: PieceType, to: (i8, i8)) -> bool {
        let dx = (to.0 - from.0).abs();
        // Forward is towards rank 0 for Black (the attacker), towards rank 8 for White.
        let dy = if attacker {
            to.1 - from.1
        } else {
            from.1 - to.1
        };
        if dx == 0 && dy == 0 {
            return false;
        }
        let king_step = dx <= 1 && dy.abs() <= 1;
        let gold_step = king_step && !(dx == 1 && dy == 1);
        match pt {
            PieceType::PAWN => dx == 0 && dy == -1,
            PieceType::KNIGHT => dx == 1 && dy == -2,
            PieceType::SILVER => king_step && dy != 0 && !(dx == 0 && dy == 1),
            PieceType::GOLD
            | PieceType::PRO_PAWN
            | PieceType::PRO_LANCE
            | PieceType::PRO_KNIGHT
            | PieceType::PRO_SILVER => gold_step,
            PieceType::KING => king_step,
            PieceType::LANCE => dx == 0 && dy < 0 && self.clear_between(from, to),
            PieceType::BISHOP => dx == dy.abs() && self.clear_between(from, to),
            PieceType::HORSE => king_step || (dx == dy.abs() && self.clear_between(from, to)),
            PieceType::ROOK => (dx == 0 || dy == 0) && self.clear_between(from, to),
            PieceType::DRAGON => {
                king_step || ((dx == 0 || dy == 0) && self.clear_between(from, to))
            }
            _ => false,
        }
    }

    /// Whether a piece of this side could never move from rank `r` (it must be promoted).
    fn dead(attacker: bool, pt: PieceType, r: i8) -> bool {
        let rel = if attacker { r } else { 8 - r };
        match pt {
            PieceType::PAWN | PieceType::LANCE => rel == 0,
            PieceType::KNIGHT => rel <= 1,
            _ => false,
        }
    }

    fn has_pawn_on_file(&self, attacker: bool, f: i8) -> bool {
        (0..9).any(|r| self.get(f, r) == Some((attacker, PieceType::PAWN)))
    }

    /// Put a non-king piece on `sq` if that keeps the position legal and quiet: the
    /// square is empty, the piece can move, no double pawn, the piece is left in the pool
    /// and it does not attack the enemy king. Returns whether it was placed.
    fn try_place(&mut self, sq: (i8, i8), attacker: bool, pt: PieceType) -> bool {
        let (f, r) = sq;
        if !on_board(f, r) || !self.empty(f, r) {
            return false;
        }
        let raw = if pt.is_promoted() { pt.demote() } else { pt };
        if self.pool[raw.raw() as usize] == 0 {
            return false;
        }
        if Self::dead(attacker, pt, r) {
            return false;
        }
        if pt == PieceType::PAWN && self.has_pawn_on_file(attacker, f) {
            return false;
        }
        if let Some(k) = self.kings[side_index(!attacker)]
            && self.attacks(sq, attacker, pt, k)
        {
            return false;
        }
        self.cells[idx(f, r)] = Some((attacker, pt));
        self.pool[raw.raw() as usize] -= 1;
        true
    }

    /// Remaining pool as (raw type, count) pairs, SFEN hand order.
    fn sfen(&self, hands: [[u8; 8]; 2], flip: bool) -> String {
        let mut s = String::with_capacity(96);
        for rank in 0..9i8 {
            let mut empties = 0;
            for file in (0..9i8).rev() {
                let (f, r) = if flip {
                    (8 - file, 8 - rank)
                } else {
                    (file, rank)
                };
                match self.get(f, r) {
                    None => empties += 1,
                    Some((attacker, pt)) => {
                        if empties > 0 {
                            s.push(char::from(b'0' + empties));
                            empties = 0;
                        }
                        let black = attacker != flip;
                        push_piece(&mut s, pt, black);
                    }
                }
            }
            if empties > 0 {
                s.push(char::from(b'0' + empties));
            }
            if rank < 8 {
                s.push('/');
            }
        }
        s.push_str(if flip { " w " } else { " b " });
        let mut any = false;
        // Black's hand first, then White's.
        for black in [true, false] {
            let hand = &hands[side_index(black != flip)];
            for pt in [
                PieceType::ROOK,
                PieceType::BISHOP,
                PieceType::GOLD,
                PieceType::SILVER,
                PieceType::KNIGHT,
                PieceType::LANCE,
                PieceType::PAWN,
            ] {
                let n = hand[pt.raw() as usize];
                if n == 0 {
                    continue;
                }
                any = true;
                if n > 1 {
                    s.push_str(&n.to_string());
                }
                let c = letter(pt);
                s.push(if black { c } else { c.to_ascii_lowercase() });
            }
        }
        if !any {
            s.push('-');
        }
        s.push_str(" 1");
        s
    }
}

fn letter(pt: PieceType) -> char {
    match pt {
        PieceType::PAWN => 'P',
        PieceType::LANCE => 'L',
        PieceType::KNIGHT => 'N',
        PieceType::SILVER => 'S',
        PieceType::BISHOP => 'B',
        PieceType::ROOK => 'R',
        PieceType::GOLD => 'G',
        _ => 'K',
    }
}

fn push_piece(s: &mut String, pt: PieceType, black: bool) {
    let base = if pt.is_promoted() {
        s.push('+');
        pt.demote()
    } else {
        pt
    };
    let c = letter(base);
    s.push(if black { c } else { c.to_ascii_lowercase() });
}

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
