//! The composer's answers from the command line (`cargo xtask solve` on the model): the
//! length by the composers' rule and the interpositions left out, the length counting
//! every interposition beside it, `--every-interposition`,
//! `--alternatives` (checked against the exhaustive search), and the report of one problem
//! file. Every line printed is checked by the library's reference.

mod common;

use common::{json_lines, pos, solve_on_model, text};
use rsshogi::types::Move;
use serde_json::Value;
use tsume::futile::{Rule, is_futile};
use tsume::mate::{mate_length, mate_length_under, mating_moves_under};
use tsume::solver::Kind;
use tsume::solver::line_walk::check_line;

const SAMPLE: &str = "8k/6+R2/9/9/9/9/9/9/9 b Brb4g4s4n4l18p 1";
/// A plain mate in 1 (G*5b): no interposition, none left out.
const PLAIN: &str = "4k4/9/4P4/9/9/9/9/9/9 b G 1";

fn moves(v: &Value) -> Vec<Move> {
    v.as_array()
        .expect("a list of moves")
        .iter()
        .map(|m| common::mv(m.as_str().expect("a USI move")))
        .collect()
}

/// The sample is a mate in 1 by the rule: JSON `length` 1 beside `plies`, the rule named,
/// the seven drops left out after ply 1 each futile; with --every-interposition the mate
/// is 3 plies and no `length` is claimed.
#[test]
fn the_rule_is_the_default_and_every_interposition_counts_them() {
    let out = solve_on_model(&["--sfen", SAMPLE, "--json"], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let a = &json_lines(&text(&out.stdout))[0];
    assert_eq!(
        (a["plies"].as_u64(), a["length"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(a["rule"], "composers");
    let p = pos(SAMPLE);
    let pv = moves(&a["pv"]);
    check_line(&p, Kind::Or, Rule::Composers, &pv).unwrap();
    let gaps = a["left_out"].as_array().expect("left_out");
    assert_eq!(gaps.len(), 1);
    assert_eq!(gaps[0]["ply"], 1);
    let after = p.after(pv[0]);
    let left_out = moves(&gaps[0]["moves"]);
    assert_eq!(left_out.len(), 7);
    for m in left_out {
        assert!(
            is_futile(&mut after.inner().clone_compact(), m),
            "{}",
            m.to_usi()
        );
    }

    let out = solve_on_model(&["--sfen", SAMPLE, "--json", "--every-interposition"], "");
    let a = &json_lines(&text(&out.stdout))[0];
    assert_eq!(a["plies"].as_u64(), Some(3));
    assert!(
        a.get("length").is_none() && a.get("left_out").is_none(),
        "{a}"
    );
    assert_eq!(a["rule"], "every interposition");
    check_line(&p, Kind::Or, Rule::EveryInterposition, &moves(&a["pv"])).unwrap();

    let out = solve_on_model(&["--sfen", SAMPLE], "");
    let report = text(&out.stdout);
    assert!(
        report.contains("mate in 1 by the composers' rule (shortest)"),
        "{report}"
    );
    assert!(
        report.contains("futile interpositions left out after ply 1: P*2b"),
        "{report}"
    );
}

/// `--alternatives` on the project's problem file: each alternative is one of the
/// exhaustive search's mating moves at its ply (the line's own move aside) and its line
/// mates; the report of one .kif file names the problem and lists them; --first-mate with
/// --alternatives is refused.
#[test]
fn alternatives_are_the_exhaustive_searchs_and_a_kif_file_gets_the_report() {
    let file = common::data_dir().join("problems/mate3.kif");
    let file = file.to_str().unwrap();
    let out = solve_on_model(&["--positions", file, "--json", "--alternatives"], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let a = &json_lines(&text(&out.stdout))[0];
    let p = pos(a["sfen"].as_str().unwrap());
    let pv = moves(&a["pv"]);
    let checks = &a["checks"];
    assert_eq!(checks["complete"], true);
    let found = checks["alternatives"].as_array().unwrap();
    assert!(!found.is_empty(), "{a}");
    let mut at = p.clone();
    for (i, &mv) in pv.iter().enumerate().step_by(2) {
        let left = (pv.len() - i) as u32;
        let mut want: Vec<String> = mating_moves_under(&at, left, Rule::Composers)
            .into_iter()
            .filter(|&m| m != mv)
            .map(|m| m.to_usi())
            .collect();
        let mut have: Vec<String> = found
            .iter()
            .filter(|x| x["ply"] == i + 1 && x.get("variation").is_none())
            .map(|x| x["move"].as_str().unwrap().to_string())
            .collect();
        want.sort();
        have.sort();
        assert_eq!(have, want, "ply {}", i + 1);
        at = at.after(mv);
        if let Some(&reply) = pv.get(i + 1) {
            at = at.after(reply);
        }
    }
    for x in found.iter().filter(|x| x.get("variation").is_none()) {
        let ply = x["ply"].as_u64().unwrap() as usize;
        let mut line = pv[..ply - 1].to_vec();
        line.extend(moves(&x["line"]));
        check_line(&p, Kind::Or, Rule::Composers, &line).unwrap();
        assert_eq!(x["last"], ply == pv.len());
    }

    let out = solve_on_model(
        &["--positions", file, "--alternatives", "--notation", "ja"],
        "",
    );
    let report = text(&out.stdout);
    assert!(out.status.success(), "{report}{}", text(&out.stderr));
    for want in [
        "problem: ",
        "mate3.kif",
        "line:   1 ▲",
        "alternatives: ",
        "variations of equal length: ",
        "checks: ",
    ] {
        assert!(report.contains(want), "no `{want}` in:\n{report}");
    }

    let out = solve_on_model(&["--sfen", SAMPLE, "--alternatives", "--first-mate"], "");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("--first-mate"));
}

/// Both lengths of a shortest mate by the rule, each the exhaustive search's: the
/// sample's line left the drops on 2b out, and a second search counts them (`length` 1,
/// `every_interposition_plies` 3, its line in the `every:` line checked by the reference,
/// its nodes apart from the solve's); a plain mate in 1 left nothing out and is 1 ply by
/// both, no second search. When that search ends at the limits (frames of 2 plies), the
/// field is absent and the report says the length is unknown.
#[test]
fn a_mate_by_the_rule_gives_its_length_counting_every_interposition_too() {
    for (sfen, by_rule, every, searched) in [(SAMPLE, 1, 3, true), (PLAIN, 1, 1, false)] {
        let p = pos(sfen);
        assert_eq!(mate_length_under(&p, 5, Rule::Composers), Some(by_rule));
        assert_eq!(mate_length(&p, 5), Some(every));

        let out = solve_on_model(&["--sfen", sfen, "--json"], "");
        assert!(out.status.success(), "{}", text(&out.stderr));
        let a = &json_lines(&text(&out.stdout))[0];
        assert_eq!(a["proven_shortest"], true, "{a}");
        assert_eq!(
            (
                a["length"].as_u64(),
                a["every_interposition_plies"].as_u64()
            ),
            (Some(u64::from(by_rule)), Some(u64::from(every))),
            "{a}"
        );
        let second = a["every_interposition_nodes"].as_u64();
        assert_eq!(second.is_some(), searched, "{a}");
        if let Some(nodes) = second {
            assert!(nodes > 0 && Some(nodes) != a["nodes"].as_u64(), "{a}");
        }

        let out = solve_on_model(&["--sfen", sfen], "");
        let report = text(&out.stdout);
        let plies = if every == 1 { "ply" } else { "plies" };
        let want = format!(
            "result: mate in {by_rule} by the composers' rule (shortest); {every} {plies} \
             counting every interposition\n"
        );
        assert!(report.contains(&want), "no `{want}` in:\n{report}");
        let line = report
            .lines()
            .find_map(|l| l.strip_prefix("every:  "))
            .unwrap_or_else(|| panic!("no `every:` line in:\n{report}"));
        let head = format!("{every} {plies} counting every interposition: ");
        let rest = line.strip_prefix(&head).unwrap_or_else(|| panic!("{line}"));
        if searched {
            let (moves, cost) = rest.split_once("; ").expect("the line, then the cost");
            let moves: Vec<Move> = moves.split_whitespace().map(common::mv).collect();
            assert_eq!(moves.len(), every as usize, "{line}");
            check_line(&p, Kind::Or, Rule::EveryInterposition, &moves).unwrap();
            assert!(cost.starts_with("a second search: "), "{line}");
        } else {
            assert!(rest.contains("no second search"), "{line}");
        }
    }

    let out = solve_on_model(&["--sfen", SAMPLE, "--json", "--max-plies", "3"], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let a = &json_lines(&text(&out.stdout))[0];
    assert_eq!(
        (a["length"].as_u64(), a["proven_shortest"].as_bool()),
        (Some(1), Some(true))
    );
    assert!(a.get("every_interposition_plies").is_none(), "{a}");
    let out = solve_on_model(&["--sfen", SAMPLE, "--max-plies", "3"], "");
    let report = text(&out.stdout);
    assert!(
        report.contains(
            "result: mate in 1 by the composers' rule (shortest); every-interposition length \
             unknown within the limits"
        ),
        "{report}"
    );
}
