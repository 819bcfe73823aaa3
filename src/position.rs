//! Positions from SFEN, validated against the rules of tsume shogi.
//!
//! CONTRACT (filled in by the reference work): keep these names and signatures.

use rsshogi::types::{Color, File, PieceType, Square};

/// A validated position. Wraps rsshogi's position.
#[derive(Clone)]
pub struct Position {
    inner: rsshogi::board::Position,
}

/// Why a text is not a usable position. Every message names the rule and the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    #[error("malformed SFEN: {0}")]
    Syntax(String),
    #[error("the side not to move ({0:?}) is in check: the position cannot arise")]
    SideNotToMoveInCheck(Color),
    #[error("no {0:?} king: a tsume position needs the king of the side that is checked")]
    NoKing(Color),
    #[error("two {0:?} kings")]
    TwoKings(Color),
    #[error("double pawn: two unpromoted {color:?} pawns on file {file}")]
    DoublePawn { color: Color, file: u8 },
    #[error("{piece} on {square} has no legal move (it must have been promoted)")]
    DeadPiece { piece: String, square: String },
    #[error("{count} {kind} in the position, the game has {max}")]
    TooManyPieces { kind: String, count: u32, max: u32 },
}

impl Position {
    /// Parse an SFEN with or without a leading `sfen ` and with or without the move number.
    pub fn from_sfen(_text: &str) -> Result<Self, PositionError> {
        todo!()
    }
    pub fn inner(&self) -> &rsshogi::board::Position {
        &self.inner
    }
    pub fn to_sfen(&self) -> String {
        todo!()
    }
    pub fn side_to_move(&self) -> Color {
        todo!()
    }
    pub fn in_check(&self) -> bool {
        todo!()
    }
    /// Piece on a square: None if empty.
    pub fn piece_on(&self, _sq: Square) -> Option<(Color, PieceType)> {
        todo!()
    }
    /// Pieces in hand of `color`, indexed by rsshogi's HandPiece order
    /// (pawn, lance, knight, silver, bishop, rook, gold).
    pub fn hand(&self, _color: Color) -> [u8; 7] {
        todo!()
    }
    /// Whether `color` has an unpromoted pawn on `file`.
    pub fn pawn_on_file(&self, _color: Color, _file: File) -> bool {
        todo!()
    }
    /// The position after `mv` (which must be legal here).
    pub fn after(&self, _mv: rsshogi::types::Move) -> Position {
        todo!()
    }
    /// A board diagram for terminals (file 9 on the left, rank a on top, hands listed).
    pub fn diagram(&self) -> String {
        todo!()
    }
}
