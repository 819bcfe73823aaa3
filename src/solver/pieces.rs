//! The pieces table, the model's new mode (docs/search.md, "The pieces table"): entries by
//! board (the hands out of the key with `hand_superiority`, the plies left out of it with
//! `depth_free`), the attacker's hand beside the tag: proof pieces for a proof, disproof
//! pieces for a disproof, the exact hand of an unsolved entry. The chip's twin is
//! `hdl/search/transposition_table.spade` with either switch on; `tests/hw_table.rs`
//! compares the two in each mode, every lookup's answer (the pieces too) and every
//! store's branch of the replacement rule.
//!
//! One chip block, two files: the chip holds both tables in one block behind its switches;
//! the model keeps the table keyed by plies left ([`super::transposition_table`]) and this
//! one apart, as the solver does ([`Config::pieces_table`](super::Config::pieces_table)
//! picks one). They share the sets and the placement of the replacement rule, taken from
//! there; together they would make one file of some 750 lines.

use super::hands::{self, Hand};
use super::second_level::{LevelTwoCounts, SecondLevel, Way};
use super::transposition_table::{Placement, Sets, TableTooLarge, tag_of};
use super::values::{INF, Pn, add, narrowed};

/// One way of the pieces table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PieceEntry {
    pub valid: bool,
    pub tag: u32,
    pub pn: Pn,
    pub dn: Pn,
    /// A proof: the plies of its mate.
    pub len: u16,
    /// A bounded disproof: the plies left it was found with; an unsolved entry: its plies
    /// left (read with `depth_free` only).
    pub bound: u16,
    /// A disproof within `bound` plies only.
    pub bounded: bool,
    /// Proof pieces, disproof pieces, or the exact hand of an unsolved entry (read with
    /// `hand_superiority` only).
    pub hand: Hand,
}

impl PieceEntry {
    fn proof(&self) -> bool {
        self.valid && self.pn == 0
    }
    fn disproof(&self) -> bool {
        self.valid && self.dn == 0
    }
    fn unsolved(&self) -> bool {
        self.valid && self.pn != 0 && self.dn != 0
    }
}

impl Way for PieceEntry {
    fn is_valid(&self) -> bool {
        self.valid
    }
}

/// What a lookup finds: the numbers, and the pieces of a solved entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub pn: Pn,
    pub dn: Pn,
    pub len: u16,
    pub bounded: bool,
    pub pieces: Hand,
}

/// The hand a way keeps for a value `(pn, dn)` of a node whose attacker holds `hand`: the
/// proof or disproof `pieces` of a solved value, else the hand itself.
pub fn kept_hand(pn: Pn, dn: Pn, hand: Hand, pieces: Hand) -> Hand {
    if pn == 0 || dn == 0 { pieces } else { hand }
}

/// A node as the table sees it: its key, the attacker's hand, its plies left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Probe {
    pub key: u64,
    pub hand: Hand,
    pub left: u32,
}

/// The pieces table: 2^k sets of W ways; the mode's switches decide what a lookup
/// compares beside the tag.
pub struct PieceTable {
    hand_superiority: bool,
    depth_free: bool,
    sets: Sets<PieceEntry>,
    /// With `tt2_index_bits`: the second level ([`super::second_level`]).
    second: Option<Box<SecondLevel<PieceEntry>>>,
}

impl PieceTable {
    /// An empty table, or why this machine cannot hold it.
    pub fn try_new(
        index_bits: u32,
        ways: usize,
        hand_superiority: bool,
        depth_free: bool,
    ) -> Result<PieceTable, TableTooLarge> {
        Ok(PieceTable {
            hand_superiority,
            depth_free,
            sets: Sets::try_new(index_bits, ways)?,
            second: None,
        })
    }

    /// The same table with a second level of `2^index_bits` slots (none for 0), or why
    /// this machine cannot hold it.
    pub fn with_second_level(mut self, index_bits: u32) -> Result<PieceTable, TableTooLarge> {
        self.second = SecondLevel::behind(index_bits, &self.sets)?;
        Ok(self)
    }

    /// The second level's counts since the last clear (zero without one).
    pub fn level_two(&self) -> LevelTwoCounts {
        self.second.as_ref().map(|s| s.counts()).unwrap_or_default()
    }

    /// Empties every way, and every slot of the second level.
    pub fn clear(&mut self) {
        self.sets.clear();
        if let Some(second) = &mut self.second {
            second.clear();
        }
    }

    /// `a <= b` where hands are compared (with `hand_superiority`).
    fn hand_le(&self, a: &Hand, b: &Hand) -> bool {
        !self.hand_superiority || hands::le(a, b)
    }

    fn hand_eq(&self, a: &Hand, b: &Hand) -> bool {
        !self.hand_superiority || a == b
    }

    /// Whether a proof of `len` plies fits `left` plies left.
    fn fits(&self, len: u16, left: u32) -> bool {
        !self.depth_free || u32::from(len) <= left
    }

    /// Whether a disproof applies at `left` plies left.
    fn covers(&self, e: &PieceEntry, left: u32) -> bool {
        !self.depth_free || !e.bounded || left <= u32::from(e.bound)
    }

    fn same_plies(&self, e: &PieceEntry, left: u32) -> bool {
        !self.depth_free || u32::from(e.bound) == left
    }

    /// The entry that applies to the node `p`: a proof whose pieces the hand holds and
    /// whose length fits (least length, lowest way on ties), else a disproof whose pieces
    /// hold the hand and that covers the plies left (final first), else the unsolved entry
    /// of the exact hand and plies left; in its set, else (with a second level) in its
    /// slot by the same rules. Not counted (the line's read).
    pub fn lookup(&self, p: Probe) -> Option<Hit> {
        self.read(p, false)
    }

    /// [`PieceTable::lookup`] as EXPAND's probe: a read of the second level is counted.
    pub fn probe(&self, p: Probe) -> Option<Hit> {
        self.read(p, true)
    }

    fn read(&self, p: Probe, counted: bool) -> Option<Hit> {
        let find = |set: &[PieceEntry]| self.lookup_in(set, p);
        find(self.sets.get(p.key)).or_else(|| {
            self.second
                .as_ref()
                .and_then(|s| s.read(p.key, counted, find))
        })
    }

    /// The rules of [`PieceTable::lookup`] over the ways of one set.
    fn lookup_in(&self, set: &[PieceEntry], p: Probe) -> Option<Hit> {
        let tag = tag_of(p.key);
        let ours = || set.iter().filter(|e| e.valid && e.tag == tag);
        let hit = |e: &PieceEntry| Hit {
            pn: e.pn,
            dn: e.dn,
            len: e.len,
            bounded: e.bounded,
            pieces: e.hand,
        };
        let mut proof: Option<&PieceEntry> = None;
        for e in ours().filter(|e| e.proof()) {
            if self.hand_le(&e.hand, &p.hand)
                && self.fits(e.len, p.left)
                && proof.is_none_or(|b| e.len < b.len)
            {
                proof = Some(e);
            }
        }
        if let Some(e) = proof {
            return Some(hit(e));
        }
        let disproofs = || {
            ours().filter(|e| {
                e.disproof() && self.hand_le(&p.hand, &e.hand) && self.covers(e, p.left)
            })
        };
        if let Some(e) = disproofs()
            .find(|e| !e.bounded)
            .or_else(|| disproofs().next())
        {
            return Some(hit(e));
        }
        ours()
            .find(|e| e.unsolved() && self.hand_eq(&e.hand, &p.hand) && self.same_plies(e, p.left))
            .map(hit)
    }

    /// Stores the value `(pn, dn, len, bounded)` of the node `p` with `pieces` (proof or
    /// disproof pieces of a solved value; ignored for an unsolved one, which keeps the
    /// node's hand). pn and dn are kept narrowed to the way's 24 bits, as in `Table`.
    /// Returns the branch taken.
    pub fn store(
        &mut self,
        p: Probe,
        pn: Pn,
        dn: Pn,
        len: u16,
        bounded: bool,
        pieces: Hand,
    ) -> Placement {
        let (pn, dn) = (narrowed(pn), narrowed(dn));
        let tag = tag_of(p.key);
        let left = p.left.min(u32::from(u16::MAX)) as u16;
        let new = PieceEntry {
            valid: true,
            tag,
            pn,
            dn,
            // A length is a proof's alone (the chip's way holds one field for the length
            // and the plies left).
            len: if pn == 0 { len } else { 0 },
            bound: left,
            bounded,
            hand: kept_hand(pn, dn, p.hand, pieces),
        };
        let (hs, df) = (self.hand_superiority, self.depth_free);
        let le = |a: &Hand, b: &Hand| !hs || hands::le(a, b);
        let set = self.sets.get_mut(p.key);
        let ours = |e: &PieceEntry| e.valid && e.tag == tag;
        // The way it replaces, or the placement that keeps the table as it is.
        let target: Result<Option<usize>, Placement> = if pn == 0 {
            if set
                .iter()
                .any(|e| ours(e) && e.proof() && le(&e.hand, &new.hand) && (!df || e.len <= len))
            {
                Err(Placement::KeptProof)
            } else {
                Ok(set.iter().position(|e| {
                    ours(e)
                        && ((e.proof() && le(&new.hand, &e.hand) && (!df || e.len >= len))
                            || (e.unsolved()
                                && le(&new.hand, &e.hand)
                                && (!df || u32::from(e.bound) >= u32::from(len))))
                }))
            }
        } else if dn == 0 {
            // `a` at least as strong as `b` in plies: final, or both bounded with more.
            let stronger = |a: &PieceEntry, b: &PieceEntry| {
                !df || !a.bounded || (b.bounded && a.bound >= b.bound)
            };
            if set
                .iter()
                .any(|e| ours(e) && e.disproof() && le(&new.hand, &e.hand) && stronger(e, &new))
            {
                Err(Placement::KeptDisproof)
            } else {
                Ok(set.iter().position(|e| {
                    ours(e)
                        && ((e.disproof() && le(&e.hand, &new.hand) && stronger(&new, e))
                            || (e.unsolved()
                                && le(&e.hand, &new.hand)
                                && (!df || !bounded || e.bound <= new.bound)))
                }))
            }
        } else {
            Ok(set.iter().position(|e| {
                ours(e)
                    && e.unsolved()
                    && (!hs || e.hand == new.hand)
                    && (!df || e.bound == new.bound)
            }))
        };
        let (way, placement) = match target {
            Err(kept) => return kept,
            Ok(Some(i)) => (
                i,
                if set[i].pn == 0 && pn == 0 {
                    Placement::ShorterProof
                } else {
                    Placement::Overwritten
                },
            ),
            Ok(None) => victim(set),
        };
        let old = std::mem::replace(&mut set[way], new);
        if let Some(second) = &mut self.second {
            if placement.evicts() {
                second.write_back(p.key, way, old);
            }
            second.keep(p.key, way);
        }
        placement
    }
}

/// The way a new entry takes when none of its tag gives way: the first invalid way, else
/// the unsolved way of least pn + dn, else the first disproven way, else way 0.
fn victim(set: &[PieceEntry]) -> (usize, Placement) {
    if let Some(i) = set.iter().position(|e| !e.valid) {
        return (i, Placement::Empty);
    }
    let mut best: Option<(usize, Pn)> = None;
    for (i, e) in set.iter().enumerate() {
        if e.unsolved() {
            let work = add(e.pn, e.dn);
            if best.is_none_or(|(_, w)| work < w) {
                best = Some((i, work));
            }
        }
    }
    if let Some((i, _)) = best {
        return (i, Placement::LeastWork);
    }
    set.iter()
        .position(|e| e.dn == 0 && e.pn == INF)
        .map_or((0, Placement::First), |i| (i, Placement::Disproven))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::hands::FULL;

    fn probe(hand: Hand, left: u32) -> Probe {
        Probe {
            key: 7 << 32,
            hand,
            left,
        }
    }

    #[test]
    fn a_proof_applies_to_more_pieces_and_more_plies() {
        let mut t = PieceTable::try_new(2, 4, true, true).unwrap();
        let pp: Hand = [1, 0, 0, 0, 0, 0, 1];
        t.store(probe([2, 0, 0, 0, 0, 0, 1], 9), 0, INF, 5, false, pp);
        // More pieces and plies: proven; fewer of a kind, or too few plies: not.
        let hit = t.lookup(probe([3, 1, 0, 0, 0, 0, 1], 7)).unwrap();
        assert_eq!((hit.pn, hit.len, hit.pieces), (0, 5, pp));
        assert!(t.lookup(probe([3, 1, 0, 0, 0, 0, 0], 7)).is_none());
        assert!(t.lookup(probe([3, 1, 0, 0, 0, 0, 1], 3)).is_none());
        // A weaker proof is not stored; a shorter one with fewer pieces is, beside.
        assert_eq!(
            t.store(probe([2, 0, 0, 0, 0, 0, 1], 9), 0, INF, 7, false, pp),
            Placement::KeptProof
        );
        t.store(
            probe([1, 0, 0, 0, 0, 0, 1], 3),
            0,
            INF,
            3,
            false,
            [1, 0, 0, 0, 0, 0, 1],
        );
        assert_eq!(t.lookup(probe([3, 1, 0, 0, 0, 0, 1], 3)).unwrap().len, 3);
    }

    #[test]
    fn a_disproof_applies_to_fewer_pieces_and_fewer_plies() {
        let mut t = PieceTable::try_new(2, 4, true, true).unwrap();
        let dp: Hand = [2, 0, 0, 0, 0, 0, 4];
        t.store(probe([1, 0, 0, 0, 0, 0, 0], 6), INF, 0, 0, true, dp);
        assert_eq!(t.lookup(probe([2, 0, 0, 0, 0, 0, 3], 4)).unwrap().dn, 0);
        assert!(t.lookup(probe([2, 0, 0, 0, 0, 0, 3], 8)).is_none());
        assert!(t.lookup(probe([3, 0, 0, 0, 0, 0, 0], 4)).is_none());
        // An unsolved entry of another plies left stays beside the bounded disproof and
        // applies only to its own hand and plies.
        t.store(probe([1, 0, 0, 0, 0, 0, 0], 8), 3, 2, 0, false, FULL);
        let hit = t.lookup(probe([1, 0, 0, 0, 0, 0, 0], 8)).unwrap();
        assert_eq!((hit.pn, hit.dn), (3, 2));
        assert!(t.lookup(probe([1, 0, 0, 0, 0, 0, 0], 10)).is_none());
        assert_eq!(t.lookup(probe([1, 0, 0, 0, 0, 0, 0], 6)).unwrap().dn, 0);
        // A final disproof replaces the bounded one and applies at any plies.
        t.store(probe([1, 0, 0, 0, 0, 0, 0], 8), INF, 0, 0, false, dp);
        assert_eq!(t.lookup(probe([0, 0, 0, 0, 0, 0, 1], 20)).unwrap().dn, 0);
    }
}
