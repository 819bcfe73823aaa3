//! What a new user meets first, run through the xtask binary as a user runs it: positions
//! as shogi GUIs write them in every command, `--json` with one position, whether a line is
//! proven shortest, empty or marked input files, options out of range and their exit
//! codes, a table too large for the machine, and the suite printed as it is solved.
//!
//! Every run here uses the software model (no simulation) unless it is refused before any
//! model is built.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{
    BEFORE_MATE1, MATE1, TempFile, json_lines, solve_on_model, text, xtask, xtask_with_input,
};
use tsume::futile::Rule;
use tsume::position::Position;
use tsume::rsshogi::types::Move;
use tsume::solver::Kind;
use tsume::solver::line_walk::check_line;

/// A mate in 3 (docs/usi.md's example): B*3c P*2b 3b2b.
const MATE3: &str = "8k/6+R2/9/9/9/9/9/9/9 b Brb4g4s4n4l18p 1";
/// A long problem (Shogi Zuko No. 98): no answer within a few thousand nodes.
const HARD: &str = "8k/9/9/9/9/9/9/9/9 b R2GSr2b2g3s4n4l18p 1";

fn moves(pv: &serde_json::Value) -> Vec<Move> {
    pv.as_array()
        .expect("pv is an array")
        .iter()
        .map(|m| Move::from_usi(m.as_str().unwrap()).expect("a USI move"))
        .collect()
}

/// `position startpos moves ...`, `startpos moves ...` and `position sfen P moves M` are
/// read by `solve` as by `sim`, on the command line and in a positions file.
#[test]
fn solve_reads_positions_as_guis_write_them() {
    let after_usi = format!("position sfen {BEFORE_MATE1} moves 6a5a");
    let out = solve_on_model(&["--json", "--sfen", &after_usi], "");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let line = &json_lines(&stdout)[0];
    // The position's own SFEN, and the text as given beside it.
    let sfen = Position::from_usi(&after_usi).unwrap().to_sfen();
    assert_ne!(sfen, after_usi);
    assert_eq!(line["sfen"], sfen.as_str(), "{line}");
    assert_eq!(line["input"], after_usi.as_str(), "{line}");
    assert_eq!(line["result"], "mate", "{line}");
    assert_eq!(line["pv"][0], "G*5b", "{line}");

    // One check into a problem: the defender to move (`--root auto`), its reply first.
    let input = format!(
        "position startpos moves 7g7f 3c3d\nstartpos moves 7g7f 3c3d\n\
         position sfen {MATE3} moves B*3c\n{after_usi}\n"
    );
    let out = solve_on_model(&["--positions", "-", "--json", "--root", "auto"], &input);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let lines = json_lines(&stdout);
    assert_eq!(lines.len(), 4, "{stdout}");
    for line in &lines[..2] {
        assert_eq!(line["result"], "nomate", "no check after 7g7f 3c3d: {line}");
    }
    assert_eq!(lines[2]["root"], "defender", "{}", lines[2]);
    assert_eq!(lines[2]["result"], "mate", "{}", lines[2]);
    let after_b3c = Position::from_usi(&format!("{MATE3} moves B*3c")).unwrap();
    // Under the composers' rule (the model's default): the drops on 2b are futile, the
    // defender is mated at its root.
    assert_eq!(lines[2]["rule"], "composers", "{}", lines[2]);
    check_line(
        &after_b3c,
        Kind::And,
        Rule::Composers,
        &moves(&lines[2]["pv"]),
    )
    .unwrap_or_else(|e| panic!("{e}: {}", lines[2]));
    assert_eq!(lines[3]["pv"][0], "G*5b", "{}", lines[3]);

    // The report of one position names the position it solved.
    let out = solve_on_model(&["--sfen", "startpos", "moves", "7g7f", "3c3d"], "");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("result: no mate"), "{stdout}");
    // A bad move is named by its place, as `sim` names it.
    let out = solve_on_model(&["--sfen", "startpos moves 7g7f 3c3d 7g7f"], "");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("move 3 of the moves") && stderr.contains("`7g7f`"),
        "{stderr}"
    );
}

/// `--root defender` on a usable position not in check is the option's error, not the
/// SFEN's; a SFEN that is not usable is still the SFEN's.
#[test]
fn a_defender_root_out_of_check_blames_the_option() {
    let out = solve_on_model(&["--sfen", MATE1, "--root", "defender"], "");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("--root defender") && stderr.contains("not in check"),
        "{stderr}"
    );
    assert!(!stderr.contains("not a usable position"), "{stderr}");
    let out = solve_on_model(&["--sfen", "4k4/9/4P4 b G 1", "--root", "defender"], "");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("not a usable position"), "{stderr}");
}

/// `--json` with `--sfen` gives one JSON line, not the report.
#[test]
fn one_position_with_json_is_json() {
    let out = solve_on_model(&["--sfen", MATE1, "--json"], "");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let lines = json_lines(&stdout);
    assert_eq!(lines.len(), 1, "{stdout}");
    assert_eq!(lines[0]["sfen"], MATE1);
    assert!(
        lines[0].get("input").is_none(),
        "given as its SFEN: {}",
        lines[0]
    );
    assert_eq!(lines[0]["engine"], "model");
    assert_eq!(lines[0]["pv"][0], "G*5b");
    // A position that is not usable: its JSON error line, exit 1.
    let out = solve_on_model(&["--sfen", "4k4/9/4P4 b G 1", "--json"], "");
    assert_eq!(out.status.code(), Some(1));
    let lines = json_lines(&text(&out.stdout));
    assert!(
        lines[0]["error"].as_str().unwrap().contains("9 ranks"),
        "{}",
        lines[0]
    );
}

/// `proven_shortest` tells a line proven of the least length from one that is not: the
/// first line of a proof, or a `--shortest` solve whose shorter searches ran out of nodes.
/// Searched without count estimates (`--table depth`), whose first line here is longer
/// than the shortest (with them the first line is the mate in 1 by the rule).
#[test]
fn a_line_not_proven_shortest_says_so() {
    let field = |args: &[&str]| {
        let args = [args, &["--table", "depth"]].concat();
        let out = solve_on_model(&args, "");
        let stdout = text(&out.stdout);
        assert!(
            out.status.success(),
            "{args:?}: {stdout}{}",
            text(&out.stderr)
        );
        json_lines(&stdout)[0].clone()
    };
    let proven = field(&["--sfen", MATE3, "--json", "--shortest"]);
    assert_eq!(proven["proven_shortest"], true, "{proven}");
    // Shortest is the default; the last of --shortest and --first-mate counts.
    assert_eq!(field(&["--sfen", MATE3, "--json"]), proven);
    let last = field(&["--sfen", MATE3, "--json", "--first-mate", "--shortest"]);
    assert_eq!(last, proven);
    let first = field(&["--sfen", MATE3, "--json", "--first-mate"]);
    assert_eq!(first["proven_shortest"], false, "{first}");
    // The mate is found within the node limit, the shorter searches are not all done.
    let nodes = first["nodes"].as_u64().unwrap();
    let limit = nodes.to_string();
    let cut = field(&["--sfen", MATE3, "--json", "--shortest", "--nodes", &limit]);
    assert_eq!(cut["result"], "mate", "{cut}");
    assert_eq!(cut["proven_shortest"], false, "{cut}");
    assert_eq!(cut["plies"], first["plies"], "{cut}");
    let out = solve_on_model(
        &[
            "--sfen",
            MATE3,
            "--shortest",
            "--nodes",
            &limit,
            "--table",
            "depth",
        ],
        "",
    );
    let stdout = text(&out.stdout);
    let want = format!(
        "result: mate in {} by the composers' rule (not proven shortest",
        first["plies"]
    );
    assert!(stdout.contains(&want), "{stdout}");
    let nomate = field(&["--sfen", "4k4/9/9/9/9/9/9/9/4K4 b - 1", "--json"]);
    assert!(nomate.get("proven_shortest").is_none(), "{nomate}");
}

/// A positions file with no position is an error naming it, in `solve`, `sim` and `run`;
/// a byte-order mark before the first line is no part of it.
#[test]
fn empty_and_marked_position_files() {
    let empty = TempFile::new("front", "empty.txt", b"# only a comment\n\n");
    for args in [
        vec!["solve", "--engine", "model", "--positions", empty.path()],
        vec!["sim", "--engine", "model", "--positions", empty.path()],
        vec!["run", "--sim", "--positions", empty.path()],
    ] {
        let out = Command::new(xtask()).args(&args).output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("no positions in {}", empty.path())),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains("nothing to do"), "{args:?}: {stderr}");
    }
    let out = solve_on_model(&["--positions", "-"], "");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no positions in standard input"));

    let marked = TempFile::new("front", "bom.txt", format!("\u{feff}{MATE1}\n").as_bytes());
    let out = solve_on_model(&["--positions", marked.path(), "--json"], "");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let line = &json_lines(&stdout)[0];
    assert_eq!(line["sfen"], MATE1, "{line}");
    assert_eq!(line["result"], "mate", "{line}");
}

/// Options out of range: exit code 2 whatever the option or engine (as clap's own
/// errors), negative numbers named as such; a table larger than the machine's memory is an
/// error with exit code 1, not an abort.
#[test]
fn options_out_of_range_are_refused_alike() {
    for (args, says) in [
        (
            vec!["--engine", "model", "--max-plies", "2000"],
            "--max-plies",
        ),
        (
            vec!["--engine", "chip", "--max-plies", "128"],
            "--engine model",
        ),
        (
            vec!["--engine", "model", "--tt-entries", "2"],
            "--tt-entries 2",
        ),
        (
            vec!["--engine", "chip", "--table", "pieces-counts"],
            "no child counts",
        ),
        (
            vec!["--engine", "model", "--table", "depths"],
            "no mode `depths`",
        ),
        (vec!["--engine", "model", "--nodes", "-5"], "negative"),
        (vec!["--engine", "model", "--max-plies", "-1"], "negative"),
    ] {
        let full: Vec<&str> = ["solve", "--sfen", MATE1]
            .into_iter()
            .chain(args.iter().copied())
            .collect();
        let out = Command::new(xtask()).args(&full).output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(
            !stderr.contains("unexpected argument"),
            "{args:?}: {stderr}"
        );
    }
    for args in [["verify", "--random", "-5"], ["bench", "--nodes", "-1"]] {
        let out = Command::new(xtask()).args(args).output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("is negative"), "{args:?}: {stderr}");
    }
    let out = solve_on_model(&["--tt-entries", "1099511627776", "--sfen", MATE1], "");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("--tt-entries 1099511627776: a table of") && stderr.contains(" MiB"),
        "{stderr}"
    );
    assert!(stderr.contains("give --tt-entries"), "{stderr}");
}

/// `--nodes 0` is no limit, as USI's `NodeLimit 0`; the frames' limit on the model names
/// `--max-plies`; both kings in check is named as such.
#[test]
fn limits_and_rules_speak_the_commands_words() {
    let out = solve_on_model(&["--sfen", MATE3, "--nodes", "0", "--json"], "");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert_eq!(json_lines(&stdout)[0]["result"], "mate", "{stdout}");

    // A mate of 3 plies counting every interposition (1 by the composers' rule).
    let out = solve_on_model(
        &["--sfen", MATE3, "--max-plies", "3", "--every-interposition"],
        "",
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("no mate within 1 ply") && stdout.contains("raise --max-plies"),
        "{stdout}"
    );
    assert!(!stdout.contains("swim.toml"), "{stdout}");

    let both = "4k3r/9/9/9/4R4/9/9/9/8K b - 1";
    let out = solve_on_model(&["--sfen", both], "");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("both kings are in check") && !stderr.contains("give the move"),
        "{stderr}"
    );
}

/// The engines are `chip` and `model`; `hardware` and `reference` are still read.
#[test]
fn the_engines_are_chip_and_model() {
    let out = Command::new(xtask())
        .args(["solve", "--engine", "quantum", "--sfen", MATE1])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("chip") && stderr.contains("model"),
        "{stderr}"
    );
    let out = xtask_with_input(
        &["solve", "--engine", "reference", "--sfen", MATE1, "--json"],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(json_lines(&text(&out.stdout))[0]["engine"], "model");
    let out = Command::new(xtask())
        .args(["sim", "--engine", "model", "--sfen", MATE1, "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
}

/// The suite's rows are printed as its problems are solved: the first row is out while a
/// long problem after it is still being searched.
#[test]
fn the_suite_prints_each_row_when_it_is_solved() {
    let dir = TempFile::new("front", "suite", b"");
    let _ = std::fs::remove_file(&dir.0);
    std::fs::create_dir_all(&dir.0).unwrap();
    std::fs::write(
        dir.0.join("suite.json"),
        format!(
            r#"[{{"id": "quick", "sfen": "{MATE1}", "expected": {{"mate": 1}}, "source": "test"}},
               {{"id": "long", "sfen": "{HARD}", "expected": {{"mate": 99}}, "source": "test"}}]"#
        ),
    )
    .unwrap();
    let mut child = Command::new(xtask())
        .args(["solve", "--engine", "model", "--suite", dir.path()])
        .args(["--nodes", "3000000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let header = lines.next().unwrap().unwrap();
    assert!(header.starts_with("problem "), "{header}");
    let row = lines.next().unwrap().unwrap();
    let running = child.try_wait().unwrap().is_none();
    let took = start.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    assert!(row.starts_with("quick ") && row.ends_with(" ok"), "{row}");
    assert!(
        running,
        "the first row came only when the run ended ({took:?})"
    );
    assert!(took < Duration::from_secs(60), "{took:?}");
}

/// `cargo xtask --help` names the options of `solve` a user looks for.
#[test]
fn help_names_root_and_suite() {
    let out = Command::new(xtask()).arg("--help").output().unwrap();
    let help = text(&out.stdout);
    assert!(out.status.success());
    for option in ["--root", "--suite", "--engine chip", "--engine model"] {
        assert!(help.contains(option), "--help names {option}:\n{help}");
    }
    assert!(!help.contains("--engine reference"), "{help}");
}

/// The help says what the tasks do today: the solver beside the generator, and `run`'s
/// solves; `run` without a board says how to name one or to simulate it.
#[test]
fn the_help_names_the_solver_and_run_names_its_board() {
    let help = |args: &[&str]| {
        let out = Command::new(xtask()).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        text(&out.stdout)
    };
    let top = help(&["--help"]);
    assert!(
        top.contains("df-pn") && top.contains("run --sim --solve"),
        "{top}"
    );
    let run = help(&["run", "--help"]);
    assert!(run.contains("--solve") && run.contains("--sim"), "{run}");

    let out = Command::new(xtask())
        .args(["run", "--solve", "--sfen", MATE1])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--port") && stderr.contains("--sim"),
        "{stderr}"
    );
}

/// The CLI and the USI engine answer a position alike with their defaults (docs/usi.md,
/// "The same defaults"): shortest mates, no node limit, the same result, line and nodes.
#[test]
fn the_cli_and_usi_answer_alike_with_their_defaults() {
    let mate5 = "7k1/9/5l1g+R/6S2/9/9/9/9/9 b 2Gr2bg3s4n3l18p 1";
    let nomate = "4k4/9/9/9/9/9/9/9/4K4 b - 1";
    let positions = [MATE1, MATE3, mate5, nomate];
    let input: String = positions.iter().map(|p| format!("{p}\n")).collect();
    let out = solve_on_model(&["--positions", "-", "--json"], &input);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let cli = json_lines(&stdout);

    let mut usi = Command::new(env!("CARGO_BIN_EXE_tsume-usi"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("tsume-usi starts");
    let mut to = usi.stdin.take().unwrap();
    let mut from = BufReader::new(usi.stdout.take().unwrap()).lines();
    for (p, c) in positions.iter().zip(&cli) {
        writeln!(to, "position sfen {p}\ngo mate infinite").unwrap();
        to.flush().unwrap();
        let mut lines = Vec::new();
        loop {
            let line = from.next().expect("an answer").unwrap();
            let done = line.starts_with("checkmate");
            lines.push(line);
            if done {
                break;
            }
        }
        let answer = lines.last().unwrap()["checkmate ".len()..].to_string();
        let pv: Vec<&str> = c["pv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        match c["result"].as_str().unwrap() {
            "mate" => {
                assert_eq!(answer, pv.join(" "), "{p}: {c} / {lines:?}");
                assert_eq!(c["proven_shortest"], true, "{c}");
                assert!(
                    lines
                        .iter()
                        .any(|l| l.starts_with("info string mate in ")
                            && l.ends_with(", the shortest")),
                    "{p}: {lines:?}"
                );
            }
            "nomate" => assert_eq!(answer, "nomate", "{p}: {lines:?}"),
            other => panic!("{p}: {other}: {c}"),
        }
        let info = lines.iter().find(|l| l.starts_with("info time ")).unwrap();
        let nodes = info.split_whitespace().skip_while(|&w| w != "nodes").nth(1);
        assert_eq!(
            nodes,
            Some(c["nodes"].to_string().as_str()),
            "{p}: {c} / {lines:?}"
        );
    }
    writeln!(to, "quit").unwrap();
    drop(to);
    assert!(usi.wait().unwrap().success());

    // No node limit by default, as USI's NodeLimit 0.
    let out = solve_on_model(&["--sfen", MATE3], "");
    let stdout = text(&out.stdout);
    assert!(stdout.contains("; no limit)"), "{stdout}");
    assert!(
        stdout.contains("result: mate in 1 by the composers' rule (shortest)"),
        "{stdout}"
    );
}

/// `--hash MIB` sizes the table as USI's `USI_Hash` does (16-byte entries); it and
/// `--tt-entries` exclude each other.
#[test]
fn hash_sizes_the_table_in_mib_as_usi_hash() {
    let table = |args: &[&str]| {
        let args: Vec<&str> = ["--sfen", MATE1].iter().chain(args).copied().collect();
        let out = solve_on_model(&args, "");
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
        stdout
            .lines()
            .find(|l| l.starts_with("table:"))
            .unwrap()
            .to_string()
    };
    assert_eq!(
        table(&["--hash", "16"]),
        table(&["--tt-entries", "1048576"])
    );
    assert!(table(&["--hash", "1"]).contains(" 65536 entries"));
    let out = solve_on_model(&["--sfen", MATE1, "--hash", "1", "--tt-entries", "8"], "");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let out = solve_on_model(&["--sfen", MATE1, "--hash", "0"], "");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
}
