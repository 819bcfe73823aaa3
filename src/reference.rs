//! The software reference: the exact move set of a position under tsume-shogi rules.
//!
//! CONTRACT (filled in by the reference work): keep these names and signatures.

use crate::position::Position;

/// Which list a position gets: the side to move in check gets all its legal evasions,
/// otherwise all its legal moves that give check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    Checks,
    Evasions,
}

/// The category of a move, as in the paper plus `move_block`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum Category {
    #[serde(rename = "direct")]
    Direct,
    #[serde(rename = "indirect")]
    Indirect,
    #[serde(rename = "direct+indirect")]
    DirectIndirect,
    #[serde(rename = "drop")]
    Drop,
    #[serde(rename = "king_escape")]
    KingEscape,
    #[serde(rename = "capture")]
    Capture,
    #[serde(rename = "drop_block")]
    DropBlock,
    #[serde(rename = "move_block")]
    MoveBlock,
}

impl Mode {
    /// `checks` or `evasions`, as in the JSON output.
    pub fn as_str(self) -> &'static str {
        todo!()
    }
}

impl Category {
    /// The name used in the JSON output and the CLI: `direct`, `indirect`, `direct+indirect`,
    /// `drop`, `king_escape`, `capture`, `drop_block`, `move_block`.
    pub fn as_str(self) -> &'static str {
        todo!()
    }
}

/// One move of the set: rsshogi's 16-bit move and its category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TsumeMove {
    pub mv: rsshogi::types::Move,
    pub category: Category,
}

/// The move set of a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveSet {
    pub mode: Mode,
    pub moves: Vec<TsumeMove>,
}

/// Every legal check (mode Checks) or every legal evasion (mode Evasions), each categorised.
pub fn tsume_moves(_pos: &Position) -> MoveSet {
    todo!()
}
