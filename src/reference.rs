//! The software reference: the exact move set of a position under tsume-shogi rules.
//!
//! The rules come from rsshogi's complete generator `LegalAll` (every legal non-promotion of
//! pawns, lances, knights, silvers, bishops and rooks included; pawn-drop mates, double pawns,
//! pieces left without a move and moves that leave the own king in check excluded). This module
//! picks the tsume-shogi subset (checks, or evasions when in check) and categorises each move,
//! and says how another generator's list differs from it ([`ListDifference`]; the chip's
//! lists are compared by `ChipMoves::reference_difference`).

use std::collections::BTreeMap;

use rsshogi::board::Bitboard;
use rsshogi::movegen::{LegalAll, MoveListGen};
use rsshogi::types::{Move, PieceType};

use crate::position::Position;
use crate::stream_order::stream_key;

/// Which list a position gets: the side to move in check gets all its legal evasions,
/// otherwise all its legal moves that give check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// The side to move is not in check: every legal move that gives check.
    Checks,
    /// The side to move is in check: every legal move (all of them answer the check).
    Evasions,
}

/// The category of a move, as in the paper plus `move_block`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Category {
    /// Check: a board move after which the moved piece attacks the king, and no other piece.
    #[serde(rename = "direct")]
    Direct,
    /// Check: a board move that uncovers a line to the king (discovered check); the moved
    /// piece itself does not attack the king.
    #[serde(rename = "indirect")]
    Indirect,
    /// Check: the moved piece attacks the king and a line behind it opens too (double check).
    #[serde(rename = "direct+indirect")]
    DirectIndirect,
    /// Check: a drop.
    #[serde(rename = "drop")]
    Drop,
    /// Evasion: any king move, captures by the king included.
    #[serde(rename = "king_escape")]
    KingEscape,
    /// Evasion: a non-king piece takes the (single) checker.
    #[serde(rename = "capture")]
    Capture,
    /// Evasion: a drop between the king and a sliding checker.
    #[serde(rename = "drop_block")]
    DropBlock,
    /// Evasion: a non-king board move onto a square between the king and a sliding checker.
    #[serde(rename = "move_block")]
    MoveBlock,
}

impl Mode {
    /// `checks` or `evasions`, as in the JSON output.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Checks => "checks",
            Mode::Evasions => "evasions",
        }
    }
}

impl Category {
    /// The name used in the JSON output and the CLI: `direct`, `indirect`, `direct+indirect`,
    /// `drop`, `king_escape`, `capture`, `drop_block`, `move_block`.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Direct => "direct",
            Category::Indirect => "indirect",
            Category::DirectIndirect => "direct+indirect",
            Category::Drop => "drop",
            Category::KingEscape => "king_escape",
            Category::Capture => "capture",
            Category::DropBlock => "drop_block",
            Category::MoveBlock => "move_block",
        }
    }

    /// Every category, in declaration order.
    pub const ALL: [Category; 8] = [
        Category::Direct,
        Category::Indirect,
        Category::DirectIndirect,
        Category::Drop,
        Category::KingEscape,
        Category::Capture,
        Category::DropBlock,
        Category::MoveBlock,
    ];

    /// The category named `name` (as [`Category::as_str`] gives it).
    pub fn from_name(name: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// The mode whose move lists contain this category.
    pub fn mode(self) -> Mode {
        match self {
            Category::Direct | Category::Indirect | Category::DirectIndirect | Category::Drop => {
                Mode::Checks
            }
            _ => Mode::Evasions,
        }
    }
}

impl std::fmt::Display for Category {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One move of the set: rsshogi's 16-bit move and its category.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TsumeMove {
    /// The move, as rsshogi encodes it (USI text via `to_usi`).
    pub mv: rsshogi::types::Move,
    /// Its category.
    pub category: Category,
}

/// The move set of a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveSet {
    /// Checks or evasions.
    pub mode: Mode,
    /// The moves, in the chip's stream order ([`crate::stream_order`]).
    pub moves: Vec<TsumeMove>,
}

/// How a generator's move list for a position differs from the reference's
/// ([`tsume_moves`]): the first of these found, in this order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ListDifference {
    /// The lists are of different modes: the generator saw the check otherwise.
    Mode { got: Mode, want: Mode },
    /// The list holds a move more than once.
    Duplicates { moves: usize, distinct: usize },
    /// Moves (with their categories) the list lacks, and moves it holds that the reference
    /// does not (a move in another category is in both), each in USI order.
    Moves {
        missing: Vec<TsumeMove>,
        extra: Vec<TsumeMove>,
    },
    /// Not one check flag a move.
    FlagCount { flags: usize, moves: usize },
    /// Moves whose check flag is not rsshogi's `gives_check_move`: the move, the list's
    /// flag, the reference's.
    Flags(Vec<(Move, bool, bool)>),
}

impl std::fmt::Display for ListDifference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let list = |moves: &[TsumeMove]| {
            let words: Vec<String> = moves
                .iter()
                .map(|m| format!("{} ({})", m.mv.to_usi(), m.category))
                .collect();
            if words.is_empty() {
                "none".to_string()
            } else {
                words.join(", ")
            }
        };
        match self {
            ListDifference::Mode { got, want } => {
                write!(f, "chip mode {got}, reference mode {want}")
            }
            ListDifference::Duplicates { moves, distinct } => {
                write!(
                    f,
                    "chip sent duplicate moves: {moves} moves, {distinct} distinct"
                )
            }
            ListDifference::Moves { missing, extra } => {
                write!(f, "missing {}\n    extra {}", list(missing), list(extra))
            }
            ListDifference::FlagCount { flags, moves } => {
                write!(f, "{flags} check flags for {moves} moves")
            }
            ListDifference::Flags(wrong) => {
                let wrong: Vec<String> = wrong
                    .iter()
                    .map(|(mv, got, want)| {
                        format!("{} (chip {got}, reference {want})", mv.to_usi())
                    })
                    .collect();
                write!(f, "check flags differ: {}", wrong.join(", "))
            }
        }
    }
}

impl std::error::Error for ListDifference {}

impl MoveSet {
    /// How this list differs from `want` (the reference's list of the same position):
    /// the mode, then the moves with their categories, order aside; None when they agree.
    pub fn difference(&self, want: &MoveSet) -> Option<ListDifference> {
        if self.mode != want.mode {
            return Some(ListDifference::Mode {
                got: self.mode,
                want: want.mode,
            });
        }
        let key = |m: &TsumeMove| (m.mv.to_usi(), m.category);
        let by_key = |moves: &[TsumeMove]| -> BTreeMap<(String, Category), TsumeMove> {
            moves.iter().map(|m| (key(m), *m)).collect()
        };
        let (got, wanted) = (by_key(&self.moves), by_key(&want.moves));
        if got.len() != self.moves.len() {
            return Some(ListDifference::Duplicates {
                moves: self.moves.len(),
                distinct: got.len(),
            });
        }
        let only = |a: &BTreeMap<_, TsumeMove>, b: &BTreeMap<_, _>| -> Vec<TsumeMove> {
            a.iter()
                .filter(|(k, _)| !b.contains_key(*k))
                .map(|(_, m)| *m)
                .collect()
        };
        let (missing, extra) = (only(&wanted, &got), only(&got, &wanted));
        if missing.is_empty() && extra.is_empty() {
            None
        } else {
            Some(ListDifference::Moves { missing, extra })
        }
    }
}

/// Moves of `moves` (a list for `pos`) whose check flag in `flags` is not rsshogi's
/// `gives_check_move`; None when every flag agrees.
pub fn check_flag_difference(
    pos: &Position,
    moves: &[TsumeMove],
    flags: &[bool],
) -> Option<ListDifference> {
    if flags.len() != moves.len() {
        return Some(ListDifference::FlagCount {
            flags: flags.len(),
            moves: moves.len(),
        });
    }
    let board = pos.inner();
    let wrong: Vec<(Move, bool, bool)> = moves
        .iter()
        .zip(flags)
        .map(|(m, &flag)| (m.mv, flag, board.gives_check_move(m.mv)))
        .filter(|(_, got, want)| got != want)
        .collect();
    (!wrong.is_empty()).then_some(ListDifference::Flags(wrong))
}

/// Every legal check (mode Checks) or every legal evasion (mode Evasions), each categorised.
///
/// The moves come from rsshogi's `LegalAll` generator (every legal non-promotion included);
/// in mode Checks only those that give check are kept. They are listed in the chip's stream
/// order ([`crate::stream_order`]), so the reference and the chip list a position alike.
pub fn tsume_moves(pos: &Position) -> MoveSet {
    let mut set = tsume_moves_unordered(pos);
    set.moves.sort_by_cached_key(|m| stream_key(pos, m.mv));
    set
}

/// [`tsume_moves`] in rsshogi's generation order.
fn tsume_moves_unordered(pos: &Position) -> MoveSet {
    let inner = pos.inner();
    let legal = MoveListGen::<LegalAll>::new(inner);
    if inner.is_in_check() {
        let moves = legal
            .iter()
            .map(|&mv| TsumeMove {
                mv,
                category: evasion_category(inner, mv),
            })
            .collect();
        MoveSet {
            mode: Mode::Evasions,
            moves,
        }
    } else {
        let us = inner.turn();
        let king = inner.king_square(us.flip());
        let mut scratch = inner.clone_compact();
        let mut moves = Vec::new();
        for &mv in legal.iter() {
            if !inner.gives_check_move(mv) {
                continue;
            }
            let category = if mv.is_drop() {
                Category::Drop
            } else {
                scratch.apply_move(mv);
                let occupied = scratch.bitboards().occupied();
                let attackers = scratch.attackers_to_color(us, king, occupied);
                scratch.undo_move(mv).expect("undo of a move just made");
                let direct = attackers.test(mv.to_sq());
                let indirect = (attackers & !Bitboard::from_square(mv.to_sq())).any();
                match (direct, indirect) {
                    (true, false) => Category::Direct,
                    (false, true) => Category::Indirect,
                    (true, true) => Category::DirectIndirect,
                    (false, false) => unreachable!("{mv} gives check but nothing attacks the king"),
                }
            };
            moves.push(TsumeMove { mv, category });
        }
        MoveSet {
            mode: Mode::Checks,
            moves,
        }
    }
}

/// The category of a legal evasion `mv` in `pos` (side to move in check).
fn evasion_category(pos: &rsshogi::board::Position, mv: Move) -> Category {
    if mv.is_drop() {
        return Category::DropBlock;
    }
    let from = mv.from_sq();
    if pos.piece_on(from).piece_type() == PieceType::KING {
        return Category::KingEscape;
    }
    let checkers = pos.checkers();
    debug_assert_eq!(checkers.count(), 1, "only king moves answer a double check");
    if checkers.test(mv.to_sq()) {
        Category::Capture
    } else {
        let checker = checkers.lsb().expect("in check");
        let king = pos.king_square(pos.turn());
        debug_assert!(Bitboard::between(king, checker).test(mv.to_sq()));
        Category::MoveBlock
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_come_in_stream_order() {
        let pos = Position::from_sfen("3k5/9/9/9/4R4/9/9/9/4K4 b G 1").unwrap();
        let moves = tsume_moves(&pos).moves;
        assert!(moves.len() > 5, "{moves:?}");
        let keys: Vec<u32> = moves.iter().map(|m| stream_key(&pos, m.mv)).collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
    }

    #[test]
    fn names_match_serde() {
        for c in Category::ALL {
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, format!("\"{}\"", c.as_str()));
            assert_eq!(Category::from_name(c.as_str()), Some(c));
        }
        for m in [Mode::Checks, Mode::Evasions] {
            assert_eq!(
                serde_json::to_string(&m).unwrap(),
                format!("\"{}\"", m.as_str())
            );
        }
        assert_eq!(Category::from_name("nope"), None);
    }

    #[test]
    fn modes_of_a_position() {
        let checks = Position::from_sfen("4k4/9/9/9/4B4/9/9/9/4R4 b G").unwrap();
        let set = tsume_moves(&checks);
        assert_eq!(set.mode, Mode::Checks);
        assert!(set.moves.iter().all(|m| m.category.mode() == Mode::Checks));
        let evasions = Position::from_sfen("4k4/1b3P3/3g5/9/4R4/9/9/9/9 w p").unwrap();
        let set = tsume_moves(&evasions);
        assert_eq!(set.mode, Mode::Evasions);
        assert!(
            set.moves
                .iter()
                .all(|m| m.category.mode() == Mode::Evasions)
        );
    }

    #[test]
    fn a_list_differs_by_mode_duplicates_or_moves() {
        let pos = Position::from_sfen("3k5/9/9/9/4R4/9/9/9/4K4 b G 1").unwrap();
        let want = tsume_moves(&pos);
        assert_eq!(want.difference(&want), None);
        let mut reversed = want.clone();
        reversed.moves.reverse();
        assert_eq!(reversed.difference(&want), None, "order aside");
        let evasions = MoveSet {
            mode: Mode::Evasions,
            ..want.clone()
        };
        let d = evasions.difference(&want).unwrap();
        assert_eq!(d.to_string(), "chip mode evasions, reference mode checks");
        let mut twice = want.clone();
        twice.moves.push(want.moves[0]);
        let d = twice.difference(&want).unwrap();
        assert_eq!(
            d,
            ListDifference::Duplicates {
                moves: want.moves.len() + 1,
                distinct: want.moves.len()
            }
        );
        let mut other = want.clone();
        let first = other.moves.remove(0);
        let moved = &mut other.moves[0];
        moved.category = if moved.category == Category::Indirect {
            Category::Direct
        } else {
            Category::Indirect
        };
        let d = other.difference(&want).unwrap();
        let ListDifference::Moves { missing, extra } = &d else {
            panic!("{d:?}")
        };
        assert_eq!(missing.len(), 2, "{d}");
        assert!(missing.contains(&first), "{d}");
        assert_eq!(extra, &[other.moves[0]], "{d}");
        let named = format!("{} ({})", extra[0].mv.to_usi(), extra[0].category);
        assert!(d.to_string().contains(&named), "{d}");
    }

    #[test]
    fn check_flags_are_rsshogis() {
        let pos = Position::from_sfen("3k5/9/9/9/4R4/9/9/9/4K4 b G 1").unwrap();
        let moves = tsume_moves(&pos).moves;
        let mut flags = vec![true; moves.len()];
        assert_eq!(check_flag_difference(&pos, &moves, &flags), None);
        flags[1] = false;
        let d = check_flag_difference(&pos, &moves, &flags).unwrap();
        assert_eq!(d, ListDifference::Flags(vec![(moves[1].mv, false, true)]));
        assert!(d.to_string().starts_with("check flags differ: "), "{d}");
        let d = check_flag_difference(&pos, &moves, &flags[1..]).unwrap();
        assert_eq!(
            d.to_string(),
            format!("{} check flags for {} moves", moves.len() - 1, moves.len())
        );
    }
}
