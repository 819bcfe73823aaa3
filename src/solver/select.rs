//! SELECT as a pure function: one scan of a frame's children gives the node's value, and
//! either the value it returns with or the child it descends into with that child's
//! thresholds (docs/search.md, "Thresholds" and "Child frames and the state machine").
//!
//! At an AND node a drop waits while an earlier drop to the same square is unproven
//! (docs/search.md, "Interpositions in turn"): the scan sees it as `(1, INF)`.
//!
//! [`Machine`](super::controller::Machine) calls [`select`] on its frames; the chip's scan
//! (`hdl/search/select.spade`) computes the same [`Scan`] and `tests/hw_select.rs` compares
//! the two on random frames.

use super::moves::Kind;
use super::values::{INF, Pn, REP_NONE, Value, add, past_second, share};
use crate::bus::drop_square;

/// What SELECT decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// A threshold is reached (or the node is solved): the node returns with this value.
    Return(Value),
    /// The node is searched further: into child `index` with these thresholds.
    Descend {
        /// The best child (lowest index on ties).
        index: usize,
        /// The child's proof-number threshold.
        th_pn: Pn,
        /// The child's disproof-number threshold.
        th_dn: Pn,
    },
}

/// One scan of a frame: the node's numbers, its best child and second best number, and
/// the decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scan {
    /// The node's proof number (OR: least pn of the children; AND: their saturating sum).
    pub pn: Pn,
    /// The node's disproof number (OR: saturating sum of the dn; AND: their least).
    pub dn: Pn,
    /// The child of least pn (OR) or dn (AND), lowest index on ties (0 if none is below
    /// INF).
    pub best: usize,
    /// The least pn (OR) or dn (AND) of the other children (INF if none).
    pub second: Pn,
    /// Return or descend.
    pub selection: Selection,
}

/// The value the scan of an AND node sees for a drop that waits for an earlier drop to
/// its square: one more leaf to prove, never the child the node descends into.
const WAITING: Value = Value {
    pn: 1,
    dn: INF,
    ..Value::NEW
};

/// The interpositions' turns over one scan: the destinations (the move word's low 7 bits)
/// of the drops seen so far that are not proven.
#[derive(Default)]
struct Turns(u128);

impl Turns {
    /// The value the scan of a node of `kind` takes for the child of move word `word` and
    /// value `v`: [`WAITING`] for an unsolved drop at an AND node while an earlier drop to
    /// its square is unproven, else `v`.
    fn take<'a>(&mut self, kind: Kind, word: u16, v: &'a Value) -> &'a Value {
        let Some(to) = drop_square(word).filter(|_| kind == Kind::And) else {
            return v;
        };
        let square = 1u128 << to;
        let earlier = self.0 & square != 0;
        if v.pn != 0 {
            self.0 |= square;
        }
        if earlier && v.pn != 0 && v.dn != 0 {
            &WAITING
        } else {
            v
        }
    }
}

/// SELECT of a node of `kind` with thresholds `th_pn`, `th_dn` over its children (move
/// word as [`crate::bus::encode_move`] gives it, value) in frame (stream) order: the
/// node's pn and dn, the best child (lowest index on ties), the second best number, and
/// for a solved node its length and dependencies. Returns when a threshold is reached,
/// else descends into the best child.
pub fn select<'a>(
    kind: Kind,
    th_pn: Pn,
    th_dn: Pn,
    children: impl IntoIterator<Item = (u16, &'a Value)>,
) -> Scan {
    // `key` is the number the node minimises over (pn at OR, dn at AND), `other` the one
    // it sums.
    let key_other = |v: &Value| match kind {
        Kind::Or => (v.pn, v.dn),
        Kind::And => (v.dn, v.pn),
    };
    let mut min = INF;
    let mut second = INF;
    let mut best = 0;
    // The best child's `other` number, for its share of the summed threshold: child 0's
    // until a child's key is below the least.
    let mut best_other: Pn = 0;
    let mut sum: Pn = 0;
    // The greatest length, least `rep` and any `bounded` over all children; the least
    // length, and the disproven child of greatest (rep, not bounded), over those whose
    // key is 0 (each solves the node by itself).
    let (mut len_min, mut len_max) = (u16::MAX, 0u16);
    let (mut rep_min, mut any_bounded) = (REP_NONE, false);
    let mut refuter: Option<(u16, bool)> = None;
    let mut turns = Turns::default();
    for (i, (word, v)) in children.into_iter().enumerate() {
        let v = turns.take(kind, word, v);
        let (k, other) = key_other(v);
        if i == 0 {
            best_other = other;
        }
        if k < min {
            second = min;
            min = k;
            best = i;
            best_other = other;
        } else if k < second {
            second = k;
        }
        sum = add(sum, other);
        len_max = len_max.max(v.len);
        rep_min = rep_min.min(v.rep);
        any_bounded |= v.bounded;
        if k == 0 {
            len_min = len_min.min(v.len);
            if refuter.is_none_or(|r| (v.rep, !v.bounded) > (r.0, !r.1)) {
                refuter = Some((v.rep, v.bounded));
            }
        }
    }
    let (pn, dn) = match kind {
        Kind::Or => (min, sum),
        Kind::And => (sum, min),
    };
    let selection = if pn >= th_pn || dn >= th_dn {
        let proven_len = |l: u16| l.saturating_add(1);
        let unsolved = Value {
            pn,
            dn,
            ..Value::NEW
        };
        Selection::Return(match (kind, pn == 0, dn == 0) {
            // OR proven: the least length among the proven children.
            (Kind::Or, true, _) => Value {
                len: proven_len(len_min),
                ..unsolved
            },
            // OR disproven: every child disproven; depends on all of them.
            (Kind::Or, _, true) => Value {
                rep: rep_min,
                bounded: any_bounded,
                ..unsolved
            },
            // AND proven: every child proven; the longest.
            (Kind::And, true, _) => Value {
                len: proven_len(len_max),
                ..unsolved
            },
            // AND disproven: by the least dependent disproven child.
            (Kind::And, _, true) => {
                let (rep, bounded) = refuter.expect("a disproven AND node has a refuter");
                Value {
                    rep,
                    bounded,
                    ..unsolved
                }
            }
            _ => unsolved,
        })
    } else {
        let (th_pn, th_dn) = match kind {
            Kind::Or => (past_second(th_pn, second), share(th_dn, dn, best_other)),
            Kind::And => (share(th_pn, pn, best_other), past_second(th_dn, second)),
        };
        Selection::Descend {
            index: best,
            th_pn,
            th_dn,
        }
    };
    Scan {
        pn,
        dn,
        best,
        second,
        selection,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bus::MOVE_DROP_BIT;
    use crate::solver::values::MAX_FINITE;

    /// Children moved by board moves (move word 0: no drop).
    fn boards(children: &[Value]) -> impl Iterator<Item = (u16, &Value)> {
        children.iter().map(|v| (0, v))
    }

    fn v(pn: Pn, dn: Pn) -> Value {
        Value {
            pn,
            dn,
            ..Value::NEW
        }
    }

    #[test]
    fn or_node_descends_into_least_pn_lowest_index() {
        let children = [v(3, 2), v(1, 5), v(1, 1), v(2, 7)];
        let scan = select(Kind::Or, INF, 100, boards(&children));
        assert_eq!((scan.pn, scan.dn, scan.best, scan.second), (1, 15, 1, 1));
        // th_pn = second + second / 8 + 1 = 2; th_dn = 100 - (15 - 5) = 90.
        let want = Selection::Descend {
            index: 1,
            th_pn: 2,
            th_dn: 90,
        };
        assert_eq!(scan.selection, want);
    }

    #[test]
    fn and_node_sums_pn_saturating_and_returns_at_threshold() {
        let children = [v(MAX_FINITE, 4), v(5, 3)];
        let scan = select(Kind::And, INF, INF, boards(&children));
        assert_eq!(
            (scan.pn, scan.dn, scan.best, scan.second),
            (MAX_FINITE, 3, 1, 4)
        );
        let scan = select(Kind::And, MAX_FINITE, INF, boards(&children));
        assert_eq!(scan.selection, Selection::Return(v(MAX_FINITE, 3)));
    }

    #[test]
    fn solved_nodes_carry_length_and_dependencies() {
        let proven = |len| Value { len, ..v(0, INF) };
        let disproven = |rep, bounded| Value {
            rep,
            bounded,
            ..v(INF, 0)
        };
        // OR proven: 1 + the least length of the proven children.
        let scan = select(Kind::Or, INF, INF, boards(&[v(2, 2), proven(7), proven(3)]));
        assert_eq!(
            scan.selection,
            Selection::Return(Value {
                len: 4,
                ..v(0, INF)
            })
        );
        // AND proven: 1 + the greatest length.
        let scan = select(Kind::And, INF, INF, boards(&[proven(2), proven(9)]));
        assert_eq!(
            scan.selection,
            Selection::Return(Value {
                len: 10,
                ..v(0, INF)
            })
        );
        // OR disproven: least rep, any bounded.
        let children = [disproven(5, false), disproven(REP_NONE, true)];
        let scan = select(Kind::Or, INF, INF, boards(&children));
        let want = Value {
            rep: 5,
            bounded: true,
            ..v(INF, 0)
        };
        assert_eq!(scan.selection, Selection::Return(want));
        // AND disproven: the refuter of greatest rep, not bounded before bounded.
        let children = [
            v(1, 1),
            disproven(3, false),
            disproven(REP_NONE, true),
            disproven(REP_NONE, false),
        ];
        let scan = select(Kind::And, INF, INF, boards(&children));
        assert_eq!(scan.selection, Selection::Return(v(INF, 0)));
        assert_eq!(scan.best, 1);
    }

    #[test]
    fn a_drop_waits_for_an_earlier_unproven_drop_to_its_square() {
        // Pawn and lance drops to square 40, a gold drop to 41, a king move to 40.
        let (pawn, lance, gold, king) = (
            MOVE_DROP_BIT | 1 << 7 | 40,
            MOVE_DROP_BIT | 2 << 7 | 40,
            MOVE_DROP_BIT | 7 << 7 | 41,
            50 << 7 | 40,
        );
        let proven = Value {
            len: 3,
            ..v(0, INF)
        };
        let frame = |values: [Value; 4]| {
            [pawn, lance, gold, king]
                .into_iter()
                .zip(values.iter())
                .map(|(w, v)| (w, *v))
                .collect::<Vec<_>>()
        };
        let scan_of = |values: [Value; 4]| {
            let children = frame(values);
            select(Kind::And, INF, INF, children.iter().map(|(w, v)| (*w, v)))
        };
        // The pawn drop unproven: the lance drop counts one and is never the best, even
        // with the least dn; the gold drop (another square) and the king move do not wait.
        let scan = scan_of([v(2, 5), v(4, 1), v(3, 2), v(1, 3)]);
        assert_eq!(
            (scan.pn, scan.dn, scan.best, scan.second),
            (2 + 1 + 3 + 1, 2, 2, 3)
        );
        // The pawn drop proven: the lance drop takes its own turn.
        let scan = scan_of([proven, v(4, 1), v(3, 2), v(1, 3)]);
        assert_eq!(
            (scan.pn, scan.dn, scan.best, scan.second),
            (4 + 3 + 1, 1, 1, 2)
        );
        // A solved drop never waits: a disproven lance drop disproves the node.
        let disproven = v(INF, 0);
        let scan = scan_of([v(2, 5), disproven, v(3, 2), v(1, 3)]);
        assert_eq!((scan.dn, scan.best), (0, 1));
        // At an OR node nothing waits.
        let children = frame([v(2, 5), v(1, 1), v(3, 2), v(1, 3)]);
        let scan = select(Kind::Or, INF, INF, children.iter().map(|(w, v)| (*w, v)));
        assert_eq!((scan.pn, scan.dn, scan.best), (1, 11, 1));
    }
}
