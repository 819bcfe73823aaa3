//! The software reference against nshogi's published move lists and mate-in-one positions
//! (`tests/data/nshogi`, see its README for how nshogi's conventions differ from full
//! tsume-shogi legality and how the lists are compared).

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;

use common::{legal_all, mv, pawn_drop_mates, pos};
use rsshogi::movegen::{Legal, MoveListGen};
use rsshogi::types::{Color, Move, PieceType, Rank};
use tsume::position::Position;
use tsume::reference::{Category, Mode, tsume_moves};
use tsume::stream_order::stream_key;

// ---------------------------------------------------------------------------------------------
// nshogi move lists
// ---------------------------------------------------------------------------------------------

fn nshogi_dir() -> PathBuf {
    common::data_dir().join("nshogi")
}

/// (SFEN, listed moves) pairs of an nshogi example file.
fn read_examples(path: &std::path::Path) -> Vec<(String, BTreeSet<String>)> {
    let text = std::fs::read_to_string(path).expect("read nshogi examples");
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(
        lines.len() % 2,
        0,
        "{}: SFEN and move lines must pair up",
        path.display()
    );
    lines
        .chunks(2)
        .map(|pair| {
            let mut fields = pair[1].split_whitespace();
            let count: usize = fields
                .next()
                .and_then(|c| c.parse().ok())
                .expect("move count");
            let moves: BTreeSet<String> = fields.map(str::to_string).collect();
            assert_eq!(moves.len(), count, "count of {}", pair[0]);
            (pair[0].to_string(), moves)
        })
        .collect()
}

/// What the nshogi convention leaves out of a complete move list.
#[derive(Default, Debug)]
struct Reduction {
    /// Non-promotions of pawns, bishops and rooks whose promoting twin is in the list.
    unpromoted_pbr: usize,
    /// Lance non-promotions to the second-to-last rank.
    unpromoted_lance_rank2: usize,
    /// Pawn drops that mate (illegal, but kept by nshogi).
    pawn_drop_mates: usize,
}

/// Apply the nshogi convention to a complete move list of `p`.
fn nshogi_convention(
    p: &rsshogi::board::Position,
    moves: &[Move],
    red: &mut Reduction,
) -> BTreeSet<String> {
    let us = p.turn();
    let second_last = if us == Color::BLACK {
        Rank::new(1)
    } else {
        Rank::new(7)
    };
    let mut out = BTreeSet::new();
    for &m in moves {
        if !m.is_drop() && !m.is_promotion() {
            let pt = p.piece_on(m.from_sq()).piece_type();
            if matches!(pt, PieceType::PAWN | PieceType::BISHOP | PieceType::ROOK)
                && moves.contains(&Move::promotion(m.from_sq(), m.to_sq()))
            {
                red.unpromoted_pbr += 1;
                continue;
            }
            if pt == PieceType::LANCE && m.to_sq().rank() == second_last {
                red.unpromoted_lance_rank2 += 1;
                continue;
            }
        }
        out.insert(m.to_usi());
    }
    for m in pawn_drop_mates(p) {
        red.pawn_drop_mates += 1;
        out.insert(m.to_usi());
    }
    out
}

/// Compare with an nshogi list file; `want` is the expected reduction (the convention's
/// numbers: a change means rsshogi or the convention changed).
fn compare_nshogi(file: &str, checks_only: bool, want: [usize; 3]) {
    let dir = nshogi_dir();
    let examples = read_examples(&dir.join(file));
    assert_eq!(examples.len(), 5000, "{file}");
    let mut red = Reduction::default();
    let mut mismatches = Vec::new();
    for (sfen, listed) in &examples {
        let p = pos(sfen);
        let inner = p.inner();
        let complete: Vec<Move> = if !checks_only {
            legal_all(inner)
        } else if p.in_check() {
            legal_all(inner)
                .into_iter()
                .filter(|&m| inner.gives_check_move(m))
                .collect()
        } else {
            let set = tsume_moves(&p);
            assert_eq!(set.mode, Mode::Checks);
            set.moves.iter().map(|m| m.mv).collect()
        };
        let reduced = nshogi_convention(inner, &complete, &mut red);
        // The convention is exactly rsshogi's reduced generator `Legal` (that of YaneuraOu),
        // plus the pawn-drop mates.
        let mut legal: BTreeSet<String> = MoveListGen::<Legal>::new(inner)
            .iter()
            .filter(|&&m| !checks_only || inner.gives_check_move(m))
            .map(|m| m.to_usi())
            .collect();
        legal.extend(pawn_drop_mates(inner).iter().map(|m| m.to_usi()));
        assert_eq!(legal, reduced, "{sfen}: rsshogi Legal plus pawn-drop mates");
        if &reduced != listed {
            let missing: Vec<_> = listed.difference(&reduced).cloned().collect();
            let extra: Vec<_> = reduced.difference(listed).cloned().collect();
            mismatches.push(format!(
                "{sfen}\n  listed only: {missing:?}\n  ours only: {extra:?}"
            ));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{file}: {} mismatches, first ones:\n{}",
        mismatches.len(),
        mismatches
            .iter()
            .take(5)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert_eq!(
        [
            red.unpromoted_pbr,
            red.unpromoted_lance_rank2,
            red.pawn_drop_mates
        ],
        want,
        "{file}: convention numbers"
    );
}

#[test]
fn nshogi_check_lists() {
    compare_nshogi("legal-check-examples.txt", true, [796, 2, 42]);
}

#[test]
fn nshogi_legal_move_lists() {
    compare_nshogi("legal-move-examples.txt", false, [7646, 446, 30]);
}

/// Every category of the tsume sets of the nshogi positions (and of the positions after each of
/// their listed moves, which brings in many evasion positions) against rsshogi's own check
/// machinery: direct = the moved piece's check squares, indirect = a blocker of the king's
/// lines leaving them; evasions by the checkers and the squares between.
#[test]
fn nshogi_categories_agree_with_rsshogi() {
    let dir = nshogi_dir();
    let mut counts = std::collections::BTreeMap::<&str, usize>::new();
    for file in ["legal-check-examples.txt", "legal-move-examples.txt"] {
        for (sfen, listed) in read_examples(&dir.join(file)) {
            let root = pos(&sfen);
            let mut all = vec![root.clone()];
            for m in &listed {
                let m = mv(m);
                if root.inner().is_legal_move(m) {
                    all.push(root.after(m));
                }
            }
            for p in all {
                check_categories(&p, &mut counts);
            }
        }
    }
    for c in Category::ALL {
        assert!(
            counts.get(c.as_str()).copied().unwrap_or(0) > 0,
            "no {c} move at all: {counts:?}"
        );
    }
}

fn check_categories(p: &Position, counts: &mut std::collections::BTreeMap<&'static str, usize>) {
    let inner = p.inner();
    let us = inner.turn();
    let set = tsume_moves(p);
    // The reference lists the moves in the chip's stream order.
    let mut legal = legal_all(inner);
    legal.sort_by_key(|&m| stream_key(p, m));
    if p.in_check() {
        assert_eq!(set.mode, Mode::Evasions);
        assert_eq!(set.moves.iter().map(|m| m.mv).collect::<Vec<_>>(), legal);
        let king = inner.king_square(us);
        let checkers = inner.checkers();
        for m in &set.moves {
            let from_king = !m.mv.is_drop() && m.mv.from_sq() == king;
            let want = if from_king {
                Category::KingEscape
            } else if m.mv.is_drop() {
                Category::DropBlock
            } else if checkers.test(m.mv.to_sq()) {
                Category::Capture
            } else {
                let checker = checkers.lsb().unwrap();
                assert!(rsshogi::board::Bitboard::between(king, checker).test(m.mv.to_sq()));
                Category::MoveBlock
            };
            assert!(
                !checkers.more_than_one() || from_king,
                "{} in double check",
                m.mv
            );
            assert_eq!(m.category, want, "{} in {}", m.mv, p.to_sfen());
            *counts.entry(want.as_str()).or_default() += 1;
        }
    } else {
        assert_eq!(set.mode, Mode::Checks);
        let them_king = inner.king_square(us.flip());
        let checks: Vec<Move> = legal
            .iter()
            .copied()
            .filter(|&m| inner.gives_check_move(m))
            .collect();
        assert_eq!(set.moves.iter().map(|m| m.mv).collect::<Vec<_>>(), checks);
        for m in &set.moves {
            let want = if m.mv.is_drop() {
                Category::Drop
            } else {
                let (from, to) = (m.mv.from_sq(), m.mv.to_sq());
                let pt = inner.piece_on(from).piece_type();
                let pt = if m.mv.is_promotion() {
                    pt.promote()
                } else {
                    pt
                };
                let direct = inner.check_square(pt).test(to);
                let indirect = inner.blockers_for_king(us.flip()).test(from)
                    && !rsshogi::board::Bitboard::is_aligned(from, to, them_king);
                match (direct, indirect) {
                    (true, false) => Category::Direct,
                    (false, true) => Category::Indirect,
                    (true, true) => Category::DirectIndirect,
                    (false, false) => panic!("{} gives no check", m.mv),
                }
            };
            assert_eq!(m.category, want, "{} in {}", m.mv, p.to_sfen());
            *counts.entry(want.as_str()).or_default() += 1;
        }
    }
}

/// Mate-in-1 positions have a check after which the opponent has no move; the no-mate ones
/// have none. Exercises the check sets on real positions end to end.
#[test]
fn nshogi_mate_in_one() {
    let dir = nshogi_dir();
    let mates = |sfen: &str| {
        let p = pos(sfen);
        let set = tsume_moves(&p);
        set.mode == Mode::Checks
            && set
                .moves
                .iter()
                .any(|m| legal_all(p.after(m.mv).inner()).is_empty())
    };
    let read = |file: &str| -> Vec<String> {
        let text = std::fs::read_to_string(dir.join(file)).expect("read");
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(str::to_string)
            .collect()
    };
    let yes = read("mate-1-ply.txt");
    let no = read("no-mate-1-ply.txt");
    assert_eq!((yes.len(), no.len()), (1568, 1574));
    let missed: Vec<_> = yes.iter().filter(|s| !mates(s)).collect();
    let extra: Vec<_> = no.iter().filter(|s| mates(s)).collect();
    assert!(missed.is_empty(), "no mating check found in {missed:?}");
    assert!(extra.is_empty(), "a mating check found in {extra:?}");
}
