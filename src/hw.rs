//! The simulated chip: Verilator models of the Spade top units (built by marlin from
//! `build/spade.sv`) and drivers that speak their buses.

use std::ffi::OsString;

use anyhow::{Context, anyhow};
use marlin::spade::prelude::*;

use crate::bus::{self, Bits81};
use crate::position::Position;
use crate::toolchain;

/// Position store + direct cover of both colours (`hdl/tops.spade`).
#[spade(src = "hdl/tops.spade", name = "cover_top")]
pub struct CoverTop;

/// A Verilator runtime for the project's Verilog, using the pinned Verilator that
/// `cargo xtask setup` installs. `waveforms` enables VCD tracing in the models it builds.
pub fn runtime() -> anyhow::Result<SpadeRuntime> {
    let verilator = toolchain::verilator();
    toolchain::require(&verilator, "Verilator")?;
    toolchain::require(&toolchain::spade_verilog(), "compiled Verilog (build/spade.sv)")?;
    let verilator: OsString = verilator.into();
    SpadeRuntime::new(
        SpadeRuntimeOptions::default()
            .with_inner(|options| options.verilator_executable(verilator)),
    )
    .map_err(|error| anyhow!("{error}"))
    .context("building the Verilator runtime for build/spade.sv")
}

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

/// Driver of [`CoverTop`]: loads positions over the bus and reads the cover.
pub struct CoverChip<'ctx> {
    model: CoverTop<'ctx>,
    cycles: u64,
}

impl<'ctx> CoverChip<'ctx> {
    /// Build (or reuse from the cache) the model and reset it.
    pub fn new(runtime: &'ctx SpadeRuntime) -> anyhow::Result<Self> {
        let model = runtime
            .create_model_simple::<CoverTop>()
            .map_err(|error| anyhow!("{error}"))
            .context("building the Verilator model of cover_top")?;
        let mut chip = Self { model, cycles: 0 };
        chip.model.rst = 1;
        chip.tick();
        chip.tick();
        chip.model.rst = 0;
        Ok(chip)
    }

    /// One clock cycle: a rising edge, then the falling edge.
    pub fn tick(&mut self) {
        self.model.clk = 1;
        self.model.eval();
        self.model.clk = 0;
        self.model.eval();
        self.cycles += 1;
    }

    /// Clock cycles simulated since the model was created.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// Write one word on the load bus (one cycle).
    pub fn write_word(&mut self, addr: u8, data: u64) {
        self.model.load_valid = 1;
        self.model.load_addr = addr;
        self.model.load_data = data;
        self.tick();
        self.model.load_valid = 0;
    }

    /// Load a position: [`bus::LOAD_WORDS`] cycles.
    pub fn load(&mut self, pos: &Position) {
        for (addr, data) in bus::load_words(pos) {
            self.write_word(addr, data);
        }
    }

    /// Read back a word of the store (combinational read port).
    pub fn read_word(&mut self, addr: u8) -> u64 {
        self.model.read_addr = addr;
        self.model.eval();
        self.model.read_data
    }

    /// Whether the store holds a complete position.
    pub fn ready(&self) -> bool {
        self.model.ready == 1
    }

    /// Load `pos`, wait for `cover_valid` (at most `max_wait` cycles after the load) and
    /// read the cover of both colours.
    pub fn cover(&mut self, pos: &Position, max_wait: u64) -> anyhow::Result<ChipCover> {
        let start = self.cycles;
        self.load(pos);
        let mut waited = 0;
        while self.model.cover_valid == 0 {
            anyhow::ensure!(waited < max_wait, "cover_valid not raised {max_wait} cycles after the load");
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

/// The check processor (`hdl/tops.spade`: `check_top`).
#[spade(src = "hdl/tops.spade", name = "check_top")]
pub struct CheckTop;

/// What the chip answered for one position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChipMoves {
    /// The moves in the order the chip sent them.
    pub moves: Vec<crate::reference::TsumeMove>,
    /// The side to move is in check (the chip's list is then not the answer).
    pub in_check: bool,
    /// Clock cycles from the position being ready in the chip (the cycle after its last
    /// load word) to the end-of-list beat.
    pub cycles: u64,
    /// Clock cycles from the position being ready to the first move (None without moves).
    pub first_move_cycles: Option<u64>,
}

/// Driver of [`CheckTop`].
pub struct CheckChip<'ctx> {
    model: CheckTop<'ctx>,
    cycles: u64,
}

impl<'ctx> CheckChip<'ctx> {
    /// Build (or reuse from the cache) the model and reset it.
    pub fn new(runtime: &'ctx SpadeRuntime) -> anyhow::Result<Self> {
        let model = runtime
            .create_model_simple::<CheckTop>()
            .map_err(|error| anyhow!("{error}"))
            .context("building the Verilator model of check_top")?;
        let mut chip = Self { model, cycles: 0 };
        chip.model.rst = 1;
        chip.tick();
        chip.tick();
        chip.model.rst = 0;
        chip.model.out_ready = 1;
        Ok(chip)
    }

    fn tick(&mut self) {
        self.model.clk = 1;
        self.model.eval();
        self.model.clk = 0;
        self.model.eval();
        self.cycles += 1;
    }

    /// Clock cycles simulated since the model was created.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// Load `pos` and collect the move list, giving up `max_cycles` after the load.
    pub fn generate(&mut self, pos: &Position, max_cycles: u64) -> anyhow::Result<ChipMoves> {
        for (addr, data) in bus::load_words(pos) {
            self.model.load_valid = 1;
            self.model.load_addr = addr;
            self.model.load_data = data;
            self.tick();
        }
        self.model.load_valid = 0;
        let mut moves = Vec::new();
        let mut first_move_cycles = None;
        for cycle in 1..=max_cycles {
            self.tick();
            if self.model.out_valid == 0 {
                continue;
            }
            if self.model.out_end == 1 {
                return Ok(ChipMoves {
                    moves,
                    in_check: self.model.in_check == 1,
                    cycles: cycle,
                    first_move_cycles,
                });
            }
            first_move_cycles.get_or_insert(cycle);
            moves.push(crate::reference::TsumeMove {
                mv: bus::decode_move(self.model.out_move)?,
                category: bus::decode_category(self.model.out_category)?,
            });
        }
        anyhow::bail!("no end-of-list beat within {max_cycles} cycles ({} moves so far)", moves.len())
    }
}
