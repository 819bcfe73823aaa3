//! `cargo xtask sim` and `cargo xtask run`, run as a user runs them, checked against the
//! library's own reference (`tsume::reference::tsume_moves`): no move list is written down
//! here.
//!
//! The xtask binary is built once and found by `common::xtask`.

mod common;

use std::process::{Command, Output};

use common::{TempFile, json_lines, text, xtask, xtask_with_input};
use serde_json::Value;
use tsume::position::{Position, PositionError};
use tsume::reference::{MoveSet, tsume_moves};

/// Not in check, the move set has direct moves, a discovered check and drops.
const CHECKS: &str = "4k4/9/5G3/9/4S4/9/9/9/4R3K b GP 1";
/// In check from a rook: king moves and drop blocks.
const EVASIONS: &str = "4k4/4r4/9/9/9/9/9/9/4K4 b G 1";
/// Checkmated: the evasion list is empty.
const MATED: &str = "4k4/4G4/4P4/9/9/9/9/9/9 w r 1";
const NOT_SFEN: &str = "lnsgkgsnl/9/ppppppppp b - 1";
const TWO_BLACK_KINGS: &str = "K3k4/9/9/9/9/9/9/9/4K4 b - 1";
/// White is in check from the rook but black is to move.
const NOT_TO_MOVE_IN_CHECK: &str = "4k4/4R4/9/9/9/9/9/9/4K4 b - 1";

fn sim(args: &[&str]) -> Output {
    Command::new(xtask())
        .arg("sim")
        .args(args)
        .output()
        .expect("run xtask sim")
}

fn reference(sfen: &str) -> (Position, MoveSet) {
    let pos = Position::from_sfen(sfen).expect("a valid test position");
    let set = tsume_moves(&pos);
    (pos, set)
}

/// The JSON object the CLI must print for a valid position.
fn expected_json(sfen: &str) -> Value {
    let (_, set) = reference(sfen);
    let moves: Vec<Value> = set
        .moves
        .iter()
        .map(|m| serde_json::json!({"usi": m.mv.to_usi(), "category": m.category.as_str()}))
        .collect();
    serde_json::json!({"sfen": sfen, "mode": set.mode.as_str(), "moves": moves})
}

#[test]
fn json_lines_keep_the_input_order_and_report_bad_lines() {
    // The test positions are what they claim to be.
    assert!(matches!(
        Position::from_sfen(NOT_SFEN),
        Err(PositionError::Syntax(_))
    ));
    assert!(matches!(
        Position::from_sfen(TWO_BLACK_KINGS),
        Err(PositionError::TwoKings(_))
    ));
    assert!(matches!(
        Position::from_sfen(NOT_TO_MOVE_IN_CHECK),
        Err(PositionError::SideNotToMoveInCheck(_))
    ));

    let lines = [
        CHECKS,
        NOT_SFEN,
        EVASIONS,
        TWO_BLACK_KINGS,
        MATED,
        NOT_TO_MOVE_IN_CHECK,
    ];
    let file = TempFile::new(
        "cli",
        "positions.txt",
        format!(
            "# comment lines and blank lines are skipped\n\n{}\n\n# end\n",
            lines.join("\n")
        ),
    );
    let out = sim(&["--engine", "model", "--positions", file.path(), "--json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "bad lines make exit code 1; stderr:\n{}",
        text(&out.stderr)
    );
    let stdout = text(&out.stdout);
    let objects = json_lines(&stdout);
    assert_eq!(
        objects.len(),
        lines.len(),
        "one object per position line:\n{stdout}"
    );
    for (sfen, object) in lines.iter().zip(&objects) {
        assert_eq!(object["sfen"], *sfen, "lines stay in input order");
        match Position::from_sfen(sfen) {
            Ok(_) => assert_eq!(*object, expected_json(sfen), "moves of {sfen}"),
            Err(error) => {
                let keys: Vec<&String> = object.as_object().unwrap().keys().collect();
                assert_eq!(
                    keys.len(),
                    2,
                    "an error object has sfen and error: {object}"
                );
                assert_eq!(object["error"], error.to_string(), "error of {sfen}");
            }
        }
    }
    // The sample covers both modes, and an empty list.
    assert_eq!(objects[0]["mode"], "checks");
    assert_eq!(objects[2]["mode"], "evasions");
    assert_eq!(objects[4]["moves"], serde_json::json!([]));
    assert!(
        text(&out.stderr).contains(file.path()),
        "the summary names the file"
    );
}

#[test]
fn good_positions_exit_zero() {
    let file = TempFile::new("cli", "good.txt", format!("{CHECKS}\n{EVASIONS}\n"));
    let out = sim(&["--engine", "model", "--positions", file.path(), "--json"]);
    assert!(out.status.success(), "stderr:\n{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).lines().count(), 2);
}

#[test]
fn human_output_groups_moves_by_category() {
    for sfen in [CHECKS, EVASIONS] {
        let (pos, set) = reference(sfen);
        let out = sim(&["--engine", "model", "--sfen", sfen]);
        assert!(out.status.success(), "stderr:\n{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        assert!(
            stdout.contains(pos.diagram().trim_end()),
            "diagram:\n{stdout}"
        );
        assert!(
            stdout.contains(&format!("mode:  {}", set.mode.as_str())),
            "{stdout}"
        );
        assert!(
            stdout.contains(&format!("moves: {}", set.moves.len())),
            "{stdout}"
        );
        let mut categories: Vec<_> = set.moves.iter().map(|m| m.category).collect();
        categories.sort();
        categories.dedup();
        assert!(
            categories.len() >= 2,
            "{sfen}: the sample has several categories"
        );
        for category in categories {
            let moves: Vec<String> = set
                .moves
                .iter()
                .filter(|m| m.category == category)
                .map(|m| m.mv.to_usi())
                .collect();
            // The category's line (and its continuation lines) up to the next category.
            let start = stdout
                .lines()
                .position(|l| {
                    l.trim_start()
                        .starts_with(&format!("{} ", category.as_str()))
                })
                .unwrap_or_else(|| panic!("no {} line:\n{stdout}", category.as_str()));
            let mut group: Vec<&str> = stdout.lines().skip(start).take(1).collect();
            group.extend(
                stdout
                    .lines()
                    .skip(start + 1)
                    .take_while(|l| l.starts_with("                      ")),
            );
            let words: Vec<&str> = group.iter().flat_map(|l| l.split_whitespace()).collect();
            assert_eq!(words[0], category.as_str());
            assert_eq!(words[1], moves.len().to_string(), "count of {}", words[0]);
            assert_eq!(words[2..], moves, "moves of {}", words[0]);
        }
    }
}

#[test]
fn the_sfen_may_be_given_as_separate_words() {
    let quoted = sim(&["--engine", "model", "--sfen", EVASIONS]);
    let words: Vec<&str> = EVASIONS.split(' ').collect();
    let mut args = vec!["--engine", "model", "--sfen"];
    args.extend(&words);
    let split = sim(&args);
    assert!(split.status.success(), "stderr:\n{}", text(&split.stderr));
    assert_eq!(quoted.stdout, split.stdout);
}

#[test]
fn a_bad_sfen_is_an_error_naming_the_reason() {
    let out = sim(&["--engine", "model", "--sfen", TWO_BLACK_KINGS]);
    assert_eq!(out.status.code(), Some(1));
    let error = Position::from_sfen(TWO_BLACK_KINGS).err().unwrap();
    assert!(
        text(&out.stderr).contains(&error.to_string()),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn unknown_options_and_missing_files_are_errors() {
    let out = sim(&["--engine", "model", "--frobnicate"]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("--frobnicate"),
        "{}",
        text(&out.stderr)
    );

    let out = sim(&["--engine", "quantum", "--sfen", CHECKS]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("chip") && text(&out.stderr).contains("model"),
        "{}",
        text(&out.stderr)
    );

    let missing = std::env::temp_dir().join("tsume-cli-no-such-file.txt");
    let out = sim(&[
        "--engine",
        "model",
        "--positions",
        missing.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("tsume-cli-no-such-file.txt"),
        "{}",
        text(&out.stderr)
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn a_problem_suite_given_as_positions_is_one_clear_error() {
    let suite = format!("{}/problems/suite.json", env!("CARGO_MANIFEST_DIR"));
    let out = sim(&["--engine", "model", "--positions", &suite]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("suite.json is JSON") && err.contains("--suite DIR"),
        "{err}"
    );
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
}

#[test]
fn a_bad_abc9_script_is_refused_before_any_tool_runs() {
    for (task, script, says) in [
        ("block-fmax", "", "is empty"),
        ("bitstream", "&if,-v", "`,` cannot be passed"),
    ] {
        let out = Command::new(xtask())
            .args([task, "--abc9-script", script])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("run xtask");
        let err = text(&out.stderr);
        assert!(!out.status.success(), "{task}: {err}");
        assert!(
            err.contains("--abc9-script") && err.contains(says),
            "{task}: {err}"
        );
    }
}

#[test]
fn the_hardware_engine_answers_like_the_reference_with_cycles() {
    let lines = [CHECKS, NOT_SFEN, EVASIONS, MATED];
    let file = TempFile::new("cli", "hardware.txt", lines.join("\n"));
    let out = sim(&["--positions", file.path(), "--json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a bad line makes exit code 1; stderr:\n{}",
        text(&out.stderr)
    );
    let stdout = text(&out.stdout);
    let objects = json_lines(&stdout);
    assert_eq!(objects.len(), lines.len(), "one object per line:\n{stdout}");
    for (sfen, object) in lines.iter().zip(&objects) {
        assert_eq!(object["sfen"], *sfen, "lines stay in input order");
        match Position::from_sfen(sfen) {
            Ok(_) => {
                let want = expected_json(sfen);
                assert_eq!(object["mode"], want["mode"], "mode of {sfen}");
                // The same moves, categories and order: the stream order.
                assert_eq!(object["moves"], want["moves"], "moves of {sfen}");
                let moves = want["moves"].as_array().unwrap().len() as u64;
                let cycles = object["cycles"]
                    .as_u64()
                    .unwrap_or_else(|| panic!("no cycles in {object}"));
                assert!(
                    cycles > moves,
                    "{cycles} cycles for {moves} moves: the end beat follows the moves"
                );
            }
            Err(error) => assert_eq!(object["error"], error.to_string(), "error of {sfen}"),
        }
    }
}

#[test]
fn the_suite_runs_through_the_chip_in_agreement() {
    let out = sim(&[]);
    assert!(out.status.success(), "stderr:\n{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    assert!(
        last.contains(", 0 failed, 0 disagree with the reference"),
        "{stdout}"
    );
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("problems");
    let suite = tsume::problems::load_suite(&dir).unwrap();
    for p in &suite {
        assert!(
            stdout.lines().any(|l| l.starts_with(&format!("{} ", p.id))),
            "{} in the table",
            p.id
        );
    }
}

#[test]
fn help_documents_every_task() {
    let out = Command::new(xtask())
        .arg("--help")
        .output()
        .expect("run xtask --help");
    assert!(out.status.success());
    let help = text(&out.stdout);
    for task in [
        "setup", "hdl", "lint", "test", "sim", "analyse", "verify", "bench",
    ] {
        assert!(
            help.lines().any(|l| l.trim_start().starts_with(task)),
            "--help lists `{task}`:\n{help}"
        );
    }
}

/// `analyse` gives a problem's `expected` object from the exhaustive search, with the
/// move set by category, and fails on a position that is not valid.
#[test]
fn analyse_gives_the_expected_object_of_a_problem() {
    let mate = common::MATE1;
    let out = Command::new(xtask())
        .args(["analyse", "--plies", "3", "--sfen", mate])
        .output()
        .expect("run xtask analyse");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("expected: {\"mate\": 1} by G*5b\n"),
        "{stdout}"
    );
    assert!(stdout.contains("    drop: "), "{stdout}");
    let input = format!("{CHECKS}\n{NOT_SFEN}\n");
    let out = xtask_with_input(&["analyse", "--positions", "-"], &input);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let checks = Position::from_sfen(CHECKS).expect("a valid test position");
    let want = match tsume::mate::mate_length(&checks, 5) {
        Some(n) => format!("expected: {{\"mate\": {n}}} by "),
        None => "expected: {\"no_mate_within\": 5}\n".to_string(),
    };
    assert!(stdout.contains(&want), "{stdout}");
    assert!(stdout.contains("INVALID: "), "{stdout}");
    let out = Command::new(xtask())
        .args(["analyse", "--plies", "4", "--sfen", mate])
        .output()
        .expect("run xtask analyse");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}

#[test]
fn a_waveform_that_cannot_be_written_is_an_error() {
    let out = sim(&["--vcd", "/no/such/dir/x.vcd", "--sfen", CHECKS]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot write the waveform to /no/such/dir/x.vcd"),
        "{err}"
    );
    assert!(!err.contains("waveform written"), "{err}");
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
}

/// The first `--vcd` run builds a second, traced model and says so; the waveform is a VCD
/// file of the run.
#[test]
fn the_waveform_is_written_and_its_model_announced() {
    let vcd = TempFile::new("cli", "wave.vcd", "");
    let out = sim(&["--vcd", vcd.path(), "--sfen", CHECKS]);
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("second Verilator model"), "{err}");
    assert!(
        err.contains(&format!("waveform written to {}", vcd.path())),
        "{err}"
    );
    let wave = std::fs::read_to_string(vcd.path()).expect("the waveform");
    assert!(
        wave.starts_with('$') && wave.contains("$enddefinitions") && wave.contains("#10"),
        "not a VCD file of the run: {}",
        &wave[..wave.len().min(200)]
    );
}

/// `run --sim --json`, reading the positions from standard input, prints what `sim --json`
/// prints for the same file: one shape, the SFEN echoed as given, the same moves in the
/// same order and the same cycle counts.
#[test]
fn run_and_sim_print_the_same_json() {
    let lines = [
        CHECKS,
        NOT_SFEN,
        EVASIONS,
        "startpos moves 7g7f 3c3d 8h2b+",
        MATED,
    ];
    let content = lines.join("\n");
    let file = TempFile::new("cli", "same-json.txt", &content);
    let sim_out = sim(&["--positions", file.path(), "--json"]);
    let run_out = xtask_with_input(&["run", "--sim", "--positions", "-", "--json"], &content);
    assert_eq!(sim_out.status.code(), Some(1), "{}", text(&sim_out.stderr));
    assert_eq!(run_out.status.code(), Some(1), "{}", text(&run_out.stderr));
    let (sim_json, run_json) = (text(&sim_out.stdout), text(&run_out.stdout));
    assert_eq!(json_lines(&sim_json).len(), lines.len(), "{sim_json}");
    assert_eq!(run_json, sim_json, "run --sim --json and sim --json differ");
    // Without --check no list is compared: the summary names the one bad line only.
    let run_err = text(&run_out.stderr);
    assert!(
        run_err.contains("1 of 5 positions is not usable") && !run_err.contains("differ"),
        "{run_err}"
    );
}

/// `run --sim` states its times at the board's generator clock of swim.toml.
#[test]
fn run_reports_times_at_the_board_clock() {
    let mhz = common::board_clock_mhz();
    let out = Command::new(xtask())
        .args(["run", "--sim", "--sfen", CHECKS])
        .output()
        .expect("run xtask run");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let set = reference(CHECKS).1;
    assert!(
        stdout.contains(&format!("{} moves in ", set.moves.len()))
            && stdout.contains(&format!(" µs at {mhz} MHz)")),
        "{stdout}"
    );
}

/// Positions as shogi tools write them: the position after the moves.
#[test]
fn positions_as_shogi_tools_write_them_are_read() {
    let after = "lnsgkg1nl/1r5s1/pppppp1pp/6p2/5B3/2P6/PP1PPPPPP/7R1/LNSGKGSNL w b 6";
    for given in [
        "position startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e",
        "startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e",
        "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 7g7f 3c3d \
         8h2b+ 3a2b B*4e",
        "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2 \
         moves 3c3d 8h2b+ 3a2b B*4e",
    ] {
        let out = sim(&["--engine", "model", "--sfen", given, "--json"]);
        assert!(out.status.success(), "{given}: {}", text(&out.stderr));
        let object = &json_lines(&text(&out.stdout))[0];
        let mut want = expected_json(after);
        want["sfen"] = given.into();
        assert_eq!(*object, want, "{given}");
    }
    let out = sim(&[
        "--engine",
        "model",
        "--sfen",
        "startpos moves 7g7f 3c3d 7g7f",
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("move 3 of the moves") && err.contains("`7g7f`"),
        "{err}"
    );
}
