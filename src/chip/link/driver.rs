//! Requests and answers over any byte transport: a serial port on a board, or the
//! simulated UART ([`super::SimUart`]).

use std::time::Duration;

use super::frame::{FrameDecoder, Malformed};
use super::protocol::{LinkError, Request, Response, Status};
use crate::bus;
use crate::position::Position;
use crate::reference::{Mode, TsumeMove};

/// Bytes to and from the chip.
pub trait Transport {
    /// Send `bytes` (returns once they are on their way).
    fn send(&mut self, bytes: &[u8]) -> Result<(), LinkError>;
    /// The next byte from the chip, or `None` after `timeout` without one.
    fn receive(&mut self, timeout: Duration) -> Result<Option<u8>, LinkError>;
    /// Time of one bit on the line.
    fn bit_time(&self) -> Duration;
    /// Extra delay the transport adds to an answer (USB-serial adapters buffer for several
    /// milliseconds); 0 for the simulation.
    fn latency(&self) -> Duration {
        Duration::ZERO
    }
}

/// A move list as the chip sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkList {
    /// Checks, or evasions when the side to move is in check.
    pub mode: Mode,
    /// The moves in the order the chip sent them.
    pub moves: Vec<TsumeMove>,
    /// Generator clock cycles (see [`End::cycles`](super::protocol::End::cycles)).
    pub cycles: u32,
}

/// Requests and answers over any [`Transport`].
pub struct LinkDriver<T> {
    transport: T,
    decoder: FrameDecoder,
    /// Longest silence accepted while an answer is due, in bit times (plus the transport's
    /// latency). Default 2,000 bit times: 200 byte times.
    pub timeout_bits: u32,
}

impl<T: Transport> LinkDriver<T> {
    pub fn new(transport: T) -> LinkDriver<T> {
        LinkDriver {
            transport,
            decoder: FrameDecoder::new(),
            timeout_bits: 2_000,
        }
    }

    pub fn transport(&mut self) -> &mut T {
        &mut self.transport
    }

    pub fn into_transport(self) -> T {
        self.transport
    }

    /// Bytes and frames the decoder has thrown away so far: (bytes dropped, bad frames).
    pub fn decoder_losses(&self) -> (u64, u64) {
        (self.decoder.dropped, self.decoder.bad_frames)
    }

    /// The silence after which an answer counts as missing.
    pub fn answer_timeout(&self) -> Duration {
        self.transport.bit_time() * self.timeout_bits + self.transport.latency()
    }

    /// Send a request frame (no waiting for the answer).
    pub fn send(&mut self, request: &Request) -> Result<(), LinkError> {
        self.transport.send(&request.frame().encode())
    }

    /// Send raw bytes (for tests of bad input).
    pub fn send_raw(&mut self, bytes: &[u8]) -> Result<(), LinkError> {
        self.transport.send(bytes)
    }

    /// The next frame from the chip, or `None` after `timeout` of silence.
    pub fn receive(&mut self, timeout: Duration) -> Result<Option<Response>, LinkError> {
        loop {
            let Some(byte) = self.transport.receive(timeout)? else {
                return Ok(None);
            };
            if let Some(frame) = self.decoder.push(byte) {
                return Response::parse(&frame).map(Some);
            }
        }
    }

    /// Every frame until the line has been quiet for `quiet`.
    pub fn drain(&mut self, quiet: Duration) -> Result<Vec<Response>, LinkError> {
        let mut frames = Vec::new();
        while let Some(frame) = self.receive(quiet)? {
            frames.push(frame);
        }
        Ok(frames)
    }

    fn expect(&mut self, waiting_for: &'static str) -> Result<Response, LinkError> {
        let timeout = self.answer_timeout();
        self.receive(timeout)?
            .ok_or(LinkError::Timeout(timeout, waiting_for))
    }

    /// Load `pos` and collect its list.
    pub fn generate(&mut self, pos: &Position) -> Result<LinkList, LinkError> {
        self.send(&Request::load(pos))?;
        self.collect_list()
    }

    /// The list of the stored position, again.
    pub fn regenerate(&mut self) -> Result<LinkList, LinkError> {
        self.send(&Request::Generate)?;
        self.collect_list()
    }

    /// Apply `mv` to the stored position on the chip and collect the new list.
    pub fn apply(&mut self, mv: rsshogi::types::Move) -> Result<LinkList, LinkError> {
        self.send(&Request::Apply(bus::encode_move(mv)))?;
        self.collect_list()
    }

    /// Collect MOVE frames up to their END. An ERROR frame, an abandoned list or any other
    /// frame is an error.
    pub fn collect_list(&mut self) -> Result<LinkList, LinkError> {
        let mut moves = Vec::new();
        loop {
            match self.expect("a MOVE or END frame")? {
                Response::Move { word, category } => {
                    let index = moves.len();
                    let mv = bus::decode_move(word)
                        .map_err(|source| LinkError::Move { index, source })?;
                    let category = bus::decode_category(category)
                        .map_err(|source| LinkError::Move { index, source })?;
                    moves.push(TsumeMove { mv, category });
                }
                Response::End(end) => {
                    if end.abandoned {
                        return Err(LinkError::Abandoned(end.count));
                    }
                    if usize::from(end.count) != moves.len() {
                        return Err(Malformed(format!(
                            "END counts {} moves, {} MOVE frames arrived",
                            end.count,
                            moves.len()
                        ))
                        .into());
                    }
                    return Ok(LinkList {
                        mode: if end.in_check {
                            Mode::Evasions
                        } else {
                            Mode::Checks
                        },
                        moves,
                        cycles: end.cycles,
                    });
                }
                Response::Error { code, detail } => return Err(LinkError::Chip { code, detail }),
                frame => {
                    return Err(LinkError::Unexpected {
                        frame,
                        waiting_for: "a MOVE or END frame",
                    });
                }
            }
        }
    }

    /// The chip's STATUS.
    pub fn status(&mut self) -> Result<Status, LinkError> {
        self.send(&Request::Status)?;
        match self.expect("a STATUS frame")? {
            Response::Status(status) => Ok(status),
            Response::Error { code, detail } => Err(LinkError::Chip { code, detail }),
            frame => Err(LinkError::Unexpected {
                frame,
                waiting_for: "a STATUS frame",
            }),
        }
    }

    /// Load-bus word `addr` of the store.
    pub fn read_word(&mut self, addr: u8) -> Result<u64, LinkError> {
        self.send(&Request::Read(addr))?;
        match self.expect("a WORD frame")? {
            Response::Word { addr: got, word } if got == addr => Ok(word),
            Response::Error { code, detail } => Err(LinkError::Chip { code, detail }),
            frame => Err(LinkError::Unexpected {
                frame,
                waiting_for: "a WORD frame",
            }),
        }
    }
}
