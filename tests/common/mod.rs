//! Helpers shared by the hardware tests.

use std::path::PathBuf;

/// Every SFEN in the `*.txt` and `*.tsv` files under `../shared/data/<subdir>`, with a label
/// `file:line` (lines holding a board, i.e. a '/'; a `.tsv` line is `NAME<TAB>SFEN`).
/// Missing data fails in CI (which must provide `../shared`) and is skipped elsewhere.
pub fn shared_positions(subdir: &str) -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/data")
        .join(subdir);
    if !dir.is_dir() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{} is missing: CI must provide ../shared beside the project",
            dir.display()
        );
        eprintln!(
            "note: {} not found, shared positions skipped",
            dir.display()
        );
        return Vec::new();
    }
    let mut files = walk(&dir);
    files.sort();
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let name = file
            .strip_prefix(&dir)
            .unwrap_or(&file)
            .display()
            .to_string();
        for (line_no, line) in text.lines().enumerate() {
            let sfen = line.rsplit('\t').next().unwrap_or(line).trim();
            if sfen.contains('/') {
                out.push((format!("{name}:{}", line_no + 1), sfen.to_string()));
            }
        }
    }
    out
}

fn walk(dir: &PathBuf) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("txt" | "tsv")
        ) {
            files.push(path);
        }
    }
    files
}

/// Random positions per run: `TSUME_RANDOM` if set, else `default`.
pub fn random_count(default: usize) -> usize {
    std::env::var("TSUME_RANDOM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Fails the test when there are `failures`: how many (`what`, e.g. "positions disagree
/// with the reference"), the seed that repeats the run, and the first ten in full (empty
/// entries count, but are not shown).
pub fn assert_no_failures(failures: &[String], what: &str, seed: u64) {
    let shown: Vec<&str> = failures
        .iter()
        .filter(|f| !f.is_empty())
        .take(10)
        .map(String::as_str)
        .collect();
    assert!(
        failures.is_empty(),
        "{} {what} (seed {seed}, rerun with TSUME_SEED={seed}):\n{}",
        failures.len(),
        shown.join("\n")
    );
}
