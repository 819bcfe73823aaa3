//! The transposition table: 2^k sets of W ways, indexed by the hash's low bits and
//! tagged with its high 32 bits, with a deterministic replacement rule (docs/search.md,
//! "The transposition table").

use super::values::{INF, Pn, add};

/// One entry: 114 bits in the chip (valid 1, tag 32, pn 32, dn 32, mate length 16,
/// bounded 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Entry {
    /// The way holds a position.
    pub valid: bool,
    /// Bits 63..32 of the position hash.
    pub tag: u32,
    /// Proof number (0: proven).
    pub pn: Pn,
    /// Disproof number (0: disproven).
    pub dn: Pn,
    /// For a proven position: the plies of its mate (the length of its line).
    pub len: u16,
    /// For a disproven position: the disproof depends on the plies left (no mate within
    /// them), not final for a deeper search.
    pub bounded: bool,
}

impl Entry {
    fn solved(&self) -> bool {
        self.pn == 0 || self.dn == 0
    }
}

/// What a lookup finds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    /// Proof number.
    pub pn: Pn,
    /// Disproof number.
    pub dn: Pn,
    /// Mate length of a proven entry.
    pub len: u16,
    /// A disproof within the plies left only.
    pub bounded: bool,
}

/// The table.
pub struct Table {
    index_bits: u32,
    ways: usize,
    entries: Vec<Entry>,
}

/// The tag of a hash: its high 32 bits.
pub fn tag_of(hash: u64) -> u32 {
    (hash >> 32) as u32
}

impl Table {
    /// An empty table of `2^index_bits` sets of `ways` ways (`index_bits` at most 32).
    pub fn new(index_bits: u32, ways: usize) -> Table {
        assert!(index_bits <= 32 && ways >= 1, "table geometry");
        Table {
            index_bits,
            ways,
            entries: vec![Entry::default(); (1usize << index_bits) * ways],
        }
    }

    /// Entries in all.
    pub fn capacity(&self) -> usize {
        self.entries.len()
    }

    /// Empties every way.
    pub fn clear(&mut self) {
        self.entries.fill(Entry::default());
    }

    fn set(&self, hash: u64) -> std::ops::Range<usize> {
        let index = (hash & ((1u64 << self.index_bits) - 1)) as usize;
        index * self.ways..(index + 1) * self.ways
    }

    /// The entry of `hash`, if its set holds it (the way whose tag matches, lowest first).
    pub fn lookup(&self, hash: u64) -> Option<Found> {
        let tag = tag_of(hash);
        self.entries[self.set(hash)]
            .iter()
            .find(|e| e.valid && e.tag == tag)
            .map(|e| Found {
                pn: e.pn,
                dn: e.dn,
                len: e.len,
                bounded: e.bounded,
            })
    }

    /// Writes the values of `hash`. In the way that holds it if any: a proven entry is
    /// only replaced by a proof of fewer plies, and nothing replaces a disproven one.
    /// Otherwise in the victim way: the first empty way; else the unsolved way of least
    /// pn + dn; else (every way solved) the first disproven way; else the first way.
    pub fn store(&mut self, hash: u64, pn: Pn, dn: Pn, len: u16, bounded: bool) {
        let tag = tag_of(hash);
        let range = self.set(hash);
        let set = &mut self.entries[range];
        let new = Entry {
            valid: true,
            tag,
            pn,
            dn,
            len,
            bounded,
        };
        if let Some(e) = set.iter_mut().find(|e| e.valid && e.tag == tag) {
            let keep = (e.pn == 0 && !(pn == 0 && len < e.len)) || e.dn == 0;
            if !keep {
                *e = new;
            }
            return;
        }
        let victim = set
            .iter()
            .position(|e| !e.valid)
            .or_else(|| {
                let mut best: Option<(usize, Pn)> = None;
                for (i, e) in set.iter().enumerate() {
                    if !e.solved() {
                        let work = add(e.pn, e.dn);
                        if best.is_none_or(|(_, w)| work < w) {
                            best = Some((i, work));
                        }
                    }
                }
                best.map(|(i, _)| i)
            })
            .or_else(|| set.iter().position(|e| e.dn == 0 && e.pn == INF))
            .unwrap_or(0);
        set[victim] = new;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replacement_follows_the_rule() {
        let mut t = Table::new(1, 2);
        // Hashes of set 0 with different tags.
        let h = |tag: u64| tag << 32;
        t.store(h(1), 5, 5, 0, false);
        t.store(h(2), 0, INF, 3, false);
        assert_eq!(t.lookup(h(1)).unwrap().pn, 5);
        // Full set: the unsolved way goes first, the proof stays.
        t.store(h(3), 1, 1, 0, false);
        assert!(t.lookup(h(1)).is_none());
        assert_eq!(t.lookup(h(2)).unwrap().len, 3);
        // A shorter proof replaces a longer one, an unsolved value does not.
        t.store(h(2), 0, INF, 1, false);
        t.store(h(2), 4, 4, 0, false);
        assert_eq!(
            t.lookup(h(2)),
            Some(Found {
                pn: 0,
                dn: INF,
                len: 1,
                bounded: false
            })
        );
        // Every way solved: the disproof goes before the proof.
        t.store(h(3), INF, 0, 0, false);
        t.store(h(4), 2, 2, 0, false);
        assert!(t.lookup(h(3)).is_none());
        assert!(t.lookup(h(2)).is_some());
        // Another set is untouched.
        assert!(t.lookup(h(2) | 1).is_none());
    }
}
