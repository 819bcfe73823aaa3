//! The composer's answers from the command line (`cargo xtask solve` on the model): the
//! length by the composers' rule and the interpositions left out, `--every-interposition`,
//! `--alternatives` (checked against the exhaustive search), and the report of one problem
//! file. Every line printed is checked by the library's reference.

mod common;

use common::{json_lines, pos, solve_on_model, text};
use rsshogi::types::Move;
use serde_json::Value;
use tsume::futile::{Rule, is_futile};
use tsume::mate::mating_moves_under;
use tsume::solver::Kind;
use tsume::solver::line_walk::check_line;

const SAMPLE: &str = "8k/6+R2/9/9/9/9/9/9/9 b Brb4g4s4n4l18p 1";

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
