//! The position hash: 64-bit Zobrist keys over (square, piece), the counts in hand and
//! the side to move, drawn from splitmix64 so that the chip can hold the same constants
//! in a ROM and update the hash incrementally (docs/search.md, "The position hash"); and
//! the table key's rule ([`KeyRule`]: the hands and the plies left in or out of the key).
//! The chip's twin is `hdl/search/position_hash.spade`, the hash and the table key kept
//! beside the position store, over the key ROM `hdl/search/zobrist_keys.spade` that
//! `cargo xtask gen` writes from these keys ([`Keys::spade_rom`]; a test here fails when
//! the committed file differs). `tests/hw_path.rs` compares the two: the hash and the
//! table key of every position along random lines of play, moves made and taken back.

use std::sync::OnceLock;

use rsshogi::board::Position as Board;
use rsshogi::types::{Color, HandPiece, Move, Piece, PieceType, Square};

use super::hands::{self, FULL, Hand, complete_kinds};
use super::moves::Kind;
use super::pieces::Probe;

/// The seed of the key generator.
pub const SEED: u64 = 0x7473_756d_6500_0001;

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

/// The chip's key ROM (docs/search.md, "Hardware"): every key in the order it is drawn,
/// which is the ROM's address order. `board[s][c]` is at `28 * s + c`, then the hand keys
/// from [`ROM_HAND`], the side key at [`ROM_WHITE`] and the plies keys from [`ROM_PLIES`].
pub const ROM_KEYS: usize = ROM_PLIES + PLY_KEYS;
/// ROM address of `hand[0][pawn][1]`: colour by colour, piece by piece, counts from 1 up
/// ([`hand_rom_address`]).
pub const ROM_HAND: usize = 81 * PIECE_CODES;
/// Hand keys of one colour: the sum of [`FULL`], the most of each kind a side can hold.
pub const HAND_KEYS: usize = {
    let mut sum = 0;
    let mut k = 0;
    while k < FULL.len() {
        sum += FULL[k] as usize;
        k += 1;
    }
    sum
};
/// ROM address of the `white` key.
pub const ROM_WHITE: usize = ROM_HAND + 2 * HAND_KEYS;
/// ROM address of `plies[0]`.
pub const ROM_PLIES: usize = ROM_WHITE + 1;

/// The Spade source of the key ROM, generated from these keys by `cargo xtask gen`.
pub const ROM_FILE: &str = "hdl/search/zobrist_keys.spade";

/// ROM address of `hand[colour][piece][count]` (`colour` 0 black, 1 white; `piece` 0..7 in
/// [`FULL`]'s order; `count` from 1 to `FULL[piece]`).
pub fn hand_rom_address(colour: usize, piece: usize, count: usize) -> usize {
    ROM_HAND
        + colour * HAND_KEYS
        + FULL[..piece].iter().map(|&n| usize::from(n)).sum::<usize>()
        + count
        - 1
}

/// Match arms of a generated Spade table, `per_line` to a line.
fn arm_lines(arms: &[String], per_line: usize) -> String {
    arms.chunks(per_line)
        .map(|line| line.join(", "))
        .collect::<Vec<_>>()
        .join(",\n        ")
}

/// The arms of the ROM's board address by square: `s => 28 * s` (the Spade table of
/// `board_key_addr`).
fn square_bases() -> String {
    let arms: Vec<String> = (0..81)
        .map(|s| format!("{s} => {}", PIECE_CODES * s))
        .collect();
    arm_lines(&arms, 9)
}

/// The arms of the ROM's board address by the store's piece code (bit 4 the colour, bits
/// 3..0 the kind 1..14): `code => 14 * colour + kind - 1`.
fn code_offsets() -> String {
    let arms: Vec<String> = (0..2)
        .flat_map(|colour| (1..=14).map(move |kind| (colour, kind)))
        .map(|(colour, kind)| format!("{} => {}", 16 * colour + kind, 14 * colour + kind - 1))
        .collect();
    arm_lines(&arms, 7)
}

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
                for key in counts.iter_mut().take(usize::from(FULL[piece]) + 1).skip(1) {
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

    /// Every key in ROM order (see [`ROM_KEYS`]).
    pub fn rom(&self) -> Vec<u64> {
        let mut rom = Vec::with_capacity(ROM_KEYS);
        rom.extend(self.board.iter().flatten());
        for colour in &self.hand {
            for (piece, counts) in colour.iter().enumerate() {
                rom.extend(&counts[1..=usize::from(FULL[piece])]);
            }
        }
        rom.push(self.white);
        rom.extend(&self.plies);
        rom
    }

    /// The Spade source of the key ROM ([`ROM_FILE`]): the keys of [`rom`](Self::rom) in a
    /// memory with two registered read ports, the side key as a constant, and the address
    /// of a board, hand or plies key.
    pub fn spade_rom(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let addr_bits = usize::BITS - (ROM_KEYS - 1).leading_zeros();
        let hand_bases = |colour: usize| -> String {
            (0..7)
                .map(|piece| {
                    format!(
                        "{} => {}",
                        piece + 1,
                        hand_rom_address(colour, piece, 1) - 1
                    )
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = write!(
            out,
            "\
// The Zobrist keys of the position hash (docs/search.md, \"The position hash\") as a ROM.
// Generated from src/solver/position_hash.rs by `cargo xtask gen`: do not edit. The test
// `solver::position_hash::tests::rom_file_holds_the_models_keys` fails when the two differ.
//
// The {ROM_KEYS} keys of 64 bits are stored in the order they are drawn from splitmix64:
// - board[s][c] at 28 * s + c, for square s = 9 * file_index + rank_index (0..80) and piece
//   code c = 14 * colour + kind - 1 (0..27; kind 1 pawn .. 14 dragon);
// - hand[colour][p][n] from {ROM_HAND}: black then white, {HAND_KEYS} keys each, piece by piece (p = 1
//   pawn .. 7 gold), counts n = 1 .. {hand_max:?} (the key of count 0 is 0);
// - white at {ROM_WHITE};
// - plies[r] at {ROM_PLIES} + r, r = 0..{last_ply}.
//
// `key_rom` is a memory whose one write port is never enabled, read through two registered
// ports: yosys (synth_ecp5) maps it to block RAM, 15 DP16KD of the ECP5 and 128 LUT4 to
// join their outputs. Each word holds its key below a 1 in bit 64, which the reads drop:
// Spade writes a memory's initial values as unsized binary literals, which Verilator sizes
// by their digits (a key with leading zeros would be narrower than the word: warning
// WIDTHEXPAND, fatal in marlin's build); the marker makes every literal the word's width.

/// The key ROM: the keys at `addr_a` and `addr_b` one cycle later (two read ports).
/// Addresses from {ROM_KEYS} up read an undefined value.
pub entity key_rom(clk: clock, addr_a: uint<{addr_bits}>, addr_b: uint<{addr_bits}>) -> (uint<64>, uint<64>) {{
    let rom = inst std::mem::clocked_memory_init(clk, [(false, 0u{addr_bits}, 0u65)], [
",
            hand_max = FULL,
            last_ply = PLY_KEYS - 1,
        );
        for key in self.rom() {
            let _ = writeln!(out, "        0x1_{key:016x},");
        }
        let _ = write!(
            out,
            "    ]);
    reg(clk) a: uint<65> = inst std::mem::read_memory(rom, addr_a);
    reg(clk) b: uint<65> = inst std::mem::read_memory(rom, addr_b);
    (trunc(a), trunc(b))
}}

/// The key XORed into the hash when white is to move (also at ROM address {ROM_WHITE}).
pub fn white_key() -> uint<64> {{
    0x{white:016x}
}}

/// ROM address of board[sq][code], `code` a piece code of the store (bit 4 the colour,
/// bits 3..0 the kind 1..14; not 0): 28 * sq and 14 * colour + kind - 1, each from a
/// table (logic, no arithmetic), then one addition.
pub fn board_key_addr(sq: uint<7>, code: uint<5>) -> uint<{addr_bits}> {{
    let base: uint<{addr_bits}> = match sq {{
        {square_bases}, _ => 0,
    }};
    let c: uint<{addr_bits}> = match code {{
        {code_offsets}, _ => 0,
    }};
    trunc(base + c)
}}

/// ROM address of hand[colour][kind][count] (`white` the colour, `kind` 1 pawn .. 7 gold,
/// `count` from 1 to the most a side can hold): the address of count 0 from a table, then
/// one addition.
pub fn hand_key_addr(white: bool, kind: uint<3>, count: uint<5>) -> uint<{addr_bits}> {{
    let base: uint<{addr_bits}> = if white {{
        match kind {{
            {white_bases}, _ => 0,
        }}
    }} else {{
        match kind {{
            {black_bases}, _ => 0,
        }}
    }};
    let n: uint<{addr_bits}> = zext(count);
    trunc(base + n)
}}

/// ROM address of plies[left].
pub fn plies_key_addr(left: uint<10>) -> uint<{addr_bits}> {{
    let r: uint<{addr_bits}> = zext(left);
    trunc(r + {ROM_PLIES})
}}
",
            white = self.white,
            black_bases = hand_bases(0),
            white_bases = hand_bases(1),
            square_bases = square_bases(),
            code_offsets = code_offsets(),
        );
        out
    }

    /// The table key of a position with hash `hash` searched with `left` plies left.
    pub fn table_key(&self, hash: u64, left: u32) -> u64 {
        hash ^ self.plies[left as usize]
    }

    /// `hand[colour][piece][count]` (`colour` 0 black, 1 white; `piece` in [`FULL`]'s
    /// order; the key of count 0 is 0).
    pub fn hand_key(&self, colour: usize, piece: usize, count: usize) -> u64 {
        self.hand[colour][piece][count]
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

/// The table key of a node for the pieces table: its hash `hash` with both hands' keys
/// taken out and the defender's counts of the incomplete kinds put back (with
/// `hand_superiority`; else the hash as it is), and `plies[left]` unless `depth_free`.
pub struct KeyRule {
    pub hand_superiority: bool,
    pub depth_free: bool,
    pub attacker: Color,
    pub complete: [bool; 7],
}

impl KeyRule {
    /// The rule of a solve with these switches whose root is `board` as a node of
    /// `kind`: the attacker moves at its OR nodes, the complete kinds are its own.
    pub fn of(hand_superiority: bool, depth_free: bool, board: &Board, kind: Kind) -> KeyRule {
        KeyRule {
            hand_superiority,
            depth_free,
            attacker: match kind {
                Kind::Or => board.turn(),
                Kind::And => board.turn().flip(),
            },
            complete: complete_kinds(board),
        }
    }

    /// The table probe of the node `board` (position hash `hash`) with `left` plies left:
    /// its key under the rule and its attacker's hand.
    pub fn probe(&self, board: &Board, hash: u64, left: u32) -> Probe {
        let h = hands::hands(board);
        Probe {
            key: self.key(hash, &h, left),
            hand: self.attacker_hand(&h),
            left,
        }
    }

    /// The key of a node with position hash `hash`, hands `hands` (black, white) and
    /// `left` plies left.
    pub fn key(&self, hash: u64, hands: &[Hand; 2], left: u32) -> u64 {
        let keys = Keys::get();
        let mut k = hash;
        if self.hand_superiority {
            for colour in [Color::BLACK, Color::WHITE] {
                let hand = &hands[colour.to_index()];
                let defender = colour != self.attacker;
                for (p, &n) in hand.iter().enumerate() {
                    if !defender || self.complete[p] {
                        k ^= keys.hand_key(colour.to_index(), p, n as usize);
                    }
                }
            }
        }
        if !self.depth_free {
            k = keys.table_key(k, left);
        }
        k
    }

    /// Whether the attacker is white, as the chip takes the attacker's colour.
    pub fn attacker_white(&self) -> bool {
        self.attacker == Color::WHITE
    }

    /// The complete kinds as the chip takes them: bit k for hand kind k.
    pub fn complete_mask(&self) -> u8 {
        self.complete
            .iter()
            .enumerate()
            .map(|(k, &c)| u8::from(c) << k)
            .sum()
    }

    /// The attacker's hand among `hands`.
    pub fn attacker_hand(&self, hands: &[Hand; 2]) -> Hand {
        hands[self.attacker.to_index()]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rom_holds_every_key_in_the_order_drawn() {
        let keys = Keys::get();
        let rom = keys.rom();
        assert_eq!(rom.len(), 3369);
        let mut state = SEED;
        for (address, key) in rom.iter().enumerate() {
            assert_eq!(*key, splitmix64(&mut state), "ROM address {address}");
        }
        assert_eq!(rom[ROM_WHITE], keys.white);
        assert_eq!(rom[ROM_PLIES + 5], keys.plies[5]);
        assert_eq!(rom[28 * 40 + 14 + 7], keys.board[40][21]);
        for colour in 0..2 {
            for (piece, &most) in FULL.iter().enumerate() {
                for count in 1..=usize::from(most) {
                    assert_eq!(
                        rom[hand_rom_address(colour, piece, count)],
                        keys.hand[colour][piece][count]
                    );
                }
            }
        }
    }

    #[test]
    fn rom_file_holds_the_models_keys() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(ROM_FILE);
        let committed = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        assert!(
            committed == Keys::get().spade_rom(),
            "{ROM_FILE} is not the ROM of src/solver/position_hash.rs: run `cargo xtask gen` and \
             commit the file"
        );
    }
}
