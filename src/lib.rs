//! Host side of the tsume-shogi move-generator processor.
//!
//! - [`position`]: positions from SFEN, with the impossible-position rules checked.
//! - [`reference`](mod@reference): the software reference: the exact tsume-shogi move set of a position
//!   (all checks, or all evasions when in check), each move with its category.
//! - [`stream_order`]: the chip's move order, which the reference's lists follow.
//! - [`cover`]: block-level reference data the hardware computes (direct cover by direction).
//! - [`bus`]: how a position travels to the chip and how the chip's outputs are laid out.
//! - [`random`]: seeded generator of tsume-like positions for differential tests.
//! - [`problems`]: the project's problem suite (`problems/*.json`).
//! - [`mate`]: a small exhaustive mate search on the reference, used to vouch for the suite.
//! - [`solver`]: the df-pn solver's golden model, written as the chip runs it (docs/search.md).
//! - [`hw`]: the Verilator models of the Spade tops and their drivers.
//! - [`hw_path`]: the search path's position on chip (store with apply and undo, position
//!   hash) and its driver.
//! - [`hw_table`]: the search's transposition table on chip and its driver.
//! - [`hw_select`]: the search's child frames and SELECT scan on the simulated chip.
//! - [`hw_expand`]: the search's EXPAND on the simulated chip (generator, hash, table,
//!   frames).
//! - [`link`]: the host link's protocol, its driver, and the simulated UART of `link_top`.
//! - [`usi`]: the USI engine's session (the `tsume-usi` binary answers a GUI's mate search).

pub mod bus;
pub mod cover;
pub mod hw;
pub mod hw_expand;
pub mod hw_path;
pub mod hw_select;
pub mod hw_solver;
pub mod hw_table;
pub mod link;
pub mod mate;
pub mod position;
pub mod problems;
pub mod random;
pub mod reference;
pub mod solver;
pub mod stream_order;
pub mod usi;

pub use marlin;
pub use rsshogi;
