//! `cargo xtask test`: lint, toolchain, Verilog, then `cargo test --workspace` and the FPGA
//! flow's tests that need its tools (`cargo test -p tsume-fpga -- --ignored`).

use std::process::{Command, ExitStatus};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::Args;

use crate::util::{self, Failure};
use crate::{hdl, lint, setup};

/// The FPGA flow's package: its tests that run yosys or nextpnr are `#[ignore]`d (a plain
/// `cargo test` has no tools), and run here once setup has installed them.
const FPGA_PACKAGE: &str = "tsume-fpga";

#[derive(Debug, Args)]
pub struct TestArgs {
    /// Skip `cargo xtask lint` (fmt and clippy) before the tests.
    #[arg(long)]
    pub no_lint: bool,
    /// A long run (`TSUME_LONG=1`): the tests that solve a share of the problem suite (a
    /// half or a third, a different share each run) solve all of it, and the exhaustive
    /// checks of random positions take twice as many.
    #[arg(long)]
    pub long: bool,
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

    // Every test binary runs even when one fails, so one run shows every failure.
    let mut workspace = cargo_test();
    if args.long {
        workspace.env("TSUME_LONG", "1");
    }
    workspace
        .args(["--workspace", "--no-fail-fast"])
        .args(&cargo_args);
    let workspace = run_tests(workspace)?;
    // The tests that need the FPGA tools, which setup has just installed: the options of
    // the test binaries (after `--`) go to them too, those of cargo do not.
    let binary_args = cargo_args.iter().skip_while(|a| *a != "--").skip(1);
    let mut fpga = cargo_test();
    fpga.args([
        "--package",
        FPGA_PACKAGE,
        "--no-fail-fast",
        "--",
        "--ignored",
    ])
    .args(binary_args);
    let fpga = run_tests(fpga)?;
    eprintln!("test: finished in {}", util::secs(start.elapsed()));
    for status in [workspace, fpga] {
        match status.code() {
            Some(0) => {}
            code => {
                return Err(Failure::error(
                    code.map_or(1, |c| c.clamp(1, 255) as u8),
                    format!("cargo test failed ({status})"),
                ));
            }
        }
    }
    Ok(())
}

/// `cargo test` in the project root, with the tools of `.tools/` where the tests look.
fn cargo_test() -> Command {
    let mut cmd = Command::new(util::cargo());
    cmd.arg("test")
        .current_dir(util::project_root())
        // marlin finds `verilator` on PATH unless told otherwise: make it the wrapper.
        .env("PATH", util::path_with_tools());
    if let Some(root) = util::verilator_root() {
        cmd.env("VERILATOR_ROOT", root);
    }
    cmd
}

/// Runs `cmd`, shown first; its exit status.
fn run_tests(mut cmd: Command) -> Result<ExitStatus> {
    eprintln!("test: {}", util::show(&cmd));
    cmd.status()
        .with_context(|| format!("cannot run `{}`", util::show(&cmd)))
}
