//! Hands, proof pieces and disproof pieces for the pieces table (docs/search.md, "The
//! pieces table"): a hand is 7 counts in rsshogi's hand order (pawn, lance, knight, silver,
//! bishop, rook, gold), compared per kind, and a move's hand change. The chip's twin is
//! `hdl/search/hands.spade` (packed hands, `le`, `after`, `move_change`). No test
//! compares them alone: `tests/hw_expand.rs` compares every child's hand change,
//! `tests/hw_select.rs` the pieces taken back over it, `tests/hw_table.rs` the hands of
//! hand superiority's lookups.

use rsshogi::board::Position as Board;
use rsshogi::types::{Bitboard, Color, HandPiece, Move, PieceType, Square};

/// A hand: the count of each hand kind.
pub type Hand = [u8; 7];

/// Every count at its kind's full number, the most a side can hold (pawn, lance, knight,
/// silver, bishop, rook, gold: rsshogi's hand order, also the chip's drop-piece numbers 1
/// to 7): a disproof's "any", the position hash's hand keys, the random positions' pool.
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
    std::array::from_fn(|k| count[k] == u32::from(FULL[k]))
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
