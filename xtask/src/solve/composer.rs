//! The composer's checks of `cargo xtask solve --alternatives`: after a shortest mate, the
//! alternative mates and the defender's variations of greatest length
//! ([`tsume::solver::alternatives`]), run on the engine that solved (the model or the
//! chip), with what they cost; their words in the report and their JSON.

use std::time::{Duration, Instant};

use serde::Serialize;
use tsume::rsshogi::types::Move;
use tsume::solver::alternatives::{Checked, alternatives};
use tsume::solver::{Limits, SearchResult, Searcher};

use super::Solved;

/// The checks of one solve and their cost.
pub struct Composed {
    pub checked: Checked,
    /// Moves made by the checks' searches.
    pub nodes: u64,
    pub time: Duration,
    /// On the chip: the cycles of the checks' searches.
    pub cycles: Option<u64>,
}

/// The checks of `solved` on `searcher` (the one that solved it, its table kept), when it
/// is a mate proven shortest; `None` otherwise (the alternatives of a line not proven
/// shortest would be measured against the wrong length).
pub fn check<S: Searcher + ?Sized>(
    searcher: &mut S,
    solved: &Solved,
    limits: Limits,
) -> Option<Composed> {
    let o = &solved.outcome;
    if o.result != SearchResult::Mate || !o.shortest {
        return None;
    }
    let start = Instant::now();
    let before = searcher.counters().nodes;
    let checked = alternatives(searcher, solved.pos.inner(), o.root, &o.pv, limits.nodes);
    Some(Composed {
        checked,
        nodes: searcher.counters().nodes - before,
        time: start.elapsed(),
        cycles: None,
    })
}

/// The moves leading to a line that starts at `ply` (1: the first move): the main line's
/// before it, and the variation's (of `variation`'s index) between its ply and `ply`.
fn lead(solved: &Solved, variation: Option<usize>, ply: usize) -> Vec<Move> {
    let pv = &solved.outcome.pv;
    let checked = &solved.composed.as_ref().expect("checked").checked;
    match variation {
        None => pv[..ply - 1].to_vec(),
        Some(index) => {
            let v = &checked.variations[index];
            let mut moves = pv[..v.ply - 1].to_vec();
            moves.extend(&v.line[..ply - v.ply]);
            moves
        }
    }
}

/// `line` (starting at `ply`, after the moves `lead`) in USI, or in Japanese (`ja`).
fn written(solved: &Solved, lead: &[Move], line: &[Move], ja: bool) -> String {
    if !ja {
        return super::output::usi_moves(line);
    }
    let mut at = solved.pos.clone();
    for &m in lead {
        at = at.after(m);
    }
    tsume::input::kif::line_ja(&at, line).join(" ")
}

/// The report's lines of the checks (after the line), or why there are none; the lines in
/// Japanese with `ja`.
pub fn text(solved: &Solved, ja: bool) -> String {
    let Some(c) = &solved.composed else {
        return if solved.outcome.result == SearchResult::Mate {
            "alternatives: not checked (the mate is not proven shortest; raise --nodes)\n"
                .to_string()
        } else {
            String::new()
        };
    };
    let checked = &c.checked;
    let mut out = String::new();
    let last = checked.alternatives.iter().filter(|a| a.last).count();
    let head = match (checked.alternatives.len(), last) {
        (0, _) => "none".to_string(),
        (n, 0) => format!("{n}"),
        (n, last) => format!("{n}, of which {last} of the last move (最終手余詰)"),
    };
    out.push_str(&format!("alternatives: {head}\n"));
    for a in &checked.alternatives {
        let at = match a.variation {
            None => String::new(),
            Some(v) => format!(" in variation {}", v + 1),
        };
        let last = if a.last { ", the last move" } else { "" };
        let lead = lead(solved, a.variation, a.ply);
        out.push_str(&format!(
            "  ply {}{at}{last}: {}\n",
            a.ply,
            written(solved, &lead, &a.line, ja)
        ));
    }
    out.push_str(&format!(
        "variations of equal length: {}\n",
        if checked.variations.is_empty() {
            "none".to_string()
        } else {
            checked.variations.len().to_string()
        }
    ));
    for (i, v) in checked.variations.iter().enumerate() {
        let lead = &solved.outcome.pv[..v.ply - 1];
        out.push_str(&format!(
            "  {}. ply {}: {}\n",
            i + 1,
            v.ply,
            written(solved, lead, &v.line, ja)
        ));
    }
    let complete = if checked.complete {
        ""
    } else {
        "; incomplete: a search ended at the node limit or failed"
    };
    let cycles = c
        .cycles
        .map(|n| format!(", {n} cycles"))
        .unwrap_or_default();
    out.push_str(&format!(
        "checks: {} nodes{cycles}, {:.3} s{complete}\n",
        c.nodes,
        c.time.as_secs_f64()
    ));
    out
}

/// The suite's line of the checks (`solve --alternatives` over the suite, the model's):
/// what they found and their time beside the solves' on the same engine.
pub fn suite_summary<'a>(solved: impl Iterator<Item = &'a Solved>) -> String {
    let (mut mates, mut alternatives, mut last, mut variations) = (0, 0, 0, 0);
    let (mut solve_time, mut check_time, mut incomplete) = (Duration::ZERO, Duration::ZERO, 0);
    for s in solved {
        let Some(c) = &s.composed else { continue };
        mates += 1;
        solve_time += s.time;
        check_time += c.time;
        alternatives += c.checked.alternatives.len();
        last += c.checked.alternatives.iter().filter(|a| a.last).count();
        variations += c.checked.variations.len();
        incomplete += usize::from(!c.checked.complete);
    }
    let ratio = check_time.as_secs_f64() / solve_time.as_secs_f64().max(1e-9);
    format!(
        "alternatives: {mates} shortest mates checked, {alternatives} alternatives ({last} of \
         the last move), {variations} variations of equal length, {incomplete} incomplete; the \
         checks {:.3} s beside the shortest solves' {:.3} s ({ratio:.2} times)",
        check_time.as_secs_f64(),
        solve_time.as_secs_f64()
    )
}

/// The JSON of the checks: `alternatives`, `variations`, `checks` (their cost and whether
/// they completed).
#[derive(Serialize)]
pub struct JsonChecks {
    pub alternatives: Vec<JsonAlternative>,
    pub variations: Vec<JsonVariation>,
    pub complete: bool,
    pub nodes: u64,
    pub seconds: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycles: Option<u64>,
}

#[derive(Serialize)]
pub struct JsonAlternative {
    pub ply: usize,
    /// The index (from 1) of the variation it is on; absent on the main line.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variation: Option<usize>,
    #[serde(rename = "move")]
    pub mv: String,
    pub line: Vec<String>,
    pub last: bool,
}

#[derive(Serialize)]
pub struct JsonVariation {
    pub ply: usize,
    #[serde(rename = "move")]
    pub mv: String,
    pub line: Vec<String>,
}

impl JsonChecks {
    pub fn of(c: &Composed) -> JsonChecks {
        let moves = |line: &[Move]| line.iter().map(|m| m.to_usi()).collect();
        JsonChecks {
            alternatives: c
                .checked
                .alternatives
                .iter()
                .map(|a| JsonAlternative {
                    ply: a.ply,
                    variation: a.variation.map(|v| v + 1),
                    mv: a.mv.to_usi(),
                    line: moves(&a.line),
                    last: a.last,
                })
                .collect(),
            variations: c
                .checked
                .variations
                .iter()
                .map(|v| JsonVariation {
                    ply: v.ply,
                    mv: v.mv.to_usi(),
                    line: moves(&v.line),
                })
                .collect(),
            complete: c.checked.complete,
            nodes: c.nodes,
            seconds: c.time.as_secs_f64(),
            cycles: c.cycles,
        }
    }
}
