//! The project's problem suite (`problems/*.json`).
//!
//! CONTRACT (filled in by the problem-suite work): keep these names and signatures.

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

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Problem {
    pub id: String,
    pub sfen: String,
    pub expected: Expected,
    /// Where the position comes from and what it exercises.
    pub source: String,
}

/// Every problem of every `*.json` file in `dir`, in file-name then file order.
pub fn load_suite(_dir: &Path) -> anyhow::Result<Vec<Problem>> {
    todo!()
}

/// The suite shipped with the project (`<root>/problems`).
pub fn default_dir() -> std::path::PathBuf {
    crate::toolchain::project_root().join("problems")
}
