//! The table's second level, the board's SDRAM (docs/search.md, "The second level (the
//! board's SDRAM)"): 2^`tt2_index_bits` slots of one entry each, indexed by the table
//! key's low `tt2_index_bits` bits and tagged by its high 32 bits, behind the first level
//! (the keyed [`super::transposition_table::Table`] or the [`super::pieces::PieceTable`],
//! unchanged). A probe that the first level does not answer reads the slot of its key;
//! an entry that a store evicts from the first level is written back to the slot of its
//! own key. The chip has no second level yet (issue 76): this is the twin it will have
//! to equal, probe for probe and write-back for write-back.
//!
//! The first level keeps only a way's tag and its set index (the key's low
//! `tt_index_bits` bits); with a second level, each way also keeps the key's bits
//! `tt_index_bits .. tt2_index_bits` (its **extra index bits**, written with the way), so
//! that an evicted entry's slot is known. The model keeps them beside the ways, one word a
//! way ([`SecondLevel::keep`]), where the chip will keep them in the way itself.

use std::cell::Cell;

use super::transposition_table::{Sets, TableTooLarge};

/// A first-level way as the second level sees it.
pub trait Way: Default + Clone {
    /// The way holds a position.
    fn is_valid(&self) -> bool;
}

/// What the second level counted since the last clear (the probes that read it, their
/// answers, and the write-backs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LevelTwoCounts {
    /// Probes the first level did not answer: the slot was read.
    pub reads: u64,
    /// Of those, the ones the slot answered.
    pub hits: u64,
    /// Of those, the ones whose slot held nothing (never written since the clear).
    pub empty: u64,
    /// Entries evicted from the first level and written to their slot.
    pub write_backs: u64,
}

/// The second level of a table of entries `E`.
pub struct SecondLevel<E> {
    /// One way a slot: a generation per slot, emptied by a clear as the first level is.
    slots: Sets<E>,
    /// The first level's set-index bits.
    first_bits: u32,
    /// The first level's ways a set.
    first_ways: usize,
    /// Each first-level way's extra index bits (the key's bits `first_bits ..
    /// tt2_index_bits`), by set and way.
    extra: Vec<u32>,
    counts: Cell<LevelTwoCounts>,
}

impl<E: Way> SecondLevel<E> {
    /// An empty second level of `2^index_bits` slots (at most 32) behind a first level of
    /// `2^first_bits` sets of `first_ways` ways, or why this machine cannot hold it.
    pub fn try_new(
        index_bits: u32,
        first_bits: u32,
        first_ways: usize,
    ) -> Result<SecondLevel<E>, TableTooLarge> {
        assert!((1..=32).contains(&index_bits), "tt2_index_bits 1 to 32");
        Ok(SecondLevel {
            slots: Sets::try_new(index_bits, 1)?,
            first_bits,
            first_ways,
            extra: super::transposition_table::allocate(first_bits, first_ways)?,
            counts: Cell::new(LevelTwoCounts::default()),
        })
    }

    /// The second level of `2^index_bits` slots behind the first level `first` (none for
    /// 0), or why this machine cannot hold it: what both tables' `with_second_level` keep.
    pub fn behind(index_bits: u32, first: &Sets<E>) -> Result<Option<Box<Self>>, TableTooLarge> {
        Ok(match index_bits {
            0 => None,
            bits => Some(Box::new(SecondLevel::try_new(
                bits,
                first.index_bits(),
                first.ways(),
            )?)),
        })
    }

    /// Slots in all.
    pub fn capacity(&self) -> usize {
        self.slots.capacity()
    }

    /// Empties every slot (the next generation) and zeroes the counts.
    pub fn clear(&mut self) {
        self.slots.clear();
        self.counts.set(LevelTwoCounts::default());
    }

    /// The counts since the last clear.
    pub fn counts(&self) -> LevelTwoCounts {
        self.counts.get()
    }

    /// The extra index bits of `key`: its bits `first_bits .. index_bits` (none when the
    /// second level has no more index bits than the first).
    pub fn extra_bits(&self, key: u64) -> u32 {
        let width = self.slots.index_bits().saturating_sub(self.first_bits);
        if width == 0 {
            0
        } else {
            ((key >> self.first_bits) & ((1u64 << width) - 1)) as u32
        }
    }

    /// The first level wrote way `way` of `key`'s set with `key`'s entry: its extra index
    /// bits are kept with it.
    pub fn keep(&mut self, key: u64, way: usize) {
        let set = self.slots_set(key);
        self.extra[set * self.first_ways + way] = self.extra_bits(key);
    }

    fn slots_set(&self, key: u64) -> usize {
        (key & ((1u64 << self.first_bits) - 1)) as usize
    }

    /// The key bits that index the slot of the entry in way `way` of `key`'s first-level
    /// set: the set index, and the way's extra index bits above it.
    pub fn slot_key(&self, key: u64, way: usize) -> u64 {
        let set = self.slots_set(key);
        let extra = self.extra[set * self.first_ways + way];
        (u64::from(extra) << self.first_bits) | set as u64
    }

    /// The first level overwrote way `way` of `key`'s set, which held `evicted` (a valid
    /// entry of its own key): the entry is written to its slot, replacing what it held.
    pub fn write_back(&mut self, key: u64, way: usize, evicted: E) {
        debug_assert!(evicted.is_valid(), "only a valid way is written back");
        let slot = self.slot_key(key, way);
        self.slots.get_mut(slot)[0] = evicted;
        let mut c = self.counts.get();
        c.write_backs += 1;
        self.counts.set(c);
    }

    /// The slot of `key` read after the first level gave no answer: `answer` applies the
    /// first level's rules to it as a set of one way (none when the slot was never
    /// written since the clear). A `counted` read (a probe of EXPAND, not the line's)
    /// counts in [`LevelTwoCounts`].
    pub fn read<R>(
        &self,
        key: u64,
        counted: bool,
        answer: impl FnOnce(&[E]) -> Option<R>,
    ) -> Option<R> {
        let slot = self.slots.get(key);
        let empty = !slot.first().is_some_and(Way::is_valid);
        let found = if empty { None } else { answer(slot) };
        if counted {
            let mut c = self.counts.get();
            c.reads += 1;
            c.empty += u64::from(empty);
            c.hits += u64::from(found.is_some());
            self.counts.set(c);
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::pieces::{PieceTable, Probe};
    use crate::solver::transposition_table::{Placement, Table};
    use crate::solver::values::INF;

    /// A key of tag `tag` whose low bits are `low`.
    fn key(tag: u64, low: u64) -> u64 {
        (tag << 32) | low
    }

    /// Two sets of one way in the first level, 2^4 slots behind.
    fn keyed() -> Table {
        Table::new(1, 1).with_second_level(4).unwrap()
    }

    #[test]
    fn an_evicted_entry_is_found_in_its_slot() {
        let mut t = keyed();
        // Set 0 of the first level; slots 0b0110 and 0b1010 of the second.
        let (a, b) = (key(1, 0b0110), key(2, 0b1010));
        assert_eq!(t.store(a, 5, 6, 0, false), Placement::Empty);
        assert_eq!(t.level_two().write_backs, 0);
        // The unsolved way of least work goes, to its own slot (0b0110: its set index 0
        // and the extra bits 011 it kept).
        assert_eq!(t.store(b, 1, 1, 0, false), Placement::LeastWork);
        assert_eq!(t.level_two().write_backs, 1);
        let found = t.probe(a).expect("a in the second level");
        assert_eq!((found.pn, found.dn), (5, 6));
        assert_eq!(t.probe(b).unwrap().pn, 1);
        let c = t.level_two();
        assert_eq!((c.reads, c.hits, c.empty), (1, 1, 0));
        // The slot of a key of the same set and tag but other extra bits does not hold it.
        assert!(t.probe(key(1, 0b1110)).is_none());
        let c = t.level_two();
        assert_eq!((c.reads, c.hits, c.empty), (2, 1, 1));
        // The line's read finds it too, and is not counted.
        assert_eq!(t.lookup(a).unwrap().dn, 6);
        assert_eq!(t.level_two().reads, 2);
    }

    #[test]
    fn the_first_level_answers_before_the_second() {
        let mut t = keyed();
        let (a, b) = (key(1, 0b0110), key(2, 0b1010));
        t.store(a, 5, 6, 0, false);
        t.store(b, 1, 1, 0, false);
        // a again: b is written back to its own slot, a's old entry stays in a's.
        assert_eq!(t.store(a, 7, 8, 0, false), Placement::LeastWork);
        assert_eq!(t.level_two().write_backs, 2);
        assert_eq!(t.probe(a).map(|f| f.pn), Some(7));
        assert_eq!(t.level_two().reads, 0, "the first level answered");
        assert_eq!(t.probe(b).map(|f| f.pn), Some(1));
        assert_eq!(t.level_two().hits, 1);
        // A write-back replaces what the slot held: a key of b's slot and another tag.
        let c = key(3, 0b1010);
        t.store(c, 2, 2, 0, false);
        assert_eq!(t.probe(c).map(|f| f.pn), Some(2));
        // c took the way from a (7, 8), written back over a's older (5, 6).
        assert_eq!(t.probe(a).map(|f| (f.pn, f.dn)), Some((7, 8)));
        t.store(key(4, 0), 3, 3, 0, false);
        // c is now in slot 0b1010, b gone.
        assert!(t.probe(b).is_none());
        assert_eq!(t.probe(c).map(|f| f.pn), Some(2));
    }

    #[test]
    fn a_kept_or_overwritten_way_is_not_written_back() {
        let mut t = keyed();
        let a = key(1, 0b0110);
        t.store(a, 5, 6, 0, false);
        assert_eq!(t.store(a, 0, INF, 3, false), Placement::Overwritten);
        assert_eq!(t.store(a, 2, 2, 0, false), Placement::KeptProof);
        // Every way solved: the proof is evicted (way 0) and written back.
        assert_eq!(t.store(key(2, 0), 4, 4, 0, false), Placement::First);
        assert_eq!(t.level_two().write_backs, 1);
        assert_eq!(t.probe(a).map(|f| (f.pn, f.len)), Some((0, 3)));
    }

    #[test]
    fn a_clear_empties_the_second_level() {
        let mut t = keyed();
        let (a, b) = (key(1, 0b0110), key(2, 0b1010));
        t.store(a, 5, 6, 0, false);
        t.store(b, 1, 1, 0, false);
        assert!(t.probe(a).is_some());
        t.clear();
        assert_eq!(t.level_two(), LevelTwoCounts::default());
        assert!(t.probe(a).is_none() && t.probe(b).is_none());
        let c = t.level_two();
        assert_eq!((c.reads, c.hits, c.empty), (2, 0, 2));
    }

    #[test]
    fn a_second_level_smaller_than_the_first_takes_the_set_index() {
        // 2^3 sets, 2^2 slots: no extra bits, the slot is the set index's low bits.
        let mut t = Table::new(3, 1).with_second_level(2).unwrap();
        let (a, b) = (key(1, 0b101), key(2, 0b101));
        t.store(a, 5, 6, 0, false);
        t.store(b, 1, 1, 0, false);
        assert_eq!(t.probe(a).map(|f| f.pn), Some(5));
        assert_eq!(t.probe(key(1, 0b001)).map(|f| f.pn), Some(5), "slot 0b01");
    }

    #[test]
    fn the_pieces_table_reads_its_slot_by_its_own_rules() {
        let mut t = PieceTable::try_new(1, 1, true, true)
            .unwrap()
            .with_second_level(4)
            .unwrap();
        let probe = |key, hand, left| Probe { key, hand, left };
        let a = key(1, 0b0110);
        let pp = [1, 0, 0, 0, 0, 0, 1];
        t.store(probe(a, [2, 0, 0, 0, 0, 0, 1], 9), 0, INF, 5, false, pp);
        // Another position's unsolved entry: every way solved, the proof goes (way 0).
        let b = key(2, 0b1010);
        let placement = t.store(probe(b, [0; 7], 9), 3, 3, 0, false, [0; 7]);
        assert_eq!(placement, Placement::First);
        assert_eq!(t.level_two().write_backs, 1);
        // Superior hand and enough plies: proven by the slot; a smaller hand or too few
        // plies: not (the slot read, no answer).
        let hit = t.probe(probe(a, [3, 0, 0, 0, 0, 0, 1], 7)).unwrap();
        assert_eq!((hit.pn, hit.len, hit.pieces), (0, 5, pp));
        assert!(t.probe(probe(a, [3, 0, 0, 0, 0, 0, 0], 7)).is_none());
        assert!(t.probe(probe(a, [3, 0, 0, 0, 0, 0, 1], 3)).is_none());
        let c = t.level_two();
        assert_eq!((c.reads, c.hits, c.empty), (3, 1, 0));
        t.clear();
        assert!(t.lookup(probe(a, [3, 0, 0, 0, 0, 0, 1], 7)).is_none());
    }
}
