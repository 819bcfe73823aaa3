//! Two searchers that must search alike, side by side: the chip against the model
//! (`hw_solver`), the board against `solver_top` (`hw_board`). A solve runs on both; its
//! outcomes (result, line, shortest flag, counters) must be equal, and so must what else
//! the pair compares ([`Twin::Trace`]: the table's stores, or the cycles and the walks).

use std::fmt::Debug;

use tsume::position::Position;
use tsume::solver::{Limits, Outcome};

/// A searcher of a twin pair: a solve, with what it showed beside its outcome.
pub trait Twin {
    /// What a solve shows beside its outcome and must show alike in both twins.
    type Trace: PartialEq + Debug;

    /// `pos` solved within `limits`: the outcome and the solve's trace.
    fn solve_traced(&mut self, pos: &Position, limits: Limits) -> (Outcome, Self::Trace);

    /// Where two traces differ, in words; `names` are the twins' (default: both in full).
    fn trace_difference(tested: &Self::Trace, reference: &Self::Trace, names: [&str; 2]) -> String {
        let [a, b] = names;
        format!("\n  {a:<5} {tested:?}\n  {b:<5} {reference:?}")
    }
}

/// The searcher under test and the one it must equal.
pub struct Twins<T, R> {
    /// The searcher under test (the chip, the board).
    pub tested: T,
    /// The searcher it must equal (the model, `solver_top`).
    pub reference: R,
    /// The two as a difference names them (`["chip", "model"]`).
    names: [&'static str; 2],
}

impl<T, R> Twins<T, R>
where
    T: Twin,
    R: Twin<Trace = T::Trace>,
{
    /// `tested` against `reference`, called `names` in the differences.
    pub fn new(tested: T, reference: R, names: [&'static str; 2]) -> Twins<T, R> {
        Twins {
            tested,
            reference,
            names,
        }
    }

    /// `pos` solved by both (`what` names it): the tested one's outcome, or the
    /// difference: the outcomes first, then the traces.
    pub fn solve(&mut self, what: &str, pos: &Position, limits: Limits) -> Result<Outcome, String> {
        let (got, got_trace) = self.tested.solve_traced(pos, limits);
        let (want, want_trace) = self.reference.solve_traced(pos, limits);
        let [a, b] = self.names;
        if got != want {
            return Err(format!(
                "{what} ({pos}, {limits:?}):\n  {a:<5} {got:?}\n  {b:<5} {want:?}"
            ));
        }
        if got_trace != want_trace {
            let difference = T::trace_difference(&got_trace, &want_trace, self.names);
            return Err(format!("{what} ({pos}, {limits:?}): {difference}"));
        }
        Ok(got)
    }
}
