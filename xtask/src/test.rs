//! `cargo xtask test`: lint, toolchain, Verilog, then `cargo test --workspace`.

use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;

use crate::util::{self, Failure};
use crate::{hdl, lint, setup};

#[derive(Debug, Args)]
pub struct TestArgs {
    /// Skip `cargo xtask lint` (fmt and clippy) before the tests.
    #[arg(long)]
    pub no_lint: bool,
    /// Passed on to `cargo test --workspace`, e.g. `-- --nocapture` or `--test cli`.
    #[arg(
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "CARGO_TEST_ARGS"
    )]
    pub cargo_args: Vec<String>,
}

pub fn run(args: &TestArgs) -> Result<()> {
    let start = Instant::now();
    if !args.no_lint {
        lint::run()?;
    }
    setup::run()?;
    hdl::run(&hdl::HdlArgs {
        force: false,
        root: None,
    })?;

    // clap swallows a leading `--` (`cargo xtask test -- --nocapture`): give it back, so
    // that what follows still goes to the test binaries as with `cargo test`.
    let mut cargo_args = args.cargo_args.clone();
    let written = std::env::args()
        .skip_while(|a| a != "test")
        .filter(|a| a == "--")
        .count();
    if written > cargo_args.iter().filter(|a| *a == "--").count() {
        cargo_args.insert(0, "--".to_string());
    }

    let mut cmd = Command::new(util::cargo());
    // Every test binary runs even when one fails, so one run shows every failure.
    cmd.args(["test", "--workspace", "--no-fail-fast"])
        .args(&cargo_args)
        .current_dir(util::project_root())
        // marlin finds `verilator` on PATH unless told otherwise: make it the wrapper.
        .env("PATH", util::path_with_tools());
    if let Some(root) = util::verilator_root() {
        cmd.env("VERILATOR_ROOT", root);
    }
    eprintln!("test: {}", util::show(&cmd));
    let status = cmd
        .status()
        .with_context(|| format!("cannot run `{}`", util::show(&cmd)))?;
    eprintln!("test: finished in {}", util::secs(start.elapsed()));
    match status.code() {
        Some(0) => Ok(()),
        code => Err(Failure::error(
            code.map_or(1, |c| c.clamp(1, 255) as u8),
            format!("cargo test failed ({status})"),
        )),
    }
}
