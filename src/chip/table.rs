//! The search controller's blocks in simulation: the transposition table
//! (`hdl/search/transposition_table.spade`, top `tt_top` in `hdl/search/tt_top.spade`, at
//! the geometry of `hdl/search/geometry.spade`) and its driver, which speaks the
//! table's command interface one command at a time and counts the cycles each takes.

use marlin::spade::prelude::*;

use crate::bus::{pack_hand, unpack_hand};
use crate::chip::{Chip, clocked_model};
use crate::solver::hands::{EMPTY, Hand};
use crate::solver::pieces::{Hit, kept_hand};
use crate::solver::transposition_table::Placement;
use crate::solver::values::Pn;

/// The transposition table with the geometry of swim.toml `[search]`
/// (`hdl/search/tt_top.spade` around `hdl/search/transposition_table.spade`).
#[spade(src = "hdl/search/tt_top.spade", name = "tt_top")]
pub struct TtTop;

clocked_model!(TtTop);

/// The geometry `tt_top` builds the table with: swim.toml `[search]`, which
/// `hdl/search/geometry.spade` is generated from (a library test fails when the two
/// differ): (index bits, sets, ways).
pub fn chip_geometry() -> anyhow::Result<(u32, u64, usize)> {
    let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("swim.toml");
    let config = crate::solver::Config::from_manifest(&manifest)?;
    Ok((
        config.tt_index_bits,
        1u64 << config.tt_index_bits,
        config.tt_ways,
    ))
}

/// Cycles from a lookup's command to its answer (the command's cycle is cycle 0).
pub const LOOKUP_LATENCY: u64 = 5;
/// Cycles a store takes: from its command to the first cycle a command is taken again.
pub const STORE_CYCLES: u64 = 6;

/// The longest wait for `ready` before the driver gives up (a sweep takes a cycle a set).
const MAX_WAIT: u64 = 1 << 24;

/// `cmd_op` of `tt_top`.
const OP_LOOKUP: u8 = 0;
const OP_STORE: u8 = 1;
const OP_CLEAR: u8 = 2;

/// Driver of [`TtTop`].
pub type TableChip<'ctx> = Chip<'ctx, TtTop<'ctx>>;

impl TableChip<'_> {
    /// The table's mode from the next command on: depth-free entries, or keyed by plies
    /// left (the reset's). Clear the table after a change: the entries of one mode mean
    /// nothing to the other.
    pub fn set_depth_free(&mut self, depth_free: bool) {
        self.model_mut().depth_free = u8::from(depth_free);
    }

    /// The table's hand switch from the next command on: the hands out of the key, a way
    /// answering for the hands its pieces cover, or not (the reset's). Clear the table
    /// after a change.
    pub fn set_hand_superiority(&mut self, hand_superiority: bool) {
        self.model_mut().hand_superiority = u8::from(hand_superiority);
    }

    /// Wait until the table takes commands (after the reset and a clear that sweeps, up to
    /// a sweep of every set): the cycles waited.
    pub fn wait_ready(&mut self) -> anyhow::Result<u64> {
        let mut waited = 0;
        while self.model().ready == 0 {
            anyhow::ensure!(waited < MAX_WAIT, "tt_top not ready {MAX_WAIT} cycles on");
            self.tick();
            waited += 1;
        }
        Ok(waited)
    }

    /// Offer one command for one cycle (the table must be ready: it is taken at this
    /// clock edge), then take it away.
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
    ) {
        let m = self.model_mut();
        m.hand = pack_hand(*hand) as u32;
        m.cmd_valid = 1;
        m.cmd_op = op;
        m.key = key;
        m.pn = pn;
        m.dn = dn;
        m.len = len;
        m.bounded = u8::from(bounded);
        m.left = left;
        self.tick();
        let m = self.model_mut();
        m.cmd_valid = 0;
        m.cmd_op = 0;
        m.key = 0;
    }

    /// The answer on the outputs now, if `answer_valid`: the way's numbers and its hand
    /// (the pieces of a solved way).
    fn answer(&self) -> Option<Option<Hit>> {
        let m = self.model();
        (m.answer_valid == 1).then(|| {
            (m.found == 1).then_some(Hit {
                pn: m.found_pn,
                dn: m.found_dn,
                len: m.found_len,
                bounded: m.found_bounded == 1,
                pieces: unpack_hand(u64::from(m.found_pieces)),
            })
        })
    }

    /// Look `key` up with `left` plies left (read by depth-free entries only) and the
    /// attacker's `hand` (read with hand superiority only): what the table holds for it,
    /// and the cycles from the command to the answer.
    pub fn lookup(
        &mut self,
        key: u64,
        left: u16,
        hand: &Hand,
    ) -> anyhow::Result<(Option<Hit>, u64)> {
        self.wait_ready()?;
        self.command(OP_LOOKUP, key, 0, 0, 0, false, left, hand);
        for cycles in 1..=8 {
            if let Some(answer) = self.answer() {
                return Ok((answer, cycles));
            }
            self.tick();
        }
        anyhow::bail!("no answer to the lookup of {key:#018x} within 8 cycles")
    }

    /// Look every (key, plies left, hand) up, one command a cycle (the lookups pipelined):
    /// the answers in order.
    pub fn lookup_burst(&mut self, keys: &[(u64, u16, Hand)]) -> anyhow::Result<Vec<Option<Hit>>> {
        self.wait_ready()?;
        let mut answers = Vec::with_capacity(keys.len());
        let mut cycles = 0;
        for (key, left, hand) in keys {
            anyhow::ensure!(self.model().ready == 1, "not ready during a lookup burst");
            self.command(OP_LOOKUP, *key, 0, 0, 0, false, *left, hand);
            answers.extend(self.answer());
            cycles += 1;
        }
        while answers.len() < keys.len() {
            anyhow::ensure!(
                cycles < keys.len() as u64 + 8,
                "{} answers to {} lookups",
                answers.len(),
                keys.len()
            );
            self.tick();
            answers.extend(self.answer());
            cycles += 1;
        }
        Ok(answers)
    }

    /// Store the values of `key` found with `left` plies left and the attacker's `hand`,
    /// with `pieces` for a solved value (the model's `PieceTable::store`; the way keeps
    /// the pieces of a solved value, the hand of another): the branch of the replacement
    /// rule the chip took, and the cycles from the command to the table taking commands
    /// again.
    #[allow(clippy::too_many_arguments)]
    pub fn store(
        &mut self,
        key: u64,
        pn: Pn,
        dn: Pn,
        len: u16,
        bounded: bool,
        left: u16,
        hand: &Hand,
        pieces: &Hand,
    ) -> anyhow::Result<(Placement, u64)> {
        self.wait_ready()?;
        let kept = kept_hand(pn, dn, *hand, *pieces);
        self.command(OP_STORE, key, pn, dn, len, bounded, left, &kept);
        let cycles = 1 + self.wait_ready()?;
        let rule = Placement::ALL[usize::from(self.model().store_rule & 7)];
        Ok((rule, cycles))
    }

    /// Empty the table: the cycles from the command to the table taking commands again
    /// (1, or a sweep of every set when the generation wraps).
    pub fn clear(&mut self) -> anyhow::Result<u64> {
        self.wait_ready()?;
        self.command(OP_CLEAR, 0, 0, 0, 0, false, 0, &EMPTY);
        Ok(1 + self.wait_ready()?)
    }
}
