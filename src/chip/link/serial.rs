//! A serial port as a [`Transport`]: the board's USB-serial adapter.

use std::io::{Read, Write};
use std::time::Duration;

use super::driver::Transport;
use super::protocol::LinkError;

use anyhow::Context;

/// A serial port as a [`Transport`]: reads are buffered, each wait bounded by the timeout.
pub struct SerialTransport {
    port: Box<dyn serialport::SerialPort>,
    baud: u32,
    buffer: std::collections::VecDeque<u8>,
}

impl SerialTransport {
    /// The port `path` at `baud`, 8N1, no flow control; the error names the port and the
    /// usual fixes.
    pub fn open(path: &str, baud: u32) -> anyhow::Result<SerialTransport> {
        let port = serialport::new(path, baud)
            .data_bits(serialport::DataBits::Eight)
            .parity(serialport::Parity::None)
            .stop_bits(serialport::StopBits::One)
            .flow_control(serialport::FlowControl::None)
            .timeout(Duration::from_millis(100))
            .open()
            .with_context(|| {
                format!(
                    "cannot open serial port {path} at {baud} baud (is the board plugged in, \
                     and may you use the port? On Linux: the `dialout` group)"
                )
            })?;
        port.clear(serialport::ClearBuffer::All)
            .with_context(|| format!("cannot clear the buffers of {path}"))?;
        Ok(SerialTransport {
            port,
            baud,
            buffer: Default::default(),
        })
    }
}

impl Transport for SerialTransport {
    fn send(&mut self, bytes: &[u8]) -> Result<(), LinkError> {
        self.port.write_all(bytes)?;
        self.port.flush()?;
        Ok(())
    }

    fn receive(&mut self, timeout: Duration) -> Result<Option<u8>, LinkError> {
        if let Some(b) = self.buffer.pop_front() {
            return Ok(Some(b));
        }
        self.port
            .set_timeout(timeout.max(Duration::from_millis(1)))
            .map_err(std::io::Error::from)?;
        let mut chunk = [0u8; 256];
        match self.port.read(&mut chunk) {
            Ok(0) => Ok(None),
            Ok(n) => {
                self.buffer.extend(&chunk[..n]);
                Ok(self.buffer.pop_front())
            }
            Err(e) if e.kind() == std::io::ErrorKind::TimedOut => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    fn bit_time(&self) -> Duration {
        Duration::from_secs_f64(1.0 / f64::from(self.baud))
    }

    fn latency(&self) -> Duration {
        // USB-serial adapters hold short reads back for up to their latency timer (16 ms on
        // FTDI chips), and the host's scheduler adds its own.
        Duration::from_millis(200)
    }
}
