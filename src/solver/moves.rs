//! The children of a node: the move lists of the search and their order.

use rsshogi::board::Position as Board;
use rsshogi::movegen::{LegalAll, MoveListGen};
use rsshogi::types::Move;

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
    order_children(out);
}

/// The placeholder key of the order: a move's place in the reference's list.
fn placeholder_key(index: usize, _mv: Move) -> usize {
    index
}

/// Puts the children into the order of the chip's move stream.
///
/// THE SINGLE PLACE WHERE THE ORDER IS CHOSEN. The stream's order (docs/search.md,
/// "Children and their order": by channel, then destination lowest first in the side to
/// move's view) replaces the placeholder key here; until then the children keep the
/// reference's list order. Every tie-break of the search ("lowest index") refers to the
/// order this function leaves.
pub fn order_children(moves: &mut [Move]) {
    let mut keyed: Vec<(usize, Move)> = moves
        .iter()
        .enumerate()
        .map(|(i, &mv)| (placeholder_key(i, mv), mv))
        .collect();
    keyed.sort_by_key(|&(key, _)| key);
    for (slot, (_, mv)) in moves.iter_mut().zip(keyed) {
        *slot = mv;
    }
}
