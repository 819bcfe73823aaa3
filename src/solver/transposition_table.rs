//! The transposition table: 2^k sets of W ways, indexed by the hash's low bits and
//! tagged with its high 32 bits, with a deterministic replacement rule (docs/search.md,
//! "The transposition table"). The chip's twin is `hdl/search/transposition_table.spade`
//! with both switches off (the pieces table, its other modes, is [`super::pieces`]);
//! `tests/hw_table.rs` compares the two, every lookup's answer and every store's branch
//! of the replacement rule ([`Placement`]).

use super::second_level::{LevelTwoCounts, SecondLevel, Way};
use super::values::{INF, Pn, add, narrowed};

/// The entries of a table of `mib` MiB (`USI_Hash`, `cargo xtask solve --hash`): the MiB
/// over the size of an [`Entry`]; the geometry then keeps the largest power-of-two number
/// of sets of its ways that fits (`Config::with_tt_entries`).
pub fn entries_in_mib(mib: usize) -> usize {
    mib.saturating_mul(1 << 20) / std::mem::size_of::<Entry>()
}

/// One entry (in the chip's way: valid 1, tag 32, pn 24, dn 24, mate length 16, bounded
/// 1, and a hand of 21 bits that this table leaves unread; pn and dn [`narrowed`]).
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

    fn found(&self) -> Found {
        Found {
            pn: self.pn,
            dn: self.dn,
            len: self.len,
            bounded: self.bounded,
        }
    }
}

impl Way for Entry {
    fn is_valid(&self) -> bool {
        self.valid
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

/// The branch of the replacement rule a store took.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Placement {
    /// The way holding the tag keeps its proof (the new value is no proof of fewer plies).
    KeptProof,
    /// The way holding the tag keeps its disproof.
    KeptDisproof,
    /// The way holding the tag takes a proof of fewer plies than its own.
    ShorterProof,
    /// The way holding the tag, unsolved, is overwritten.
    Overwritten,
    /// No way holds the tag: the first empty way.
    Empty,
    /// No way holds the tag, every way is taken: the unsolved way of least pn + dn.
    LeastWork,
    /// Every way solved: the first disproven way.
    Disproven,
    /// Every way solved, none disproven: way 0.
    First,
}

impl Placement {
    /// Every branch, in the order of the chip's 3-bit code (`hdl/search/transposition_table.spade`).
    pub const ALL: [Placement; 8] = [
        Placement::KeptProof,
        Placement::KeptDisproof,
        Placement::ShorterProof,
        Placement::Overwritten,
        Placement::Empty,
        Placement::LeastWork,
        Placement::Disproven,
        Placement::First,
    ];

    /// The store writes a way (every branch but the two that keep the way's value).
    pub fn writes(self) -> bool {
        !matches!(self, Placement::KeptProof | Placement::KeptDisproof)
    }

    /// The store overwrites a valid way that the victim rule chose in a full set (one of
    /// another key, or in the pieces table one of its own key that the new entry does
    /// not make useless): with a second level, the way's entry is written back.
    pub fn evicts(self) -> bool {
        matches!(
            self,
            Placement::LeastWork | Placement::Disproven | Placement::First
        )
    }
}

/// The table: its sets (the first level) and, with `tt2_index_bits`, its second level
/// ([`super::second_level`]).
pub struct Table {
    sets: Sets<Entry>,
    second: Option<Box<SecondLevel<Entry>>>,
}

/// The ways of a table, 2^k sets of W entries `E`, and the generation each set was last
/// written in, as on the chip: a set of an older generation reads as empty, and is
/// emptied whole when it is written, so that a clear is a count (the whole table is
/// emptied only when the generation wraps).
pub struct Sets<E> {
    index_bits: u32,
    ways: usize,
    entries: Vec<E>,
    written: Vec<u32>,
    generation: u32,
}

impl<E: Default + Clone> Sets<E> {
    /// Empty sets, or why this machine cannot hold them.
    pub fn try_new(index_bits: u32, ways: usize) -> Result<Sets<E>, TableTooLarge> {
        Ok(Sets {
            index_bits,
            ways,
            entries: allocate(index_bits, ways)?,
            // A set's generation: one word a set.
            written: allocate(index_bits, 1)?,
            generation: 0,
        })
    }

    /// Entries in all.
    pub fn capacity(&self) -> usize {
        self.entries.len()
    }

    /// Empties every way: the next generation.
    pub fn clear(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.entries.fill(E::default());
            self.written.fill(0);
        }
    }

    fn index(&self, key: u64) -> usize {
        (key & ((1u64 << self.index_bits) - 1)) as usize
    }

    /// Set-index bits.
    pub fn index_bits(&self) -> u32 {
        self.index_bits
    }

    /// Ways a set.
    pub fn ways(&self) -> usize {
        self.ways
    }

    /// The ways of `key`'s set (none when it was written before the last clear).
    pub fn get(&self, key: u64) -> &[E] {
        let index = self.index(key);
        if self.written[index] == self.generation {
            &self.entries[index * self.ways..(index + 1) * self.ways]
        } else {
            &[]
        }
    }

    /// The ways of `key`'s set to write, emptied first when it was written before the
    /// last clear.
    pub fn get_mut(&mut self, key: u64) -> &mut [E] {
        let index = self.index(key);
        let set = &mut self.entries[index * self.ways..(index + 1) * self.ways];
        if self.written[index] != self.generation {
            set.fill(E::default());
            self.written[index] = self.generation;
        }
        set
    }
}

/// The tag of a hash: its high 32 bits.
pub fn tag_of(hash: u64) -> u32 {
    (hash >> 32) as u32
}

/// A table this machine cannot hold: its size, and the memory available when it is known.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "a table of {entries} entries needs {} MiB, {}",
    mib(*.bytes),
    match .available {
        Some(free) => format!("and this machine has {} MiB of memory available", mib(*free)),
        None => "more memory than this machine can allocate".to_string(),
    }
)]
pub struct TableTooLarge {
    /// Entries asked for.
    pub entries: u64,
    /// Their bytes.
    pub bytes: u64,
    /// Bytes of memory available, where the system tells (Linux's `MemAvailable`).
    pub available: Option<u64>,
}

fn mib(bytes: u64) -> u64 {
    bytes.div_ceil(1 << 20)
}

/// Bytes of memory a process can allocate without swapping, where the system tells:
/// `MemAvailable` of /proc/meminfo on Linux, else `None`.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The entries of an empty table of `2^index_bits` sets of `ways` ways (`index_bits` at
/// most 32) of entries `E`, or why this machine cannot hold them: more bytes than the
/// memory available, or an allocation that fails.
pub fn allocate<E: Default + Clone>(index_bits: u32, ways: usize) -> Result<Vec<E>, TableTooLarge> {
    assert!(index_bits <= 32 && ways >= 1, "table geometry");
    let entries = (1u64 << index_bits).saturating_mul(ways as u64);
    let bytes = entries.saturating_mul(std::mem::size_of::<E>() as u64);
    let available = available_memory();
    let too_large = TableTooLarge {
        entries,
        bytes,
        available,
    };
    if available.is_some_and(|free| bytes > free) {
        return Err(too_large);
    }
    let len = usize::try_from(entries).map_err(|_| too_large.clone())?;
    let mut table = Vec::new();
    table.try_reserve_exact(len).map_err(|_| too_large)?;
    table.resize(len, E::default());
    Ok(table)
}

impl TableTooLarge {
    /// The largest table of `ways` times a power of two entries, fewer than the ones
    /// refused, whose entries (of the refused table's size) fit in the memory available;
    /// `None` when the memory is not known or not even one set fits.
    pub fn fitting(&self, ways: u64) -> Option<u64> {
        let free = self.available?;
        let per_entry = (self.bytes / self.entries.max(1)).max(1);
        let fits =
            |entries: u64| entries < self.entries && entries.saturating_mul(per_entry) <= free;
        let mut entries = ways.max(1);
        if !fits(entries) {
            return None;
        }
        while fits(entries.saturating_mul(2)) {
            entries *= 2;
        }
        Some(entries)
    }
}

impl Table {
    /// An empty table of `2^index_bits` sets of `ways` ways (`index_bits` at most 32);
    /// panics with [`TableTooLarge`]'s message when it cannot be allocated.
    pub fn new(index_bits: u32, ways: usize) -> Table {
        Table::try_new(index_bits, ways).unwrap_or_else(|e| panic!("{e}"))
    }

    /// An empty table of `2^index_bits` sets of `ways` ways, or why this machine cannot
    /// hold it: more bytes than the memory available, or an allocation that fails.
    pub fn try_new(index_bits: u32, ways: usize) -> Result<Table, TableTooLarge> {
        Ok(Table {
            sets: Sets::try_new(index_bits, ways)?,
            second: None,
        })
    }

    /// The same table with a second level of `2^index_bits` slots (none for 0), or why
    /// this machine cannot hold it.
    pub fn with_second_level(mut self, index_bits: u32) -> Result<Table, TableTooLarge> {
        self.second = SecondLevel::behind(index_bits, &self.sets)?;
        Ok(self)
    }

    /// The second level's counts since the last clear (zero without one).
    pub fn level_two(&self) -> LevelTwoCounts {
        self.second.as_ref().map(|s| s.counts()).unwrap_or_default()
    }

    /// Entries in all.
    pub fn capacity(&self) -> usize {
        self.sets.capacity()
    }

    /// Empties every way, and every slot of the second level.
    pub fn clear(&mut self) {
        self.sets.clear();
        if let Some(second) = &mut self.second {
            second.clear();
        }
    }

    /// The entry of `hash`, if its set holds it (the way whose tag matches, lowest first),
    /// else if its second-level slot does; not counted (the line's read).
    pub fn lookup(&self, hash: u64) -> Option<Found> {
        self.read(hash, false)
    }

    /// [`Table::lookup`] as EXPAND's probe: a read of the second level is counted.
    pub fn probe(&self, hash: u64) -> Option<Found> {
        self.read(hash, true)
    }

    fn read(&self, hash: u64, counted: bool) -> Option<Found> {
        let tag = tag_of(hash);
        let find = |set: &[Entry]| {
            set.iter()
                .find(|e| e.valid && e.tag == tag)
                .map(Entry::found)
        };
        find(self.sets.get(hash)).or_else(|| {
            self.second
                .as_ref()
                .and_then(|s| s.read(hash, counted, find))
        })
    }

    /// Writes the values of `hash`. In the way that holds it if any: a proven entry is
    /// only replaced by a proof of fewer plies, and nothing replaces a disproven one.
    /// Otherwise in the victim way: the first empty way; else the unsolved way of least
    /// pn + dn; else (every way solved) the first disproven way; else the first way.
    /// pn and dn are kept [`narrowed`] to the way's 24 bits. Returns the branch taken (the
    /// chip reports the same: `tsume::chip::table`).
    pub fn store(&mut self, hash: u64, pn: Pn, dn: Pn, len: u16, bounded: bool) -> Placement {
        let (pn, dn) = (narrowed(pn), narrowed(dn));
        let tag = tag_of(hash);
        let set = self.sets.get_mut(hash);
        let new = Entry {
            valid: true,
            tag,
            pn,
            dn,
            len,
            bounded,
        };
        if let Some(way) = set.iter().position(|e| e.valid && e.tag == tag) {
            let e = &mut set[way];
            let shorter_proof = pn == 0 && len < e.len;
            let placement = if e.pn == 0 && !shorter_proof {
                Placement::KeptProof
            } else if e.dn == 0 {
                Placement::KeptDisproof
            } else if e.pn == 0 {
                Placement::ShorterProof
            } else {
                Placement::Overwritten
            };
            if placement.writes() {
                *e = new;
                self.kept(hash, way, placement, new);
            }
            return placement;
        }
        let (victim, placement) = set
            .iter()
            .position(|e| !e.valid)
            .map(|i| (i, Placement::Empty))
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
                best.map(|(i, _)| (i, Placement::LeastWork))
            })
            .or_else(|| {
                set.iter()
                    .position(|e| e.dn == 0 && e.pn == INF)
                    .map(|i| (i, Placement::Disproven))
            })
            .unwrap_or((0, Placement::First));
        let old = std::mem::replace(&mut set[victim], new);
        self.kept(hash, victim, placement, old);
        placement
    }

    /// With a second level: the extra index bits of the way just written are kept, and an
    /// evicted entry is first written back to its slot.
    fn kept(&mut self, hash: u64, way: usize, placement: Placement, old: Entry) {
        if let Some(second) = &mut self.second {
            if placement.evicts() {
                second.write_back(hash, way, old);
            }
            second.keep(hash, way);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_table_that_fits_is_smaller_than_the_one_refused() {
        let refused = |entries: u64, per_entry: u64, free: u64| super::TableTooLarge {
            entries,
            bytes: entries * per_entry,
            available: Some(free),
        };
        // More bytes than the memory available: the largest power of two that fits.
        assert_eq!(refused(1 << 20, 32, 5 << 20).fitting(4), Some(1 << 17));
        // Refused although its bytes fit (an allocation that failed): a smaller one.
        assert_eq!(refused(1 << 20, 32, 1 << 30).fitting(4), Some(1 << 19));
        // Ways that are not a power of two.
        assert_eq!(refused(3 << 10, 100, 200_000).fitting(3), Some(3 << 9));
        // Not even one set, or the memory unknown: nothing to suggest.
        assert_eq!(refused(1 << 10, 64, 100).fitting(4), None);
        let unknown = super::TableTooLarge {
            available: None,
            ..refused(1 << 10, 64, 0)
        };
        assert_eq!(unknown.fitting(4), None);
    }

    use super::*;
    use crate::solver::values::TABLE_MAX;

    #[test]
    fn numbers_are_kept_in_24_bits() {
        let mut t = Table::new(2, 4);
        t.store(5 << 32, 20_000_000, TABLE_MAX, 0, false);
        t.store(6 << 32, INF, 0, 0, false);
        t.store(7 << 32, INF - 1, 3, 0, false);
        let pair = |t: &Table, k: u64| t.lookup(k << 32).map(|f| (f.pn, f.dn));
        assert_eq!(pair(&t, 5), Some((TABLE_MAX, TABLE_MAX)));
        assert_eq!(pair(&t, 6), Some((INF, 0)));
        assert_eq!(pair(&t, 7), Some((TABLE_MAX, 3)));
    }

    #[test]
    fn a_table_too_large_for_the_machine_is_an_error() {
        // 2^32 sets of 64 ways: 4 TiB.
        let e = Table::try_new(32, 64)
            .err()
            .expect("no machine holds 4 TiB");
        assert_eq!(e.entries, 1 << 38);
        let text = e.to_string();
        assert!(text.contains("needs 4194304 MiB"), "{text}");
        let small = Table::try_new(4, 2).unwrap();
        assert_eq!(small.capacity(), 32);
    }

    #[test]
    fn a_clear_empties_every_set_at_once() {
        let mut t = Table::new(1, 2);
        let h = |tag: u64| tag << 32;
        t.store(h(1), 0, INF, 3, false);
        t.store(h(2), 5, 5, 0, false);
        t.store(h(3) | 1, 7, 7, 0, false);
        t.clear();
        assert!(t.lookup(h(1)).is_none() && t.lookup(h(3) | 1).is_none());
        // The first store after the clear finds its set empty: its old ways are gone and
        // the new value takes way 0.
        assert_eq!(t.store(h(2), 4, 4, 0, false), Placement::Empty);
        assert!(t.lookup(h(1)).is_none());
        assert_eq!(t.store(h(1), 1, 1, 0, false), Placement::Empty);
        assert_eq!(t.lookup(h(2)).unwrap().pn, 4);
        // The other set stays empty until it is written.
        assert!(t.lookup(h(3) | 1).is_none());
    }

    #[test]
    fn replacement_follows_the_rule() {
        let mut t = Table::new(1, 2);
        // Hashes of set 0 with different tags.
        let h = |tag: u64| tag << 32;
        t.store(h(1), 5, 5, 0, false);
        t.store(h(2), 0, INF, 3, false);
        assert_eq!(t.lookup(h(1)).unwrap().pn, 5);
        // Full set: the unsolved way goes first, the proof stays.
        assert_eq!(t.store(h(3), 1, 1, 0, false), Placement::LeastWork);
        assert!(t.lookup(h(1)).is_none());
        assert_eq!(t.lookup(h(2)).unwrap().len, 3);
        // A shorter proof replaces a longer one, an unsolved value does not.
        assert_eq!(t.store(h(2), 0, INF, 1, false), Placement::ShorterProof);
        assert_eq!(t.store(h(2), 4, 4, 0, false), Placement::KeptProof);
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
        assert_eq!(t.store(h(3), INF, 0, 0, false), Placement::Overwritten);
        assert_eq!(t.store(h(4), 2, 2, 0, false), Placement::Disproven);
        assert!(t.lookup(h(3)).is_none());
        assert!(t.lookup(h(2)).is_some());
        // Another set is untouched.
        assert!(t.lookup(h(2) | 1).is_none());
    }
}
