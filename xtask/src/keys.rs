//! `cargo xtask keys`: the Zobrist key ROM of the chip (`hdl/search/zobrist_keys.spade`)
//! written from the keys of the model (`src/solver/zobrist.rs`). The file is committed; a
//! test of the library fails when it differs from what the model generates.

use anyhow::{Context, Result};

use tsume::solver::zobrist::{Keys, ROM_FILE, ROM_KEYS};

use crate::util;

pub fn run() -> Result<()> {
    let path = util::project_root().join(ROM_FILE);
    let text = Keys::get().spade_rom();
    if std::fs::read_to_string(&path).is_ok_and(|old| old == text) {
        eprintln!("keys: {ROM_FILE} up to date ({ROM_KEYS} keys)");
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    eprintln!("keys: wrote {ROM_FILE} ({ROM_KEYS} keys of src/solver/zobrist.rs)");
    Ok(())
}
