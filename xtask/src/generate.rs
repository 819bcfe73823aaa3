//! `cargo xtask gen`: the chip's generated Spade files, written from the model and swim.toml:
//! the Zobrist key ROM (`hdl/search/zobrist_keys.spade`, from the keys of
//! `src/solver/position_hash.rs`) and the search's geometry (`hdl/search/geometry.spade`, from
//! swim.toml `[search]`). The files are committed; tests of the library fail when they
//! differ from what the model and the manifest generate.

use std::path::Path;

use anyhow::{Context, Result};

use tsume::solver::Config;
use tsume::solver::geometry::GEOMETRY_FILE;
use tsume::solver::position_hash::{Keys, ROM_FILE, ROM_KEYS};

use crate::util;

pub fn run() -> Result<()> {
    let root = util::project_root();
    let config = Config::from_manifest(&root.join("swim.toml"))?;
    config
        .check_chip()
        .context("swim.toml [search] cannot build the chip")?;
    write(
        &root,
        ROM_FILE,
        &Keys::get().spade_rom(),
        &format!("{ROM_KEYS} keys of src/solver/position_hash.rs"),
    )?;
    write(
        &root,
        GEOMETRY_FILE,
        &config.spade_geometry(),
        &format!(
            "swim.toml [search]: {} plies, {} children, 2^{} sets of {} ways",
            config.max_plies, config.max_children, config.tt_index_bits, config.tt_ways
        ),
    )
}

/// Writes `text` to `file` under `root` unless it holds it already.
fn write(root: &Path, file: &str, text: &str, what: &str) -> Result<()> {
    if util::write_if_changed(&root.join(file), text.as_bytes())? {
        eprintln!("gen: wrote {file} ({what})");
    } else {
        eprintln!("gen: {file} up to date ({what})");
    }
    Ok(())
}
