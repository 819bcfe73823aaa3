//! `cargo xtask solve`, run as a user runs it: one position, a file of positions as JSON
//! lines (a bad line among good ones), the node limit, the engines, and the problem suite.
//! Every mating line printed is checked by the library's reference (`check_line`).
//!
//! The xtask binary is built once and found by `common::xtask`.

mod common;

use std::process::{Command, Output};

use common::{MATE1, json_lines, solve_on_model, text, xtask, xtask_with_input};
use serde_json::Value;
use tsume::futile::Rule;
use tsume::position::Position;
use tsume::problems::{Expected, load_suite};
use tsume::rsshogi::types::Move;
use tsume::solver::Kind;
use tsume::solver::line_walk::check_line;

/// Not an SFEN: three ranks instead of nine.
const NOT_SFEN: &str = "4k4/9/4P4 b G 1";

/// `xtask solve ARGS` with the default engine, the chip.
fn solve_on_chip(args: &[&str], stdin: &str) -> Output {
    let args: Vec<&str> = ["solve"].into_iter().chain(args.iter().copied()).collect();
    xtask_with_input(&args, stdin)
}

/// The JSON fields in which two engines' answers to one position must agree.
const SAME_ANSWER: [&str; 7] = [
    "result",
    "pv",
    "line_ja",
    "nodes",
    "expansions",
    "probes",
    "stores",
];

fn moves(usi: &[&str]) -> Vec<Move> {
    usi.iter()
        .map(|m| Move::from_usi(m).unwrap_or_else(|| panic!("not a USI move: {m}")))
        .collect()
}

/// The suite's problem `id`.
fn problem(id: &str) -> (String, Expected) {
    let p = load_suite(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("problems"))
        .unwrap()
        .into_iter()
        .find(|p| p.id == id)
        .unwrap_or_else(|| panic!("no problem {id} in the suite"));
    (p.sfen, p.expected)
}

#[test]
fn one_position_gives_the_board_the_line_and_the_counters() {
    let (sfen, expected) = problem("tsume3-dragon-bishop");
    assert_eq!(expected, Expected::Mate(3));
    // The suite's lengths count every interposition.
    let out = solve_on_model(
        &["--shortest", "--every-interposition", "--sfen", &sfen],
        "",
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let field = |name: &str| {
        stdout
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(str::trim)
            .unwrap_or_else(|| panic!("no `{name}` line in:\n{stdout}"))
    };
    assert_eq!(field("result:"), "mate in 3 (shortest)");
    assert_eq!(field("plies:"), "3");
    let line: Vec<&str> = field("line:").split_whitespace().collect();
    assert_eq!(line.len(), 3, "{stdout}");
    let pos = Position::from_sfen(&sfen).unwrap();
    check_line(&pos, Kind::Or, Rule::EveryInterposition, &moves(&line))
        .unwrap_or_else(|e| panic!("{e}:\n{stdout}"));
    let nodes = field("nodes:");
    assert!(
        nodes.contains("expansions") && nodes.contains("probes"),
        "{nodes}"
    );
    assert!(field("time:").ends_with("nodes/s)"), "{stdout}");
    // The board diagram: the ranks' letters and the files' numbers.
    assert!(stdout.contains("9  8  7  6  5  4  3  2  1"), "{stdout}");
}

#[test]
fn a_bad_line_is_reported_and_the_run_goes_on() {
    let (mate5, _) = problem("tsume5-dragon");
    let (nomate, _) = problem("nomate-two-golds");
    let input = format!("# a comment\n{MATE1}\n{NOT_SFEN}\n\n{mate5}\n{nomate}\n");
    let out = solve_on_model(&["--positions", "-", "--json", "--shortest"], &input);
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(
        stderr.contains("1 of 4 lines in standard input"),
        "{stderr}"
    );
    let lines = json_lines(&stdout);
    assert_eq!(lines.len(), 4, "{stdout}");
    let sfens: Vec<&str> = lines.iter().map(|l| l["sfen"].as_str().unwrap()).collect();
    assert_eq!(sfens, [MATE1, NOT_SFEN, mate5.as_str(), nomate.as_str()]);

    let error = lines[1]["error"]
        .as_str()
        .expect("the bad line has an error");
    assert!(
        error.contains("SFEN"),
        "the error names the problem: {error}"
    );
    assert!(
        error.contains("expected 9 ranks"),
        "the error names the fix: {error}"
    );
    assert!(lines[1].get("result").is_none(), "{}", lines[1]);

    for (line, plies) in [(&lines[0], 1), (&lines[2], 5)] {
        assert_eq!(line["result"], "mate", "{line}");
        assert_eq!(line["plies"], plies, "{line}");
        let pv: Vec<&str> = line["pv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        assert_eq!(pv.len(), plies, "{line}");
        let pos = Position::from_sfen(line["sfen"].as_str().unwrap()).unwrap();
        assert_eq!(line["root"], "attacker", "{line}");
        check_line(&pos, Kind::Or, Rule::EveryInterposition, &moves(&pv))
            .unwrap_or_else(|e| panic!("{e}: {line}"));
        for counter in ["nodes", "expansions", "probes"] {
            assert!(line[counter].as_u64().unwrap() > 0, "{counter}: {line}");
        }
        assert!(line.get("reason").is_none(), "{line}");
    }
    assert_eq!(lines[0]["pv"][0], "G*5b");
    assert_eq!(lines[3]["result"], "nomate", "{}", lines[3]);
    assert_eq!(lines[3]["plies"], 0);
    assert_eq!(lines[3]["pv"], Value::Array(vec![]));

    // Without --json: one readable line per position, in input order.
    let out = solve_on_model(&["--positions", "-"], &input);
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert!(
        lines[0].starts_with("line 2: mate in 1 by the composers' rule (shortest): G*5b"),
        "{stdout}"
    );
    assert!(lines[1].starts_with("line 3: error:"), "{stdout}");
    assert!(lines[2].starts_with("line 5: mate in"), "{stdout}");
    assert!(lines[3].starts_with("line 6: no mate"), "{stdout}");
}

/// `--root`: with `auto`, a position one check into a problem (the defender to move, in
/// check) is the defender's, its line starting with the reply; `defender` out of check is
/// an error line; `attacker` (the default) asks whether the side in check mates.
#[test]
fn the_root_side_follows_the_check() {
    let (mate5, _) = problem("tsume5-dragon");
    let out = solve_on_model(&["--positions", "-", "--json", "--shortest"], &mate5);
    let first = json_lines(&text(&out.stdout))[0]["pv"][0]
        .as_str()
        .unwrap()
        .to_string();
    let after = Position::from_sfen(&mate5)
        .unwrap()
        .after(Move::from_usi(&first).unwrap())
        .to_sfen();

    let input = format!("{after}\n{MATE1}\n");
    let out = solve_on_model(
        &["--positions", "-", "--json", "--shortest", "--root", "auto"],
        &input,
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let lines = json_lines(&stdout);
    assert_eq!(lines[0]["root"], "defender", "{}", lines[0]);
    assert_eq!(lines[0]["result"], "mate", "{}", lines[0]);
    assert_eq!(lines[0]["plies"], 4, "{}", lines[0]);
    let pv: Vec<&str> = lines[0]["pv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    check_line(
        &Position::from_sfen(&after).unwrap(),
        Kind::And,
        Rule::EveryInterposition,
        &moves(&pv),
    )
    .unwrap_or_else(|e| panic!("{e}: {}", lines[0]));
    assert_eq!(lines[1]["root"], "attacker", "{}", lines[1]);

    let out = solve_on_model(
        &["--positions", "-", "--json", "--root", "defender"],
        &input,
    );
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let lines = json_lines(&stdout);
    assert_eq!(lines[0]["root"], "defender", "{}", lines[0]);
    let error = lines[1]["error"].as_str().expect("MATE1 is not in check");
    assert!(
        error.contains("not in check") && error.contains("--root attacker"),
        "{error}"
    );

    let out = solve_on_model(
        &["--positions", "-", "--json", "--root", "attacker"],
        &after,
    );
    let lines = json_lines(&text(&out.stdout));
    assert_eq!(lines[0]["root"], "attacker", "{}", lines[0]);
    assert_ne!(lines[0]["result"], "mate", "{}", lines[0]);

    let out = solve_on_model(&["--sfen", MATE1, "--root", "sideways"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("sideways"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn the_node_limit_gives_unknown_with_the_reason() {
    let (mate5, _) = problem("tsume5-dragon");
    let out = solve_on_model(&["--positions", "-", "--json", "--nodes", "1"], &mate5);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let lines = json_lines(&stdout);
    assert_eq!(lines.len(), 1, "{stdout}");
    let line = &lines[0];
    assert_eq!(line["result"], "unknown", "{line}");
    assert_eq!(line["nodes"], 1, "{line}");
    assert_eq!(line["pv"], Value::Array(vec![]), "{line}");
    let reason = line["reason"].as_str().expect("an unknown has a reason");
    assert!(reason.contains("node limit"), "{reason}");

    // The frames' limit: no mate within 3 plies is not a `nomate`.
    let out = solve_on_model(&["--max-plies", "4", "--sfen", &mate5], "");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("result: unknown: ply limit: no mate within 3 plies"),
        "{stdout}"
    );
}

#[test]
fn the_chip_is_the_default_engine_and_answers_as_the_model() {
    let (sfen, _) = problem("tsume5-dragon");
    let out = solve_on_chip(&["--shortest", "--sfen", &sfen], "");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("result: mate in 5 (shortest)"), "{stdout}");
    assert!(stdout.contains("chip:   "), "{stdout}");
    assert!(stdout.contains(" cycles ("), "{stdout}");
    // The line was walked on chip, to the mate (the last walk of the shortest mode's).
    assert!(stdout.contains("walk:   the line on chip: "), "{stdout}");
    assert!(!stdout.contains(", 0 to the mate"), "{stdout}");
    // A mate in one: one move in one walk, and a JSON line with --sfen --json.
    let out = solve_on_chip(&["--sfen", MATE1, "--first-mate"], "");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("walk:   the line on chip: 1 move in 1 walk, 1 to the mate, "),
        "{stdout}"
    );
    let out = solve_on_chip(&["--sfen", MATE1, "--json"], "");
    let line = &json_lines(&text(&out.stdout))[0];
    assert_eq!(line["engine"], "chip", "{line}");
    assert!(line["cycles"].as_u64().unwrap() > 0, "{line}");

    // JSON lines from both engines: the same answers and counters; the chip's cycles.
    let input = format!("{sfen}\n{MATE1}\n{NOT_SFEN}\n");
    let chip = solve_on_chip(&["--positions", "-", "--json", "--shortest"], &input);
    let model = solve_on_model(&["--positions", "-", "--json", "--shortest"], &input);
    assert_eq!(chip.status.code(), Some(1), "{}", text(&chip.stderr));
    let (chip, model) = (
        json_lines(&text(&chip.stdout)),
        json_lines(&text(&model.stdout)),
    );
    assert_eq!(chip.len(), 3);
    for (c, m) in chip.iter().zip(&model).take(2) {
        assert_eq!(c["engine"], "chip", "{c}");
        assert_eq!(m["engine"], "model", "{m}");
        assert!(
            c["cycles"].as_u64().unwrap() > c["nodes"].as_u64().unwrap(),
            "{c}"
        );
        assert!(m.get("cycles").is_none(), "{m}");
        for field in SAME_ANSWER {
            assert_eq!(c[field], m[field], "{field}: chip {c}, model {m}");
        }
    }
    assert!(chip[2]["error"].is_string(), "{}", chip[2]);

    // The chip can search with a table of fewer sets than swim.toml's, as the model does.
    let small = [
        "--tt-entries",
        "8",
        "--json",
        "--shortest",
        "--positions",
        "-",
    ];
    let input = format!("{sfen}\n");
    let (c, m) = (
        solve_on_chip(&small, &input),
        solve_on_model(&small, &input),
    );
    assert!(c.status.success(), "{}", text(&c.stderr));
    let (c, m) = (
        &json_lines(&text(&c.stdout))[0],
        &json_lines(&text(&m.stdout))[0],
    );
    for field in ["result", "pv", "nodes", "expansions", "probes", "stores"] {
        assert_eq!(c[field], m[field], "{field}: chip {c}, model {m}");
    }
    // A larger table, or other frames, are the model's.
    let out = solve_on_chip(&["--tt-entries", "1048576", "--sfen", MATE1], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("--engine model"),
        "{}",
        text(&out.stderr)
    );
}

/// `run --sim --solve` searches the simulated board top with the default board's table
/// (its `tt_index_bits`, fewer sets than [search]'s where it gives them) and answers as
/// `solve` does with that table: the same results, lines and counters.
#[test]
fn run_sim_solve_answers_as_solve_with_the_boards_table() {
    let manifest = common::manifest();
    let board = manifest.board_search(None).unwrap();
    let entries = board.tt_entries().to_string();
    let (sfen, _) = problem("tsume5-dragon");
    let input = format!("{sfen}\n{MATE1}\n{NOT_SFEN}\n");
    let run = xtask_with_input(
        &[
            "run",
            "--sim",
            "--solve",
            "--shortest",
            "--notation",
            "ja",
            "--json",
            "--positions",
            "-",
        ],
        &input,
    );
    let mode = tsume::solver::modes::mode_of(&board)
        .expect("the board's table mode")
        .name;
    let model = solve_on_model(
        &[
            "--tt-entries",
            &entries,
            "--table",
            mode,
            "--shortest",
            "--notation",
            "ja",
            "--json",
            "--positions",
            "-",
        ],
        &input,
    );
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    if board != manifest.search().unwrap() {
        assert!(
            stderr.contains(&format!("table: 2^{} sets", board.tt_index_bits))
                && stderr.contains(&format!("--tt-entries {entries} --table {mode}")),
            "{stderr}"
        );
    }
    let (run, model) = (
        json_lines(&text(&run.stdout)),
        json_lines(&text(&model.stdout)),
    );
    assert_eq!(run.len(), 3, "{run:?}");
    for (b, m) in run.iter().zip(&model).take(2) {
        assert!(b["cycles"].as_u64().unwrap() > 0, "{b}");
        assert!(b["line_ja"].is_array(), "run --notation ja: {b}");
        for field in SAME_ANSWER {
            assert_eq!(b[field], m[field], "{field}: board {b}, model {m}");
        }
    }
    assert!(run[2]["error"].is_string(), "{}", run[2]);
}

#[test]
fn a_suite_on_the_chip_runs_the_model_beside_it() {
    let dir = std::env::temp_dir().join(format!("tsume-cli-chip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mate5, _) = problem("tsume5-dragon");
    std::fs::write(
        dir.join("suite.json"),
        format!(
            r#"[{{"id": "one", "sfen": "{MATE1}", "expected": {{"mate": 1}}, "source": "test"}},
               {{"id": "five", "sfen": "{mate5}", "expected": {{"mate": 5}}, "source": "test"}}]"#
        ),
    )
    .unwrap();
    let table = solve_on_chip(&["--suite", dir.to_str().unwrap(), "--shortest"], "");
    let json = solve_on_chip(
        &[
            "--suite",
            dir.to_str().unwrap(),
            "--json",
            "--notation",
            "ja",
        ],
        "",
    );
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = text(&table.stdout);
    assert!(table.status.success(), "{stdout}{}", text(&table.stderr));
    assert!(stdout.contains("chip @ "), "{stdout}");
    assert!(stdout.contains("on the chip: 2 problems"), "{stdout}");
    let lines = json_lines(&text(&json.stdout));
    assert_eq!(lines.len(), 2);
    for l in &lines {
        assert_eq!(l["same_as_model"], true, "{l}");
        assert_eq!(l["engine"], "chip", "{l}");
        // --notation ja in the suite: the line in Japanese beside the USI one.
        let sfen = l["sfen"].as_str().unwrap();
        let pv: Vec<&str> = l["pv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap())
            .collect();
        let ja: Vec<String> = l["line_ja"]
            .as_array()
            .unwrap_or_else(|| panic!("no line_ja: {l}"))
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect();
        let pos = Position::from_sfen(sfen).unwrap();
        assert_eq!(ja, tsume::input::kif::line_ja(&pos, &moves(&pv)), "{l}");
    }
}

#[test]
fn bad_options_are_errors() {
    let out = solve_on_model(&["--max-plies", "5000", "--sfen", MATE1], "");
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("--max-plies"), "{stderr}");

    let out = solve_on_model(&["--sfen", NOT_SFEN], "");
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(stderr.contains(NOT_SFEN), "{stderr}");
}

#[test]
fn the_suite_is_solved_and_a_wrong_result_fails() {
    let out = solve_on_model(&["--shortest"], "");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let suite =
        load_suite(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("problems")).unwrap();
    let last = stdout.lines().last().unwrap_or("");
    assert!(
        last.starts_with(&format!("{} problems from", suite.len())) && last.contains(" 0 wrong"),
        "{last}"
    );
    for p in &suite {
        let row = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(p.id.as_str()))
            .unwrap_or_else(|| panic!("no row for {}:\n{stdout}", p.id));
        assert!(row.ends_with(" ok"), "{row}");
    }

    // A suite whose expected results are wrong: a mate in 1 recorded as a mate in 3 (the
    // solver finds a shorter one) and as no mate.
    let dir = std::env::temp_dir().join(format!("tsume-cli-solve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let problem = |id: &str, expected: &str| {
        format!(r#"{{"id": "{id}", "sfen": "{MATE1}", "expected": {expected}, "source": "test"}}"#)
    };
    let right = problem("right", r#"{"mate": 1}"#);
    let longer = problem("longer", r#"{"mate": 3}"#);
    let none = problem("none", r#"{"no_mate_within": 3}"#);
    std::fs::write(
        dir.join("suite.json"),
        format!("[{right}, {longer}, {none}]"),
    )
    .unwrap();
    let out = solve_on_model(&["--suite", dir.to_str().unwrap(), "--json"], "");
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stderr.contains("2 of 3 problems"), "{stderr}");
    assert!(stderr.contains("longer, none"), "{stderr}");
    let lines = json_lines(&stdout);
    let ok: Vec<bool> = lines.iter().map(|l| l["ok"].as_bool().unwrap()).collect();
    assert_eq!(ok, [true, false, false], "{stdout}");
    assert!(
        lines[1]["wrong"].as_str().unwrap().contains("shorter"),
        "{}",
        lines[1]
    );
}

#[test]
fn help_documents_solve_and_its_default_limit() {
    let out = Command::new(xtask())
        .arg("--help")
        .output()
        .expect("run xtask --help");
    assert!(out.status.success());
    let help = text(&out.stdout);
    assert!(
        help.lines().any(|l| l.trim_start().starts_with("solve ")),
        "--help lists `solve`:\n{help}"
    );
    let out = solve_on_model(&["--help"], "");
    assert!(out.status.success());
    let help = text(&out.stdout);
    for option in [
        "--sfen",
        "--positions",
        "--json",
        "--nodes",
        "--shortest",
        "--first-mate",
        "--tt-entries",
        "--hash",
        "--max-plies",
        "--engine",
        "--vcd",
    ] {
        assert!(
            help.contains(option),
            "solve --help lists {option}:\n{help}"
        );
    }
    assert!(help.contains("Default: no limit"), "{help}");
}

#[test]
fn verify_solver_compares_the_chip_with_the_model() {
    let out = Command::new(xtask())
        .args(["verify", "--solver", "4", "--seed", "5", "--nodes", "300"])
        .output()
        .expect("run xtask verify --solver");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("verify: 4 solves, seed 5: 0 differ from the model"),
        "{stdout}"
    );
}

/// `bench --solver` on two positions of two sets: the chip's table beside the model's and
/// cshogi's, every chip solve checked against the model at the chip's geometry.
#[test]
fn bench_solver_runs_the_chip_on_the_same_positions() {
    let out = Command::new(xtask())
        .args([
            "bench",
            "--solver",
            "--sets",
            "mate-3,mate-5",
            "--sample",
            "2",
            "--nodes",
            "20000",
            "--chip-sample",
            "2",
        ])
        .output()
        .expect("run xtask bench --solver");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(
        stdout.contains("--chip-nodes 20000 --chip-sample 2`"),
        "{stdout}"
    );
    for set in ["mate-3", "mate-5", "all"] {
        let row = stdout
            .lines()
            .find(|l| l.starts_with(&format!("| {set} | ")) && l.contains(" beyond) |"))
            .unwrap_or_else(|| panic!("no chip row for {set}:\n{stdout}"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let positions = if set == "all" { 4 } else { 2 };
        assert_eq!(
            cells[2],
            format!("{positions} of {positions} (0 beyond)"),
            "{row}"
        );
        // Proved all, no difference from the model, nodes and cycles counted.
        assert_eq!(
            (cells[3], cells[4]),
            (positions.to_string().as_str(), "0"),
            "{row}"
        );
        let number = |i: usize| -> f64 {
            cells[i]
                .trim_end_matches(" M")
                .parse()
                .unwrap_or_else(|e| panic!("cell {i} of {row}: {e}"))
        };
        assert!(number(5) > 0.0 && number(6) > 10.0, "{row}");
        let split: f64 = cells[7]
            .split(" / ")
            .map(|c| c.parse::<f64>().expect("a split of cycles"))
            .sum();
        assert!(
            split <= number(6) + 0.05 && split >= 0.9 * number(6),
            "the split adds up to nearly every cycle: {row}"
        );
        assert!(cells[8].ends_with(" M") && number(8) > 0.0, "{row}");
        assert!(
            number(9) > 0.0 && number(10) > 0.0 && number(11) > 0.0,
            "{row}"
        );
        assert!(number(12) > 0.0, "{row}");
    }
}

/// A problem file as composers keep it (tests/data/problems/).
fn problem_file(name: &str) -> String {
    format!("{}/tests/data/problems/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn a_kif_problem_is_solved_and_its_line_written_in_japanese() {
    let kif = problem_file("mate3.kif");
    let out = solve_on_model(&["--positions", &kif, "--json", "--notation", "ja"], "");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let lines = json_lines(&stdout);
    assert_eq!(lines.len(), 1, "{stdout}");
    let answer = &lines[0];
    assert_eq!(answer["result"], "mate", "{stdout}");
    assert_eq!(
        answer["name"],
        format!("{kif} (龍と馬の三手詰)"),
        "{stdout}"
    );
    let sfen = answer["sfen"].as_str().unwrap();
    let pv: Vec<&str> = answer["pv"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    let pos = Position::from_sfen(sfen).unwrap();
    check_line(&pos, Kind::Or, Rule::EveryInterposition, &moves(&pv))
        .unwrap_or_else(|e| panic!("{e}:\n{stdout}"));
    let ja: Vec<String> = answer["line_ja"]
        .as_array()
        .expect("line_ja with --notation ja")
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    assert_eq!(ja, tsume::input::kif::line_ja(&pos, &moves(&pv)));

    // The text report numbers the line as composers write it; USI stays the default.
    let out = solve_on_model(&["--positions", &kif, "--notation", "ja"], "");
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(&format!("1 {}  2 {}", ja[0], ja[1])) && stdout.contains("まで3手詰"),
        "{stdout}"
    );
    let out = solve_on_model(&["--positions", &kif], "");
    assert!(text(&out.stdout).contains(&pv.join(" ")));
}

#[test]
fn a_folder_of_problems_goes_on_past_a_bad_file() {
    let out = solve_on_model(&["--positions", &problem_file("bad"), "--json"], "");
    let stdout = text(&out.stdout);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}{stderr}");
    assert!(stderr.contains("6 of 7 problems in "), "{stderr}");
    let lines = json_lines(&stdout);
    assert_eq!(lines.len(), 7, "{stdout}");
    let solved: Vec<&Value> = lines.iter().filter(|l| l["result"] == "mate").collect();
    assert_eq!(solved.len(), 1, "{stdout}");
    assert!(solved[0]["name"].as_str().unwrap().contains("good.csa"));
    let bad_row = lines
        .iter()
        .find(|l| {
            l["name"]
                .as_str()
                .is_some_and(|n| n.ends_with("bad-row.kif"))
        })
        .expect("bad-row.kif reported");
    assert!(
        bad_row["error"].as_str().unwrap().starts_with("line 6 `"),
        "{bad_row}"
    );
}
