//! The positions a command is given, read alike by every command of the xtask (`sim`,
//! `solve`, `run`, `analyse`): one position as text (a SFEN, or a position as shogi tools
//! write it, `startpos moves ...`), a file of positions one a line, or the problem suite.
//!
//! - [`Input`]: one position to run, where it came from and its text;
//! - [`read_positions`]: the positions of a text file (or standard input);
//! - [`parse`]: the position of an input's text, or what is wrong with it, a panic of the
//!   position rules included ([`catch`]);
//! - [`load_suite`]: the problem suite of a folder ([`crate::problems`]), an error saying
//!   what to give when it holds none.

use std::io::Read;
use std::panic::AssertUnwindSafe;
use std::path::Path;

use anyhow::{Context, Result, anyhow};

use crate::position::Position;
use crate::problems::Problem;

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
}

impl Input {
    /// Line `number` of a positions file (0 for a position of the command line).
    pub fn line(number: usize, text: &str) -> Input {
        Input {
            label: format!("line {number}"),
            id: None,
            sfen: text.trim().to_string(),
        }
    }

    /// A problem of the suite, named by its id.
    pub fn problem(problem: &Problem) -> Input {
        Input {
            label: problem.id.clone(),
            id: Some(problem.id.clone()),
            sfen: problem.sfen.clone(),
        }
    }
}

/// The position lines of a file (or stdin for `-`), numbered from 1; blank lines and `#`
/// comments skipped; an error when none is left.
pub fn read_positions(file: &Path) -> Result<Vec<Input>> {
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
