//! Proof and disproof numbers: 32-bit saturating unsigned integers with an explicit
//! infinity, the threshold arithmetic of the search (docs/search.md, "Numbers"), and a
//! node's value. The chip's twin is `hdl/search/values.spade`, name for name. No test
//! compares them alone: `tests/hw_select.rs` compares the scans' sums and thresholds,
//! `tests/hw_table.rs` the numbers a way keeps ([`narrowed`]).

/// A proof or disproof number.
pub type Pn = u32;

/// Infinity: a proven node has dn = INF, a disproven node pn = INF.
pub const INF: Pn = u32::MAX;

/// The largest finite value: sums of finite values saturate here, never at [`INF`].
pub const MAX_FINITE: Pn = INF - 1;

/// The largest finite number the transposition table keeps: its ways hold pn and dn in 24
/// bits (INF as all ones), so that the attacker's hand fits beside them in the chip's
/// block RAM (docs/search.md, "The transposition table").
pub const TABLE_MAX: Pn = (1 << 24) - 2;

/// `v` as the table keeps it: INF stays INF, a finite number saturates at [`TABLE_MAX`].
pub fn narrowed(v: Pn) -> Pn {
    if v == INF { INF } else { v.min(TABLE_MAX) }
}

/// `a + b`: INF if either is INF, otherwise the sum saturated at [`MAX_FINITE`].
pub fn add(a: Pn, b: Pn) -> Pn {
    if a == INF || b == INF {
        INF
    } else {
        a.saturating_add(b).min(MAX_FINITE)
    }
}

/// The threshold of the best child from the second best value, one eighth past it (1 +
/// epsilon): `second + second / 8 + 1`, where INF stays INF and a finite value saturates at
/// [`MAX_FINITE`], and no more than `th`.
pub fn past_second(th: Pn, second: Pn) -> Pn {
    let next = if second == INF {
        INF
    } else {
        second
            .saturating_add(second >> 3)
            .saturating_add(1)
            .min(MAX_FINITE)
    };
    th.min(next)
}

/// The threshold of the best child on the summed number: `th - (sum - child)`, the part
/// of the node's threshold left once the other children's share is taken out. INF stays
/// INF. The search calls it only while `sum < th`, so nothing underflows.
pub fn share(th: Pn, sum: Pn, child: Pn) -> Pn {
    if th == INF {
        INF
    } else {
        debug_assert!(sum < th && child <= sum, "share({th}, {sum}, {child})");
        th - (sum - child)
    }
}

/// No repetition: the `rep` of a value that depends on no position of the path (all ones,
/// above every ply, so that the least `rep` is an unsigned minimum; the chip's
/// `rep_none()`, of its own width, in `hdl/search/geometry.spade`).
pub const REP_NONE: u16 = u16::MAX;

/// What a node (or a child in its parent's frame) is worth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Value {
    /// Proof number.
    pub pn: Pn,
    /// Disproof number.
    pub dn: Pn,
    /// Proven: plies to mate.
    pub len: u16,
    /// Disproven: the shallowest ply of the path whose position the disproof found
    /// repeated ([`REP_NONE`]: none).
    pub rep: u16,
    /// Disproven: the disproof reached a defender with no plies left (no mate within the
    /// plies left, not final for a deeper search).
    pub bounded: bool,
}

impl Value {
    /// The value of a table entry: its numbers, no repetition.
    pub const fn found(pn: Pn, dn: Pn, len: u16, bounded: bool) -> Value {
        Value {
            pn,
            dn,
            len,
            rep: REP_NONE,
            bounded,
        }
    }

    /// The value as its parent's frame keeps it: pn and dn [`narrowed`], as the table keeps
    /// them (the chip's frames hold them in 24 bits, `hdl/search/child_frames.spade`).
    pub fn framed(self) -> Value {
        Value {
            pn: narrowed(self.pn),
            dn: narrowed(self.dn),
            ..self
        }
    }

    /// A position not yet expanded (not in the table): pn = dn = 1.
    pub const NEW: Value = Value {
        pn: 1,
        dn: 1,
        len: 0,
        rep: REP_NONE,
        bounded: false,
    };
    /// An AND node with no evasion: mated, proven with length 0.
    pub const PROVEN_LEAF: Value = Value {
        pn: 0,
        dn: INF,
        len: 0,
        rep: REP_NONE,
        bounded: false,
    };
    /// An OR node with no check: disproven, final.
    pub const NO_CHECK: Value = Value {
        pn: INF,
        dn: 0,
        len: 0,
        rep: REP_NONE,
        bounded: false,
    };
    /// An AND node with no ply left: disproven within the plies left (bounded).
    pub const NO_PLY_LEFT: Value = Value {
        pn: INF,
        dn: 0,
        len: 0,
        rep: REP_NONE,
        bounded: true,
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_saturate_below_infinity() {
        assert_eq!(add(1, 2), 3);
        assert_eq!(add(MAX_FINITE, 1), MAX_FINITE);
        assert_eq!(add(MAX_FINITE - 1, MAX_FINITE - 1), MAX_FINITE);
        assert_eq!(add(INF, 0), INF);
        assert_eq!(add(3, INF), INF);
    }

    #[test]
    fn thresholds() {
        assert_eq!(past_second(100, 3), 4);
        assert_eq!(past_second(100, 8), 10);
        assert_eq!(past_second(100, 80), 91);
        assert_eq!(past_second(3, 7), 3);
        assert_eq!(past_second(INF, INF), INF);
        assert_eq!(past_second(INF, MAX_FINITE - 1), MAX_FINITE);
        assert_eq!(past_second(INF, 0xf000_0000), MAX_FINITE);
        assert_eq!(share(10, 6, 2), 6);
        assert_eq!(share(INF, 6, 2), INF);
    }

    #[test]
    fn a_frame_keeps_numbers_as_the_table() {
        let v = Value::found(MAX_FINITE, INF, 7, false).framed();
        assert_eq!((v.pn, v.dn, v.len), (TABLE_MAX, INF, 7));
        let w = Value::found(TABLE_MAX - 1, TABLE_MAX + 1, 0, true).framed();
        assert_eq!((w.pn, w.dn, w.bounded), (TABLE_MAX - 1, TABLE_MAX, true));
    }
}
