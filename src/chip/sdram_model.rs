//! A simulated SDR SDRAM: the ULX3S's x16 chip (AS4C32M16SB or MT48LC32M16: 4 banks of
//! 8,192 rows of 1,024 columns of 16 bits), clocked once a cycle with the pins a controller
//! drives, cycle accurate to the data sheets' timings (docs/sdram.md).
//!
//! [`Sdram::clock`] is one rising edge: it takes the command and the write data on the
//! pins, and returns what the chip drives on DQ until the next edge (a read's word `i` is
//! driven after edge `READ + CL - 1 + i`, so that the controller samples it at edge
//! `READ + CL + i`). It keeps the words written (by bank, row and column) and fails with a
//! [`SdramError`] naming the rule a command breaks: a command during the power-up wait, a
//! row used before the power-up sequence ended or the mode was loaded, tRCD, tRAS, tRP,
//! tRC, tRRD, tWR, tRFC, tMRD, a READ or WRITE to a bank with no open row, an ACTIVATE to
//! a bank with a row open, a REFRESH or LOAD MODE with a row open, a refresh missed (more
//! than [`Timing::max_postponed`] refresh intervals behind), a controller driving DQ
//! while the chip does, write data not driven.
//!
//! Not modelled (each refused with [`Rule::Unsupported`]): auto precharge (A10 with READ or
//! WRITE), CKE low after power-up (power-down, self refresh), single-word write bursts
//! (mode A9), interleaved bursts, full-page bursts. DQM masks written bytes; reads ignore
//! it. A READ or WRITE to the wrong row of an open bank cannot be seen on the pins: the
//! tests find it as a word read back that is not the one written.

use std::collections::{HashMap, VecDeque};
use std::fmt;

/// Banks, rows a bank, columns a row.
pub const BANKS: usize = 4;
pub const ROWS: u32 = 8192;
pub const COLUMNS: u32 = 1024;

/// The data sheets' timings, in nanoseconds (the worst of the AS4C32M16SB-7 and the
/// MT48LC32M16A2-75), and the refresh rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// The wait with NOPs before the first command (AS4C: 200 us; Micron: 100 us).
    pub power_up_ns: f64,
    /// ACTIVATE to READ or WRITE.
    pub t_rcd_ns: f64,
    /// PRECHARGE to ACTIVATE, REFRESH or LOAD MODE.
    pub t_rp_ns: f64,
    /// ACTIVATE to PRECHARGE (the least).
    pub t_ras_ns: f64,
    /// ACTIVATE to ACTIVATE, one bank.
    pub t_rc_ns: f64,
    /// ACTIVATE to ACTIVATE, two banks.
    pub t_rrd_ns: f64,
    /// AUTO REFRESH to any command.
    pub t_rfc_ns: f64,
    /// The last word written to PRECHARGE: at least `t_wr_ns` and `t_wr_min_cycles`.
    pub t_wr_ns: f64,
    pub t_wr_min_cycles: u64,
    /// LOAD MODE REGISTER to any command, in clock cycles.
    pub t_mrd_cycles: u64,
    /// AUTO REFRESH commands the power-up sequence needs.
    pub init_refreshes: u32,
    /// One refresh this often: 64 ms over 8,192 rows.
    pub refresh_interval_ns: f64,
    /// Refreshes that may be postponed (both data sheets: 8).
    pub max_postponed: u64,
}

impl Timing {
    /// The ULX3S's chip: the worst of both parts' figures.
    pub const DATASHEET: Timing = Timing {
        power_up_ns: 200_000.0,
        t_rcd_ns: 21.0,
        t_rp_ns: 21.0,
        t_ras_ns: 44.0,
        t_rc_ns: 66.0,
        t_rrd_ns: 15.0,
        t_rfc_ns: 66.0,
        // Micron -75: 1 clock + 7.5 ns; AS4C: 2 clocks.
        t_wr_ns: 15.0,
        t_wr_min_cycles: 2,
        t_mrd_cycles: 2,
        init_refreshes: 2,
        refresh_interval_ns: 64e6 / 8192.0,
        max_postponed: 8,
    };

    /// The timings in whole cycles of a clock of `clock_mhz`.
    pub fn at_mhz(&self, clock_mhz: f64) -> Cycles {
        let period = 1000.0 / clock_mhz;
        // A small tolerance so that an exact multiple is not rounded up by float noise.
        let up = |ns: f64| ((ns / period) - 1e-9).ceil().max(1.0) as u64;
        Cycles {
            power_up: up(self.power_up_ns),
            rcd: up(self.t_rcd_ns),
            rp: up(self.t_rp_ns),
            ras: up(self.t_ras_ns),
            rc: up(self.t_rc_ns),
            rrd: up(self.t_rrd_ns),
            rfc: up(self.t_rfc_ns),
            wr: up(self.t_wr_ns).max(self.t_wr_min_cycles),
            mrd: self.t_mrd_cycles,
            init_refreshes: self.init_refreshes,
            // The interval rounds down: refreshes are owed no later than the data sheet's.
            refresh_interval: (self.refresh_interval_ns / period).floor() as u64,
            max_postponed: self.max_postponed,
        }
    }
}

/// The timings in clock cycles (see [`Timing`] for each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cycles {
    pub power_up: u64,
    pub rcd: u64,
    pub rp: u64,
    pub ras: u64,
    pub rc: u64,
    pub rrd: u64,
    pub rfc: u64,
    pub wr: u64,
    pub mrd: u64,
    pub init_refreshes: u32,
    pub refresh_interval: u64,
    pub max_postponed: u64,
}

/// The pins at one rising edge, as the controller drives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pins {
    pub cke: bool,
    pub cs_n: bool,
    pub ras_n: bool,
    pub cas_n: bool,
    pub we_n: bool,
    pub ba: u8,
    pub a: u16,
    pub dqm: u8,
    /// The controller's DQ, driven when `dq_oe`.
    pub dq: u16,
    pub dq_oe: bool,
}

impl Pins {
    /// A NOP with CKE high, DQM low, the bus released.
    pub fn nop() -> Pins {
        Pins {
            cke: true,
            cs_n: false,
            ras_n: true,
            cas_n: true,
            we_n: true,
            ..Pins::default()
        }
    }

    fn with(ras_n: bool, cas_n: bool, we_n: bool, ba: u8, a: u16) -> Pins {
        Pins {
            ras_n,
            cas_n,
            we_n,
            ba,
            a,
            ..Pins::nop()
        }
    }

    pub fn activate(bank: u8, row: u16) -> Pins {
        Pins::with(false, true, true, bank, row)
    }

    pub fn read(bank: u8, column: u16) -> Pins {
        Pins::with(true, false, true, bank, column)
    }

    /// A WRITE with its first word on DQ.
    pub fn write(bank: u8, column: u16, word: u16) -> Pins {
        Pins {
            dq: word,
            dq_oe: true,
            ..Pins::with(true, false, false, bank, column)
        }
    }

    /// A NOP with a write burst's next word on DQ.
    pub fn data(word: u16) -> Pins {
        Pins {
            dq: word,
            dq_oe: true,
            ..Pins::nop()
        }
    }

    pub fn precharge(bank: u8) -> Pins {
        Pins::with(false, true, false, bank, 0)
    }

    pub fn precharge_all() -> Pins {
        Pins::with(false, true, false, 0, 1 << 10)
    }

    pub fn refresh() -> Pins {
        Pins::with(false, false, true, 0, 0)
    }

    pub fn load_mode(mode: u16) -> Pins {
        Pins::with(false, false, false, 0, mode)
    }

    /// The command these pins give.
    pub fn command(&self) -> Command {
        if self.cs_n {
            return Command::Inhibit;
        }
        let bank = self.ba & 3;
        let auto_precharge = self.a & (1 << 10) != 0;
        match (self.ras_n, self.cas_n, self.we_n) {
            (true, true, true) => Command::Nop,
            (false, true, true) => Command::Activate {
                bank,
                row: self.a & 0x1fff,
            },
            (true, false, true) => Command::Read {
                bank,
                column: self.a & 0x3ff,
                auto_precharge,
            },
            (true, false, false) => Command::Write {
                bank,
                column: self.a & 0x3ff,
                auto_precharge,
            },
            (true, true, false) => Command::BurstTerminate,
            (false, true, false) => Command::Precharge {
                bank: (!auto_precharge).then_some(bank),
            },
            (false, false, true) => Command::Refresh,
            (false, false, false) => Command::LoadMode(self.a & 0x1fff),
        }
    }
}

/// An SDRAM command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Inhibit,
    Nop,
    Activate {
        bank: u8,
        row: u16,
    },
    Read {
        bank: u8,
        column: u16,
        auto_precharge: bool,
    },
    Write {
        bank: u8,
        column: u16,
        auto_precharge: bool,
    },
    BurstTerminate,
    /// One bank, or all (`None`, A10 high).
    Precharge {
        bank: Option<u8>,
    },
    Refresh,
    LoadMode(u16),
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Command::Inhibit => write!(f, "INHIBIT"),
            Command::Nop => write!(f, "NOP"),
            Command::Activate { bank, row } => write!(f, "ACTIVATE bank {bank} row {row}"),
            Command::Read { bank, column, .. } => write!(f, "READ bank {bank} column {column}"),
            Command::Write { bank, column, .. } => {
                write!(f, "WRITE bank {bank} column {column}")
            }
            Command::BurstTerminate => write!(f, "BURST TERMINATE"),
            Command::Precharge { bank: Some(bank) } => write!(f, "PRECHARGE bank {bank}"),
            Command::Precharge { bank: None } => write!(f, "PRECHARGE ALL"),
            Command::Refresh => write!(f, "AUTO REFRESH"),
            Command::LoadMode(mode) => write!(f, "LOAD MODE REGISTER {mode:#05x}"),
        }
    }
}

/// The rule a command broke.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Rule {
    #[error(
        "power-up: a command {waited} cycles after power-up, before the {needed}-cycle wait ended"
    )]
    PowerUpWait { waited: u64, needed: u64 },
    #[error("power-up: the banks were not precharged (PRECHARGE ALL comes first after the wait)")]
    NotPrecharged,
    #[error(
        "power-up: {done} of the {needed} AUTO REFRESH of the power-up sequence before a row was used"
    )]
    InitRefreshes { done: u32, needed: u32 },
    #[error("mode register not loaded before a row was used")]
    ModeNotLoaded,
    #[error(
        "mode register {0:#05x} not supported (burst 1, 2, 4 or 8, sequential, CAS latency 2 or 3, A9 = 0)"
    )]
    BadMode(u16),
    #[error("tRCD: READ or WRITE {waited} cycles after ACTIVATE of bank {bank}, needs {needed}")]
    Trcd { bank: u8, waited: u64, needed: u64 },
    #[error("tRAS: PRECHARGE {waited} cycles after ACTIVATE of bank {bank}, needs {needed}")]
    Tras { bank: u8, waited: u64, needed: u64 },
    #[error("tRP: a command {waited} cycles after PRECHARGE of bank {bank}, needs {needed}")]
    Trp { bank: u8, waited: u64, needed: u64 },
    #[error("tRC: ACTIVATE {waited} cycles after ACTIVATE of bank {bank}, needs {needed}")]
    Trc { bank: u8, waited: u64, needed: u64 },
    #[error("tRRD: ACTIVATE {waited} cycles after ACTIVATE of another bank, needs {needed}")]
    Trrd { waited: u64, needed: u64 },
    #[error(
        "tWR: PRECHARGE of bank {bank} {waited} cycles after its last word written, needs {needed}"
    )]
    Twr { bank: u8, waited: i64, needed: u64 },
    #[error("tRFC: a command {waited} cycles after AUTO REFRESH, needs {needed}")]
    Trfc { waited: u64, needed: u64 },
    #[error("tMRD: a command {waited} cycles after LOAD MODE REGISTER, needs {needed}")]
    Tmrd { waited: u64, needed: u64 },
    #[error("READ or WRITE to bank {bank}, which has no open row")]
    NoOpenRow { bank: u8 },
    #[error("ACTIVATE of bank {bank}, which has row {row} open")]
    RowOpen { bank: u8, row: u16 },
    #[error("AUTO REFRESH with bank {bank} open (row {row})")]
    RefreshWithBankOpen { bank: u8, row: u16 },
    #[error("LOAD MODE REGISTER with bank {bank} open (row {row})")]
    LoadModeWithBankOpen { bank: u8, row: u16 },
    #[error("refresh missed: {owed} refreshes owed, {done} given ({allowed} may be postponed)")]
    RefreshMissed { owed: u64, done: u64, allowed: u64 },
    #[error("bus conflict: the controller drives DQ while the chip drives a read's word")]
    BusConflict,
    #[error("write data not driven: DQ released during a write burst (word {word})")]
    WriteDataNotDriven { word: u64 },
    #[error("not modelled: {0}")]
    Unsupported(&'static str),
}

/// A rule broken, with the cycle (rising edges from the chip's power-up, 0 the first) and
/// the command.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("SDRAM cycle {cycle}, {command}: {rule}")]
pub struct SdramError {
    pub cycle: u64,
    pub command: Command,
    pub rule: Rule,
}

/// The mode register's settings the model runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode {
    pub burst_length: u64,
    pub cas_latency: u64,
}

impl Mode {
    fn decode(value: u16) -> Option<Mode> {
        let burst_length = match value & 7 {
            0 => 1,
            1 => 2,
            2 => 4,
            3 => 8,
            _ => return None,
        };
        let cas_latency = match (value >> 4) & 7 {
            2 => 2,
            3 => 3,
            _ => return None,
        };
        let sequential = value & (1 << 3) == 0;
        let burst_writes = value & (1 << 9) == 0;
        let reserved = value & !0x27f == 0;
        (sequential && burst_writes && reserved).then_some(Mode {
            burst_length,
            cas_latency,
        })
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct Bank {
    row: Option<u16>,
    activated_at: Option<u64>,
    precharged_at: Option<u64>,
    /// The edge of the last word of the last write burst (it may lie ahead).
    last_write_word: Option<u64>,
}

/// A word the chip drives: sampled by the controller at edge `edge`, read from here.
#[derive(Debug, Clone, Copy)]
struct ReadWord {
    edge: u64,
    bank: u8,
    row: u16,
    column: u16,
}

#[derive(Debug, Clone, Copy)]
struct WriteBurst {
    start: u64,
    bank: u8,
    row: u16,
    column: u16,
}

/// The simulated SDRAM (module documentation).
#[derive(Debug, Clone)]
pub struct Sdram {
    cycles: Cycles,
    cycle: u64,
    precharged_all: bool,
    init_refreshes: u32,
    mode: Option<Mode>,
    mode_at: Option<u64>,
    refresh_at: Option<u64>,
    /// The cycle the power-up sequence ended (mode loaded and its refreshes given).
    ready_at: Option<u64>,
    refreshes: u64,
    last_activate: Option<u64>,
    banks: [Bank; BANKS],
    reads: VecDeque<ReadWord>,
    write: Option<WriteBurst>,
    words: HashMap<(u8, u16, u16), u16>,
}

impl Sdram {
    /// A chip just powered up, clocked at `clock_mhz`, to `timing`.
    pub fn new(timing: &Timing, clock_mhz: f64) -> Sdram {
        Sdram::with_cycles(timing.at_mhz(clock_mhz))
    }

    /// A chip just powered up, to timings in cycles.
    pub fn with_cycles(cycles: Cycles) -> Sdram {
        Sdram {
            cycles,
            cycle: 0,
            precharged_all: false,
            init_refreshes: 0,
            mode: None,
            mode_at: None,
            refresh_at: None,
            ready_at: None,
            refreshes: 0,
            last_activate: None,
            banks: [Bank::default(); BANKS],
            reads: VecDeque::new(),
            write: None,
            words: HashMap::new(),
        }
    }

    /// The timings it checks, in cycles.
    pub fn cycles(&self) -> &Cycles {
        &self.cycles
    }

    /// Rising edges so far.
    pub fn cycle(&self) -> u64 {
        self.cycle
    }

    /// AUTO REFRESH commands since the power-up sequence.
    pub fn refreshes(&self) -> u64 {
        self.refreshes
    }

    /// The mode loaded, if any.
    pub fn mode(&self) -> Option<Mode> {
        self.mode
    }

    /// Whether the power-up sequence is over (rows may be used).
    pub fn ready(&self) -> bool {
        self.ready_at.is_some()
    }

    /// The word stored at a bank, row and column (0 if never written).
    pub fn word(&self, bank: u8, row: u16, column: u16) -> u16 {
        self.words.get(&(bank, row, column)).copied().unwrap_or(0)
    }

    /// Words stored (written at least once).
    pub fn words_stored(&self) -> usize {
        self.words.len()
    }

    /// One rising edge with `pins`: the word the chip drives on DQ until the next edge
    /// (None: high impedance), or the rule the command (or the bus) broke.
    pub fn clock(&mut self, pins: &Pins) -> Result<Option<u16>, SdramError> {
        let command = pins.command();
        let now = self.cycle;
        let fail = |rule| SdramError {
            cycle: now,
            command,
            rule,
        };
        // The bus in the cycle that ends at this edge.
        let driven = self.reads.front().is_some_and(|r| r.edge == now);
        if driven && pins.dq_oe {
            return Err(fail(Rule::BusConflict));
        }
        while self.reads.front().is_some_and(|r| r.edge <= now) {
            self.reads.pop_front();
        }
        self.write_data(pins).map_err(fail)?;
        self.command(command, pins).map_err(fail)?;
        self.check_refresh().map_err(fail)?;
        self.cycle += 1;
        // What is driven until the next edge: a read's word sampled there.
        Ok(self
            .reads
            .front()
            .filter(|r| r.edge == now + 1)
            .map(|r| self.word(r.bank, r.row, r.column)))
    }

    /// A write burst's word at this edge, if one is in progress.
    fn write_data(&mut self, pins: &Pins) -> Result<(), Rule> {
        let Some(burst) = self.write else {
            return Ok(());
        };
        let length = self.mode.map_or(1, |m| m.burst_length);
        let word = self.cycle - burst.start;
        if word >= length {
            self.write = None;
            return Ok(());
        }
        if !pins.dq_oe {
            return Err(Rule::WriteDataNotDriven { word });
        }
        let column = burst_column(burst.column, word, length);
        let key = (burst.bank, burst.row, column);
        let old = self.word(burst.bank, burst.row, column);
        let mut value = pins.dq;
        if pins.dqm & 1 != 0 {
            value = (value & 0xff00) | (old & 0x00ff);
        }
        if pins.dqm & 2 != 0 {
            value = (value & 0x00ff) | (old & 0xff00);
        }
        self.words.insert(key, value);
        Ok(())
    }

    fn since(&self, at: Option<u64>) -> Option<u64> {
        at.map(|at| self.cycle - at)
    }

    /// tRFC and tMRD: no command but NOP or INHIBIT within them.
    fn check_quiet(&self) -> Result<(), Rule> {
        let c = self.cycles;
        if let Some(waited) = self.since(self.refresh_at).filter(|&w| w < c.rfc) {
            return Err(Rule::Trfc {
                waited,
                needed: c.rfc,
            });
        }
        if let Some(waited) = self.since(self.mode_at).filter(|&w| w < c.mrd) {
            return Err(Rule::Tmrd {
                waited,
                needed: c.mrd,
            });
        }
        Ok(())
    }

    /// Every bank idle and past tRP (REFRESH, LOAD MODE).
    fn check_all_idle(&self, open: impl Fn(u8, u16) -> Rule) -> Result<(), Rule> {
        for (i, bank) in self.banks.iter().enumerate() {
            if let Some(row) = bank.row {
                return Err(open(i as u8, row));
            }
            if let Some(waited) = self
                .since(bank.precharged_at)
                .filter(|&w| w < self.cycles.rp)
            {
                return Err(Rule::Trp {
                    bank: i as u8,
                    waited,
                    needed: self.cycles.rp,
                });
            }
        }
        Ok(())
    }

    /// Rows may be used: the power-up sequence is over.
    fn check_ready(&self) -> Result<Mode, Rule> {
        if !self.precharged_all {
            return Err(Rule::NotPrecharged);
        }
        if self.init_refreshes < self.cycles.init_refreshes {
            return Err(Rule::InitRefreshes {
                done: self.init_refreshes,
                needed: self.cycles.init_refreshes,
            });
        }
        self.mode.ok_or(Rule::ModeNotLoaded)
    }

    fn command(&mut self, command: Command, pins: &Pins) -> Result<(), Rule> {
        let c = self.cycles;
        let now = self.cycle;
        if matches!(command, Command::Inhibit | Command::Nop) {
            if !pins.cke && self.cycle >= c.power_up {
                return Err(Rule::Unsupported("CKE low after power-up (power-down)"));
            }
            return Ok(());
        }
        if now < c.power_up {
            return Err(Rule::PowerUpWait {
                waited: now,
                needed: c.power_up,
            });
        }
        if !pins.cke {
            return Err(Rule::Unsupported(
                "CKE low after power-up (power-down, self refresh)",
            ));
        }
        self.check_quiet()?;
        match command {
            Command::Inhibit | Command::Nop => unreachable!("handled above"),
            Command::Activate { bank, row } => {
                self.check_ready()?;
                let b = self.banks[bank as usize];
                if let Some(open) = b.row {
                    return Err(Rule::RowOpen { bank, row: open });
                }
                if let Some(waited) = self.since(b.precharged_at).filter(|&w| w < c.rp) {
                    return Err(Rule::Trp {
                        bank,
                        waited,
                        needed: c.rp,
                    });
                }
                if let Some(waited) = self.since(b.activated_at).filter(|&w| w < c.rc) {
                    return Err(Rule::Trc {
                        bank,
                        waited,
                        needed: c.rc,
                    });
                }
                if let Some(waited) = self.since(self.last_activate).filter(|&w| w < c.rrd) {
                    return Err(Rule::Trrd {
                        waited,
                        needed: c.rrd,
                    });
                }
                let b = &mut self.banks[bank as usize];
                b.row = Some(row);
                b.activated_at = Some(now);
                self.last_activate = Some(now);
            }
            Command::Read {
                bank,
                column,
                auto_precharge,
            }
            | Command::Write {
                bank,
                column,
                auto_precharge,
            } => {
                let mode = self.check_ready()?;
                if auto_precharge {
                    return Err(Rule::Unsupported("auto precharge (A10 with READ or WRITE)"));
                }
                let b = self.banks[bank as usize];
                let Some(row) = b.row else {
                    return Err(Rule::NoOpenRow { bank });
                };
                let waited = self.since(b.activated_at).unwrap_or(u64::MAX);
                if waited < c.rcd {
                    return Err(Rule::Trcd {
                        bank,
                        waited,
                        needed: c.rcd,
                    });
                }
                let read = matches!(command, Command::Read { .. });
                // A new burst ends the one in progress.
                if let Some(old) = self.write.take() {
                    self.banks[old.bank as usize].last_write_word = Some(now - 1);
                }
                let cut = if read { now + mode.cas_latency } else { now };
                self.reads.retain(|r| r.edge < cut);
                if read {
                    for i in 0..mode.burst_length {
                        self.reads.push_back(ReadWord {
                            edge: now + mode.cas_latency + i,
                            bank,
                            row,
                            column: burst_column(column, i, mode.burst_length),
                        });
                    }
                } else {
                    self.write = Some(WriteBurst {
                        start: now,
                        bank,
                        row,
                        column,
                    });
                    self.banks[bank as usize].last_write_word = Some(now + mode.burst_length - 1);
                    // The first word is on the pins now.
                    self.write_data(pins)?;
                }
            }
            Command::BurstTerminate => {
                let latency = self.mode.map_or(0, |m| m.cas_latency);
                self.reads.retain(|r| r.edge < now + latency);
                if let Some(burst) = self.write.take() {
                    self.banks[burst.bank as usize].last_write_word = Some(now.saturating_sub(1));
                }
            }
            Command::Precharge { bank } => {
                let banks: Vec<u8> = match bank {
                    Some(bank) => vec![bank],
                    None => (0..BANKS as u8).collect(),
                };
                for bank in banks {
                    let b = self.banks[bank as usize];
                    if b.row.is_none() {
                        // An idle bank: a NOP for it.
                        continue;
                    }
                    let waited = self.since(b.activated_at).unwrap_or(u64::MAX);
                    if waited < c.ras {
                        return Err(Rule::Tras {
                            bank,
                            waited,
                            needed: c.ras,
                        });
                    }
                    if let Some(last) = b.last_write_word {
                        let waited = now as i64 - last as i64;
                        if waited < c.wr as i64 {
                            return Err(Rule::Twr {
                                bank,
                                waited,
                                needed: c.wr,
                            });
                        }
                    }
                    let latency = self.mode.map_or(0, |m| m.cas_latency);
                    self.reads
                        .retain(|r| r.bank != bank || r.edge < now + latency);
                    let b = &mut self.banks[bank as usize];
                    b.row = None;
                    b.precharged_at = Some(now);
                    b.last_write_word = None;
                }
                if bank.is_none() {
                    self.precharged_all = true;
                }
            }
            Command::Refresh => {
                if !self.precharged_all {
                    return Err(Rule::NotPrecharged);
                }
                self.check_all_idle(|bank, row| Rule::RefreshWithBankOpen { bank, row })?;
                self.refresh_at = Some(now);
                if self.ready_at.is_some() {
                    self.refreshes += 1;
                } else {
                    self.init_refreshes += 1;
                }
            }
            Command::LoadMode(value) => {
                if !self.precharged_all {
                    return Err(Rule::NotPrecharged);
                }
                self.check_all_idle(|bank, row| Rule::LoadModeWithBankOpen { bank, row })?;
                self.mode = Some(Mode::decode(value).ok_or(Rule::BadMode(value))?);
                self.mode_at = Some(now);
            }
        }
        if self.ready_at.is_none() && self.mode.is_some() && self.init_refreshes >= c.init_refreshes
        {
            self.ready_at = Some(now);
        }
        Ok(())
    }

    /// One refresh owed every interval from the end of the power-up sequence; more than
    /// `max_postponed` behind is a refresh missed.
    fn check_refresh(&self) -> Result<(), Rule> {
        let Some(start) = self.ready_at else {
            return Ok(());
        };
        let owed = (self.cycle - start) / self.cycles.refresh_interval;
        if owed > self.refreshes + self.cycles.max_postponed {
            return Err(Rule::RefreshMissed {
                owed,
                done: self.refreshes,
                allowed: self.cycles.max_postponed,
            });
        }
        Ok(())
    }
}

/// The column of a sequential burst's word `i` from `start`: it wraps within the burst's
/// aligned block.
fn burst_column(start: u16, i: u64, length: u64) -> u16 {
    let length = length as u16;
    let i = i as u16;
    (start & !(length - 1)) | ((start + i) & (length - 1))
}

#[cfg(test)]
mod tests;
