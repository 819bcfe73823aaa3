//! The mating line: read from the proof in the table after a proven search (attacker: a
//! proven move of least length; defender: the reply of greatest length), by the searcher's
//! own walk where it has one (the chip's) and here otherwise, then checked move by move by
//! the reference (docs/search.md, "The mating line"). The chip's twin is
//! `hdl/search/line_walk.spade`, the walk with the same picks, which hands a node back to
//! this line where it would search a lost proof again. `tests/hw_solver.rs` compares the
//! two: the lines of the chip's solves (walked on chip, the suite's to the mate) equal
//! the model's, and with a table of 2 sets some walks hand a node back.

use rsshogi::board::Position as Board;
use rsshogi::types::{Move, PieceType};

use super::moves::{Kind, node_moves_under};
use super::position_hash::Keys;
use super::{Reason, Searcher};
use crate::futile::{Rule, mated_by_rule};
use crate::position::Position;
use crate::reference::tsume_moves;

/// A child on the line: its move and the length of its proof.
#[derive(Clone, Copy)]
struct Pick {
    mv: Move,
    len: u16,
}

/// The line of `board`, a root of `root` proven with `plies` plies left on `searcher`,
/// checked by the reference. A child whose proof the table lost is searched again (a
/// search rooted at it, on the same table and counters).
///
/// With `exact` the root's distance is `plies` (a search within `plies - 2` failed), and
/// the line keeps it: every reply of the defender on it is one that is not mated within
/// two plies fewer than its best ([`keeps_distance`]), so the line is `plies` long. A
/// proof's length in the table is the length of the mate found, which may be longer than
/// the shortest, so the reply of greatest length is checked, and replaced by the first
/// reply in stream order that keeps the distance when it does not.
pub fn line<S: Searcher + ?Sized>(
    searcher: &mut S,
    board: &Board,
    root: Kind,
    plies: u32,
    exact: bool,
    node_limit: u64,
) -> Result<Vec<Move>, Reason> {
    let keys = Keys::get();
    let mut b = board.clone_compact();
    let mut h = keys.hash(&b);
    let mut kind = root;
    let mut line: Vec<Move> = Vec::new();
    let mut moves = Vec::new();
    loop {
        // The searcher's own walk first, when it has one; then one node here (a lost proof
        // searched again, or what the walk leaves), and the walk again after it.
        if let Some(walk) = searcher.walk(&b, kind, plies.saturating_sub(line.len() as u32))? {
            let mut whole = true;
            for &mv in &walk.moves {
                let left = plies.saturating_sub(line.len() as u32);
                if exact
                    && kind == Kind::And
                    && !keeps_distance(searcher, &b, h, mv, left, node_limit)?
                {
                    // The walk's reply shortens the line: this node is picked here.
                    whole = false;
                    break;
                }
                h = keys.after(&b, h, mv);
                b.apply_move(mv);
                line.push(mv);
                kind = kind.flip();
            }
            if whole && walk.complete {
                break;
            }
        }
        node_moves_under(&b, kind, searcher.interpositions(), &mut moves);
        if kind == Kind::And && moves.is_empty() {
            break;
        }
        // Plies left at this node; each proof below fits in one fewer.
        let left = plies
            .checked_sub(line.len() as u32)
            .filter(|&l| l >= 1)
            .ok_or_else(|| Reason::LineUnreadable(format!("the line outgrew its {plies} plies")))?;
        let proven = |s: &mut S, mv: Move| -> Result<Option<u16>, Reason> {
            let mut child = b.clone_compact();
            child.apply_move(mv);
            let hash = keys.after(&b, h, mv);
            let found = s.lookup_node(&child, kind.flip(), hash, left - 1)?;
            Ok(found.filter(|f| f.pn == 0).map(|f| f.len))
        };
        let pick = match kind {
            Kind::Or => {
                let mut pick: Option<Pick> = None;
                for &mv in &moves {
                    if let Some(len) = proven(searcher, mv)?
                        && pick.is_none_or(|p| len < p.len)
                    {
                        pick = Some(Pick { mv, len });
                    }
                }
                match pick {
                    Some(p) => p,
                    None => research_or(searcher, &b, left, node_limit)?,
                }
            }
            Kind::And => {
                let mut pick: Option<Pick> = None;
                for &mv in &moves {
                    let len = match proven(searcher, mv)? {
                        Some(len) => len,
                        None => {
                            let mut child = b.clone_compact();
                            child.apply_move(mv);
                            research_child(searcher, &child, left - 1, node_limit)?
                        }
                    };
                    if pick.is_none_or(|p| len > p.len) {
                        pick = Some(Pick { mv, len });
                    }
                }
                let pick = pick.expect("a defender with moves has a pick");
                if exact && !keeps_distance(searcher, &b, h, pick.mv, left, node_limit)? {
                    best_reply(searcher, &b, h, &moves, pick.mv, left, node_limit)?
                } else {
                    pick
                }
            }
        };
        h = keys.after(&b, h, pick.mv);
        b.apply_move(pick.mv);
        line.push(pick.mv);
        kind = kind.flip();
    }
    if exact && line.len() as u32 != plies {
        return Err(Reason::LineUnreadable(format!(
            "the line of a mate in {plies} is {} plies long",
            line.len()
        )));
    }
    let start = Position::from_sfen(&board.to_sfen(None))
        .map_err(|e| Reason::LineRejected(format!("the root does not read back from SFEN: {e}")))?;
    check_line(&start, root, searcher.interpositions(), &line).map_err(Reason::LineRejected)?;
    Ok(line)
}

/// Whether the defender's reply `mv` at `b` (hash `h`), a node mated in exactly `left`
/// plies, keeps that distance: the attacker's position after it is not mated within
/// `left - 3` plies (every reply is mated within `left - 1`). Read from the table when it
/// holds the answer (the failed search within two plies fewer leaves the best replies'
/// disproofs there), else searched.
pub(crate) fn keeps_distance<S: Searcher + ?Sized>(
    searcher: &mut S,
    b: &Board,
    h: u64,
    mv: Move,
    left: u32,
    node_limit: u64,
) -> Result<bool, Reason> {
    if left < 4 {
        return Ok(true);
    }
    let mut child = b.clone_compact();
    child.apply_move(mv);
    let hash = Keys::get().after(b, h, mv);
    if let Some(found) = searcher.lookup_node(&child, Kind::Or, hash, left - 3)?
        && (found.pn == 0 || found.dn == 0)
    {
        return Ok(found.dn == 0);
    }
    Ok(searcher.search(&child, Kind::Or, left - 3, node_limit)?.pn != 0)
}

/// The first of the defender's `moves` at `b` (hash `h`, mated in exactly `left` plies)
/// that keeps the distance, with the length it keeps; `failed` is already known not to.
fn best_reply<S: Searcher + ?Sized>(
    searcher: &mut S,
    b: &Board,
    h: u64,
    moves: &[Move],
    failed: Move,
    left: u32,
    node_limit: u64,
) -> Result<Pick, Reason> {
    for &mv in moves.iter().filter(|&&mv| mv != failed) {
        if keeps_distance(searcher, b, h, mv, left, node_limit)? {
            let len = u16::try_from(left - 1).unwrap_or(u16::MAX);
            return Ok(Pick { mv, len });
        }
    }
    Err(Reason::LineUnreadable(format!(
        "no reply of {} keeps its mate in {left}",
        b.to_sfen(None)
    )))
}

/// The attacker's position `b` had no proven child in the table: searched again as a
/// root, its proven child of least length from the root frame.
fn research_or<S: Searcher + ?Sized>(
    searcher: &mut S,
    b: &Board,
    left: u32,
    node_limit: u64,
) -> Result<Pick, Reason> {
    research(searcher, b, left, node_limit, "")?;
    let mut pick: Option<Pick> = None;
    for (mv, value) in searcher.root_children()? {
        if value.pn == 0 && pick.is_none_or(|p| value.len < p.len) {
            pick = Some(Pick { mv, len: value.len });
        }
    }
    pick.ok_or_else(|| {
        Reason::LineUnreadable(format!(
            "{} was proven again but its frame holds no proven child",
            b.to_sfen(None)
        ))
    })
}

/// A defender's reply `child` (an attacker position) lost its proof: searched again as a
/// root; the length of its proof.
fn research_child<S: Searcher + ?Sized>(
    searcher: &mut S,
    child: &Board,
    left: u32,
    node_limit: u64,
) -> Result<u16, Reason> {
    research(searcher, child, left, node_limit, "the reply leading to ")
}

/// The attacker's position `b`, proven before, searched again as a root with `left` plies
/// left on the solve's table: the length of its proof, or an unreadable line (`what` and
/// the position named) if the search does not prove it.
fn research<S: Searcher + ?Sized>(
    searcher: &mut S,
    b: &Board,
    left: u32,
    node_limit: u64,
    what: &str,
) -> Result<u16, Reason> {
    let v = searcher.search(b, Kind::Or, left, node_limit)?;
    if v.pn != 0 {
        return Err(Reason::LineUnreadable(format!(
            "{what}{} was proven but a search of it alone does not prove it",
            b.to_sfen(None)
        )));
    }
    Ok(v.len)
}

/// Checks a mating line from `pos`, a root of `root`, with the reference: an odd number
/// of moves from an attacker's root, even from a defender's (which must be in check); the
/// attacker's each a legal move that gives check (from its list: its checks, or its
/// evasions when in check), the defender's each a legal evasion, the last position mate
/// (under the composers' `rule`: every evasion left a futile interposition) and not by a
/// pawn drop. The error names the ply and the move.
pub fn check_line(pos: &Position, root: Kind, rule: Rule, line: &[Move]) -> Result<(), String> {
    let odd = root == Kind::Or;
    if line.len() % 2 != usize::from(odd) {
        let want = if odd { "odd" } else { "even" };
        let whose = if odd { "attacker" } else { "defender" };
        return Err(format!(
            "{} plies: a mating line from the {whose}'s move has an {want} number of moves",
            line.len()
        ));
    }
    if !odd && !pos.inner().is_in_check() {
        return Err(format!(
            "{pos}: the defender to move at the root is not in check"
        ));
    }
    // The attacker's plies: 0, 2, 4, ... from its root; 1, 3, 5, ... from the defender's.
    let first = usize::from(!odd);
    let mut p = pos.clone();
    for (i, &mv) in line.iter().enumerate() {
        let set = tsume_moves(&p);
        if !set.moves.iter().any(|m| m.mv == mv) {
            return Err(format!(
                "ply {}: {} is not in the reference's list of {p}",
                i + 1,
                mv.to_usi()
            ));
        }
        if i >= first && (i - first) % 2 == 0 && !p.inner().gives_check_move(mv) {
            return Err(format!(
                "ply {}: the attacker's {} in {p} gives no check",
                i + 1,
                mv.to_usi()
            ));
        }
        p = p.after(mv);
    }
    let left = tsume_moves(&p).moves.len();
    let mated = match rule {
        Rule::EveryInterposition => left == 0,
        Rule::Composers => mated_by_rule(&mut p.inner().clone_compact()),
    };
    if !mated {
        return Err(format!(
            "the last position {p} is not mate: the defender has {left} evasions"
        ));
    }
    if let Some(&last) = line.last()
        && last.dropped_piece() == Some(PieceType::PAWN)
    {
        return Err(format!("the mate {} is by a pawn drop", last.to_usi()));
    }
    Ok(())
}
