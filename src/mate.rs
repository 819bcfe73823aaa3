//! Exhaustive mate search on the software reference (vouches for the problem suite;
//! the hardware df-pn solver comes later).
//!
//! # Definition
//!
//! The attacker is the side to move at the root. A *forced mate within `n` plies*
//! (`n` odd) is defined by plain minimax over the reference move sets of
//! [`crate::reference::tsume_moves`]:
//!
//! - at an attacker node with `r` plies left, the attacker may play any legal move that
//!   gives check (its check list; when the attacker itself is in check, because the
//!   defender's last evasion was a counter-check, the legal evasions that also give check);
//!   it wins if one of them leads to a defender node won with `r - 1` plies left; with no
//!   check it loses;
//! - at a defender node (the defender is always in check), the defender is **mated** if it
//!   has no legal evasion; otherwise, with `r = 0` plies left it escapes, and with `r > 0`
//!   the attacker wins only if it wins after *every* evasion with `r - 1` plies left.
//!
//! [`mate_length`] returns the smallest odd `n` (iterative deepening 1, 3, 5, ...) for which
//! the attacker forces mate within `n` plies, i.e. the pure minimax mate distance: the
//! defender always chooses the longest resistance, **useless interpositions included**
//! ([`mate_length_under`] with [`Rule::Composers`] leaves the futile ones out, the
//! composers' length), and no other tsume-shogi conventions apply (no preference for the shortest main line by
//! capture rules, no "the defender holds all remaining pieces" adjustment, no rule about
//! leftover pieces in the attacker's hand). Repetition (sennichite) is ignored; it cannot
//! change the distance: along every line of a shortest forced mate the distance left
//! strictly decreases, so no position repeats. Because both sides only ever play the
//! reference's legal moves, pawn-drop mate, double pawns, dead pieces (forced promotion)
//! and pins are all respected.
//!
//! Results of subtrees are memoised per position (rsshogi's 64-bit Zobrist key, which
//! covers board, hands and side to move): the largest depth at which a node was refuted
//! and the smallest at which it was proven, since being mated within `r` plies implies
//! being mated within any larger `r`.

use std::collections::HashMap;

use rsshogi::board::zobrist::ZobristKey;
use rsshogi::types::Move;

use crate::futile::Rule;
use crate::position::Position;
use crate::reference::tsume_moves;

/// What is known about one position: proven within `proven` plies (`u32::MAX`: never
/// proven), refuted within `refuted` plies (`None`: never refuted).
#[derive(Clone, Copy)]
struct Entry {
    proven: u32,
    refuted: Option<u32>,
}

/// One search (its memo is only valid for one root side; both node kinds share it
/// because the side to move is part of the key).
struct Search {
    memo: HashMap<ZobristKey, Entry>,
    nodes: u64,
    /// Which of the defender's replies count.
    rule: Rule,
}

impl Search {
    fn new(rule: Rule) -> Self {
        Search {
            memo: HashMap::new(),
            nodes: 0,
            rule,
        }
    }

    fn lookup(&self, key: ZobristKey, r: u32) -> Option<bool> {
        let e = self.memo.get(&key)?;
        if e.proven <= r {
            Some(true)
        } else if e.refuted.is_some_and(|d| d >= r) {
            Some(false)
        } else {
            None
        }
    }

    fn store(&mut self, key: ZobristKey, r: u32, won: bool) {
        let e = self.memo.entry(key).or_insert(Entry {
            proven: u32::MAX,
            refuted: None,
        });
        if won {
            e.proven = e.proven.min(r);
        } else {
            e.refuted = Some(e.refuted.map_or(r, |d| d.max(r)));
        }
    }

    /// Whether the side to move (the attacker) mates within `r` plies (`r` odd).
    fn attacker(&mut self, pos: &Position, r: u32) -> bool {
        let key = pos.inner().key();
        if let Some(known) = self.lookup(key, r) {
            return known;
        }
        self.nodes += 1;
        let won = attacker_moves(pos)
            .into_iter()
            .any(|mv| self.defender(&pos.after(mv), r - 1));
        self.store(key, r, won);
        won
    }

    /// Whether the side to move (the defender, in check) is mated within `r` plies
    /// (`r` even).
    fn defender(&mut self, pos: &Position, r: u32) -> bool {
        let key = pos.inner().key();
        if let Some(known) = self.lookup(key, r) {
            return known;
        }
        self.nodes += 1;
        let mut evasions: Vec<Move> = tsume_moves(pos).moves.iter().map(|m| m.mv).collect();
        if self.rule == Rule::Composers {
            self.rule
                .keep_replies(&mut pos.inner().clone_compact(), &mut evasions);
        }
        let won = if evasions.is_empty() {
            true
        } else if r == 0 {
            false
        } else {
            evasions
                .iter()
                .all(|&mv| self.attacker(&pos.after(mv), r - 1))
        };
        self.store(key, r, won);
        won
    }
}

/// The attacker's moves: its checks; when it is itself in check, the legal evasions
/// that give check.
fn attacker_moves(pos: &Position) -> Vec<Move> {
    let set = tsume_moves(pos);
    if pos.in_check() {
        set.moves
            .iter()
            .map(|m| m.mv)
            .filter(|&mv| pos.inner().gives_check_move(mv))
            .collect()
    } else {
        set.moves.iter().map(|m| m.mv).collect()
    }
}

/// The minimax mate distance in plies if the side to move forces mate within `max_plies`
/// (odd: the attacker moves first and last), otherwise None.
///
/// See the module documentation for the exact definition. An even `max_plies` searches
/// up to the odd number below it.
pub fn mate_length(pos: &Position, max_plies: u32) -> Option<u32> {
    mate_length_under(pos, max_plies, Rule::EveryInterposition)
}

/// [`mate_length`] with the defender's replies under `rule`: with [`Rule::Composers`] a
/// futile interposition is no reply (docs/search.md, "Futile interpositions"), the
/// length by the composers' rule.
pub fn mate_length_under(pos: &Position, max_plies: u32, rule: Rule) -> Option<u32> {
    let mut search = Search::new(rule);
    (1..=max_plies)
        .step_by(2)
        .find(|&d| search.attacker(pos, d))
}

/// Every first move of the side to move that forces mate within `plies` plies (`plies`
/// odd), in the reference's order. Empty if there is none. With `plies` equal to
/// [`mate_length`]'s answer these are the moves that keep the shortest mate.
pub fn mating_moves(pos: &Position, plies: u32) -> Vec<Move> {
    mating_moves_under(pos, plies, Rule::EveryInterposition)
}

/// [`mating_moves`] with the defender's replies under `rule`.
pub fn mating_moves_under(pos: &Position, plies: u32, rule: Rule) -> Vec<Move> {
    if plies.is_multiple_of(2) {
        return Vec::new();
    }
    let mut search = Search::new(rule);
    attacker_moves(pos)
        .into_iter()
        .filter(|&mv| search.defender(&pos.after(mv), plies - 1))
        .collect()
}

/// How many distinct positions [`mate_length`] expanded (useful to keep the problem
/// suite cheap to verify).
pub fn mate_length_nodes(pos: &Position, max_plies: u32) -> (Option<u32>, u64) {
    let mut search = Search::new(Rule::EveryInterposition);
    let found = (1..=max_plies)
        .step_by(2)
        .find(|&d| search.attacker(pos, d));
    (found, search.nodes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(sfen: &str) -> Position {
        Position::from_sfen(sfen).expect("valid test position")
    }

    #[test]
    fn head_gold_is_mate_in_one() {
        let p = pos("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1");
        assert_eq!(mate_length(&p, 1), Some(1));
        assert_eq!(mate_length(&p, 2), Some(1));
        assert_eq!(mate_length(&p, 0), None);
        let first: Vec<String> = mating_moves(&p, 1).iter().map(|m| m.to_usi()).collect();
        assert_eq!(first, ["G*5b"]);
        assert!(mating_moves(&p, 2).is_empty());
    }

    #[test]
    fn shortest_distance_is_reported() {
        // Mate in 3 (P*1b first); a deeper limit still reports 3.
        let p = pos("8k/9/6S2/6SN1/9/9/9/9/9 b P2r2b4g2s3n4l17p 1");
        assert_eq!(mate_length(&p, 1), None);
        assert_eq!(mate_length(&p, 3), Some(3));
        assert_eq!(mate_length(&p, 7), Some(3));
        let (found, nodes) = mate_length_nodes(&p, 7);
        assert_eq!(found, Some(3));
        assert!(nodes > 0);
    }

    #[test]
    fn no_check_no_mate() {
        // A lone defending king and nothing to check it with.
        let p = pos("4k4/9/9/9/9/9/9/9/4K4 b - 1");
        assert_eq!(mate_length(&p, 5), None);
    }
}
