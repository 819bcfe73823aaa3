//! The proof and disproof pieces of a solved node (docs/search.md, "Proof and disproof
//! pieces"): from the node's hands and its children's pieces in the frame, or for a node
//! EXPAND solves at once, from its move list.

use rsshogi::board::Position as Board;
use rsshogi::types::Move;

use super::hands::{self, FULL, Hand, KeyRule};
use super::machine::Child;
use super::moves::Kind;
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

/// The pieces of a node of `kind` solved by SELECT with `value` over `children`.
pub fn node_pieces(
    board: &Board,
    rule: &KeyRule,
    kind: Kind,
    value: &Value,
    children: &[Child],
) -> Hand {
    let change = |c: &Child| hands::hand_change(board, c.mv);
    match (kind, value.pn == 0) {
        (Kind::Or, true) => {
            let proof = children
                .iter()
                .find(|c| c.value.pn == 0 && c.value.len.saturating_add(1) == value.len)
                .expect("a proven OR node has the proven child of its length");
            hands::proof_back(proof.pieces, change(proof))
        }
        (Kind::And, true) => {
            let union = children
                .iter()
                .fold(hands::EMPTY, |pp, c| hands::max(&pp, &c.pieces));
            keep_blockers(union, board, rule)
        }
        (Kind::Or, false) => {
            let meet = children.iter().fold(FULL, |dp, c| {
                hands::min(&dp, &hands::disproof_back(c.pieces, change(c)))
            });
            no_new_drops(meet, board, rule)
        }
        (Kind::And, false) => {
            let refuter = children
                .iter()
                .find(|c| {
                    c.value.dn == 0 && c.value.rep == value.rep && c.value.bounded == value.bounded
                })
                .expect("a disproven AND node has its refuter");
            let mut dp = refuter.pieces;
            if let hands::HandChange::Drop(k) = change(refuter)
                && rule.complete[k]
            {
                let (h, d) = sides(board, rule);
                dp[k] = dp[k].min(h[k] + d[k] - 1);
            }
            dp
        }
    }
}
