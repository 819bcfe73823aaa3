//! How a position travels to the chip, and how the chip's wide outputs are laid out.
//!
//! Load bus of the position store (`hdl/movegen/position_store.spade`), one 45-bit word a cycle:
//! - address `f` in `0..9`: file word of file index `f` (USI file `f + 1`): bit `9 * p + r`
//!   is bit `p` of the piece code on rank index `r` (rank a = 0);
//! - address 9: hands word: black's hand in bits 20..0, white's in bits 41..21, each packed
//!   as pawns (5 bits), lances, knights, silvers (3 bits each), bishops, rooks (2 bits each),
//!   golds (3 bits) from the low bits up; bit 42 set when white is to move. Writing it
//!   completes the load.
//!
//! Piece codes: bit 4 the colour (0 black, 1 white), bits 3..0 rsshogi's piece-type number
//! (1 pawn .. 8 king, 9 promoted pawn .. 14 dragon); 0 is an empty square.

use rsshogi::types::{Color, PieceType, Square};

use crate::position::Position;

/// Address of the hands word; file words use addresses `0..HANDS_ADDR`.
pub const HANDS_ADDR: u8 = 9;
/// Words in one position load.
pub const LOAD_WORDS: usize = 10;
/// Width of a load word in bits.
pub const WORD_BITS: u32 = 45;
/// Field widths of a hand in the hands word, in rsshogi's hand order
/// (pawn, lance, knight, silver, bishop, rook, gold).
pub const HAND_FIELD_BITS: [u32; 7] = [5, 3, 3, 3, 2, 2, 3];
/// Bits of one packed hand.
pub const HAND_BITS: u32 = 21;

/// A bitboard as the chip holds it: bit `9 * file_index + rank_index`.
pub type Bits81 = u128;
/// The 81 valid bits of a [`Bits81`].
pub const BOARD_MASK: Bits81 = (1u128 << 81) - 1;

/// The square with file index `file` (0 = USI file 1) and rank index `rank` (0 = rank a).
pub fn square(file: u8, rank: u8) -> Square {
    Square::new((file * 9 + rank) as i8)
}

/// The 5-bit code of a piece.
pub fn piece_code(color: Color, kind: PieceType) -> u8 {
    let colour_bit = if color == Color::White { 16 } else { 0 };
    colour_bit | kind.raw() as u8
}

/// A hand packed as in the hands word.
pub fn pack_hand(counts: [u8; 7]) -> u64 {
    let mut word = 0u64;
    let mut shift = 0;
    for (count, bits) in counts.iter().zip(HAND_FIELD_BITS) {
        debug_assert!(
            u64::from(*count) < 1 << bits,
            "hand count {count} exceeds {bits} bits"
        );
        word |= u64::from(*count) << shift;
        shift += bits;
    }
    word
}

/// The counts of a packed hand (the inverse of [`pack_hand`]).
pub fn unpack_hand(word: u64) -> [u8; 7] {
    let mut counts = [0u8; 7];
    let mut shift = 0;
    for (count, bits) in counts.iter_mut().zip(HAND_FIELD_BITS) {
        *count = (word >> shift & ((1 << bits) - 1)) as u8;
        shift += bits;
    }
    counts
}

/// The file word of file index `file`.
pub fn file_word(pos: &Position, file: u8) -> u64 {
    let mut word = 0u64;
    for rank in 0..9u8 {
        let code = pos
            .piece_on(square(file, rank))
            .map_or(0, |(color, kind)| piece_code(color, kind));
        for plane in 0..5 {
            if code >> plane & 1 == 1 {
                word |= 1 << (9 * plane + u32::from(rank));
            }
        }
    }
    word
}

/// The hands word.
pub fn hands_word(pos: &Position) -> u64 {
    let white_to_move = u64::from(pos.side_to_move() == Color::White);
    pack_hand(pos.hand(Color::Black))
        | pack_hand(pos.hand(Color::White)) << HAND_BITS
        | white_to_move << (2 * HAND_BITS)
}

/// The whole load sequence of a position: `(address, word)` in bus order.
pub fn load_words(pos: &Position) -> [(u8, u64); LOAD_WORDS] {
    let mut words = [(0u8, 0u64); LOAD_WORDS];
    for file in 0..9u8 {
        words[usize::from(file)] = (file, file_word(pos, file));
    }
    words[LOAD_WORDS - 1] = (HANDS_ADDR, hands_word(pos));
    words
}

/// Bit `index` of a wide output given as Verilator words (32 bits each, least significant
/// word first).
fn wide_bit(words: &[u32], index: usize) -> bool {
    words[index / 32] >> (index % 32) & 1 == 1
}

/// Split a wide output into `N` consecutive 81-bit bitboards (bitboard 0 in the low bits).
pub fn unpack_bitboards<const N: usize>(words: &[u32]) -> [Bits81; N] {
    assert!(
        words.len() * 32 >= N * 81,
        "{} words cannot hold {N} bitboards",
        words.len()
    );
    std::array::from_fn(|board| {
        (0..81).fold(0, |bits, sq| {
            bits | Bits81::from(wide_bit(words, board * 81 + sq)) << sq
        })
    })
}

/// Squares of a bitboard in USI notation, for failure messages.
pub fn squares_usi(bits: Bits81) -> Vec<String> {
    (0..81u8)
        .filter(|sq| bits >> sq & 1 == 1)
        .map(|sq| Square::new(sq as i8).to_usi())
        .collect()
}

/// Bits of a move word from the move stream (`hdl/movegen/move_stream.spade`):
/// bits 6..0 destination square, bits 13..7 source square or, for a drop, the piece number
/// (1 pawn, 2 lance, 3 knight, 4 silver, 5 bishop, 6 rook, 7 gold), bit 14 drop,
/// bit 15 promotion. Squares are numbered `9 * file_index + rank_index`.
pub const MOVE_DROP_BIT: u16 = 1 << 14;
/// See [`MOVE_DROP_BIT`].
pub const MOVE_PROMOTE_BIT: u16 = 1 << 15;

/// The destination square (bits 6..0) of a move word that drops a piece, `None` for a
/// board move.
pub fn drop_square(word: u16) -> Option<u16> {
    (word & MOVE_DROP_BIT != 0).then_some(word & 0x7f)
}

/// Why a word from the chip is not a move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("move word {word:#06x}: square {square} is off the board")]
    Square { word: u16, square: u16 },
    #[error("move word {word:#06x}: drop of piece number {piece}, expected 1..=7")]
    DropPiece { word: u16, piece: u16 },
    #[error("move word {word:#06x}: a drop cannot promote")]
    PromotedDrop { word: u16 },
    #[error("category code {0} is not a category")]
    Category(u8),
}

/// Decode a move word.
pub fn decode_move(word: u16) -> Result<rsshogi::types::Move, DecodeError> {
    use rsshogi::types::Move;
    let to = word & 0x7f;
    let from = (word >> 7) & 0x7f;
    let sq = |square: u16| {
        if square < 81 {
            Ok(Square::new(square as i8))
        } else {
            Err(DecodeError::Square { word, square })
        }
    };
    let to_sq = sq(to)?;
    if word & MOVE_DROP_BIT != 0 {
        if word & MOVE_PROMOTE_BIT != 0 {
            return Err(DecodeError::PromotedDrop { word });
        }
        if !(1..=7).contains(&from) {
            return Err(DecodeError::DropPiece { word, piece: from });
        }
        return Ok(Move::drop(PieceType::new(from as i8), to_sq));
    }
    let from_sq = sq(from)?;
    Ok(if word & MOVE_PROMOTE_BIT != 0 {
        Move::promotion(from_sq, to_sq)
    } else {
        Move::normal(from_sq, to_sq)
    })
}

/// The category codes of the move stream, in code order.
pub const CATEGORY_CODES: [crate::reference::Category; 8] = {
    use crate::reference::Category::*;
    [
        Direct,
        Indirect,
        DirectIndirect,
        Drop,
        KingEscape,
        Capture,
        DropBlock,
        MoveBlock,
    ]
};

/// Decode a category code.
pub fn decode_category(code: u8) -> Result<crate::reference::Category, DecodeError> {
    CATEGORY_CODES
        .get(usize::from(code))
        .copied()
        .ok_or(DecodeError::Category(code))
}

/// Encode a move as a move word (the inverse of [`decode_move`]).
pub fn encode_move(mv: rsshogi::types::Move) -> u16 {
    let to = mv.to_sq().raw() as u16;
    match mv.dropped_piece() {
        Some(kind) => to | (kind.raw() as u16) << 7 | MOVE_DROP_BIT,
        None => {
            let promote = if mv.is_promotion() {
                MOVE_PROMOTE_BIT
            } else {
                0
            };
            to | (mv.from_sq().raw() as u16) << 7 | promote
        }
    }
}
