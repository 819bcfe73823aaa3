//! The count unit on chip (`hdl/search/count_unit_top.spade`: `count_unit_top`): the
//! position store and the unit that estimates a check's child's first proof number, the
//! twin of the model's `Estimate::Attacked` (src/solver/count_estimate.rs).

use marlin::spade::prelude::*;

use crate::bus;
use crate::chip::{Chip, bus_model};
use crate::position::Position;

/// The position store and the count unit (`count_unit_top`).
#[spade(src = "hdl/search/count_unit_top.spade", name = "count_unit_top")]
pub struct CountUnitTop;

bus_model!(CountUnitTop);

/// Cycles from a move word on `mv` to its estimate on `estimate` (the unit's five stages).
pub const LATENCY: usize = 5;

/// Driver of [`CountUnitTop`].
pub type CountChip<'ctx> = Chip<'ctx, CountUnitTop<'ctx>>;

/// The node's signals as the unit registered them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChipNode {
    /// The ring squares the attacker attacks: bit d for the king's neighbour in direction
    /// d (0 N, 1 NE, 2 E, 3 SE, 4 S, 5 SW, 6 W, 7 NW).
    pub attacked: u8,
    /// The ring squares two of the attacker's pieces or more attack.
    pub attacked2: u8,
    /// The number of kinds in the defender's hand.
    pub hand_kinds: u8,
}

impl CountChip<'_> {
    /// Load the OR node `pos` over the bus and wait for the node's signals (`ready`: the
    /// unit's scan of the ring, a square a cycle).
    pub fn load_node(&mut self, pos: &Position) -> ChipNode {
        self.load(pos);
        let mut waited = 0;
        while self.model().ready == 0 {
            assert!(waited < 20, "the count unit's node signals are not ready");
            self.tick();
            waited += 1;
        }
        let m = self.model();
        ChipNode {
            attacked: m.node_attacked,
            attacked2: m.node_attacked2,
            hand_kinds: m.node_hand_kinds,
        }
    }

    /// The terms of the last check estimated: free ring squares left, takers, squares
    /// between, direct, discovered.
    pub fn terms(&self) -> (u8, u8, u8, bool, bool) {
        let m = self.model();
        (
            m.t_squares,
            m.t_takers,
            m.t_between,
            m.t_direct != 0,
            m.t_discovered != 0,
        )
    }

    /// The estimate of the check `mv` of the loaded node, `mv` held through the unit's
    /// [`LATENCY`] cycles (its terms, [`CountChip::terms`], are those of `mv` too).
    pub fn estimate(&mut self, mv: rsshogi::types::Move) -> u8 {
        self.model_mut().mv = bus::encode_move(mv);
        for _ in 0..LATENCY {
            self.tick();
        }
        self.model().estimate
    }

    /// The estimates of `moves` of the loaded node given one a cycle, as EXPAND's stream
    /// gives them: each read [`LATENCY`] cycles after its move.
    pub fn estimates_streamed(&mut self, moves: &[rsshogi::types::Move]) -> Vec<u8> {
        let mut out = Vec::with_capacity(moves.len());
        for i in 0..moves.len() + LATENCY {
            if let Some(&mv) = moves.get(i) {
                self.model_mut().mv = bus::encode_move(mv);
            }
            self.tick();
            if i + 1 >= LATENCY && out.len() < moves.len() {
                out.push(self.model().estimate);
            }
        }
        out
    }
}
