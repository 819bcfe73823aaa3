//! Hands, proof pieces and disproof pieces for the pieces table (docs/search.md, "The
//! pieces table"): a hand is 7 counts in rsshogi's hand order (pawn, lance, knight, silver,
//! bishop, rook, gold), compared per kind.

use rsshogi::board::Position as Board;
use rsshogi::types::{Bitboard, Color, HandPiece, Move, PieceType, Square};

use super::pieces::Probe;
use super::position_hash::{HAND_MAX, Keys};
use super::{Config, Kind};

/// A hand: the count of each hand kind.
pub type Hand = [u8; 7];

/// Every count at its kind's full number: a disproof's "any".
pub const FULL: Hand = [18, 4, 4, 4, 2, 2, 4];

/// No piece.
pub const EMPTY: Hand = [0; 7];

/// `a <= b` in every kind.
pub fn le(a: &Hand, b: &Hand) -> bool {
    a.iter().zip(b).all(|(x, y)| x <= y)
}

/// The per-kind maximum.
pub fn max(a: &Hand, b: &Hand) -> Hand {
    std::array::from_fn(|k| a[k].max(b[k]))
}

/// The per-kind minimum.
pub fn min(a: &Hand, b: &Hand) -> Hand {
    std::array::from_fn(|k| a[k].min(b[k]))
}

/// The hand of `colour` in `board`.
pub fn hand_of(board: &Board, colour: Color) -> Hand {
    let hand = board.hands_array()[colour.to_index()];
    let mut out = EMPTY;
    for p in HandPiece::iter() {
        out[p.to_index()] = hand.count(p) as u8;
    }
    out
}

/// The hand index of a piece type's base kind (`None` for the king).
fn kind_index(pt: PieceType) -> Option<usize> {
    HandPiece::from_piece_type(pt.demote()).map(|p| p.to_index())
}

/// The kinds whose pieces on the board and in both hands make their full number: fixed
/// for a whole solve (no move changes the totals).
pub fn complete_kinds(board: &Board) -> [bool; 7] {
    let hands = board.hands_array();
    let mut count = [0u32; 7];
    for p in HandPiece::iter() {
        count[p.to_index()] = hands[0].count(p) + hands[1].count(p);
    }
    for i in 0..81 {
        let piece = board.piece_on(Square::from_index(i));
        if !piece.is_empty()
            && let Some(k) = kind_index(piece.piece_type())
        {
            count[k] += 1;
        }
    }
    std::array::from_fn(|k| count[k] as usize == HAND_MAX[k])
}

/// How a move changes its mover's hand: a drop of kind `k` (`-1`), a capture of a piece of
/// base kind `k` (`+1`), or neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HandChange {
    None,
    Drop(usize),
    Capture(usize),
}

impl HandChange {
    /// The chip's 4-bit code of the change (`hdl/search/hands.spade`, `move_change`): 0
    /// none, `k + 1` a drop of hand kind `k`, `9 + k` a capture of base kind `k`.
    pub fn code(self) -> u8 {
        match self {
            HandChange::None => 0,
            HandChange::Drop(k) => k as u8 + 1,
            HandChange::Capture(k) => k as u8 + 9,
        }
    }
}

/// What `mv` (legal in `board`) does to the mover's hand.
pub fn hand_change(board: &Board, mv: Move) -> HandChange {
    if let Some(pt) = mv.dropped_piece() {
        return HandChange::Drop(kind_index(pt).expect("a dropped piece is a hand piece"));
    }
    let captured = board.piece_on(mv.to_sq());
    if captured.is_empty() {
        HandChange::None
    } else {
        HandChange::Capture(kind_index(captured.piece_type()).expect("a king is not captured"))
    }
}

/// A hand after `change`.
pub fn after(mut hand: Hand, change: HandChange) -> Hand {
    match change {
        HandChange::None => {}
        HandChange::Drop(k) => hand[k] -= 1,
        HandChange::Capture(k) => hand[k] += 1,
    }
    hand
}

/// An OR child's proof pieces taken back over the attacker's move: a drop adds the piece,
/// a capture removes it.
pub fn proof_back(mut pp: Hand, change: HandChange) -> Hand {
    match change {
        HandChange::None => {}
        HandChange::Drop(k) => pp[k] += 1,
        HandChange::Capture(k) => pp[k] = pp[k].saturating_sub(1),
    }
    pp
}

/// An OR child's disproof pieces taken back over the attacker's move: a drop adds the
/// piece (saturating at the full number), a capture removes it.
pub fn disproof_back(mut dp: Hand, change: HandChange) -> Hand {
    match change {
        HandChange::None => {}
        HandChange::Drop(k) => dp[k] = (dp[k] + 1).min(FULL[k]),
        HandChange::Capture(k) => dp[k] = dp[k].saturating_sub(1),
    }
    dp
}

/// Whether the defender to move in `board` (in check) could answer the check with a drop:
/// one checker, with an empty square between it and the king.
pub fn drop_can_block(board: &Board) -> bool {
    let checkers = board.checkers();
    if checkers.count() != 1 {
        return false;
    }
    let checker = checkers.lsb().expect("one checker");
    let king = board.king_square(board.turn());
    Bitboard::between(checker, king).any()
}

/// The table key of a node for the pieces table: its hash `hash` with both hands' keys
/// taken out and the defender's counts of the incomplete kinds put back (with
/// `hand_superiority`; else the hash as it is), and `plies[left]` unless `depth_free`.
pub struct KeyRule {
    pub hand_superiority: bool,
    pub depth_free: bool,
    pub attacker: Color,
    pub complete: [bool; 7],
}

impl KeyRule {
    /// The rule of a solve of `config` whose root is `board` as a node of `kind`: the
    /// attacker moves at its OR nodes, the complete kinds are its own.
    pub fn of(config: &Config, board: &Board, kind: Kind) -> KeyRule {
        KeyRule {
            hand_superiority: config.hand_superiority,
            depth_free: config.depth_free,
            attacker: match kind {
                Kind::Or => board.turn(),
                Kind::And => board.turn().flip(),
            },
            complete: complete_kinds(board),
        }
    }

    /// The table probe of the node `board` (position hash `hash`) with `left` plies left:
    /// its key under the rule and its attacker's hand.
    pub fn probe(&self, board: &Board, hash: u64, left: u32) -> Probe {
        let h = hands(board);
        Probe {
            key: self.key(hash, &h, left),
            hand: self.attacker_hand(&h),
            left,
        }
    }

    /// The key of a node with position hash `hash`, hands `hands` (black, white) and
    /// `left` plies left.
    pub fn key(&self, hash: u64, hands: &[Hand; 2], left: u32) -> u64 {
        let keys = Keys::get();
        let mut k = hash;
        if self.hand_superiority {
            for colour in [Color::BLACK, Color::WHITE] {
                let hand = &hands[colour.to_index()];
                let defender = colour != self.attacker;
                for (p, &n) in hand.iter().enumerate() {
                    if !defender || self.complete[p] {
                        k ^= keys.hand_key(colour.to_index(), p, n as usize);
                    }
                }
            }
        }
        if !self.depth_free {
            k = keys.table_key(k, left);
        }
        k
    }

    /// Whether the attacker is white, as the chip takes the attacker's colour.
    pub fn attacker_white(&self) -> bool {
        self.attacker == Color::WHITE
    }

    /// The complete kinds as the chip takes them: bit k for hand kind k.
    pub fn complete_mask(&self) -> u8 {
        self.complete
            .iter()
            .enumerate()
            .map(|(k, &c)| u8::from(c) << k)
            .sum()
    }

    /// The attacker's hand among `hands`.
    pub fn attacker_hand(&self, hands: &[Hand; 2]) -> Hand {
        hands[self.attacker.to_index()]
    }
}

/// The hands (black, white) of `board`.
pub fn hands(board: &Board) -> [Hand; 2] {
    [hand_of(board, Color::BLACK), hand_of(board, Color::WHITE)]
}

/// The hands after `mv` by the side to move of `board`, whose hands are `hands`.
pub fn hands_after(board: &Board, hands: &[Hand; 2], mv: Move) -> [Hand; 2] {
    let mut out = *hands;
    let us = board.turn().to_index();
    out[us] = after(out[us], hand_change(board, mv));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hands_compare_per_kind() {
        let a: Hand = [1, 0, 0, 0, 0, 0, 1];
        let b: Hand = [2, 0, 0, 0, 0, 0, 1];
        assert!(le(&a, &b) && !le(&b, &a) && le(&a, &a));
        assert_eq!(max(&a, &[0, 1, 0, 0, 0, 0, 0]), [1, 1, 0, 0, 0, 0, 1]);
        assert_eq!(min(&b, &[5, 1, 0, 0, 0, 0, 0]), [2, 0, 0, 0, 0, 0, 0]);
        assert_eq!(proof_back(a, HandChange::Drop(6)), [1, 0, 0, 0, 0, 0, 2]);
        assert_eq!(proof_back(a, HandChange::Capture(1)), a);
        assert_eq!(disproof_back(FULL, HandChange::Drop(0)), FULL);
        assert_eq!(disproof_back(FULL, HandChange::Capture(0))[0], 17);
    }

    #[test]
    fn a_composed_problem_has_every_kind_complete() {
        let pos =
            crate::position::Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1")
                .unwrap();
        assert_eq!(complete_kinds(pos.inner()), [true; 7]);
        // The same without the defender's rooks: the rook is missing.
        let pos = crate::position::Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b G2b3g4s4n4l17p 1")
            .unwrap();
        let c = complete_kinds(pos.inner());
        assert!(!c[5] && c[0] && c[6]);
    }
}
