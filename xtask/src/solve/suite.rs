//! The problem suite solved and checked against its expected results.
//!
//! A result is wrong when it contradicts the expected one or misses it:
//! - expected `mate N`: no mate within the limits (`nomate` or `unknown`), a mate shorter
//!   than N (N is the minimax distance), or with `--shortest` a mate of another length;
//! - expected `no mate within N`: a mate of at most N plies, or `unknown` for a reason
//!   other than the ply limit beyond N (the question was not answered).

use std::io::Write;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use serde::Serialize;
use tsume::problems::{Expected, Problem};
use tsume::solver::{Config, Reason, SearchResult, Solver};

use super::{Chip, JsonAnswer, LateBar, SolveArgs, Solved, configure, limits, solve};
use crate::util::Failure;

/// What went wrong with a problem's result, if anything.
fn judge(expected: &Expected, solved: &Solved, shortest: bool) -> Option<String> {
    let o = &solved.outcome;
    let plies = o.pv.len() as u32;
    match (expected, &o.result) {
        (Expected::Mate(n), SearchResult::Mate) if plies < *n => Some(format!(
            "a mate in {plies} is shorter than the expected minimax distance {n}"
        )),
        (Expected::Mate(n), SearchResult::Mate) if shortest && plies != *n => Some(format!(
            "shortest mode gives {plies} plies{}, expected {n}",
            if o.shortest {
                ""
            } else {
                " (not proven shortest)"
            }
        )),
        (Expected::Mate(_), SearchResult::Mate) => None,
        (Expected::Mate(n), SearchResult::NoMate) => {
            Some(format!("no mate answered on a mate in {n}"))
        }
        (Expected::Mate(n), SearchResult::Unknown(r)) => {
            Some(format!("the mate in {n} was not found: {r}"))
        }
        (Expected::NoMateWithin(n), SearchResult::Mate) if plies <= *n => {
            Some(format!("a mate in {plies}, expected none within {n}"))
        }
        (Expected::NoMateWithin(_), SearchResult::Mate | SearchResult::NoMate) => None,
        (Expected::NoMateWithin(n), SearchResult::Unknown(Reason::PlyLimit { plies, .. }))
            if *plies >= *n =>
        {
            None
        }
        (Expected::NoMateWithin(_), SearchResult::Unknown(r)) => Some(format!("no answer: {r}")),
    }
}

fn expected_text(e: &Expected) -> String {
    match e {
        Expected::Mate(n) => format!("mate in {n}"),
        Expected::NoMateWithin(n) => format!("no mate <= {n}"),
    }
}

/// A problem's row: its answer (or why it has none), the chip's beside it when the chip
/// ran it, and what is wrong with them.
struct Row<'a> {
    problem: &'a Problem,
    answer: Result<Solved, String>,
    chip: Option<Solved>,
    wrong: Option<String>,
}

/// How the chip's solve differs from the model's, if it does.
fn difference(chip: &Solved, model: &Solved) -> Option<String> {
    let (c, m) = (&chip.outcome, &model.outcome);
    (c != m).then(|| {
        format!(
            "the chip differs from the model: chip {} line [{}] {:?}, model {} line [{}] {:?}",
            super::describe(c),
            super::usi(c),
            c.counters,
            super::describe(m),
            super::usi(m),
            m.counters
        )
    })
}

#[derive(Serialize)]
struct JsonRow<'a> {
    #[serde(flatten)]
    answer: JsonAnswer<'a>,
    expected: &'a Expected,
    ok: bool,
    /// On the chip: its solve equals the model's.
    #[serde(skip_serializing_if = "Option::is_none")]
    same_as_model: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    wrong: Option<&'a str>,
}

#[derive(Serialize)]
struct JsonError<'a> {
    id: &'a str,
    sfen: &'a str,
    error: &'a str,
}

/// Solves every problem of `dir` (each within its own limits when it is a long problem and
/// the command line gives none) with the model and, given the chip, on the chip beside it
/// (every problem whose table and frames are the chip's and that is not a long problem),
/// prints a table or JSON lines, and fails on a wrong result or any difference.
pub fn run(dir: &Path, base: Config, args: &SolveArgs, mut chip: Option<&mut Chip>) -> Result<()> {
    let problems = crate::sim::load_suite(dir)?;
    let mut bar = LateBar::new(problems.len() as u64);
    let mut solvers: Vec<(Config, Solver)> = Vec::new();
    let mut rows = Vec::new();
    let mut total = Duration::ZERO;
    for p in &problems {
        bar.start_item(&p.id);
        let own = p.solve_only;
        let config = configure(
            base,
            args.tt_entries.or(own.map(|l| l.tt_entries)),
            args.max_plies.or(own.map(|l| l.max_plies)),
        )
        .with_context(|| format!("problem {}", p.id))?;
        // One solver per geometry: a large table is allocated once.
        let slot = match solvers.iter().position(|(c, _)| *c == config) {
            Some(i) => i,
            None => {
                solvers.push((config, Solver::new(config)));
                solvers.len() - 1
            }
        };
        let limits = limits(args, own.map(|l| l.nodes));
        let answer = solve(&mut solvers[slot].1, &p.sfen, limits);
        let on_chip = match (&mut chip, &answer) {
            (Some(c), Ok(_)) if own.is_none() && config == base => {
                let mut solved = solve(&mut c.searcher, &p.sfen, limits)
                    .map_err(|e| anyhow::anyhow!("problem {}: {e}", p.id))?;
                solved.cycles = Some(c.searcher.cycles());
                Some(solved)
            }
            _ => None,
        };
        let wrong = match &answer {
            Ok(s) => {
                total += s.time;
                judge(&p.expected, s, args.shortest)
                    .or_else(|| on_chip.as_ref().and_then(|c| difference(c, s)))
            }
            Err(e) => Some(format!("not a usable position: {e}")),
        };
        rows.push(Row {
            problem: p,
            answer,
            chip: on_chip,
            wrong,
        });
        bar.inc();
    }
    bar.finish();
    let wrong = rows.iter().filter(|r| r.wrong.is_some()).count();
    let mut out = std::io::stdout().lock();
    if args.json {
        for row in &rows {
            let p = row.problem;
            let line = match &row.answer {
                Ok(s) => serde_json::to_string(&JsonRow {
                    answer: JsonAnswer::new(Some(&p.id), &p.sfen, row.chip.as_ref().unwrap_or(s)),
                    expected: &p.expected,
                    ok: row.wrong.is_none(),
                    same_as_model: row.chip.as_ref().map(|c| c.outcome == s.outcome),
                    wrong: row.wrong.as_deref(),
                })?,
                Err(e) => serde_json::to_string(&JsonError {
                    id: &p.id,
                    sfen: &p.sfen,
                    error: e,
                })?,
            };
            writeln!(out, "{line}")?;
        }
    } else {
        let clock = chip.as_ref().map(|c| c.clock_mhz);
        write!(out, "{}", table(&rows, clock))?;
        let nodes: u64 = rows
            .iter()
            .filter_map(|r| r.answer.as_ref().ok())
            .map(|s| s.outcome.counters.nodes)
            .sum();
        writeln!(
            out,
            "{} problems from {}, {wrong} wrong; {nodes} nodes in {:.2} s ({}){}",
            rows.len(),
            dir.display(),
            total.as_secs_f64(),
            super::rate(nodes, total),
            if args.shortest { ", shortest mode" } else { "" }
        )?;
        if let Some(mhz) = clock {
            let on_chip: Vec<&Solved> = rows.iter().filter_map(|r| r.chip.as_ref()).collect();
            let cycles = on_chip
                .iter()
                .filter_map(|s| s.cycles)
                .fold(tsume::chip::solver::Cycles::default(), |a, c| a + c);
            let nodes: u64 = on_chip.iter().map(|s| s.outcome.counters.nodes).sum();
            writeln!(
                out,
                "on the chip: {} problems, every counter equal to the model's unless marked; \
                 {}",
                on_chip.len(),
                super::cycles_text(&cycles, nodes, mhz)
            )?;
        }
    }
    out.flush()?;
    if wrong > 0 {
        let names: Vec<&str> = rows
            .iter()
            .filter(|r| r.wrong.is_some())
            .map(|r| r.problem.id.as_str())
            .collect();
        return Err(Failure::error(
            1,
            format!(
                "{wrong} of {} problems in {} have a wrong result: {}",
                rows.len(),
                dir.display(),
                names.join(", ")
            ),
        ));
    }
    Ok(())
}

/// The table: problem, expected, result, plies, nodes, the model's time, the chip's time
/// at `clock` MHz (a hardware run), and what is wrong.
fn table(rows: &[Row], clock: Option<f64>) -> String {
    let chip_column = match clock {
        Some(mhz) => format!("chip @ {mhz} MHz"),
        None => "chip".to_string(),
    };
    let header = [
        "problem",
        "expected",
        "result",
        "plies",
        "nodes",
        "model",
        &chip_column,
        "check",
    ]
    .map(String::from)
    .to_vec();
    let mut cells: Vec<Vec<String>> = vec![header];
    for row in rows {
        let p = row.problem;
        let check = match &row.wrong {
            None => "ok".to_string(),
            Some(w) => format!("WRONG: {w}"),
        };
        cells.push(match &row.answer {
            Ok(s) => {
                let o = &s.outcome;
                let result = match &o.result {
                    SearchResult::Mate if o.shortest => "mate (shortest)".to_string(),
                    r => super::result_word(r).to_string(),
                };
                let plies = if o.result == SearchResult::Mate {
                    o.pv.len().to_string()
                } else {
                    "-".to_string()
                };
                vec![
                    p.id.clone(),
                    expected_text(&p.expected),
                    result,
                    plies,
                    o.counters.nodes.to_string(),
                    format!("{:.3} s", s.time.as_secs_f64()),
                    match (&row.chip, clock) {
                        (Some(c), Some(mhz)) => format!(
                            "{:.3} ms",
                            c.cycles.map_or(0, |c| c.total) as f64 / (mhz * 1e3)
                        ),
                        _ => "-".to_string(),
                    },
                    check,
                ]
            }
            Err(_) => vec![
                p.id.clone(),
                expected_text(&p.expected),
                "error".to_string(),
                "-".to_string(),
                "-".to_string(),
                "-".to_string(),
                "-".to_string(),
                check,
            ],
        });
    }
    let columns = cells[0].len();
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            cells
                .iter()
                .map(|r| r[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    // Numbers right-aligned (plies, nodes, time), the rest left; the last column free.
    let right = [false, false, false, true, true, true, true, false];
    let mut text = String::new();
    for row in &cells {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i + 1 == columns {
                line.push_str(cell);
            } else {
                let pad = " ".repeat(widths[i] - cell.chars().count());
                if right[i] {
                    line.push_str(&pad);
                    line.push_str(cell);
                } else {
                    line.push_str(cell);
                    line.push_str(&pad);
                }
                line.push_str("  ");
            }
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}
