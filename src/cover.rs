//! Reference data for the direct-cover generators (`hdl/movegen/direct_cover.spade`).
//!
//! The direct cover of a colour says, for every square, which of that colour's pieces
//! attack it. The hardware names each attacker by the direction of its attacking move:
//! a square is in the bitboard of direction `d` when the nearest piece the other way
//! along `d` (or the knight one jump back) belongs to the colour and attacks it. This
//! module computes the same ten bitboards from rsshogi's attack tables
//! (`attackers_to_color`), so the two are derived independently.

use rsshogi::types::{Color, Square};

use crate::bus::Bits81;
use crate::position::Position;

/// The direction of an attacking move, in the hardware's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// Towards rank a.
    N,
    NE,
    /// Towards file 1.
    E,
    SE,
    /// Towards rank i.
    S,
    SW,
    /// Towards file 9.
    W,
    NW,
    /// Knight jump towards file 1 (two ranks forward for the knight's colour).
    KnightE,
    /// Knight jump towards file 9.
    KnightW,
}

impl Direction {
    /// Every direction in the order of the hardware's cover outputs.
    pub const ALL: [Direction; 10] = [
        Direction::N,
        Direction::NE,
        Direction::E,
        Direction::SE,
        Direction::S,
        Direction::SW,
        Direction::W,
        Direction::NW,
        Direction::KnightE,
        Direction::KnightW,
    ];

    /// The direction of the move from `from` to `to`, if a piece can attack along it.
    pub fn between(from: Square, to: Square) -> Option<Direction> {
        let (from, to) = (i32::from(from.raw()), i32::from(to.raw()));
        let file = to / 9 - from / 9;
        let rank = to % 9 - from % 9;
        if rank.abs() == 2 && file.abs() == 1 {
            return Some(if file < 0 {
                Direction::KnightE
            } else {
                Direction::KnightW
            });
        }
        let straight = file == 0 || rank == 0 || file.abs() == rank.abs();
        if !straight || (file == 0 && rank == 0) {
            return None;
        }
        Some(match (file.signum(), rank.signum()) {
            (0, -1) => Direction::N,
            (-1, -1) => Direction::NE,
            (-1, 0) => Direction::E,
            (-1, 1) => Direction::SE,
            (0, 1) => Direction::S,
            (1, 1) => Direction::SW,
            (1, 0) => Direction::W,
            _ => Direction::NW,
        })
    }

    /// Position of this direction in [`Direction::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The direct cover of one colour: one bitboard per attacking direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirectCover {
    pub by_direction: [Bits81; 10],
}

impl DirectCover {
    /// Squares the colour attacks at all.
    pub fn attacked(&self) -> Bits81 {
        self.by_direction.iter().fold(0, |all, bits| all | bits)
    }
}

/// The direct cover of `color` in `pos`, from rsshogi's attackers of every square.
pub fn direct_cover(pos: &Position, color: Color) -> DirectCover {
    let inner = pos.inner();
    let occupied = inner.pieces();
    let mut by_direction = [0; 10];
    for target in Square::iter() {
        let mut attackers = inner.attackers_to_color(color, target, occupied);
        while let Some(from) = attackers.pop_lsb() {
            let direction = Direction::between(from, target).unwrap_or_else(|| {
                panic!(
                    "{} attacks {} along no direction",
                    from.to_usi(),
                    target.to_usi()
                )
            });
            by_direction[direction.index()] |= 1 << target.raw();
        }
    }
    DirectCover { by_direction }
}
