//! The solver's golden model: df-pn over the tsume-shogi move sets, written as the chip
//! runs it (docs/search.md is the specification both implement).
//!
//! Each file that models a block of the chip's search (`hdl/search/`) takes its twin's
//! name, and its header names the test that compares the two:
//!
//! - [`geometry`]: the geometry of `[search]` in swim.toml (the chip's
//!   `hdl/search/geometry.spade`, generated from it) and the limits of a solve.
//! - [`values`]: proof and disproof numbers, saturating, with an explicit infinity, and a
//!   node's [`Value`](values::Value) (`hdl/search/values.spade`).
//! - [`position_hash`]: the position hash (splitmix64 keys, incremental update; the key
//!   ROM `hdl/search/zobrist_keys.spade`) and the table key's rule.
//! - [`hands`]: hands, compared kind by kind, and a move's hand change
//!   (`hdl/search/hands.spade`).
//! - [`transposition_table`], [`pieces`]: the transposition table keyed by plies left, and
//!   the pieces table (hands and plies left beside the tag), both
//!   `hdl/search/transposition_table.spade`.
//! - [`second_level`]: the table's second level (the board's SDRAM; the model only, for
//!   now), behind either table.
//! - [`solved_pieces`]: the proof and disproof pieces of a solved node.
//! - [`moves`]: a node's children and their order (`order_children`).
//! - [`controller`]: the iterative state machine, over [`expand`](mod@expand) (a node's
//!   children into its frame), [`select`](mod@select) (one scan of a frame, as a pure
//!   function), the [`child_frames`] and the [`search_path`].
//! - [`line_walk`]: the mating line read from the proof and checked by the reference.
//! - [`modes`]: the table modes by name (the switches of [`Config`] they set).
//!
//! ```no_run
//! use tsume::position::Position;
//! use tsume::solver::{Config, Limits, SearchResult, Solver};
//! let mut solver = Solver::new(Config::from_manifest(std::path::Path::new("swim.toml"))?);
//! let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1")?;
//! let outcome = solver.solve(&pos, Limits::default());
//! assert_eq!(outcome.result, SearchResult::Mate);
//! # anyhow::Ok(())
//! ```

pub mod alternatives;
pub mod child_frames;
pub mod controller;
pub mod count_estimate;
pub mod expand;
pub mod geometry;
pub mod hands;
pub mod line_walk;
pub mod modes;
pub mod moves;
pub mod pieces;
pub mod position_hash;
pub mod search_path;
pub mod second_level;
pub mod select;
pub mod solved_pieces;
pub mod transposition_table;
pub mod values;

pub use geometry::{Config, Limits, Root};
pub use moves::Kind;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use rsshogi::types::Move;

use crate::futile::{self, LeftOut, Rule};
use crate::position::Position;
use controller::{Machine, Memory};
use pieces::{PieceTable, Probe};
use position_hash::KeyRule;
use transposition_table::Table;

/// One table store of a search, as the tests log them (the model's and the chip's must be
/// the same, in the same order): the key, the value, the plies left and the hand kept
/// beside the tag (a solved value's pieces, else the node's attacker's hand; with the
/// pieces table only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreRecord {
    pub key: u64,
    pub pn: values::Pn,
    pub dn: values::Pn,
    pub len: u16,
    pub bounded: bool,
    pub left: u32,
    pub hand: hands::Hand,
}

/// The table stores of searches, logged once asked for ([`StoreLog::start`]).
#[derive(Debug, Default)]
pub struct StoreLog(Option<Vec<StoreRecord>>);

impl StoreLog {
    /// Logs every store from now on.
    pub fn start(&mut self) {
        self.0 = Some(Vec::new());
    }

    /// The stores logged since the last call (none unless started).
    pub fn take(&mut self) -> Vec<StoreRecord> {
        self.0.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Where a store goes while logging.
    pub fn sink(&mut self) -> Option<&mut Vec<StoreRecord>> {
        self.0.as_mut()
    }
}

/// The counters of a solve, summed over its searches (the line's included).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    /// Moves made (descents into a child).
    pub nodes: u64,
    /// Move lists generated.
    pub expansions: u64,
    /// Table reads (one per child of an expanded node not found on the path).
    pub probes: u64,
    /// Table writes (one per returning node, except a disproof that depends on a
    /// repetition of a position above it).
    pub stores: u64,
    /// With `child_counts`: the children whose replies were counted (each a move made, a
    /// move list generated and the move taken back, outside `nodes`).
    pub counts: u64,
    /// With a second level (`tt2_index_bits`): the probes the first level did not answer,
    /// so that the second level's slot was read.
    pub l2_reads: u64,
    /// Of those, the ones the second level answered.
    pub l2_hits: u64,
    /// Of those, the ones whose slot was never written since the clear (the reads a
    /// presence bitmap in block RAM would save).
    pub l2_empty: u64,
    /// Entries evicted from the first level and written back to the second.
    pub write_backs: u64,
}

/// Why a solve gives no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Reason {
    /// The node limit was reached.
    #[error("node limit: {nodes} nodes searched without an answer; raise the limit")]
    NodeLimit {
        /// The limit.
        nodes: u64,
    },
    /// The stop flag of [`Solver::set_stop`] was set.
    #[error("stopped: the search was asked to stop before it found an answer")]
    Stopped,
    /// No mate within the plies the frames hold; a longer one is not ruled out.
    #[error(
        "ply limit: no mate within {plies} plies, the most the frames hold (max_plies = \
         {max_plies}); for a longer mate raise max_plies in swim.toml [search]"
    )]
    PlyLimit {
        /// The plies searched: the largest odd number below `max_plies`.
        plies: u32,
        /// `max_plies` of the configuration.
        max_plies: usize,
    },
    /// A defender's root must answer a check.
    #[error(
        "the side to move is not in check, so it cannot be the defender at the root; solve \
         the position with the side to move attacking (--root attacker or auto)"
    )]
    DefenderNotInCheck,
    /// A node has more children than a frame holds.
    #[error(
        "child limit: a node has {children} moves, a frame holds {max_children}; raise \
         max_children in swim.toml [search]"
    )]
    ChildLimit {
        /// The node's moves.
        children: usize,
        /// `max_children` of the configuration.
        max_children: usize,
    },
    /// The proof was found but its line could not be read back from the table.
    #[error("the mating line could not be read from the table: {0}")]
    LineUnreadable(String),
    /// The line read from the proof failed the reference's check (a hash collision).
    #[error("the mating line failed the reference's check: {0}")]
    LineRejected(String),
    /// The engine that searches failed (the simulated chip: no answer, or a harness error).
    #[error("the engine failed: {0}")]
    Engine(String),
}

/// The answer of a solve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchResult {
    /// The attacker forces mate (`Outcome::pv` is the line).
    Mate,
    /// The attacker has no forced mate (a final disproof of the root).
    NoMate,
    /// No answer within the limits.
    Unknown(Reason),
}

/// What a solve found and what it cost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// Mate, no mate, or unknown with the reason.
    pub result: SearchResult,
    /// For a mate: the line from the root (the attacker's move first at an attacker's
    /// root, the defender's at a defender's), checked by the reference.
    pub pv: Vec<Move>,
    /// The root's kind: [`Kind::Or`] when the side to move attacks.
    pub root: Kind,
    /// For a mate: whether the line's length is proven minimal (shortest mode completed).
    pub shortest: bool,
    /// Which of the defender's replies the searches counted (docs/search.md, "Futile
    /// interpositions").
    pub rule: Rule,
    /// For a mate under the composers' rule: the futile interpositions the line left out,
    /// at each defender's node that has some.
    pub left_out: Vec<LeftOut>,
    /// The counters.
    pub counters: Counters,
}

/// What a solve needs of the machine that runs its searches: the model's
/// [`Machine`] over its table ([`Solver`]), or the chip (`tsume::chip::solver`). A solve
/// ([`solve_on`]) and its line ([`line_walk::line`]) are written once, over this.
pub trait Searcher {
    /// The geometry of the frames and the table.
    fn config(&self) -> Config;
    /// A new solve: the table emptied, the counters zeroed.
    fn begin(&mut self) -> Result<(), Reason>;
    /// One df-pn search of `board`, a root of `kind` with `plies` plies left, on the
    /// solve's table, until the counters' nodes (summed over the solve) reach
    /// `node_limit`: the root's value.
    fn search(
        &mut self,
        board: &rsshogi::board::Position,
        kind: Kind,
        plies: u32,
        node_limit: u64,
    ) -> Result<values::Value, Reason>;
    /// The root's children after the last search, with their values in its frame.
    fn root_children(&mut self) -> Result<Vec<(Move, values::Value)>, Reason>;
    /// A table read that no counter counts (the line's).
    fn lookup(&mut self, key: u64) -> Result<Option<transposition_table::Found>, Reason>;
    /// A table read at `key` with the node's plies left (read by depth-free entries), not
    /// counted: by default [`Searcher::lookup`].
    fn lookup_at(
        &mut self,
        key: u64,
        left: u16,
    ) -> Result<Option<transposition_table::Found>, Reason> {
        let _ = left;
        self.lookup(key)
    }
    /// A table read at `key` with the node's plies left and its attacker's hand (read
    /// with hand superiority), not counted: by default [`Searcher::lookup_at`].
    fn lookup_hand(
        &mut self,
        key: u64,
        left: u16,
        hand: &hands::Hand,
    ) -> Result<Option<transposition_table::Found>, Reason> {
        let _ = hand;
        self.lookup_at(key, left)
    }
    /// The line's read of the node `board` of `kind` (position hash `hash`) with `left`
    /// plies left, not counted: [`Searcher::lookup_hand`] with the node's table key and
    /// attacker's hand under the solve's rule (docs/search.md: the hash and the plies
    /// left, the hash alone with `depth_free`, the hands out with `hand_superiority`).
    fn lookup_node(
        &mut self,
        board: &rsshogi::board::Position,
        kind: Kind,
        hash: u64,
        left: u32,
    ) -> Result<Option<transposition_table::Found>, Reason> {
        let config = self.config();
        let rule = KeyRule::of(config.hand_superiority, config.depth_free, board, kind);
        let probe = rule.probe(board, hash, left);
        let left = probe.left.min(u32::from(u16::MAX)) as u16;
        self.lookup_hand(probe.key, left, &probe.hand)
    }
    /// The counters of the solve so far.
    fn counters(&self) -> Counters;
    /// Which of the defender's replies its searches count (docs/search.md, "Futile
    /// interpositions"): by default every one (the chip's).
    fn interpositions(&self) -> Rule {
        Rule::EveryInterposition
    }
    /// The mating line walked from `board` (a node of `kind` with `left` plies left) by
    /// the searcher itself, as far as it can, with the picks of [`line_walk::line`]; `None`
    /// when it has no walk of its own (the model: the line reads the table).
    fn walk(
        &mut self,
        board: &rsshogi::board::Position,
        kind: Kind,
        left: u32,
    ) -> Result<Option<Walk>, Reason> {
        let _ = (board, kind, left);
        Ok(None)
    }
}

/// A walk of the mating line ([`Searcher::walk`]): the moves picked from the node, and
/// whether they reach the mate; if not, the line goes on from the node they reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Walk {
    pub moves: Vec<Move>,
    pub complete: bool,
}

/// Solves `pos` on `searcher` with its side to move playing `limits.root`: df-pn from the
/// root within the plies the frames hold ([`Config::root_plies`]); after a mate, with
/// `limits.shortest`, searches again within 1, 3, 5, ... plies (2, 4, 6, ... from a
/// defender's root) until one proves the root, and reads the line at that bound keeping
/// its distance: a shortest mate.
pub fn solve_on<S: Searcher + ?Sized>(searcher: &mut S, pos: &Position, limits: Limits) -> Outcome {
    let board = pos.inner();
    let kind = limits.root.kind(board);
    let outcome = |result, pv: Vec<Move>, shortest, s: &S| {
        let rule = s.interpositions();
        let left_out = match (&result, rule) {
            (SearchResult::Mate, Rule::Composers) => futile::left_out(board, kind, &pv),
            _ => Vec::new(),
        };
        Outcome {
            result,
            pv,
            shortest,
            root: kind,
            rule,
            left_out,
            counters: s.counters(),
        }
    };
    if let Err(reason) = searcher.begin() {
        return outcome(SearchResult::Unknown(reason), vec![], false, searcher);
    }
    if kind == Kind::And && !board.is_in_check() {
        let result = SearchResult::Unknown(Reason::DefenderNotInCheck);
        return outcome(result, vec![], false, searcher);
    }
    let config = searcher.config();
    let plies = config.root_plies(kind);
    let root = match searcher.search(board, kind, plies, limits.nodes) {
        Ok(v) => v,
        Err(reason) => {
            return outcome(SearchResult::Unknown(reason), vec![], false, searcher);
        }
    };
    if root.pn != 0 {
        let result = if root.bounded {
            SearchResult::Unknown(Reason::PlyLimit {
                plies,
                max_plies: config.max_plies,
            })
        } else {
            SearchResult::NoMate
        };
        return outcome(result, vec![], false, searcher);
    }
    let pv = match line_walk::line(searcher, board, kind, plies, false, limits.nodes) {
        Ok(pv) => pv,
        Err(reason) => {
            return outcome(SearchResult::Unknown(reason), vec![], false, searcher);
        }
    };
    if !limits.shortest {
        return outcome(SearchResult::Mate, pv, false, searcher);
    }
    // Iterative deepening: the first bound that proves the root is its distance (the
    // minimax length), and the line read at it keeps that distance. The first line's
    // length is no bound on it: its defender's replies are those of the longest proofs in
    // the table, not always the longest mates.
    if pv.is_empty() {
        // A defender's root without an evasion: mated, 0 plies.
        return outcome(SearchResult::Mate, pv, true, searcher);
    }
    let mut bound = if kind == Kind::Or { 1 } else { 2 };
    while bound <= plies {
        match searcher.search(board, kind, bound, limits.nodes) {
            Ok(v) if v.pn == 0 => {
                return match line_walk::line(searcher, board, kind, bound, true, limits.nodes) {
                    Ok(line) => outcome(SearchResult::Mate, line, true, searcher),
                    Err(_) => outcome(SearchResult::Mate, pv, false, searcher),
                };
            }
            Ok(_) => bound += 2,
            Err(_) => return outcome(SearchResult::Mate, pv, false, searcher),
        }
    }
    outcome(SearchResult::Mate, pv, false, searcher)
}

/// The solver: its geometry and its table (cleared at the start of every solve, so
/// that a solve's counters depend on nothing before it).
pub struct Solver {
    config: Config,
    table: Tables,
    counters: Counters,
    stop: Option<Arc<AtomicBool>>,
    /// The root's children after the last search.
    root: Vec<child_frames::Child>,
    /// The stores of the searches, if asked for.
    store_log: StoreLog,
    /// Which of the defender's replies count.
    interpositions: Rule,
}

impl Solver {
    /// A solver with the table and frames of `config`; panics when the table cannot be
    /// allocated ([`Solver::try_new`] says why instead).
    pub fn new(config: Config) -> Solver {
        Solver::try_new(config).unwrap_or_else(|e| panic!("{e}"))
    }

    /// A solver with the table and frames of `config`, or why this machine cannot hold its
    /// table.
    pub fn try_new(config: Config) -> Result<Solver, transposition_table::TableTooLarge> {
        let (bits, ways) = (config.tt_index_bits, config.tt_ways);
        let second = config.tt2_index_bits;
        let table = if config.pieces_table() {
            let (hs, df) = (config.hand_superiority, config.depth_free);
            Tables::Pieces(PieceTable::try_new(bits, ways, hs, df)?.with_second_level(second)?)
        } else {
            Tables::Plies(Table::try_new(bits, ways)?.with_second_level(second)?)
        };
        Ok(Solver {
            config,
            table,
            counters: Counters::default(),
            stop: None,
            root: Vec::new(),
            store_log: StoreLog::default(),
            interpositions: Rule::EveryInterposition,
        })
    }

    /// The log of the table stores of its searches (off until started).
    pub fn stores(&mut self) -> &mut StoreLog {
        &mut self.store_log
    }

    /// A flag another thread may set to end the solves that follow before their next move
    /// ([`Reason::Stopped`]; in shortest mode, a line already read is kept and answered as
    /// a mate). A flag never set changes nothing: the counters and answers are those of
    /// the limits alone.
    pub fn set_stop(&mut self, stop: Option<Arc<AtomicBool>>) {
        self.stop = stop;
    }

    /// Which of the defender's replies count in the solves that follow (docs/search.md,
    /// "Futile interpositions"); every one until set.
    pub fn set_interpositions(&mut self, rule: Rule) {
        self.interpositions = rule;
    }

    /// Its geometry.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Solves `pos` ([`solve_on`] with the model).
    pub fn solve(&mut self, pos: &Position, limits: Limits) -> Outcome {
        solve_on(self, pos, limits)
    }
}

impl Searcher for Solver {
    fn config(&self) -> Config {
        self.config
    }

    fn begin(&mut self) -> Result<(), Reason> {
        match &mut self.table {
            Tables::Plies(t) => t.clear(),
            Tables::Pieces(t) => t.clear(),
        }
        self.counters = Counters::default();
        Ok(())
    }

    fn search(
        &mut self,
        board: &rsshogi::board::Position,
        kind: Kind,
        plies: u32,
        node_limit: u64,
    ) -> Result<values::Value, Reason> {
        let memory = match &mut self.table {
            Tables::Plies(t) => Memory::Plies(t),
            Tables::Pieces(t) => Memory::Pieces(t),
        };
        let mut machine = Machine::with_memory(self.config, memory, &mut self.counters, node_limit)
            .with_stop(self.stop.as_deref())
            .with_store_log(self.store_log.sink())
            .with_interpositions(self.interpositions);
        let value = machine.run(board, kind, plies);
        self.root.clear();
        self.root.extend_from_slice(machine.root_children());
        value
    }

    fn root_children(&mut self) -> Result<Vec<(Move, values::Value)>, Reason> {
        Ok(self.root.iter().map(|c| (c.mv, c.value)).collect())
    }

    fn lookup(&mut self, key: u64) -> Result<Option<transposition_table::Found>, Reason> {
        Ok(match &self.table {
            Tables::Plies(t) => t.lookup(key),
            // Its entries need the node's hand: the line reads them with `lookup_hand`.
            Tables::Pieces(_) => None,
        })
    }

    fn lookup_hand(
        &mut self,
        key: u64,
        left: u16,
        hand: &hands::Hand,
    ) -> Result<Option<transposition_table::Found>, Reason> {
        let Tables::Pieces(t) = &self.table else {
            return self.lookup(key);
        };
        let probe = Probe {
            key,
            hand: *hand,
            left: u32::from(left),
        };
        Ok(t.lookup(probe).map(|f| transposition_table::Found {
            pn: f.pn,
            dn: f.dn,
            len: f.len,
            bounded: f.bounded,
        }))
    }

    fn counters(&self) -> Counters {
        let l2 = match &self.table {
            Tables::Plies(t) => t.level_two(),
            Tables::Pieces(t) => t.level_two(),
        };
        Counters {
            l2_reads: l2.reads,
            l2_hits: l2.hits,
            l2_empty: l2.empty,
            write_backs: l2.write_backs,
            ..self.counters
        }
    }

    fn interpositions(&self) -> Rule {
        self.interpositions
    }
}

/// The solver's table: the one of docs/search.md, or the pieces table (the model's new
/// mode, [`Config::pieces_table`]).
enum Tables {
    Plies(Table),
    Pieces(PieceTable),
}
