//! The search path's position on chip (`hdl/search/path_top.spade`: `path_top`): the position
//! store with its updater, which applies a move and takes it back, and the position hash
//! beside it (`hdl/search/position_hash.spade`), and the driver that walks lines of play
//! on it.

use marlin::spade::prelude::*;

use crate::bus;
use crate::chip::{Chip, bus_model};
use crate::position::Position;
use crate::solver::position_hash::KeyRule;

/// The position store with apply and undo, and the position hash (`path_top`).
#[spade(src = "hdl/search/path_top.spade", name = "path_top")]
pub struct PathTop;

bus_model!(PathTop);

/// Driver of [`PathTop`].
pub type PathChip<'ctx> = Chip<'ctx, PathTop<'ctx>>;

/// A move applied on chip: its undo record and the cycles it took.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Applied {
    /// The undo record: the code of the piece the move captured (0 for none), as the chip
    /// gave it; [`PathChip::undo`] takes it back.
    pub captured: u8,
    /// Cycles from the request to the new hash (`hash_valid`).
    pub cycles: u64,
}

impl PathChip<'_> {
    /// Load `pos` over the bus and wait for its hash (at most `max_cycles` after the last
    /// load word): the cycles from the hands word (the load's last) to `hash_valid`.
    pub fn load_hashed(&mut self, pos: &Position, max_cycles: u64) -> anyhow::Result<u64> {
        self.load(pos);
        // The hands word was written at the last edge: count from that cycle.
        self.wait_hash(max_cycles, 1)
    }

    /// Apply `mv` (legal in the stored position): `apply_valid` for one cycle, then wait for
    /// the new hash.
    pub fn apply(&mut self, mv: rsshogi::types::Move, max_cycles: u64) -> anyhow::Result<Applied> {
        let model = self.model_mut();
        model.apply_valid = 1;
        model.apply_move = bus::encode_move(mv);
        self.tick();
        let model = self.model_mut();
        model.apply_valid = 0;
        let captured = model.captured;
        let cycles = self.wait_hash(max_cycles, 1)?;
        Ok(Applied { captured, cycles })
    }

    /// Take back `mv`, the last move applied, with its undo record `captured`: `undo_valid`
    /// for one cycle, then wait for the hash; the cycles from the request to `hash_valid`.
    pub fn undo(
        &mut self,
        mv: rsshogi::types::Move,
        captured: u8,
        max_cycles: u64,
    ) -> anyhow::Result<u64> {
        let model = self.model_mut();
        model.undo_valid = 1;
        model.undo_move = bus::encode_move(mv);
        model.undo_captured = captured;
        self.tick();
        let model = self.model_mut();
        model.undo_valid = 0;
        model.undo_move = 0;
        model.undo_captured = 0;
        self.wait_hash(max_cycles, 1)
    }

    /// The table key's rule from the next load on: the model's `KeyRule` without its plies
    /// (with hand superiority the hand keys go but the defender's counts of the kinds that
    /// are not `complete`; without it the table key is the hash).
    pub fn set_key_rule(&mut self, rule: &KeyRule) {
        let m = self.model_mut();
        m.hand_superiority = u8::from(rule.hand_superiority);
        m.attacker_white = u8::from(rule.attacker_white());
        m.complete = rule.complete_mask();
    }

    /// The table key register (meaningful while [`hash_valid`](Self::hash_valid)).
    pub fn table_key(&self) -> u64 {
        self.model().table_key
    }

    /// The hash register (meaningful while [`hash_valid`](Self::hash_valid)).
    pub fn hash(&self) -> u64 {
        self.model().hash
    }

    /// Whether the hash register holds the hash of the stored position.
    pub fn hash_valid(&self) -> bool {
        self.model().hash_valid == 1
    }

    /// Whether the store holds a complete position.
    pub fn ready(&self) -> bool {
        self.model().ready == 1
    }

    /// The store's pawn-file registers: bit f black's pawn on file index f, 9 + f white's.
    pub fn pawn_files(&self) -> u32 {
        self.model().pawn_files
    }

    /// Read back a word of the store (combinational read port).
    pub fn read_word(&mut self, addr: u8) -> u64 {
        let model = self.model_mut();
        model.read_addr = addr;
        model.eval();
        model.read_data
    }

    /// The whole store in load-bus words, as [`bus::load_words`] gives a position.
    pub fn store_words(&mut self) -> [(u8, u64); bus::LOAD_WORDS] {
        std::array::from_fn(|i| {
            let addr = if i < bus::LOAD_WORDS - 1 {
                i as u8
            } else {
                bus::HANDS_ADDR
            };
            (addr, self.read_word(addr))
        })
    }

    /// Tick until `hash_valid`, at most `max_cycles` cycles: the cycles since the request,
    /// `done` of which have already passed.
    fn wait_hash(&mut self, max_cycles: u64, done: u64) -> anyhow::Result<u64> {
        let mut cycles = done;
        while !self.hash_valid() {
            anyhow::ensure!(
                cycles < max_cycles,
                "hash_valid not raised {max_cycles} cycles after the request"
            );
            self.tick();
            cycles += 1;
        }
        Ok(cycles)
    }
}

/// The pawn-file registers a position has: bit f black's unpromoted pawn on file index f,
/// bit 9 + f white's.
pub fn pawn_files(pos: &Position) -> u32 {
    use rsshogi::types::{Color, File};
    let mut files = 0;
    for f in 0..9u8 {
        let file = File::new(f as i8);
        files |= u32::from(pos.pawn_on_file(Color::Black, file)) << f;
        files |= u32::from(pos.pawn_on_file(Color::White, file)) << (9 + f);
    }
    files
}
