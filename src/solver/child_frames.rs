//! The child frames: one frame per ply of the path, the children of the node at that ply
//! in stream order, each with its move, its hash and its cached value (docs/search.md,
//! "Child frames and the state machine"). The chip's twin is
//! `hdl/search/child_frames.spade`, two banks of block RAM that EXPAND writes, SELECT reads
//! a pair of children a cycle and RETURN writes one child of. `tests/hw_select.rs`
//! compares the two (`select_top` holds the frames beside SELECT): frames written at
//! several plies, read back child by child and scanned, the model's own among them.

use rsshogi::types::Move;

use super::hands::Hand;
use super::values::Value;

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

/// The frames of the path, ply 0 (the root) first: a frame is made the first time a node
/// is entered at its ply and kept, emptied, for the nodes entered there later.
pub struct ChildFrames {
    frames: Vec<Vec<Child>>,
    /// Children one frame holds (swim.toml [search] `max_children`).
    max_children: usize,
}

impl ChildFrames {
    /// No frame yet; each will hold `max_children` children.
    pub fn new(max_children: usize) -> ChildFrames {
        ChildFrames {
            frames: Vec::new(),
            max_children,
        }
    }

    /// Empties the frame of `ply`, the ply of the node entered (one past the deepest frame
    /// at most: the path grows a ply at a time).
    pub fn clear(&mut self, ply: usize) {
        if self.frames.len() == ply {
            self.frames.push(Vec::with_capacity(self.max_children));
        }
        self.frames[ply].clear();
    }

    /// The children of the frame of `ply`.
    pub fn frame(&self, ply: usize) -> &[Child] {
        &self.frames[ply]
    }

    /// Child `index` of the frame of `ply`.
    pub fn child_mut(&mut self, ply: usize, index: usize) -> &mut Child {
        &mut self.frames[ply][index]
    }

    /// The frame of `ply` taken out to be filled (EXPAND), left empty until
    /// [`ChildFrames::put`] gives it back.
    pub fn take(&mut self, ply: usize) -> Vec<Child> {
        std::mem::take(&mut self.frames[ply])
    }

    /// Gives back the frame of `ply` taken by [`ChildFrames::take`].
    pub fn put(&mut self, ply: usize, children: Vec<Child>) {
        self.frames[ply] = children;
    }
}
