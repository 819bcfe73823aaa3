//! The children of a node: the move lists of the search and their order. No block of
//! `hdl/search/` is its twin: the chip's lists come from the move generator
//! (`hdl/movegen/`), in the stream order of `src/stream_order.rs` that the lists here take.
//! `tests/solver.rs` compares these lists with the reference's, `tests/hw_movegen.rs` the
//! generator's, and `tests/hw_expand.rs` EXPAND's children with the model's.

use rsshogi::board::MoveList;
use rsshogi::board::Position as Board;
use rsshogi::movegen::{ChecksAll, LegalAll, MoveListGen, generate_moves};
use rsshogi::types::{Color, Move};

use crate::futile::{Rule, is_interposition};
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
///
/// The checks come from rsshogi's check generator where the attacker is not in check (it
/// builds them from the squares that check rather than trying every move), each kept if
/// legal and checking: the same set, as `checks_are_the_legal_moves_that_check` below
/// asserts on fresh random positions.
pub fn node_moves(board: &Board, kind: Kind, out: &mut Vec<Move>) {
    out.clear();
    match kind {
        Kind::Or => with_checks(board, |checks| out.extend(checks)),
        Kind::And => out.extend(MoveListGen::<LegalAll>::new(board).iter().copied()),
    }
    order_children(board.turn(), out);
}

/// [`node_moves`] under `rule`: at an AND node under the composers' rule, the futile
/// interpositions left out ([`crate::futile`]); the order kept.
pub fn node_moves_under(board: &Board, kind: Kind, rule: Rule, out: &mut Vec<Move>) {
    node_moves(board, kind, out);
    if kind == Kind::And
        && rule == Rule::Composers
        && out.iter().any(|&mv| is_interposition(board, mv))
    {
        let mut b = board.clone_compact();
        rule.keep_replies(&mut b, out);
    }
}

/// Calls `f` with the checks of the attacker to move, in rsshogi's order: the check
/// generator's moves kept if legal and checking when the attacker is not in check, else
/// its legal evasions kept if checking (the check generator does not narrow to them).
pub(crate) fn with_checks<R>(
    board: &Board,
    f: impl FnOnce(&mut dyn Iterator<Item = Move>) -> R,
) -> R {
    let in_check = board.is_in_check();
    let mut list = MoveList::new();
    if in_check {
        generate_moves::<LegalAll>(board, &mut list);
    } else {
        generate_moves::<ChecksAll>(board, &mut list);
    }
    let mut checks = list
        .iter()
        .copied()
        .filter(|&mv| (in_check || board.is_legal_move(mv)) && board.gives_check_move(mv));
    f(&mut checks)
}

/// The number of children of a node of `kind` in `board` (of [`node_moves`], without
/// their order), or for an OR node only whether it has one (0 or 1): what a child count
/// needs (docs/search.md, "Child counts").
pub fn count_moves(board: &Board, kind: Kind) -> usize {
    match kind {
        Kind::Or => usize::from(with_checks(board, |checks| checks.next().is_some())),
        Kind::And => MoveListGen::<LegalAll>::new(board).len(),
    }
}

/// The replies counted of recent child counts, by the child's position hash (side to
/// move and hands in it): a child met again, in a transposition or when its parent is
/// expanded again, takes its count from here instead of making its move and generating
/// its replies again. Only the model's time changes: a count is a count, taken or not.
/// Direct-mapped, 2^16 slots; a slot's hash is the whole 64 bits.
#[derive(Default)]
pub struct ReplyCache {
    slots: Vec<(u64, u32)>,
}

impl ReplyCache {
    const BITS: u32 = 16;

    fn slot(hash: u64) -> usize {
        (hash & ((1 << Self::BITS) - 1)) as usize
    }

    /// The replies counted for the position of `hash`, if kept.
    pub fn get(&self, hash: u64) -> Option<u32> {
        let &(h, n) = self.slots.get(Self::slot(hash))?;
        (h == hash && n > 0).then(|| n - 1)
    }

    /// Keeps `replies` for the position of `hash`.
    pub fn put(&mut self, hash: u64, replies: u32) {
        if self.slots.is_empty() {
            self.slots = vec![(0, 0); 1 << Self::BITS];
        }
        self.slots[Self::slot(hash)] = (hash, replies + 1);
    }
}

/// Puts the children into the order of the chip's move stream
/// ([`crate::stream_order`]: by channel, then destination lowest first in the side to
/// move's view). Every tie-break of the search ("lowest index") refers to this order. The
/// key is unique among a position's moves, so the sort need not be stable.
pub fn order_children(side: Color, moves: &mut [Move]) {
    moves.sort_unstable_by_key(|&mv| side_stream_key(side, mv));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::{Kind as Draw, TsumeGenerator, seed_from_env};
    use crate::reference::tsume_moves;

    /// The OR node's children from the check generator are the reference's (every legal
    /// move that gives check), and the child count agrees with them, on fresh random
    /// positions of the attacker to move, and of a side to move in check taken as the
    /// attacker (an OR node after an evasion that checks back).
    #[test]
    fn checks_are_the_legal_moves_that_check() {
        let seed = seed_from_env();
        let mut g = TsumeGenerator::new(seed);
        let mut moves = Vec::new();
        let (mut checked, mut none) = (0, 0);
        for i in 0..20_000 {
            let pos = g.next_position(if i % 4 == 0 {
                Draw::Evasions
            } else {
                Draw::Checks
            });
            let board = pos.inner();
            node_moves(board, Kind::Or, &mut moves);
            let want: Vec<Move> = tsume_moves(&pos)
                .moves
                .iter()
                .map(|m| m.mv)
                .filter(|&mv| board.gives_check_move(mv))
                .collect();
            assert_eq!(
                moves,
                want,
                "TSUME_SEED={seed}: the checks of {} differ from the reference's",
                pos.to_sfen()
            );
            assert_eq!(
                count_moves(board, Kind::Or),
                usize::from(!want.is_empty()),
                "TSUME_SEED={seed}: the child count of {}",
                pos.to_sfen()
            );
            checked += want.len();
            none += usize::from(want.is_empty());
        }
        assert!(none > 0, "TSUME_SEED={seed}: every position had a check");
        assert!(
            checked > 20_000,
            "TSUME_SEED={seed}: only {checked} checks seen"
        );
    }
}
