//! The search's frames of the host link (docs/protocol.md, "Search"; the chip's side is
//! `hdl/link/solver_link.spade`): requests that drive the solver on the board, and its
//! answers.

use super::frame::{Frame, Malformed, WORD_BYTES};
use crate::bus;
use crate::chip::solver::Cycles;
use crate::solver::Counters;
use crate::solver::transposition_table::Found;
use crate::solver::values::Value;

/// Frame types of the search.
pub mod kind {
    /// Load a position (60 bytes, as LOAD) without a list; answered with HASH.
    pub const POSITION: u8 = 0x06;
    /// Search the stored position: plies left (2), flags (1: bit 0 AND root), progress
    /// period (1: log2 of the cycles between PROGRESS frames, 0 none), node limit (8).
    pub const SEARCH: u8 = 0x07;
    /// Stop the search before its next move.
    pub const STOP: u8 = 0x08;
    /// A new solve: table bits (1), child limit (2); answered with CLEARED.
    pub const BEGIN: u8 = 0x09;
    /// Read the root's child (2: its index) after a search; answered with CHILD.
    pub const CHILD: u8 = 0x0a;
    /// Read the table at a key (8); answered with FOUND.
    pub const LOOKUP: u8 = 0x0b;
    /// Walk the mating line from the stored position: plies left (2), flags (1: bit 0 AND
    /// node); answered with WALKED and a LINE frame a move.
    pub const WALK: u8 = 0x0c;
    /// Ask for the chip's geometry; answered with INFO.
    pub const INFO: u8 = 0x0d;
    /// The stored position's hash (8).
    pub const HASH: u8 = 0x86;
    /// While a search runs: nodes (8), cycles (8) since the solve began.
    pub const PROGRESS: u8 = 0x87;
    /// A search's end: result (1), pn (4), dn (4), len (2), rep (2), bounded (1),
    /// children (2), root children (2), nodes, expansions, probes, stores (8 each).
    pub const DONE: u8 = 0x88;
    /// After DONE: the cycle counters (8 each): total, wait, expand, select, descend, return.
    pub const CYCLES: u8 = 0x89;
    /// The table is empty and the counters zero.
    pub const CLEARED: u8 = 0x8a;
    /// A root child: index (2), move word (2), pn (4), dn (4), len (2), rep (2), bounded (1).
    pub const CHILD_REPLY: u8 = 0x8b;
    /// A lookup's answer: found (1), pn (4), dn (4), len (2), bounded (1).
    pub const FOUND: u8 = 0x8c;
    /// A walk's end: complete (1), moves (2), cycles (4).
    pub const WALKED: u8 = 0x8d;
    /// A move of the walked line: index (2), move word (2).
    pub const LINE: u8 = 0x8e;
    /// The geometry: table bits (1), ways (1), max plies (2), max children (2).
    pub const INFO_REPLY: u8 = 0x8f;
}

/// A request of the search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchRequest {
    /// The ten load-bus words of a position ([`bus::load_words`]).
    Position([u64; bus::LOAD_WORDS]),
    Search {
        left: u16,
        and_root: bool,
        progress_log2: u8,
        node_limit: u64,
    },
    Stop,
    Begin {
        table_bits: u8,
        max_children: u16,
        /// The table's mode: depth-free entries, else keyed by plies left.
        depth_free: bool,
        /// Hand superiority, with the table key's rule: the attacker's colour and the
        /// complete kinds (bit k - 1 for hand kind k), fixed for the solve.
        hand_superiority: bool,
        attacker_white: bool,
        complete: u8,
    },
    Child(u16),
    /// A table read at a key with the node's plies left (read by depth-free entries) and
    /// the attacker's hand (packed, [`bus::pack_hand`]; read with hand superiority).
    Lookup {
        key: u64,
        left: u16,
        hand: u32,
    },
    Walk {
        left: u16,
        and_node: bool,
    },
    Info,
}

impl SearchRequest {
    /// POSITION of `board`.
    pub fn position(pos: &crate::position::Position) -> SearchRequest {
        SearchRequest::Position(bus::load_words(pos).map(|(_, word)| word))
    }

    pub fn frame(&self) -> Frame {
        match self {
            SearchRequest::Position(words) => {
                let mut payload = Vec::with_capacity(60);
                for word in words {
                    payload.extend_from_slice(&word.to_le_bytes()[..WORD_BYTES]);
                }
                Frame::new(kind::POSITION, payload)
            }
            SearchRequest::Search {
                left,
                and_root,
                progress_log2,
                node_limit,
            } => {
                let mut p = left.to_le_bytes().to_vec();
                p.push(u8::from(*and_root));
                p.push(*progress_log2);
                p.extend_from_slice(&node_limit.to_le_bytes());
                Frame::new(kind::SEARCH, p)
            }
            SearchRequest::Stop => Frame::new(kind::STOP, []),
            SearchRequest::Begin {
                table_bits,
                max_children,
                depth_free,
                hand_superiority,
                attacker_white,
                complete,
            } => {
                let mut p = vec![*table_bits];
                p.extend_from_slice(&max_children.to_le_bytes());
                p.push(
                    u8::from(*depth_free)
                        | u8::from(*hand_superiority) << 1
                        | u8::from(*attacker_white) << 2,
                );
                p.push(*complete);
                Frame::new(kind::BEGIN, p)
            }
            SearchRequest::Child(index) => Frame::new(kind::CHILD, index.to_le_bytes()),
            SearchRequest::Lookup { key, left, hand } => {
                let mut p = key.to_le_bytes().to_vec();
                p.extend_from_slice(&left.to_le_bytes());
                p.extend_from_slice(&hand.to_le_bytes()[..3]);
                Frame::new(kind::LOOKUP, p)
            }
            SearchRequest::Walk { left, and_node } => {
                let mut p = left.to_le_bytes().to_vec();
                p.push(u8::from(*and_node));
                Frame::new(kind::WALK, p)
            }
            SearchRequest::Info => Frame::new(kind::INFO, []),
        }
    }
}

/// A search's end (DONE).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Done {
    /// 0 the root's value, 1 node limit, 2 stopped, 3 child limit.
    pub result: u8,
    pub value: Value,
    /// With the child limit: the moves of the node that had too many.
    pub children: u16,
    /// The root's children, for CHILD.
    pub root_n: u16,
    /// The solve's counters so far.
    pub counters: Counters,
}

/// The chip's geometry (INFO).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    pub tt_index_bits: u8,
    pub tt_ways: u8,
    pub max_plies: u16,
    pub max_children: u16,
}

/// An answer of the search.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchAnswer {
    Hash(u64),
    Progress {
        nodes: u64,
        cycles: u64,
    },
    Done(Done),
    Cycles(Cycles),
    Cleared,
    Child {
        index: u16,
        word: u16,
        value: Value,
    },
    Found(Option<Found>),
    Walked {
        complete: bool,
        len: u16,
        cycles: u32,
    },
    Line {
        index: u16,
        word: u16,
    },
    Info(Geometry),
}

/// Little-endian fields read in order from a payload of known length.
struct Fields<'a>(&'a [u8]);

impl Fields<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let (head, rest) = self.0.split_at(N);
        self.0 = rest;
        head.try_into().expect("length checked")
    }
    fn u8(&mut self) -> u8 {
        self.take::<1>()[0]
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.take())
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take())
    }
    /// pn (4), dn (4), len (2), rep (2), bounded (1).
    fn value(&mut self) -> Value {
        Value {
            pn: self.u32(),
            dn: self.u32(),
            len: self.u16(),
            rep: self.u16(),
            bounded: self.u8() != 0,
        }
    }
}

/// The payload length of each answer type.
fn answer_length(kind: u8) -> Option<usize> {
    Some(match kind {
        kind::HASH => 8,
        kind::PROGRESS => 16,
        kind::DONE => 50,
        kind::CYCLES => 48,
        kind::CLEARED => 0,
        kind::CHILD_REPLY => 17,
        kind::FOUND => 12,
        kind::WALKED => 7,
        kind::LINE => 4,
        kind::INFO_REPLY => 6,
        _ => return None,
    })
}

impl SearchAnswer {
    /// The answer in `frame`, `None` when it is not a search frame.
    pub fn parse(frame: &Frame) -> Option<Result<SearchAnswer, Malformed>> {
        let len = answer_length(frame.kind)?;
        let mut f = match frame.payload_of(len) {
            Ok(payload) => Fields(payload),
            Err(e) => return Some(Err(e)),
        };
        Some(Ok(match frame.kind {
            kind::HASH => SearchAnswer::Hash(f.u64()),
            kind::PROGRESS => SearchAnswer::Progress {
                nodes: f.u64(),
                cycles: f.u64(),
            },
            kind::DONE => {
                let result = f.u8();
                let value = f.value();
                let (children, root_n) = (f.u16(), f.u16());
                SearchAnswer::Done(Done {
                    result,
                    value,
                    children,
                    root_n,
                    counters: Counters {
                        nodes: f.u64(),
                        expansions: f.u64(),
                        probes: f.u64(),
                        stores: f.u64(),
                        ..Counters::default()
                    },
                })
            }
            kind::CYCLES => SearchAnswer::Cycles(Cycles {
                total: f.u64(),
                wait: f.u64(),
                expand: f.u64(),
                select: f.u64(),
                descend: f.u64(),
                ret: f.u64(),
            }),
            kind::CLEARED => SearchAnswer::Cleared,
            kind::CHILD_REPLY => {
                let (index, word) = (f.u16(), f.u16());
                SearchAnswer::Child {
                    index,
                    word,
                    value: f.value(),
                }
            }
            kind::FOUND => {
                let found = f.u8() != 0;
                let (pn, dn, len, bounded) = (f.u32(), f.u32(), f.u16(), f.u8());
                SearchAnswer::Found(found.then_some(Found {
                    pn,
                    dn,
                    len,
                    bounded: bounded != 0,
                }))
            }
            kind::WALKED => SearchAnswer::Walked {
                complete: f.u8() != 0,
                len: f.u16(),
                cycles: f.u32(),
            },
            kind::LINE => SearchAnswer::Line {
                index: f.u16(),
                word: f.u16(),
            },
            _ => SearchAnswer::Info(Geometry {
                tt_index_bits: f.u8(),
                tt_ways: f.u8(),
                max_plies: f.u16(),
                max_children: f.u16(),
            }),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_requests_lay_out_their_fields() {
        let f = SearchRequest::Search {
            left: 0x0123,
            and_root: true,
            progress_log2: 13,
            node_limit: 0x0102_0304_0506_0708,
        }
        .frame();
        assert_eq!(f.kind, kind::SEARCH);
        assert_eq!(f.payload, [0x23, 0x01, 1, 13, 8, 7, 6, 5, 4, 3, 2, 1]);
        let b = SearchRequest::Begin {
            table_bits: 12,
            max_children: 300,
            depth_free: true,
            hand_superiority: true,
            attacker_white: true,
            complete: 0x7f,
        };
        assert_eq!(b.frame().payload, [12, 0x2c, 0x01, 7, 0x7f]);
        assert_eq!(SearchRequest::Child(5).frame().payload, [5, 0]);
        let l = SearchRequest::Lookup {
            key: 0x0102_0304_0506_0708,
            left: 0x0203,
            hand: 0x1a_0b0c,
        };
        assert_eq!(
            l.frame().payload,
            [8, 7, 6, 5, 4, 3, 2, 1, 3, 2, 0x0c, 0x0b, 0x1a]
        );
    }

    #[test]
    fn search_answers_parse() {
        let mut p = vec![0u8; 50];
        p[0] = 2;
        p[1..5].copy_from_slice(&7u32.to_le_bytes());
        p[18..26].copy_from_slice(&99u64.to_le_bytes());
        p[42..50].copy_from_slice(&3u64.to_le_bytes());
        let Some(Ok(SearchAnswer::Done(d))) = SearchAnswer::parse(&Frame::new(kind::DONE, p))
        else {
            panic!("DONE did not parse")
        };
        assert_eq!((d.result, d.value.pn, d.counters.nodes), (2, 7, 99));
        assert_eq!(d.counters.stores, 3);
        assert!(SearchAnswer::parse(&Frame::new(kind::DONE, [0; 49])).is_some_and(|r| r.is_err()));
        assert!(SearchAnswer::parse(&Frame::new(0x81, [0; 3])).is_none());
        let line = SearchAnswer::parse(&Frame::new(kind::LINE, [1, 0, 0x34, 0x12]));
        assert_eq!(
            line.unwrap().unwrap(),
            SearchAnswer::Line {
                index: 1,
                word: 0x1234
            }
        );
    }
}
