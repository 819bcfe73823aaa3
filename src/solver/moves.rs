//! The children of a node: the move lists of the search and their order.

use rsshogi::board::Position as Board;
use rsshogi::movegen::{LegalAll, MoveListGen};
use rsshogi::types::{Color, Move};

use crate::stream_order::side_stream_key;

/// Which side a node belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The attacker to move: its children are its checks (when it is itself in check,
    /// its evasions that give check).
    Or,
    /// The defender to move, in check: its children are all its legal evasions.
    And,
}

impl Kind {
    /// The kind of the children.
    pub fn flip(self) -> Kind {
        match self {
            Kind::Or => Kind::And,
            Kind::And => Kind::Or,
        }
    }
}

/// The moves of a node of `kind` in `board`, in the order of [`order_children`].
///
/// The set is the reference's (`tsume::reference::tsume_moves`): rsshogi's complete legal
/// generator (pawn-drop mates, double pawns, dead pieces and pins excluded), of which an
/// OR node keeps the moves that give check.
pub fn node_moves(board: &Board, kind: Kind, out: &mut Vec<Move>) {
    out.clear();
    let legal = MoveListGen::<LegalAll>::new(board);
    match kind {
        Kind::Or => out.extend(
            legal
                .iter()
                .copied()
                .filter(|&mv| board.gives_check_move(mv)),
        ),
        Kind::And => out.extend(legal.iter().copied()),
    }
    order_children(board.turn(), out);
}

/// The number of children of a node of `kind` in `board` (of [`node_moves`], without
/// their order), or for an OR node only whether it has one (0 or 1): what a child count
/// needs (docs/search.md, "Child counts").
pub fn count_moves(board: &Board, kind: Kind) -> usize {
    let legal = MoveListGen::<LegalAll>::new(board);
    match kind {
        Kind::Or => usize::from(legal.iter().any(|&mv| board.gives_check_move(mv))),
        Kind::And => legal.as_slice().len(),
    }
}

/// Puts the children into the order of the chip's move stream
/// ([`crate::stream_order`]: by channel, then destination lowest first in the side to
/// move's view). Every tie-break of the search ("lowest index") refers to this order.
pub fn order_children(side: Color, moves: &mut [Move]) {
    moves.sort_by_cached_key(|&mv| side_stream_key(side, mv));
}
