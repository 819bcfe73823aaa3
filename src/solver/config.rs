//! The search's geometry (`[search]` in swim.toml) and the limits of one solve.

use std::path::Path;

use anyhow::bail;
use serde::Deserialize;

use super::moves::Kind;

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
        if !(1..=64).contains(&self.tt_ways) {
            bail!("tt_ways = {}: between 1 and 64", self.tt_ways);
        }
        let most = super::zobrist::PLY_KEYS;
        if !(2..=most).contains(&self.max_plies) {
            bail!("max_plies = {}: between 2 and {most}", self.max_plies);
        }
        if !(1..=1024).contains(&self.max_children) {
            bail!("max_children = {}: between 1 and 1024", self.max_children);
        }
        Ok(())
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

    #[test]
    fn errors_name_the_key() {
        let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("swim.toml");
        let text = std::fs::read_to_string(&manifest).unwrap();
        let head = &text[..text.find("[search]").unwrap()];
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
