//! The position sets of `bench --solver`: the suite, the first positions of each nshogi
//! mate-N file and the famous problems, with what each position is known to be.

use std::path::Path;

use anyhow::{Context, Result, bail};
use tsume::problems::Expected;
use tsume::solver::Root;

use crate::util;

/// The sets, in the order of the tables: name and what it reads.
pub const SETS: [&str; 7] = [
    "suite", "mate-3", "mate-5", "mate-7", "mate-9", "mate-11", "famous",
];

/// What a position of a set is known to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// A mate (of this many plies when known).
    Mate(Option<u32>),
    /// No mate within this many plies.
    NoMateWithin(u32),
}

/// One position of a set.
#[derive(Debug, Clone)]
pub struct Item {
    /// Where it comes from: problem id, or file and line.
    pub id: String,
    pub sfen: String,
    pub expect: Expect,
}

/// The sets named by `--sets` (comma-separated; empty: all), in table order.
pub fn parse_sets(text: Option<&str>) -> Result<Vec<&'static str>> {
    let Some(text) = text else {
        return Ok(SETS.to_vec());
    };
    let mut wanted = Vec::new();
    for name in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if !SETS.contains(&name) {
            bail!("--sets: no set `{name}`; the sets are {}", SETS.join(", "));
        }
        wanted.push(name);
    }
    if wanted.is_empty() {
        bail!("--sets is empty; name some of {}", SETS.join(", "));
    }
    Ok(SETS
        .iter()
        .copied()
        .filter(|s| wanted.contains(s))
        .collect())
}

/// The first `sample` positions of a file of one SFEN a line (an nshogi mate-N file).
pub fn read_lines(path: &Path, sample: usize, expect: Expect) -> Result<Vec<Item>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the position file {}", path.display()))?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    Ok(text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .take(sample)
        .map(|(i, l)| Item {
            id: format!("{name}:{}", i + 1),
            sfen: l.trim().to_string(),
            expect,
        })
        .collect())
}

/// The famous problems: `name<TAB>sfen` a line, every one a mate.
pub fn read_famous(path: &Path) -> Result<Vec<Item>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the famous problems {}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let (name, sfen) = l.split_once('\t').with_context(|| {
                format!("{}:{}: expected `name<TAB>sfen`", path.display(), i + 1)
            })?;
            Ok(Item {
                id: name.to_string(),
                sfen: sfen.trim().to_string(),
                expect: Expect::Mate(None),
            })
        })
        .collect()
}

/// The positions of the set `name` (of an nshogi file, the first `sample`).
pub fn load_set(name: &str, sample: usize) -> Result<Vec<Item>> {
    let root = util::project_root();
    if name == "suite" {
        let suite = tsume::problems::load_suite(&crate::toolchain::problems_dir())?;
        return Ok(suite
            .into_iter()
            .map(|p| Item {
                expect: match p.expected {
                    Expected::Mate(n) => Expect::Mate(Some(n)),
                    Expected::NoMateWithin(n) => Expect::NoMateWithin(n),
                },
                id: p.id,
                sfen: p.sfen,
            })
            .collect());
    }
    if name == "famous" {
        return read_famous(&root.join("tests/data/famous/famous-problems.tsv"));
    }
    let plies: u32 = name
        .strip_prefix("mate-")
        .and_then(|n| n.parse().ok())
        .with_context(|| format!("no set `{name}`"))?;
    read_lines(
        &root.join(format!("tests/data/nshogi/mate-{plies}-ply.txt")),
        sample,
        Expect::Mate(Some(plies)),
    )
}

/// Which side the side to move plays in a set: the famous file holds positions one check
/// into a problem (the defender to move, in check), read with `auto`; every other set is
/// problems as set, the side to move attacking (also from check).
pub fn root_of(set: &str) -> Root {
    if set == "famous" {
        Root::Auto
    } else {
        Root::Attacker
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_are_named_and_kept_in_table_order() {
        assert_eq!(parse_sets(None).unwrap(), SETS.to_vec());
        assert_eq!(
            parse_sets(Some("famous, mate-5")).unwrap(),
            vec!["mate-5", "famous"]
        );
        let e = parse_sets(Some("mate-4")).unwrap_err().to_string();
        assert!(
            e.contains("no set `mate-4`") && e.contains("mate-11"),
            "{e}"
        );
        assert!(parse_sets(Some(",")).is_err());
    }

    #[test]
    fn the_repository_sets_load() {
        let famous = load_set("famous", 10).unwrap();
        assert_eq!(famous.len(), 60);
        assert_eq!(
            (famous[0].id.as_str(), famous[0].sfen.as_str()),
            ("図巧98番", "8k/9/9/9/9/9/9/9/9 b R2GSr2b2g3s4n4l18p 1")
        );
        assert!(famous.iter().all(|i| i.expect == Expect::Mate(None)));
        let mate5 = load_set("mate-5", 7).unwrap();
        assert_eq!(mate5.len(), 7);
        assert_eq!(mate5[0].expect, Expect::Mate(Some(5)));
        assert!(mate5[6].id.ends_with("mate-5-ply.txt:7"));
        assert!(!load_set("suite", 1).unwrap().is_empty());
    }
}
