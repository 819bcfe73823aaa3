//! The positions a command is given, read alike by every command of the xtask (`sim`,
//! `solve`, `run`, `analyse`): one position as text (a SFEN, or a position as shogi tools
//! write it, `startpos moves ...`), a file of positions one a line, or the problem suite.
//!
//! - [`Input`]: one position to run, where it came from and its text;
//! - [`read_positions`]: the positions of a text file (or standard input);
//! - [`parse`]: the position of an input's text, or what is wrong with it, a panic of the
//!   position rules included ([`catch`]);
//! - [`load_suite`]: the problem suite of a folder ([`crate::problems`]), an error saying
//!   what to give when it holds none;
//! - [`read_problem`]: one problem as composers keep it, a KIF (Shift_JIS), KIFU (UTF-8) or
//!   CSA file ([`kif`], [`csa`]); [`read_positions`] reads them too, and a folder of them.
//!
//! A problem file or a folder's file that cannot be read is an error naming the file and the
//! line: a file given alone fails the command; in a folder it becomes an [`Input`] with that
//! error, reported in its place while the other files run (as a bad SFEN line of a file).

use std::io::Read;
use std::panic::AssertUnwindSafe;
use std::path::Path;

use anyhow::{Context, Result, anyhow};

use crate::position::Position;
use crate::problems::Problem;

pub mod csa;
pub mod kif;
pub mod setup;

/// One position to run: where it came from and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    /// Where it came from, as the reports name it (`line 3`, a problem's id).
    pub label: String,
    /// A problem's id (for the suite's problems).
    pub id: Option<String>,
    /// The position as given: a SFEN or a position as shogi tools write it
    /// ([`Position::from_usi`]).
    pub sfen: String,
    /// A problem file's name: the file, and its title where it has one
    /// (`mate3.kif (一手詰)`); also the label.
    pub name: Option<String>,
    /// Why the input is no position (a problem file of a folder that cannot be read); its
    /// `sfen` is then empty.
    pub error: Option<String>,
}

impl Input {
    /// Line `number` of a positions file (0 for a position of the command line).
    pub fn line(number: usize, text: &str) -> Input {
        Input {
            label: format!("line {number}"),
            id: None,
            sfen: text.trim().to_string(),
            name: None,
            error: None,
        }
    }

    /// A problem of the suite, named by its id.
    pub fn problem(problem: &Problem) -> Input {
        Input {
            label: problem.id.clone(),
            id: Some(problem.id.clone()),
            sfen: problem.sfen.clone(),
            name: None,
            error: None,
        }
    }

    /// A problem file's position, named `name`.
    pub fn named(name: String, sfen: String) -> Input {
        Input {
            label: name.clone(),
            id: None,
            sfen,
            name: Some(name),
            error: None,
        }
    }

    /// A file of a folder that cannot be read, labelled `label`, and why.
    pub fn failed(label: String, error: String) -> Input {
        Input {
            label,
            id: None,
            sfen: String::new(),
            name: None,
            error: Some(error),
        }
    }

    /// The input's position ([`parse`]), or what is wrong with it.
    pub fn position(&self) -> Result<Position, String> {
        match &self.error {
            Some(error) => Err(error.clone()),
            None => parse(&self.sfen),
        }
    }
}

/// The positions of `file`: a problem file (`.kif`, `.kifu`, `.csa`: one problem,
/// [`read_problem`]), a folder ([`read_folder`]), or a text file (or stdin for `-`) of one
/// position a line, numbered from 1, blank lines and `#` comments skipped; an error when
/// none is left.
pub fn read_positions(file: &Path) -> Result<Vec<Input>> {
    if file.is_dir() {
        return read_folder(file);
    }
    if Format::of(file).is_some() {
        return Ok(vec![read_problem(file)?]);
    }
    let stdin = file == Path::new("-");
    let mut bytes = Vec::new();
    if stdin {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("cannot read positions from standard input")?;
    } else {
        bytes = std::fs::read(file).with_context(|| {
            format!(
                "cannot read the positions file {}: give --positions a text file with one \
                 SFEN per line",
                file.display()
            )
        })?;
    }
    let name = if stdin {
        "standard input".to_string()
    } else {
        file.display().to_string()
    };
    positions_of(&name, bytes)
}

/// The formats of problem files, by their extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `.kif`: a KIF board diagram, in Shift_JIS (UTF-8 read too).
    Kif,
    /// `.kifu`: the same in UTF-8.
    Kifu,
    /// `.csa`: a CSA position.
    Csa,
}

impl Format {
    /// The format of a file by its extension (any case).
    pub fn of(file: &Path) -> Option<Format> {
        let ext = file.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "kif" => Some(Format::Kif),
            "kifu" => Some(Format::Kifu),
            "csa" => Some(Format::Csa),
            _ => None,
        }
    }
}

/// The text of a problem file's `bytes`: UTF-8, else (for KIF and CSA) Shift_JIS.
fn decode(format: Format, bytes: &[u8]) -> Result<String, String> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Ok(text.to_string());
    }
    if format == Format::Kifu {
        return Err(
            "a .kifu file is UTF-8 text and this one is not: save it as UTF-8, or \
             name it .kif if it is Shift_JIS"
                .to_string(),
        );
    }
    let (text, _, bad) = encoding_rs::SHIFT_JIS.decode(bytes);
    if bad {
        return Err("neither UTF-8 nor Shift_JIS text: save it in one of them".to_string());
    }
    Ok(text.into_owned())
}

/// The position of a problem file's `bytes` (`format`), named `file` (or its title); an
/// error (which the caller prefixes with the file) naming the line and what to write when
/// it cannot be read, or saying why its position is not one of the game
/// ([`Position::from_sfen`]: two kings of a side, more than 18 pawns).
pub fn problem_of(file: &str, format: Format, bytes: &[u8]) -> Result<Input, String> {
    let text = decode(format, bytes)?;
    let (setup, title) = match format {
        Format::Kif | Format::Kifu => kif::parse_kif(&text).map(|p| (p.setup, p.title)),
        Format::Csa => csa::parse_csa(&text).map(|p| (p.setup, p.title)),
    }
    .map_err(|e| e.to_string())?;
    let sfen = setup
        .to_sfen()
        .map_err(|e| format!("not a position of the game: {e}"))?;
    parse(&sfen).map_err(|e| format!("not a position of the game: {e} (read as {sfen})"))?;
    let name = match title {
        Some(title) => format!("{file} ({title})"),
        None => file.to_string(),
    };
    Ok(Input::named(name, sfen))
}

/// The one problem of a KIF, KIFU or CSA file ([`problem_of`]).
pub fn read_problem(file: &Path) -> Result<Input> {
    let format = Format::of(file)
        .ok_or_else(|| anyhow!("{}: a problem file is .kif, .kifu or .csa", file.display()))?;
    let bytes = std::fs::read(file)
        .with_context(|| format!("cannot read the problem file {}", file.display()))?;
    let name = file.display().to_string();
    problem_of(&name, format, &bytes).map_err(|e| anyhow!("{name}: {e}"))
}

/// The extensions a folder's files are read by.
pub const FOLDER_EXTENSIONS: [&str; 5] = ["kif", "kifu", "csa", "sfen", "txt"];

/// Every `.kif`, `.kifu`, `.csa`, `.sfen` and `.txt` file of `dir`, sorted by name: a
/// problem a KIF/KIFU/CSA file, a position a line of the others (labelled `FILE line N`).
/// A file that cannot be read is an [`Input::failed`] in its place; a folder with none of
/// these files is an error.
pub fn read_folder(dir: &Path) -> Result<Vec<Input>> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read the folder {}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            path.is_file()
                && path
                    .extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| FOLDER_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(anyhow!(
            "no problems in the folder {}: it reads .kif, .kifu, .csa (one problem a file), \
             .sfen and .txt files (one SFEN a line)",
            dir.display()
        ));
    }
    let mut inputs = Vec::new();
    for path in files {
        let name = path.display().to_string();
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) => {
                inputs.push(Input::failed(
                    name.clone(),
                    format!("cannot read {name}: {e}"),
                ));
                continue;
            }
        };
        match Format::of(&path) {
            Some(format) => inputs
                .push(problem_of(&name, format, &bytes).unwrap_or_else(|e| Input::failed(name, e))),
            None => match positions_of(&name, bytes) {
                Ok(lines) => inputs.extend(lines.into_iter().map(|mut input| {
                    input.label = format!("{name} {}", input.label);
                    input
                })),
                Err(e) => inputs.push(Input::failed(name, e.to_string())),
            },
        }
    }
    Ok(inputs)
}

/// The positions a command is given: `--sfen`'s words as one position, else the lines of
/// `--positions`' file; `None` when neither is given.
pub fn given(sfen: Option<&[String]>, positions: Option<&Path>) -> Result<Option<Vec<Input>>> {
    match (sfen, positions) {
        (Some(words), _) => Ok(Some(vec![Input::line(0, &words.join(" "))])),
        (None, Some(file)) => read_positions(file).map(Some),
        (None, None) => Ok(None),
    }
}

/// The position lines of `bytes`, the content of the file `name` (see [`read_positions`]).
pub fn positions_of(name: &str, bytes: Vec<u8>) -> Result<Vec<Input>> {
    let text = String::from_utf8(bytes).map_err(|e| {
        anyhow!(
            "the positions of {name} are not UTF-8 text (byte {}): give a text file with one \
             SFEN per line",
            e.utf8_error().valid_up_to()
        )
    })?;
    // A byte-order mark (which some editors write first) is no part of the first line.
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    // No position starts with `[` or `{`: such a file is JSON, most likely a problem
    // suite's, and would give an error a line.
    if text.trim_start().starts_with(['[', '{']) {
        return Err(anyhow!(
            "{name} is JSON, not positions: --positions takes a text file with one \
             position a line (a SFEN, or `startpos moves ...`); a problem suite \
             (problems/*.json) is run by `sim`, `solve` and `run --solve`: its folder \
             with --suite DIR, or problems/ with neither --sfen nor --positions"
        ));
    }
    let inputs: Vec<Input> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|(i, l)| Input::line(i + 1, l))
        .collect();
    if inputs.is_empty() {
        return Err(anyhow!(
            "no positions in {name}: it holds only blank lines and `#` comments; give one \
             position a line (a SFEN, or `startpos moves ...`)"
        ));
    }
    Ok(inputs)
}

/// A panic in an engine, the solver or the position rules becomes this position's error.
pub fn catch<T>(what: &str, f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(AssertUnwindSafe(f)).map_err(|panic| {
        let msg = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        format!("internal error: {what} panicked: {msg}")
    })
}

/// The position of `text` ([`Position::from_usi`]), or what is wrong with it.
pub fn parse(text: &str) -> Result<Position, String> {
    catch("the position rules", || Position::from_usi(text))?.map_err(|e| e.to_string())
}

/// The problem suite of `dir` ([`crate::problems::load_suite`]): an error that says what
/// to give when it cannot be read or holds no problem.
pub fn load_suite(dir: &Path) -> Result<Vec<Problem>> {
    let problems: Vec<Problem> = crate::problems::load_suite(dir).with_context(|| {
        format!(
            "cannot load the problem suite from {}: it needs *.json problem files \
             (or pass --suite DIR, --sfen SFEN or --positions FILE)",
            dir.display()
        )
    })?;
    if problems.is_empty() {
        return Err(anyhow!(
            "no problems in {}: add *.json problem files or pass --suite DIR",
            dir.display()
        ));
    }
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MATE1: &str = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1";

    fn positions(text: &str) -> Result<Vec<Input>> {
        positions_of("test.txt", text.as_bytes().to_vec())
    }

    #[test]
    fn lines_are_numbered_from_one_without_blanks_and_comments() {
        let inputs = positions(&format!("# a comment\n{MATE1}\n\n  {MATE1}  \n")).unwrap();
        assert_eq!(
            inputs,
            [Input::line(2, MATE1), Input::line(4, MATE1)],
            "{inputs:?}"
        );
        assert_eq!(inputs[1].label, "line 4");
        assert_eq!(inputs[1].sfen, MATE1);
        assert_eq!(inputs[1].id, None);
    }

    #[test]
    fn a_byte_order_mark_is_no_part_of_the_first_line() {
        let inputs = positions(&format!("\u{feff}{MATE1}\n")).unwrap();
        assert_eq!(inputs, [Input::line(1, MATE1)]);
    }

    #[test]
    fn empty_json_and_binary_files_are_refused() {
        let e = positions("\n# only a comment\n").unwrap_err().to_string();
        assert!(e.starts_with("no positions in test.txt"), "{e}");
        let e = positions(" [{\"id\": \"x\"}]").unwrap_err().to_string();
        assert!(
            e.contains("test.txt is JSON") && e.contains("--suite DIR"),
            "{e}"
        );
        let e = positions_of("test.txt", vec![b'a', 0xff]).unwrap_err();
        assert!(e.to_string().contains("not UTF-8 text (byte 1)"), "{e}");
    }

    #[test]
    fn a_missing_file_names_itself() {
        let e = read_positions(Path::new("/no/such/positions.txt")).unwrap_err();
        let e = format!("{e:#}");
        assert!(
            e.starts_with("cannot read the positions file /no/such/positions.txt"),
            "{e}"
        );
    }

    #[test]
    fn parse_reads_sfen_and_usi_and_says_what_is_wrong() {
        let pos = parse(MATE1).unwrap();
        assert_eq!(pos.to_sfen(), MATE1);
        let after = parse("startpos moves 7g7f").unwrap();
        assert!(
            after
                .to_sfen()
                .starts_with("lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6")
        );
        assert!(parse("4k4/9/4P4 b G 1").is_err());
    }

    #[test]
    fn a_panic_becomes_the_inputs_error() {
        assert_eq!(catch("the engine", || 7), Ok(7));
        let e = catch("the engine", || -> u32 { panic!("no list") }).unwrap_err();
        assert_eq!(e, "internal error: the engine panicked: no list");
    }

    #[test]
    fn a_suite_needs_problems() {
        let dir = std::env::temp_dir().join(format!("tsume-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let e = load_suite(&dir).unwrap_err().to_string();
        assert!(e.starts_with("no problems in "), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
        let e = format!("{:#}", load_suite(&dir).unwrap_err());
        assert!(e.starts_with("cannot load the problem suite from "), "{e}");
        let problem = Problem {
            id: "one".to_string(),
            sfen: MATE1.to_string(),
            expected: crate::problems::Expected::Mate(1),
            source: "test".to_string(),
            solve_only: None,
        };
        let input = Input::problem(&problem);
        assert_eq!(
            (input.label.as_str(), input.id.as_deref()),
            ("one", Some("one"))
        );
    }
}
