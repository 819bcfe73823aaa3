//! Host side of the tsume-shogi processor: an FPGA that solves mating problems by df-pn,
//! its move generator the one of Hori, Sonoyama and Maruyama.
//!
//! - [`position`]: positions from SFEN, with the impossible-position rules checked.
//! - [`reference`](mod@reference): the software reference: the exact tsume-shogi move set of a position
//!   (all checks, or all evasions when in check), each move with its category.
//! - [`stream_order`]: the chip's move order, which the reference's lists follow.
//! - [`cover`]: block-level reference data the hardware computes (direct cover by direction).
//! - [`bus`]: how a position travels to the chip and how the chip's outputs are laid out.
//! - [`random`]: seeded generator of tsume-like positions for differential tests.
//! - [`problems`]: the project's problem suite (`problems/*.json`).
//! - [`input`]: the positions the commands are given (text, a positions file, the suite).
//! - [`project`]: the checkout: swim.toml (read here for every tool) and the toolchain's paths.
//! - [`mate`]: a small exhaustive mate search on the reference, used to vouch for the suite.
//! - [`solver`]: the df-pn solver's golden model, written as the chip runs it (docs/search.md).
//! - [`chip`]: the simulated chip, a driver for each top: the generator, the host link
//!   (its protocol, its driver, the simulated UART of `link_top`), the search's blocks and
//!   the whole search (`solver_top`), each the twin of a software model above.
//! - [`usi`]: the USI engine's session (the `tsume-usi` binary answers a GUI's mate search).

pub mod bus;
pub mod chip;
pub mod cover;
pub mod futile;
pub mod input;
pub mod mate;
pub mod position;
pub mod problems;
pub mod project;
pub mod random;
pub mod reference;
pub mod solver;
pub mod stream_order;
pub mod usi;

pub use marlin;
pub use rsshogi;
