//! Alternative mates and the defender's variations of greatest length
//! (`tsume::solver::alternatives`, docs/search.md, "Alternative mates") against the
//! exhaustive search on fresh random positions, under both rules: at each attacker move
//! of the main line, the alternatives are the exhaustive search's mating moves there but
//! the line's; at each defender move, the variations are the replies the exhaustive search
//! finds mated in exactly the plies left.

mod common;

use rsshogi::types::Move;
use tsume::futile::Rule;
use tsume::mate::{mate_length_under, mating_moves_under};
use tsume::position::Position;
use tsume::random::{Kind as Draw, TsumeGenerator, seed_from_env};
use tsume::reference::tsume_moves;
use tsume::solver::alternatives::alternatives;
use tsume::solver::line_walk::check_line;
use tsume::solver::{Config, Kind, Limits, SearchResult, Solver};

fn sorted(mut moves: Vec<Move>) -> Vec<String> {
    let mut s: Vec<String> = moves.drain(..).map(|m| m.to_usi()).collect();
    s.sort();
    s
}

/// The replies of the defender at `p` (in check) that count under `rule`.
fn replies(p: &Position, rule: Rule) -> Vec<Move> {
    let mut moves: Vec<Move> = tsume_moves(p).moves.iter().map(|m| m.mv).collect();
    rule.keep_replies(&mut p.inner().clone_compact(), &mut moves);
    moves
}

#[test]
fn alternatives_and_variations_are_the_exhaustive_searchs() {
    let seed = seed_from_env();
    let mut g = TsumeGenerator::new(seed);
    let config = Config {
        max_plies: 8,
        ..common::search_config()
    };
    let (mut mates, mut found_alt, mut found_var) = (0, 0, 0);
    for rule in [Rule::EveryInterposition, Rule::Composers] {
        let mut solver = Solver::new(config);
        solver.set_interpositions(rule);
        for i in 0..common::random_count(80) {
            let p = g.next_position(Draw::Checks);
            let Some(d) = mate_length_under(&p, 5, rule) else {
                continue;
            };
            let what = format!("TSUME_SEED={seed} {rule:?} position {i} {p}");
            let limits = Limits {
                nodes: 2_000_000,
                shortest: true,
                ..Limits::default()
            };
            let out = solver.solve(&p, limits);
            assert_eq!(out.result, SearchResult::Mate, "{what}");
            assert_eq!(out.pv.len() as u32, d, "{what}");
            mates += 1;
            let got = alternatives(&mut solver, p.inner(), Kind::Or, &out.pv, u64::MAX);
            assert!(got.complete, "{what}");
            // Along the main line and every variation: the exhaustive search's mating moves.
            let mut lines = vec![(None, p.clone(), out.pv.clone())];
            for (index, v) in got.variations.iter().enumerate() {
                let mut at = p.clone();
                for &m in &out.pv[..v.ply - 1] {
                    at = at.after(m);
                }
                lines.push((Some(index), at, v.line.clone()));
            }
            for (variation, start, line) in &lines {
                let played = variation.map_or(0, |index| got.variations[index].ply - 1);
                let mut at = start.clone();
                for (j, &mv) in line.iter().enumerate() {
                    let left = (line.len() - j) as u32;
                    if (played + j) % 2 == 0 {
                        let mut want = mating_moves_under(&at, left, rule);
                        want.retain(|&m| m != mv);
                        let have: Vec<Move> = got
                            .alternatives
                            .iter()
                            .filter(|a| a.variation == *variation && a.ply == played + j + 1)
                            .map(|a| a.mv)
                            .collect();
                        assert_eq!(sorted(have), sorted(want), "{what} ply {}", played + j + 1);
                    } else if variation.is_none() {
                        let want: Vec<Move> = replies(&at, rule)
                            .into_iter()
                            .filter(|&e| {
                                e != mv
                                    && mate_length_under(&at.after(e), left - 1, rule)
                                        == Some(left - 1)
                            })
                            .collect();
                        let have: Vec<Move> = got
                            .variations
                            .iter()
                            .filter(|v| v.ply == j + 1)
                            .map(|v| v.mv)
                            .collect();
                        assert_eq!(sorted(have), sorted(want), "{what} ply {}", j + 1);
                    }
                    at = at.after(mv);
                }
            }
            // Each alternative's line, after the moves that lead to it, is a mate.
            for a in &got.alternatives {
                assert_eq!(a.last, a.line.len() == 1, "{what}");
                let mut full: Vec<Move> = match a.variation {
                    None => out.pv[..a.ply - 1].to_vec(),
                    Some(index) => {
                        let v = &got.variations[index];
                        let mut moves = out.pv[..v.ply - 1].to_vec();
                        moves.extend(&v.line[..a.ply - v.ply]);
                        moves
                    }
                };
                full.extend(&a.line);
                check_line(&p, Kind::Or, rule, &full).unwrap_or_else(|e| panic!("{what}: {e}"));
            }
            found_alt += got.alternatives.len();
            found_var += got.variations.len();
        }
    }
    assert!(mates >= 10, "TSUME_SEED={seed}: {mates} mates");
    assert!(
        found_alt > 0 && found_var > 0,
        "TSUME_SEED={seed}: {found_alt} alternatives, {found_var} variations"
    );
}
