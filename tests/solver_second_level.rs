//! The table's second level (docs/search.md, "The second level (the board's SDRAM)"), the
//! model's: behind a tiny first level it proves the suite as a one-level table of the
//! second level's size does, at the same lengths, with fewer nodes than the tiny first
//! level alone; the board's geometry in swim.toml has one, and the chip refuses it.

mod common;

use std::path::Path;

use tsume::problems::{Expected, load_suite};
use tsume::project::Manifest;
use tsume::solver::{Config, Counters, Root, Solver};

fn config() -> Config {
    Config::from_manifest(&Path::new(env!("CARGO_MANIFEST_DIR")).join("swim.toml"))
        .expect("swim.toml has a [search] table")
}

/// swim.toml's switches with a table of 2^`bits` sets and a second level of 2^`second`.
fn table(c: Config, bits: u32, second: u32) -> Config {
    Config {
        tt_index_bits: bits,
        tt2_index_bits: second,
        ..c
    }
}

/// A default run solves every other suite problem (`common::share`; all with `TSUME_LONG`).
const SUITE_SHARE: usize = 2;

/// The suite's problems (but the long ones; a share of them, see [`SUITE_SHARE`]) in
/// shortest mode on three tables of `c`'s switches: 2^16 sets alone, 2^4 sets alone, 2^4
/// sets and 2^16 slots behind. The two levels answer as the large table (result,
/// shortest, length, the expected mate); the second level is read, answers, and saves
/// nodes over the small table alone.
fn two_levels_answer_as_the_large_table(c: Config) {
    let mut large = Solver::new(table(c, 16, 0));
    let mut small = Solver::new(table(c, 4, 0));
    let mut two = Solver::new(table(c, 4, 16));
    let limits = common::limits(5_000_000, true, Root::Attacker);
    let (mut nodes, mut sum) = ([0u64; 3], Counters::default());
    let mut solved = 0;
    let seed = tsume::random::seed_from_env();
    let problems = common::suite_share(SUITE_SHARE, seed);
    for (p, pos) in &problems {
        let want = large.solve(pos, limits);
        let alone = small.solve(pos, limits);
        let out = two.solve(pos, limits);
        let what = format!("{}: {:?} (large table {:?})", p.id, out.result, want.result);
        assert_eq!(out.result, want.result, "{what}");
        assert_eq!(out.shortest, want.shortest, "{what}");
        assert_eq!(out.pv.len(), want.pv.len(), "{what}");
        if let Expected::Mate(n) = p.expected {
            assert_eq!(out.pv.len() as u32, n, "{what}");
        }
        let c = out.counters;
        assert!(
            c.l2_reads <= c.probes && c.l2_hits + c.l2_empty <= c.l2_reads,
            "{what} {c:?}"
        );
        assert_eq!(
            want.counters.l2_reads + want.counters.write_backs,
            0,
            "{what}"
        );
        nodes[0] += want.counters.nodes;
        nodes[1] += alone.counters.nodes;
        nodes[2] += c.nodes;
        sum.l2_reads += c.l2_reads;
        sum.l2_hits += c.l2_hits;
        sum.write_backs += c.write_backs;
        solved += 1;
    }
    let what = format!("large / small / two levels: nodes {nodes:?}; {sum:?} (TSUME_SEED={seed})");
    eprintln!("{what}");
    assert!(solved > 25, "{what}");
    assert!(nodes[2] < nodes[1] / 10, "{what}");
    assert!(
        sum.l2_hits > 0 && sum.write_backs > 0 && sum.l2_reads > sum.l2_hits,
        "{what}"
    );
}

#[test]
fn two_levels_answer_as_the_large_table_keyed_by_plies() {
    two_levels_answer_as_the_large_table(Config {
        hand_superiority: false,
        depth_free: false,
        ..config()
    });
}

#[test]
fn two_levels_answer_as_the_large_table_depth_free() {
    let c = config();
    assert!(c.depth_free, "swim.toml's table");
    two_levels_answer_as_the_large_table(c);
}

#[test]
fn two_levels_answer_as_the_large_table_with_hand_superiority() {
    two_levels_answer_as_the_large_table(Config {
        hand_superiority: true,
        depth_free: true,
        ..config()
    });
}

/// swim.toml: [search] has no second level; the default board's model has 2^10 sets and
/// 2^20 slots; the chip refuses a second level.
#[test]
fn the_board_has_a_second_level_the_chip_does_not_yet() {
    let c = config();
    assert_eq!(c.tt2_index_bits, 0);
    let manifest = Manifest::load(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
    let board = manifest.board_model(None).unwrap();
    assert_eq!((board.tt_index_bits, board.tt2_index_bits), (10, 20));
    assert_eq!(manifest.board_search(None).unwrap().tt2_index_bits, 0);
    let e = board.check_chip().unwrap_err().to_string();
    assert!(
        e.contains("the chip has no second level yet (issue 76)"),
        "{e}"
    );
    let why = tsume::chip::solver::chip_takes(c, table(c, 10, 20)).unwrap_err();
    assert!(
        why.contains("the chip has no second level yet (issue 76)"),
        "{why}"
    );
    tsume::chip::solver::chip_takes(c, table(c, 10, 0)).unwrap();
    let e = table(c, 10, 33).check().unwrap_err().to_string();
    assert!(e.contains("tt2_index_bits = 33"), "{e}");
}

/// A suite problem's SFEN.
fn suite_sfen(id: &str) -> String {
    load_suite(&Path::new(env!("CARGO_MANIFEST_DIR")).join("problems"))
        .unwrap()
        .into_iter()
        .find(|p| p.id == id)
        .unwrap_or_else(|| panic!("no problem {id} in the suite"))
        .sfen
}

/// `cargo xtask solve --engine model --board` and `--tt2-bits`: the report's and the JSON's
/// second level; the chip and `--tt-entries` refuse `--board`.
#[test]
fn solve_searches_the_model_with_the_boards_table() {
    use common::{json_lines, solve_on_model, text, xtask_with_input};
    let sfen = suite_sfen("tsume5-bishop-rook");
    let out = solve_on_model(&["--board", "--sfen", &sfen], "");
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("4096 entries (4 ways)"), "{stdout}");
    assert!(stdout.contains("second level of 2^20 slots"), "{stdout}");
    assert!(stdout.contains("level2: first level answered"), "{stdout}");
    // A tiny first level evicts: the second level is written and answers.
    let out = solve_on_model(
        &[
            "--tt-entries",
            "16",
            "--tt2-bits",
            "12",
            "--json",
            "--sfen",
            &sfen,
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let line = &json_lines(&text(&out.stdout))[0];
    assert_eq!(line["result"], "mate", "{line}");
    let l2 = &line["level_two"];
    let get = |k: &str| l2[k].as_u64().unwrap_or_else(|| panic!("{k} in {line}"));
    assert!(get("write_backs") > 0 && get("hits") > 0, "{line}");
    assert!(get("reads") <= line["probes"].as_u64().unwrap(), "{line}");
    // Without a second level, no such field.
    let out = solve_on_model(&["--json", "--sfen", &sfen], "");
    let line = &json_lines(&text(&out.stdout))[0];
    assert!(line.get("level_two").is_none(), "{line}");
    // The chip has none; --board is the board's table, not --tt-entries'.
    let out = xtask_with_input(&["solve", "--board", "--sfen", &sfen], "");
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("no second level yet (issue 76)"),
        "{stderr}"
    );
    let out = solve_on_model(&["--board", "--tt-entries", "64", "--sfen", &sfen], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("cannot be used with"),
        "{}",
        text(&out.stderr)
    );
}
