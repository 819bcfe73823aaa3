//! The length counting every interposition beside a mate's length by the composers' rule
//! (`cargo xtask solve` on the model, whose default rule it is; docs/search.md, "Futile
//! interpositions"): the same shortest line when it left no interposition out, else a
//! second shortest search of the position with every interposition a reply; its words in
//! the report. The chip counts every interposition: its length is the only one.

use std::time::{Duration, Instant};

use tsume::futile::Rule;
use tsume::input::{catch, kif};
use tsume::solver::{Limits, Outcome, Reason, SearchResult, Searcher, Solver, solve_on};

use super::Solved;
use super::output::{Asked, reason_text, usi_moves};
use crate::util::count;

/// The length counting every interposition of a shortest mate by the composers' rule.
pub struct Every {
    /// The plies of the shortest mate counting every interposition; `None` when the
    /// second search did not prove one within the limits.
    pub plies: Option<usize>,
    /// The second search; `None` when none was needed (the line left nothing out).
    pub search: Option<Second>,
}

/// The second search: what it answered (its counters its own: the solve's are not
/// counted in it, nor it in the solve's) and its time.
pub struct Second {
    pub outcome: Outcome,
    pub time: Duration,
}

/// The length counting every interposition of `solved`, when it is a mate by the
/// composers' rule proven shortest; `None` otherwise.
///
/// A line that left no interposition out is a mate counting every interposition too, of
/// its plies, and no mate counting every interposition is shorter than the rule's
/// shortest (the rule only takes replies away): the length is the same, no search. Else
/// `solver` (the one that solved, its table cleared by the new solve and its rule put
/// back after) searches the position again, shortest, with every interposition a reply,
/// within the same `limits`.
pub fn length(solver: &mut Solver, solved: &Solved, limits: Limits) -> Option<Every> {
    let o = &solved.outcome;
    if o.result != SearchResult::Mate || !o.shortest || o.rule != Rule::Composers {
        return None;
    }
    if o.left_out.is_empty() {
        return Some(Every {
            plies: Some(o.pv.len()),
            search: None,
        });
    }
    let rule = solver.interpositions();
    solver.set_interpositions(Rule::EveryInterposition);
    let start = Instant::now();
    let limits = Limits {
        shortest: true,
        ..limits
    };
    let answered = catch("the solver", || solve_on(&mut *solver, &solved.pos, limits));
    let time = start.elapsed();
    solver.set_interpositions(rule);
    let outcome = answered.unwrap_or_else(|error| Outcome {
        result: SearchResult::Unknown(Reason::Engine(error)),
        pv: Vec::new(),
        root: o.root,
        shortest: false,
        rule: Rule::EveryInterposition,
        left_out: Vec::new(),
        counters: solver.counters(),
    });
    let proven = outcome.result == SearchResult::Mate && outcome.shortest;
    Some(Every {
        plies: proven.then_some(outcome.pv.len()),
        search: Some(Second { outcome, time }),
    })
}

/// What follows the result's words in the report: `; 3 plies counting every
/// interposition`, or `; every-interposition length unknown within the limits`; empty
/// when there is no such length.
pub fn result_words(solved: &Solved) -> String {
    match &solved.every {
        None => String::new(),
        Some(e) => format!("; {}", plies_words(e)),
    }
}

/// The same before the counters of a position's line in a run of many (`3 plies counting
/// every interposition; `), where the result's words are followed by the line.
pub fn aside(solved: &Solved) -> String {
    match &solved.every {
        None => String::new(),
        Some(e) => format!("{}; ", plies_words(e)),
    }
}

/// `3 plies counting every interposition`, or that it is unknown.
fn plies_words(every: &Every) -> String {
    match every.plies {
        Some(n) => format!(
            "{} counting every interposition",
            count(n as u64, "ply", "plies")
        ),
        None => "every-interposition length unknown within the limits".to_string(),
    }
}

/// The report's `every:` line: the length counting every interposition, how it was found
/// (the line itself, or the second search's line and cost), or why it is unknown; empty
/// when there is none.
pub fn text(solved: &Solved, asked: Asked) -> String {
    let Some(e) = &solved.every else {
        return String::new();
    };
    let Some(second) = &e.search else {
        return format!(
            "every:  {}: the line's own (it left no interposition out), no second search\n",
            plies_words(e)
        );
    };
    let o = &second.outcome;
    let found = match (&o.result, e.plies) {
        (_, Some(_)) => {
            let line = if asked.ja {
                kif::numbered_ja(&kif::line_ja(&solved.pos, &o.pv))
            } else {
                usi_moves(&o.pv)
            };
            format!("{}: {line}", plies_words(e))
        }
        (SearchResult::Unknown(reason), None) => {
            format!("{} ({})", plies_words(e), reason_text(reason, asked))
        }
        (SearchResult::Mate, None) => format!(
            "{} (a mate of {} found, a shorter one not ruled out)",
            plies_words(e),
            count(o.pv.len() as u64, "ply", "plies")
        ),
        (SearchResult::NoMate, None) => format!(
            "{} (the second search answered no mate, against the rule's mate)",
            plies_words(e)
        ),
    };
    format!(
        "every:  {found}; a second search: {} nodes, {:.3} s\n",
        o.counters.nodes,
        second.time.as_secs_f64()
    )
}
