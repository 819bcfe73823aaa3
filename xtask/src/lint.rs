//! `cargo xtask lint`: `cargo fmt --check` and clippy with warnings as errors.

use std::process::Command;
use std::time::Instant;

use anyhow::Result;

use crate::util::{self, Failure};

pub fn run() -> Result<()> {
    let start = Instant::now();
    let root = util::project_root();
    let checks: [(&str, &[&str]); 2] = [
        ("cargo fmt --all --check", &["fmt", "--all", "--check"]),
        (
            "cargo clippy --workspace --all-targets -- -D warnings",
            &[
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ],
        ),
    ];
    for (shown, args) in checks {
        eprintln!("lint: {shown}");
        let status = Command::new(util::cargo())
            .args(args)
            .current_dir(&root)
            .status()?;
        if !status.success() {
            let fix = if args[0] == "fmt" {
                "run `cargo fmt --all` to format the code"
            } else {
                "fix the warnings above"
            };
            return Err(Failure::error(1, format!("`{shown}` failed: {fix}")));
        }
    }
    eprintln!("lint: clean in {}", util::secs(start.elapsed()));
    Ok(())
}
