//! The model's own modes: the pieces table (docs/search.md, "The pieces table": hands out
//! of the key, plies left out of it, both) and child counts ("Child counts", with the
//! pieces table too). In each the suite's answers and shortest lengths are the keyed
//! table's (plies left and hands in the key) and fresh random positions (many with pieces missing from the 40) agree with
//! the exhaustive search; a proof applies to a hand that holds its proof pieces and not to
//! one that lacks them.

mod common;

use tsume::mate::mate_length;
use tsume::position::Position;
use tsume::problems::{Expected, load_suite};
use tsume::random::{Kind as RandomKind, TsumeGenerator, seed_from_env};
use tsume::solver::count_estimate::Estimate;
use tsume::solver::moves::Kind;
use tsume::solver::position_hash::Keys;
use tsume::solver::{Config, Limits, Root, SearchResult, Searcher, Solver};

fn config() -> Config {
    Config::from_manifest(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("swim.toml"))
        .expect("swim.toml has a [search] table")
}

/// swim.toml's geometry with the table keyed by plies left and hands, no child counts.
fn keyed() -> Config {
    Config {
        hand_superiority: false,
        depth_free: false,
        child_counts: false,
        child_estimates: None,
        ..config()
    }
}

/// The model's modes beside the keyed table: hands, depth, pieces, counts, pieces with
/// counts, then the depth-free table with each count estimate and the pieces table with
/// the first (docs/search.md, "Child counts").
fn modes() -> [(&'static str, Config); 10] {
    let c = keyed();
    let depth = Config {
        depth_free: true,
        ..c
    };
    let pieces = Config {
        hand_superiority: true,
        depth_free: true,
        ..c
    };
    let est = |c: Config, e: Estimate| Config {
        child_estimates: Some(e),
        ..c
    };
    [
        (
            "hands",
            Config {
                hand_superiority: true,
                ..c
            },
        ),
        ("depth", depth),
        ("pieces", pieces),
        (
            "counts",
            Config {
                child_counts: true,
                ..c
            },
        ),
        (
            "pieces-counts",
            Config {
                child_counts: true,
                ..pieces
            },
        ),
        ("est-ring", est(depth, Estimate::Ring)),
        ("est-checker", est(depth, Estimate::Checker)),
        ("est-attacked", est(depth, Estimate::Attacked)),
        ("est-replies", est(depth, Estimate::Replies)),
        ("pieces-est-attacked", est(pieces, Estimate::Attacked)),
    ]
}

fn shortest(nodes: u64) -> Limits {
    common::limits(nodes, true, Root::Attacker)
}

/// swim.toml keeps the chip's table and first numbers: depth-free entries, no hand
/// superiority, no child counts, the count unit's estimates; the chip takes every mode but
/// child counts and the estimates other than its count unit's.
#[test]
fn the_manifest_keeps_the_chips_table() {
    let c = config();
    assert!(!c.hand_superiority && c.depth_free && c.pieces_table() && !c.child_counts);
    assert_eq!(c.child_estimates, Some(Estimate::Attacked));
    c.check_chip().unwrap();
    keyed().check_chip().unwrap();
    modes()[1].1.check_chip().unwrap();
    modes()[2].1.check_chip().unwrap();
    let e = modes()[3].1.check_chip().unwrap_err().to_string();
    assert!(e.contains("child_counts = true"), "{e}");
    for (name, c) in &modes()[5..] {
        let taken = c.check_chip();
        if c.child_estimates == Some(Estimate::Attacked) {
            taken.unwrap_or_else(|e| panic!("{name}: {e}"));
        } else {
            let e = taken.unwrap_err().to_string();
            assert!(e.contains("child_estimates"), "{name}: {e}");
        }
    }
}

/// Every suite problem: the same result as the keyed table, the mates at the same
/// (minimax) length, in every mode; the pieces mode and child counts make fewer nodes over
/// the suite, the counts counted only where the switch is on.
#[test]
fn every_mode_answers_the_suite_as_the_keyed_table() {
    let problems =
        load_suite(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("problems")).unwrap();
    let mut plies = Solver::new(keyed());
    let mut nodes = [0u64; 11];
    let mut counts = [0u64; 11];
    let mut solvers: Vec<_> = modes().map(|(name, c)| (name, Solver::new(c))).into();
    for p in problems.iter().filter(|p| p.solve_only.is_none()) {
        let pos = Position::from_sfen(&p.sfen).unwrap();
        let want = plies.solve(&pos, shortest(5_000_000));
        nodes[0] += want.counters.nodes;
        counts[0] += want.counters.counts;
        for (i, (name, solver)) in solvers.iter_mut().enumerate() {
            let out = solver.solve(&pos, shortest(5_000_000));
            nodes[i + 1] += out.counters.nodes;
            counts[i + 1] += out.counters.counts;
            let what = format!(
                "{name}: {} {:?} (keyed table {:?})",
                p.id, out.result, want.result
            );
            assert_eq!(out.result, want.result, "{what}");
            assert_eq!(out.shortest, want.shortest, "{what}");
            assert_eq!(out.pv.len(), want.pv.len(), "{what}");
            if let Expected::Mate(n) = p.expected {
                assert_eq!(out.pv.len() as u32, n, "{what}");
            }
        }
    }
    let what = format!(
        "plies / hands / depth / pieces / counts / pieces-counts / est-ring / est-checker / \
         est-attacked / est-replies / pieces-est-attacked: nodes {nodes:?}, counts {counts:?}"
    );
    assert!(nodes[3] < nodes[0], "{what}");
    assert!(nodes[4] < nodes[0] && nodes[5] < nodes[0], "{what}");
    assert!(counts[..4].iter().all(|&c| c == 0), "{what}");
    // The estimates count nothing; the exact replies clamped at 1 save nodes.
    assert!(counts[6..].iter().all(|&c| c == 0), "{what}");
    assert!(nodes[9] < nodes[2], "{what}");
    assert!(counts[4] > nodes[4] && counts[5] > nodes[5], "{what}");
}

/// A proof's length in the table is the mate df-pn found, not always the shortest: here
/// the hands mode's table says the defender's reply 8c9d (mated at once) is mated in 3 as
/// long as 8c7c, and a line that took the first of the two was a mate in 3 read as
/// shortest. The shortest line keeps the distance: 5 plies, the exhaustive search's.
#[test]
fn the_shortest_line_keeps_the_distance_when_the_table_overstates_a_reply() {
    let pos = Position::from_sfen("+N2+B5/2g6/1k7/2l1L4/9/9/9/9/9 b 2RB3G4S3N2L18P 1").unwrap();
    assert_eq!(mate_length(&pos, 7), Some(5));
    for (name, c) in modes() {
        let c = Config { max_plies: 8, ..c };
        let out = Solver::new(c).solve(&pos, shortest(2_000_000));
        assert_eq!(out.result, SearchResult::Mate, "{name}");
        assert!(out.shortest, "{name}");
        assert_eq!(out.pv.len(), 5, "{name}: {:?}", out.pv);
    }
}

/// Fresh random positions: every mate within 5 plies of the exhaustive search is found at
/// its length and none is contradicted by a `nomate`, in every mode, with a large table;
/// with a tiny one that evicts, a mate found is one of its length and no `nomate` is wrong.
#[test]
fn random_positions_agree_with_the_exhaustive_search_in_every_mode() {
    let seed = seed_from_env();
    let mut g = TsumeGenerator::new(seed);
    // 75 positions a default run, 150 in a long one (`TSUME_LONG`).
    let count = if common::long_run() { 150 } else { 75 };
    let positions: Vec<_> = (0..count)
        .map(|_| g.next_position(RandomKind::Any))
        .collect();
    let expected: Vec<_> = positions.iter().map(|p| mate_length(p, 5)).collect();
    assert!(
        expected.iter().filter(|e| e.is_some()).count() * 15 >= count,
        "TSUME_SEED={seed}"
    );
    for (name, c) in modes() {
        // The root with 7 plies left, as in tests/solver.rs's test of the chip's table.
        let c = Config { max_plies: 8, ..c };
        for table in [
            c,
            Config {
                tt_index_bits: 2,
                tt_ways: 2,
                ..c
            },
        ] {
            let mut solver = Solver::new(table);
            for (i, (pos, want)) in positions.iter().zip(&expected).enumerate() {
                let limit = if want.is_some() { 2_000_000 } else { 20_000 };
                let out = solver.solve(pos, shortest(limit));
                let what = format!(
                    "{name}, {} entries: TSUME_SEED={seed} position {i} {pos}: {:?}",
                    table.tt_entries(),
                    out.result
                );
                let tiny = table.tt_index_bits == 2;
                match want {
                    // A tiny table may run out of nodes; it never answers wrong.
                    Some(_) if tiny && out.result != SearchResult::Mate => {
                        assert_ne!(out.result, SearchResult::NoMate, "{what}");
                    }
                    Some(n) => {
                        assert_eq!(out.result, SearchResult::Mate, "{what}");
                        assert!(out.shortest, "{what}");
                        assert_eq!(out.pv.len() as u32, *n, "{what}");
                    }
                    // No mate within 5: a shortest line is longer. A line that is not
                    // proven shortest (its deepening cut by the node limit) can be
                    // shorter than the distance (docs/search.md, "Shortest mode").
                    None => {
                        if out.result == SearchResult::Mate && out.shortest {
                            assert!(out.pv.len() > 5, "{what}");
                        }
                    }
                }
            }
        }
    }
}

/// The proof of a gold drop mate (proof pieces: one gold) applies to the same board with
/// a pawn more in the attacker's hand, not to one without the gold; with the plies left
/// out of the key, to more plies left and not to none.
#[test]
fn a_proof_applies_where_the_hand_holds_its_pieces() {
    let solved = common::MATE1;
    let more = "4k4/9/4P4/9/9/9/9/9/9 b GP2r2b3g4s4n4l16p 1";
    let without = "4k4/9/4P4/9/9/9/9/9/9 b P2r2b4g4s4n4l16p 1";
    let mut solver = Solver::new(modes()[2].1);
    let out = solver.solve(&Position::from_sfen(solved).unwrap(), Limits::default());
    assert_eq!(out.result, SearchResult::Mate);
    let mut look = |sfen: &str, left: u32| {
        let pos = Position::from_sfen(sfen).unwrap();
        let hash = Keys::get().hash(pos.inner());
        solver
            .lookup_node(pos.inner(), Kind::Or, hash, left)
            .unwrap()
            .filter(|f| f.pn == 0)
            .map(|f| f.len)
    };
    assert_eq!(look(solved, 63), Some(1));
    assert_eq!(look(more, 63), Some(1));
    assert_eq!(look(more, 7), Some(1));
    assert_eq!(look(without, 63), None);
    // The keyed table keys the plies left and the exact hands: neither applies there.
    let mut plies = Solver::new(keyed());
    plies.solve(&Position::from_sfen(solved).unwrap(), Limits::default());
    let pos = Position::from_sfen(more).unwrap();
    let hash = Keys::get().hash(pos.inner());
    assert!(
        plies
            .lookup_node(pos.inner(), Kind::Or, hash, 63)
            .unwrap()
            .is_none()
    );
}
