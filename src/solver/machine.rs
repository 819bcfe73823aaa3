//! The search as the chip runs it: an iterative state machine over an explicit stack of
//! child frames (docs/search.md, "The state machine"). No recursion: every step the chip
//! takes is one arm of [`Machine::run`]'s loop, and every counter is exact.

use std::sync::atomic::{AtomicBool, Ordering};

use rsshogi::board::Position as Board;
use rsshogi::types::Move;

use super::hands::{self, EMPTY, Hand, KeyRule};
use super::moves::{Kind, ReplyCache, count_moves, node_moves};
use super::pieces::{PieceTable, Probe, kept_hand};
use super::position_hash::Keys;
use super::select::{self, Selection};
use super::transposition_table::Table;
use super::values::{INF, Pn, REP_NONE, Value};
use super::{Config, Counters, Reason, StoreRecord};
use crate::bus::encode_move;

/// One child in its parent's frame.
#[derive(Debug, Clone, Copy)]
pub struct Child {
    /// The move to it.
    pub mv: Move,
    /// Its position hash.
    pub hash: u64,
    /// Its cached value.
    pub value: Value,
    /// With the pieces table: the proof or disproof pieces of a solved value.
    pub pieces: Hand,
}

/// The frame of the node at one ply of the path.
struct Frame {
    hash: u64,
    kind: Kind,
    th_pn: Pn,
    th_dn: Pn,
    /// The index of the child being searched below this node.
    best: usize,
    children: Vec<Child>,
    /// With the pieces table: the pieces of a node EXPAND solved at once.
    pieces: Hand,
}

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
    frames: Vec<Frame>,
    depth: usize,
    scratch: Vec<Move>,
    on_select: Option<SelectHook<'a>>,
    /// Every store, when logged.
    store_log: Option<&'a mut Vec<StoreRecord>>,
    /// The child counts' replies, kept for the children met again.
    replies: ReplyCache,
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
            frames: Vec::new(),
            depth: 0,
            scratch: Vec::new(),
            on_select: None,
            store_log: None,
            replies: ReplyCache::default(),
        }
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
        &self.frames[0].children
    }

    /// Sets up the frame of the current ply.
    fn enter(&mut self, hash: u64, kind: Kind, th_pn: Pn, th_dn: Pn) {
        if self.frames.len() == self.depth {
            self.frames.push(Frame {
                hash,
                kind,
                th_pn,
                th_dn,
                best: 0,
                children: Vec::with_capacity(self.config.max_children),
                pieces: EMPTY,
            });
        }
        let frame = &mut self.frames[self.depth];
        frame.hash = hash;
        frame.kind = kind;
        frame.th_pn = th_pn;
        frame.th_dn = th_dn;
        frame.best = 0;
        frame.children.clear();
    }

    /// Expand: one move list; terminal nodes return at once; otherwise every child gets a
    /// value (a repetition of the path, a table entry, or a new node) in stream order
    /// ([`expand`](fn@expand)).
    fn expand(&mut self) -> Result<State, Reason> {
        let d = self.depth;
        let kind = self.frames[d].kind;
        self.counters.expansions += 1;
        let parent = self.frames[d].hash;
        let mut children = std::mem::take(&mut self.frames[d].children);
        let frames = &self.frames;
        let node = Node {
            ply: d,
            root_left: self.root_left,
            hash: parent,
        };
        let expanded = match &self.table {
            Memory::Plies(table) => expand(
                &self.board,
                kind,
                node,
                |q| frames[q].hash,
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
                    |q| frames[q].hash,
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
                            .lookup(probe)
                            .map(|f| (Value::found(f.pn, f.dn, f.len, f.bounded), f.pieces))
                    },
                )
            }
        };
        if self.config.child_counts && matches!(expanded, Ok(None)) {
            self.count_children(kind, &mut children);
        }
        self.frames[d].children = children;
        Ok(match expanded? {
            Some(value) => {
                if let Memory::Pieces(_) = self.table {
                    let pieces = super::solved_pieces::leaf_pieces(
                        &self.board,
                        &self.rule,
                        kind,
                        value,
                        &self.scratch,
                    );
                    self.frames[d].pieces = pieces;
                }
                State::Return(value)
            }
            None => State::Select,
        })
    }

    /// Child counts (docs/search.md, "Child counts"): each child of an expanded node of
    /// `kind` with the value of a new node gets its first numbers from its replies,
    /// counted with the move made: none, the child is solved (a defender mated, an
    /// attacker without a check); at an OR node the defender's number of replies is its
    /// proof number. One count each, in `counts`; no node.
    fn count_children(&mut self, kind: Kind, children: &mut [Child]) {
        let pieces_table = matches!(self.table, Memory::Pieces(_));
        for child in children.iter_mut().filter(|c| c.value == Value::NEW) {
            self.counters.counts += 1;
            // A child solved by its count needs the board after its move for its pieces.
            match self.replies.get(child.hash) {
                Some(0) if pieces_table => {}
                Some(replies) => {
                    child.value = first_value(kind, replies);
                    continue;
                }
                None => {}
            }
            self.board.apply_move(child.mv);
            let replies = count_moves(&self.board, kind.flip()) as Pn;
            self.replies.put(child.hash, replies);
            let value = first_value(kind, replies);
            if pieces_table && replies == 0 {
                child.pieces = super::solved_pieces::leaf_pieces(
                    &self.board,
                    &self.rule,
                    kind.flip(),
                    value,
                    &[],
                );
            }
            child.value = value;
            self.board
                .undo_move(child.mv)
                .expect("undo of the move just made");
        }
    }

    /// Select: one scan of the frame ([`select::select`]) gives the node's value; returns
    /// when a threshold is reached, else descends into the best child.
    fn select(&mut self) -> State {
        let frame = &self.frames[self.depth];
        if let Some(hook) = &mut self.on_select {
            hook(
                self.depth,
                frame.kind,
                frame.th_pn,
                frame.th_dn,
                &frame.children,
            );
        }
        let children = frame.children.iter().map(|c| (encode_move(c.mv), &c.value));
        match select::select(frame.kind, frame.th_pn, frame.th_dn, children).selection {
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
        let frame = &mut self.frames[self.depth];
        frame.best = index;
        let Child { mv, hash, .. } = frame.children[index];
        let kind = frame.kind.flip();
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
                let key = Keys::get().table_key(self.frames[d].hash, left);
                table.store(key, v.pn, v.dn, v.len, bounded);
                (key, EMPTY)
            }
            Memory::Pieces(table) => {
                let probe = self.rule.probe(&self.board, self.frames[d].hash, left);
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
        let frame = &self.frames[self.depth];
        if frame.children.is_empty() {
            return frame.pieces;
        }
        super::solved_pieces::node_pieces(&self.board, &self.rule, frame.kind, v, &frame.children)
    }

    /// Return: the move is taken back and the parent's frame takes the child's value, its
    /// numbers as the frame keeps them ([`Value::framed`]).
    fn ascend(&mut self, mut v: Value, pieces: Hand) -> State {
        if v.dn == 0 && final_at(v.rep, self.depth) {
            v.rep = REP_NONE;
        }
        self.depth -= 1;
        let frame = &mut self.frames[self.depth];
        let child = &mut frame.children[frame.best];
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

/// The node EXPAND works on: its ply, the plies left at the root, its hash.
#[derive(Debug, Clone, Copy)]
pub struct Node {
    /// The ply of the node (0: the root).
    pub ply: usize,
    /// Plies left at the root (the node has `root_left - ply`).
    pub root_left: u32,
    /// The node's position hash.
    pub hash: u64,
}

/// EXPAND of the node `node` of `kind` in `board` (docs/search.md, "Child frames and the
/// state machine"), as the machine and the chip do it: its move list into `moves`, then
/// the child limit, the terminal cases and the no-plies-left case in this order; otherwise
/// every child into `children` (cleared first) in stream order with its hash and value: a
/// repetition of the path's hash `path(q)` at ply q = d - 1, d - 3, ... (`(INF, 0)` with
/// `rep = q`), else one probe of `table` (counted in `probes`) with the child's table key,
/// its entry or [`Value::NEW`]. `Ok(Some(value))`: the node returns that value at once;
/// `Ok(None)`: the frame is filled (go to SELECT).
#[allow(clippy::too_many_arguments)]
pub fn expand(
    board: &Board,
    kind: Kind,
    node: Node,
    path: impl Fn(usize) -> u64,
    table: &Table,
    max_children: usize,
    moves: &mut Vec<Move>,
    children: &mut Vec<Child>,
    probes: &mut u64,
) -> Result<Option<Value>, Reason> {
    let keys = Keys::get();
    expand_with(
        board,
        kind,
        node,
        path,
        max_children,
        moves,
        children,
        probes,
        |hash, _| {
            let left = node.root_left - node.ply as u32;
            table
                .lookup(keys.table_key(hash, left - 1))
                .map(|f| (Value::found(f.pn, f.dn, f.len, f.bounded), EMPTY))
        },
    )
}

/// [`expand`](fn@expand) with the table read by `probe` (the child's hash and move: its
/// value and pieces, if an entry applies).
#[allow(clippy::too_many_arguments)]
pub fn expand_with(
    board: &Board,
    kind: Kind,
    node: Node,
    path: impl Fn(usize) -> u64,
    max_children: usize,
    moves: &mut Vec<Move>,
    children: &mut Vec<Child>,
    probes: &mut u64,
    mut probe: impl FnMut(u64, Move) -> Option<(Value, Hand)>,
) -> Result<Option<Value>, Reason> {
    children.clear();
    node_moves(board, kind, moves);
    if moves.len() > max_children {
        return Err(Reason::ChildLimit {
            children: moves.len(),
            max_children,
        });
    }
    if moves.is_empty() {
        return Ok(Some(match kind {
            Kind::Or => Value::NO_CHECK,
            Kind::And => Value::PROVEN_LEAF,
        }));
    }
    let d = node.ply;
    let left = node.root_left - d as u32;
    if left == 0 {
        return Ok(Some(Value::NO_PLY_LEFT));
    }
    let keys = Keys::get();
    let parent = node.hash;
    for &mv in moves.iter() {
        let hash = keys.after(board, parent, mv);
        // The path's positions with the child's side to move: plies d - 1, d - 3, ...
        let repeated = (0..d).rev().step_by(2).find(|&q| path(q) == hash);
        let (value, pieces) = if let Some(q) = repeated {
            let rep = Value {
                rep: q as u16,
                ..Value::NO_CHECK
            };
            (rep, hands::FULL)
        } else {
            *probes += 1;
            probe(hash, mv).unwrap_or((Value::NEW, EMPTY))
        };
        children.push(Child {
            mv,
            hash,
            value,
            pieces,
        });
    }
    Ok(None)
}

/// A new child's first value from its replies counted, under a parent of `kind`: none, the
/// child is solved (a defender mated, an attacker without a check); at an OR node the
/// defender's number of replies is its proof number.
fn first_value(kind: Kind, replies: Pn) -> Value {
    match kind {
        Kind::Or if replies == 0 => Value::PROVEN_LEAF,
        Kind::Or => Value {
            pn: replies,
            ..Value::NEW
        },
        Kind::And if replies == 0 => Value::NO_CHECK,
        Kind::And => Value::NEW,
    }
}
