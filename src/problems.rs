//! The project's problem suite (`problems/*.json` in the repository; the callers name the
//! folder).

use std::path::Path;

/// What the suite promises about a problem.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Expected {
    /// The side to move forces mate in exactly this many plies (minimax distance).
    Mate(u32),
    /// No forced mate within this many plies (exhaustive search).
    NoMateWithin(u32),
}

/// One problem of the suite.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Problem {
    /// A short unique name (used in test messages).
    pub id: String,
    /// The position; `expected` is about its side to move (see `problems/README.md`).
    pub sfen: String,
    /// What the exhaustive search ([`crate::mate::mate_length`]) finds.
    pub expected: Expected,
    /// Where the position comes from and what it exercises.
    pub source: String,
    /// A long problem: checked by `cargo xtask solve` only (not by the default tests),
    /// with these limits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solve_only: Option<SolveLimits>,
}

/// The limits a long problem is solved within (`cargo xtask solve` on the suite).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolveLimits {
    /// Moves made at most (the solve's node limit).
    pub nodes: u64,
    /// Entries of the transposition table (`--tt-entries`).
    pub tt_entries: usize,
    /// Child frames (`--max-plies`): mates of up to `max_plies - 1` plies are found.
    pub max_plies: usize,
}

/// Every problem of every `*.json` file in `dir`, in file-name then file order.
///
/// Each file is a JSON array of [`Problem`] objects. Errors name the file and, for a
/// problem that does not parse, its index and id when one can be read. Files with other
/// extensions (such as `README.md`) are ignored.
pub fn load_suite(dir: &Path) -> anyhow::Result<Vec<Problem>> {
    use anyhow::Context;
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)
        .with_context(|| format!("cannot read the problem directory {}", dir.display()))?
    {
        let path = entry
            .with_context(|| format!("cannot list the problem directory {}", dir.display()))?
            .path();
        if path.is_file() && path.extension().is_some_and(|e| e == "json") {
            files.push(path);
        }
    }
    files.sort();
    let mut problems = Vec::new();
    for path in files {
        problems.extend(load_file(&path)?);
    }
    Ok(problems)
}

/// The problems of one suite file (a JSON array of [`Problem`] objects).
pub fn load_file(path: &Path) -> anyhow::Result<Vec<Problem>> {
    use anyhow::Context;
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read problem file {}", path.display()))?;
    let items: Vec<serde_json::Value> = serde_json::from_str(&text).with_context(|| {
        format!(
            "problem file {}: not a JSON array of problems",
            path.display()
        )
    })?;
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let id = item
                .get("id")
                .and_then(|v| v.as_str())
                .map_or_else(|| "(no id)".to_string(), |s| format!("{s:?}"));
            serde_json::from_value::<Problem>(item).with_context(|| {
                format!(
                    "problem file {}: problem #{} {id} is malformed",
                    path.display(),
                    i + 1
                )
            })
        })
        .collect()
}
