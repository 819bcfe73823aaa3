//! The problem suite solved and checked against its expected results.
//!
//! A result is wrong when it contradicts the expected one or misses it:
//! - expected `mate N`: no mate within the limits (`nomate` or `unknown`), a mate shorter
//!   than N (N is the minimax distance), or with `--shortest` a mate of another length;
//! - expected `no mate within N`: a mate of at most N plies, or `unknown` for a reason
//!   other than the ply limit beyond N (the question was not answered).

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use serde::Serialize;
use tsume::problems::{Expected, Problem};
use tsume::solver::{Config, Reason, SearchResult, Solver};

use super::output::{self, Asked, JsonAnswer, JsonError, LateBar};
use super::{Chip, SolveArgs, Solved, configure, limits, solve};
use crate::util::Failure;

/// What went wrong with a problem's result, if anything.
fn judge(expected: &Expected, solved: &Solved, asked: Asked) -> Option<String> {
    let o = &solved.outcome;
    let shortest = asked.shortest;
    let plies = o.pv.len() as u32;
    match (expected, &o.result) {
        (Expected::Mate(n), SearchResult::Mate) if plies < *n => Some(format!(
            "a mate in {plies} is shorter than the expected minimax distance {n}"
        )),
        (Expected::Mate(n), SearchResult::Mate) if shortest && plies != *n => Some(format!(
            "shortest mode gives {}{}, expected {n}",
            crate::util::count(plies, "ply", "plies"),
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
        (Expected::Mate(n), SearchResult::Unknown(r)) => Some(format!(
            "the mate in {n} was not found: {}",
            output::reason_text(r, asked)
        )),
        (Expected::NoMateWithin(n), SearchResult::Mate) if plies <= *n => {
            Some(format!("a mate in {plies}, expected none within {n}"))
        }
        (Expected::NoMateWithin(_), SearchResult::Mate | SearchResult::NoMate) => None,
        (Expected::NoMateWithin(n), SearchResult::Unknown(Reason::PlyLimit { plies, .. }))
            if *plies >= *n =>
        {
            None
        }
        (Expected::NoMateWithin(_), SearchResult::Unknown(r)) => {
            Some(format!("no answer: {}", output::reason_text(r, asked)))
        }
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

/// The model's solvers of a suite run, one per geometry (a large table is allocated once).
#[derive(Default)]
struct Solvers(Vec<(Config, Solver)>);

impl Solvers {
    /// The solver of `config`, or why this machine cannot hold its table.
    fn of(&mut self, config: Config, tt_entries: Option<usize>) -> Result<&mut Solver, String> {
        let slot = match self.0.iter().position(|(c, _)| *c == config) {
            Some(i) => i,
            None => {
                let solver = super::model(config, tt_entries).map_err(|e| format!("{e:#}"))?;
                self.0.push((config, solver));
                self.0.len() - 1
            }
        };
        Ok(&mut self.0[slot].1)
    }
}

/// How the chip's solve differs from the model's, if it does.
fn difference(chip: &Solved, model: &Solved, asked: Asked) -> Option<String> {
    let (c, m) = (&chip.outcome, &model.outcome);
    (c != m).then(|| {
        format!(
            "the chip differs from the model: chip {} line [{}] {:?}, model {} line [{}] {:?}",
            output::describe(c, asked),
            output::usi(c),
            c.counters,
            output::describe(m, asked),
            output::usi(m),
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

/// Solves every problem of `dir` (each within its own limits when it is a long problem and
/// the command line gives none) with the model and, given the chip, on the chip beside it
/// (every problem whose table and frames are the chip's and that is not a long problem),
/// prints each problem's row (or JSON line) as it is solved, then a summary, and fails on
/// a wrong result or any difference.
pub fn run(dir: &Path, base: Config, args: &SolveArgs, mut chip: Option<&mut Chip>) -> Result<()> {
    let problems = tsume::input::load_suite(dir)?;
    let clock = chip.as_ref().map(|c| c.clock_mhz);
    // A problem beyond the chip's frames is the model's alone: the options' words are the
    // model's.
    let asked = Asked {
        shortest: args.shortest_mode(),
        chip_plies: None,
        ja: args.notation == super::Notation::Ja,
        alternatives: false,
        level_two: base.tt2_index_bits > 0,
    };
    let table = Table::new(&problems, clock, args.shortest_mode());
    let mut bar = LateBar::new(problems.len() as u64);
    if !args.json {
        bar.println(&table.header())?;
    }
    let mut solvers = Solvers::default();
    let mut rows = Vec::new();
    let mut total = Duration::ZERO;
    for p in &problems {
        bar.start_item(&p.id);
        let own = p.solve_only;
        // With --board, the board's table for every problem.
        let own_entries = own.filter(|_| args.board.is_none()).map(|l| l.tt_entries);
        let config = configure(
            base,
            args.table_entries().or(own_entries),
            args.max_plies.or(own.map(|l| l.max_plies)),
        )
        .with_context(|| format!("problem {}", p.id))?;
        let limits = limits(args, own.map(|l| l.nodes));
        let answer = solvers.of(config, args.table_entries()).and_then(|solver| {
            let mut solved = solve(solver, &p.sfen, limits)?;
            if args.alternatives {
                solved.composed = super::composer::check(solver, &solved, limits);
            }
            Ok(solved)
        });
        let on_chip = match (&mut chip, &answer) {
            (Some(c), Ok(_)) if own.is_none() && config == base => {
                let mut solved = solve(c.searcher.as_mut(), &p.sfen, limits)
                    .map_err(|e| anyhow::anyhow!("problem {}: {e}", p.id))?;
                solved.cycles = Some(c.searcher.cycles());
                Some(solved)
            }
            _ => None,
        };
        let wrong = match &answer {
            Ok(s) => {
                total += s.time;
                judge(&p.expected, s, asked)
                    .or_else(|| on_chip.as_ref().and_then(|c| difference(c, s, asked)))
            }
            Err(e) => Some(format!("not solved: {e}")),
        };
        let row = Row {
            problem: p,
            answer,
            chip: on_chip,
            wrong,
        };
        let line = if args.json {
            json_line(&row, asked)?
        } else {
            table.row(&row)
        };
        bar.println(&line)?;
        bar.inc();
        rows.push(row);
    }
    bar.finish();
    let wrong = rows.iter().filter(|r| r.wrong.is_some()).count();
    if !args.json {
        let nodes: u64 = rows
            .iter()
            .filter_map(|r| r.answer.as_ref().ok())
            .map(|s| s.outcome.counters.nodes)
            .sum();
        let mut summary = format!(
            "{} problems from {}, {wrong} wrong; {nodes} nodes in {:.2} s ({}){}",
            rows.len(),
            dir.display(),
            total.as_secs_f64(),
            output::rate(nodes, total),
            if args.shortest_mode() {
                ", shortest mode"
            } else {
                ""
            }
        );
        if base.tt2_index_bits > 0 {
            let sum = rows.iter().filter_map(|r| r.answer.as_ref().ok()).fold(
                tsume::solver::Counters::default(),
                |a, s| {
                    let c = &s.outcome.counters;
                    tsume::solver::Counters {
                        probes: a.probes + c.probes,
                        l2_reads: a.l2_reads + c.l2_reads,
                        l2_hits: a.l2_hits + c.l2_hits,
                        l2_empty: a.l2_empty + c.l2_empty,
                        write_backs: a.write_backs + c.write_backs,
                        ..a
                    }
                },
            );
            summary.push_str(&format!(
                "\nthe table's two levels (2^{} sets of {} ways, 2^{} slots): {}",
                base.tt_index_bits,
                base.tt_ways,
                base.tt2_index_bits,
                output::level_two_text(&sum)
            ));
        }
        if args.alternatives {
            summary.push('\n');
            summary.push_str(&super::composer::suite_summary(
                rows.iter().filter_map(|r| r.answer.as_ref().ok()),
            ));
        }
        if let Some(mhz) = clock {
            let on_chip: Vec<&Solved> = rows.iter().filter_map(|r| r.chip.as_ref()).collect();
            let cycles = on_chip
                .iter()
                .filter_map(|s| s.cycles)
                .fold(tsume::chip::solver::Cycles::default(), |a, c| a + c);
            let nodes: u64 = on_chip.iter().map(|s| s.outcome.counters.nodes).sum();
            summary.push_str(&format!(
                "\non the chip: {} problems, every counter equal to the model's unless marked; \
                 {}",
                on_chip.len(),
                output::cycles_text(&cycles, nodes, mhz)
            ));
        }
        bar.println(&summary)?;
    }
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

/// The JSON line of a row: the answer (the chip's when it ran), the expected result and
/// the check, or the error.
fn json_line(row: &Row, asked: Asked) -> Result<String> {
    let p = row.problem;
    Ok(match &row.answer {
        Ok(s) => serde_json::to_string(&JsonRow {
            answer: JsonAnswer::new(Some(&p.id), &p.sfen, row.chip.as_ref().unwrap_or(s), asked),
            expected: &p.expected,
            ok: row.wrong.is_none(),
            same_as_model: row.chip.as_ref().map(|c| c.outcome == s.outcome),
            wrong: row.wrong.as_deref(),
        })?,
        Err(e) => serde_json::to_string(&JsonError {
            id: Some(&p.id),
            name: None,
            sfen: &p.sfen,
            error: e,
        })?,
    })
}

/// The columns of the table, sized before the first row so that each row is printed when
/// its problem is solved: problem, expected, result, plies, nodes, the model's time, the
/// chip's time at its clock (a chip run), and the check.
struct Table {
    widths: [usize; 7],
    chip_column: String,
    clock: Option<f64>,
    /// `--shortest`: a mate not proven shortest says so.
    shortest: bool,
}

/// Numbers right-aligned (plies, nodes, times), the rest left; the check column is free.
const RIGHT: [bool; 7] = [false, false, false, true, true, true, true];

impl Table {
    fn new(problems: &[Problem], clock: Option<f64>, shortest: bool) -> Table {
        let chip_column = match clock {
            Some(mhz) => format!("chip @ {mhz} MHz"),
            None => "chip".to_string(),
        };
        let widest = |cells: &mut dyn Iterator<Item = usize>, header: &str| {
            cells.max().unwrap_or(0).max(header.chars().count())
        };
        let result = if shortest {
            "mate (not proven shortest)"
        } else {
            "unknown"
        };
        Table {
            widths: [
                widest(
                    &mut problems.iter().map(|p| p.id.chars().count()),
                    "problem",
                ),
                widest(
                    &mut problems.iter().map(|p| expected_text(&p.expected).len()),
                    "expected",
                ),
                result.len(),
                "plies".len(),
                "1000000000".len(),
                "1000.000 s".len(),
                chip_column.len().max("1000.000 ms".len()),
            ],
            chip_column,
            clock,
            shortest,
        }
    }

    fn line(&self, cells: &[String; 8]) -> String {
        let mut line = String::new();
        for (i, cell) in cells.iter().take(7).enumerate() {
            let pad = " ".repeat(self.widths[i].saturating_sub(cell.chars().count()));
            if RIGHT[i] {
                line.push_str(&pad);
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.push_str(&pad);
            }
            line.push_str("  ");
        }
        line.push_str(&cells[7]);
        line.trim_end().to_string()
    }

    fn header(&self) -> String {
        self.line(&[
            "problem".to_string(),
            "expected".to_string(),
            "result".to_string(),
            "plies".to_string(),
            "nodes".to_string(),
            "model".to_string(),
            self.chip_column.clone(),
            "check".to_string(),
        ])
    }

    fn row(&self, row: &Row) -> String {
        let p = row.problem;
        let check = match &row.wrong {
            None => "ok".to_string(),
            Some(w) => format!("WRONG: {w}"),
        };
        let dash = || "-".to_string();
        let cells = match &row.answer {
            Ok(s) => {
                let o = &s.outcome;
                let result = match &o.result {
                    SearchResult::Mate if o.shortest => "mate (shortest)".to_string(),
                    SearchResult::Mate if self.shortest => "mate (not proven shortest)".to_string(),
                    r => output::result_word(r).to_string(),
                };
                let plies = if o.result == SearchResult::Mate {
                    o.pv.len().to_string()
                } else {
                    dash()
                };
                [
                    p.id.clone(),
                    expected_text(&p.expected),
                    result,
                    plies,
                    o.counters.nodes.to_string(),
                    format!("{:.3} s", s.time.as_secs_f64()),
                    match (&row.chip, self.clock) {
                        (Some(c), Some(mhz)) => format!(
                            "{:.3} ms",
                            c.cycles.map_or(0, |c| c.total) as f64 / (mhz * 1e3)
                        ),
                        _ => dash(),
                    },
                    check,
                ]
            }
            Err(_) => [
                p.id.clone(),
                expected_text(&p.expected),
                "error".to_string(),
                dash(),
                dash(),
                dash(),
                dash(),
                check,
            ],
        };
        self.line(&cells)
    }
}
