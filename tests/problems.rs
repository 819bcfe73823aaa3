//! The problem suite (`problems/*.json`): every problem loads, its position is valid and
//! the exhaustive search agrees with its expected result (long problems, marked
//! `solve_only`, are left to `cargo xtask solve`). Also: a broken suite file gives
//! an error that names the file (and the problem). Positions for new problems are
//! analysed by `cargo xtask analyse` (see `problems/README.md`).

use std::collections::HashSet;

use tsume::mate::mate_length;
use tsume::position::Position;
use tsume::problems::{Expected, Problem, load_suite};

fn check(problem: &Problem) -> Result<(), String> {
    let pos = Position::from_sfen(&problem.sfen)
        .map_err(|e| format!("problem {}: invalid SFEN {}: {e}", problem.id, problem.sfen))?;
    let (plies, want) = match problem.expected {
        Expected::Mate(n) => (n, Some(n)),
        Expected::NoMateWithin(n) => (n, None),
    };
    if plies % 2 == 0 {
        return Err(format!(
            "problem {}: expected plies {plies} must be odd",
            problem.id
        ));
    }
    if let Some(limits) = problem.solve_only {
        // A long problem: `cargo xtask solve` checks it (tests/cli_solve.rs runs the suite).
        if limits.nodes == 0 || limits.tt_entries == 0 || !(2..=1024).contains(&limits.max_plies) {
            return Err(format!(
                "problem {}: solve_only limits {limits:?} cannot solve anything",
                problem.id
            ));
        }
        return Ok(());
    }
    let got = mate_length(&pos, plies);
    if got != want {
        return Err(format!(
            "problem {} ({}): expected {:?}, the search finds {got:?} within {plies} plies",
            problem.id, problem.sfen, problem.expected
        ));
    }
    Ok(())
}

#[test]
fn every_problem_matches_the_search() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("problems");
    let suite = load_suite(&dir).unwrap_or_else(|e| panic!("{e:#}"));
    assert!(
        suite.len() >= 30,
        "only {} problems in {}",
        suite.len(),
        dir.display()
    );
    let mut ids = HashSet::new();
    for p in &suite {
        assert!(
            ids.insert(p.id.clone()),
            "problem id {} appears twice",
            p.id
        );
        assert!(
            !p.source.trim().is_empty(),
            "problem {} has no source",
            p.id
        );
    }
    let failures: Vec<String> = suite.iter().filter_map(|p| check(p).err()).collect();
    assert!(
        failures.is_empty(),
        "{} problem(s) disagree:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A scratch directory under the target dir (removed and re-created).
fn scratch_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tsume-problems-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch directory");
    dir
}

#[test]
fn bad_json_names_the_file() {
    let dir = scratch_dir("bad-json");
    std::fs::write(dir.join("a_good.json"), "[]").unwrap();
    std::fs::write(dir.join("b_broken.json"), "[{\"id\": \"x\", ").unwrap();
    let err = load_suite(&dir).expect_err("broken JSON must not load");
    let text = format!("{err:#}");
    assert!(
        text.contains("b_broken.json"),
        "error does not name the file: {text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_problem_names_the_file_and_the_problem() {
    let dir = scratch_dir("bad-problem");
    let good = r#"{"id": "fine", "sfen": "4k4/9/4P4/9/9/9/9/9/9 b G 1", "expected": {"mate": 1}, "source": "test"}"#;
    let bad = r#"{"id": "no-expected", "sfen": "4k4/9/9/9/9/9/9/9/9 b G 1", "source": "test"}"#;
    std::fs::write(dir.join("suite.json"), format!("[{good}, {bad}]")).unwrap();
    let err = load_suite(&dir).expect_err("a problem without `expected` must not load");
    let text = format!("{err:#}");
    assert!(
        text.contains("suite.json"),
        "error does not name the file: {text}"
    );
    assert!(
        text.contains("no-expected"),
        "error does not name the problem: {text}"
    );
    assert!(
        text.contains("#2"),
        "error does not give the problem's index: {text}"
    );

    // Only `*.json` files count, in file-name order.
    std::fs::write(dir.join("suite.json"), format!("[{good}]")).unwrap();
    std::fs::write(dir.join("README.md"), "not a suite").unwrap();
    let other = good.replace("fine", "second");
    std::fs::write(dir.join("0_first.json"), format!("[{other}]")).unwrap();
    let ids: Vec<String> = load_suite(&dir)
        .unwrap()
        .into_iter()
        .map(|p| p.id)
        .collect();
    assert_eq!(ids, ["second", "fine"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn missing_directory_is_an_error() {
    let dir = std::env::temp_dir().join("tsume-problems-does-not-exist");
    let err = load_suite(&dir).expect_err("a missing directory must not load");
    assert!(format!("{err:#}").contains("tsume-problems-does-not-exist"));
}
