//! The simulated chip for xtask: build prerequisites, the Verilator runtime and the
//! chip engine of `sim`, `verify` and `bench`.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Result;
use tsume::chip::{Chip, ChipMoves, ClockedModel, MovegenChip};
use tsume::marlin::spade::SpadeRuntime;
use tsume::position::Position;

use crate::util::Stage;
use crate::{hdl, setup, toolchain};

/// A list far longer than any position has: a missing end beat is an error, not a hang.
pub const MAX_CYCLES: u64 = 4_000;

/// While alive, the process's standard output goes to standard error. marlin prints the
/// Verilator command line on stdout when it builds a model; `sim --json` keeps stdout for
/// its JSON lines.
pub struct StdoutToStderr {
    saved: i32,
}

// The one place of the workspace that needs `unsafe`: the C library's descriptor calls.
#[allow(unsafe_code)]
impl StdoutToStderr {
    pub fn new() -> Self {
        use std::io::Write;
        std::io::stdout().flush().ok();
        // SAFETY: dup/dup2 on the process's own standard descriptors; restored in drop.
        let saved = unsafe { libc::dup(1) };
        unsafe { libc::dup2(2, 1) };
        Self { saved }
    }
}

#[allow(unsafe_code)]
impl Drop for StdoutToStderr {
    fn drop(&mut self) {
        use std::io::Write;
        std::io::stdout().flush().ok();
        // SAFETY: puts back the descriptor saved in `new`.
        unsafe {
            libc::dup2(self.saved, 1);
            libc::close(self.saved);
        }
    }
}

/// Toolchain and Verilog up to date, then the Verilator runtime.
pub fn runtime() -> Result<SpadeRuntime> {
    setup::run()?;
    hdl::run(&hdl::HdlArgs {
        force: false,
        root: None,
    })?;
    tsume::chip::runtime(&toolchain::verilator(), &toolchain::spade_verilog())
}

/// Build (or take from marlin's cache) the move generator model, with a spinner; returns
/// the chip and the time it took.
pub fn open<'ctx>(
    runtime: &'ctx SpadeRuntime,
    vcd: Option<&Path>,
) -> Result<(MovegenChip<'ctx>, Duration)> {
    open_top(runtime, vcd, "movegen_top", "sim")
}

/// Build (or take from marlin's cache) the Verilator model of the top `name` (M), traced
/// into `vcd` if given, with a spinner; `command` names the xtask command in its notes.
pub fn open_top<'ctx, M: ClockedModel<'ctx>>(
    runtime: &'ctx SpadeRuntime,
    vcd: Option<&Path>,
    name: &str,
    command: &str,
) -> Result<(Chip<'ctx, M>, Duration)> {
    let stage = if vcd.is_some() {
        // marlin keeps the traced model apart from the untraced one.
        eprintln!(
            "{command}: --vcd builds a second Verilator model of {name}, with tracing: a few \
             minutes the first time and after each change of the Verilog, then reused"
        );
        Stage::start(format!("traced Verilator model of {name}"))
    } else {
        Stage::start(format!(
            "Verilator model of {name} (a minute or more when the Verilog changed)"
        ))
    };
    let start = Instant::now();
    let chip = {
        let _quiet = StdoutToStderr::new();
        Chip::<M>::new(runtime, vcd)
    };
    match chip {
        Ok(chip) => {
            let took = stage.done("ready");
            Ok((chip, took.max(start.elapsed())))
        }
        Err(error) => {
            stage.fail();
            Err(error)
        }
    }
}

/// Generate on the chip.
pub fn generate(chip: &mut MovegenChip, pos: &Position) -> Result<ChipMoves> {
    chip.generate(pos, MAX_CYCLES)
}
