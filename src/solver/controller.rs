//! The search controller: df-pn as the chip runs it, an iterative state machine over an
//! explicit stack of child frames (docs/search.md, "Child frames and the state machine").
//! No recursion: every step the chip takes is one arm of [`Machine::run`]'s loop (EXPAND,
//! SELECT, DESCEND, RETURN), and every counter is exact. The chip's twin is
//! `hdl/search/controller.spade`, state for state over the blocks beside it (here
//! [`expand`](mod@super::expand), [`select`](mod@super::select), the
//! [`child_frames`](mod@super::child_frames), the [`search_path`](mod@super::search_path),
//! the table); `tests/hw_solver.rs` compares the two, whole searches node for node (the
//! result, the line, the counters; with hand superiority every table store in order).

use std::sync::atomic::{AtomicBool, Ordering};

use rsshogi::board::Position as Board;
use rsshogi::types::Move;

use super::child_frames::{Child, ChildFrames};
use super::expand::{Node, count_children, estimate_children, expand, expand_with};
use super::hands::{self, EMPTY, Hand};
use super::moves::{Kind, ReplyCache};
use super::pieces::{PieceTable, Probe, kept_hand};
use super::position_hash::{KeyRule, Keys};
use super::search_path::SearchPath;
use super::select::{self, Selection};
use super::solved_pieces::{leaf_pieces, node_pieces};
use super::transposition_table::Table;
use super::values::{INF, Pn, REP_NONE, Value};
use super::{Config, Counters, Reason, StoreRecord};
use crate::bus::encode_move;
use crate::futile::Rule;

/// Watches SELECT (tests): the ply, kind, thresholds and children of every frame scanned,
/// before the scan.
pub type SelectHook<'a> = &'a mut dyn FnMut(usize, Kind, Pn, Pn, &[Child]);

/// The machine's next step.
enum State {
    /// Generate the current node's list and fill its frame.
    Expand,
    /// Scan the frame: the node's value, then return or pick a child.
    Select,
    /// Make the move of child `index` and enter it with these thresholds.
    Descend { index: usize, th_pn: Pn, th_dn: Pn },
    /// The current node is done with this value: store it and go up.
    Return(Value),
}

/// The table a machine searches with: the one keyed by plies left and exact hands (the
/// chip's), or the pieces table of the model's new mode.
pub enum Memory<'a> {
    Plies(&'a mut Table),
    Pieces(&'a mut PieceTable),
}

/// The search machine and its memories (the table is the solver's, shared by every
/// search of one solve).
pub struct Machine<'a> {
    config: Config,
    table: Memory<'a>,
    /// With the pieces table: the attacker and the complete kinds of the search.
    rule: KeyRule,
    counters: &'a mut Counters,
    node_limit: u64,
    /// Set from outside (another thread) to end the search before its next move.
    stop: Option<&'a AtomicBool>,
    /// Plies left at the root: a defender node with none left that is not mated is
    /// disproven (within the plies left).
    root_left: u32,
    board: Board,
    /// The records of the nodes on the path.
    path: SearchPath,
    /// Their children.
    frames: ChildFrames,
    depth: usize,
    scratch: Vec<Move>,
    on_select: Option<SelectHook<'a>>,
    /// Every store, when logged.
    store_log: Option<&'a mut Vec<StoreRecord>>,
    /// The child counts' replies, kept for the children met again.
    replies: ReplyCache,
    /// Which of the defender's replies are children ([`crate::futile::Rule`]).
    interpositions: Rule,
}

impl<'a> Machine<'a> {
    /// A machine over `table` and `counters`, stopping when `counters.nodes` reaches
    /// `node_limit`.
    pub fn new(
        config: Config,
        table: &'a mut Table,
        counters: &'a mut Counters,
        node_limit: u64,
    ) -> Machine<'a> {
        Machine::with_memory(config, Memory::Plies(table), counters, node_limit)
    }

    /// A machine over either table.
    pub fn with_memory(
        config: Config,
        table: Memory<'a>,
        counters: &'a mut Counters,
        node_limit: u64,
    ) -> Machine<'a> {
        Machine {
            config,
            table,
            rule: KeyRule {
                hand_superiority: config.hand_superiority,
                depth_free: config.depth_free,
                attacker: rsshogi::types::Color::BLACK,
                complete: [true; 7],
            },
            counters,
            node_limit,
            stop: None,
            root_left: 0,
            board: Board::default(),
            path: SearchPath::default(),
            frames: ChildFrames::new(config.max_children),
            depth: 0,
            scratch: Vec::new(),
            on_select: None,
            store_log: None,
            replies: ReplyCache::default(),
            interpositions: Rule::EveryInterposition,
        }
    }

    /// The same machine, its defender's replies under `rule` (docs/search.md, "Futile
    /// interpositions").
    pub fn with_interpositions(mut self, rule: Rule) -> Machine<'a> {
        self.interpositions = rule;
        self
    }

    /// The same machine, also stopping before its next move once `stop` is set (by
    /// another thread); `None` leaves only the node limit.
    pub fn with_stop(mut self, stop: Option<&'a AtomicBool>) -> Machine<'a> {
        self.stop = stop;
        self
    }

    /// The same machine, showing every frame it scans to `hook` (the chip's SELECT is
    /// tested on them); the search is the same.
    pub fn with_select_hook(mut self, hook: SelectHook<'a>) -> Machine<'a> {
        self.on_select = Some(hook);
        self
    }

    /// The same machine, logging every table store into `log` (if any).
    pub fn with_store_log(mut self, log: Option<&'a mut Vec<StoreRecord>>) -> Machine<'a> {
        self.store_log = log;
        self
    }

    /// Searches `root`, a node of `kind` at ply 0, with `left` plies left (below
    /// `max_plies`; odd at an OR root, even at an AND root) until it is proven or
    /// disproven. The root's value, or why the search stopped.
    pub fn run(&mut self, root: &Board, kind: Kind, left: u32) -> Result<Value, Reason> {
        debug_assert!((left % 2 == 1) == (kind == Kind::Or));
        debug_assert!((left as usize) < self.config.max_plies);
        self.board = root.clone_compact();
        self.root_left = left;
        self.rule.attacker = match kind {
            Kind::Or => root.turn(),
            Kind::And => root.turn().flip(),
        };
        self.rule.complete = hands::complete_kinds(root);
        self.depth = 0;
        let hash = Keys::get().hash(&self.board);
        self.enter(hash, kind, INF, INF);
        let mut state = State::Expand;
        loop {
            state = match state {
                State::Expand => self.expand()?,
                State::Select => self.select(),
                State::Descend {
                    index,
                    th_pn,
                    th_dn,
                } => self.descend(index, th_pn, th_dn)?,
                State::Return(value) => {
                    let pieces = self.pieces_of(&value);
                    self.store(value, pieces);
                    if self.depth == 0 {
                        return Ok(value);
                    }
                    self.ascend(value, pieces)
                }
            };
        }
    }

    /// The root's children with their values after [`Machine::run`].
    pub fn root_children(&self) -> &[Child] {
        self.frames.frame(0)
    }

    /// Sets up the record and the frame of the current ply.
    fn enter(&mut self, hash: u64, kind: Kind, th_pn: Pn, th_dn: Pn) {
        self.path.enter(self.depth, hash, kind, th_pn, th_dn);
        self.frames.clear(self.depth);
    }

    /// Expand: one move list; terminal nodes return at once; otherwise every child gets a
    /// value (a repetition of the path, a table entry, or a new node) in stream order
    /// ([`expand`](fn@expand)).
    fn expand(&mut self) -> Result<State, Reason> {
        let d = self.depth;
        let kind = self.path.record(d).kind;
        self.counters.expansions += 1;
        let parent = self.path.hash(d);
        let mut children = self.frames.take(d);
        let path = &self.path;
        let node = Node {
            ply: d,
            root_left: self.root_left,
            hash: parent,
            rule: self.interpositions,
        };
        let expanded = match &self.table {
            Memory::Plies(table) => expand(
                &self.board,
                kind,
                node,
                |q| path.hash(q),
                table,
                self.config.max_children,
                &mut self.scratch,
                &mut children,
                &mut self.counters.probes,
            ),
            Memory::Pieces(table) => {
                let board = &self.board;
                let rule = &self.rule;
                let hands = hands::hands(board);
                let left = node.root_left - d as u32;
                expand_with(
                    board,
                    kind,
                    node,
                    |q| path.hash(q),
                    self.config.max_children,
                    &mut self.scratch,
                    &mut children,
                    &mut self.counters.probes,
                    |hash, mv| {
                        let after = hands::hands_after(board, &hands, mv);
                        let probe = Probe {
                            key: rule.key(hash, &after, left - 1),
                            hand: rule.attacker_hand(&after),
                            left: left - 1,
                        };
                        table
                            .probe(probe)
                            .map(|f| (Value::found(f.pn, f.dn, f.len, f.bounded), f.pieces))
                    },
                )
            }
        };
        if self.config.child_counts && matches!(expanded, Ok(None)) {
            let pieces = matches!(self.table, Memory::Pieces(_)).then_some(&self.rule);
            count_children(
                &mut self.board,
                kind,
                pieces,
                &mut self.replies,
                &mut self.counters.counts,
                &mut children,
            );
        }
        if let Some(estimate) = self.config.child_estimates
            && matches!(expanded, Ok(None))
        {
            estimate_children(&self.board, kind, estimate, &mut children);
        }
        self.frames.put(d, children);
        Ok(match expanded? {
            Some(value) => {
                if let Memory::Pieces(_) = self.table {
                    let pieces = leaf_pieces(&self.board, &self.rule, kind, value, &self.scratch);
                    self.path.record_mut(d).pieces = pieces;
                }
                State::Return(value)
            }
            None => State::Select,
        })
    }

    /// Select: one scan of the frame ([`select::select`]) gives the node's value; returns
    /// when a threshold is reached, else descends into the best child.
    fn select(&mut self) -> State {
        let record = self.path.record(self.depth);
        let frame = self.frames.frame(self.depth);
        if let Some(hook) = &mut self.on_select {
            hook(self.depth, record.kind, record.th_pn, record.th_dn, frame);
        }
        let children = frame.iter().map(|c| (encode_move(c.mv), &c.value));
        match select::select(record.kind, record.th_pn, record.th_dn, children).selection {
            Selection::Return(value) => State::Return(value),
            Selection::Descend {
                index,
                th_pn,
                th_dn,
            } => State::Descend {
                index,
                th_pn,
                th_dn,
            },
        }
    }

    /// Descend: the limits are checked, the move made, the child's frame entered.
    fn descend(&mut self, index: usize, th_pn: Pn, th_dn: Pn) -> Result<State, Reason> {
        if self.counters.nodes >= self.node_limit {
            return Err(Reason::NodeLimit {
                nodes: self.node_limit,
            });
        }
        if self.stop.is_some_and(|s| s.load(Ordering::Relaxed)) {
            return Err(Reason::Stopped);
        }
        debug_assert!(self.depth + 1 < self.config.max_plies, "a frame per ply");
        let record = self.path.record_mut(self.depth);
        record.best = index;
        let kind = record.kind.flip();
        let Child { mv, hash, .. } = self.frames.frame(self.depth)[index];
        self.board.apply_move(mv);
        self.counters.nodes += 1;
        debug_assert_eq!(hash, Keys::get().hash(&self.board), "incremental hash");
        self.depth += 1;
        self.enter(hash, kind, th_pn, th_dn);
        Ok(State::Expand)
    }

    /// The table write of a returning node: proofs always, disproofs unless they depend
    /// on a repetition of a position above this node, the numbers of an unsolved node;
    /// keyed by the position and the plies left.
    fn store(&mut self, v: Value, pieces: Hand) {
        let d = self.depth;
        if v.dn == 0 && !final_at(v.rep, d) {
            return;
        }
        let left = self.root_left - d as u32;
        self.counters.stores += 1;
        let bounded = v.dn == 0 && v.bounded;
        let (key, hand) = match &mut self.table {
            Memory::Plies(table) => {
                let key = Keys::get().table_key(self.path.hash(d), left);
                table.store(key, v.pn, v.dn, v.len, bounded);
                (key, EMPTY)
            }
            Memory::Pieces(table) => {
                let probe = self.rule.probe(&self.board, self.path.hash(d), left);
                table.store(probe, v.pn, v.dn, v.len, bounded, pieces);
                (probe.key, kept_hand(v.pn, v.dn, probe.hand, pieces))
            }
        };
        if let Some(log) = self.store_log.as_mut() {
            log.push(StoreRecord {
                key,
                pn: v.pn,
                dn: v.dn,
                len: v.len,
                bounded,
                left,
                hand,
            });
        }
    }

    /// With the pieces table: the pieces of the current node's solved value `v` (its
    /// children's, or those EXPAND gave a terminal node); nothing otherwise.
    fn pieces_of(&self, v: &Value) -> Hand {
        if matches!(self.table, Memory::Plies(_)) || (v.pn != 0 && v.dn != 0) {
            return EMPTY;
        }
        let record = self.path.record(self.depth);
        let frame = self.frames.frame(self.depth);
        if frame.is_empty() {
            return record.pieces;
        }
        node_pieces(&self.board, &self.rule, record.kind, v, frame)
    }

    /// Return: the move is taken back and the parent's frame takes the child's value, its
    /// numbers as the frame keeps them ([`Value::framed`]).
    fn ascend(&mut self, mut v: Value, pieces: Hand) -> State {
        if v.dn == 0 && final_at(v.rep, self.depth) {
            v.rep = REP_NONE;
        }
        self.depth -= 1;
        let best = self.path.record(self.depth).best;
        let child = self.frames.child_mut(self.depth, best);
        self.board
            .undo_move(child.mv)
            .expect("undo of the move just made");
        child.value = v.framed();
        child.pieces = pieces;
        State::Select
    }
}

/// Whether a disproof that found the position of ply `rep` repeated is final at ply `d`:
/// the repeated position is this node or below it (or there is none).
fn final_at(rep: u16, d: usize) -> bool {
    usize::from(rep) >= d
}
