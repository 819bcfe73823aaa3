//! `cargo xtask bench --solver`: the df-pn model beside cshogi's DfPn on the same positions,
//! at the same node limit, in the same run. Per set: answers (mate, no mate, unknown, wrong,
//! crashed), nodes, expansions, probes, wall time and nodes per second, as markdown tables.
//!
//! The chip (`solver_top`, simulated) runs the first `--chip-sample` positions of each set
//! that the model at the chip's geometry (swim.toml [search]) answers within `--chip-nodes`
//! nodes, at that limit, and must answer each as that model does (result, line, every
//! counter). Its cycles a node, where they go, nodes/s and time at the board's clock stand
//! beside cshogi's and the model's wall times on exactly those positions.
//!
//! cshogi runs in the project venv through `xtask/python/cshogi_dfpn.py`, one process per
//! set that answers one JSON line per position; a position that kills the process is
//! counted as a crash and a new process takes the positions after it.

mod chip_column;
mod cshogi;
mod sets;

use chip_column::*;
use cshogi::*;
pub use sets::*;
use std::time::{Duration, Instant};

use anyhow::Result;
use indicatif::ProgressBar;
use tsume::chip::solver::{ChipSearcher, Cycles, SolverTop};
use tsume::marlin::spade::SpadeRuntime;
use tsume::position::Position;
use tsume::solver::modes::{Mode, parse_modes};
use tsume::solver::{Config, Limits, Outcome, Reason, Root, SearchResult, Solver, solve_on};

use crate::util::{self, Failure};

/// One engine's answer on one position.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// A mate with a line of this many plies.
    Mate(usize),
    NoMate,
    /// No answer within the limits; the reason when it is not the node limit.
    Unknown(Option<String>),
    /// The engine's process died on the position.
    Crashed(String),
    /// The engine could not read the position.
    Error(String),
}

/// An answer with its cost.
#[derive(Debug, Clone)]
pub struct Run {
    pub answer: Answer,
    pub nodes: u64,
    /// Move lists, table probes and child counts: the model's counters (cshogi reports
    /// none of them).
    pub expansions: Option<u64>,
    pub probes: Option<u64>,
    pub counts: Option<u64>,
    /// With a second level: its reads, hits, empty slots read and write-backs.
    pub level_two: Option<[u64; 4]>,
    pub seconds: f64,
}

/// Whether `answer` contradicts what the position is known to be.
pub fn is_wrong(expect: Expect, answer: &Answer) -> bool {
    match (expect, answer) {
        (Expect::Mate(_), Answer::NoMate) => true,
        (Expect::NoMateWithin(n), Answer::Mate(plies)) => *plies <= n as usize,
        _ => false,
    }
}

/// The model on one position.
fn run_model(solver: &mut Solver, item: &Item, nodes: u64, root: Root) -> Run {
    let pos = match Position::from_sfen(&item.sfen) {
        Ok(pos) => pos,
        Err(e) => {
            return Run {
                answer: Answer::Error(e.to_string()),
                nodes: 0,
                expansions: None,
                probes: None,
                counts: None,
                level_two: None,
                seconds: 0.0,
            };
        }
    };
    let start = Instant::now();
    let outcome = solver.solve(
        &pos,
        Limits {
            nodes,
            shortest: false,
            root,
        },
    );
    let seconds = start.elapsed().as_secs_f64();
    Run {
        answer: answer_of(&outcome),
        nodes: outcome.counters.nodes,
        expansions: Some(outcome.counters.expansions),
        probes: Some(outcome.counters.probes),
        counts: Some(outcome.counters.counts),
        level_two: (solver.config().tt2_index_bits > 0).then(|| {
            let c = &outcome.counters;
            [c.l2_reads, c.l2_hits, c.l2_empty, c.write_backs]
        }),
        seconds,
    }
}

/// Totals of one engine on one set.
#[derive(Default, Debug, Clone, PartialEq)]
pub struct Tally {
    pub positions: u64,
    pub mate: u64,
    pub nomate: u64,
    pub unknown: u64,
    pub wrong: u64,
    pub crashed: u64,
    pub errors: u64,
    pub nodes: u64,
    pub expansions: Option<u64>,
    pub probes: Option<u64>,
    pub counts: Option<u64>,
    pub level_two: Option<[u64; 4]>,
    pub seconds: f64,
}

impl Tally {
    pub fn add(&mut self, expect: Expect, run: &Run) {
        self.positions += 1;
        match &run.answer {
            Answer::Mate(_) => self.mate += 1,
            Answer::NoMate => self.nomate += 1,
            Answer::Unknown(_) => self.unknown += 1,
            Answer::Crashed(_) => self.crashed += 1,
            Answer::Error(_) => self.errors += 1,
        }
        if is_wrong(expect, &run.answer) {
            self.wrong += 1;
        }
        self.nodes += run.nodes;
        let sum = |a: Option<u64>, b: Option<u64>| b.map(|b| a.unwrap_or(0) + b).or(a);
        self.expansions = sum(self.expansions, run.expansions);
        self.probes = sum(self.probes, run.probes);
        self.counts = sum(self.counts, run.counts);
        if let Some(l2) = run.level_two {
            let mut total = self.level_two.unwrap_or_default();
            for (t, v) in total.iter_mut().zip(l2) {
                *t += v;
            }
            self.level_two = Some(total);
        }
        self.seconds += run.seconds;
    }

    /// The second level's row, with one: probes, the first level's hit rate, the second
    /// level's reads, hits, empty slots read, write-backs, and write-backs a node.
    fn level_two_row(&self, set: &str, engine: &str) -> Option<String> {
        let [reads, hits, empty, write_backs] = self.level_two?;
        let probes = self.probes.unwrap_or(0);
        let rate = 100.0 * (1.0 - reads as f64 / probes.max(1) as f64);
        Some(format!(
            "| {set} | {engine} | {} | {probes} | {rate:.2} % | {reads} | {hits} | {empty} | \
             {write_backs} | {:.3} |",
            self.nodes,
            write_backs as f64 / self.nodes.max(1) as f64
        ))
    }

    /// The short row: proved (mate), nodes, time.
    fn brief(&self, set: &str, engine: &str) -> String {
        format!(
            "| {set} | {engine} | {} | {} | {:.2} |",
            self.mate, self.nodes, self.seconds
        )
    }

    fn row(&self, set: &str, engine: &str) -> String {
        let opt = |v: Option<u64>| v.map_or("-".to_string(), |v| v.to_string());
        format!(
            "| {set} | {engine} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {:.2} | {:.0} |",
            self.positions,
            self.mate,
            self.nomate,
            self.unknown,
            self.wrong,
            self.crashed + self.errors,
            self.nodes,
            opt(self.expansions),
            opt(self.probes),
            opt(self.counts),
            self.seconds,
            self.nodes as f64 / self.seconds.max(1e-9),
        )
    }
}

pub struct Options {
    pub nodes: u64,
    pub sample: usize,
    pub sets: Option<String>,
    pub tt_entries: usize,
    pub max_plies: Option<usize>,
    /// The chip's node limit (with `nodes`, the smaller); 0: no chip.
    pub chip_nodes: u64,
    /// Positions of each set looked at for the chip, from its start; 0: no chip.
    pub chip_sample: usize,
    /// The model's table modes, each a row of its own (`--model-modes`).
    pub model_modes: Option<String>,
    /// The chip's table mode instead of swim.toml's (`--chip-table`).
    pub chip_table: Option<String>,
    /// The model with a board's two levels (`--board`; "" for swim.toml's [fpga] board)
    /// instead of `tt_entries`.
    pub board: Option<String>,
}

/// The model's modes when `--model-modes` names none.
const DEFAULT_MODES: &str = "est-attacked,depth,pieces";

/// A model row's engine name: with the mode's name.
fn engine_name(mode: &Mode) -> String {
    format!("model ({})", mode.name)
}

/// What the runs of the sets gather for the report, set by set.
#[derive(Default)]
struct Report {
    /// Every engine's full row.
    rows: Vec<String>,
    /// Every engine's short row.
    summary: Vec<String>,
    /// Wrong, failed and capacity answers.
    notes: Vec<String>,
    /// The second level's rows of the model's modes, with one.
    level_two: Vec<String>,
    /// Positions that only one of the model (its first mode) and cshogi proves.
    differ: Vec<String>,
    /// Positions the model's modes answer differently.
    mode_differ: Vec<String>,
    /// The chip's rows, their total, and its differences from the model.
    chip_rows: Vec<String>,
    chip_total: ChipTally,
    chip_differ: Vec<String>,
}

pub fn run(opts: &Options) -> Result<()> {
    if opts.nodes == 0 || opts.sample == 0 {
        return Err(Failure::error(
            2,
            "--nodes and --sample: give positive numbers, e.g. --nodes 1000000 --sample 100",
        ));
    }
    let sets = parse_sets(opts.sets.as_deref()).map_err(|e| Failure::error(2, format!("{e}")))?;
    let modes = parse_modes(opts.model_modes.as_deref().unwrap_or(DEFAULT_MODES))
        .map_err(|e| Failure::error(2, format!("--model-modes: {e}")))?;
    let version = cshogi_version()?;
    let config = model_config(opts)?;
    let mut solvers = modes
        .iter()
        .map(|mode| crate::solve::model(mode.apply(config), Some(opts.tt_entries)))
        .collect::<Result<Vec<_>>>()?;
    let project = tsume::project::manifest::Manifest::load(&util::project_root())?;
    let built = project.search()?;
    let chip_config = chip_config(built, opts.chip_table.as_deref())?;
    let mhz = project.clock_mhz(None)?;
    let runtime = if opts.chip_nodes > 0 && opts.chip_sample > 0 {
        Some(crate::simulator::runtime()?)
    } else {
        None
    };
    let (mut chip, chip_model_time) = match &runtime {
        Some(runtime) => {
            let (chip, took) = open_chip(runtime, built, chip_config, opts, mhz)?;
            (Some(chip), Some(took))
        }
        None => (None, None),
    };
    let profile = build_profile();

    let mut report = Report::default();
    for set in &sets {
        bench_set(set, opts, &modes, &mut solvers, chip.as_mut(), &mut report)?;
    }
    print_models(opts, config, &version, profile, &report);
    match &chip {
        Some(chip) => print_chip(
            chip,
            chip_config,
            &report.chip_rows,
            &report.chip_total,
            chip_model_time,
        ),
        None => println!(
            "\nThe chip: - (not run: --chip-nodes {} --chip-sample {}; give both above 0 to run \
             it)",
            opts.chip_nodes, opts.chip_sample
        ),
    }
    print_differences(&report)
}

/// The model's geometry: swim.toml's, with the table of `--tt-entries` and the frames of
/// `--max-plies`.
fn model_config(opts: &Options) -> Result<Config> {
    let manifest = util::project_root().join("swim.toml");
    let mut config = Config::from_manifest(&manifest)?.with_tt_entries(opts.tt_entries);
    if let Some(name) = &opts.board {
        let project = tsume::project::manifest::Manifest::load(&util::project_root())?;
        config = crate::solve::with_board_levels(&project, name, config)?;
    }
    if let Some(plies) = opts.max_plies {
        config.max_plies = plies;
        config
            .check()
            .map_err(|e| Failure::error(2, format!("--max-plies {plies}: {e:#}")))?;
    }
    Ok(config)
}

/// The chip's geometry: the one it is built with (`built`), in the table mode of
/// `--chip-table` if given (one mode, without child counts).
fn chip_config(built: Config, chip_table: Option<&str>) -> Result<Config> {
    let mut chip_config = built;
    if let Some(name) = chip_table {
        let mode = parse_modes(name)
            .map_err(|e| Failure::error(2, format!("--chip-table {name}: {e}")))?[0];
        if !mode.on_chip() || name.contains(',') {
            return Err(Failure::error(
                2,
                format!(
                    "--chip-table {name}: one mode without child counts, with no estimate but the \
                     count unit's (depth, pieces, plies, hands, est-attacked, pieces-est-attacked)"
                ),
            ));
        }
        chip_config.hand_superiority = mode.hand_superiority;
        chip_config.depth_free = mode.depth_free;
        chip_config.child_estimates = mode.estimate;
    }
    Ok(chip_config)
}

/// The simulated chip (`solver_top`, built with `built`) searching with `chip_config`,
/// beside the model at that geometry, and the time its model took to open.
fn open_chip<'ctx>(
    runtime: &'ctx SpadeRuntime,
    built: Config,
    chip_config: Config,
    opts: &Options,
    mhz: f64,
) -> Result<(ChipBench<'ctx>, Duration)> {
    let (top, took) =
        crate::simulator::open_top::<SolverTop>(runtime, None, "solver_top", "bench")?;
    let mut chip = ChipSearcher::new(top, built);
    chip.set_config(chip_config).map_err(anyhow::Error::msg)?;
    let bench = ChipBench {
        chip,
        twin: Solver::new(chip_config),
        limit: opts.nodes.min(opts.chip_nodes),
        sample: opts.chip_sample,
        mhz,
    };
    Ok((bench, took))
}

/// The build's profile, with a warning on a debug build.
fn build_profile() -> &'static str {
    if cfg!(debug_assertions) {
        eprintln!(
            "bench: xtask is a debug build, the model's figures are slow; for the published \
             figures run `cargo run --release -p xtask -- bench --solver`"
        );
        "debug"
    } else {
        "release"
    }
}

/// One set: the model in each mode, cshogi, then the chip, their rows into `report`.
fn bench_set(
    set: &str,
    opts: &Options,
    modes: &[Mode],
    solvers: &mut [Solver],
    chip: Option<&mut ChipBench>,
    report: &mut Report,
) -> Result<()> {
    let items = load_set(set, opts.sample)?;
    let bar = util::progress_bar((1 + modes.len() as u64) * items.len() as u64);
    eprintln!("bench: {set} ({} positions)", items.len());
    let (tallies, model_runs) = run_modes(set, &items, modes, solvers, opts.nodes, &bar, report);
    let (cshogi, cshogi_runs) = run_cshogi(set, &items, &model_runs, opts.nodes, &bar, report)?;
    bar.finish_and_clear();
    for (mode, tally) in modes.iter().zip(&tallies) {
        report.rows.push(tally.row(set, &engine_name(mode)));
        report.summary.push(tally.brief(set, &engine_name(mode)));
        report
            .level_two
            .extend(tally.level_two_row(set, &engine_name(mode)));
    }
    report.rows.push(cshogi.row(set, "cshogi DfPn"));
    report.summary.push(cshogi.brief(set, "cshogi DfPn"));
    if let Some(chip) = chip {
        let tally = chip.run(
            set,
            &items,
            &model_runs,
            &cshogi_runs,
            &mut report.chip_differ,
        );
        report.chip_rows.push(tally.row(set, chip.mhz));
        report.chip_total = report.chip_total.merge(&tally);
    }
    Ok(())
}

/// The model in each mode on `items`: each mode's tally, and the first mode's runs. Wrong
/// and capacity answers go to the notes, a position a mode answers otherwise than the first
/// to `mode_differ`.
fn run_modes(
    set: &str,
    items: &[Item],
    modes: &[Mode],
    solvers: &mut [Solver],
    nodes: u64,
    bar: &ProgressBar,
    report: &mut Report,
) -> (Vec<Tally>, Vec<Run>) {
    let mut tallies = Vec::new();
    let mut runs_by_mode: Vec<Vec<Run>> = Vec::new();
    for (mode, solver) in modes.iter().zip(solvers.iter_mut()) {
        let engine = engine_name(mode);
        let mut model = Tally::default();
        bar.set_message(format!("{set}: {engine}"));
        let mut model_runs = Vec::new();
        for item in items {
            let run = run_model(solver, item, nodes, root_of(set));
            model_runs.push(run.clone());
            model.add(item.expect, &run);
            if is_wrong(item.expect, &run.answer)
                || matches!(run.answer, Answer::Error(_) | Answer::Unknown(Some(_)))
            {
                report.notes.push(format!(
                    "| {set} | {engine} | {} | {} | `{}` |",
                    item.id,
                    describe(&run.answer),
                    item.sfen
                ));
            }
            bar.inc(1);
        }
        if let Some(first) = runs_by_mode.first() {
            let first_engine = engine_name(&modes[0]);
            let runs = (first.as_slice(), model_runs.as_slice());
            let differ = &mut report.mode_differ;
            compare_modes(set, items, runs, &first_engine, &engine, differ);
        }
        tallies.push(model);
        runs_by_mode.push(model_runs);
    }
    (tallies, runs_by_mode.swap_remove(0))
}

/// The positions that the first mode (`first_engine`, runs `runs.0`) and another
/// (`engine`, runs `runs.1`) answer differently, solved or not or mate or no mate, as rows
/// into `differ`.
fn compare_modes(
    set: &str,
    items: &[Item],
    runs: (&[Run], &[Run]),
    first_engine: &str,
    engine: &str,
    differ: &mut Vec<String>,
) {
    for ((item, a), b) in items.iter().zip(runs.0).zip(runs.1) {
        let solved = |r: &Run| matches!(r.answer, Answer::Mate(_) | Answer::NoMate);
        let contradict = matches!(
            (&a.answer, &b.answer),
            (Answer::Mate(_), Answer::NoMate) | (Answer::NoMate, Answer::Mate(_))
        );
        if contradict || solved(a) != solved(b) {
            differ.push(format!(
                "| {set} | {} | {first_engine} | {} | {engine}: {} |",
                item.id,
                describe(&a.answer),
                describe(&b.answer),
            ));
        }
    }
}

/// cshogi on `items` (a new process after one that dies): its tally and runs. Positions
/// only one of the model (`model_runs`) and cshogi proves go to `differ`, cshogi's wrong
/// and failed answers to the notes.
fn run_cshogi(
    set: &str,
    items: &[Item],
    model_runs: &[Run],
    nodes: u64,
    bar: &ProgressBar,
    report: &mut Report,
) -> Result<(Tally, Vec<Run>)> {
    let mut cshogi = Tally::default();
    bar.set_message(format!("{set}: cshogi"));
    let mut process = Cshogi::start(nodes)?;
    let mut cshogi_runs = Vec::new();
    for (item, model_run) in items.iter().zip(model_runs) {
        let model_answer = &model_run.answer;
        let run = match process.ask(&item.sfen)? {
            Ok(run) => run,
            Err(how) => {
                process = Cshogi::start(nodes)?;
                Run {
                    answer: Answer::Crashed(how),
                    nodes: 0,
                    expansions: None,
                    probes: None,
                    counts: None,
                    level_two: None,
                    seconds: 0.0,
                }
            }
        };
        cshogi.add(item.expect, &run);
        let mate = |a: &Answer| matches!(a, Answer::Mate(_));
        if mate(model_answer) != mate(&run.answer) {
            report.differ.push(format!(
                "| {set} | {} | {} | {} |",
                item.id,
                describe(model_answer),
                describe(&run.answer)
            ));
        }
        if is_wrong(item.expect, &run.answer)
            || matches!(run.answer, Answer::Crashed(_) | Answer::Error(_))
        {
            report.notes.push(format!(
                "| {set} | cshogi | {} | {} | `{}` |",
                item.id,
                describe(&run.answer),
                item.sfen
            ));
        }
        cshogi_runs.push(run);
        bar.inc(1);
    }
    process.finish();
    Ok((cshogi, cshogi_runs))
}

/// The report's head and the model's and cshogi's tables.
fn print_models(opts: &Options, config: Config, version: &str, profile: &str, report: &Report) {
    println!(
        "## Solver beside cshogi's DfPn, measured by `cargo xtask bench --solver --nodes {} \
         --sample {} --chip-nodes {} --chip-sample {}` ({profile} build)\n",
        opts.nodes, opts.sample, opts.chip_nodes, opts.chip_sample
    );
    println!(
        "Node limit {} for both. Model: df-pn of docs/search.md, table of {} entries ({}-way), \
         {} plies of frames; nodes = moves made. cshogi {version}: DfPn with \
         `set_max_search_node`, defaults otherwise; nodes = `searched_node`. suite = problems/, \
         mate-N = the first {} positions of tests/data/nshogi/mate-N-ply.txt, famous = \
         tests/data/famous/famous-problems.tsv (the model reads a side to move in check there as \
         the defender, one check into the problem). wrong = no mate on a mate, or a mate within a \
         proven no-mate bound; failed = crashed or unreadable. Time = the searches alone.\n",
        opts.nodes,
        config.tt_entries(),
        config.tt_ways,
        config.max_plies,
        opts.sample,
    );
    if config.tt2_index_bits > 0 {
        println!(
            "The model's table has a second level behind it (--board; docs/search.md, \"The \
             second level (the board's SDRAM)\"): 2^{} slots of one entry.\n",
            config.tt2_index_bits
        );
    }
    println!(
        "| set | engine | positions | mate | nomate | unknown | wrong | failed | nodes | expansions | probes | counts | time (s) | nodes/s |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for row in &report.rows {
        println!("{row}");
    }
    print_rows(
        "Per set, each model mode (docs/search.md, \"The pieces table\", \"Child counts\") and cshogi:",
        &["set", "engine", "proved", "nodes", "time (s)"],
        &report.summary,
    );
    print_rows(
        "The second level (docs/search.md, \"The second level (the board's SDRAM)\"): the \
         first level's hit rate is 1 - reads / probes",
        &[
            "set",
            "engine",
            "nodes",
            "probes",
            "first-level hits",
            "second-level reads",
            "hits",
            "empty",
            "write-backs",
            "write-backs a node",
        ],
        &report.level_two,
    );
    print_rows(
        "Positions the model's modes answer differently (solved or not, mate or no mate):",
        &["set", "position", "mode", "answer", "other mode"],
        &report.mode_differ,
    );
}

/// The tables of the positions the engines answer differently and of the wrong answers;
/// an error when the chip differs from the model.
fn print_differences(report: &Report) -> Result<()> {
    print_rows(
        "Positions only one engine proves:",
        &["set", "position", "model", "cshogi DfPn"],
        &report.differ,
    );
    print_rows(
        "Wrong, failed and capacity answers:",
        &["set", "engine", "position", "answer", "sfen"],
        &report.notes,
    );
    print_rows(
        "THE CHIP DIFFERS FROM THE MODEL (same geometry, same limits):",
        &["set", "position", "chip", "model", "sfen"],
        &report.chip_differ,
    );
    if !report.chip_differ.is_empty() {
        return Err(Failure::error(
            1,
            format!(
                "the chip differs from the model on {} of the {} positions it ran (see the table)",
                report.chip_differ.len(),
                report.chip_total.positions
            ),
        ));
    }
    Ok(())
}

/// A solve's outcome as an answer.
fn answer_of(outcome: &Outcome) -> Answer {
    match &outcome.result {
        SearchResult::Mate => Answer::Mate(outcome.pv.len()),
        SearchResult::NoMate => Answer::NoMate,
        SearchResult::Unknown(Reason::NodeLimit { .. }) => Answer::Unknown(None),
        SearchResult::Unknown(reason) => Answer::Unknown(Some(reason.to_string())),
    }
}

fn describe(answer: &Answer) -> String {
    match answer {
        Answer::Mate(plies) => format!("mate ({plies} plies)"),
        Answer::NoMate => "nomate".into(),
        Answer::Unknown(None) => "unknown (node limit)".into(),
        Answer::Unknown(Some(r)) => format!("unknown: {r}"),
        Answer::Crashed(how) => format!("crashed: {how}"),
        Answer::Error(e) => format!("error: {e}"),
    }
}

/// A markdown table under `title` with the columns `header`, unless `rows` is empty.
fn print_rows(title: &str, header: &[&str], rows: &[String]) {
    if rows.is_empty() {
        return;
    }
    println!("\n{title}\n");
    println!("| {} |", header.join(" | "));
    println!("|{}", "---|".repeat(header.len()));
    for row in rows {
        println!("{row}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_nomate_on_a_mate_and_a_short_mate_on_a_bound_are_wrong() {
        assert!(is_wrong(Expect::Mate(None), &Answer::NoMate));
        assert!(!is_wrong(Expect::Mate(Some(5)), &Answer::Unknown(None)));
        assert!(!is_wrong(Expect::Mate(Some(5)), &Answer::Mate(7)));
        assert!(is_wrong(Expect::NoMateWithin(5), &Answer::Mate(3)));
        assert!(!is_wrong(Expect::NoMateWithin(5), &Answer::Mate(7)));
        assert!(!is_wrong(Expect::NoMateWithin(5), &Answer::NoMate));
        assert!(!is_wrong(
            Expect::Mate(None),
            &Answer::Crashed("signal 11".into())
        ));
    }

    #[test]
    fn tallies_count_answers_and_sum_counters() {
        let mut t = Tally::default();
        let run = |answer, nodes, exp: Option<u64>| Run {
            answer,
            nodes,
            expansions: exp,
            probes: exp,
            counts: None,
            level_two: None,
            seconds: 1.0,
        };
        t.add(Expect::Mate(None), &run(Answer::Mate(3), 10, Some(4)));
        t.add(Expect::Mate(None), &run(Answer::NoMate, 5, Some(2)));
        t.add(
            Expect::Mate(None),
            &run(Answer::Crashed("x".into()), 0, None),
        );
        assert_eq!(
            (t.positions, t.mate, t.nomate, t.wrong, t.crashed),
            (3, 1, 1, 1, 1)
        );
        assert_eq!((t.nodes, t.expansions, t.seconds), (15, Some(6), 3.0));
    }
}
