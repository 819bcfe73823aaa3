//! Alternative mates (余詰) and the defender's variations of equal length (変化同手数),
//! after a shortest mate (docs/search.md, "Alternative mates"): host-run searches on the
//! solve's table, written once over [`Searcher`], so the model and the chip answer them
//! alike. No chip block: the chip runs the searches it is handed. `tests/alternatives.rs`
//! checks them against the exhaustive search.

use rsshogi::board::Position as Board;
use rsshogi::types::Move;

use super::line_walk::{self, keeps_distance};
use super::moves::{Kind, node_moves_under};
use super::position_hash::Keys;
use super::{Reason, Searcher};

/// Another attacker move that also mates within the plies left.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alternative {
    /// The ply of the move it replaces (1: the first move).
    pub ply: usize,
    /// The line it replaces it on: the main line (`None`), or the variation of that index
    /// in [`Checked::variations`].
    pub variation: Option<usize>,
    /// The alternative move.
    pub mv: Move,
    /// Its mating line, from the alternative move on.
    pub line: Vec<Move>,
    /// The last attacker move's alternative (最終手余詰), which composers tolerate.
    pub last: bool,
}

/// A defender's reply of greatest length other than the main line's (変化同手数 when the
/// attacker's mate after it is as long).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variation {
    /// The ply of the defender's move it replaces.
    pub ply: usize,
    /// The reply.
    pub mv: Move,
    /// The line from the reply on, to the mate.
    pub line: Vec<Move>,
}

/// What [`alternatives`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Checked {
    pub alternatives: Vec<Alternative>,
    pub variations: Vec<Variation>,
    /// False when a search ended at the node limit or failed: the lists are what was found.
    pub complete: bool,
}

/// The alternative mates of a shortest mate `line` of `board` (a root of `kind`, the
/// line's length its distance): at every attacker move of the main line and of the
/// defender's variations of greatest length (the other replies that keep the distance,
/// each with its shortest line), every other attacker move that also mates within the
/// plies left, with its line. The searches run on `searcher`'s table and counters (the
/// solve's), each until the counters' nodes reach `node_limit`.
pub fn alternatives<S: Searcher + ?Sized>(
    searcher: &mut S,
    board: &Board,
    kind: Kind,
    line: &[Move],
    node_limit: u64,
) -> Checked {
    let mut checked = Checked {
        complete: true,
        ..Checked::default()
    };
    let run = |searcher: &mut S, checked: &mut Checked| -> Result<(), Reason> {
        let mut lines = vec![(None, board.clone_compact(), kind, line.to_vec(), 0)];
        let variations = variations(searcher, board, kind, line, node_limit)?;
        for (index, v) in variations.iter().enumerate() {
            let mut b = board.clone_compact();
            for &mv in &line[..v.ply - 1] {
                b.apply_move(mv);
            }
            lines.push((Some(index), b, Kind::And, v.line.clone(), v.ply - 1));
        }
        checked.variations = variations;
        for (variation, start, kind, moves, played) in lines {
            let found = along(searcher, &start, kind, &moves, played, node_limit)?;
            checked
                .alternatives
                .extend(found.into_iter().map(|a| Alternative { variation, ..a }));
        }
        Ok(())
    };
    if run(searcher, &mut checked).is_err() {
        checked.complete = false;
    }
    checked
}

/// The alternatives along `line` from `start` (a node of `kind`, `played` plies into the
/// problem; the line's length its distance).
fn along<S: Searcher + ?Sized>(
    searcher: &mut S,
    start: &Board,
    kind: Kind,
    line: &[Move],
    played: usize,
    node_limit: u64,
) -> Result<Vec<Alternative>, Reason> {
    let rule = searcher.interpositions();
    let mut found = Vec::new();
    let mut b = start.clone_compact();
    let mut k = kind;
    let mut moves = Vec::new();
    for (i, &main) in line.iter().enumerate() {
        let left = (line.len() - i) as u32;
        if k == Kind::Or {
            node_moves_under(&b, Kind::Or, rule, &mut moves);
            for &mv in moves.iter().filter(|&&mv| mv != main) {
                let mut after = b.clone_compact();
                after.apply_move(mv);
                let mate = if left == 1 {
                    let mut replies = Vec::new();
                    node_moves_under(&after, Kind::And, rule, &mut replies);
                    replies.is_empty().then(Vec::new)
                } else if searcher.search(&after, Kind::And, left - 1, node_limit)?.pn == 0 {
                    Some(line_walk::line(
                        searcher,
                        &after,
                        Kind::And,
                        left - 1,
                        false,
                        node_limit,
                    )?)
                } else {
                    None
                };
                if let Some(rest) = mate {
                    let mut line = vec![mv];
                    line.extend(rest);
                    found.push(Alternative {
                        ply: played + i + 1,
                        variation: None,
                        mv,
                        line,
                        last: left == 1,
                    });
                }
            }
        }
        b.apply_move(main);
        k = k.flip();
    }
    Ok(found)
}

/// The defender's other replies of greatest length on the main `line` of `board` (a root
/// of `kind`): at each defender's node, every reply but the line's that keeps the
/// distance, with its shortest line.
fn variations<S: Searcher + ?Sized>(
    searcher: &mut S,
    board: &Board,
    kind: Kind,
    line: &[Move],
    node_limit: u64,
) -> Result<Vec<Variation>, Reason> {
    let rule = searcher.interpositions();
    let keys = Keys::get();
    let mut out = Vec::new();
    let mut b = board.clone_compact();
    let mut h = keys.hash(&b);
    let mut k = kind;
    let mut moves = Vec::new();
    for (i, &main) in line.iter().enumerate() {
        let left = (line.len() - i) as u32;
        if k == Kind::And {
            node_moves_under(&b, Kind::And, rule, &mut moves);
            for &mv in moves.iter().filter(|&&mv| mv != main) {
                if !keeps_distance(searcher, &b, h, mv, left, node_limit)? {
                    continue;
                }
                let mut after = b.clone_compact();
                after.apply_move(mv);
                // Mated in exactly `left - 1`: a search within it proves it, and the line
                // read keeping the distance is a shortest one.
                if searcher.search(&after, Kind::Or, left - 1, node_limit)?.pn != 0 {
                    return Err(Reason::LineUnreadable(format!(
                        "the reply {} keeps the distance but is not mated within {} plies",
                        mv.to_usi(),
                        left - 1
                    )));
                }
                let rest = line_walk::line(searcher, &after, Kind::Or, left - 1, true, node_limit)?;
                let mut line = vec![mv];
                line.extend(rest);
                out.push(Variation {
                    ply: i + 1,
                    mv,
                    line,
                });
            }
        }
        h = keys.after(&b, h, main);
        b.apply_move(main);
        k = k.flip();
    }
    Ok(out)
}
