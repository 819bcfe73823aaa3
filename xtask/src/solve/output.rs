//! What `cargo xtask solve` prints: the words of a result, the JSON object of an answer,
//! and the progress bar of a long run.

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use anyhow::Result;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use tsume::chip::solver::Cycles;
use tsume::futile::Rule;
use tsume::input::kif;
use tsume::solver::{Kind, Outcome, Reason, SearchResult};

use super::Solved;
use crate::util::count;

/// Runs of at least this long show a progress bar (on a terminal).
const BAR_AFTER: Duration = Duration::from_secs(2);

/// `41,234 cycles (52.1 a node): 0.550 ms at 75 MHz (1.44 M nodes/s)`.
pub fn cycles_text(cycles: &Cycles, nodes: u64, clock_mhz: f64) -> String {
    let secs = cycles.total as f64 / (clock_mhz * 1e6);
    let rate = if secs > 0.0 {
        format!("{:.2} M nodes/s", nodes as f64 / secs / 1e6)
    } else {
        "-".to_string()
    };
    format!(
        "{} cycles ({:.1} a node): {:.3} ms at {clock_mhz} MHz ({rate})",
        cycles.total,
        cycles.total as f64 / nodes.max(1) as f64,
        secs * 1e3
    )
}

/// The line in USI, space-separated.
pub fn usi(outcome: &Outcome) -> String {
    usi_moves(&outcome.pv)
}

/// Moves in USI, space-separated.
pub fn usi_moves(moves: &[tsume::rsshogi::types::Move]) -> String {
    moves
        .iter()
        .map(|m| m.to_usi())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The line of a solve as asked: USI, or Japanese numbered as composers write it
/// (`--notation ja`).
pub fn line(solved: &Solved, asked: Asked) -> String {
    if asked.ja {
        kif::numbered_ja(&kif::line_ja(&solved.pos, &solved.outcome.pv))
    } else {
        usi(&solved.outcome)
    }
}

/// `mate`, `nomate` or `unknown`.
pub fn result_word(result: &SearchResult) -> &'static str {
    match result {
        SearchResult::Mate => "mate",
        SearchResult::NoMate => "nomate",
        SearchResult::Unknown(_) => "unknown",
    }
}

/// `attacker` or `defender`: the side to move's part at the root.
pub fn root_word(kind: Kind) -> &'static str {
    match kind {
        Kind::Or => "attacker",
        Kind::And => "defender",
    }
}

/// What was asked of a solve, for the words of its answer.
#[derive(Debug, Clone, Copy)]
pub struct Asked {
    /// `--shortest`.
    pub shortest: bool,
    /// On the chip: the plies its frames hold (swim.toml [search] max_plies).
    pub chip_plies: Option<usize>,
    /// `--notation ja`: lines in Japanese too.
    pub ja: bool,
    /// `--alternatives`: the composer's checks after a shortest mate.
    pub alternatives: bool,
    /// The table has a second level (`--board`, `--tt2-bits`): its counters are reported.
    pub level_two: bool,
}

/// The second level's counters of a solve (docs/search.md, "The second level (the
/// board's SDRAM)").
#[derive(Serialize)]
pub struct JsonLevelTwo {
    /// Probes the first level did not answer (the slot read).
    pub reads: u64,
    /// Of those, answered by the second level.
    pub hits: u64,
    /// Of those, the slot never written since the clear.
    pub empty: u64,
    /// Entries evicted from the first level, written to the second.
    pub write_backs: u64,
}

impl JsonLevelTwo {
    pub fn of(c: &tsume::solver::Counters) -> JsonLevelTwo {
        JsonLevelTwo {
            reads: c.l2_reads,
            hits: c.l2_hits,
            empty: c.l2_empty,
            write_backs: c.write_backs,
        }
    }
}

/// The second level's counters as the report writes them: the first level's hit rate
/// (the probes it answered), then the second's reads, hits, empty slots and write-backs.
pub fn level_two_text(c: &tsume::solver::Counters) -> String {
    let rate = if c.probes == 0 {
        1.0
    } else {
        1.0 - c.l2_reads as f64 / c.probes as f64
    };
    format!(
        "first level answered {:.2} % of the probes; second level: {} reads, {} hits, {} \
         empty, {} write-backs",
        100.0 * rate,
        c.l2_reads,
        c.l2_hits,
        c.l2_empty,
        c.write_backs
    )
}

/// Why there is no answer, with the option of this command that gives one: the frames'
/// limit names `--max-plies` (up to what the chip holds, on the chip).
pub fn reason_text(reason: &Reason, asked: Asked) -> String {
    match reason {
        Reason::PlyLimit { plies, max_plies } => {
            let raise = match asked.chip_plies {
                Some(most) if *max_plies >= most => format!(
                    "the chip's frames hold at most {most} (swim.toml [search] max_plies); for a \
                     longer mate solve with --engine model --max-plies N"
                ),
                Some(most) => {
                    format!("for a longer mate raise --max-plies (up to {most} on the chip)")
                }
                None => "for a longer mate raise --max-plies (up to 1024)".to_string(),
            };
            format!(
                "ply limit: no mate within {}, the most --max-plies {max_plies} holds; {raise}",
                count(u64::from(*plies), "ply", "plies")
            )
        }
        Reason::NodeLimit { nodes } => format!(
            "node limit: {nodes} nodes searched without an answer; raise --nodes (0: no limit)"
        ),
        other => other.to_string(),
    }
}

/// `mate in 5 (shortest)`, `mate in 7 (not proven shortest)`, `no mate`, `unknown: ...`.
pub fn describe(outcome: &Outcome, asked: Asked) -> String {
    match &outcome.result {
        SearchResult::Mate => {
            let shortest = if outcome.shortest {
                " (shortest)"
            } else if asked.shortest {
                " (not proven shortest: a shorter mate was not ruled out within the limits)"
            } else {
                ""
            };
            let rule = outcome.rule.length_words();
            format!("mate in {}{rule}{shortest}", outcome.pv.len())
        }
        SearchResult::NoMate => "no mate".to_string(),
        SearchResult::Unknown(reason) => format!("unknown: {}", reason_text(reason, asked)),
    }
}

/// The rule of a mate's length and what its line left out: `composers' rule: futile
/// interpositions left out after ply 1 (P*2b L*2b ...)`, `every interposition counted`.
pub fn rule_text(outcome: &Outcome) -> String {
    match outcome.rule {
        Rule::EveryInterposition => "every interposition counted".to_string(),
        Rule::Composers if outcome.left_out.is_empty() => {
            "composers' rule (futile interpositions left out; none on this line)".to_string()
        }
        Rule::Composers => {
            let gaps: Vec<String> = outcome.left_out.iter().map(|gap| gap.text()).collect();
            format!(
                "composers' rule, futile interpositions left out {}",
                gaps.join("; ")
            )
        }
    }
}

/// Moves made per second, rounded.
pub fn rate(nodes: u64, time: Duration) -> String {
    let secs = time.as_secs_f64();
    if secs <= 0.0 {
        return "-".to_string();
    }
    format!("{:.0} nodes/s", nodes as f64 / secs)
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The position as given, `text`, where it is not its full SFEN `sfen` (`position
/// startpos moves ...`, a SFEN without its move number); what the report's `input:` line
/// and the JSON's `input` field show.
pub fn given_otherwise<'a>(text: &'a str, sfen: &str) -> Option<&'a str> {
    let text = text.trim();
    (text != sfen).then_some(text)
}

/// The JSON object of one answer.
#[derive(Serialize)]
pub struct JsonAnswer<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<&'a str>,
    /// A problem file's name (the file, and its title).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<&'a str>,
    /// The position solved, as a full SFEN.
    pub sfen: String,
    /// The position as given, where it is not that SFEN (`position startpos moves ...`,
    /// a SFEN without its move number).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<&'a str>,
    pub engine: &'static str,
    pub root: &'static str,
    pub result: &'static str,
    pub pv: Vec<String>,
    /// `--notation ja`: the line in Japanese (`▲３三角成`, `△同　玉`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_ja: Option<Vec<String>>,
    pub plies: usize,
    /// For a mate under the composers' rule: its length by the rule (the line's plies:
    /// the line leaves the futile interpositions out); absent when every interposition
    /// counts (the chip, `--every-interposition`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub length: Option<usize>,
    /// Beside `length`, for a mate proven shortest: the plies of the shortest mate
    /// counting every interposition (the line's own when it left nothing out, else a
    /// second search's); absent when that search ended without one within the limits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub every_interposition_plies: Option<usize>,
    /// The moves made by that second search (not counted in `nodes`, as the checks'
    /// are not); absent when there was none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub every_interposition_nodes: Option<u64>,
    /// The rule of the replies: "composers" or "every interposition".
    pub rule: &'static str,
    /// For a mate under the composers' rule: the futile interpositions the line left out,
    /// `{"ply": 1, "moves": ["P*2b", ...]}` after the attacker's move of that ply.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<JsonLeftOut>,
    /// For a mate: whether the line is proven to be of the least length (`--shortest`
    /// completed); false for the first line a proof gives.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proven_shortest: Option<bool>,
    pub nodes: u64,
    pub expansions: u64,
    pub probes: u64,
    pub stores: u64,
    /// Children counted (`--table counts`, `pieces-counts`); absent when none.
    #[serde(skip_serializing_if = "is_zero")]
    pub counts: u64,
    /// With a second level (`--board`, `--tt2-bits`): its counters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level_two: Option<JsonLevelTwo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycles: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `--alternatives`: the composer's checks of a shortest mate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checks: Option<super::composer::JsonChecks>,
}

impl<'a> JsonAnswer<'a> {
    pub fn new(id: Option<&'a str>, sfen: &'a str, solved: &Solved, asked: Asked) -> Self {
        let outcome = &solved.outcome;
        let full = solved.pos.to_sfen();
        JsonAnswer {
            id,
            name: None,
            line_ja: asked.ja.then(|| kif::line_ja(&solved.pos, &outcome.pv)),
            input: given_otherwise(sfen, &full),
            sfen: full,
            engine: if solved.cycles.is_some() {
                "chip"
            } else {
                "model"
            },
            root: root_word(outcome.root),
            result: result_word(&outcome.result),
            pv: outcome.pv.iter().map(|m| m.to_usi()).collect(),
            plies: outcome.pv.len(),
            length: (outcome.result == SearchResult::Mate && outcome.rule == Rule::Composers)
                .then_some(outcome.pv.len()),
            every_interposition_plies: solved.every.as_ref().and_then(|e| e.plies),
            every_interposition_nodes: solved
                .every
                .as_ref()
                .and_then(|e| e.search.as_ref())
                .map(|second| second.outcome.counters.nodes),
            rule: outcome.rule.name(),
            left_out: outcome
                .left_out
                .iter()
                .map(|gap| JsonLeftOut {
                    ply: gap.ply,
                    moves: gap.moves.iter().map(|m| m.to_usi()).collect(),
                })
                .collect(),
            proven_shortest: (outcome.result == SearchResult::Mate).then_some(outcome.shortest),
            nodes: outcome.counters.nodes,
            expansions: outcome.counters.expansions,
            probes: outcome.counters.probes,
            stores: outcome.counters.stores,
            counts: outcome.counters.counts,
            level_two: asked.level_two.then(|| JsonLevelTwo::of(&outcome.counters)),
            cycles: solved.cycles.map(|c| c.total),
            reason: match &outcome.result {
                SearchResult::Unknown(reason) => Some(reason_text(reason, asked)),
                _ => None,
            },
            checks: solved
                .composed
                .as_ref()
                .map(super::composer::JsonChecks::of),
        }
    }
}

/// A defender's node of the line and the futile interpositions left out there.
#[derive(Serialize)]
pub struct JsonLeftOut {
    pub ply: usize,
    pub moves: Vec<String>,
}

/// The JSON object of an input that is not a usable position.
#[derive(Serialize)]
pub struct JsonError<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<&'a str>,
    /// A problem file's name (the file, and its title), or the file that cannot be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<&'a str>,
    pub sfen: &'a str,
    pub error: &'a str,
}

/// A progress bar on stderr that appears once a run has lasted [`BAR_AFTER`] (and only on
/// a terminal).
pub struct LateBar {
    bar: ProgressBar,
    start: Instant,
    shown: bool,
}

impl LateBar {
    pub fn new(len: u64) -> LateBar {
        let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{bar:30.cyan/blue} {pos}/{len} [{elapsed}<{eta}] {msg}")
                .expect("valid template"),
        );
        LateBar {
            bar,
            start: Instant::now(),
            shown: false,
        }
    }

    /// Before an item: its name, and the bar shown if the run has become long.
    pub fn start_item(&mut self, name: &str) {
        if !self.shown && self.start.elapsed() >= BAR_AFTER && std::io::stderr().is_terminal() {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.bar.enable_steady_tick(Duration::from_millis(200));
            self.shown = true;
        }
        self.bar.set_message(name.to_string());
    }

    /// After an item.
    pub fn inc(&self) {
        self.bar.inc(1);
    }

    /// Writes a line to stdout through the bar (so that it is not drawn over).
    pub fn println(&self, text: &str) -> Result<()> {
        self.bar.suspend(|| -> Result<()> {
            let mut out = std::io::stdout().lock();
            writeln!(out, "{text}")?;
            out.flush()?;
            Ok(())
        })
    }

    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
