//! The search's SELECT on the simulated chip: the child-frame memory and the scan of
//! `hdl/search/select_top.spade`, driven like the tops of [`crate::chip`]. The chip's answer
//! is a [`Scan`] of `src/solver/select.rs`, so it compares with the model's as it is.

use anyhow::ensure;
use marlin::spade::prelude::*;

use crate::chip::{Chip, ClockedModel, clocked_model};
use crate::solver::Kind;
use crate::solver::hands::{Hand, HandChange};
use crate::solver::select::{Scan, Selection};
use crate::solver::values::Pn;
use crate::solver::values::Value;

/// The child-frame memory and the SELECT scan (`hdl/search/select_top.spade`).
#[spade(src = "hdl/search/select_top.spade", name = "select_top")]
pub struct SelectTop;

clocked_model!(SelectTop);
frame_peek_model!(SelectTop);

/// The tops with the child-frame memory's read-back port (`peek_ply`, `peek_index` in; the
/// entry out a cycle later).
pub trait FramePeekModel<'ctx>: ClockedModel<'ctx> {
    fn set_peek(&mut self, ply: u16, index: u16);
    /// The entry read back: move word and value.
    fn peeked(&self) -> (u16, Value);
    /// The entry read back: its pieces and its move's hand change (the chip's code).
    fn peeked_pieces(&self) -> (Hand, u8);
}

/// Implements [`FramePeekModel`] for a clocked top with the read-back port.
macro_rules! frame_peek_model {
    ($top:ident) => {
        impl<'ctx> $crate::chip::select::FramePeekModel<'ctx> for $top<'ctx> {
            fn set_peek(&mut self, ply: u16, index: u16) {
                self.peek_ply = ply;
                self.peek_index = index;
            }
            fn peeked(&self) -> (u16, $crate::solver::values::Value) {
                let value = $crate::solver::values::Value {
                    pn: self.peek_pn,
                    dn: self.peek_dn,
                    len: self.peek_len,
                    rep: self.peek_rep,
                    bounded: self.peek_bounded == 1,
                };
                (self.peek_mv, value)
            }
            fn peeked_pieces(&self) -> ($crate::solver::hands::Hand, u8) {
                (
                    $crate::bus::unpack_hand(u64::from(self.peek_pieces)),
                    self.peek_change,
                )
            }
        }
    };
}
pub(crate) use frame_peek_model;

impl<'ctx, M: FramePeekModel<'ctx>> Chip<'ctx, M> {
    /// Reads child `index` of the frame at ply `ply` back (two cycles, the frame memory's
    /// other users idle: `solver_top` registers the entry read before its outputs).
    pub fn peek_child(&mut self, ply: usize, index: usize) -> (u16, Value) {
        self.model_mut().set_peek(ply as u16, index as u16);
        self.tick();
        self.tick();
        self.model().peeked()
    }

    /// The pieces and the move's hand change (the chip's code) of the child
    /// [`Chip::peek_child`] read last.
    pub fn peeked_pieces(&self) -> (Hand, u8) {
        self.model().peeked_pieces()
    }
}

/// What the chip's scan answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChipScan {
    /// The node's numbers, best child, second best number and decision, as the model's.
    pub scan: Scan,
    /// The best child's move word (what DESCEND makes).
    pub best_move: u16,
    /// A solved node's pieces from its children and the refuter's hand change (the
    /// chip's code), as [`crate::solver::solved_pieces::scan_pieces`] gives them.
    pub pieces: Hand,
    pub ref_change: u8,
    /// Clock cycles from the start cycle (counted) to the first with `done`.
    pub cycles: u64,
}

/// Driver of [`SelectTop`].
pub type SelectChip<'ctx> = Chip<'ctx, SelectTop<'ctx>>;

impl SelectChip<'_> {
    /// The geometry the chip's frame memory is built for: (max_plies, max_children).
    pub fn geometry(&mut self) -> (usize, usize) {
        let model = self.model_mut();
        model.eval();
        (
            usize::from(model.geometry_plies),
            usize::from(model.geometry_children),
        )
    }

    /// Writes child `index` of the frame at ply `ply`: its move word, value, pieces and
    /// the move's hand change (one cycle).
    pub fn write_child(
        &mut self,
        ply: usize,
        index: usize,
        mv: u16,
        v: &Value,
        pieces: &Hand,
        change: HandChange,
    ) {
        let m = self.model_mut();
        m.write = 1;
        m.w_ply = ply as u16;
        m.w_index = index as u16;
        m.w_mv = mv;
        m.w_pn = v.pn;
        m.w_dn = v.dn;
        m.w_len = v.len;
        m.w_rep = v.rep;
        m.w_bounded = u8::from(v.bounded);
        m.w_pieces = crate::bus::pack_hand(*pieces) as u32;
        m.w_change = change.code();
        self.tick();
        self.model_mut().write = 0;
    }

    /// SELECT of the node at ply `ply`, of `kind`, with `n` children in its frame and
    /// thresholds `th_pn`, `th_dn`; gives up `max_cycles` after the start.
    pub fn select(
        &mut self,
        ply: usize,
        kind: Kind,
        n: usize,
        th_pn: Pn,
        th_dn: Pn,
        max_cycles: u64,
    ) -> anyhow::Result<ChipScan> {
        ensure!(self.model().ready == 1, "the scan is busy: no start taken");
        let m = self.model_mut();
        m.start = 1;
        m.ply = ply as u16;
        m.n = u16::try_from(n)?;
        m.and_node = u8::from(kind == Kind::And);
        m.th_pn = th_pn;
        m.th_dn = th_dn;
        self.tick();
        self.model_mut().start = 0;
        let mut cycles = 1;
        while self.model().done == 0 {
            ensure!(
                cycles < max_cycles,
                "no result {max_cycles} cycles after the start"
            );
            self.tick();
            cycles += 1;
        }
        let m = self.model();
        let (pn, dn) = (m.r_pn, m.r_dn);
        let best = usize::from(m.r_best);
        let selection = if m.r_return == 1 {
            Selection::Return(Value {
                pn,
                dn,
                len: m.r_len,
                rep: m.r_rep,
                bounded: m.r_bounded == 1,
            })
        } else {
            Selection::Descend {
                index: best,
                th_pn: m.r_th_pn,
                th_dn: m.r_th_dn,
            }
        };
        Ok(ChipScan {
            scan: Scan {
                pn,
                dn,
                best,
                second: m.r_second,
                selection,
            },
            best_move: m.r_best_mv,
            pieces: crate::bus::unpack_hand(u64::from(m.r_pieces)),
            ref_change: m.r_ref_change,
            cycles,
        })
    }
}
