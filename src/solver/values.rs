//! Proof and disproof numbers: 32-bit saturating unsigned integers with an explicit
//! infinity, and the threshold arithmetic of the search (docs/search.md, "Numbers").

/// A proof or disproof number.
pub type Pn = u32;

/// Infinity: a proven node has dn = INF, a disproven node pn = INF.
pub const INF: Pn = u32::MAX;

/// The largest finite value: sums of finite values saturate here, never at [`INF`].
pub const MAX_FINITE: Pn = INF - 1;

/// `a + b`: INF if either is INF, otherwise the sum saturated at [`MAX_FINITE`].
pub fn add(a: Pn, b: Pn) -> Pn {
    if a == INF || b == INF {
        INF
    } else {
        a.saturating_add(b).min(MAX_FINITE)
    }
}

/// The threshold of the best child from the second best value: `second + 1`, where INF
/// stays INF and a finite value saturates at [`MAX_FINITE`], and no more than `th`.
pub fn second_plus_one(th: Pn, second: Pn) -> Pn {
    let next = if second == INF {
        INF
    } else {
        second.saturating_add(1).min(MAX_FINITE)
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
        assert_eq!(second_plus_one(10, 3), 4);
        assert_eq!(second_plus_one(3, 7), 3);
        assert_eq!(second_plus_one(INF, INF), INF);
        assert_eq!(second_plus_one(INF, MAX_FINITE), MAX_FINITE);
        assert_eq!(share(10, 6, 2), 6);
        assert_eq!(share(INF, 6, 2), INF);
    }
}
