//! The move generator's tops (`hdl/movegen/movegen_top.spade`) and their drivers: the
//! direct cover of a position, and its move list streamed one move a cycle.

use marlin::spade::prelude::*;

use super::{Chip, bus_model};
use crate::bus::{self, Bits81};
use crate::position::Position;
use crate::reference::{ListDifference, Mode, MoveSet, TsumeMove, check_flag_difference};

/// Position store + direct cover of both colours (`hdl/movegen/movegen_top.spade`: `cover_top`).
#[spade(src = "hdl/movegen/movegen_top.spade", name = "cover_top")]
pub struct CoverTop;

/// The move generator (`hdl/movegen/movegen_top.spade`: `movegen_top`): all checks, or all evasions
/// when the side to move is in check.
#[spade(src = "hdl/movegen/movegen_top.spade", name = "movegen_top")]
pub struct MovegenTop;

bus_model!(CoverTop);
bus_model!(MovegenTop);

/// The two cover outputs of one position, as read from the chip.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChipCover {
    /// `[black, white]`, each in [`crate::cover::Direction::ALL`] order.
    pub by_colour: [[Bits81; 10]; 2],
    /// Pawn-file registers: bit f black's pawn on file index f, bit 9 + f white's.
    pub pawn_files: u32,
    /// Clock cycles from the first load word to `cover_valid`.
    pub cycles: u64,
}

/// Driver of [`CoverTop`].
pub type CoverChip<'ctx> = Chip<'ctx, CoverTop<'ctx>>;

impl CoverChip<'_> {
    /// Read back a word of the store (combinational read port).
    pub fn read_word(&mut self, addr: u8) -> u64 {
        self.model.read_addr = addr;
        self.model.eval();
        self.model.read_data
    }

    /// Load `pos`, wait for `cover_valid` (at most `max_wait` cycles after the load) and
    /// read the cover of both colours.
    pub fn cover(&mut self, pos: &Position, max_wait: u64) -> anyhow::Result<ChipCover> {
        let start = self.cycles;
        self.load(pos);
        let mut waited = 0;
        while self.model.cover_valid == 0 {
            anyhow::ensure!(
                waited < max_wait,
                "cover_valid not raised {max_wait} cycles after the load"
            );
            self.tick();
            waited += 1;
        }
        Ok(ChipCover {
            by_colour: [
                bus::unpack_bitboards(self.model.cover_black.value()),
                bus::unpack_bitboards(self.model.cover_white.value()),
            ],
            pawn_files: self.model.pawn_files,
            cycles: self.cycles - start,
        })
    }
}

/// What the chip answered for one position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChipMoves {
    /// The moves in the order the chip sent them.
    pub moves: Vec<TsumeMove>,
    /// For each of `moves`, the beat's check flag (`out_check`): the move gives check
    /// (every check; an evasion that checks directly or by discovery).
    pub gives_check: Vec<bool>,
    /// The side to move is in check: the list holds evasions, otherwise checks.
    pub in_check: bool,
    /// Clock cycles from the position being ready in the chip (the cycle after its last
    /// load word) to the end-of-list beat.
    pub cycles: u64,
    /// Clock cycles from the position being ready to the first move (None without moves).
    pub first_move_cycles: Option<u64>,
}

impl ChipMoves {
    /// The list as a move set: evasions when the chip saw the side to move in check.
    pub fn move_set(&self) -> MoveSet {
        MoveSet {
            mode: if self.in_check {
                Mode::Evasions
            } else {
                Mode::Checks
            },
            moves: self.moves.clone(),
        }
    }

    /// How this list (the chip's for `pos`) differs from the reference's: the mode, the
    /// moves with their categories (order aside, [`MoveSet::difference`]), then every
    /// move's check flag ([`check_flag_difference`]); None when they agree.
    pub fn reference_difference(&self, pos: &Position) -> Option<ListDifference> {
        self.move_set()
            .difference(&crate::reference::tsume_moves(pos))
            .or_else(|| check_flag_difference(pos, &self.moves, &self.gives_check))
    }
}

/// Driver of [`MovegenTop`].
pub type MovegenChip<'ctx> = Chip<'ctx, MovegenTop<'ctx>>;

impl MovegenChip<'_> {
    /// Load `pos` and collect its move list, taking every beat as it comes; gives up
    /// `max_cycles` after the load.
    pub fn generate(&mut self, pos: &Position, max_cycles: u64) -> anyhow::Result<ChipMoves> {
        self.load(pos);
        self.collect(max_cycles, &mut || true)
    }

    /// Like [`generate`](Self::generate), but the consumer is only ready in the cycles
    /// where `ready()` says so (back-pressure on the stream's valid/ready handshake).
    pub fn generate_with_ready(
        &mut self,
        pos: &Position,
        max_cycles: u64,
        ready: &mut dyn FnMut() -> bool,
    ) -> anyhow::Result<ChipMoves> {
        self.load(pos);
        self.collect(max_cycles, ready)
    }

    /// Apply `mv` to the stored position with the position updater (two cycles) and collect
    /// the move list of the new position.
    pub fn apply(
        &mut self,
        mv: rsshogi::types::Move,
        max_cycles: u64,
    ) -> anyhow::Result<ChipMoves> {
        self.model.apply_valid = 1;
        self.model.apply_move = bus::encode_move(mv);
        self.tick();
        self.model.apply_valid = 0;
        self.collect(max_cycles, &mut || true)
    }

    /// Run `cycles` cycles of the list in flight, taking every beat, then leave
    /// `out_ready` low: the moves taken, and whether the end beat was among them.
    pub fn stream_for(&mut self, cycles: u64) -> (usize, bool) {
        let (mut taken, mut ended) = (0, false);
        self.model.out_ready = 1;
        for _ in 0..cycles {
            // The beat on the outputs now is taken at this edge.
            if self.model.out_valid == 1 && !ended {
                ended = self.model.out_end == 1;
                taken += usize::from(!ended);
            }
            self.tick();
        }
        self.model.out_ready = 0;
        (taken, ended)
    }

    /// Abandon the list in flight without changing the store: `cancel` high for one
    /// cycle, with `out_ready` high (a beat on the outputs in that cycle is taken). No beat
    /// follows until the next load or move applied.
    pub fn cancel(&mut self) {
        self.model.cancel = 1;
        self.model.out_ready = 1;
        self.tick();
        self.model.cancel = 0;
        self.model.out_ready = 0;
    }

    /// Read back a word of the store (combinational read port).
    pub fn read_word(&mut self, addr: u8) -> u64 {
        self.model.read_addr = addr;
        self.model.eval();
        self.model.read_data
    }

    /// Collect the list that the position now in the store starts. A beat is taken at
    /// the clock edge after it is seen with `out_ready` high; `ready()` is asked once a
    /// cycle.
    fn collect(
        &mut self,
        max_cycles: u64,
        ready: &mut dyn FnMut() -> bool,
    ) -> anyhow::Result<ChipMoves> {
        self.model.out_ready = 1;
        let mut moves = Vec::new();
        let mut gives_check = Vec::new();
        let mut first_move_cycles = None;
        for cycle in 1..=max_cycles {
            self.tick();
            let take = ready();
            self.model.out_ready = u8::from(take);
            if self.model.out_valid == 0 || !take {
                continue;
            }
            if self.model.out_end == 1 {
                return Ok(ChipMoves {
                    moves,
                    gives_check,
                    in_check: self.model.in_check == 1,
                    cycles: cycle,
                    first_move_cycles,
                });
            }
            first_move_cycles.get_or_insert(cycle);
            moves.push(TsumeMove {
                mv: bus::decode_move(self.model.out_move)?,
                category: bus::decode_category(self.model.out_category)?,
            });
            gives_check.push(self.model.out_check == 1);
        }
        anyhow::bail!(
            "no end-of-list beat within {max_cycles} cycles ({} moves so far)",
            moves.len()
        )
    }
}
