//! EXPAND: a node's move list into its frame (docs/search.md, "Child frames and the state
//! machine"), every child with its hash and its first value: a repetition of the path, a
//! table entry, or a new node. The chip's twin is `hdl/search/expand.spade` (the children
//! in stream order, the same probes); `tests/hw_expand.rs` compares the two on random
//! nodes, tables and paths, with both tables ([`expand`](fn@expand), [`expand_with`]).
//!
//! Child counts ([`count_children`], docs/search.md, "Child counts") and count estimates
//! ([`estimate_children`]): the chip gives `attacked`'s estimates (its count unit in EXPAND),
//! never counts.

use rsshogi::board::Position as Board;
use rsshogi::types::Move;

use super::Reason;
use super::child_frames::Child;
use super::count_estimate::{self, Estimate, NodeSignals};
use super::hands::{self, EMPTY, Hand};
use super::moves::{Kind, ReplyCache, count_moves, node_moves_under};
use super::position_hash::{KeyRule, Keys};
use super::solved_pieces::leaf_pieces;
use super::transposition_table::Table;
use super::values::{Pn, Value};
use crate::futile::Rule;

/// The node EXPAND works on: its ply, the plies left at the root, its hash.
#[derive(Debug, Clone, Copy)]
pub struct Node {
    /// The ply of the node (0: the root).
    pub ply: usize,
    /// Plies left at the root (the node has `root_left - ply`).
    pub root_left: u32,
    /// The node's position hash.
    pub hash: u64,
    /// Which of the defender's replies are children (docs/search.md, "Futile
    /// interpositions"; the chip: every one).
    pub rule: Rule,
}

/// EXPAND of the node `node` of `kind` in `board` (docs/search.md, "Child frames and the
/// state machine"), as the machine and the chip do it: its move list into `moves`, then
/// the child limit, the terminal cases and the no-plies-left case in this order; otherwise
/// every child into `children` (cleared first) in stream order with its hash and value: a
/// repetition of the path's hash `path(q)` at ply q = d - 1, d - 3, ... (`(INF, 0)` with
/// `rep = q`), else one probe of `table` (counted in `probes`) with the child's table key,
/// its entry or [`Value::NEW`]. `Ok(Some(value))`: the node returns that value at once;
/// `Ok(None)`: the frame is filled (go to SELECT).
#[allow(clippy::too_many_arguments)]
pub fn expand(
    board: &Board,
    kind: Kind,
    node: Node,
    path: impl Fn(usize) -> u64,
    table: &Table,
    max_children: usize,
    moves: &mut Vec<Move>,
    children: &mut Vec<Child>,
    probes: &mut u64,
) -> Result<Option<Value>, Reason> {
    let keys = Keys::get();
    expand_with(
        board,
        kind,
        node,
        path,
        max_children,
        moves,
        children,
        probes,
        |hash, _| {
            let left = node.root_left - node.ply as u32;
            table
                .probe(keys.table_key(hash, left - 1))
                .map(|f| (Value::found(f.pn, f.dn, f.len, f.bounded), EMPTY))
        },
    )
}

/// [`expand`](fn@expand) with the table read by `probe` (the child's hash and move: its
/// value and pieces, if an entry applies).
#[allow(clippy::too_many_arguments)]
pub fn expand_with(
    board: &Board,
    kind: Kind,
    node: Node,
    path: impl Fn(usize) -> u64,
    max_children: usize,
    moves: &mut Vec<Move>,
    children: &mut Vec<Child>,
    probes: &mut u64,
    mut probe: impl FnMut(u64, Move) -> Option<(Value, Hand)>,
) -> Result<Option<Value>, Reason> {
    children.clear();
    node_moves_under(board, kind, node.rule, moves);
    if moves.len() > max_children {
        return Err(Reason::ChildLimit {
            children: moves.len(),
            max_children,
        });
    }
    if moves.is_empty() {
        return Ok(Some(match kind {
            Kind::Or => Value::NO_CHECK,
            Kind::And => Value::PROVEN_LEAF,
        }));
    }
    let d = node.ply;
    let left = node.root_left - d as u32;
    if left == 0 {
        return Ok(Some(Value::NO_PLY_LEFT));
    }
    let keys = Keys::get();
    let parent = node.hash;
    for &mv in moves.iter() {
        let hash = keys.after(board, parent, mv);
        // The path's positions with the child's side to move: plies d - 1, d - 3, ...
        let repeated = (0..d).rev().step_by(2).find(|&q| path(q) == hash);
        let (value, pieces) = if let Some(q) = repeated {
            let rep = Value {
                rep: q as u16,
                ..Value::NO_CHECK
            };
            (rep, hands::FULL)
        } else {
            *probes += 1;
            probe(hash, mv).unwrap_or((Value::NEW, EMPTY))
        };
        children.push(Child {
            mv,
            hash,
            value,
            pieces,
        });
    }
    Ok(None)
}

/// Child counts (docs/search.md, "Child counts"): each child among `children` of an
/// expanded node of `kind` in `board` with the value of a new node gets its first numbers
/// from its replies, counted with the move made (and kept in `replies` for the children
/// met again): none, the child is solved (a defender mated, an attacker without a check);
/// at an OR node the defender's number of replies is its proof number. One count each, in
/// `counts`; no node. With the pieces table (`pieces`, the solve's rule), a child solved
/// by its count gets its pieces.
pub fn count_children(
    board: &mut Board,
    kind: Kind,
    pieces: Option<&KeyRule>,
    replies: &mut ReplyCache,
    counts: &mut u64,
    children: &mut [Child],
) {
    for child in children.iter_mut().filter(|c| c.value == Value::NEW) {
        *counts += 1;
        // A child solved by its count needs the board after its move for its pieces.
        match replies.get(child.hash) {
            Some(0) if pieces.is_some() => {}
            Some(n) => {
                child.value = first_value(kind, n);
                continue;
            }
            None => {}
        }
        board.apply_move(child.mv);
        let n = count_moves(board, kind.flip()) as Pn;
        replies.put(child.hash, n);
        let value = first_value(kind, n);
        if let Some(rule) = pieces
            && n == 0
        {
            child.pieces = leaf_pieces(board, rule, kind.flip(), value, &[]);
        }
        child.value = value;
        board
            .undo_move(child.mv)
            .expect("undo of the move just made");
    }
}

/// Count estimates (docs/search.md, "Child counts"): each child among `children` of an
/// expanded OR node `board` with the value of a new node gets `(e, 1)`, `e` its estimate
/// ([`count_estimate::estimate`], at least 1: nothing is solved); an AND node's children
/// keep (1, 1). No count, no node.
pub fn estimate_children(board: &Board, kind: Kind, estimate: Estimate, children: &mut [Child]) {
    if kind != Kind::Or {
        return;
    }
    let node = NodeSignals::of(board);
    for child in children.iter_mut().filter(|c| c.value == Value::NEW) {
        child.value.pn = count_estimate::estimate(board, &node, estimate, child.mv);
    }
}

/// A new child's first value from its replies counted, under a parent of `kind`: none, the
/// child is solved (a defender mated, an attacker without a check); at an OR node the
/// defender's number of replies is its proof number.
fn first_value(kind: Kind, replies: Pn) -> Value {
    match kind {
        Kind::Or if replies == 0 => Value::PROVEN_LEAF,
        Kind::Or => Value {
            pn: replies,
            ..Value::NEW
        },
        Kind::And if replies == 0 => Value::NO_CHECK,
        Kind::And => Value::NEW,
    }
}
