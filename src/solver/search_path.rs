//! The search path: what the controller keeps of every node between the root and the node
//! it works on, one record per ply, besides the node's children (the child frames) and its
//! position (the machine's board, with the moves of the path made on it). The chip's twin
//! is `hdl/search/search_path.spade`: the path's hashes that EXPAND's repetition check
//! compares, and the record DESCEND pushes and RETURN takes back. No test drives the chip's
//! path alone: `tests/hw_solver.rs` covers it, with the whole search node for node (every
//! repetition found, every threshold and every store of the model's).
//!
//! The model's record holds what the chip's holds in its own way: the node's kind (on
//! chip the parity of its ply), its thresholds and the child searched below it; the move
//! to that child and its undo record are in the child frame and the board here, and the
//! node's table key is computed again from its hash when RETURN stores it.

use super::hands::{EMPTY, Hand};
use super::moves::Kind;
use super::values::Pn;

/// The record of the node at one ply of the path.
pub struct Record {
    /// Its position hash.
    pub hash: u64,
    pub kind: Kind,
    pub th_pn: Pn,
    pub th_dn: Pn,
    /// The index of the child being searched below this node.
    pub best: usize,
    /// With the pieces table: the pieces of a node EXPAND solved at once (RETURN's, a
    /// register of the controller on chip).
    pub pieces: Hand,
}

/// The records of the path, ply 0 (the root) first: a record is made the first time a
/// node is entered at its ply and written again for the nodes entered there later.
#[derive(Default)]
pub struct SearchPath {
    records: Vec<Record>,
}

impl SearchPath {
    /// Enters a node at `ply` (one past the deepest record at most: the path grows a ply
    /// at a time) with its hash, kind and thresholds, no child searched yet. The pieces of
    /// a record written again are left as they were (EXPAND writes them before they are
    /// read).
    pub fn enter(&mut self, ply: usize, hash: u64, kind: Kind, th_pn: Pn, th_dn: Pn) {
        if self.records.len() == ply {
            self.records.push(Record {
                hash,
                kind,
                th_pn,
                th_dn,
                best: 0,
                pieces: EMPTY,
            });
        }
        let record = &mut self.records[ply];
        record.hash = hash;
        record.kind = kind;
        record.th_pn = th_pn;
        record.th_dn = th_dn;
        record.best = 0;
    }

    /// The record of `ply`.
    pub fn record(&self, ply: usize) -> &Record {
        &self.records[ply]
    }

    /// The record of `ply`, to write.
    pub fn record_mut(&mut self, ply: usize) -> &mut Record {
        &mut self.records[ply]
    }

    /// The hash of the node at `ply` (EXPAND's repetition check).
    pub fn hash(&self, ply: usize) -> u64 {
        self.records[ply].hash
    }
}
