//! The chip's df-pn search (`hdl/search/solver_top.spade`): the controller with every
//! block of the search, driven from Rust as a [`Searcher`], so that a solve on the chip
//! ([`crate::solver::solve_on`]) is the model's solve with the chip in the model's place.
//! The chip runs each search by itself and walks the mating line after a proof; the host
//! loads the root, starts it, reads the walked line, and reads the table and the root's
//! frame where the walk hands a node back.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use marlin::spade::prelude::*;
use rsshogi::board::Position as Board;
use rsshogi::types::Move;

use crate::bus;
use crate::chip::select::frame_peek_model;
use crate::chip::{Chip, MAX_LEFT, bus_model, left_port};
use crate::position::Position;
use crate::solver::count_estimate::Estimate;
use crate::solver::hands::{self, Hand};
use crate::solver::position_hash::KeyRule;
use crate::solver::transposition_table::Found;
use crate::solver::values::Value;
use crate::solver::{Config, Counters, Kind, Reason, Searcher, StoreLog, StoreRecord, Walk};

/// The search on chip (`solver_top`).
#[spade(src = "hdl/search/solver_top.spade", name = "solver_top")]
pub struct SolverTop;

bus_model!(SolverTop);
frame_peek_model!(SolverTop);

/// Driver of [`SolverTop`].
pub type SolverChip<'ctx> = Chip<'ctx, SolverTop<'ctx>>;

/// The longest wait for the table, the hash or a lookup's answer (a sweep of the table
/// takes a cycle a set).
const MAX_WAIT: u64 = 1 << 16;

/// How often (in cycles) a search looks at the stop flag.
const STOP_POLL: u64 = 1 << 12;

/// More cycles than any node takes (a node of 128 children takes a few hundred): a search
/// that runs this many cycles for every node it may still make, and one more, has hung.
const CYCLES_PER_NODE: u64 = 1 << 12;

/// Where the cycles of the searches went (the chip's counters, by controller state).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cycles {
    /// Every cycle from a start to its result.
    pub total: u64,
    /// Waiting to expand: the hash after a move made, the table after a store.
    pub wait: u64,
    /// Expanding: the move generator, the child hashes, the probes, the frame writes.
    pub expand: u64,
    /// Selecting: the scans of the frames.
    pub select: u64,
    /// Descending: the node limit, the move made.
    pub descend: u64,
    /// Returning: the store, the move taken back, the parent's child entry.
    pub ret: u64,
}

impl std::ops::Add for Cycles {
    type Output = Cycles;

    /// Both counts of every state.
    fn add(self, b: Cycles) -> Cycles {
        Cycles {
            total: self.total + b.total,
            wait: self.wait + b.wait,
            expand: self.expand + b.expand,
            select: self.select + b.select,
            descend: self.descend + b.descend,
            ret: self.ret + b.ret,
        }
    }
}

impl std::ops::AddAssign for Cycles {
    fn add_assign(&mut self, b: Cycles) {
        *self = *self + b;
    }
}

/// A searcher on the chip, here (`solver_top`) or on the board (the link's
/// `BoardSearcher`): the chip's cycle counters and walks beside the search.
pub trait OnChip: Searcher {
    /// Searches from the next solve on with `config`, which the chip must take
    /// ([`chip_takes`]).
    fn set_config(&mut self, config: Config) -> Result<(), String>;
    /// A flag another thread may set to stop the searches that follow.
    fn set_stop(&mut self, stop: Option<Arc<AtomicBool>>);
    /// The chip's cycle counters since the solve began.
    fn cycles(&self) -> Cycles;
    /// What the chip's walks of the mating line did so far.
    fn walked(&self) -> Walked;
}

impl OnChip for ChipSearcher<'_> {
    fn set_config(&mut self, config: Config) -> Result<(), String> {
        ChipSearcher::set_config(self, config)
    }

    fn set_stop(&mut self, stop: Option<Arc<AtomicBool>>) {
        ChipSearcher::set_stop(self, stop);
    }

    fn cycles(&self) -> Cycles {
        ChipSearcher::cycles(self)
    }

    fn walked(&self) -> Walked {
        ChipSearcher::walked(self)
    }
}

/// Whether a chip built for `built` can search with the geometry `config`: its own, or
/// a smaller one (a table of fewer sets of the same ways, fewer plies, fewer children a
/// node), searched as the model of that geometry searches: the host bounds the plies, the
/// chip's `table_bits` and `max_children` inputs the rest. The error says what the chip
/// can take.
pub fn chip_takes(built: Config, config: Config) -> Result<(), String> {
    config.check_chip_search().map_err(|e| e.to_string())?;
    if config.tt_ways == built.tt_ways
        && config.tt_index_bits <= built.tt_index_bits
        && (2..=built.max_plies).contains(&config.max_plies)
        && (1..=built.max_children).contains(&config.max_children)
    {
        return Ok(());
    }
    Err(format!(
        "the chip is built for a table of {} entries (2^{} sets of {} ways), {} plies and {} \
         children a node; it takes those or fewer sets, plies and children, with the same \
         ways (asked: {} entries in sets of {} ways, {} plies, {} children)",
        built.tt_entries(),
        built.tt_index_bits,
        built.tt_ways,
        built.max_plies,
        built.max_children,
        config.tt_entries(),
        config.tt_ways,
        config.max_plies,
        config.max_children
    ))
}

/// The chip as a [`Searcher`].
pub struct ChipSearcher<'ctx> {
    chip: SolverChip<'ctx>,
    /// The geometry the chip's memories are built for.
    built: Config,
    /// The geometry searched with: `built`, or a table of fewer sets.
    config: Config,
    stop: Option<Arc<AtomicBool>>,
    walked: Walked,
    /// The stores of the searches, if asked for.
    store_log: StoreLog,
}

/// What the chip's walks of the mating line did, since the searcher was made (or, with
/// [`Walked::since`], between two readings).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Walked {
    /// Walks started, and the moves they picked.
    pub walks: u64,
    pub moves: u64,
    /// Walks that reached the mate (the others left a node to the host).
    pub complete: u64,
    /// Cycles from each walk's start to its end.
    pub cycles: u64,
}

impl Walked {
    /// What the walks did after `before`, a reading of the same searcher.
    pub fn since(self, before: Walked) -> Walked {
        Walked {
            walks: self.walks - before.walks,
            moves: self.moves - before.moves,
            complete: self.complete - before.complete,
            cycles: self.cycles - before.cycles,
        }
    }
}

impl<'ctx> ChipSearcher<'ctx> {
    /// The chip `chip`, built for the geometry `config` (swim.toml [search]).
    pub fn new(chip: SolverChip<'ctx>, config: Config) -> ChipSearcher<'ctx> {
        ChipSearcher {
            chip,
            built: config,
            config,
            stop: None,
            walked: Walked::default(),
            store_log: StoreLog::default(),
        }
    }

    /// The log of the table stores of its searches (off until started), as the model's
    /// [`crate::solver::Solver::stores`].
    pub fn stores(&mut self) -> &mut StoreLog {
        &mut self.store_log
    }

    /// Searches from the next solve on with the geometry `config`, which the chip must
    /// take ([`chip_takes`]).
    pub fn set_config(&mut self, config: Config) -> Result<(), String> {
        chip_takes(self.built, config)?;
        self.config = config;
        Ok(())
    }

    /// A flag another thread may set to stop the searches that follow (the chip's `stop`).
    pub fn set_stop(&mut self, stop: Option<Arc<AtomicBool>>) {
        self.stop = stop;
    }

    /// The chip's cycle counters since the solve began.
    pub fn cycles(&self) -> Cycles {
        let m = self.chip.model();
        Cycles {
            total: m.cycles,
            wait: m.wait_cycles,
            expand: m.expand_cycles,
            select: m.select_cycles,
            descend: m.descend_cycles,
            ret: m.return_cycles,
        }
    }

    /// What the chip's walks of the mating line did so far.
    pub fn walked(&self) -> Walked {
        self.walked
    }

    /// The driver, for waveforms and ports.
    pub fn chip(&mut self) -> &mut SolverChip<'ctx> {
        &mut self.chip
    }

    /// Ticks until `ready` holds, at most [`MAX_WAIT`] cycles.
    fn wait(&mut self, what: &str, ready: impl Fn(&SolverTop) -> bool) -> Result<(), Reason> {
        let mut waited = 0;
        while !ready(self.chip.model()) {
            if waited >= MAX_WAIT {
                return Err(Reason::Engine(format!(
                    "{what}: not ready {MAX_WAIT} cycles on"
                )));
            }
            self.chip.tick();
            waited += 1;
        }
        Ok(())
    }

    /// One cycle with `set` applied to the inputs, then `unset`.
    /// The table key's rule of a solve whose root is `board` as a node of `kind`, set
    /// before a load (the hash unit computes the key on the load).
    fn set_rule(&mut self, board: &Board, kind: Kind) {
        let rule = KeyRule::of(
            self.config.hand_superiority,
            self.config.depth_free,
            board,
            kind,
        );
        let m = self.chip.model_mut();
        m.hand_superiority = u8::from(rule.hand_superiority);
        m.attacker_white = u8::from(rule.attacker_white());
        m.complete = rule.complete_mask();
    }

    fn pulse(&mut self, set: impl FnOnce(&mut SolverTop), unset: impl FnOnce(&mut SolverTop)) {
        set(self.chip.model_mut());
        self.chip.tick();
        unset(self.chip.model_mut());
    }
}

/// The root's value on the chip's ports (`r_rep` in the model's terms).
/// How a search ended, from the chip's `result` code (`Ended`,
/// hdl/search/controller.spade): the root's `value`, or the limit or stop that ended it
/// (`children`: the moves of the node beyond the child limit).
pub fn ended(
    result: u8,
    value: Value,
    children: u16,
    node_limit: u64,
    max_children: usize,
) -> Result<Value, Reason> {
    match result {
        0 => Ok(value),
        1 => Err(Reason::NodeLimit { nodes: node_limit }),
        2 => Err(Reason::Stopped),
        _ => Err(Reason::ChildLimit {
            children: usize::from(children),
            max_children,
        }),
    }
}

fn value_of(m: &SolverTop) -> Value {
    Value {
        pn: m.r_pn,
        dn: m.r_dn,
        len: m.r_len,
        rep: m.r_rep,
        bounded: m.r_bounded == 1,
    }
}

impl Searcher for ChipSearcher<'_> {
    fn config(&self) -> Config {
        self.config
    }

    fn begin(&mut self) -> Result<(), Reason> {
        self.wait("idle", |m| m.busy == 0)?;
        self.wait("table", |m| m.tt_ready == 1)?;
        let m = self.chip.model_mut();
        m.table_bits = self.config.tt_index_bits as u8;
        m.depth_free = u8::from(self.config.depth_free);
        m.estimates = u8::from(self.config.child_estimates == Some(Estimate::Attacked));
        m.max_children = self.config.max_children as u16;
        self.pulse(|m| m.clear = 1, |m| m.clear = 0);
        self.wait("table", |m| m.tt_ready == 1)
    }

    fn search(
        &mut self,
        board: &Board,
        kind: Kind,
        plies: u32,
        node_limit: u64,
    ) -> Result<Value, Reason> {
        let left = left_port(plies)?;
        // A root is the solve's position or one reached from it by legal moves.
        self.set_rule(board, kind);
        self.chip
            .load(&Position::from_inner_unchecked(board.clone_compact()));
        self.chip.tick();
        self.wait("the root's hash", |m| m.hash_valid == 1)?;
        let and_root = kind == Kind::And;
        let stopped = self
            .stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed));
        self.pulse(
            |m| {
                m.start = 1;
                m.stop = u8::from(stopped);
                m.root_left = left;
                m.root_and = u8::from(and_root);
                m.node_limit = node_limit;
            },
            |m| m.start = 0,
        );
        let hung = node_limit
            .saturating_sub(self.chip.model().nodes)
            .saturating_add(1)
            .saturating_mul(CYCLES_PER_NODE);
        let mut cycles = 1u64;
        while self.chip.model().done == 0 {
            if cycles.is_multiple_of(STOP_POLL)
                && let Some(stop) = &self.stop
                && stop.load(Ordering::Relaxed)
            {
                self.chip.model_mut().stop = 1;
            }
            if cycles >= hung {
                return Err(Reason::Engine(format!(
                    "no answer {cycles} cycles after the start of a search of at most {} nodes",
                    node_limit.saturating_sub(self.chip.model().nodes)
                )));
            }
            self.chip.tick();
            cycles += 1;
            let m = self.chip.model();
            if let Some(log) = self.store_log.sink()
                && m.st_valid == 1
            {
                log.push(StoreRecord {
                    key: m.st_key,
                    pn: m.st_pn,
                    dn: m.st_dn,
                    len: m.st_len,
                    bounded: m.st_bounded == 1,
                    left: u32::from(m.st_left),
                    hand: bus::unpack_hand(u64::from(m.st_hand)),
                });
            }
        }
        self.chip.model_mut().stop = 0;
        let m = self.chip.model();
        ended(
            m.result,
            value_of(m),
            m.children,
            node_limit,
            self.config.max_children,
        )
    }

    fn root_children(&mut self) -> Result<Vec<(Move, Value)>, Reason> {
        let n = usize::from(self.chip.model().root_n);
        let mut children = Vec::with_capacity(n);
        for i in 0..n {
            let (word, value) = self.chip.peek_child(0, i);
            let mv = bus::decode_move(word)
                .map_err(|e| Reason::Engine(format!("root child {i}: {e}")))?;
            children.push((mv, value));
        }
        Ok(children)
    }

    fn lookup(&mut self, key: u64) -> Result<Option<Found>, Reason> {
        self.lookup_at(key, 0)
    }

    fn lookup_at(&mut self, key: u64, left: u16) -> Result<Option<Found>, Reason> {
        self.lookup_hand(key, left, &hands::EMPTY)
    }

    fn lookup_hand(&mut self, key: u64, left: u16, hand: &Hand) -> Result<Option<Found>, Reason> {
        self.wait("table", |m| m.tt_ready == 1)?;
        self.pulse(
            |m| {
                m.lookup = 1;
                m.key = key;
                m.lookup_left = left;
                m.lookup_hand = bus::pack_hand(*hand) as u32;
            },
            |m| m.lookup = 0,
        );
        self.wait("a lookup's answer", |m| m.a_valid == 1)?;
        let m = self.chip.model();
        Ok((m.a_found == 1).then_some(Found {
            pn: m.a_pn,
            dn: m.a_dn,
            len: m.a_len,
            bounded: m.a_bounded == 1,
        }))
    }

    fn walk(&mut self, board: &Board, kind: Kind, left: u32) -> Result<Option<Walk>, Reason> {
        self.set_rule(board, kind);
        self.chip
            .load(&Position::from_inner_unchecked(board.clone_compact()));
        self.chip.tick();
        self.wait("the hash of the line's node", |m| m.hash_valid == 1)?;
        self.wait("table", |m| m.tt_ready == 1)?;
        self.pulse(
            |m| {
                m.walk = 1;
                m.walk_left = left.min(MAX_LEFT) as u16;
                m.walk_and = u8::from(kind == Kind::And);
            },
            |m| m.walk = 0,
        );
        let mut cycles = 1;
        while self.chip.model().walk_done == 0 {
            if cycles >= MAX_WAIT {
                return Err(Reason::Engine(format!(
                    "the line's walk: no end {MAX_WAIT} cycles on"
                )));
            }
            self.chip.tick();
            cycles += 1;
        }
        let len = usize::from(self.chip.model().walk_len);
        let complete = self.chip.model().walk_complete == 1;
        let mut moves = Vec::with_capacity(len);
        for i in 0..len {
            self.chip.model_mut().line_index = i as u16;
            self.chip.tick();
            let word = self.chip.model().line_mv;
            moves.push(
                bus::decode_move(word)
                    .map_err(|e| Reason::Engine(format!("the line's move {i}: {e}")))?,
            );
        }
        self.walked.walks += 1;
        self.walked.moves += len as u64;
        self.walked.complete += u64::from(complete);
        self.walked.cycles += cycles;
        Ok(Some(Walk { moves, complete }))
    }

    fn counters(&self) -> Counters {
        let m = self.chip.model();
        Counters {
            nodes: m.nodes,
            expansions: m.expansions,
            probes: m.probes,
            stores: m.stores,
            ..Counters::default()
        }
    }
}
