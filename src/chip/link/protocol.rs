//! The host link's messages, both ways: the generator's requests and responses (the
//! search's are in [`super::search`]) on the frames of [`super::frame`], and what can go
//! wrong on the link.

use std::time::Duration;

use super::frame::{Frame, MAX_REQUEST_PAYLOAD, Malformed, WORD_BYTES};
use super::search::{SearchAnswer, SearchRequest};
use crate::bus;
use crate::position::Position;

/// Version byte of the STATUS frame of this protocol: 1 for the generator behind the link
/// (`link_top`), [`SOLVER_PROTOCOL_VERSION`] with the search's requests too.
pub const PROTOCOL_VERSION: u8 = 1;
/// Version byte of the STATUS frame of the solver behind the link (`solver_link_top`).
pub const SOLVER_PROTOCOL_VERSION: u8 = 3;

/// Frame types. Requests (host to chip) have bit 7 clear, responses have it set.
pub mod kind {
    /// Load a position (60 bytes: the ten load-bus words) and start its list.
    pub const LOAD: u8 = 0x01;
    /// Start the list of the stored position again (no payload).
    pub const GENERATE: u8 = 0x02;
    /// Apply a move word (2 bytes) to the stored position and start the new list.
    pub const APPLY: u8 = 0x03;
    /// Ask for a STATUS frame (no payload).
    pub const STATUS: u8 = 0x04;
    /// Read back load-bus word `addr` (1 byte) of the store; answered with WORD.
    pub const READ: u8 = 0x05;
    /// One move: move word (2 bytes), category code (1 byte).
    pub const MOVE: u8 = 0x81;
    /// End of a list: flags, move count (2 bytes), generator cycles (4 bytes).
    pub const END: u8 = 0x82;
    /// Status: version, flags, good requests (2), errors (2), clocks per bit (2).
    pub const STATUS_REPLY: u8 = 0x83;
    /// An error: code, detail (the TYPE byte of the frame concerned, or 0).
    pub const ERROR: u8 = 0x84;
    /// A store word: address, word (6 bytes).
    pub const WORD: u8 = 0x85;
}

/// Error codes of the ERROR frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
pub enum ErrorCode {
    #[error("bad CRC")]
    BadCrc,
    #[error("wrong payload length for the frame type")]
    BadLength,
    #[error("unknown frame type")]
    UnknownType,
    #[error("overlong frame (LEN above 60)")]
    Overlong,
    #[error("timeout inside a frame")]
    Timeout,
    #[error("UART framing error (low stop bit)")]
    Framing,
    #[error("no position loaded yet")]
    NotLoaded,
    #[error("busy: the search (or a list) holds the chip; POSITION stops a search")]
    Busy,
    #[error("no search to stop")]
    NotSearching,
    #[error("an argument out of the chip's range (see INFO)")]
    BadArgument,
    #[error("unknown error code {0}")]
    Other(u8),
}

impl ErrorCode {
    pub fn from_code(code: u8) -> ErrorCode {
        match code {
            1 => ErrorCode::BadCrc,
            2 => ErrorCode::BadLength,
            3 => ErrorCode::UnknownType,
            4 => ErrorCode::Overlong,
            5 => ErrorCode::Timeout,
            6 => ErrorCode::Framing,
            7 => ErrorCode::NotLoaded,
            8 => ErrorCode::Busy,
            9 => ErrorCode::NotSearching,
            10 => ErrorCode::BadArgument,
            other => ErrorCode::Other(other),
        }
    }

    pub fn code(self) -> u8 {
        match self {
            ErrorCode::BadCrc => 1,
            ErrorCode::BadLength => 2,
            ErrorCode::UnknownType => 3,
            ErrorCode::Overlong => 4,
            ErrorCode::Timeout => 5,
            ErrorCode::Framing => 6,
            ErrorCode::NotLoaded => 7,
            ErrorCode::Busy => 8,
            ErrorCode::NotSearching => 9,
            ErrorCode::BadArgument => 10,
            ErrorCode::Other(code) => code,
        }
    }
}

/// A request from the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    /// The ten load-bus words of a position, in address order ([`bus::load_words`]).
    Load([u64; bus::LOAD_WORDS]),
    Generate,
    /// A move word ([`bus::encode_move`]).
    Apply(u16),
    Status,
    /// A load-bus address (0..=9; others read as 0).
    Read(u8),
    /// The search's requests (the solver behind the link).
    Search(SearchRequest),
}

impl Request {
    /// LOAD of `pos`.
    pub fn load(pos: &Position) -> Request {
        Request::Load(bus::load_words(pos).map(|(_, word)| word))
    }

    pub fn frame(&self) -> Frame {
        match self {
            Request::Load(words) => {
                let mut payload = Vec::with_capacity(MAX_REQUEST_PAYLOAD);
                for word in words {
                    payload.extend_from_slice(&word.to_le_bytes()[..WORD_BYTES]);
                }
                Frame::new(kind::LOAD, payload)
            }
            Request::Generate => Frame::new(kind::GENERATE, []),
            Request::Apply(word) => Frame::new(kind::APPLY, word.to_le_bytes()),
            Request::Status => Frame::new(kind::STATUS, []),
            Request::Read(addr) => Frame::new(kind::READ, [*addr]),
            Request::Search(request) => request.frame(),
        }
    }
}

/// The END frame of a list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct End {
    /// The list holds evasions (the side to move is in check).
    pub in_check: bool,
    /// The list was abandoned for a newer request before its end.
    pub abandoned: bool,
    /// MOVE frames sent for the list.
    pub count: u16,
    /// Clock cycles from the pipeline start to the end of the list, not counting cycles in
    /// which a move waited for the UART (0 for an abandoned list that had not started).
    pub cycles: u32,
}

/// The STATUS frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status {
    pub version: u8,
    /// A position has been loaded since reset.
    pub loaded: bool,
    /// A list is in progress (its END not yet sent).
    pub streaming: bool,
    /// The last complete list was of evasions.
    pub last_in_check: bool,
    /// Good request frames since reset (wraps at 2^16).
    pub frames_ok: u16,
    /// Errors since reset, reported or not (wraps at 2^16).
    pub errors: u16,
    /// The chip's bit time in clock cycles.
    pub clocks_per_bit: u16,
}

/// A frame from the chip, decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Response {
    Move {
        word: u16,
        category: u8,
    },
    End(End),
    Status(Status),
    Error {
        code: ErrorCode,
        detail: u8,
    },
    Word {
        addr: u8,
        word: u64,
    },
    /// The search's answers (the solver behind the link).
    Search(SearchAnswer),
}

/// What went wrong on the link.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    #[error("no frame from the chip within {0:?} (waiting for {1})")]
    Timeout(Duration, &'static str),
    #[error("the chip answered ERROR: {code} (detail {detail:#04x})")]
    Chip { code: ErrorCode, detail: u8 },
    #[error("unexpected frame from the chip while waiting for {waiting_for}: {frame:?}")]
    Unexpected {
        frame: Response,
        waiting_for: &'static str,
    },
    #[error(transparent)]
    Malformed(#[from] Malformed),
    #[error("the list was abandoned by the chip after {0} moves")]
    Abandoned(u16),
    #[error("move {index} of the list: {source}")]
    Move {
        index: usize,
        source: bus::DecodeError,
    },
    #[error("transport: {0}")]
    Transport(#[from] std::io::Error),
}

fn fixed<const N: usize>(frame: &Frame) -> Result<[u8; N], LinkError> {
    let payload = frame.payload_of(N)?;
    Ok(payload.try_into().expect("a payload of the checked length"))
}

impl Response {
    /// Decode a frame from the chip.
    pub fn parse(frame: &Frame) -> Result<Response, LinkError> {
        if let Some(answer) = SearchAnswer::parse(frame) {
            return Ok(Response::Search(answer?));
        }
        Ok(match frame.kind {
            kind::MOVE => {
                let p: [u8; 3] = fixed(frame)?;
                Response::Move {
                    word: u16::from_le_bytes([p[0], p[1]]),
                    category: p[2],
                }
            }
            kind::END => {
                let p: [u8; 7] = fixed(frame)?;
                Response::End(End {
                    in_check: p[0] & 1 != 0,
                    abandoned: p[0] & 2 != 0,
                    count: u16::from_le_bytes([p[1], p[2]]),
                    cycles: u32::from_le_bytes([p[3], p[4], p[5], p[6]]),
                })
            }
            kind::STATUS_REPLY => {
                let p: [u8; 8] = fixed(frame)?;
                Response::Status(Status {
                    version: p[0],
                    loaded: p[1] & 1 != 0,
                    streaming: p[1] & 2 != 0,
                    last_in_check: p[1] & 4 != 0,
                    frames_ok: u16::from_le_bytes([p[2], p[3]]),
                    errors: u16::from_le_bytes([p[4], p[5]]),
                    clocks_per_bit: u16::from_le_bytes([p[6], p[7]]),
                })
            }
            kind::ERROR => {
                let p: [u8; 2] = fixed(frame)?;
                Response::Error {
                    code: ErrorCode::from_code(p[0]),
                    detail: p[1],
                }
            }
            kind::WORD => {
                let p: [u8; 7] = fixed(frame)?;
                let mut word = [0u8; 8];
                word[..6].copy_from_slice(&p[1..]);
                Response::Word {
                    addr: p[0],
                    word: u64::from_le_bytes(word),
                }
            }
            other => {
                return Err(Malformed(format!("unknown response type {other:#04x}")).into());
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chip::link::frame::{FrameDecoder, SYNC, crc8};

    #[test]
    fn frames_encode_and_decode() {
        let frame = Frame::new(kind::MOVE, [0x34, 0x12, 5]);
        let bytes = frame.encode();
        assert_eq!(bytes[..3], [SYNC, kind::MOVE, 3]);
        assert_eq!(*bytes.last().unwrap(), crc8(&bytes[1..6]));
        let mut decoder = FrameDecoder::new();
        let mut got = None;
        for &b in &bytes {
            got = decoder.push(b);
        }
        assert_eq!(got, Some(frame.clone()));
        assert_eq!(
            Response::parse(&frame).unwrap(),
            Response::Move {
                word: 0x1234,
                category: 5
            }
        );
    }

    #[test]
    fn load_payload_is_ten_six_byte_words() {
        let words: [u64; 10] = std::array::from_fn(|i| (i as u64) << 40 | 0xab);
        let frame = Request::Load(words).frame();
        assert_eq!(frame.kind, kind::LOAD);
        assert_eq!(frame.payload.len(), MAX_REQUEST_PAYLOAD);
        for (i, chunk) in frame.payload.chunks(WORD_BYTES).enumerate() {
            let mut w = [0u8; 8];
            w[..6].copy_from_slice(chunk);
            assert_eq!(u64::from_le_bytes(w), words[i]);
        }
        assert_eq!(Request::Apply(0xbeef).frame().payload, vec![0xef, 0xbe]);
        assert_eq!(Request::Read(9).frame().payload, vec![9]);
    }

    #[test]
    fn responses_parse() {
        let end = Frame::new(kind::END, [3, 7, 0, 0x10, 0, 0, 0]);
        assert_eq!(
            Response::parse(&end).unwrap(),
            Response::End(End {
                in_check: true,
                abandoned: true,
                count: 7,
                cycles: 16
            })
        );
        let status = Frame::new(kind::STATUS_REPLY, [1, 5, 2, 0, 1, 0, 8, 0]);
        let Response::Status(s) = Response::parse(&status).unwrap() else {
            panic!("not a status")
        };
        assert!(s.loaded && !s.streaming && s.last_in_check);
        assert_eq!((s.frames_ok, s.errors, s.clocks_per_bit), (2, 1, 8));
        let word = Frame::new(kind::WORD, [9, 1, 2, 3, 4, 5, 6]);
        assert_eq!(
            Response::parse(&word).unwrap(),
            Response::Word {
                addr: 9,
                word: 0x0605_0403_0201
            }
        );
        assert!(Response::parse(&Frame::new(kind::MOVE, [1])).is_err());
        assert!(Response::parse(&Frame::new(0x99, [])).is_err());
        assert_eq!(
            Response::parse(&Frame::new(kind::ERROR, [7, 2])).unwrap(),
            Response::Error {
                code: ErrorCode::NotLoaded,
                detail: 2
            }
        );
    }
}
