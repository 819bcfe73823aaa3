//! `tsume-usi`: the df-pn solver as a USI engine for the mate search of shogi GUIs
//! (ShogiGUI, Shogidokoro, ShogiHome; docs/usi.md). Reads commands from standard input,
//! answers on standard output; `quit` or the end of the input ends it.

use std::io::{BufRead, Write};

use anyhow::Context;
use tsume::usi::{Flow, Session, built_in_config};

fn main() -> anyhow::Result<()> {
    let mut session = Session::new(built_in_config()?, std::io::stdout());
    let mut input = std::io::stdin().lock();
    let mut bytes = Vec::new();
    loop {
        bytes.clear();
        let read = input
            .read_until(b'\n', &mut bytes)
            .context("cannot read a command from standard input")?;
        if read == 0 {
            // The GUI closed the pipe: stop as on `quit`.
            session.finish();
            return Ok(());
        }
        // A line that is not UTF-8 still gets an answer naming what was read.
        let line = String::from_utf8_lossy(&bytes);
        if session.handle(&line)? == Flow::Quit {
            std::io::stdout()
                .flush()
                .context("cannot write to the GUI")?;
            return Ok(());
        }
    }
}
