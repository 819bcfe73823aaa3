//! A position as a problem file sets it up (a KIF/KIFU board diagram, CSA `P` lines):
//! pieces on squares, counted hands, the side given "all the rest", and the side to move;
//! written out as a SFEN that [`crate::position::Position::from_sfen`] then checks
//! against the rules (two kings, pieces that cannot move, ...).

use std::fmt;

/// Sente (先手, `+`, upper-case in a SFEN) or gote (後手, `-`, lower-case).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Sente,
    Gote,
}

impl Side {
    pub fn index(self) -> usize {
        match self {
            Side::Sente => 0,
            Side::Gote => 1,
        }
    }

    pub fn other(self) -> Side {
        match self {
            Side::Sente => Side::Gote,
            Side::Gote => Side::Sente,
        }
    }

    /// 先手 or 後手.
    pub fn ja(self) -> &'static str {
        match self {
            Side::Sente => "先手",
            Side::Gote => "後手",
        }
    }
}

/// The kinds of piece, in a SFEN's order of hands (P L N S G B R), then the king.
pub const KINDS: usize = 8;
/// A SFEN's letter of each kind.
const LETTERS: [char; KINDS] = ['P', 'L', 'N', 'S', 'G', 'B', 'R', 'K'];
/// How many of each kind the game has (kings apart: never in a hand).
pub const TOTALS: [u8; 7] = [18, 4, 4, 4, 4, 2, 2];
/// The king's kind.
pub const KING: usize = 7;
/// Japanese names of the kinds.
pub const NAMES_JA: [&str; KINDS] = ["歩", "香", "桂", "銀", "金", "角", "飛", "玉"];

/// A piece on a square: its side, its kind (an index of [`KINDS`]) and whether promoted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    pub side: Side,
    pub kind: usize,
    pub promoted: bool,
}

/// What a problem file sets up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    /// `board[rank - 1][9 - file]`: as a diagram reads, rank 一 first and file 9 leftmost.
    pub board: [[Option<Piece>; 9]; 9],
    /// Counted pieces in hand of each side ([`Side::index`]), in [`KINDS`] order.
    pub hands: [[u8; 7]; 2],
    /// The side whose hand holds every piece that is neither on the board nor in the other
    /// hand (KIF `残り全部`, CSA `00AL`).
    pub rest: Option<Side>,
    pub turn: Side,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            board: [[None; 9]; 9],
            hands: [[0; 7]; 2],
            rest: None,
            turn: Side::Sente,
        }
    }
}

/// More pieces of a kind on the board and in the counted hands than the game has, when a
/// side is given the rest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooMany {
    pub kind: usize,
    pub count: u32,
}

impl fmt::Display for TooMany {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}s ({}) on the board and in the hands, the game has {}: there is no rest \
             to give",
            self.count,
            [
                "pawn", "lance", "knight", "silver", "gold", "bishop", "rook"
            ][self.kind],
            NAMES_JA[self.kind],
            TOTALS[self.kind]
        )
    }
}

impl Setup {
    /// Puts `piece` on (`file`, `rank`), both 1..=9.
    pub fn put(&mut self, file: usize, rank: usize, piece: Piece) {
        self.board[rank - 1][9 - file] = Some(piece);
    }

    /// The piece on (`file`, `rank`).
    pub fn at(&self, file: usize, rank: usize) -> Option<Piece> {
        self.board[rank - 1][9 - file]
    }

    /// The hands with the rest given to [`Setup::rest`]'s side: each kind's total less
    /// what the board (both sides, promoted pieces as their kind) and the counted hands hold.
    pub fn full_hands(&self) -> Result<[[u8; 7]; 2], TooMany> {
        let mut hands = self.hands;
        let Some(side) = self.rest else {
            return Ok(hands);
        };
        let mut used = [0u32; 7];
        for piece in self.board.iter().flatten().flatten() {
            if piece.kind < KING {
                used[piece.kind] += 1;
            }
        }
        for hand in &self.hands {
            for (kind, n) in hand.iter().enumerate() {
                used[kind] += u32::from(*n);
            }
        }
        for kind in 0..7 {
            let total = u32::from(TOTALS[kind]);
            if used[kind] > total {
                return Err(TooMany {
                    kind,
                    count: used[kind],
                });
            }
            hands[side.index()][kind] += (total - used[kind]) as u8;
        }
        Ok(hands)
    }

    /// The SFEN of the setup (move number 1).
    pub fn to_sfen(&self) -> Result<String, TooMany> {
        let hands = self.full_hands()?;
        let mut sfen = String::new();
        for (r, row) in self.board.iter().enumerate() {
            if r > 0 {
                sfen.push('/');
            }
            let mut empty = 0;
            for cell in row {
                match cell {
                    None => empty += 1,
                    Some(p) => {
                        if empty > 0 {
                            sfen.push_str(&empty.to_string());
                            empty = 0;
                        }
                        if p.promoted {
                            sfen.push('+');
                        }
                        let letter = LETTERS[p.kind];
                        sfen.push(match p.side {
                            Side::Sente => letter,
                            Side::Gote => letter.to_ascii_lowercase(),
                        });
                    }
                }
            }
            if empty > 0 {
                sfen.push_str(&empty.to_string());
            }
        }
        sfen.push_str(match self.turn {
            Side::Sente => " b ",
            Side::Gote => " w ",
        });
        let mut hand = String::new();
        // A SFEN lists hands rook first (R B G S N L P), sente's before gote's.
        for side in [Side::Sente, Side::Gote] {
            for kind in (0..7).rev() {
                let n = hands[side.index()][kind];
                if n > 1 {
                    hand.push_str(&n.to_string());
                }
                if n > 0 {
                    let letter = LETTERS[kind];
                    hand.push(match side {
                        Side::Sente => letter,
                        Side::Gote => letter.to_ascii_lowercase(),
                    });
                }
            }
        }
        if hand.is_empty() {
            hand.push('-');
        }
        sfen.push_str(&hand);
        sfen.push_str(" 1");
        Ok(sfen)
    }
}

/// What is wrong with one line of a problem file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineError {
    /// The line's number, from 1; 0 for the file as a whole (a line that is missing).
    pub line: usize,
    /// The line as written.
    pub text: String,
    /// What is wrong and what to write instead.
    pub what: String,
}

impl LineError {
    pub fn at(line: usize, text: &str, what: impl Into<String>) -> LineError {
        LineError {
            line,
            text: text.trim_end().to_string(),
            what: what.into(),
        }
    }

    /// An error of the whole file (something missing).
    pub fn file(what: impl Into<String>) -> LineError {
        LineError {
            line: 0,
            text: String::new(),
            what: what.into(),
        }
    }
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.what)
        } else {
            write!(f, "line {} `{}`: {}", self.line, self.text, self.what)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rest_is_what_the_board_and_the_other_hand_leave() {
        let mut s = Setup::default();
        s.put(
            5,
            1,
            Piece {
                side: Side::Gote,
                kind: KING,
                promoted: false,
            },
        );
        s.put(
            5,
            3,
            Piece {
                side: Side::Sente,
                kind: 0,
                promoted: true,
            },
        );
        s.hands[0][4] = 1;
        s.rest = Some(Side::Gote);
        assert_eq!(
            s.to_sfen().unwrap(),
            "4k4/9/4+P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1"
        );
        s.hands[0][5] = 3;
        let e = s.to_sfen().unwrap_err();
        assert_eq!((e.kind, e.count), (5, 3));
        assert!(e.to_string().contains("bishops (角)"), "{e}");
    }
}
