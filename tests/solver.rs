//! The solver's golden model: the problem suite, fresh random positions against the
//! exhaustive search of `src/mate.rs`, the limits, determinism, and the pieces the chip
//! shares with it (move sets, hash).

mod common;

use tsume::futile::Rule;
use tsume::mate::mate_length;
use tsume::position::Position;
use tsume::problems::{Expected, load_suite};
use tsume::random::{Kind as RandomKind, TsumeGenerator, seed_from_env};
use tsume::reference::tsume_moves;
use tsume::solver::line_walk::check_line;
use tsume::solver::moves::{Kind, node_moves};
use tsume::solver::position_hash::Keys;
use tsume::solver::{Config, Limits, Outcome, Reason, Root, SearchResult, Solver};

/// The problem suite of this checkout.
fn suite_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("problems")
}

fn config() -> Config {
    Config::from_manifest(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("swim.toml"))
        .expect("swim.toml has a [search] table")
}

fn usi(pv: &[tsume::rsshogi::types::Move]) -> String {
    pv.iter().map(|m| m.to_usi()).collect::<Vec<_>>().join(" ")
}

fn shortest(nodes: u64) -> Limits {
    common::limits(nodes, true, Root::Attacker)
}

/// Every problem's expected result, the mates at their minimax length (shortest mode),
/// with the chip's table.
#[test]
fn suite_results() {
    let problems = load_suite(&suite_dir()).unwrap();
    assert!(
        problems.len() >= 40,
        "the suite has {} problems",
        problems.len()
    );
    let mut solver = Solver::new(config());
    // Long problems need their own table and limits: `cargo xtask solve` checks them.
    for p in problems.iter().filter(|p| p.solve_only.is_none()) {
        let pos = Position::from_sfen(&p.sfen).unwrap();
        let out = solver.solve(&pos, shortest(5_000_000));
        match p.expected {
            Expected::Mate(n) => {
                assert_eq!(out.result, SearchResult::Mate, "{}: {:?}", p.id, out);
                assert!(out.shortest, "{}: shortest mode did not complete", p.id);
                assert_eq!(out.pv.len() as u32, n, "{}: line {}", p.id, usi(&out.pv));
            }
            Expected::NoMateWithin(n) => match out.result {
                SearchResult::NoMate => {}
                SearchResult::Mate => assert!(
                    out.pv.len() as u32 > n,
                    "{}: no mate within {n}, the solver gives {}",
                    p.id,
                    usi(&out.pv)
                ),
                SearchResult::Unknown(r) => panic!("{}: unknown: {r}", p.id),
            },
        }
    }
}

/// Fresh random positions: every mate within 5 plies that the exhaustive search finds is
/// found at its length, no `nomate` contradicts it, and a mate answered without a proven
/// distance (the node limit) has a mating line. The root is searched with 7 plies
/// left (frames for 8 plies): a first search with 63 plies left may wander into long mates
/// before the short one (experiments/solver.md, "A mate in 5 with both hands full"), which
/// says nothing of the answers this test checks.
#[test]
fn random_positions_agree_with_the_exhaustive_search() {
    let seed = seed_from_env();
    let mut g = TsumeGenerator::new(seed);
    let mut solver = Solver::new(Config {
        max_plies: 8,
        ..config()
    });
    let mut mates = 0;
    for i in 0..240 {
        let pos = g.next_position(RandomKind::Any);
        let expected = mate_length(&pos, 5);
        let limit = if expected.is_some() {
            2_000_000
        } else {
            20_000
        };
        let out = solver.solve(&pos, shortest(limit));
        let what = format!("TSUME_SEED={seed} position {i} {pos}: {:?}", out.result);
        match expected {
            Some(n) => {
                mates += 1;
                assert_eq!(out.result, SearchResult::Mate, "{what}");
                assert!(out.shortest, "{what}: shortest mode did not complete");
                assert_eq!(out.pv.len() as u32, n, "{what}: line {}", usi(&out.pv));
            }
            // A proven distance is above 5. A line answered without it (the deepening
            // stopped by the node limit: the first line read, whose replies are those of
            // the longest proofs in the table, not always the longest mates) is a mating
            // line whatever its length.
            None if out.result == SearchResult::Mate && out.shortest => {
                assert!(out.pv.len() > 5, "{what}: line {}", usi(&out.pv));
            }
            None if out.result == SearchResult::Mate => {
                let checked = check_line(&pos, Kind::Or, Rule::EveryInterposition, &out.pv);
                assert!(
                    checked.is_ok(),
                    "{what}: line {}: {checked:?}",
                    usi(&out.pv)
                );
            }
            None => {}
        }
    }
    assert!(
        mates >= 20,
        "TSUME_SEED={seed}: only {mates} mates among 240"
    );
}

/// The model's move lists are the reference's, in the same order: the chip's stream order
/// (`hw_movegen::lists_come_in_stream_order` checks the reference's order against the chip).
#[test]
fn move_sets_are_the_reference_sets() {
    let seed = seed_from_env();
    let mut g = TsumeGenerator::new(seed);
    let mut out = Vec::new();
    for _ in 0..2000 {
        let pos = g.next_position(RandomKind::Any);
        let reference: Vec<_> = tsume_moves(&pos).moves.iter().map(|m| m.mv).collect();
        // As an attacker: the checks; in check, the evasions that give check.
        node_moves(pos.inner(), Kind::Or, &mut out);
        let checks: Vec<_> = reference
            .iter()
            .copied()
            .filter(|&mv| pos.inner().gives_check_move(mv))
            .collect();
        assert_eq!(out, checks, "TSUME_SEED={seed}: {pos} as the attacker");
        if pos.in_check() {
            node_moves(pos.inner(), Kind::And, &mut out);
            assert_eq!(out, reference, "TSUME_SEED={seed}: {pos} as the defender");
        }
    }
}

/// The incremental hash equals the hash from scratch along random lines.
#[test]
fn incremental_hash_equals_the_full_hash() {
    let seed = seed_from_env();
    let mut g = TsumeGenerator::new(seed);
    let keys = Keys::get();
    let mut moves = Vec::new();
    let mut changed = 0;
    for _ in 0..300 {
        let mut pos = g.next_position(RandomKind::Any);
        let mut h = keys.hash(pos.inner());
        for step in 0..8usize {
            let set = tsume_moves(&pos).moves;
            moves.clear();
            moves.extend(set.iter().map(|m| m.mv));
            let Some(&mv) = moves.get((step * 7 + h as usize) % moves.len().max(1)) else {
                break;
            };
            let next = keys.after(pos.inner(), h, mv);
            changed += usize::from(next != h);
            pos = pos.after(mv);
            h = next;
            assert_eq!(h, keys.hash(pos.inner()), "TSUME_SEED={seed}: {pos}");
        }
    }
    assert!(changed > 500, "TSUME_SEED={seed}: {changed} moves checked");
}

/// Two solves of one position give the same outcome, counters included.
#[test]
fn solves_are_deterministic() {
    let problems = load_suite(&suite_dir()).unwrap();
    let mut a = Solver::new(config());
    let mut b = Solver::new(config());
    for p in problems
        .iter()
        .filter(|p| p.id.contains("mate5") || p.id.contains("mate7"))
    {
        let pos = Position::from_sfen(&p.sfen).unwrap();
        let first = a.solve(&pos, shortest(5_000_000));
        let again = a.solve(&pos, shortest(5_000_000));
        let other = b.solve(&pos, shortest(5_000_000));
        assert_eq!(first, again, "{}", p.id);
        assert_eq!(first, other, "{}", p.id);
        assert!(
            first.counters.nodes > 0 && first.counters.probes > 0,
            "{}",
            p.id
        );
    }
}

fn longest_mate() -> (String, Position) {
    let problems = load_suite(&suite_dir()).unwrap();
    let p = problems
        .iter()
        .filter(|p| p.solve_only.is_none())
        .filter_map(|p| match p.expected {
            Expected::Mate(n) => Some((n, p)),
            Expected::NoMateWithin(_) => None,
        })
        .max_by_key(|&(n, p)| (n, p.id.clone()))
        .unwrap()
        .1;
    (p.id.clone(), Position::from_sfen(&p.sfen).unwrap())
}

/// The node limit, the ply capacity and the child capacity end a search as unknown with
/// the reason; a large table solves what a small one does.
#[test]
fn limits_give_unknown_with_the_reason() {
    let (id, pos) = longest_mate();
    let mut solver = Solver::new(config());
    let solved = solver.solve(&pos, Limits::default());
    assert_eq!(solved.result, SearchResult::Mate, "{id}");
    let limit = solved.counters.nodes / 2;
    let out = solver.solve(
        &pos,
        Limits {
            nodes: limit,
            shortest: false,
            root: Root::Attacker,
        },
    );
    assert_eq!(
        out.result,
        SearchResult::Unknown(Reason::NodeLimit { nodes: limit }),
        "{id}"
    );
    assert_eq!(out.counters.nodes, limit, "{id}");

    let shallow = Config {
        max_plies: 4,
        ..config()
    };
    let out = Solver::new(shallow).solve(&pos, Limits::default());
    assert_eq!(
        out.result,
        SearchResult::Unknown(Reason::PlyLimit {
            plies: 3,
            max_plies: 4
        }),
        "{id}"
    );

    let narrow = Config {
        max_children: 1,
        ..config()
    };
    let out = Solver::new(narrow).solve(&pos, Limits::default());
    assert!(
        matches!(
            out.result,
            SearchResult::Unknown(Reason::ChildLimit {
                max_children: 1,
                ..
            })
        ),
        "{id}: {:?}",
        out.result
    );

    let large = config().with_tt_entries(1 << 20);
    let out: Outcome = Solver::new(large).solve(&pos, shortest(u64::MAX));
    assert_eq!(out.result, SearchResult::Mate, "{id}");
    assert!(out.shortest, "{id}");
}

/// A tiny table evicts all the time; the answers stay right.
#[test]
fn a_tiny_table_still_answers_right() {
    let problems = load_suite(&suite_dir()).unwrap();
    let tiny = Config {
        tt_index_bits: 2,
        tt_ways: 2,
        ..config()
    };
    let mut solver = Solver::new(tiny);
    for p in problems
        .iter()
        .filter(|p| matches!(p.expected, Expected::Mate(n) if n <= 5))
    {
        let pos = Position::from_sfen(&p.sfen).unwrap();
        let out = solver.solve(&pos, shortest(2_000_000));
        if let Expected::Mate(n) = p.expected {
            assert_eq!(out.result, SearchResult::Mate, "{}", p.id);
            if out.shortest {
                assert_eq!(out.pv.len() as u32, n, "{}", p.id);
            }
        }
    }
}

/// The reference's check of a line rejects what is not a mate.
#[test]
fn the_line_check_rejects_non_mates() {
    let pos = common::pos(common::MATE1);
    let mv = |s: &str| tsume::rsshogi::types::Move::from_usi(s).unwrap();
    assert!(check_line(&pos, Kind::Or, Rule::EveryInterposition, &[mv("G*5b")]).is_ok());
    let e = check_line(&pos, Kind::Or, Rule::EveryInterposition, &[mv("G*9i")]).unwrap_err();
    assert!(e.contains("not in the reference"), "{e}");
    let e = check_line(&pos, Kind::Or, Rule::EveryInterposition, &[mv("G*4b")]).unwrap_err();
    assert!(e.contains("not mate"), "{e}");
    let e = check_line(&pos, Kind::Or, Rule::EveryInterposition, &[]).unwrap_err();
    assert!(e.contains("odd"), "{e}");
    let e = check_line(
        &pos,
        Kind::Or,
        Rule::EveryInterposition,
        &[mv("G*5b"), mv("5a5b"), mv("G*5a")],
    )
    .unwrap_err();
    assert!(e.contains("ply 2"), "{e}");
    // From the defender's move: an even line, the attacker's moves at plies 2, 4, ...
    let e = check_line(&pos, Kind::And, Rule::EveryInterposition, &[]).unwrap_err();
    assert!(e.contains("not in check"), "{e}");
    // One check in (the gold on 5b, not protected): the king takes it; no line of two.
    let checked = pos.after(mv("G*4b"));
    let e = check_line(&checked, Kind::And, Rule::EveryInterposition, &[mv("5a4b")]).unwrap_err();
    assert!(e.contains("even"), "{e}");
    let e = check_line(
        &checked,
        Kind::And,
        Rule::EveryInterposition,
        &[mv("5a4b"), mv("G*4a")],
    )
    .unwrap_err();
    assert!(e.contains("ply 2") || e.contains("not mate"), "{e}");
}

/// A position one check into a problem (the defender to move, in check) is a defender's
/// root: after the first move of a shortest mate of `n` plies, found from fresh random
/// positions, the defender's root is a mate of exactly `n - 1` plies (a shorter one would
/// make the first mate shorter), with the defender's reply first; `Root::Auto` reads it the
/// same way, and a defender's root out of check is refused.
#[test]
fn defender_roots_are_one_check_into_a_problem() {
    let seed = seed_from_env();
    let mut g = TsumeGenerator::new(seed ^ 0xde7e);
    let mut solver = Solver::new(config());
    let (mut checked, mut refused) = (0, 0);
    for i in 0..400 {
        let pos = g.next_position(RandomKind::Any);
        let what = format!("TSUME_SEED={seed} position {i} {pos}");
        if !pos.inner().is_in_check() && refused < 20 {
            let out = solver.solve(
                &pos,
                Limits {
                    root: Root::Defender,
                    ..shortest(1_000)
                },
            );
            assert_eq!(
                out.result,
                SearchResult::Unknown(Reason::DefenderNotInCheck),
                "{what}"
            );
            refused += 1;
        }
        let Some(n) = mate_length(&pos, 5) else {
            continue;
        };
        let first = solver.solve(&pos, shortest(2_000_000));
        assert_eq!(first.pv.len() as u32, n, "{what}: {:?}", first.result);
        let after = pos.after(first.pv[0]);
        for root in [Root::Defender, Root::Auto] {
            let out = solver.solve(
                &after,
                Limits {
                    root,
                    ..shortest(2_000_000)
                },
            );
            let what = format!("{what} after {} ({root:?})", first.pv[0].to_usi());
            assert_eq!(out.result, SearchResult::Mate, "{what}");
            assert_eq!(out.root, Kind::And, "{what}");
            assert!(out.shortest, "{what}: shortest mode did not complete");
            assert_eq!(out.pv.len() as u32, n - 1, "{what}: line {}", usi(&out.pv));
            check_line(&after, Kind::And, Rule::EveryInterposition, &out.pv)
                .unwrap_or_else(|e| panic!("{what}: {e}"));
        }
        checked += 1;
    }
    assert!(
        checked >= 20 && refused >= 20,
        "TSUME_SEED={seed}: {checked} defender roots, {refused} refusals"
    );
}
