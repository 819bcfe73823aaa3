//! The host link: the framed protocol the chip speaks on its UART (`hdl/link/host_link.spade`,
//! described in `docs/protocol.md`), and a driver that runs the same way over the simulated
//! top (`link_top`, through a bit-level UART model) and over a real serial port.
//!
//! - [`frame`]: [`Frame`] and [`FrameDecoder`], the frames on the wire and their CRC,
//!   below every message.
//! - [`protocol`]: [`Request`], [`Response`] and [`LinkError`], the generator's messages
//!   and what goes wrong on the link; [`search`]: the search's messages. Pure Rust.
//! - [`driver`]: [`Transport`], bytes to and from the chip, and [`LinkDriver`], requests
//!   and answers over any transport (load a position and collect its move list, apply a
//!   move, status, read back the store).
//! - [`sim_uart`]: [`SimUart`], the simulated chip behind a bit-level model of its serial
//!   port, a [`Transport`].
//!
//! Frame, both ways: `SYNC (0xa5), TYPE, LEN, payload (LEN bytes), CRC`, where CRC is CRC-8
//! (polynomial 0x07, initial value 0, not reflected, no final xor: CRC-8/SMBUS) over TYPE, LEN
//! and the payload; multi-byte fields are little-endian.

pub mod board;
pub mod driver;
pub mod frame;
pub mod protocol;
pub mod search;
pub mod serial;
pub mod sim_uart;

pub use board::BoardSearcher;
pub use driver::{LinkDriver, LinkList, Transport};
pub use frame::{
    Frame, FrameDecoder, MAX_REQUEST_PAYLOAD, MAX_RESPONSE_PAYLOAD, Malformed, SYNC, WORD_BYTES,
    crc8,
};
pub use protocol::{
    End, ErrorCode, LinkError, PROTOCOL_VERSION, Request, Response, SOLVER_PROTOCOL_VERSION,
    Status, kind,
};
pub use search::{Done, Geometry, SearchAnswer, SearchRequest};
pub use serial::SerialTransport;
pub use sim_uart::{LinkTop, SimConfig, SimUart, SolverLinkTop, UartModel};
