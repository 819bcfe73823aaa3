//! Positions from SFEN, validated against the rules of tsume shogi.
//!
//! [`Position::from_sfen`] parses a SFEN with rsshogi and then rejects positions that cannot
//! arise in a game (or that give a tsume-shogi move generator nothing to do): the side not to
//! move in check, no king to give check to, two kings of one colour, double pawns, pieces with
//! no legal move, more pieces of a kind than the game has and more than two checkers.

use std::fmt::Write as _;

use rsshogi::board::SfenError;
use rsshogi::board::position::MissingFieldKind;
use rsshogi::types::{Color, File, HandPiece, Piece, PieceType, Rank, Square};

/// A validated position. Wraps rsshogi's position.
#[derive(Clone)]
pub struct Position {
    inner: rsshogi::board::Position,
}

impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Position").field(&self.to_sfen()).finish()
    }
}

impl PartialEq for Position {
    fn eq(&self, other: &Self) -> bool {
        // Same board, hands and side to move (the move number is not part of the position).
        self.inner.board_array() == other.inner.board_array()
            && self.inner.hands_array() == other.inner.hands_array()
            && self.inner.turn() == other.inner.turn()
    }
}

impl Eq for Position {}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_sfen())
    }
}

impl std::str::FromStr for Position {
    type Err = PositionError;
    /// As [`Position::from_usi`].
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::from_usi(s)
    }
}

/// Why a text is not a usable position. Every message names the rule and the fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The text is not a SFEN: the message quotes the offending part and says what was expected.
    #[error("malformed SFEN: {0}")]
    Syntax(String),
    /// The side that is not to move is in check: the previous move left its own king in check.
    #[error(
        "the side not to move ({0}) is in check: the position cannot arise, since the last move \
         would have left the {0} king in check; give the move to {0} or remove the check"
    )]
    SideNotToMoveInCheck(Color),
    /// Both kings are in check: the side to move's and the other's, which no move can leave.
    #[error(
        "both kings are in check: the {0} king, whose side is not to move, cannot be in check \
         (the last move would have left it so), and giving {0} the move would leave the other \
         king in check instead; remove the check on the {0} king"
    )]
    BothKingsInCheck(Color),
    /// The side to move is not in check (so it must give check) but the opponent has no king.
    #[error(
        "no {0} king: the side to move is not in check, so it must give check and needs a {0} \
         king to check; add the {0} king (only the attacking side may have no king)"
    )]
    NoKing(Color),
    /// More than one king of one colour.
    #[error("two {0} kings: each side has at most one king; remove one of them")]
    TwoKings(Color),
    /// Two unpromoted pawns of one colour on one file (nifu).
    #[error(
        "double pawn: two unpromoted {color} pawns on file {file} (nifu is illegal); remove or \
         promote one of them"
    )]
    DoublePawn {
        /// Owner of the pawns.
        color: Color,
        /// File number, 1 to 9.
        file: u8,
    },
    /// A pawn or lance on the last rank, or a knight on the last two ranks (of its owner).
    #[error(
        "{piece} on {square} has no legal move (a pawn or lance on the last rank, a knight on \
         the last two ranks): it must have been promoted; promote it or move it back"
    )]
    DeadPiece {
        /// Owner and kind, e.g. `Black knight`.
        piece: String,
        /// USI square, e.g. `1b`.
        square: String,
    },
    /// More pieces of a kind (board and both hands, promoted counted as the base kind) than
    /// the game has.
    #[error(
        "{count} {kind} in the position (board and both hands, promoted ones included), the \
         game has {max}; remove the extra ones"
    )]
    TooManyPieces {
        /// Plural name of the kind, e.g. `pawns`.
        kind: String,
        /// How many the position has.
        count: u32,
        /// How many the game has.
        max: u32,
    },
    /// A move after the position (`... moves 7g7f ...`) is not a legal move there.
    #[error(
        "move {index} of the moves after the position, `{usi}`: {reason}; give legal moves in \
         USI notation (such as 7g7f, 8h2b+ or P*5e)"
    )]
    BadMove {
        /// Its place among the moves, from 1.
        index: usize,
        /// The move as given.
        usi: String,
        /// Why it was refused.
        reason: String,
    },
    /// Three or more pieces check the king: at most two can (one move opens at most one line).
    #[error(
        "{count} pieces check the {color} king: a move gives at most a double check; remove \
         checkers until at most two are left"
    )]
    TooManyCheckers {
        /// The side in check.
        color: Color,
        /// How many pieces give check.
        count: u32,
    },
}

/// The base kinds, their plural names and how many of each the game has.
const PIECE_LIMITS: [(PieceType, &str, u32); 8] = [
    (PieceType::PAWN, "pawns", 18),
    (PieceType::LANCE, "lances", 4),
    (PieceType::KNIGHT, "knights", 4),
    (PieceType::SILVER, "silvers", 4),
    (PieceType::GOLD, "golds", 4),
    (PieceType::BISHOP, "bishops", 2),
    (PieceType::ROOK, "rooks", 2),
    (PieceType::KING, "kings", 2),
];

/// The expected shape of a SFEN, quoted in syntax errors.
const SFEN_SHAPE: &str = "`[sfen] <board> <b|w> <hand or -> [move number]`";

/// The start position of a game, USI's `startpos`.
pub const STARTPOS: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

/// English name of a piece kind (promoted kinds included).
pub fn piece_type_name(pt: PieceType) -> &'static str {
    match pt {
        PieceType::PAWN => "pawn",
        PieceType::LANCE => "lance",
        PieceType::KNIGHT => "knight",
        PieceType::SILVER => "silver",
        PieceType::GOLD => "gold",
        PieceType::BISHOP => "bishop",
        PieceType::ROOK => "rook",
        PieceType::KING => "king",
        PieceType::PRO_PAWN => "promoted pawn",
        PieceType::PRO_LANCE => "promoted lance",
        PieceType::PRO_KNIGHT => "promoted knight",
        PieceType::PRO_SILVER => "promoted silver",
        PieceType::HORSE => "horse",
        PieceType::DRAGON => "dragon",
        _ => "no piece",
    }
}

/// SFEN letters of a piece (`P`, `+r`, ...): uppercase black, lowercase white.
pub fn piece_letters(color: Color, pt: PieceType) -> String {
    let base = match pt.demote() {
        PieceType::PAWN => 'P',
        PieceType::LANCE => 'L',
        PieceType::KNIGHT => 'N',
        PieceType::SILVER => 'S',
        PieceType::GOLD => 'G',
        PieceType::BISHOP => 'B',
        PieceType::ROOK => 'R',
        PieceType::KING => 'K',
        _ => '?',
    };
    let base = if color == Color::WHITE {
        base.to_ascii_lowercase()
    } else {
        base
    };
    if pt.is_promoted() {
        format!("+{base}")
    } else {
        base.to_string()
    }
}

/// The rank that is last for `color` (rank a for Black, rank i for White), counted `n` ranks
/// back (n = 0: last rank).
fn rank_from_far_end(color: Color, n: i8) -> Rank {
    if color == Color::BLACK {
        Rank::new(n)
    } else {
        Rank::new(8 - n)
    }
}

/// Better messages for rsshogi's SFEN errors: quote the offending part, say what is expected.
fn syntax_error(err: &SfenError, tokens: &[&str]) -> PositionError {
    let board = tokens.first().copied().unwrap_or("");
    let hand = tokens.get(2).copied().unwrap_or("");
    let msg = match err {
        SfenError::MissingField(kind) => {
            let what = match kind {
                MissingFieldKind::Placement => "the board",
                MissingFieldKind::Turn => "the side to move (`b` or `w`)",
                MissingFieldKind::Hand => "the pieces in hand (`-` for none)",
                MissingFieldKind::Ply => "the move number",
            };
            format!("`{}` lacks {what}: expected {SFEN_SHAPE}", tokens.join(" "))
        }
        SfenError::InvalidPiece(c) => {
            if board.contains(*c) {
                format!(
                    "`{c}` in the board `{board}` is not a piece: expected piece letters \
                     PLNSGBRK (black) or plnsgbrk (white), `+` before P L N S B R, digits 1-9 \
                     for empty squares and `/` between ranks"
                )
            } else {
                format!(
                    "`{c}` in the hand `{hand}` is not a piece in hand: expected `-` or counts \
                     and letters of P L N S G B R (black) / p l n s g b r (white), e.g. `2Pb`"
                )
            }
        }
        SfenError::InvalidSquare => board_shape_error(board),
        SfenError::InvalidTurn(_) => format!(
            "side to move `{}`: expected `b` (Black, sente) or `w` (White, gote)",
            tokens.get(1).copied().unwrap_or("")
        ),
        SfenError::InvalidPly(_) => format!(
            "move number `{}`: expected a non-negative integer (or nothing)",
            tokens.get(3).copied().unwrap_or("")
        ),
        other => format!("`{}`: {other}; expected {SFEN_SHAPE}", tokens.join(" ")),
    };
    PositionError::Syntax(msg)
}

/// `text` without a leading byte-order mark (U+FEFF, which editors may put at the start of
/// a UTF-8 file) and the blanks around it.
pub fn without_bom(text: &str) -> &str {
    text.trim_start().trim_start_matches('\u{feff}')
}

/// Which rank of a malformed board does not describe nine squares.
fn board_shape_error(board: &str) -> String {
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 9 {
        return format!(
            "the board `{board}` has {} ranks: expected 9 ranks separated by `/`, rank a first",
            ranks.len()
        );
    }
    for (i, rank) in ranks.iter().enumerate() {
        let mut squares = 0u32;
        for c in rank.chars() {
            if let Some(d) = c.to_digit(10) {
                squares += d;
            } else if c != '+' {
                squares += 1;
            }
        }
        if squares != 9 {
            let name = char::from(b'a' + u8::try_from(i).unwrap_or(0));
            return format!(
                "rank {name} `{rank}` of the board describes {squares} squares: expected 9 \
                 (pieces plus digits for empty squares, file 9 first)"
            );
        }
    }
    format!("the board `{board}`: expected 9 ranks of 9 squares separated by `/`")
}

impl Position {
    /// Parse an SFEN with or without a leading `sfen ` and with or without the move number
    /// (a leading byte-order mark is skipped).
    ///
    /// The position is then checked against the rules (see [`PositionError`]).
    pub fn from_sfen(text: &str) -> Result<Self, PositionError> {
        let mut tokens: Vec<&str> = without_bom(text).split_whitespace().collect();
        if tokens.first() == Some(&"sfen") {
            tokens.remove(0);
        }
        if tokens.is_empty() {
            return Err(PositionError::Syntax(format!(
                "empty text `{}`: expected {SFEN_SHAPE}",
                text.trim()
            )));
        }
        if tokens.len() > 4 {
            return Err(PositionError::Syntax(format!(
                "unexpected `{}` after the move number in `{}`: expected {SFEN_SHAPE}",
                tokens[4..].join(" "),
                tokens.join(" ")
            )));
        }
        if tokens.len() == 3 {
            // No move number: the first move of the game.
            tokens.push("1");
        }
        let joined = tokens.join(" ");
        let inner = match rsshogi::board::position_from_sfen(&joined) {
            Ok(inner) => inner,
            Err(SfenError::InvalidHandCount { piece, count }) => {
                // More in one hand than rsshogi can even store: more than the game has.
                let (_, kind, max) = PIECE_LIMITS
                    .iter()
                    .copied()
                    .find(|(pt, _, _)| *pt == piece)
                    .unwrap_or((piece, "pieces", 0));
                return Err(PositionError::TooManyPieces {
                    kind: kind.to_string(),
                    count,
                    max,
                });
            }
            Err(e) => return Err(syntax_error(&e, &tokens)),
        };
        let pos = Position { inner };
        pos.validate()?;
        Ok(pos)
    }

    /// A position as shogi tools write it: a SFEN as [`Position::from_sfen`] reads it, or
    /// `startpos`, each optionally after `position` (USI's command) and followed by `moves`
    /// and moves in USI notation; the position is the one after the moves. So
    /// `position startpos moves 7g7f 3c3d`, `startpos moves 7g7f`, `sfen <SFEN> moves 2b8h+`
    /// and `<SFEN> moves P*5e` are all read.
    ///
    /// Each move must be legal where it is played; the error of one that is not names it
    /// and its place. The rules of [`PositionError`] apply to the given position and to the
    /// one after the moves.
    pub fn from_usi(text: &str) -> Result<Self, PositionError> {
        let mut tokens: Vec<&str> = without_bom(text).split_whitespace().collect();
        if tokens.first() == Some(&"position") {
            tokens.remove(0);
        }
        let (head, moves) = match tokens.iter().position(|&t| t == "moves") {
            Some(at) => (&tokens[..at], &tokens[at + 1..]),
            None => (&tokens[..], &tokens[..0]),
        };
        let mut pos = match head {
            ["startpos"] => Position::from_sfen(STARTPOS)?,
            [] if tokens.len() != head.len() => {
                return Err(PositionError::Syntax(format!(
                    "no position before `moves` in `{}`: expected `startpos` or {SFEN_SHAPE}, \
                     then `moves` and the moves",
                    text.trim()
                )));
            }
            _ => Position::from_sfen(&head.join(" "))?,
        };
        for (i, usi) in moves.iter().enumerate() {
            pos = pos
                .after_usi(usi)
                .map_err(|reason| PositionError::BadMove {
                    index: i + 1,
                    usi: usi.to_string(),
                    reason,
                })?;
        }
        if !moves.is_empty() {
            pos.validate()?;
        }
        Ok(pos)
    }

    /// The position after the move `usi` (USI notation), or why it cannot be played here.
    fn after_usi(&self, usi: &str) -> Result<Position, String> {
        use rsshogi::movegen::{LegalAll, MoveListGen};
        if rsshogi::types::Move::from_usi(usi).is_none() {
            return Err("not a move in USI notation".to_string());
        }
        MoveListGen::<LegalAll>::new(&self.inner)
            .iter()
            .find(|m| m.to_usi() == usi)
            .map(|&m| self.after(m))
            .ok_or_else(|| format!("not a legal move in `{}`", self.to_sfen()))
    }

    /// Wrap an rsshogi position without checking it (for positions reached by legal moves
    /// from a valid one).
    pub(crate) fn from_inner_unchecked(inner: rsshogi::board::Position) -> Self {
        Position { inner }
    }

    /// Check the impossible-position rules, in a fixed order.
    fn validate(&self) -> Result<(), PositionError> {
        let pos = &self.inner;
        for color in [Color::BLACK, Color::WHITE] {
            if pos.bitboards().pieces_for(PieceType::KING, color).count() > 1 {
                return Err(PositionError::TwoKings(color));
            }
        }
        // Piece counts: board and both hands, promoted pieces counted as their base kind.
        let mut counts = [0u32; 16];
        for sq in Square::iter() {
            let p = pos.piece_on(sq);
            if p != Piece::NONE {
                counts[p.piece_type().demote().to_index()] += 1;
            }
        }
        for color in [Color::BLACK, Color::WHITE] {
            let hand = pos.hand(color);
            for hp in HandPiece::iter() {
                counts[hp.to_piece_type().to_index()] += hand.count(hp);
            }
        }
        for (pt, kind, max) in PIECE_LIMITS {
            let count = counts[pt.to_index()];
            if count > max {
                return Err(PositionError::TooManyPieces {
                    kind: kind.to_string(),
                    count,
                    max,
                });
            }
        }
        for color in [Color::BLACK, Color::WHITE] {
            for f in 0..9 {
                let file = File::new(f);
                let pawns = pos.bitboards().pieces_for(PieceType::PAWN, color)
                    & rsshogi::board::Bitboard::file_mask(file);
                if pawns.count() > 1 {
                    return Err(PositionError::DoublePawn {
                        color,
                        file: (f + 1) as u8,
                    });
                }
            }
        }
        for sq in Square::iter() {
            let p = pos.piece_on(sq);
            if p == Piece::NONE {
                continue;
            }
            let (color, pt) = (p.color(), p.piece_type());
            let rank = sq.rank();
            let dead = match pt {
                PieceType::PAWN | PieceType::LANCE => rank == rank_from_far_end(color, 0),
                PieceType::KNIGHT => {
                    rank == rank_from_far_end(color, 0) || rank == rank_from_far_end(color, 1)
                }
                _ => false,
            };
            if dead {
                return Err(PositionError::DeadPiece {
                    piece: format!("{color} {}", piece_type_name(pt)),
                    square: sq.to_usi(),
                });
            }
        }
        // rsshogi's own checks must agree with ours (they cover a subset of the rules above).
        debug_assert!(
            pos.validate().is_ok(),
            "rsshogi rejects a position we accept"
        );

        let us = pos.turn();
        let them = us.flip();
        let occupied = pos.bitboards().occupied();
        let their_king = pos.king_square(them);
        let our_king = pos.king_square(us);
        let checkers = if our_king.is_none() {
            0
        } else {
            pos.attackers_to_color(them, our_king, occupied).count()
        };
        if !their_king.is_none() && pos.attackers_to_color(us, their_king, occupied).any() {
            return Err(if checkers > 0 {
                PositionError::BothKingsInCheck(them)
            } else {
                PositionError::SideNotToMoveInCheck(them)
            });
        }
        if checkers == 0 && their_king.is_none() {
            return Err(PositionError::NoKing(them));
        }
        if checkers > 2 {
            return Err(PositionError::TooManyCheckers {
                color: us,
                count: checkers,
            });
        }
        Ok(())
    }

    /// The wrapped rsshogi position.
    pub fn inner(&self) -> &rsshogi::board::Position {
        &self.inner
    }

    /// The position as a full SFEN (`<board> <b|w> <hand> <move number>`); the move number is
    /// the one read (1 if there was none), advanced by [`Position::after`].
    pub fn to_sfen(&self) -> String {
        let ply = i32::from(self.inner.game_ply()).max(1);
        self.inner.to_sfen(Some(ply))
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        self.inner.turn()
    }

    /// Whether the side to move is in check.
    pub fn in_check(&self) -> bool {
        self.inner.is_in_check()
    }

    /// Piece on a square: None if empty.
    pub fn piece_on(&self, sq: Square) -> Option<(Color, PieceType)> {
        let p = self.inner.piece_on(sq);
        if p == Piece::NONE {
            None
        } else {
            Some((p.color(), p.piece_type()))
        }
    }

    /// Pieces in hand of `color`, indexed by rsshogi's HandPiece order
    /// (pawn, lance, knight, silver, bishop, rook, gold).
    pub fn hand(&self, color: Color) -> [u8; 7] {
        let hand = self.inner.hand(color);
        let mut out = [0u8; 7];
        for hp in HandPiece::iter() {
            out[hp.to_index()] = u8::try_from(hand.count(hp)).unwrap_or(u8::MAX);
        }
        out
    }

    /// Whether `color` has an unpromoted pawn on `file`.
    pub fn pawn_on_file(&self, color: Color, file: File) -> bool {
        self.inner.has_pawn_on_file(color, file)
    }

    /// The king square of `color`, None if it has no king.
    pub fn king_square(&self, color: Color) -> Option<Square> {
        let sq = self.inner.king_square(color);
        if sq.is_none() { None } else { Some(sq) }
    }

    /// The position after `mv` (which must be legal here).
    pub fn after(&self, mv: rsshogi::types::Move) -> Position {
        debug_assert!(
            self.inner.is_legal_move(mv),
            "{mv} is not legal in {}",
            self.to_sfen()
        );
        let mut inner = self.inner.clone_compact();
        inner.apply_move(mv);
        Position::from_inner_unchecked(inner)
    }

    /// A board diagram for terminals (file 9 on the left, rank a on top, hands listed).
    ///
    /// Black pieces are uppercase, White lowercase, promoted pieces carry a `+`.
    pub fn diagram(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "White hand: {}", self.hand_text(Color::WHITE));
        out.push_str("   9  8  7  6  5  4  3  2  1\n");
        out.push_str("+---------------------------+\n");
        for r in 0..9i8 {
            out.push('|');
            for f in (0..9i8).rev() {
                let sq = Square::from_file_rank(File::new(f), Rank::new(r));
                let cell = match self.piece_on(sq) {
                    None => ".".to_string(),
                    Some((c, pt)) => piece_letters(c, pt),
                };
                let _ = write!(out, "{cell:>3}");
            }
            let _ = writeln!(out, "| {}", char::from(b'a' + r as u8));
        }
        out.push_str("+---------------------------+\n");
        let _ = writeln!(out, "Black hand: {}", self.hand_text(Color::BLACK));
        let _ = writeln!(out, "Side to move: {}", self.side_to_move());
        out
    }

    /// Hand of `color` as text, e.g. `R B 2P`, or `-`.
    fn hand_text(&self, color: Color) -> String {
        let hand = self.hand(color);
        // Conventional order: R B G S N L P.
        let order = [
            HandPiece::ROOK,
            HandPiece::BISHOP,
            HandPiece::GOLD,
            HandPiece::SILVER,
            HandPiece::KNIGHT,
            HandPiece::LANCE,
            HandPiece::PAWN,
        ];
        let parts: Vec<String> = order
            .iter()
            .filter(|hp| hand[hp.to_index()] > 0)
            .map(|hp| {
                let n = hand[hp.to_index()];
                let letters = piece_letters(color, hp.to_piece_type());
                if n > 1 {
                    format!("{n}{letters}")
                } else {
                    letters
                }
            })
            .collect();
        if parts.is_empty() {
            "-".to_string()
        } else {
            parts.join(" ")
        }
    }
}

#[cfg(test)]
mod tests;
