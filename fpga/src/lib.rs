//! The FPGA flow of the chip: `cargo xtask bitstream`, `block-fmax` and `depth`.
//!
//! The board top goes through yosys (`synth_ecp5`; native, the pyosys wheel), yowasp's
//! nextpnr-ecp5 and ecppack into `build/<name>.bit`, with a resource and timing report.
//! Everything about the board comes from swim.toml (`tsume::project::manifest`): `[fpga]`
//! names the board, the top unit, the FPGA-only Verilog and the LUT budget;
//! `[fpga.boards.NAME]` gives the device, package, speed grade, constraint file,
//! oscillator, generator clock target, baud rate and frame timeout.
//!
//! The flow is given what it works on ([`Project`]: the project root, its swim.toml, where
//! the tools are) and asks its caller, xtask, for the rest ([`Host`]: the tools installed,
//! the Spade compiled to Verilog). Its entry points are [`bitstream`], [`block_fmax`] and
//! [`depth`], each with the options of its command line ([`BitstreamArgs`],
//! [`BlockFmaxArgs`], [`DepthArgs`], clap's `Args`).
//!
//! nextpnr-ecp5 and ecppack run in WebAssembly with a private `/tmp` of their own: every
//! tool runs in the project root and is handed paths relative to it, in its arguments and
//! in the scripts it reads ([`tools`]); yosys, native, is handed the same.
//!
//! Rooms, each using only those listed before it:
//! - [`util`]: a stage's spinner, numbers in text, work spread over threads;
//! - [`tools`]: running a tool as a stage (log, spinner, an optional watcher that stops it),
//!   paths relative to the project root;
//! - [`device`]: the ECP5 parts, the PLL setting and the UART divider;
//! - [`netlist`]: reading what the tools write: the Spade Verilog's hierarchy and the blocks
//!   of the per-block table, yosys' statistics, nextpnr's report and critical paths;
//! - [`synth`]: the yosys scripts (the chip, the per-block pass, a block alone);
//! - [`pnr`]: nextpnr's options, the router watch, seed sweeps, the LPF margin;
//! - [`depth`](mod@depth): LUT levels in front of the flip-flops of a netlist;
//! - [`report`]: the bitstream report (markdown, JSON, terminal summary);
//! - [`flow`]: the bitstream, the orchestration of the stages;
//! - [`block_fmax`](mod@block_fmax): every block placed and routed alone.

use std::path::{Path, PathBuf};

use anyhow::Result;
use tsume::project::Manifest;
use tsume::solver::Config;

pub mod block_fmax;
pub mod depth;
pub mod device;
pub mod flow;
pub mod netlist;
pub mod pnr;
pub mod report;
pub mod synth;
pub mod tools;
pub mod util;

pub use block_fmax::{BlockFmaxArgs, run as block_fmax};
pub use depth::{DepthArgs, run as depth};
pub use flow::{BitstreamArgs, run as bitstream};

/// The launcher of yosys, relative to the project root: yosys' command line over the
/// pyosys wheel's libyosys, a native yosys with its own `yosys-abc` (the one place that
/// knows how yosys is run; its text says what it takes).
pub const LAUNCHER: &str = "fpga/yosys.py";

/// Where the FPGA tools are (`cargo xtask setup` installs them under `.tools/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tools {
    /// The Python that has pyosys (the project venv's), which runs [`Tools::yosys`].
    pub python: PathBuf,
    /// yosys' launcher ([`LAUNCHER`] in the checkout).
    pub yosys: PathBuf,
    /// The folder of the `nextpnr-ecp5` and `ecppack` wrappers.
    pub bin: PathBuf,
}

impl Tools {
    /// The tools of the checkout at `root`, where `cargo xtask setup` puts them: the venv's
    /// Python (`.tools/venv/bin/python`), [`LAUNCHER`] and `.tools/bin`.
    pub fn of_checkout(root: &Path) -> Tools {
        let tools = tsume::project::tools_dir(root);
        Tools {
            python: tsume::project::venv_dir(root).join("bin").join("python"),
            yosys: root.join(LAUNCHER),
            bin: tools.join("bin"),
        }
    }

    /// The wrapper of the tool `name` (`nextpnr-ecp5`, `ecppack`).
    pub fn wrapper(&self, name: &str) -> PathBuf {
        self.bin.join(name)
    }
}

/// What the flow works on: the project (its root, where every tool runs), its swim.toml
/// (`[fpga]`, `[fpga.boards.NAME]`, `[search]`, `[hdl] output`, the name) and the tools.
#[derive(Debug, Clone)]
pub struct Project {
    pub root: PathBuf,
    pub manifest: Manifest,
    pub tools: Tools,
}

impl Project {
    /// The project at `root`, its swim.toml read, with the tools of its checkout.
    pub fn load(root: &Path) -> Result<Project> {
        Ok(Project {
            root: root.to_path_buf(),
            manifest: Manifest::load(root)?,
            tools: Tools::of_checkout(root),
        })
    }

    /// The Verilog of the project's Spade, swim.toml [hdl] output (`build/spade.sv`).
    pub fn verilog(&self) -> PathBuf {
        self.root.join(&self.manifest.hdl.output)
    }
}

/// What the flow asks of its caller (xtask), when it needs it: the tools installed and the
/// Spade compiled. The flow calls these after it has checked its options, and not at all
/// where it runs no tool (`bitstream --report-only`, `depth`).
pub trait Host {
    /// Installs the FPGA tools ([`Tools`]) if they are missing.
    fn require_tools(&self) -> Result<()>;

    /// Compiles the project's Spade when its Verilog is out of date; the Verilog's path
    /// ([`Project::verilog`]).
    fn compile_spade(&self) -> Result<PathBuf>;

    /// Compiles a copy of the project's Spade under `dir` with the search geometry `table`
    /// (a board whose table has fewer sets than swim.toml [search]); the copy's Verilog,
    /// `dir` joined with swim.toml [hdl] output.
    fn compile_spade_with_geometry(&self, table: &Config, dir: &Path) -> Result<PathBuf>;
}

/// The checkout this crate is in, for the tests that read its swim.toml and board files.
#[cfg(test)]
pub(crate) fn checkout() -> PathBuf {
    let package = Path::new(env!("CARGO_MANIFEST_DIR"));
    package.parent().unwrap_or(package).to_path_buf()
}
