//! The search's EXPAND on the simulated chip (`hdl/search/expand_top.spade`): the position
//! store with its hash, the move generator, the transposition table, the child frames and
//! the EXPAND block between them, driven like the tops of [`crate::chip`].

use anyhow::ensure;
use marlin::spade::prelude::*;

use crate::bus::pack_hand;
use crate::chip::select::frame_peek_model;
use crate::chip::{Chip, bus_model};
use crate::position::Position;
use crate::solver::Kind;
use crate::solver::hands::{EMPTY, Hand};
use crate::solver::position_hash::KeyRule;
use crate::solver::values::Pn;

/// EXPAND with everything it reads (`expand_top`).
#[spade(src = "hdl/search/expand_top.spade", name = "expand_top")]
pub struct ExpandTop;

bus_model!(ExpandTop);
frame_peek_model!(ExpandTop);

/// Driver of [`ExpandTop`].
pub type ExpandChip<'ctx> = Chip<'ctx, ExpandTop<'ctx>>;

/// The longest wait for the table or the hash before the driver gives up (a sweep of the
/// table takes a cycle a set).
const MAX_WAIT: u64 = 1 << 16;

/// `cmd_op` of `expand_top`.
const OP_STORE: u8 = 1;
const OP_CLEAR: u8 = 2;

/// What an expansion ends with (the model's order: the child limit first, then a node
/// with no move, then no plies left): the chip's `Outcome` (hdl/search/expand.spade), name
/// for name, its `outcome` port 0 to 3 in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The frame is filled: go to SELECT.
    Filled,
    /// More children than a frame holds.
    ChildLimit,
    /// No move: an OR node has no check (NO_CHECK), an AND node is a proven leaf
    /// (PROVEN_LEAF).
    NoMove,
    /// No plies left at an AND node with evasions: NO_PLY_LEFT (disproven, bounded).
    NoPlyLeft,
}

/// What the chip reported of one expansion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expanded {
    pub outcome: Outcome,
    /// The length of the move list.
    pub children: usize,
    /// Table lookups the model counts (0 unless the outcome is [`Outcome::Filled`]).
    pub probes: u64,
    /// In check, a drop could block it (`hands::drop_can_block`).
    pub blockable: bool,
    /// A child of the list is a board move, not a drop.
    pub board_move: bool,
    /// Every child's (index, hash) as the chip computed it, in the order they came.
    pub hashes: Vec<(usize, u64)>,
    /// Clock cycles from the start cycle (counted) to the first with `done`.
    pub cycles: u64,
}

impl ExpandChip<'_> {
    /// Wait (at most [`MAX_WAIT`] cycles) until `ready` holds.
    fn wait(&mut self, what: &str, ready: impl Fn(&ExpandTop) -> bool) -> anyhow::Result<()> {
        let mut waited = 0;
        while !ready(self.model()) {
            ensure!(waited < MAX_WAIT, "{what}: not ready {MAX_WAIT} cycles on");
            self.tick();
            waited += 1;
        }
        Ok(())
    }

    /// Load `pos` and wait for its hash: the hash.
    pub fn load_hashed(&mut self, pos: &Position) -> anyhow::Result<u64> {
        self.load(pos);
        self.tick();
        self.wait("hash", |m| m.hash_valid == 1)?;
        Ok(self.model().hash)
    }

    /// Write the path's hash of ply `ply` (one cycle).
    pub fn write_path(&mut self, ply: usize, hash: u64) {
        let m = self.model_mut();
        m.path_write = 1;
        m.path_ply = ply as u16;
        m.path_hash = hash;
        self.tick();
        self.model_mut().path_write = 0;
    }

    /// The keys' and the table's rule from the next load and clear on (the model's
    /// `KeyRule`): depth-free entries, and hand superiority with its attacker and complete
    /// kinds (the hash unit's table key, EXPAND's probes with hands, the table's compares).
    pub fn set_rule(&mut self, rule: &KeyRule) {
        let m = self.model_mut();
        m.depth_free = u8::from(rule.depth_free);
        m.hand_superiority = u8::from(rule.hand_superiority);
        m.attacker_white = u8::from(rule.attacker_white());
        m.complete = rule.complete_mask();
    }

    #[allow(clippy::too_many_arguments)]
    fn command(
        &mut self,
        op: u8,
        key: u64,
        pn: Pn,
        dn: Pn,
        len: u16,
        bounded: bool,
        left: u16,
        hand: &Hand,
    ) -> anyhow::Result<()> {
        self.wait("table", |m| m.tt_ready == 1)?;
        let m = self.model_mut();
        m.cmd_valid = 1;
        m.cmd_left = left;
        m.hand = pack_hand(*hand) as u32;
        m.cmd_op = op;
        m.key = key;
        m.pn = pn;
        m.dn = dn;
        m.len = len;
        m.bounded = u8::from(bounded);
        self.tick();
        self.model_mut().cmd_valid = 0;
        self.wait("table", |m| m.tt_ready == 1)
    }

    /// Store an entry in the table (the table's own rule places it), found with `left`
    /// plies left and keeping `kept` (read by the pieces table only: a solved value's
    /// pieces, an unsolved one's hand, what `PieceTable::store` keeps).
    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &mut self,
        key: u64,
        pn: Pn,
        dn: Pn,
        len: u16,
        bounded: bool,
        left: u16,
        kept: &Hand,
    ) -> anyhow::Result<()> {
        self.command(OP_STORE, key, pn, dn, len, bounded, left, kept)
    }

    /// Empty the table.
    pub fn clear(&mut self) -> anyhow::Result<()> {
        self.command(OP_CLEAR, 0, 0, 0, 0, false, 0, &EMPTY)
    }

    /// EXPAND of the stored position as the node at ply `ply` of `kind` with `left` plies
    /// left and a child limit of `max_children` (1 to 1024, at most the frames'
    /// `max_children`); gives up `max_cycles` after the start.
    pub fn expand(
        &mut self,
        ply: usize,
        kind: Kind,
        left: u32,
        max_children: usize,
        max_cycles: u64,
    ) -> anyhow::Result<Expanded> {
        ensure!(
            (1..=1024).contains(&max_children),
            "a child limit of {max_children}: the chip takes 1 to 1024"
        );
        self.wait("table", |m| m.tt_ready == 1)?;
        ensure!(
            self.model().hash_valid == 1,
            "no hash: load a position first"
        );
        ensure!(self.model().busy == 0, "an expansion is under way");
        let m = self.model_mut();
        m.start = 1;
        m.ply = ply as u16;
        m.left = left as u16;
        m.and_node = u8::from(kind == Kind::And);
        m.max_children = max_children as u16;
        self.tick();
        self.model_mut().start = 0;
        let mut cycles = 1;
        let mut hashes = Vec::new();
        loop {
            let m = self.model();
            if m.child_valid == 1 {
                hashes.push((usize::from(m.child_index), m.child_hash));
            }
            if m.done == 1 {
                break;
            }
            ensure!(
                cycles < max_cycles,
                "no result {max_cycles} cycles after the start"
            );
            self.tick();
            cycles += 1;
        }
        let m = self.model();
        let outcome = match m.outcome {
            0 => Outcome::Filled,
            1 => Outcome::ChildLimit,
            2 => Outcome::NoMove,
            _ => Outcome::NoPlyLeft,
        };
        Ok(Expanded {
            outcome,
            children: usize::from(m.children),
            probes: u64::from(m.probes),
            blockable: m.blockable == 1,
            board_move: m.board_move == 1,
            hashes,
            cycles,
        })
    }
}
