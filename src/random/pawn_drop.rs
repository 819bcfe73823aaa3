//! Pawn-drop-mate positions: the defending king with the square in front of it empty, a
//! pawn in the attacker's hand, an attacking piece guarding that square most of the time,
//! escape squares taken or covered at random, and the defender's possible takers of the
//! pawn next to the square, a knight's jump away or sliding from far along its lines, some
//! of them pinned against their king on its rank, diagonals or file. Dropping the pawn
//! mates (an illegal drop) in a good share of them and is a legal check in another, so a
//! move generator's pawn-drop rule is exercised both ways.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rsshogi::types::{Move, PieceType, Square};

use crate::position::Position;

/// The board being drawn: `[file][rank]`, file index 0..9 = file 1..9, rank index 0..9 =
/// rank a..i; Black moves towards rank a. Pieces in SFEN letters.
type Board = [[Option<&'static str>; 9]; 9];

/// The eight directions around a square, (file, rank) steps, the first towards rank a.
const DIRS: [(i8, i8); 8] = [
    (0, -1),
    (1, -1),
    (1, 0),
    (1, 1),
    (0, 1),
    (-1, 1),
    (-1, 0),
    (-1, -1),
];

/// A position being drawn: the board, the defending king's square and the square in
/// front of it, where the pawn drops (kept empty).
struct Sketch {
    board: Board,
    king: (i8, i8),
    square: (i8, i8),
}

impl Sketch {
    /// The defending king at (`kf`, `kr`), alone on the board.
    fn new(kf: i8, kr: i8) -> Sketch {
        let mut board: Board = [[None; 9]; 9];
        board[kf as usize][kr as usize] = Some("k");
        Sketch {
            board,
            king: (kf, kr),
            square: (kf, kr + 1),
        }
    }

    /// `piece` on (`f`, `r`) if that is a square of the board, empty, and not the drop's.
    fn put(&mut self, f: i8, r: i8, piece: &'static str) {
        let on = (0..9).contains(&f) && (0..9).contains(&r);
        if on && (f, r) != self.square && self.board[f as usize][r as usize].is_none() {
            self.board[f as usize][r as usize] = Some(piece);
        }
    }

    /// The board in SFEN: ranks a to i, each from file 9 to file 1, runs of empty squares
    /// as digits.
    fn sfen_board(&self) -> String {
        let rows: Vec<String> = (0..9)
            .map(|r| {
                let mut row = String::new();
                let mut gap = 0;
                for file in self.board.iter().rev() {
                    match file[r] {
                        Some(piece) => {
                            if gap > 0 {
                                row.push_str(&gap.to_string());
                                gap = 0;
                            }
                            row.push_str(piece);
                        }
                        None => gap += 1,
                    }
                }
                if gap > 0 {
                    row.push_str(&gap.to_string());
                }
                row
            })
            .collect();
        rows.join("/")
    }
}

/// A deterministic generator of pawn-drop positions: the same seed gives the same
/// positions on every machine.
pub struct PawnDropGenerator {
    rng: StdRng,
}

impl PawnDropGenerator {
    /// A generator whose whole sequence of positions is determined by `seed`.
    pub fn new(seed: u64) -> Self {
        PawnDropGenerator {
            rng: StdRng::seed_from_u64(seed),
        }
    }

    /// The next position (Black to move, not in check, a pawn in hand and none on the
    /// defending king's file) and its checking pawn drop, which may or may not mate.
    pub fn next_position(&mut self) -> (Position, Move) {
        loop {
            let mut s = self.king();
            self.guard(&mut s);
            self.neighbours(&mut s);
            self.attackers(&mut s);
            self.takers(&mut s);
            self.pin(&mut s);
            // Occasionally the attacker's own king, far from the action.
            if self.rng.random_bool(0.3) {
                s.put(self.rng.random_range(0..9), 8, "K");
            }
            let hand = ["P", "PG", "PS", "2PN", "PL", "PB"][self.rng.random_range(0..6)];
            let sfen = format!("{} b {hand} 1", s.sfen_board());
            // Positions the rules reject (dead pieces, double pawns, the side not to move in
            // check) and Black in check are drawn again.
            if let Ok(pos) = Position::from_sfen(&sfen)
                && !pos.in_check()
            {
                let (pf, pr) = s.square;
                let drop = Move::drop(PieceType::PAWN, Square::new(pf * 9 + pr));
                return (pos, drop);
            }
        }
    }

    /// The defending king, mostly on the edge, where a few pieces take every escape
    /// square.
    fn king(&mut self) -> Sketch {
        let kf = if self.rng.random_bool(0.3) {
            [0, 8][self.rng.random_range(0..2)]
        } else {
            self.rng.random_range(0..9i8)
        };
        let kr = if self.rng.random_bool(0.7) {
            0
        } else {
            self.rng.random_range(1..6i8)
        };
        Sketch::new(kf, kr)
    }

    /// Mostly a guard of the square, so that the king cannot take the pawn.
    fn guard(&mut self, s: &mut Sketch) {
        let (pf, pr) = s.square;
        if self.rng.random_bool(0.95) {
            let side = if self.rng.random_bool(0.5) { 1 } else { -1 };
            match self.rng.random_range(0..6) {
                0 => s.put(pf, pr + 1, "G"),
                1 => s.put(pf + side, pr + 1, "S"),
                2 => s.put(pf, pr + self.rng.random_range(1..4), "L"),
                3 => s.put(pf + side, pr + 2, "N"),
                4 => {
                    let d = self.rng.random_range(1..4);
                    s.put(pf + side * d, pr + d, "B");
                }
                _ => s.put(pf + side, pr, "+R"),
            }
        }
    }

    /// The king's other neighbours: mostly its own pieces that cannot take on the square
    /// (pawns, lances and knights beside the king), so that the drop often mates.
    fn neighbours(&mut self, s: &mut Sketch) {
        let (kf, kr) = s.king;
        for &(df, dr) in &DIRS {
            if self.rng.random_bool(0.85) {
                let own = ["p", "p", "l", "l", "n", "s", "g", "+p"][self.rng.random_range(0..8)];
                s.put(kf + df, kr + dr, own);
            }
        }
    }

    /// Attacking pieces near the king, covering escape squares.
    fn attackers(&mut self, s: &mut Sketch) {
        let (kf, kr) = s.king;
        for _ in 0..self.rng.random_range(0..4) {
            let piece = ["G", "S", "+R", "+B", "B", "R", "N"][self.rng.random_range(0..7)];
            s.put(
                kf + self.rng.random_range(-3..4),
                kr + self.rng.random_range(-2..4),
                piece,
            );
        }
    }

    /// The defender's possible takers, none to two: next to the square, a knight's jump
    /// from it, or sliding along one of its lines from farther away.
    fn takers(&mut self, s: &mut Sketch) {
        let (pf, pr) = s.square;
        let takers = match self.rng.random_range(0..10) {
            0..4 => 0,
            4..8 => 1,
            _ => 2,
        };
        for _ in 0..takers {
            let (df, dr) = DIRS[self.rng.random_range(1..8)];
            let diagonal = df != 0 && dr != 0;
            let slider =
                if diagonal { ["b", "+b"] } else { ["r", "+r"] }[self.rng.random_range(0..2)];
            match self.rng.random_range(0..10) {
                0..3 => {
                    let piece = [slider, "g", "s", "+p"][self.rng.random_range(0..4)];
                    s.put(pf + df, pr + dr, piece);
                }
                3 => s.put(pf + [1, -1][self.rng.random_range(0..2)], pr - 2, "n"),
                _ => {
                    let d = self.rng.random_range(2..9);
                    s.put(pf + df * d, pr + dr * d, slider);
                }
            }
        }
    }

    /// Often a pin: an attacking slider beyond a defending piece on one of the king's
    /// lines.
    fn pin(&mut self, s: &mut Sketch) {
        let (kf, kr) = s.king;
        if self.rng.random_bool(0.6) {
            // The king's file (through the square) a quarter of the time.
            let (df, dr) = if self.rng.random_bool(0.25) {
                (0, 1)
            } else {
                DIRS[self.rng.random_range(0..8)]
            };
            let near = self.rng.random_range(1..3);
            let far = near + self.rng.random_range(1..5);
            let diagonal = df != 0 && dr != 0;
            let slider = if diagonal {
                ["B", "+B"][self.rng.random_range(0..2)]
            } else {
                ["R", "+R"][self.rng.random_range(0..2)]
            };
            if self.rng.random_bool(0.7) {
                let piece = ["g", "s", "r", "b", "+r", "+b", "n"][self.rng.random_range(0..7)];
                s.put(kf + df * near, kr + dr * near, piece);
            }
            s.put(kf + df * far, kr + dr * far, slider);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::tsume_moves;

    /// The positions exercise the rule both ways: the drop is listed in some and left out
    /// (it would mate) in others; the same seed gives the same positions.
    #[test]
    fn drops_that_mate_and_drops_that_do_not() {
        let seed = crate::random::seed_from_env();
        let mut generator = PawnDropGenerator::new(seed);
        let (mut listed, mut left_out) = (0, 0);
        for _ in 0..500 {
            let (pos, drop) = generator.next_position();
            assert!(!pos.in_check(), "TSUME_SEED={seed}: {pos}");
            if tsume_moves(&pos).moves.iter().any(|m| m.mv == drop) {
                listed += 1;
            } else {
                left_out += 1;
            }
        }
        assert!(
            listed >= 25 && left_out >= 25,
            "TSUME_SEED={seed}: {listed} drops listed, {left_out} left out"
        );
        let mut again = PawnDropGenerator::new(seed);
        let mut first = PawnDropGenerator::new(seed);
        for _ in 0..20 {
            assert_eq!(again.next_position(), first.next_position());
        }
    }
}
