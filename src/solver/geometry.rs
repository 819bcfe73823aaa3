//! The search's geometry (`[search]` in swim.toml), the chip's Spade file of it
//! ([`GEOMETRY_FILE`]), and the limits of one solve. The chip's twin is
//! `hdl/search/geometry.spade`, generated from swim.toml by `cargo xtask gen`
//! ([`Config::spade_geometry`]); the test
//! `tests::the_geometry_file_is_generated_from_the_manifest` here compares the two, and
//! every hardware test builds its chip from it.

use std::path::Path;

use anyhow::bail;
use serde::Deserialize;

use super::moves::Kind;

/// The Spade source of the search's geometry, generated from swim.toml `[search]` by
/// `cargo xtask gen` ([`Config::spade_geometry`]).
pub const GEOMETRY_FILE: &str = "hdl/search/geometry.spade";

/// Table geometry and capacities: what the chip builds its memories from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// The table has `2^tt_index_bits` sets (the index is the hash's low bits; at most 32).
    pub tt_index_bits: u32,
    /// Ways per set.
    pub tt_ways: usize,
    /// Child frames on the path: plies below the root the search can hold (root = ply 0).
    pub max_plies: usize,
    /// Children one frame holds: the longest move list a node may have.
    pub max_children: usize,
    /// The pieces table (docs/search.md, "The pieces table"): the hands out of the table
    /// key, proof and disproof pieces beside the tag. Both twins: the chip searches with
    /// it node for node with the model (the table key's rule from the host, RETURN's
    /// pieces in `hdl/search/solved_pieces.spade`).
    #[serde(default)]
    pub hand_superiority: bool,
    /// The pieces table with the plies left out of the key: a proof applies where its
    /// length fits, a bounded disproof where no more plies are left. Both twins, node for
    /// node (`hdl/search/transposition_table.spade`'s `depth_free`).
    #[serde(default)]
    pub depth_free: bool,
    /// Child counts (docs/search.md, "Child counts"): a new child of an expanded node gets
    /// its first numbers from its number of replies, counted when it is generated (a
    /// mate or a node without checks solved at once). The model only: the chip refuses it.
    #[serde(default)]
    pub child_counts: bool,
    /// Count estimates (docs/search.md, "Child counts"): a new child of an OR node gets
    /// a first proof number estimated from the node's position and the check
    /// ([`super::count_estimate`]), no generator run of the child. The chip's count unit
    /// gives `attacked` (the simulated chip; not the board's yet); a configuration with
    /// `child_counts` refuses it.
    #[serde(default)]
    pub child_estimates: Option<super::count_estimate::Estimate>,
    /// The table's second level (docs/search.md, "The second level (the board's SDRAM)"):
    /// `2^tt2_index_bits` slots of one entry behind the table, indexed by the key's low
    /// bits; 0 for none (the default). The model only, for now: the chip refuses it.
    #[serde(default)]
    pub tt2_index_bits: u32,
}

impl Config {
    /// The `[search]` table of the manifest at `path` (swim.toml), read by
    /// [`crate::project::Manifest`].
    pub fn from_manifest(path: &Path) -> anyhow::Result<Config> {
        crate::project::Manifest::read(path)?.search()
    }

    /// Rejects a geometry the search cannot use.
    pub fn check(&self) -> anyhow::Result<()> {
        if self.tt_index_bits > 32 {
            bail!(
                "tt_index_bits = {}: at most 32 (the tag is the hash's high 32 bits)",
                self.tt_index_bits
            );
        }
        if self.tt2_index_bits > 32 {
            bail!(
                "tt2_index_bits = {}: at most 32 (0 for no second level)",
                self.tt2_index_bits
            );
        }
        if !(1..=64).contains(&self.tt_ways) {
            bail!("tt_ways = {}: between 1 and 64", self.tt_ways);
        }
        let most = super::position_hash::PLY_KEYS;
        if !(2..=most).contains(&self.max_plies) {
            bail!("max_plies = {}: between 2 and {most}", self.max_plies);
        }
        if !(1..=1024).contains(&self.max_children) {
            bail!("max_children = {}: between 1 and 1024", self.max_children);
        }
        if self.child_counts && self.child_estimates.is_some() {
            bail!("child_counts and child_estimates: one of the two at most");
        }
        Ok(())
    }

    /// Rejects the model's switches the chip's search does not have (a geometry it is built
    /// with, or searches with: `tsume::chip::solver::chip_takes`): child counts, an estimate
    /// other than its count unit's, a second level of the table.
    pub fn check_chip_search(&self) -> anyhow::Result<()> {
        if self.child_counts {
            bail!(
                "child_counts = true: the chip has no generator run a child (its count unit gives \
                 child_estimates = \"attacked\")"
            );
        }
        if let Some(e) = self.child_estimates
            && e != super::count_estimate::Estimate::Attacked
        {
            bail!(
                "child_estimates = \"{}\": the chip's count unit gives \"attacked\" only",
                e.name()
            );
        }
        if self.tt2_index_bits > 0 {
            bail!(
                "tt2_index_bits = {}: the chip has no second level yet (issue 76); search \
                 without it (0), or with the model",
                self.tt2_index_bits
            );
        }
        Ok(())
    }

    /// Rejects a geometry the chip cannot be built with (the model takes more): the
    /// repetition check's ply arithmetic needs ply indices of 4 bits at least, and
    /// EXPAND counts a move list in 10 bits.
    pub fn check_chip(&self) -> anyhow::Result<()> {
        self.check()?;
        self.check_chip_search()?;
        if self.max_plies < 9 {
            bail!(
                "max_plies = {}: the chip needs 9 at least (ply indices of 4 bits)",
                self.max_plies
            );
        }
        if self.max_children > 512 {
            bail!(
                "max_children = {}: the chip takes 512 at most (EXPAND counts a list in 10 bits)",
                self.max_children
            );
        }
        Ok(())
    }

    /// Whether the model searches with the pieces table (either switch on).
    pub fn pieces_table(&self) -> bool {
        self.hand_superiority || self.depth_free
    }

    /// The same geometry with a table of about `entries` entries: the same ways, and the
    /// largest power-of-two number of sets whose entries do not exceed `entries` (one
    /// set at least).
    pub fn with_tt_entries(mut self, entries: usize) -> Config {
        let sets = (entries / self.tt_ways).max(1);
        self.tt_index_bits = (usize::BITS - 1 - sets.leading_zeros()).min(32);
        self
    }

    /// The plies a search from a root of `kind` may use: the largest number below
    /// `max_plies` (the root is ply 0; the last frame is ply `max_plies - 1`) that is odd
    /// for an attacker's root, even for a defender's (a mate ends on the attacker's move).
    pub fn root_plies(&self, kind: Kind) -> u32 {
        let last = self.max_plies as u32 - 1;
        let odd = kind == Kind::Or;
        if (last % 2 == 1) == odd {
            last
        } else {
            last - 1
        }
    }

    /// Entries of the table.
    pub fn tt_entries(&self) -> usize {
        (1usize << self.tt_index_bits) * self.tt_ways
    }

    /// Bits of a ply index on chip (plies 0 to `max_plies - 1`).
    pub fn ply_bits(&self) -> u32 {
        bits_to_fit(self.max_plies - 1).max(1)
    }

    /// Bits of a child index on chip (children 0 to `max_children - 1`; at least 2, so that
    /// a pair of children has an index of its own).
    pub fn child_bits(&self) -> u32 {
        bits_to_fit(self.max_children - 1).max(2)
    }

    /// The chip's frames: one per ply index, `2^ply_bits` (`max_plies` when it is a power
    /// of two; the host never uses the others).
    pub fn chip_plies(&self) -> usize {
        1 << self.ply_bits()
    }

    /// The chip's geometry as Spade ([`GEOMETRY_FILE`]): the numbers of `[search]` and the
    /// widths that follow from them, as functions whose values and types the chip's blocks
    /// take their sizes from (Spade 0.16 has neither constants nor type aliases).
    pub fn spade_geometry(&self) -> String {
        let p = self.ply_bits();
        let i = self.child_bits();
        let f = self.chip_plies();
        let bank = 1usize << (p + i - 1);
        let addr = p + i - 1;
        let sets = 1u64 << self.tt_index_bits;
        let (ib, ways, mp, mc) = (
            self.tt_index_bits,
            self.tt_ways,
            self.max_plies,
            self.max_children,
        );
        let rep = p + 1;
        let rep_none = (1u32 << rep) - 1;
        format!(
            "\
// The search's geometry on chip: swim.toml [search] (docs/search.md, \"Hardware\").
// Generated from swim.toml by `cargo xtask gen`: do not edit. The test
// `solver::geometry::tests::the_geometry_file_is_generated_from_the_manifest` fails when the two differ.
//
// max_plies = {mp}, max_children = {mc}, a table of 2^{ib} sets of {ways} ways. On chip a
// ply index is uint<{p}> and there are {f} frames (one per index), a child index is uint<{i}>,
// a child count uint<{i1}>, a `rep` uint<{rep}> (a ply, or all ones for none). Spade 0.16
// has neither constants nor type aliases: the numbers are the values and the types of the
// functions below. The search's blocks are generic over their widths and sizes; the tops
// that marlin drives (ports of fixed widths, wide enough for any geometry) pass their
// values through `to_ply`, `to_child`, `to_count` and `per_ply`, which fixes them for
// every block.

use lib::search::transposition_table::transposition_table;
use lib::search::transposition_table::Command;
use lib::search::transposition_table::TableOut;

/// swim.toml [search] max_plies: the model's frames, plies 0 to {mp_1}.
pub fn max_plies() -> uint<11> {{
    {mp}
}}

/// swim.toml [search] max_children: children one frame holds.
pub fn max_children() -> uint<11> {{
    {mc}
}}

/// swim.toml [search] tt_index_bits: the table's set-index bits.
pub fn tt_index_bits() -> uint<6> {{
    {ib}
}}

/// swim.toml [search] tt_ways: entries a set.
pub fn tt_ways() -> uint<8> {{
    {ways}
}}

/// A ply index from a top's port (10 bits: up to 1,024 plies).
pub fn to_ply(x: uint<10>) -> uint<{p}> {{
    trunc(x)
}}

/// A child index from a top's port (10 bits: up to 1,024 children).
pub fn to_child(x: uint<10>) -> uint<{i}> {{
    trunc(x)
}}

/// A child count (0 to max_children) from a top's port (11 bits).
pub fn to_count(x: uint<11>) -> uint<{i1}> {{
    trunc(x)
}}

/// `rep` of a value that depends on no position of the path (the model's REP_NONE): all
/// ones, above every ply index, so that the least `rep` is an unsigned minimum.
pub fn rep_none() -> uint<{rep}> {{
    {rep_none}
}}

/// One entry per frame (the path's hashes, the line's moves): {f} of them.
pub fn per_ply<T>(a: [T; {f}]) -> [T; {f}] {{
    a
}}

/// A bank of the child frames: one entry per ply and pair of children, addressed
/// `ply ++ pair` ({addr} bits, {bank} entries); a write port, and a registered read (the
/// entry at `read` from the next edge on).
pub entity frame_bank<E>(clk: clock, write: (bool, uint<{addr}>, E), read: uint<{addr}>) -> E {{
    let mem: Memory<E, {bank}> = inst std::mem::clocked_memory(clk, [write]);
    reg(clk) entry = inst std::mem::read_memory(mem, read);
    entry
}}

/// The transposition table of this geometry: 2^{ib} sets of {ways} ways.
pub entity table(clk: clock, rst: bool, index_mask: uint<{ib}>, depth_free: bool, hand_superiority: bool,
    cmd: Option<Command>) -> TableOut
{{
    inst transposition_table::<{ib}, {sets}, {ways}>(clk, rst, index_mask, depth_free, hand_superiority, cmd)
}}

/// The whole table's index mask: every set.
pub fn all_sets() -> uint<{ib}> {{
    {all}
}}
",
            mp_1 = mp - 1,
            i1 = i + 1,
            all = sets - 1,
        )
    }
}

/// Bits of an unsigned number up to `n` (0 for 0).
fn bits_to_fit(n: usize) -> u32 {
    usize::BITS - n.leading_zeros()
}

/// Which side the root's side to move plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Root {
    /// The side to move attacks (a problem as set; USI's `go mate`).
    #[default]
    Attacker,
    /// The side to move defends, in check: a position one check into a problem (the
    /// attacker is the side not to move).
    Defender,
    /// The defender when the side to move is in check, else the attacker.
    Auto,
}

impl Root {
    /// The kind of the root node of `board` (a defender's root must be in check: the
    /// caller checks it).
    pub fn kind(self, board: &rsshogi::board::Position) -> Kind {
        match self {
            Root::Attacker => Kind::Or,
            Root::Defender => Kind::And,
            Root::Auto if board.is_in_check() => Kind::And,
            Root::Auto => Kind::Or,
        }
    }
}

/// The limits of one solve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Moves made at most (counted over every search of the solve, the line's included).
    pub nodes: u64,
    /// After a mate, search within 1, 3, 5, ... plies until the first proof: the minimax
    /// distance.
    pub shortest: bool,
    /// Which side the side to move plays.
    pub root: Root,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            nodes: u64::MAX,
            shortest: false,
            root: Root::Attacker,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_project_manifest_parses() {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("swim.toml");
        let c = Config::from_manifest(&manifest).unwrap();
        assert!(c.tt_entries() >= 1024);
        assert_eq!(c.with_tt_entries(1 << 20).tt_entries(), 1 << 20);
        assert_eq!(c.with_tt_entries(3).tt_entries(), c.tt_ways);
    }

    /// The committed geometry file is swim.toml's.
    #[test]
    fn the_geometry_file_is_generated_from_the_manifest() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let config = Config::from_manifest(&root.join("swim.toml")).unwrap();
        config.check_chip().unwrap();
        let path = root.join(GEOMETRY_FILE);
        let committed = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        assert!(
            committed == config.spade_geometry(),
            "{GEOMETRY_FILE} is not the geometry of swim.toml [search]: run `cargo xtask gen` \
             and commit the file"
        );
    }

    #[test]
    fn chip_widths() {
        let c = Config {
            tt_index_bits: 12,
            tt_ways: 4,
            max_plies: 64,
            max_children: 128,
            hand_superiority: false,
            depth_free: false,
            child_counts: false,
            child_estimates: None,
            tt2_index_bits: 0,
        };
        assert_eq!((c.ply_bits(), c.child_bits(), c.chip_plies()), (6, 7, 64));
        let c = Config {
            max_plies: 33,
            max_children: 1024,
            ..c
        };
        assert_eq!((c.ply_bits(), c.child_bits(), c.chip_plies()), (6, 10, 64));
        // The model takes 1,024 children and 2 plies; the chip does not.
        assert!(c.check().is_ok());
        let e = c.check_chip().unwrap_err().to_string();
        assert!(e.contains("max_children = 1024"), "{e}");
        let few = Config {
            max_plies: 8,
            max_children: 128,
            ..c
        };
        assert!(few.check().is_ok());
        let e = few.check_chip().unwrap_err().to_string();
        assert!(e.contains("max_plies = 8"), "{e}");
    }

    #[test]
    fn errors_name_the_key() {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("swim.toml");
        let text = std::fs::read_to_string(&manifest).unwrap();
        let head = &text[..text.find("\n[search]").unwrap() + 1];
        let parse = |search: &str| {
            crate::project::Manifest::parse(&format!("{head}{search}"), Path::new("swim.toml"))
                .and_then(|m| m.search())
        };
        let bad = "[search]\ntt_index_bits = 12\ntt_ways = four\n";
        let e = format!("{:#}", parse(bad).unwrap_err());
        assert!(e.contains("tt_ways"), "{e}");
        let missing = "[search]\ntt_index_bits = 12\ntt_ways = 4\nmax_plies = 64\n";
        let e = format!("{:#}", parse(missing).unwrap_err());
        assert!(e.contains("max_children"), "{e}");
        let e = format!("{:#}", parse("").unwrap_err());
        assert!(e.contains("no [search]"), "{e}");
        let e = format!(
            "{:#}",
            parse(&missing.replace("64", "1\nmax_children = 128")).unwrap_err()
        );
        assert!(e.contains("max_plies = 1"), "{e}");
    }
}
