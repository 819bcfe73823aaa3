//! The frame layer of the host link, below every message: `SYNC, TYPE, LEN, payload,
//! CRC` on the wire, the CRC, and the decoder that splits the chip's byte stream into
//! frames (docs/protocol.md, "Frames"). The messages ([`super::protocol`],
//! [`super::search`]) are built on it; it knows none of them.

use std::collections::VecDeque;

/// First byte of every frame.
pub const SYNC: u8 = 0xa5;
/// The longest payload the chip accepts (LOAD's); a longer LEN is an overlong frame.
pub const MAX_REQUEST_PAYLOAD: usize = 60;
/// The longest payload the chip sends (the search's DONE).
pub const MAX_RESPONSE_PAYLOAD: usize = 50;
/// Bytes of one load-bus word in a LOAD payload.
pub const WORD_BYTES: usize = 6;
/// CRC-8/SMBUS (polynomial 0x07, initial 0) of `bytes`, as the chip computes it.
pub fn crc8(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0u8, |crc, &byte| {
        (0..8).fold(crc ^ byte, |c, _| {
            if c & 0x80 != 0 {
                (c << 1) ^ 0x07
            } else {
                c << 1
            }
        })
    })
}

/// One frame: its type and payload (SYNC, LEN and CRC are added by [`Frame::encode`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub kind: u8,
    pub payload: Vec<u8>,
}

impl Frame {
    pub fn new(kind: u8, payload: impl Into<Vec<u8>>) -> Frame {
        Frame {
            kind,
            payload: payload.into(),
        }
    }

    /// The bytes on the wire. Panics if the payload is longer than 255 bytes.
    pub fn encode(&self) -> Vec<u8> {
        let len = u8::try_from(self.payload.len()).expect("payload of at most 255 bytes");
        let mut bytes = vec![SYNC, self.kind, len];
        bytes.extend_from_slice(&self.payload);
        let crc = crc8(&bytes[1..]);
        bytes.push(crc);
        bytes
    }

    /// The payload, when it is `len` bytes long as the frame's type requires.
    pub fn payload_of(&self, len: usize) -> Result<&[u8], Malformed> {
        if self.payload.len() == len {
            Ok(&self.payload)
        } else {
            Err(Malformed(format!(
                "type {:#04x} with {} payload bytes, expected {len}",
                self.kind,
                self.payload.len()
            )))
        }
    }
}

/// A frame from the chip that does not make a message: its payload's length or its
/// fields do not fit its type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed frame from the chip: {0}")]
pub struct Malformed(pub String);

/// Splits the byte stream from the chip into frames: hunts for SYNC, checks LEN and the CRC,
/// and on a bad frame drops its SYNC byte and hunts again from the next byte.
#[derive(Debug, Default)]
pub struct FrameDecoder {
    buf: VecDeque<u8>,
    /// Bytes dropped while hunting for SYNC or after a bad frame.
    pub dropped: u64,
    /// Frames rejected for their CRC or LEN.
    pub bad_frames: u64,
}

impl FrameDecoder {
    pub fn new() -> FrameDecoder {
        FrameDecoder::default()
    }

    /// Add one byte; returns the frame it completes, if any.
    pub fn push(&mut self, byte: u8) -> Option<Frame> {
        self.buf.push_back(byte);
        self.next_frame()
    }

    fn next_frame(&mut self) -> Option<Frame> {
        loop {
            while self.buf.front().is_some_and(|&b| b != SYNC) {
                self.buf.pop_front();
                self.dropped += 1;
            }
            if self.buf.len() < 3 {
                return None;
            }
            let len = usize::from(self.buf[2]);
            if len > MAX_RESPONSE_PAYLOAD {
                self.reject();
                continue;
            }
            if self.buf.len() < len + 4 {
                return None;
            }
            let bytes: Vec<u8> = self.buf.iter().take(len + 4).copied().collect();
            if crc8(&bytes[1..len + 3]) != bytes[len + 3] {
                self.reject();
                continue;
            }
            self.buf.drain(..len + 4);
            return Some(Frame::new(bytes[1], &bytes[3..len + 3]));
        }
    }

    /// Drop the SYNC byte of a bad frame and hunt again.
    fn reject(&mut self) {
        self.buf.pop_front();
        self.dropped += 1;
        self.bad_frames += 1;
    }

    /// Forget any partial frame.
    pub fn clear(&mut self) {
        self.dropped += self.buf.len() as u64;
        self.buf.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two frame types of the chip's, as bytes (the frame layer knows no message).
    const ERROR: u8 = 0x84;
    const END: u8 = 0x82;

    #[test]
    fn crc8_matches_the_smbus_check_value() {
        // The catalogue's check value of CRC-8/SMBUS over "123456789".
        assert_eq!(crc8(b"123456789"), 0xf4);
        assert_eq!(crc8(&[]), 0);
    }

    #[test]
    fn decoder_resyncs_after_noise_and_bad_frames() {
        let good = Frame::new(ERROR, [1, 2]).encode();
        let mut bad = good.clone();
        *bad.last_mut().unwrap() ^= 0xff;
        // Noise, a frame with a bad CRC, an overlong LEN, then a good frame.
        let mut stream = vec![0x00, 0x13, SYNC];
        stream.extend(&bad);
        stream.extend([SYNC, END, 200]);
        stream.extend(&good);
        let mut decoder = FrameDecoder::new();
        let frames: Vec<Frame> = stream.iter().filter_map(|&b| decoder.push(b)).collect();
        assert_eq!(frames, vec![Frame::new(ERROR, [1, 2])]);
        assert!(decoder.bad_frames >= 2);
    }
}
