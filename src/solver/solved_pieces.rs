//! The proof and disproof pieces of a solved node (docs/search.md, "Proof and disproof
//! pieces"): from the node's hands and its children's pieces in the frame, or for a node
//! EXPAND solves at once, from its move list. The chip's twin is
//! `hdl/search/solved_pieces.spade` (the node's own rules, on what SELECT's scan folded,
//! [`scan_pieces`], which `hdl/search/select.spade` computes and `tests/hw_select.rs`
//! compares). No test drives the rules alone: `tests/hw_solver.rs` covers them with hand
//! superiority's searches, every store (the pieces kept) compared with the model's.

use rsshogi::board::Position as Board;
use rsshogi::types::Move;

use super::child_frames::Child;
use super::hands::{self, FULL, Hand, HandChange};
use super::moves::Kind;
use super::position_hash::KeyRule;
use super::values::Value;

/// The attacker's and the defender's hands at a node of `board`.
fn sides(board: &Board, rule: &KeyRule) -> (Hand, Hand) {
    (
        hands::hand_of(board, rule.attacker),
        hands::hand_of(board, rule.attacker.flip()),
    )
}

/// A proof of an AND node needs the attacker to keep every complete kind the defender
/// holds none of, where a drop could block the check: with fewer, the defender would hold
/// a piece to interpose.
fn keep_blockers(mut pp: Hand, board: &Board, rule: &KeyRule) -> Hand {
    if !hands::drop_can_block(board) {
        return pp;
    }
    let (h, d) = sides(board, rule);
    for k in 0..7 {
        if rule.complete[k] && d[k] == 0 {
            pp[k] = pp[k].max(h[k]);
        }
    }
    pp
}

/// A disproof of an OR node holds only while the attacker holds none of the kinds it
/// holds none of now: one more would be a drop the disproof never met.
fn no_new_drops(mut dp: Hand, board: &Board, rule: &KeyRule) -> Hand {
    let (h, _) = sides(board, rule);
    for k in 0..7 {
        if h[k] == 0 {
            dp[k] = 0;
        }
    }
    dp
}

/// The pieces of a node of `kind` that EXPAND solves with `value` from its move list
/// `moves`: no check (disproof), mated (proof), or no plies left (bounded disproof).
pub fn leaf_pieces(
    board: &Board,
    rule: &KeyRule,
    kind: Kind,
    value: Value,
    moves: &[Move],
) -> Hand {
    match kind {
        Kind::Or => no_new_drops(FULL, board, rule),
        Kind::And if value.pn == 0 => keep_blockers(hands::EMPTY, board, rule),
        Kind::And => {
            if moves.iter().any(|m| m.dropped_piece().is_none()) {
                FULL
            } else {
                let (h, _) = sides(board, rule);
                std::array::from_fn(|k| if rule.complete[k] { h[k] } else { FULL[k] })
            }
        }
    }
}

/// The pieces SELECT's scan gives a node of `kind` solved with `value` over its children
/// (value, pieces, the move's hand change, in frame order), before the node's own rules,
/// and the refuter's hand change: OR proven, the first proven child of least length's
/// pieces taken back; AND proven, the union of the children's; OR disproven, the meet of
/// theirs taken back; AND disproven, the refuter's (the first of greatest `rep`, an
/// unbounded one before a bounded one). The chip's scan computes the same
/// (`hdl/search/select.spade`, `tests/hw_select.rs`).
pub fn scan_pieces<'a>(
    kind: Kind,
    value: &Value,
    children: impl IntoIterator<Item = (&'a Value, Hand, HandChange)>,
) -> (Hand, HandChange) {
    let mut union = hands::EMPTY;
    let mut meet = FULL;
    let mut proof: Option<(u16, Hand)> = None;
    let mut refuter: Option<(u16, bool, Hand, HandChange)> = None;
    for (v, pieces, change) in children {
        union = hands::max(&union, &pieces);
        meet = hands::min(&meet, &hands::disproof_back(pieces, change));
        let solves = match kind {
            Kind::Or => v.pn == 0,
            Kind::And => v.dn == 0,
        };
        if !solves {
            continue;
        }
        if proof.is_none_or(|(len, _)| v.len < len) {
            proof = Some((v.len, hands::proof_back(pieces, change)));
        }
        if refuter.is_none_or(|(rep, bounded, ..)| (v.rep, !v.bounded) > (rep, !bounded)) {
            refuter = Some((v.rep, v.bounded, pieces, change));
        }
    }
    let refuter_change = refuter.map_or(HandChange::None, |r| r.3);
    let pieces = match (kind, value.pn == 0, value.dn == 0) {
        (Kind::Or, true, _) => proof.map_or(hands::EMPTY, |p| p.1),
        (Kind::And, true, _) => union,
        (Kind::Or, _, true) => meet,
        (Kind::And, _, true) => refuter.map_or(hands::EMPTY, |r| r.2),
        _ => hands::EMPTY,
    };
    (pieces, refuter_change)
}

/// The pieces of a node of `kind` solved by SELECT with `value` over `children`: the
/// scan's ([`scan_pieces`]) with the node's rules.
pub fn node_pieces(
    board: &Board,
    rule: &KeyRule,
    kind: Kind,
    value: &Value,
    children: &[Child],
) -> Hand {
    let (pieces, refuter_change) = scan_pieces(
        kind,
        value,
        children
            .iter()
            .map(|c| (&c.value, c.pieces, hands::hand_change(board, c.mv))),
    );
    match (kind, value.pn == 0) {
        (Kind::Or, true) => pieces,
        (Kind::And, true) => keep_blockers(pieces, board, rule),
        (Kind::Or, false) => no_new_drops(pieces, board, rule),
        (Kind::And, false) => {
            let mut dp = pieces;
            if let HandChange::Drop(k) = refuter_change
                && rule.complete[k]
            {
                let (h, d) = sides(board, rule);
                dp[k] = dp[k].min(h[k] + d[k] - 1);
            }
            dp
        }
    }
}
