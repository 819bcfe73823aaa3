//! `cargo xtask sim`: the move set of positions from an engine: the simulated chip (the
//! Spade move generator through Verilator, the default) or the software model (the
//! rules reference, `tsume::reference`).
//!
//! Adding an engine: a variant of [`EngineKind`], a type implementing [`Engine`], and one arm
//! in [`open`].

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use serde::Serialize;
use tsume::input::{Input, catch, load_suite, parse, read_positions};
use tsume::position::Position;
use tsume::problems::Expected;
use tsume::reference::{Category, Mode, MoveSet};

use crate::util::{self, Failure};
use crate::{simulator, toolchain};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EngineKind {
    /// The Spade move generator, simulated with Verilator.
    #[value(alias = "hardware")]
    Chip,
    /// The software model: the rules reference (`tsume::reference::tsume_moves`).
    #[value(alias = "reference")]
    Model,
}

/// What an engine answers for a position.
pub struct Generated {
    pub set: MoveSet,
    /// Clock cycles from the position being ready in the chip to the end of its list.
    pub cycles: Option<u64>,
    /// Clock cycles from the position being ready to the first move.
    pub first_move: Option<u64>,
}

/// A move generator: the tsume move set of a position.
pub trait Engine {
    fn generate(&mut self, pos: &Position) -> Result<Generated>;
    /// Whether answers should be checked against the reference (in the suite table).
    fn is_hardware(&self) -> bool;
}

/// The software reference.
struct Reference;

impl Engine for Reference {
    fn generate(&mut self, pos: &Position) -> Result<Generated> {
        Ok(Generated {
            set: tsume::reference::tsume_moves(pos),
            cycles: None,
            first_move: None,
        })
    }
    fn is_hardware(&self) -> bool {
        false
    }
}

/// The simulated chip.
struct Hardware<'ctx> {
    chip: tsume::chip::MovegenChip<'ctx>,
}

impl Engine for Hardware<'_> {
    fn generate(&mut self, pos: &Position) -> Result<Generated> {
        let answer = simulator::generate(&mut self.chip, pos)?;
        Ok(Generated {
            set: answer.move_set(),
            cycles: Some(answer.cycles),
            first_move: answer.first_move_cycles,
        })
    }
    fn is_hardware(&self) -> bool {
        true
    }
}

#[derive(Debug, Args)]
pub struct SimArgs {
    /// Which move generator answers; `hardware` and `reference` are read as `chip` and
    /// `model`.
    #[arg(long, value_enum, default_value_t = EngineKind::Chip)]
    pub engine: EngineKind,
    /// One position in SFEN: quote it, or give its words after --sfen
    /// (`--sfen 4k4/9/4P4/9/9/9/9/9/9 b G 1`). A leading `sfen` and the move number are
    /// optional; positions as shogi tools write them are read too (`startpos moves 7g7f`,
    /// `position sfen ... moves ...`): the position after the moves.
    #[arg(long, num_args = 1.., value_name = "SFEN", conflicts_with = "positions")]
    pub sfen: Option<Vec<String>>,
    /// A text file of positions, one per line as --sfen takes them (blank lines and `#`
    /// comments skipped); `-` reads standard input.
    #[arg(long, value_name = "FILE")]
    pub positions: Option<PathBuf>,
    /// One JSON object per position and line: {"sfen", "mode", "moves": [{"usi", "category"}]},
    /// or {"sfen", "error"} for a position that is not usable.
    #[arg(long)]
    pub json: bool,
    /// The problem suite to run when neither --sfen nor --positions is given.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["sfen", "positions"])]
    pub suite: Option<PathBuf>,
    /// Write a waveform of the whole run (every signal of the chip) to this VCD file. The
    /// first such run builds a second, traced Verilator model (about two minutes).
    #[arg(long, value_name = "FILE")]
    pub vcd: Option<PathBuf>,
}

pub fn run(args: &SimArgs) -> Result<()> {
    match args.engine {
        EngineKind::Model => {
            if args.vcd.is_some() {
                return Err(Failure::error(
                    2,
                    "--vcd needs the chip: drop `--engine model`",
                ));
            }
            run_with(&mut Reference, args)
        }
        EngineKind::Chip => {
            if let Some(vcd) = &args.vcd {
                check_writable(vcd)?;
            }
            let runtime = simulator::runtime()?;
            let (chip, _) = simulator::open(&runtime, args.vcd.as_deref())?;
            let result = {
                let mut engine = Hardware { chip };
                let result = run_with(&mut engine, args);
                // Dropping the chip closes the waveform.
                drop(engine);
                result
            };
            if let Some(vcd) = &args.vcd {
                let size = std::fs::metadata(vcd).map(|m| m.len()).unwrap_or(0);
                if size == 0 {
                    return Err(result.err().unwrap_or_else(|| {
                        anyhow::anyhow!(
                            "no waveform was written to {}: check that the disk is not full \
                             and that you may write there",
                            vcd.display()
                        )
                    }));
                }
                eprintln!("waveform written to {}", vcd.display());
            }
            result
        }
    }
}

/// An error naming `vcd` when it cannot be written, before any model is built.
pub(crate) fn check_writable(vcd: &Path) -> Result<()> {
    std::fs::File::create(vcd).with_context(|| {
        format!(
            "cannot write the waveform to {}: give --vcd a file in a folder that exists and \
             that you may write to",
            vcd.display()
        )
    })?;
    Ok(())
}

fn run_with(engine: &mut dyn Engine, args: &SimArgs) -> Result<()> {
    if let Some(words) = &args.sfen {
        let text = words.join(" ");
        let failed = report(engine, &[Input::line(0, &text)], args.json, false)?;
        return if failed > 0 {
            Err(Failure::error(1, ""))
        } else {
            Ok(())
        };
    }
    if let Some(file) = &args.positions {
        let inputs = read_positions(file)?;
        let failed = report(engine, &inputs, args.json, true)?;
        return if failed > 0 {
            Err(Failure::error(
                1,
                format!(
                    "{failed} of {} in {} {} not usable (see above)",
                    util::count(inputs.len() as u64, "position", "positions"),
                    file.display(),
                    if failed == 1 { "is" } else { "are" }
                ),
            ))
        } else {
            Ok(())
        };
    }
    let dir = args.suite.clone().unwrap_or_else(toolchain::problems_dir);
    suite(engine, &dir, args.json)
}

/// The position and its move set, or what is wrong with the input.
fn evaluate(engine: &mut dyn Engine, sfen: &str) -> Result<(Position, Generated), String> {
    let pos = parse(sfen)?;
    let set = catch("the engine", || engine.generate(&pos))?.map_err(|e| format!("{e:#}"))?;
    Ok((pos, set))
}

#[derive(Serialize)]
struct JsonMove {
    usi: String,
    category: Category,
}

/// The JSON line of a move list, the one shape of `sim --json` and `run --json`:
/// `{"id"?, "sfen", "mode", "moves": [{"usi", "category"}], "cycles"?}`, where `sfen` is
/// the position as given, `id` a problem's name and `cycles` the chip's count.
#[derive(Serialize)]
struct JsonResult<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    sfen: &'a str,
    mode: Mode,
    moves: Vec<JsonMove>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cycles: Option<u64>,
}

/// The JSON line of a position that is not usable: `{"id"?, "sfen", "error"}`.
#[derive(Serialize)]
struct JsonError<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    /// A problem file's name, or the file that cannot be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    name: Option<&'a str>,
    sfen: &'a str,
    error: &'a str,
}

/// The JSON line of the move list `set` of `input` (see [`JsonResult`]).
pub fn json_answer(input: &Input, set: &MoveSet, cycles: Option<u64>) -> Result<String> {
    Ok(serde_json::to_string(&JsonResult {
        id: input.id.as_deref(),
        sfen: &input.sfen,
        mode: set.mode,
        cycles,
        moves: set
            .moves
            .iter()
            .map(|m| JsonMove {
                usi: m.mv.to_usi(),
                category: m.category,
            })
            .collect(),
    })?)
}

/// The JSON line of an `input` that is not a usable position (see [`JsonError`]).
pub fn json_error(input: &Input, error: &str) -> Result<String> {
    Ok(serde_json::to_string(&JsonError {
        id: input.id.as_deref(),
        name: input
            .name
            .as_deref()
            .or(input.error.as_ref().map(|_| input.label.as_str())),
        sfen: &input.sfen,
        error,
    })?)
}

fn json_line(input: &Input, result: &Result<(Position, Generated), String>) -> Result<String> {
    match result {
        Ok((_, generated)) => json_answer(input, &generated.set, generated.cycles),
        Err(error) => json_error(input, error),
    }
}

/// Moves per category, in category order.
fn by_category(set: &MoveSet) -> BTreeMap<Category, Vec<String>> {
    let mut groups: BTreeMap<Category, Vec<String>> = BTreeMap::new();
    for m in &set.moves {
        groups.entry(m.category).or_default().push(m.mv.to_usi());
    }
    groups
}

/// `direct 3, drop 2`.
fn summary(set: &MoveSet) -> String {
    let groups = by_category(set);
    if groups.is_empty() {
        return "-".to_string();
    }
    groups
        .iter()
        .map(|(c, moves)| format!("{} {}", c.as_str(), moves.len()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn human(sfen: &str, pos: &Position, generated: &Generated) -> String {
    let set = &generated.set;
    let mut out = pos.diagram();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    let side = format!("{:?}", pos.side_to_move()).to_lowercase();
    let why = match set.mode {
        Mode::Checks => format!("{side} to move, not in check: every legal check"),
        Mode::Evasions => format!("{side} to move, in check: every legal evasion"),
    };
    if Position::from_sfen(sfen).is_err() {
        // Given as shogi tools write it (`startpos moves ...`): the SFEN after the moves.
        out.push_str(&format!("given: {sfen}\n"));
        out.push_str(&format!("sfen:  {}\n", pos.to_sfen()));
    } else {
        out.push_str(&format!("sfen:  {sfen}\n"));
    }
    out.push_str(&format!("mode:  {} ({why})\n", set.mode.as_str()));
    let none = match set.mode {
        _ if !set.moves.is_empty() => "",
        Mode::Checks => " (no legal check)",
        Mode::Evasions => " (no legal evasion: checkmate)",
    };
    out.push_str(&format!("moves: {}{none}\n", set.moves.len()));
    if let Some(cycles) = generated.cycles {
        let first = generated
            .first_move
            .map_or(String::new(), |f| format!(", first move after {f}"));
        out.push_str(&format!(
            "cycles: {cycles} from the position ready in the chip to the end of the list{first}\n"
        ));
    }
    for (category, moves) in by_category(set) {
        let mut line = format!("  {:<16} {:>3} ", category.as_str(), moves.len());
        let indent = line.len();
        let mut width = indent;
        for usi in moves {
            if width + usi.len() + 1 > 88 {
                out.push_str(line.trim_end());
                out.push('\n');
                line = " ".repeat(indent);
                width = indent;
            }
            line.push(' ');
            line.push_str(&usi);
            width += usi.len() + 1;
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Runs every input and prints it (JSON lines or human reports); returns how many failed.
fn report(engine: &mut dyn Engine, inputs: &[Input], json: bool, several: bool) -> Result<usize> {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut failed = 0;
    for (i, input) in inputs.iter().enumerate() {
        let result = match &input.error {
            Some(error) => Err(error.clone()),
            None => evaluate(engine, &input.sfen),
        };
        failed += usize::from(result.is_err());
        if json {
            writeln!(out, "{}", json_line(input, &result)?)?;
        } else {
            if several {
                if i > 0 {
                    writeln!(out)?;
                }
                writeln!(out, "== {} ==", input.label)?;
            }
            match &result {
                Ok((pos, generated)) => write!(out, "{}", human(&input.sfen, pos, generated))?,
                Err(error) if several => {
                    writeln!(out, "sfen:  {}\nerror: {error}", input.sfen)?;
                }
                Err(error) => {
                    out.flush()?;
                    eprintln!(
                        "error: the SFEN {:?} is not a usable position: {error}",
                        input.sfen
                    );
                }
            }
        }
        out.flush()?;
    }
    Ok(failed)
}

fn expected(e: &Expected) -> String {
    match e {
        Expected::Mate(n) => format!("mate in {n}"),
        Expected::NoMateWithin(n) => format!("no mate <= {n}"),
    }
}

fn suite(engine: &mut dyn Engine, dir: &Path, json: bool) -> Result<()> {
    let problems = load_suite(dir)?;
    let bar = util::progress_bar(problems.len() as u64);
    let hardware = engine.is_hardware();
    let mut rows = Vec::new();
    for p in &problems {
        bar.set_message(p.id.clone());
        let input = Input::problem(p);
        let result = evaluate(engine, &p.sfen);
        // The chip's answer against the reference's.
        let agrees = match &result {
            Ok((pos, generated)) if hardware => Some(
                generated
                    .set
                    .difference(&tsume::reference::tsume_moves(pos))
                    .is_none(),
            ),
            _ => None,
        };
        rows.push((input, p, result, agrees));
        bar.inc(1);
    }
    bar.finish_and_clear();

    let mut out = std::io::stdout().lock();
    let failed = rows.iter().filter(|row| row.2.is_err()).count();
    let disagree = rows.iter().filter(|row| row.3 == Some(false)).count();
    if json {
        for (input, _, result, _) in &rows {
            writeln!(out, "{}", json_line(input, result)?)?;
        }
    } else {
        let table: Vec<[String; 7]> = rows
            .iter()
            .map(|(input, p, result, agrees)| match result {
                Ok((_, generated)) => [
                    input.label.clone(),
                    expected(&p.expected),
                    generated.set.mode.as_str().to_string(),
                    generated.set.moves.len().to_string(),
                    generated.cycles.map_or("-".to_string(), |c| c.to_string()),
                    match agrees {
                        Some(true) => "yes".to_string(),
                        Some(false) => "NO".to_string(),
                        None => "-".to_string(),
                    },
                    summary(&generated.set),
                ],
                Err(e) => [
                    input.label.clone(),
                    expected(&p.expected),
                    "error".to_string(),
                    "-".to_string(),
                    "-".to_string(),
                    "-".to_string(),
                    e.clone(),
                ],
            })
            .collect();
        let header = [
            "id",
            "expected",
            "mode",
            "moves",
            "cycles",
            "agrees",
            "categories",
        ]
        .map(String::from);
        let mut widths = [0; 6];
        for row in std::iter::once(&header).chain(&table) {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        for row in std::iter::once(&header).chain(&table) {
            writeln!(
                out,
                "{:<w0$}  {:<w1$}  {:<w2$}  {:>w3$}  {:>w4$}  {:<w5$}  {}",
                row[0],
                row[1],
                row[2],
                row[3],
                row[4],
                row[5],
                row[6],
                w0 = widths[0],
                w1 = widths[1],
                w2 = widths[2],
                w3 = widths[3],
                w4 = widths[4],
                w5 = widths[5],
            )?;
        }
        let agreement = if hardware {
            format!(", {disagree} disagree with the reference")
        } else {
            String::new()
        };
        writeln!(
            out,
            "{} problems from {}, {failed} failed{agreement}",
            rows.len(),
            dir.display()
        )?;
    }
    out.flush()?;
    if failed > 0 || disagree > 0 {
        return Err(Failure::error(
            1,
            format!(
                "{failed} of {} problems in {} are not usable positions and {disagree} \
                 disagree with the reference",
                rows.len(),
                dir.display()
            ),
        ));
    }
    Ok(())
}
