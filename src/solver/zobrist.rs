//! The position hash: 64-bit Zobrist keys over (square, piece), the counts in hand and
//! the side to move, drawn from splitmix64 so that the chip can hold the same constants
//! in a ROM and update the hash incrementally (docs/search.md, "The position hash").

use std::sync::OnceLock;

use rsshogi::board::Position as Board;
use rsshogi::types::{Color, HandPiece, Move, Piece, PieceType, Square};

/// The seed of the key generator.
pub const SEED: u64 = 0x7473_756d_6500_0001;

/// How many of each hand piece a side can hold (pawn, lance, knight, silver, bishop,
/// rook, gold: rsshogi's hand order, also the chip's drop-piece numbers 1 to 7).
pub const HAND_MAX: [usize; 7] = [18, 4, 4, 4, 2, 2, 4];

/// Piece codes a square can hold: 14 kinds (rsshogi's piece types 1..14) per colour.
const PIECE_CODES: usize = 28;

/// The key tables, in the order they are drawn from the generator.
pub struct Keys {
    /// `board[square][code]`, code = 14 * colour + kind - 1 (Black 0..13, White 14..27).
    board: [[u64; PIECE_CODES]; 81],
    /// `hand[colour][piece][count]`, count 0 has the key 0.
    hand: [[[u64; 19]; 7]; 2],
    /// XORed in when White is to move.
    white: u64,
    /// `plies[r]`: XORed into a hash to make the table key of a node with `r` plies left.
    plies: Vec<u64>,
}

/// Plies left that have a table key: 0 to `PLY_KEYS - 1`.
pub const PLY_KEYS: usize = 1024;

/// splitmix64: the next output from `state` (which it advances).
pub fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Keys {
    fn generate() -> Keys {
        let mut state = SEED;
        let mut keys = Keys {
            board: [[0; PIECE_CODES]; 81],
            hand: [[[0; 19]; 7]; 2],
            white: 0,
            plies: vec![0; PLY_KEYS],
        };
        for square in keys.board.iter_mut() {
            for key in square.iter_mut() {
                *key = splitmix64(&mut state);
            }
        }
        for colour in keys.hand.iter_mut() {
            for (piece, counts) in colour.iter_mut().enumerate() {
                for key in counts.iter_mut().take(HAND_MAX[piece] + 1).skip(1) {
                    *key = splitmix64(&mut state);
                }
            }
        }
        keys.white = splitmix64(&mut state);
        for key in keys.plies.iter_mut() {
            *key = splitmix64(&mut state);
        }
        keys
    }

    /// The table key of a position with hash `hash` searched with `left` plies left.
    pub fn table_key(&self, hash: u64, left: u32) -> u64 {
        hash ^ self.plies[left as usize]
    }

    /// The keys (generated once).
    pub fn get() -> &'static Keys {
        static KEYS: OnceLock<Keys> = OnceLock::new();
        KEYS.get_or_init(Keys::generate)
    }

    fn piece(&self, sq: Square, piece: Piece) -> u64 {
        let code = 14 * piece.color().to_index() + piece.piece_type().raw() as usize - 1;
        self.board[sq.to_index()][code]
    }

    fn hand(&self, colour: Color, piece: HandPiece, count: u32) -> u64 {
        self.hand[colour.to_index()][piece.to_index()][count as usize]
    }

    /// The hash of a position, from scratch.
    pub fn hash(&self, board: &Board) -> u64 {
        let mut h = 0;
        for i in 0..81 {
            let sq = Square::from_index(i);
            let piece = board.piece_on(sq);
            if !piece.is_empty() {
                h ^= self.piece(sq, piece);
            }
        }
        let hands = board.hands_array();
        for colour in [Color::BLACK, Color::WHITE] {
            for piece in HandPiece::iter() {
                h ^= self.hand(colour, piece, hands[colour.to_index()].count(piece));
            }
        }
        if board.turn() == Color::WHITE {
            h ^= self.white;
        }
        h
    }

    /// The hash after the legal move `mv` in `board`, whose hash is `h`: the changes of
    /// the moved piece, a captured piece, one hand count and the side to move.
    pub fn after(&self, board: &Board, h: u64, mv: Move) -> u64 {
        let us = board.turn();
        let hand = board.hands_array()[us.to_index()];
        let to = mv.to_sq();
        let mut h = h ^ self.white;
        if let Some(pt) = mv.dropped_piece() {
            let hp = HandPiece::from_piece_type(pt).expect("a dropped piece is a hand piece");
            let n = hand.count(hp);
            h ^= self.hand(us, hp, n) ^ self.hand(us, hp, n - 1);
            h ^= self.piece(to, Piece::from_parts(us, pt));
            return h;
        }
        let from = mv.from_sq();
        let moved = board.piece_on(from);
        let placed = if mv.is_promotion() {
            Piece::from_parts(us, moved.piece_type().promote())
        } else {
            moved
        };
        h ^= self.piece(from, moved) ^ self.piece(to, placed);
        let captured = board.piece_on(to);
        if !captured.is_empty() {
            h ^= self.piece(to, captured);
            let base: PieceType = captured.piece_type().demote();
            let hp = HandPiece::from_piece_type(base).expect("a captured piece goes to the hand");
            let n = hand.count(hp);
            h ^= self.hand(us, hp, n) ^ self.hand(us, hp, n + 1);
        }
        h
    }
}
