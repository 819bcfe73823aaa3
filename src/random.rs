//! Seeded generator of tsume-like positions for differential tests.
//!
//! CONTRACT (filled in by the random-position work): keep these names and signatures.

use crate::position::Position;

/// What kind of position to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The side to move is not in check and gives checks (the attacker's turn).
    Checks,
    /// The side to move is in check (the defender's turn), double checks and pins included.
    Evasions,
    /// Either, about half each.
    Any,
}

/// A deterministic generator: the same seed gives the same positions on every machine.
pub struct TsumeGenerator {
    _rng: rand::rngs::StdRng,
}

impl TsumeGenerator {
    pub fn new(_seed: u64) -> Self {
        todo!()
    }
    /// The next random legal tsume-like position of the given kind.
    pub fn next_position(&mut self, _kind: Kind) -> Position {
        todo!()
    }
}

/// The seed for a test run: `TSUME_SEED` if set, otherwise a fresh one from the clock.
/// Tests print it on failure so a run can be repeated.
pub fn seed_from_env() -> u64 {
    todo!()
}
