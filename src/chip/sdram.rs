//! The SDRAM controller in simulation (`sdram_top`, hdl/sdram/sdram_top.spade around
//! hdl/sdram/controller.spade) wired to the simulated SDRAM ([`super::sdram_model`]): every
//! clock cycle the controller's pins go to the SDRAM's edge and the word the SDRAM drives
//! comes back on `dq_in`; a rule the controller breaks ends the run with the SDRAM's
//! error. The driver speaks the controller's user port (a burst of 8 words a request).

use marlin::spade::prelude::*;

use crate::chip::sdram_model::{Pins, Sdram, SdramError, Timing};
use crate::chip::{Chip, clocked_model};

/// The controller with its pins as ports (`hdl/sdram/sdram_top.spade`).
#[spade(src = "hdl/sdram/sdram_top.spade", name = "sdram_top")]
pub struct SdramTop;

clocked_model!(SdramTop);

/// Bursts the controller addresses: 4 banks x 8,192 rows x 128 bursts of 8 words.
pub const BURSTS: u32 = 1 << 22;

/// The row, bank and first column of a burst address (`req_addr`).
pub fn split_address(addr: u32) -> (u16, u8, u16) {
    (
        ((addr >> 9) & 0x1fff) as u16,
        ((addr >> 7) & 3) as u8,
        ((addr & 0x7f) << 3) as u16,
    )
}

/// A request on the user port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    Read(u32),
    Write(u32, u128),
}

/// The controller beside its simulated SDRAM.
pub struct SdramBench<'ctx> {
    chip: Chip<'ctx, SdramTop<'ctx>>,
    sdram: Sdram,
    /// What the SDRAM drives on DQ until the next edge.
    dq: Option<u16>,
}

impl<'ctx> SdramBench<'ctx> {
    /// The controller (reset) and an SDRAM just powered up, to the data sheets' timings at
    /// `clock_mhz` (the board's clock: swim.toml).
    pub fn new(
        runtime: &'ctx SpadeRuntime,
        clock_mhz: f64,
        vcd: Option<&std::path::Path>,
    ) -> anyhow::Result<Self> {
        let chip = Chip::with_inputs(runtime, vcd, |m: &mut SdramTop| m.rsp_ready = 1)?;
        Ok(Self {
            chip,
            sdram: Sdram::new(&Timing::DATASHEET, clock_mhz),
            dq: None,
        })
    }

    /// The simulated SDRAM.
    pub fn sdram(&self) -> &Sdram {
        &self.sdram
    }

    /// The controller's ports.
    pub fn top(&self) -> &SdramTop<'ctx> {
        self.chip.model()
    }

    /// The controller's ports, to drive its inputs.
    pub fn top_mut(&mut self) -> &mut SdramTop<'ctx> {
        self.chip.model_mut()
    }

    /// Cycles since the controller's reset ended.
    pub fn cycles(&self) -> u64 {
        self.sdram.cycle()
    }

    /// The pins the controller drives now.
    pub fn pins(&self) -> Pins {
        let m = self.chip.model();
        Pins {
            cke: m.cke != 0,
            cs_n: m.cs_n != 0,
            ras_n: m.ras_n != 0,
            cas_n: m.cas_n != 0,
            we_n: m.we_n != 0,
            ba: m.ba,
            a: m.a,
            dqm: m.dqm,
            dq: m.dq_out,
            dq_oe: m.dq_oe != 0,
        }
    }

    /// One clock cycle: the edge for the SDRAM and the controller at once.
    pub fn step(&mut self) -> Result<(), SdramError> {
        let pins = self.pins();
        // The bus as the controller samples it at this edge (0 when nobody drives it).
        self.chip.model_mut().dq_in = self.dq.unwrap_or(0);
        let next = self.sdram.clock(&pins)?;
        self.chip.tick();
        self.dq = next;
        Ok(())
    }

    /// Cycles until the controller takes requests (the power-up sequence).
    pub fn wait_ready(&mut self, limit: u64) -> anyhow::Result<u64> {
        let mut waited = 0;
        while self.top().req_ready == 0 {
            anyhow::ensure!(waited < limit, "sdram_top not ready {limit} cycles on");
            self.step()?;
            waited += 1;
        }
        Ok(waited)
    }

    /// Run `requests` back to back, each offered from the cycle after the last was taken
    /// (or the cycle it is, with `back_to_back`: `req_valid` held high), answers taken at
    /// once: the reads' bursts in order, and the cycles the run took.
    pub fn run(
        &mut self,
        requests: &[Request],
        back_to_back: bool,
    ) -> anyhow::Result<(Vec<u128>, u64)> {
        const MAX_WAIT: u64 = 10_000;
        let start = self.cycles();
        let mut answers = Vec::new();
        let reads = requests
            .iter()
            .filter(|r| matches!(r, Request::Read(_)))
            .count();
        let mut next = 0;
        let mut idle = 0;
        while next < requests.len() || answers.len() < reads {
            let offer = requests.get(next).copied();
            let m = self.top_mut();
            m.rsp_ready = 1;
            match offer {
                Some(Request::Read(addr)) => {
                    m.req_valid = 1;
                    m.req_write = 0;
                    m.req_addr = addr;
                }
                Some(Request::Write(addr, data)) => {
                    m.req_valid = 1;
                    m.req_write = 1;
                    m.req_addr = addr;
                    m.req_data_lo = data as u64;
                    m.req_data_hi = (data >> 64) as u64;
                }
                None => m.req_valid = 0,
            }
            let taken = offer.is_some() && self.top().req_ready != 0;
            if self.top().rsp_valid != 0 {
                let m = self.top();
                answers.push(u128::from(m.rsp_data_lo) | (u128::from(m.rsp_data_hi) << 64));
            }
            self.step()?;
            idle += 1;
            if taken {
                next += 1;
                idle = 0;
                if !back_to_back {
                    // A cycle without a request (no answer can be due: a read's takes
                    // longer, and no request is taken while one waits).
                    self.top_mut().req_valid = 0;
                    self.step()?;
                }
            }
            anyhow::ensure!(
                idle < MAX_WAIT,
                "sdram_top: no progress in {MAX_WAIT} cycles (request {next} of {})",
                requests.len()
            );
        }
        self.top_mut().req_valid = 0;
        Ok((answers, self.cycles() - start))
    }

    /// Write one burst.
    pub fn write(&mut self, addr: u32, data: u128) -> anyhow::Result<()> {
        self.run(&[Request::Write(addr, data)], true).map(|_| ())
    }

    /// Read one burst.
    pub fn read(&mut self, addr: u32) -> anyhow::Result<u128> {
        let (answers, _) = self.run(&[Request::Read(addr)], true)?;
        Ok(answers[0])
    }

    /// Clock `cycles` cycles with no request.
    pub fn idle(&mut self, cycles: u64) -> Result<(), SdramError> {
        self.top_mut().req_valid = 0;
        for _ in 0..cycles {
            self.step()?;
        }
        Ok(())
    }
}
