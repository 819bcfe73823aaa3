//! The USI engine driven as a GUI drives it: the `tsume-usi` binary over its standard input
//! and output (handshake, mate search answers, limits, `stop`, errors, `quit`).

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use common::{BEFORE_MATE1, MATE1};
use tsume::position::Position;
use tsume::problems::{Expected, load_suite};
use tsume::reference::tsume_moves;
use tsume::rsshogi::types::PieceType;

/// A long problem (Shogi Zuko No. 98): no answer within seconds.
const HARD: &str = "8k/9/9/9/9/9/9/9/9 b R2GSr2b2g3s4n4l18p 1";
/// Black has a king only: no check, so no mate.
const NO_CHECK: &str = "4k4/9/9/9/9/9/9/9/4K4 b - 1";

/// How long an answer may take before the test fails.
const PATIENCE: Duration = Duration::from_secs(60);

/// The engine as a process, its output read line by line on a thread.
struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Everything read so far (for failure messages).
    seen: Vec<String>,
}

impl Engine {
    fn start() -> Engine {
        Engine::start_with(&[])
    }

    /// The engine with the environment variables `env` set.
    fn start_with(env: &[(&str, &str)]) -> Engine {
        let mut command = Command::new(env!("CARGO_BIN_EXE_tsume-usi"));
        command.envs(env.iter().copied());
        Engine::spawn(command)
    }

    /// The engine run by `command` (the binary, or a shell that execs it).
    fn spawn(mut command: Command) -> Engine {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("tsume-usi starts");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        Engine {
            child,
            stdin,
            lines,
            seen: Vec::new(),
        }
    }

    fn send(&mut self, command: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{command}").expect("the engine reads its input");
        stdin.flush().unwrap();
    }

    /// The lines up to and including the first that starts with `prefix`.
    fn until(&mut self, prefix: &str, within: Duration) -> Vec<String> {
        let deadline = Instant::now() + within;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    let done = line.starts_with(prefix);
                    got.push(line);
                    if done {
                        return got;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!(
                        "no `{prefix}` within {within:?}; the engine said {:#?}",
                        self.seen
                    )
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!(
                        "the engine ended before `{prefix}`; it said {:#?}",
                        self.seen
                    )
                }
            }
        }
    }

    /// The `checkmate` answer of a `go mate` (its text after `checkmate `).
    fn checkmate(&mut self, within: Duration) -> String {
        let lines = self.until("checkmate", within);
        lines.last().unwrap()["checkmate".len()..]
            .trim()
            .to_string()
    }

    /// The `info string` error that follows `command`; the engine must still answer
    /// `isready` after it.
    fn refused(&mut self, command: &str) -> String {
        self.send(command);
        let lines = self.until("info string error", PATIENCE);
        let error = lines.last().unwrap().clone();
        self.send("isready");
        self.until("readyok", PATIENCE);
        error
    }

    /// `quit`, and the exit status (within `within`).
    fn quit(mut self, within: Duration) -> ExitStatus {
        self.send("quit");
        self.stdin = None;
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the engine did not exit within {within:?} of quit");
            }
            thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        // A failed test leaves no engine behind.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Replays a `checkmate` line with the reference: attacker moves are legal checks, defender
/// moves legal evasions, the last position mate and not by a pawn drop.
fn assert_mates(sfen: &str, line: &str) {
    let mut p = Position::from_sfen(sfen).unwrap();
    let moves: Vec<&str> = line.split_whitespace().collect();
    assert!(moves.len() % 2 == 1, "{sfen}: `{line}` has an even length");
    for (i, usi) in moves.iter().enumerate() {
        let set = tsume_moves(&p);
        let mv = set
            .moves
            .iter()
            .map(|m| m.mv)
            .find(|m| m.to_usi() == *usi)
            .unwrap_or_else(|| panic!("{sfen}: ply {} `{usi}` is not in the list of {p}", i + 1));
        if i % 2 == 0 {
            assert!(
                p.inner().gives_check_move(mv),
                "{sfen}: `{usi}` is no check"
            );
        }
        if i + 1 == moves.len() {
            assert_ne!(
                mv.dropped_piece(),
                Some(PieceType::PAWN),
                "{sfen}: pawn-drop mate"
            );
        }
        p = p.after(mv);
    }
    assert!(
        tsume_moves(&p).moves.is_empty(),
        "{sfen}: `{line}` ends in {p}, no mate"
    );
}

/// An infinite search of HARD, stopped after half a second: the engine reads commands while
/// it searches, and answers `checkmate timeout` within 2 s of the `stop`.
fn assert_stop_is_prompt(e: &mut Engine) {
    e.send(&format!("position sfen {HARD}"));
    e.send("go mate infinite");
    thread::sleep(Duration::from_millis(500));
    // The engine reads commands while it searches.
    e.send("isready");
    e.until("readyok", Duration::from_secs(5));
    let start = Instant::now();
    e.send("stop");
    assert_eq!(e.checkmate(PATIENCE), "timeout");
    let took = start.elapsed();
    assert!(
        took < Duration::from_secs(2),
        "stop answered after {took:?}"
    );
}

#[test]
fn handshake_and_quit() {
    let mut e = Engine::start();
    e.send("usi");
    let lines = e.until("usiok", PATIENCE);
    assert!(lines[0].starts_with("id name tsume-usi"), "{lines:?}");
    assert!(
        lines.iter().any(|l| l.starts_with("id author ")),
        "{lines:?}"
    );
    for option in [
        "USI_Hash type spin",
        "NodeLimit type spin",
        "Shortest type check",
    ] {
        let want = format!("option name {option}");
        assert!(
            lines.iter().any(|l| l.starts_with(&want)),
            "{want}: {lines:?}"
        );
    }
    e.send("setoption name USI_Hash value 32");
    e.send("isready");
    let lines = e.until("readyok", PATIENCE);
    assert_eq!(lines, ["readyok"], "setoption and isready say nothing else");
    e.send("usinewgame");
    e.send("gameover win");
    e.send("ponderhit");
    assert!(e.quit(PATIENCE).success());
}

/// Every mate-3 of the suite, answered with a mating line of 3 plies.
#[test]
fn mate_in_three_from_the_suite() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("problems");
    let mates: Vec<_> = load_suite(&dir)
        .unwrap()
        .into_iter()
        .filter(|p| p.expected == Expected::Mate(3))
        .collect();
    assert!(mates.len() >= 3, "{} mate-3 problems", mates.len());
    let mut e = Engine::start();
    e.send("usi");
    e.until("usiok", PATIENCE);
    // The suite's lengths count every interposition.
    e.send("setoption name Interpositions value every");
    e.send("isready");
    e.until("readyok", PATIENCE);
    for p in &mates {
        e.send("usinewgame");
        e.send(&format!("position sfen {}", p.sfen));
        e.send("go mate 60000");
        let line = e.checkmate(PATIENCE);
        assert_mates(&p.sfen, &line);
        assert_eq!(line.split_whitespace().count(), 3, "{}: `{line}`", p.id);
    }
    // A position given as moves from another one: the defender's king steps into the
    // mate in one.
    e.send(&format!("position sfen {BEFORE_MATE1} moves 6a5a"));
    e.send("go mate");
    assert_eq!(e.checkmate(PATIENCE), "G*5b");
    assert!(e.quit(PATIENCE).success());
}

#[test]
fn nomate_without_a_check() {
    let mut e = Engine::start();
    e.send(&format!("position sfen {NO_CHECK}"));
    e.send("go mate 10000");
    let lines = e.until("checkmate", PATIENCE);
    assert_eq!(lines.last().unwrap(), "checkmate nomate", "{lines:?}");
    assert!(
        lines.iter().any(|l| l.starts_with("info string no mate: ")),
        "a nomate says what was found: {lines:?}"
    );
    e.send("position startpos moves 7g7f 3c3d");
    e.send("go mate infinite");
    assert_eq!(e.checkmate(PATIENCE), "nomate");
    assert!(e.quit(PATIENCE).success());
}

/// Every `go mate` ends in a `checkmate` line, also one that cannot search: before any
/// position, after a refused one, with a bad time. The engine then solves on.
#[test]
fn every_go_mate_is_answered() {
    let mut e = Engine::start();
    for (before, go, says) in [
        (None, "go mate 1000", "no position yet"),
        (
            Some("position sfen 4k4/9/9 b"),
            "go mate infinite",
            "the last `position` was refused",
        ),
        (
            Some("position startpos moves 7g7f 7g7f"),
            "go mate",
            "the last `position` was refused",
        ),
        (
            Some(&format!("position sfen {MATE1}") as &str),
            "go mate soon",
            "`soon`",
        ),
    ] {
        if let Some(position) = before {
            e.send(position);
        }
        e.send(go);
        let lines = e.until("checkmate", PATIENCE);
        assert_eq!(
            lines.last().unwrap(),
            "checkmate timeout",
            "{go}: {lines:?}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info string error") && l.contains(says)),
            "{go}: {lines:?}"
        );
    }
    e.send(&format!("position sfen {MATE1}"));
    e.send("go mate 10000");
    let lines = e.until("checkmate", PATIENCE);
    assert_eq!(lines.last().unwrap(), "checkmate G*5b", "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l == "info string mate in 1 ply by the composers' rule, the shortest"),
        "{lines:?}"
    );
    assert!(e.quit(PATIENCE).success());
}

/// The largest `USI_Hash` announced works; a larger one is refused at `setoption` with the
/// table kept; the engine answers on.
#[test]
fn hash_sizes_are_checked_and_the_maximum_works() {
    let mut e = Engine::start();
    e.send("usi");
    let lines = e.until("usiok", PATIENCE);
    let most: usize = hash_max(&lines);
    assert!(most >= 16, "{lines:?}");
    let error = e.refused("setoption name USI_Hash value 65536");
    assert!(
        error.contains("USI_Hash `65536`") && error.contains(&format!("1 to {most}")),
        "{error}"
    );
    e.send(&format!("setoption name USI_Hash value {most}"));
    e.send("isready");
    let lines = e.until("readyok", PATIENCE);
    assert_eq!(lines, ["readyok"], "the announced maximum is allocated");
    e.send(&format!("position sfen {MATE1}"));
    e.send("go mate 60000");
    assert_eq!(e.checkmate(PATIENCE), "G*5b");
    assert!(e.quit(PATIENCE).success());
}

/// A table the process cannot allocate (its address space limited below it) is answered
/// with an `info string error` naming the size; the table goes back to the last size that
/// fitted, and the engine solves on.
#[test]
fn a_table_that_cannot_be_allocated_is_refused() {
    let bin = env!("CARGO_BIN_EXE_tsume-usi");
    let mut shell = Command::new("sh");
    shell
        .arg("-c")
        .arg(format!("ulimit -v {}; exec '{bin}'", 600 * 1024));
    let mut e = Engine::spawn(shell);
    e.send("usi");
    let lines = e.until("usiok", PATIENCE);
    let most = hash_max(&lines);
    if most < 1024 {
        eprintln!("skipped: this machine announces USI_Hash up to {most} MiB only");
        return;
    }
    e.send("setoption name USI_Hash value 1024");
    e.send("isready");
    let lines = e.until("readyok", PATIENCE);
    assert!(
        lines.iter().any(
            |l| l.starts_with("info string error: USI_Hash 1024: a table of")
                && l.contains("the table is 16 MiB now")
        ),
        "{lines:?}"
    );
    e.send(&format!("position sfen {MATE1}"));
    e.send("go mate 60000");
    let lines = e.until("checkmate", PATIENCE);
    assert_eq!(lines.last().unwrap(), "checkmate G*5b", "{lines:?}");
    assert!(e.quit(PATIENCE).success());
}

/// The largest `USI_Hash` of the `usi` answer.
fn hash_max(lines: &[String]) -> usize {
    let line = lines
        .iter()
        .find(|l| l.starts_with("option name USI_Hash "))
        .unwrap_or_else(|| panic!("no USI_Hash: {lines:?}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|&w| w == "max").expect("a max");
    words[at + 1].parse().expect("a number")
}

#[test]
fn limits_answer_timeout() {
    let mut e = Engine::start();
    e.send(&format!("position sfen {HARD}"));
    let start = Instant::now();
    e.send("go mate 1");
    assert_eq!(e.checkmate(PATIENCE), "timeout");
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );

    assert_times_out(&mut e, "NodeLimit value 1", MATE1, "node limit");
    e.send("setoption name NodeLimit value 0");
    e.send("go mate infinite");
    assert_eq!(e.checkmate(PATIENCE), "G*5b");

    // Frames for 1 ply: a mate in 3 (every interposition counted) is beyond them.
    e.send("setoption name Interpositions value every");
    assert_beyond_one_ply(&mut e, "8k/6+R2/9/9/9/9/9/9/9 b Brb4g4s4n4l18p 1");
    e.send("go mate infinite");
    let line = e.checkmate(PATIENCE);
    assert_mates("8k/6+R2/9/9/9/9/9/9/9 b Brb4g4s4n4l18p 1", &line);
    assert!(e.quit(PATIENCE).success());
}

#[test]
fn stop_ends_an_infinite_search_promptly() {
    let mut e = Engine::start();
    assert_stop_is_prompt(&mut e);
    // The engine solves on after a stop.
    e.send(&format!("position sfen {MATE1}"));
    e.send("go mate infinite");
    assert_eq!(e.checkmate(PATIENCE), "G*5b");
    // A stop with no search running is ignored.
    e.send("stop");
    e.send("isready");
    assert_eq!(e.until("readyok", PATIENCE), ["readyok"]);
    assert!(e.quit(PATIENCE).success());
}

#[test]
fn quit_during_a_search_exits_zero() {
    let mut e = Engine::start();
    e.send(&format!("position sfen {HARD}"));
    e.send("go mate infinite");
    thread::sleep(Duration::from_millis(300));
    assert!(e.quit(Duration::from_secs(5)).success());
}

#[test]
fn bad_input_is_named_and_the_engine_stays_up() {
    let mut e = Engine::start();
    let error = e.refused("go mate 1000");
    assert!(error.contains("no position yet"), "{error}");
    let error = e.refused("solve now");
    assert!(error.contains("unknown command `solve`"), "{error}");
    let error = e.refused("position sfen 4k4/9/9 b");
    assert!(error.contains("position sfen 4k4/9/9 b"), "{error}");
    let error = e.refused("go mate 1000");
    assert!(error.contains("the last `position` was refused"), "{error}");
    let error = e.refused("position startpos moves 7g7f 7g7f");
    assert!(error.contains("move 2 of the moves"), "{error}");
    let error = e.refused("setoption name Threads value 4");
    assert!(
        error.contains("`Threads`") && error.contains("USI_Hash"),
        "{error}"
    );
    let error = e.refused("setoption name USI_Hash value lots");
    assert!(error.contains("USI_Hash `lots`"), "{error}");
    e.send(&format!("position sfen {MATE1}"));
    let error = e.refused("go mate soon");
    assert!(error.contains("`soon`"), "{error}");
    // A search is running: a second go is refused with an answer of its own, the first
    // answers when it ends.
    e.send(&format!("position sfen {HARD}"));
    e.send("go mate 20000");
    e.send("go mate 1000");
    let lines = e.until("checkmate", PATIENCE);
    assert!(
        lines.iter().any(|l| l.contains("a search is running")),
        "{lines:?}"
    );
    assert_eq!(lines.last().unwrap(), "checkmate timeout", "{lines:?}");
    e.send("stop");
    assert_eq!(e.checkmate(PATIENCE), "timeout");
    // A game's go is answered with a resignation, not a hang.
    e.send("go btime 1000 wtime 1000 byoyomi 1000");
    let lines = e.until("bestmove", PATIENCE);
    assert_eq!(lines.last().unwrap(), "bestmove resign", "{lines:?}");
    e.send(&format!("position sfen {MATE1}"));
    e.send("go mate 10000");
    assert_eq!(e.checkmate(PATIENCE), "G*5b");
    assert!(e.quit(PATIENCE).success());
}

/// The `info time` nodes and the `checkmate` answer of a `go mate`, and every line.
fn solve(e: &mut Engine, sfen: &str, within: Duration) -> (u64, String, Vec<String>) {
    e.send(&format!("position sfen {sfen}"));
    e.send("go mate 600000");
    let lines = e.until("checkmate", within);
    let info = lines
        .iter()
        .find(|l| l.starts_with("info time "))
        .unwrap_or_else(|| panic!("{sfen}: no `info time`: {lines:?}"));
    let words: Vec<&str> = info.split_whitespace().collect();
    let at = words.iter().position(|&w| w == "nodes").unwrap();
    let nodes = words[at + 1].parse().unwrap();
    let answer = lines.last().unwrap()["checkmate".len()..]
        .trim()
        .to_string();
    (nodes, answer, lines)
}

/// `Engine chip`: a mate in 1 and a mate in 3 solved on the simulated chip give the
/// model's line and node count; `stop` and `quit` end a chip search.
#[test]
fn the_chip_answers_as_the_model() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("problems");
    let mate3 = load_suite(&dir)
        .unwrap()
        .into_iter()
        .find(|p| p.expected == Expected::Mate(3))
        .expect("a mate-3 problem in the suite")
        .sfen;
    let mut e = Engine::start();
    e.send("usi");
    let lines = e.until("usiok", PATIENCE);
    let want = "option name Engine type combo default model var model var chip var board";
    assert!(lines.iter().any(|l| l == want), "{lines:?}");
    let problems = [MATE1, mate3.as_str()];
    let model: Vec<_> = problems
        .iter()
        .map(|p| solve(&mut e, p, PATIENCE))
        .collect();
    e.send("setoption name Engine value chip");
    e.send("isready");
    e.until("readyok", PATIENCE);
    for (i, sfen) in problems.iter().enumerate() {
        // The first solve may wait for Verilator to build the chip's model (minutes);
        // later ones load it from marlin's cache.
        let (nodes, answer, lines) = solve(&mut e, sfen, Duration::from_secs(900));
        assert_eq!(answer, model[i].1, "{sfen}: the chip's line: {lines:?}");
        assert_eq!(nodes, model[i].0, "{sfen}: the chip's nodes: {lines:?}");
        assert_mates(sfen, &answer);
        assert!(
            lines.iter().any(|l| l.starts_with("info string chip: ")
                && l.contains(" cycles ")
                && l.contains(" MHz")),
            "{lines:?}"
        );
    }
    // Fewer plies than the chip's frames: the mate in 3 is beyond 1 ply, on the chip too.
    assert_beyond_one_ply(&mut e, &mate3);
    // A stop during a chip search answers at once.
    assert_stop_is_prompt(&mut e);
    // Back on the model, then a quit during a chip search.
    e.send("setoption name Engine value model");
    e.send(&format!("position sfen {MATE1}"));
    e.send("go mate 10000");
    let lines = e.until("checkmate", PATIENCE);
    assert_eq!(lines.last().unwrap(), "checkmate G*5b", "{lines:?}");
    assert!(
        !lines.iter().any(|l| l.starts_with("info string chip")),
        "the model answers: {lines:?}"
    );
    e.send("setoption name Engine value chip");
    e.send(&format!("position sfen {HARD}"));
    e.send("go mate infinite");
    thread::sleep(Duration::from_millis(300));
    assert!(e.quit(Duration::from_secs(5)).success());
}

/// `Engine` set during a chip search applies after it: the search still answers `stop`
/// promptly, `isready` and `quit` are answered, and the next `go mate` searches with the
/// engine that was set (the board at a port that cannot be opened, then the model).
#[test]
fn engine_set_during_a_chip_search_applies_after_it() {
    let mut e = Engine::start();
    e.send("setoption name BoardPort value /nonexistent/ttyUSB9");
    e.send("setoption name Engine value chip");
    // The chip is built (or loaded from marlin's cache) and searches before the option.
    let (_, answer, _) = solve(&mut e, MATE1, Duration::from_secs(900));
    assert_eq!(answer, "G*5b");
    e.send(&format!("position sfen {HARD}"));
    e.send("go mate infinite");
    thread::sleep(Duration::from_millis(300));
    e.send("setoption name Engine value board");
    let start = Instant::now();
    e.send("stop");
    let lines = e.until("checkmate", Duration::from_secs(5));
    assert_eq!(lines.last().unwrap(), "checkmate timeout", "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string setoption")
                && l.contains("after the running search")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("info string chip: ")),
        "the chip answers the stop: {lines:?}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "{:?}",
        start.elapsed()
    );
    e.send("isready");
    e.until("readyok", Duration::from_secs(5));
    // The board now: its port cannot be opened.
    e.send(&format!("position sfen {MATE1}"));
    e.send("go mate 10000");
    let lines = e.until("checkmate", PATIENCE);
    assert_eq!(lines.last().unwrap(), "checkmate timeout", "{lines:?}");
    assert!(
        lines.iter().any(|l| l.contains("/nonexistent/ttyUSB9")),
        "{lines:?}"
    );
    // Back to the chip, then the model set during its search.
    e.send("setoption name Engine value chip");
    e.send(&format!("position sfen {HARD}"));
    e.send("go mate infinite");
    thread::sleep(Duration::from_millis(300));
    e.send("setoption name Engine value model");
    e.send("stop");
    assert_eq!(e.checkmate(Duration::from_secs(5)), "timeout");
    e.send(&format!("position sfen {MATE1}"));
    e.send("go mate 10000");
    let lines = e.until("checkmate", PATIENCE);
    assert_eq!(lines.last().unwrap(), "checkmate G*5b", "{lines:?}");
    assert!(
        !lines.iter().any(|l| l.starts_with("info string chip")),
        "the model answers: {lines:?}"
    );
    // A quit during a chip search with an Engine change pending exits.
    e.send("setoption name Engine value chip");
    e.send(&format!("position sfen {HARD}"));
    e.send("go mate infinite");
    thread::sleep(Duration::from_millis(300));
    e.send("setoption name Engine value board");
    assert!(e.quit(Duration::from_secs(5)).success());
}

/// With the option `option` (`Name value V`) set, `go mate` on `sfen` answers `checkmate
/// timeout` and gives the reason `reason`.
fn assert_times_out(e: &mut Engine, option: &str, sfen: &str, reason: &str) {
    e.send(&format!("setoption name {option}"));
    e.send(&format!("position sfen {sfen}"));
    e.send("go mate infinite");
    let lines = e.until("checkmate", PATIENCE);
    assert_eq!(lines.last().unwrap(), "checkmate timeout", "{lines:?}");
    assert!(
        lines.iter().any(|l| l.contains(reason)),
        "the reason ({reason}) is given: {lines:?}"
    );
}

/// With `MaxPlies 2` (frames for 1 ply) the mate of `sfen` (3 plies or more) is beyond the
/// frames, and the option is named; `MaxPlies` is then 64 again.
fn assert_beyond_one_ply(e: &mut Engine, sfen: &str) {
    assert_times_out(e, "MaxPlies value 2", sfen, "raise the option MaxPlies");
    e.send("setoption name MaxPlies value 64");
}

/// Without the chip's files, `Engine chip` is refused with the fix and the model answers.
#[test]
fn the_chip_without_verilator_is_refused() {
    let mut e = Engine::start_with(&[("TSUME_VERILATOR", "/nonexistent/verilator")]);
    let error = e.refused("setoption name Engine value chip");
    assert!(
        error.contains("Engine chip") && error.contains("cargo xtask setup"),
        "{error}"
    );
    e.send(&format!("position sfen {MATE1}"));
    e.send("go mate 10000");
    let lines = e.until("checkmate", PATIENCE);
    assert_eq!(lines.last().unwrap(), "checkmate G*5b", "{lines:?}");
    assert!(e.quit(PATIENCE).success());
}

/// `Engine board` needs `BoardPort`; a port that cannot be opened is named in the answer
/// of `go mate`, which ends `checkmate timeout`; the model then answers again.
#[test]
fn the_board_without_a_port_is_refused() {
    let mut e = Engine::start();
    e.send("usi");
    let lines = e.until("usiok", PATIENCE);
    assert!(
        lines
            .iter()
            .any(|l| l.contains("option name Engine") && l.contains("var board")),
        "{lines:?}"
    );
    assert!(lines.iter().any(|l| l.contains("option name BoardPort")));
    e.send("setoption name Engine value board");
    e.send(&format!("position sfen {MATE1}"));
    e.send("go mate 10000");
    let lines = e.until("checkmate", PATIENCE);
    assert_eq!(lines.last().unwrap(), "checkmate timeout", "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("BoardPort")), "{lines:?}");
    e.send("setoption name BoardPort value /nonexistent/ttyUSB9");
    e.send("go mate 10000");
    let lines = e.until("checkmate", PATIENCE);
    assert_eq!(lines.last().unwrap(), "checkmate timeout", "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l.contains("/nonexistent/ttyUSB9") && l.contains("cannot open")),
        "{lines:?}"
    );
    // A port that failed is opened again when BoardPort is set again: first missing, then
    // there (a plain file, no serial port: another error, so a new attempt).
    let port = std::env::temp_dir().join(format!("tsume-usi-port-{}", std::process::id()));
    let _ = std::fs::remove_file(&port);
    e.send(&format!(
        "setoption name BoardPort value {}",
        port.display()
    ));
    e.send("go mate 10000");
    let missing = e.until("checkmate", PATIENCE);
    assert!(
        missing.iter().any(|l| l.contains("No such file")),
        "{missing:?}"
    );
    std::fs::write(&port, b"").unwrap();
    e.send(&format!(
        "setoption name BoardPort value {}",
        port.display()
    ));
    e.send("go mate 10000");
    let there = e.until("checkmate", PATIENCE);
    std::fs::remove_file(&port).ok();
    assert_eq!(there.last().unwrap(), "checkmate timeout", "{there:?}");
    assert!(
        there.iter().any(|l| l.contains("cannot open"))
            && !there.iter().any(|l| l.contains("No such file")),
        "the port opened again: {there:?}"
    );
    e.send("setoption name Engine value model");
    e.send("go mate 10000");
    let lines = e.until("checkmate", PATIENCE);
    assert_eq!(lines.last().unwrap(), "checkmate G*5b", "{lines:?}");
    assert!(e.quit(PATIENCE).success());
}

/// The composers' rule is the engine's default: the sample whose only replies are futile
/// drops is a mate in 1 by the rule (one of the exhaustive search's mates in 1 under it),
/// and an `info string` names the drops left out; `Interpositions every` counts them, a
/// mate of 3 plies that the reference checks move by move.
#[test]
fn futile_interpositions_are_left_out_by_default() {
    use tsume::futile::Rule;
    use tsume::solver::Kind;
    use tsume::solver::line_walk::check_line;
    let sample = "8k/6+R2/9/9/9/9/9/9/9 b Brb4g4s4n4l18p 1";
    let pos = Position::from_sfen(sample).unwrap();
    let mut e = Engine::start();
    let (_, answer, lines) = solve(&mut e, sample, PATIENCE);
    let mates = tsume::mate::mating_moves_under(&pos, 1, Rule::Composers);
    assert!(
        mates.iter().any(|m| m.to_usi() == answer),
        "{answer}: {lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info string futile interpositions left out after ply 1: ")),
        "{lines:?}"
    );
    e.send("setoption name Interpositions value every");
    let (_, answer, _) = solve(&mut e, sample, PATIENCE);
    let line: Vec<_> = answer.split_whitespace().map(common::mv).collect();
    assert_eq!(line.len(), 3, "{answer}");
    check_line(&pos, Kind::Or, Rule::EveryInterposition, &line).unwrap();
    assert!(e.quit(PATIENCE).success());
}
