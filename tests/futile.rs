//! Futile interpositions (docs/search.md, "Futile interpositions"): the rule's worked
//! examples; an independent reading of the rule (no memo, the reference's move lists)
//! judging every evasion of fresh random positions as `tsume::futile` does; the model's
//! shortest lengths under the rule equal to the exhaustive search's, on fresh random
//! positions, with the keyed table and the pieces table.

mod common;

use common::{mv, pos};
use rsshogi::types::{Bitboard, Move};
use tsume::futile::{Rule, is_futile, left_out};
use tsume::mate::{mate_length_under, mating_moves_under};
use tsume::position::Position;
use tsume::random::{Kind as Draw, TsumeGenerator, seed_from_env};
use tsume::reference::tsume_moves;
use tsume::solver::line_walk::check_line;
use tsume::solver::{Config, Kind, Limits, SearchResult, Solver};

/// The rule as docs/search.md states it, read again without sharing code with
/// `tsume::futile`: an interposition (a move other than the king's, or a drop, to a square
/// strictly between the one checker and the king) is futile if some attacker move to that
/// square that gives check leaves the defender mated at once under the rule.
fn futile_by_the_text(p: &Position, m: Move) -> bool {
    let b = p.inner();
    let checkers: Vec<_> = b.checkers().iter().collect();
    let king = p.king_square(p.side_to_move()).expect("a king");
    if checkers.len() != 1 || (!m.is_drop() && m.from_sq() == king) {
        return false;
    }
    if !Bitboard::between(checkers[0], king).test(m.to_sq()) {
        return false;
    }
    let after = p.after(m);
    let captures: Vec<Move> = tsume_moves(&after)
        .moves
        .iter()
        .map(|c| c.mv)
        .filter(|&c| c.to_sq() == m.to_sq() && after.inner().gives_check_move(c))
        .collect();
    captures
        .into_iter()
        .any(|c| mated_by_the_text(&after.after(c)))
}

fn mated_by_the_text(q: &Position) -> bool {
    tsume_moves(q)
        .moves
        .iter()
        .all(|e| futile_by_the_text(q, e.mv))
}

fn shortest(nodes: u64) -> Limits {
    Limits {
        nodes,
        shortest: true,
        ..Limits::default()
    }
}

fn solver(config: Config, rule: Rule) -> Solver {
    let mut s = Solver::new(config);
    s.set_interpositions(rule);
    s
}

fn usi(moves: &[Move]) -> Vec<String> {
    moves.iter().map(|m| m.to_usi()).collect()
}

/// The sample: after B*3c every drop on 2b is taken by the dragon with mate, so
/// B*3c is a mate in 1 by the rule and in 3 counting every interposition. The line says
/// which interpositions it left out: the seven drops on 2b after ply 1.
#[test]
fn a_drop_the_dragon_takes_with_mate_is_futile() {
    let p = pos("8k/6+R2/9/9/9/9/9/9/9 b Brb4g4s4n4l18p 1");
    let checked = p.after(mv("B*3c"));
    let evasions: Vec<Move> = tsume_moves(&checked).moves.iter().map(|m| m.mv).collect();
    let futile: Vec<Move> = evasions
        .iter()
        .copied()
        .filter(|&m| is_futile(&mut checked.inner().clone_compact(), m))
        .collect();
    assert_eq!(futile.len(), 7, "{:?}", usi(&futile));
    assert!(
        futile
            .iter()
            .all(|m| m.is_drop() && m.to_usi().ends_with("2b"))
    );
    assert_eq!(
        futile.len(),
        evasions.len(),
        "every evasion is a drop on 2b"
    );
    assert_eq!(mate_length_under(&p, 3, Rule::EveryInterposition), Some(3));
    assert_eq!(mate_length_under(&p, 3, Rule::Composers), Some(1));
    let config = common::search_config();
    let every = solver(config, Rule::EveryInterposition).solve(&p, shortest(100_000));
    let rule = solver(config, Rule::Composers).solve(&p, shortest(100_000));
    assert_eq!((every.pv.len(), rule.pv.len()), (3, 1));
    assert!(every.shortest && rule.shortest);
    assert_eq!(usi(&rule.pv), ["B*3c"]);
    assert_eq!(rule.left_out.len(), 1);
    assert_eq!(
        (rule.left_out[0].ply, &rule.left_out[0].moves),
        (1, &futile)
    );
    assert!(check_line(&p, Kind::Or, Rule::Composers, &rule.pv).is_ok());
    // Under every interposition the line of one ply is no mate.
    assert!(check_line(&p, Kind::Or, Rule::EveryInterposition, &rule.pv).is_err());
}

/// A chain of interpositions judged from the king's end: the rook's check from 9a leaves
/// the defender seven squares to block; the one next to the king is taken with mate (the
/// lance guards 2a), so each farther one is taken into a position whose every reply is a
/// futile interposition. Without the lance the block on 2a is taken back by the king: no
/// interposition on the rank is futile, and the check is no mate in 1.
#[test]
fn a_chain_is_judged_from_the_kings_end() {
    let with = pos("8k/8p/9/9/9/9/9/9/R6L1 b r2b4g4s4n3l17p 1");
    let without = pos("8k/8p/9/9/9/9/9/9/R8 b r2b4g4s4n4l17p 1");
    for (p, futile) in [(&with, true), (&without, false)] {
        let checked = p.after(mv("9i9a"));
        let evasions: Vec<Move> = tsume_moves(&checked).moves.iter().map(|m| m.mv).collect();
        assert!(evasions.len() > 40, "{checked}");
        for &m in &evasions {
            let got = is_futile(&mut checked.inner().clone_compact(), m);
            assert_eq!(got, futile, "{checked}: {}", m.to_usi());
        }
    }
    assert_eq!(mate_length_under(&with, 1, Rule::Composers), Some(1));
    assert_eq!(mate_length_under(&without, 1, Rule::Composers), None);
}

/// The famous set's problems named for the rule (tests/data/famous): the two "mate in 1
/// tests" are mates in 1 by the rule (11 and 15 plies counting every interposition), and
/// the futile-interposition judgement a mate in 3 (5 counting every one), on the model.
#[test]
fn the_famous_sets_problems_named_for_the_rule() {
    let famous = std::fs::read_to_string(common::data_dir().join("famous/famous-problems.tsv"))
        .expect("the famous set");
    let sfen = |name: &str| {
        let line = famous.lines().find(|l| l.split('\t').next() == Some(name));
        pos(line.expect(name).split('\t').nth(1).expect("NAME<TAB>SFEN"))
    };
    let config = Config {
        tt_index_bits: 16,
        ..common::search_config()
    };
    for (name, rule, every) in [
        ("一手詰めテスト", 1, 11),
        ("一手詰めテスト２", 1, 15),
        ("無駄合い判定", 3, 5),
    ] {
        let p = sfen(name);
        let out = solver(config, Rule::Composers).solve(&p, shortest(10_000_000));
        assert_eq!(out.result, SearchResult::Mate, "{name}");
        assert!(out.shortest, "{name}");
        assert_eq!(out.pv.len(), rule, "{name}: {:?}", usi(&out.pv));
        check_line(&p, Kind::Or, Rule::Composers, &out.pv).unwrap();
        if every < 15 {
            let out = solver(config, Rule::EveryInterposition).solve(&p, shortest(10_000_000));
            assert_eq!(out.pv.len(), every, "{name}: {:?}", usi(&out.pv));
        }
    }
}

/// The independent reading of the rule judges every evasion of fresh random positions in
/// check as `tsume::futile::is_futile` does; enough of them are interpositions, and some
/// futile, for the comparison to mean something.
#[test]
fn an_independent_reading_of_the_rule_agrees_on_random_positions() {
    let seed = seed_from_env();
    let mut g = TsumeGenerator::new(seed);
    let (mut blocks, mut futile) = (0, 0);
    for _ in 0..common::random_count(3_000) {
        let p = g.next_position(Draw::Evasions);
        for e in tsume_moves(&p).moves {
            let want = futile_by_the_text(&p, e.mv);
            let got = is_futile(&mut p.inner().clone_compact(), e.mv);
            assert_eq!(got, want, "TSUME_SEED={seed}: {p} {}", e.mv.to_usi());
            blocks += usize::from(tsume::futile::is_interposition(p.inner(), e.mv));
            futile += usize::from(got);
        }
    }
    assert!(blocks > 1_000, "TSUME_SEED={seed}: {blocks} interpositions");
    assert!(futile > 20, "TSUME_SEED={seed}: {futile} futile");
}

/// Fresh random positions: the model's shortest mate under the rule is the exhaustive
/// search's length under the rule, within 5 plies, with the keyed and the pieces table;
/// its first move is one of the exhaustive search's mating moves, and the line passes the
/// reference's check under the rule with the interpositions it left out futile.
#[test]
fn the_models_lengths_by_the_rule_are_the_exhaustive_searchs() {
    let seed = seed_from_env();
    let mut g = TsumeGenerator::new(seed);
    // 30 positions a default run, 60 in a long one (`TSUME_LONG`).
    let count = common::random_count(if common::long_run() { 60 } else { 30 });
    let positions: Vec<Position> = (0..count).map(|_| g.next_position(Draw::Checks)).collect();
    let want: Vec<Option<u32>> = positions
        .iter()
        .map(|p| mate_length_under(p, 5, Rule::Composers))
        .collect();
    let shorter = positions
        .iter()
        .zip(&want)
        .filter(|(p, w)| w.is_some() && mate_length_under(p, 5, Rule::EveryInterposition) != **w)
        .count();
    assert!(
        want.iter().flatten().count() * 6 >= count,
        "TSUME_SEED={seed}: too few mates"
    );
    let keyed = Config {
        max_plies: 8,
        hand_superiority: false,
        depth_free: false,
        child_counts: false,
        ..common::search_config()
    };
    let pieces = Config {
        hand_superiority: true,
        depth_free: true,
        ..keyed
    };
    for (name, config) in [("keyed", keyed), ("pieces", pieces)] {
        let mut s = solver(config, Rule::Composers);
        for (i, (p, want)) in positions.iter().zip(&want).enumerate() {
            // A position without a mate within 5 plies only has to answer no shorter one:
            // a small limit (a long mate's shortest search would take the test's time).
            let limit = if want.is_some() { 2_000_000 } else { 20_000 };
            let out = s.solve(p, shortest(limit));
            let what = format!("{name}: TSUME_SEED={seed} position {i} {p}: {out:?}");
            match want {
                Some(n) => {
                    assert_eq!(out.result, SearchResult::Mate, "{what}");
                    assert!(out.shortest, "{what}");
                    assert_eq!(out.pv.len() as u32, *n, "{what}");
                    assert!(mating_moves_under(p, *n, Rule::Composers).contains(&out.pv[0]));
                    check_line(p, Kind::Or, Rule::Composers, &out.pv).expect(&what);
                    for gap in left_out(p.inner(), Kind::Or, &out.pv) {
                        let mut at = p.clone();
                        for &m in &out.pv[..gap.ply] {
                            at = at.after(m);
                        }
                        for &m in &gap.moves {
                            assert!(futile_by_the_text(&at, m), "{what}");
                        }
                    }
                }
                None if out.result == SearchResult::Mate && out.shortest => {
                    assert!(out.pv.len() > 5, "{what}");
                }
                None => {}
            }
        }
    }
    eprintln!("TSUME_SEED={seed}: {shorter} mates shorter by the rule");
}
