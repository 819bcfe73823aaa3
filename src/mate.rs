//! Exhaustive mate search on the software reference (vouches for the problem suite;
//! the hardware df-pn solver comes later).
//!
//! CONTRACT (filled in by the problem-suite work): keep these names and signatures.

use crate::position::Position;

/// The minimax mate distance in plies if the side to move forces mate within `max_plies`
/// (odd: the attacker moves first and last), otherwise None.
pub fn mate_length(_pos: &Position, _max_plies: u32) -> Option<u32> {
    todo!()
}
