//! The simulated chip: Verilator models of the Spade top units (built by marlin from
//! `build/spade.sv`) and drivers that speak their buses, one module a layer of `hdl/`; the
//! model they must equal is the software reference (generator) and [`crate::solver`]
//! (search).
//!
//! - this module: the Verilator runtime and [`Chip`], a top's model with its clock, bus and
//!   waveform;
//! - [`movegen`]: the move generator (`hdl/movegen/`: `cover_top`, `movegen_top`);
//! - [`link`]: the host link's protocol, its driver, and the simulated UART of `link_top`
//!   (`hdl/link/`);
//! - [`path`], [`table`], [`select`], [`expand`], [`solver`]: the search's blocks and the
//!   whole search (`hdl/search/`: `path_top`, `tt_top`, `select_top`, `expand_top`,
//!   `solver_top`);
//! - [`sdram`], [`sdram_model`]: the SDRAM controller (`hdl/sdram/`: `sdram_top`) and the
//!   simulated SDRAM it is checked against.

pub mod count;
pub mod expand;
pub mod link;
pub mod movegen;
pub mod path;
pub mod sdram;
pub mod sdram_model;
pub mod select;
pub mod solver;
pub mod table;

pub use movegen::{ChipCover, ChipMoves, CoverChip, CoverTop, MovegenChip, MovegenTop};

use std::ffi::OsString;
use std::path::Path;

use anyhow::Context;
use marlin::spade::prelude::*;
use marlin::verilator::tracing::TraceFile;
use marlin::verilator::{VerilatedModelConfig, tracing::Waveform};

use crate::bus;
use crate::position::Position;
use crate::solver::Reason;

/// The most plies left a search is started or a line walked with: the search tops' ports
/// (`solver_top`'s `root_left` and `walk_left`, the link's SEARCH and WALK) are 10 bits.
pub const MAX_LEFT: u32 = 1023;

/// `plies` on a plies-left port, or the engine's error when it is more than [`MAX_LEFT`].
pub fn left_port(plies: u32) -> Result<u16, Reason> {
    u16::try_from(plies)
        .ok()
        .filter(|&left| u32::from(left) <= MAX_LEFT)
        .ok_or_else(|| {
            Reason::Engine(format!(
                "{plies} plies left: the chip takes at most {MAX_LEFT}"
            ))
        })
}

/// A Verilator runtime for the project's Verilog.
///
/// `verilator` is the Verilator (>= 5.025) marlin runs; `verilog` the compiled Verilog of
/// `hdl/` that marlin reads, `build/spade.sv` beside the `swim.toml` at or above the
/// working directory. Both must exist: the error names the missing one and how to make it.
pub fn runtime(verilator: &Path, verilog: &Path) -> anyhow::Result<SpadeRuntime> {
    require(verilator, "Verilator")?;
    require(verilog, "compiled Verilog")?;
    // Once a process, before its first build (tests build models on parallel threads).
    static STALE_REMOVED: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    STALE_REMOVED
        .get_or_init(|| remove_stale_models(verilog).map_err(|error| format!("{error:#}")))
        .clone()
        .map_err(anyhow::Error::msg)?;
    let verilator: OsString = verilator.into();
    SpadeRuntime::new(
        SpadeRuntimeOptions::default()
            .with_inner(|options| options.verilator_executable(verilator)),
    )
    .map_err(marlin_error)
    .with_context(|| format!("building the Verilator runtime for {}", verilog.display()))
}

/// Removes every Verilator model marlin built before `verilog` last changed, so that it is
/// built again. marlin rebuilds when the Verilog is newer than the model's folder, but a
/// failed build touches that folder too, and the next run would load the older model.
fn remove_stale_models(verilog: &Path) -> anyhow::Result<()> {
    let Some(artifacts) = verilog.parent().map(|dir| dir.join("thirdparty/marlin")) else {
        return Ok(());
    };
    let Ok(entries) = std::fs::read_dir(&artifacts) else {
        return Ok(());
    };
    let changed = std::fs::metadata(verilog)
        .and_then(|meta| meta.modified())
        .with_context(|| format!("reading the time of {}", verilog.display()))?;
    for entry in entries.flatten() {
        let dir = entry.path();
        let Ok(libraries) = std::fs::read_dir(dir.join("obj_dir")) else {
            continue;
        };
        let built = libraries
            .flatten()
            .filter(|file| file.file_name().to_string_lossy().ends_with(".so"))
            .filter_map(|file| file.metadata().and_then(|meta| meta.modified()).ok())
            .max();
        if built.is_some_and(|built| built < changed) {
            std::fs::remove_dir_all(&dir)
                .with_context(|| format!("removing the stale model {}", dir.display()))?;
        }
    }
    Ok(())
}

/// An error naming a missing tool or build product and the commands that make it.
fn require(path: &Path, what: &str) -> anyhow::Result<()> {
    anyhow::ensure!(
        path.exists(),
        "{what} not found at {}: run `cargo xtask setup` (tools) or `cargo xtask hdl` \
         (Verilog) first, or use `cargo xtask test`, which does both",
        path.display()
    );
    Ok(())
}

/// marlin's error with its chain of causes (a failed Verilator build, a Verilog file other
/// than the one this binary was compiled against), each cause a link of the anyhow chain.
/// marlin's error holds causes that cannot cross threads, so they are carried as text.
pub(crate) fn marlin_error(error: VerilatorError) -> anyhow::Error {
    let mut messages = vec![error.to_string()];
    let mut source = std::error::Error::source(&error);
    while let Some(cause) = source {
        messages.push(cause.to_string());
        source = cause.source();
    }
    let mut messages = messages.into_iter().rev();
    let innermost = messages.next().unwrap_or_default();
    messages.fold(anyhow::Error::msg(innermost), |chain, outer| {
        chain.context(outer)
    })
}

/// The pins every clocked top has: clock and reset.
pub trait ClockedModel<'ctx>:
    AsVerilatedModel<'ctx> + OpenTrace<'ctx, Trace = TraceFile<'ctx>>
{
    fn set_clock(&mut self, high: bool);
    fn set_reset(&mut self, high: bool);
    fn evaluate(&mut self);
}

/// The tops with the position store's load bus.
pub trait BusModel<'ctx>: ClockedModel<'ctx> {
    fn set_load(&mut self, valid: bool, addr: u8, data: u64);
}

/// [`ClockedModel`] for a top with `clk` and `rst` ports.
macro_rules! clocked_model {
    ($top:ident) => {
        impl<'ctx> $crate::chip::ClockedModel<'ctx> for $top<'ctx> {
            fn set_clock(&mut self, high: bool) {
                self.clk = u8::from(high);
            }
            fn set_reset(&mut self, high: bool) {
                self.rst = u8::from(high);
            }
            fn evaluate(&mut self) {
                self.eval();
            }
        }
    };
}
pub(crate) use clocked_model;

/// [`ClockedModel`] and [`BusModel`] for a top with the load bus.
macro_rules! bus_model {
    ($top:ident) => {
        $crate::chip::clocked_model!($top);
        impl<'ctx> $crate::chip::BusModel<'ctx> for $top<'ctx> {
            fn set_load(&mut self, valid: bool, addr: u8, data: u64) {
                self.load_valid = u8::from(valid);
                self.load_addr = addr;
                self.load_data = data;
            }
        }
    };
}
pub(crate) use bus_model;

/// A clocked model with its cycle count and, on request, a VCD waveform.
pub struct Chip<'ctx, M> {
    model: M,
    cycles: u64,
    trace: Option<TraceFile<'ctx>>,
}

impl<'ctx, M: ClockedModel<'ctx>> Chip<'ctx, M> {
    /// Build (or reuse from marlin's cache) the model, optionally tracing every signal into
    /// the VCD file `vcd`, and reset it for two cycles.
    pub fn new(runtime: &'ctx SpadeRuntime, vcd: Option<&Path>) -> anyhow::Result<Self> {
        Self::with_inputs(runtime, vcd, |_| {})
    }

    /// Like [`new`](Self::new), with the inputs that `init` sets held through the reset.
    pub fn with_inputs(
        runtime: &'ctx SpadeRuntime,
        vcd: Option<&Path>,
        init: impl FnOnce(&mut M),
    ) -> anyhow::Result<Self> {
        let config = SpadeModelConfig::default()
            .with_inner(|c: VerilatedModelConfig| c.enable_tracing(vcd.map(|_| Waveform::Vcd)));
        let mut model = runtime
            .create_model::<M>(&config)
            .map_err(marlin_error)
            .with_context(|| format!("building the Verilator model of {}", M::name()))?;
        let trace = match vcd {
            Some(path) => Some(open_trace(&mut model, path)?),
            None => None,
        };
        init(&mut model);
        let mut chip = Self {
            model,
            cycles: 0,
            trace,
        };
        chip.model.set_reset(true);
        chip.tick();
        chip.tick();
        chip.model.set_reset(false);
        Ok(chip)
    }

    /// One clock cycle: the rising edge, then the falling edge (10 ns in the waveform).
    pub fn tick(&mut self) {
        self.model.set_clock(true);
        self.model.evaluate();
        if let Some(trace) = &mut self.trace {
            trace.dump(self.cycles * 10);
        }
        self.model.set_clock(false);
        self.model.evaluate();
        if let Some(trace) = &mut self.trace {
            trace.dump(self.cycles * 10 + 5);
        }
        self.cycles += 1;
    }

    /// Clock cycles simulated since the model was created.
    pub fn cycles(&self) -> u64 {
        self.cycles
    }

    /// The model's ports.
    pub fn model(&self) -> &M {
        &self.model
    }

    /// The model's ports, to drive its inputs.
    pub fn model_mut(&mut self) -> &mut M {
        &mut self.model
    }
}

/// Open the VCD file `path` for `model`. Verilator reports a file it cannot create only on
/// its own standard error, so the file is checked here: an error names it.
fn open_trace<'ctx, M: ClockedModel<'ctx>>(
    model: &mut M,
    path: &Path,
) -> anyhow::Result<TraceFile<'ctx>> {
    let cannot = || {
        format!(
            "cannot write the waveform to {}: give --vcd a file in a folder that exists and \
             that you may write to",
            path.display()
        )
    };
    // Created (or truncated) first, so that a stale file of an earlier run does not pass
    // the check below.
    std::fs::File::create(path).with_context(cannot)?;
    std::fs::remove_file(path).with_context(cannot)?;
    let trace = model.open_trace(path);
    anyhow::ensure!(path.is_file(), "{}", cannot());
    Ok(trace)
}

impl<'ctx, M: BusModel<'ctx>> Chip<'ctx, M> {
    /// Load a position over the bus: [`bus::LOAD_WORDS`] cycles, one word each.
    pub fn load(&mut self, pos: &Position) {
        for (addr, data) in bus::load_words(pos) {
            self.model.set_load(true, addr, data);
            self.tick();
        }
        self.model.set_load(false, 0, 0);
    }
}

impl<M> Drop for Chip<'_, M> {
    fn drop(&mut self) {
        if let Some(trace) = &mut self.trace {
            trace.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plies_left_fit_the_ports_or_are_refused() {
        assert_eq!(left_port(0), Ok(0));
        assert_eq!(left_port(MAX_LEFT), Ok(1023));
        for plies in [MAX_LEFT + 1, 65_536, u32::MAX] {
            let Err(Reason::Engine(e)) = left_port(plies) else {
                panic!("{plies} plies left taken");
            };
            assert!(e.contains(&plies.to_string()) && e.contains("1023"), "{e}");
        }
    }
}
