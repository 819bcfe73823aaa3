//! The chip's move order: the order in which the move stream sends a list, as a function
//! of the position and the move, so that the software reference (and anything else that
//! lists moves) gives the same moves in the same order as the chip.
//!
//! The stream (`hdl/movegen/move_stream.spade`) drains the 27 channels of `hdl/movegen/move_channels.spade`
//! in channel order, and each channel lowest destination first:
//!
//! - channels 0 to 9: board moves without promotion, by move direction: 0 north, 1
//!   north-east, 2 east, 3 south-east, 4 south, 5 south-west, 6 west, 7 north-west, 8 the
//!   knight's jump towards file 1, 9 the knight's jump towards file 9;
//! - channels 10 to 19: the same directions, with promotion;
//! - channels 20 to 26: drops of pawn, lance, knight, silver, bishop, rook, gold.
//!
//! Directions and squares are those of the side to move's view, in which the side to move
//! plays Black: north is towards rank a, east towards file 1, and square `9 * file index +
//! rank index` (file index 0 = file 1, rank index 0 = rank a). For White the view is the
//! board turned by 180 degrees: square `i` is square `80 - i` of the view. In a channel
//! every destination has one source (the nearest piece back against the direction), so
//! channel and destination name a move of a list.

use rsshogi::types::{Color, Move};

use crate::position::Position;

/// Channels of the stream.
pub const CHANNELS: u32 = 27;
/// The first channel of promoting board moves (directions follow as for channel 0).
pub const PROMOTION_CHANNELS: u32 = 10;
/// The first drop channel (pawn; lance, knight, silver, bishop, rook and gold follow).
pub const DROP_CHANNELS: u32 = 20;

/// Square `sq` (`9 * file index + rank index`) in the view of the side to move `side`.
pub fn view_square(side: Color, sq: u8) -> u8 {
    if side == Color::WHITE { 80 - sq } else { sq }
}

/// The move direction (0 to 9, see the module's description) of a board move from view
/// square `from` to view square `to`.
pub fn direction(from: u8, to: u8) -> u32 {
    let df = i32::from(to / 9) - i32::from(from / 9);
    let dr = i32::from(to % 9) - i32::from(from % 9);
    if dr == -2 && df.abs() == 1 {
        return if df < 0 { 8 } else { 9 };
    }
    match (df.signum(), dr.signum()) {
        (0, -1) => 0,
        (-1, -1) => 1,
        (-1, 0) => 2,
        (-1, 1) => 3,
        (0, 1) => 4,
        (1, 1) => 5,
        (1, 0) => 6,
        (1, -1) => 7,
        _ => panic!("a move from view square {from} to {to} has no direction"),
    }
}

/// The stream channel of `mv` in `pos` (0 to 26).
pub fn channel(pos: &Position, mv: Move) -> u32 {
    side_channel(pos.side_to_move(), mv)
}

/// The stream channel of `mv` played by `side` (0 to 26).
pub fn side_channel(side: Color, mv: Move) -> u32 {
    if let Some(piece) = mv.dropped_piece() {
        // rsshogi numbers the pieces in hand 1 pawn .. 7 gold, the drop channels' order.
        return DROP_CHANNELS + piece.raw() as u32 - 1;
    }
    let from = view_square(side, mv.from_sq().raw() as u8);
    let to = view_square(side, mv.to_sq().raw() as u8);
    let promotion = if mv.is_promotion() {
        PROMOTION_CHANNELS
    } else {
        0
    };
    promotion + direction(from, to)
}

/// Where `mv` comes in the chip's list of `pos`: the smaller key first. The key is
/// `81 * channel + view destination`, unique among the moves of one position.
pub fn stream_key(pos: &Position, mv: Move) -> u32 {
    side_stream_key(pos.side_to_move(), mv)
}

/// [`stream_key`] of a move played by `side` (all the key depends on).
pub fn side_stream_key(side: Color, mv: Move) -> u32 {
    let to = view_square(side, mv.to_sq().raw() as u8);
    81 * side_channel(side, mv) + u32::from(to)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(sfen: &str, usi: &str) -> (u32, u32) {
        let pos = Position::from_sfen(sfen).unwrap();
        let mv = Move::from_usi(usi).unwrap();
        (channel(&pos, mv), stream_key(&pos, mv))
    }

    #[test]
    fn directions_in_black_view() {
        // 5e is file index 4, rank index 4: square 40.
        let sq = |f: u8, r: u8| 9 * f + r;
        assert_eq!(direction(sq(4, 4), sq(4, 3)), 0);
        assert_eq!(direction(sq(4, 4), sq(3, 3)), 1);
        assert_eq!(direction(sq(4, 4), sq(0, 4)), 2);
        assert_eq!(direction(sq(4, 4), sq(2, 6)), 3);
        assert_eq!(direction(sq(4, 4), sq(4, 8)), 4);
        assert_eq!(direction(sq(4, 4), sq(5, 5)), 5);
        assert_eq!(direction(sq(4, 4), sq(8, 4)), 6);
        assert_eq!(direction(sq(4, 4), sq(6, 2)), 7);
        assert_eq!(direction(sq(4, 4), sq(3, 2)), 8);
        assert_eq!(direction(sq(4, 4), sq(5, 2)), 9);
    }

    #[test]
    fn channels_of_moves_drops_and_white() {
        let black = "3k5/9/9/9/4R4/9/9/9/4K4 b GP 1";
        // Rook 5e to 5b: north, destination 5b = square 37.
        assert_eq!(key(black, "5e5b"), (0, 37));
        assert_eq!(key(black, "5e5b+"), (10, 81 * 10 + 37));
        assert_eq!(key(black, "5e1e"), (2, 81 * 2 + 4));
        assert_eq!(key(black, "P*5b").0, DROP_CHANNELS);
        assert_eq!(key(black, "G*5b").0, DROP_CHANNELS + 6);
        // White moving towards rank i is north in its view, squares turned.
        let white = "4k4/9/9/9/4r4/9/9/9/3K5 w gp 1";
        assert_eq!(key(white, "5e5h"), (0, 80 - (36 + 7)));
        assert_eq!(key(white, "5e9e"), (2, 81 * 2 + 80 - (72 + 4)));
        assert_eq!(key(white, "P*5h").0, DROP_CHANNELS);
    }
}
