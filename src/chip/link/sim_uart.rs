//! The simulated chip behind its serial port: `link_top` (the generator) or
//! `solver_link_top` (the search) in Verilator, driven bit by bit by a model of the host's
//! UART, as a [`Transport`].

use std::collections::VecDeque;
use std::path::Path;
use std::time::Duration;

use marlin::spade::prelude::*;

use super::driver::Transport;
use super::protocol::LinkError;
use crate::chip::{Chip, ClockedModel, clocked_model};

/// The move generator behind the host link (`hdl/link/link_top.spade`: `link_top`).
#[spade(src = "hdl/link/link_top.spade", name = "link_top")]
pub struct LinkTop;

/// The search behind the host link, the board's chip (`hdl/link/solver_link_top.spade`:
/// `solver_link_top`).
#[spade(src = "hdl/link/solver_link_top.spade", name = "solver_link_top")]
pub struct SolverLinkTop;

/// A top with the host link's ports: `rx`, `tx`, `clocks_per_bit`, `timeout_bits`, `leds`.
pub trait UartModel<'ctx>: ClockedModel<'ctx> {
    fn set_line(&mut self, rx: bool);
    fn set_timing(&mut self, clocks_per_bit: u16, timeout_bits: u16);
    fn line(&self) -> bool;
    fn leds(&self) -> u8;
}

macro_rules! uart_model {
    ($top:ident) => {
        clocked_model!($top);
        impl<'ctx> UartModel<'ctx> for $top<'ctx> {
            fn set_line(&mut self, rx: bool) {
                self.rx = u8::from(rx);
            }
            fn set_timing(&mut self, clocks_per_bit: u16, timeout_bits: u16) {
                self.clocks_per_bit = clocks_per_bit;
                self.timeout_bits = timeout_bits;
            }
            fn line(&self) -> bool {
                self.tx == 1
            }
            fn leds(&self) -> u8 {
                self.leds
            }
        }
    };
}

uart_model!(LinkTop);
uart_model!(SolverLinkTop);

/// Settings of the simulated link.
#[derive(Debug, Clone, Copy)]
pub struct SimConfig {
    /// Bit time in clock cycles, for the chip and the host model alike (at least 4).
    pub clocks_per_bit: u16,
    /// The chip's frame timeout in bit times.
    pub timeout_bits: u16,
    /// The clock frequency the simulation stands for, to turn [`Transport`] durations into
    /// cycles and back.
    pub clock_hz: f64,
}

impl SimConfig {
    /// The simulation's usual settings for a chip clocked at `clock_mhz`: 8 clocks per bit
    /// and a frame timeout of 64 bit times, short bits that keep the simulation fast.
    pub fn at_mhz(clock_mhz: f64) -> SimConfig {
        SimConfig {
            clocks_per_bit: 8,
            timeout_bits: 64,
            clock_hz: clock_mhz * 1e6,
        }
    }
}

/// The host's UART transmitter in the model: one bit per `clocks_per_bit` cycles.
#[derive(Debug, Default)]
struct HostTx {
    /// Bit patterns still to send, least significant bit first, with their length.
    queue: VecDeque<(u32, u32)>,
    /// The pattern on the wire: (bits, bits left, cycles left in this bit).
    current: Option<(u32, u32, u32)>,
}

/// The host's UART receiver: samples the chip's `tx` in the middle of each bit.
#[derive(Debug, Default)]
struct HostRx {
    /// Cycles until the next sample, and the bit index it is for (0 start, 1..=8 data,
    /// 9 stop); None while waiting for a start bit.
    sampling: Option<(u32, u32)>,
    data: u8,
}

/// The simulated chip behind its UART: drives `rx` bit by bit, samples `tx` mid-bit, and
/// is a [`Transport`]. Every call that waits ticks the clock, sending and receiving at once.
pub struct SimUart<'ctx, M = LinkTop<'ctx>> {
    chip: Chip<'ctx, M>,
    config: SimConfig,
    host_tx: HostTx,
    host_rx: HostRx,
    received: VecDeque<u8>,
    /// Bytes from the chip whose stop bit was low.
    pub framing_errors: u64,
}

impl<'ctx, M: UartModel<'ctx>> SimUart<'ctx, M> {
    /// Build (or reuse from marlin's cache) the model of the top, optionally tracing into
    /// the VCD file `vcd`, reset it for two cycles with the line idle, then wait until the
    /// chip's receiver is armed.
    pub fn new(
        runtime: &'ctx SpadeRuntime,
        config: SimConfig,
        vcd: Option<&Path>,
    ) -> anyhow::Result<Self> {
        anyhow::ensure!(
            config.clocks_per_bit >= 4,
            "clocks_per_bit must be at least 4"
        );
        anyhow::ensure!(
            config.clock_hz > 0.0 && config.clock_hz.is_finite(),
            "the clock of the simulated link must be a positive frequency, not {} Hz",
            config.clock_hz
        );
        let chip = Chip::with_inputs(runtime, vcd, |model: &mut M| {
            model.set_line(true);
            model.set_timing(config.clocks_per_bit, config.timeout_bits);
        })?;
        let mut sim = SimUart {
            chip,
            config,
            host_tx: HostTx::default(),
            host_rx: HostRx::default(),
            received: VecDeque::new(),
            framing_errors: 0,
        };
        // The chip's receiver arms after ten bit times of idle line.
        sim.run(12 * u64::from(config.clocks_per_bit));
        Ok(sim)
    }

    pub fn config(&self) -> SimConfig {
        self.config
    }

    /// Clock cycles simulated so far.
    pub fn cycles(&self) -> u64 {
        self.chip.cycles()
    }

    /// The LED outputs.
    pub fn leds(&self) -> u8 {
        self.chip.model().leds()
    }

    /// Drive the reset input (it stays so until changed; the host keeps sending).
    pub fn set_reset(&mut self, high: bool) {
        self.chip.model_mut().set_reset(high);
    }

    /// Queue bytes for the host's transmitter without waiting.
    pub fn queue(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            // Start bit 0, data, stop bit 1.
            self.host_tx
                .queue
                .push_back(((u32::from(byte) << 1) | 1 << 9, 10));
        }
    }

    /// Queue a byte whose stop bit is low (a framing error), followed by one bit time of
    /// idle line.
    pub fn queue_bad_stop(&mut self, byte: u8) {
        self.host_tx
            .queue
            .push_back(((u32::from(byte) << 1) | 1 << 10, 11));
    }

    /// Tick until the host's transmitter has sent everything queued (what the chip sends
    /// meanwhile is received).
    pub fn flush(&mut self) {
        while !self.host_idle() {
            self.tick();
        }
    }

    /// Whether the host's transmitter has sent everything queued.
    pub fn host_idle(&self) -> bool {
        self.host_tx.current.is_none() && self.host_tx.queue.is_empty()
    }

    /// Bytes received from the chip and not yet taken.
    pub fn pending(&self) -> usize {
        self.received.len()
    }

    /// Clock cycles standing for `d`.
    pub fn cycles_for(&self, d: Duration) -> u64 {
        (d.as_secs_f64() * self.config.clock_hz).ceil() as u64
    }

    /// `n` clock cycles.
    pub fn run(&mut self, n: u64) {
        for _ in 0..n {
            self.tick();
        }
    }

    /// One clock cycle: the host's line for this cycle, the rising and falling edge, then
    /// the host samples the chip's line.
    pub fn tick(&mut self) {
        let cpb = u32::from(self.config.clocks_per_bit);
        // Host transmitter.
        if self.host_tx.current.is_none() {
            self.host_tx.current = self
                .host_tx
                .queue
                .pop_front()
                .map(|(bits, n)| (bits, n, cpb));
        }
        let line = match self.host_tx.current {
            Some((bits, _, _)) => bits & 1 == 1,
            None => true,
        };
        self.chip.model_mut().set_line(line);
        if let Some((bits, n, left)) = self.host_tx.current {
            self.host_tx.current = if left > 1 {
                Some((bits, n, left - 1))
            } else if n > 1 {
                Some((bits >> 1, n - 1, cpb))
            } else {
                None
            };
        }

        self.chip.tick();

        // Host receiver.
        let tx = self.chip.model().line();
        match self.host_rx.sampling {
            None => {
                if !tx {
                    // Falling edge of a start bit: its middle is half a bit time on.
                    self.host_rx.sampling = Some((cpb / 2, 0));
                }
            }
            Some((left, bit)) if left > 1 => self.host_rx.sampling = Some((left - 1, bit)),
            Some((_, bit)) => {
                self.host_rx.sampling = match bit {
                    // A start bit that is high again was a glitch.
                    0 if tx => None,
                    0 => {
                        self.host_rx.data = 0;
                        Some((cpb, 1))
                    }
                    1..=8 => {
                        self.host_rx.data |= u8::from(tx) << (bit - 1);
                        Some((cpb, bit + 1))
                    }
                    _ => {
                        if tx {
                            self.received.push_back(self.host_rx.data);
                        } else {
                            self.framing_errors += 1;
                        }
                        None
                    }
                };
            }
        }
    }
}

impl<'ctx, M: UartModel<'ctx>> Transport for SimUart<'ctx, M> {
    fn send(&mut self, bytes: &[u8]) -> Result<(), LinkError> {
        self.queue(bytes);
        self.flush();
        Ok(())
    }

    fn receive(&mut self, timeout: Duration) -> Result<Option<u8>, LinkError> {
        let limit = self.cycles() + self.cycles_for(timeout);
        while self.received.is_empty() && self.cycles() < limit {
            self.tick();
        }
        Ok(self.received.pop_front())
    }

    fn bit_time(&self) -> Duration {
        Duration::from_secs_f64(f64::from(self.config.clocks_per_bit) / self.config.clock_hz)
    }
}
