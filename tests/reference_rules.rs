//! The software reference against the rules: perft, a known move count, one hand-made
//! position per move category and per legality rule, the stream order of its lists, and
//! every position error. The nshogi move lists are in `reference_nshogi.rs`.

mod common;

use std::collections::BTreeSet;

use rsshogi::movegen::{LegalAll, MoveListGen};
use rsshogi::types::{Color, Move, PieceType, Square};
use tsume::position::{Position, PositionError};
use tsume::reference::{Category, Mode, tsume_moves};
use tsume::stream_order::stream_key;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

use common::{legal_all, mv, pawn_drop_mates, pos};

/// The USI moves of the tsume set of `sfen` with their category names, and its mode.
fn categorised(sfen: &str) -> (Mode, Vec<(String, Category)>) {
    let set = tsume_moves(&pos(sfen));
    (
        set.mode,
        set.moves
            .iter()
            .map(|m| (m.mv.to_usi(), m.category))
            .collect(),
    )
}

fn category_of(sfen: &str, usi: &str) -> Option<Category> {
    categorised(sfen)
        .1
        .into_iter()
        .find(|(m, _)| m == usi)
        .map(|(_, c)| c)
}

fn assert_category(sfen: &str, usi: &str, want: Category) {
    assert_eq!(category_of(sfen, usi), Some(want), "{usi} in {sfen}");
}

fn assert_absent(sfen: &str, usi: &str) {
    assert_eq!(
        category_of(sfen, usi),
        None,
        "{usi} must not be in the tsume set of {sfen}"
    );
}

fn is_legal_all(sfen: &str, usi: &str) -> bool {
    legal_all(pos(sfen).inner()).contains(&mv(usi))
}

// ---------------------------------------------------------------------------------------------
// Perft and a known move count
// ---------------------------------------------------------------------------------------------

fn perft(p: &mut rsshogi::board::Position, depth: u32) -> u64 {
    let moves = MoveListGen::<LegalAll>::new(p);
    if depth == 1 {
        return moves.len() as u64;
    }
    let mut nodes = 0;
    for &m in moves.iter() {
        p.apply_move(m);
        nodes += perft(p, depth - 1);
        p.undo_move(m).expect("undo");
    }
    nodes
}

#[test]
fn perft_from_the_start_position() {
    let mut p = pos("lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1")
        .inner()
        .clone();
    let want = [30u64, 900, 25_470, 719_731, 19_861_490];
    for (depth, &n) in (1..).zip(want.iter()) {
        assert_eq!(perft(&mut p, depth), n, "perft({depth})");
    }
}

#[test]
fn the_593_move_position() {
    let p = pos("R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1");
    assert_eq!(legal_all(p.inner()).len(), 593);
    // Not in check, so the tsume set is the checking subset.
    let set = tsume_moves(&p);
    assert_eq!(set.mode, Mode::Checks);
    let mut gives: Vec<Move> = legal_all(p.inner())
        .into_iter()
        .filter(|&m| p.inner().gives_check_move(m))
        .collect();
    // The reference lists them in the chip's stream order.
    gives.sort_by_key(|&m| stream_key(&p, m));
    assert_eq!(set.moves.iter().map(|m| m.mv).collect::<Vec<_>>(), gives);
}

// ---------------------------------------------------------------------------------------------
// Categories: one hand-made position each
// ---------------------------------------------------------------------------------------------

/// White king 5a; a black bishop on 5e blocks the black rook on 5i; Black holds a gold.
const DISCOVERY: &str = "4k4/9/9/9/4B4/9/9/9/4R4 b G 1";

#[test]
fn category_direct() {
    // A knight from 5e: unpromoted on 4c or 6c it attacks 5a; promoted (a gold) it does not.
    let sfen = "4k4/9/9/9/4N4/9/9/9/9 b - 1";
    assert_category(sfen, "5e4c", Category::Direct);
    assert_category(sfen, "5e6c", Category::Direct);
    assert_absent(sfen, "5e4c+");
    assert_absent(sfen, "5e6c+");
    assert!(
        is_legal_all(sfen, "5e4c+"),
        "the promotion is legal, it just gives no check"
    );
    let (mode, moves) = categorised(sfen);
    assert_eq!(mode, Mode::Checks);
    assert_eq!(moves.len(), 2, "{moves:?}");
}

#[test]
fn category_indirect() {
    // The bishop leaves the rook's file without attacking 5a itself.
    assert_category(DISCOVERY, "5e4d", Category::Indirect);
    assert_category(DISCOVERY, "5e6f", Category::Indirect);
    assert_category(DISCOVERY, "5e1a", Category::Indirect);
    assert_category(DISCOVERY, "5e1a+", Category::Indirect);
    // The rook moving along its file stays blocked: no check.
    assert_absent(DISCOVERY, "5i5f");
}

#[test]
fn category_direct_and_indirect() {
    // The bishop opens the rook's file and attacks 5a from 3c or 7c.
    for m in ["5e3c", "5e3c+", "5e7c", "5e7c+"] {
        assert_category(DISCOVERY, m, Category::DirectIndirect);
    }
    // Every bishop move leaves file 5, so every bishop move checks: 16 squares, 5 of them in
    // the promotion zone (3c 2b 1a 7c 8b 9a: 6) with both choices.
    let (_, moves) = categorised(DISCOVERY);
    let bishop = moves.iter().filter(|(m, _)| m.starts_with("5e")).count();
    assert_eq!(bishop, 16 + 6, "{moves:?}");
}

#[test]
fn category_drop() {
    for m in ["G*4a", "G*6a", "G*4b", "G*5b", "G*6b"] {
        assert_category(DISCOVERY, m, Category::Drop);
    }
    assert_absent(DISCOVERY, "G*5c");
    let (_, moves) = categorised(DISCOVERY);
    assert_eq!(
        moves.iter().filter(|(_, c)| *c == Category::Drop).count(),
        5,
        "{moves:?}"
    );
}

/// White king 5a checked by the black rook on 5e; a black pawn on 4b next to the king; a white
/// bishop on 8b can take the rook, a white gold on 6c can step into the file, White holds a pawn.
const EVASION: &str = "4k4/1b3P3/3g5/9/4R4/9/9/9/9 w p 1";

#[test]
fn category_king_escape() {
    // 5a-4b takes the pawn: a king move all the same.
    for m in ["5a6a", "5a6b", "5a4b"] {
        assert_category(EVASION, m, Category::KingEscape);
    }
    // 5b stays on the rook's file, the pawn on 4b guards 4a.
    assert_absent(EVASION, "5a5b");
    assert_absent(EVASION, "5a4a");
    // Taking the checker with the king is a king move too (the gold on 5b is unguarded).
    let adjacent = "3sk4/4G4/9/9/9/9/9/9/9 w - 1";
    assert_category(adjacent, "5a5b", Category::KingEscape);
    assert_category(adjacent, "6a5b", Category::Capture);
}

#[test]
fn category_capture() {
    assert_category(EVASION, "8b5e", Category::Capture);
    // Neither 8b nor 5e is in White's promotion zone.
    assert_absent(EVASION, "8b5e+");
}

#[test]
fn category_drop_block() {
    for m in ["P*5b", "P*5c", "P*5d"] {
        assert_category(EVASION, m, Category::DropBlock);
    }
    assert_absent(EVASION, "P*4c");
}

#[test]
fn category_move_block() {
    assert_category(EVASION, "6c5c", Category::MoveBlock);
    assert_category(EVASION, "6c5d", Category::MoveBlock);
    assert_absent(EVASION, "6c6d");
    // Everything, and nothing else: 3 king moves, 1 capture, 3 drops, 2 blocks.
    let (mode, moves) = categorised(EVASION);
    assert_eq!(mode, Mode::Evasions);
    assert_eq!(moves.len(), 9, "{moves:?}");
}

// ---------------------------------------------------------------------------------------------
// Legality rules
// ---------------------------------------------------------------------------------------------

#[test]
fn pawn_drop_mate_is_excluded() {
    // White king 1a boxed in by its own knight (2a) and pawn (2b); the black gold on 1c
    // guards 1b: P*1b would mate.
    let mate = "7nk/7p1/8G/9/9/9/9/9/9 b P 1";
    assert_absent(mate, "P*1b");
    assert!(!is_legal_all(mate, "P*1b"));
    assert_eq!(pawn_drop_mates(pos(mate).inner()), vec![mv("P*1b")]);
    assert_category(mate, "1c1b", Category::Direct);
    // Without the knight the king escapes to 2a: the same drop is a legal check.
    let escape = "8k/7p1/8G/9/9/9/9/9/9 b P 1";
    assert_category(escape, "P*1b", Category::Drop);
    assert!(pawn_drop_mates(pos(escape).inner()).is_empty());

    // The gold on 2a could take the pawn but is pinned by the rook on 5a: still mate.
    let pinned = "4R2gk/9/8G/9/9/9/9/9/9 b P 1";
    assert_absent(pinned, "P*1b");
    assert_eq!(pawn_drop_mates(pos(pinned).inner()), vec![mv("P*1b")]);
    // Unpinned, the gold takes: the drop is a legal check.
    let unpinned = "7gk/9/8G/9/9/9/9/9/9 b P 1";
    assert_category(unpinned, "P*1b", Category::Drop);

    // The same rule for White: P*9h would mate the black king on 9i.
    let white = "9/9/9/9/9/9/g8/1P7/KN7 w p 1";
    assert_absent(white, "P*9h");
    assert_eq!(pawn_drop_mates(pos(white).inner()), vec![mv("P*9h")]);
    assert_category(white, "9g9h", Category::Direct);
}

#[test]
fn double_pawn_drop_is_excluded() {
    // A black pawn on 5g: no pawn may be dropped on file 5, not even with check.
    let nifu = "4k4/9/9/9/9/9/4P4/9/9 b P 1";
    assert_absent(nifu, "P*5b");
    assert!(
        legal_all(pos(nifu).inner())
            .iter()
            .all(|m| !(m.is_drop() && m.to_sq().file().raw() == 4))
    );
    // With the pawn on 4g instead, P*5b checks.
    let ok = "4k4/9/9/9/9/9/5P3/9/9 b P 1";
    assert_category(ok, "P*5b", Category::Drop);
}

#[test]
fn pieces_are_never_left_without_a_move() {
    // Pawn 1b, lance 9b, knights 2c and 8d: their moves to the last rank(s) only promote.
    let sfen = "4k4/L7P/7N1/1N7/9/9/9/9/4K4 b PLN 1";
    for m in ["1b1a+", "9b9a+", "2c1a+", "2c3a+", "8d7b+"] {
        assert!(is_legal_all(sfen, m), "{m} must be legal");
    }
    for m in ["1b1a", "9b9a", "2c1a", "2c3a", "8d7b"] {
        assert!(!is_legal_all(sfen, m), "{m} leaves a piece with no move");
    }
    // Drops: no pawn or lance on rank a, no knight on ranks a and b.
    let moves = legal_all(pos(sfen).inner());
    for m in &moves {
        if let Some(pt) = m.dropped_piece() {
            let rank = m.to_sq().rank().raw();
            let min = if pt == PieceType::KNIGHT { 2 } else { 1 };
            assert!(rank >= min, "{m} drops a piece with no move");
        }
    }
    for m in ["P*4b", "L*4b", "N*4c"] {
        assert!(moves.contains(&mv(m)), "{m}");
    }
    for m in ["P*4a", "L*4a", "N*4a", "N*4b"] {
        assert!(!moves.contains(&mv(m)), "{m}");
    }
    // The same for White, on ranks i and h.
    let white = "4k4/9/9/9/9/1n7/7n1/l7p/4K4 w pln 1";
    for m in ["1h1i+", "9h9i+", "2g1i+", "2g3i+", "8f7h+"] {
        assert!(is_legal_all(white, m), "{m} must be legal");
    }
    for m in [
        "1h1i", "9h9i", "2g1i", "2g3i", "8f7h", "P*4i", "L*4i", "N*4h",
    ] {
        assert!(!is_legal_all(white, m), "{m} leaves a piece with no move");
    }
}

#[test]
fn legal_non_promotions_are_generated() {
    // Pawn: 5c-5b checks promoted or not.
    let pawn = "4k4/9/4P4/9/9/9/9/9/9 b - 1";
    assert_category(pawn, "5c5b", Category::Direct);
    assert_category(pawn, "5c5b+", Category::Direct);
    // Lance: takes the pawn on 5b, promoted or not (to the second-to-last rank).
    let lance = "4k4/4p4/9/9/4L4/9/9/9/9 b - 1";
    assert_category(lance, "5e5b", Category::Direct);
    assert_category(lance, "5e5b+", Category::Direct);
    // Knight: see category_direct (only the non-promotions check there).
    let knight = "4k4/9/9/9/4N4/9/9/9/9 b - 1";
    assert_category(knight, "5e4c", Category::Direct);
    // Silver: 4c-4b and 4c-5b, both ways.
    let silver = "4k4/9/5S3/9/9/9/9/9/9 b - 1";
    for m in ["4c4b", "4c4b+", "4c5b", "4c5b+"] {
        assert_category(silver, m, Category::Direct);
    }
    // Bishop: 5e-3c and 5e-7c, both ways.
    let bishop = "4k4/9/9/9/4B4/9/9/9/9 b - 1";
    for m in ["5e3c", "5e3c+", "5e7c", "5e7c+"] {
        assert_category(bishop, m, Category::Direct);
    }
    // Rook: 4e-4a both ways; 4b only promoted (a dragon reaches 5a diagonally).
    let rook = "4k4/9/9/9/5R3/9/9/9/9 b - 1";
    for m in ["4e4a", "4e4a+", "4e4b+", "4e5e"] {
        assert_category(rook, m, Category::Direct);
    }
    assert_absent(rook, "4e4b");
}

#[test]
fn pinned_attacker_piece_stays_on_its_line() {
    // The black gold on 5h is pinned to the black king 5i by the white rook on 5a.
    let pinned = "4r4/9/9/9/9/5k3/9/4G4/4K4 b - 1";
    assert_category(pinned, "5h5g", Category::Direct);
    assert_absent(pinned, "5h4g");
    assert!(!is_legal_all(pinned, "5h4g"));
    // Without the black king nothing is pinned and 5h-4g checks too.
    let free = "4r4/9/9/9/9/5k3/9/4G4/9 b - 1";
    assert_category(free, "5h4g", Category::Direct);
    assert_category(free, "5h5g", Category::Direct);
}

#[test]
fn double_check_allows_only_king_moves() {
    // Knight 4c and rook 5f both check the white king on 5a (the knight came from 5e).
    // The silver on 3b could take the knight and a pawn could block the rook, were it a single
    // check.
    let sfen = "4k4/6s2/5N3/9/9/4R4/9/9/9 w p 1";
    let (mode, moves) = categorised(sfen);
    assert_eq!(mode, Mode::Evasions);
    assert!(!moves.is_empty());
    assert!(
        moves.iter().all(|(_, c)| *c == Category::KingEscape),
        "{moves:?}"
    );
    let got: BTreeSet<String> = moves.iter().map(|(m, _)| m.clone()).collect();
    let want: BTreeSet<String> = ["5a4a", "5a6a", "5a4b", "5a6b"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert_eq!(got, want);
    // The same position with only the knight checking (rook off the file): the silver may take.
    let single = "4k4/6s2/5N3/9/9/3R5/9/9/9 w p 1";
    assert_category(single, "3b4c", Category::Capture);
}

// ---------------------------------------------------------------------------------------------
// Parsing and position errors
// ---------------------------------------------------------------------------------------------

fn error_of(sfen: &str) -> PositionError {
    match Position::from_sfen(sfen) {
        Ok(p) => panic!("{sfen} accepted as {}", p.to_sfen()),
        Err(e) => e,
    }
}

#[test]
fn sfen_prefix_and_move_number_are_optional() {
    let full = "4k4/9/9/9/4B4/9/9/9/4R4 b G 1";
    let a = pos(full);
    for text in [
        "sfen 4k4/9/9/9/4B4/9/9/9/4R4 b G 1",
        "4k4/9/9/9/4B4/9/9/9/4R4 b G",
        "  sfen 4k4/9/9/9/4B4/9/9/9/4R4 b G  \n",
        "4k4/9/9/9/4B4/9/9/9/4R4 b G 1\n",
    ] {
        let b = pos(text);
        assert_eq!(b.to_sfen(), full, "{text:?}");
        assert!(a == b);
    }
    assert_eq!(
        pos("4k4/9/9/9/4B4/9/9/9/4R4 b G 17").to_sfen(),
        "4k4/9/9/9/4B4/9/9/9/4R4 b G 17"
    );
}

#[test]
fn accessors() {
    let p = pos("4k4/1b3P3/3g5/9/4R4/9/9/9/9 w 2Pp 1");
    assert_eq!(p.side_to_move(), Color::WHITE);
    assert!(p.in_check());
    let sq = |s: &str| Square::from_usi(s).unwrap();
    assert_eq!(p.piece_on(sq("5a")), Some((Color::WHITE, PieceType::KING)));
    assert_eq!(p.piece_on(sq("4b")), Some((Color::BLACK, PieceType::PAWN)));
    assert_eq!(p.piece_on(sq("5b")), None);
    assert_eq!(p.hand(Color::BLACK), [2, 0, 0, 0, 0, 0, 0]);
    assert_eq!(p.hand(Color::WHITE), [1, 0, 0, 0, 0, 0, 0]);
    assert!(p.pawn_on_file(Color::BLACK, sq("4b").file()));
    assert!(!p.pawn_on_file(Color::WHITE, sq("4b").file()));
    let after = p.after(mv("P*5c"));
    assert_eq!(after.to_sfen(), "4k4/1b3P3/3gp4/9/4R4/9/9/9/9 b 2P 2");
    assert!(!after.in_check());
    let d = pos("4k4/9/9/9/4+B4/9/9/9/4R4 b G2P 1").diagram();
    assert!(d.contains("|  .  .  .  .  k  .  .  .  .| a"), "{d}");
    assert!(d.contains("|  .  .  .  . +B  .  .  .  .| e"), "{d}");
    assert!(d.contains("Black hand: G 2P"), "{d}");
    assert!(d.contains("White hand: -"), "{d}");
}

#[test]
fn syntax_errors_quote_the_offending_part() {
    let cases = [
        ("", "empty"),
        ("4k4/9/9 b - 1", "3 ranks"),
        ("4k4/9/9/9/9/9/9/9/8 b - 1", "rank i `8`"),
        ("4k4/9/9/9/9/9/9/9/9 x - 1", "`x`"),
        ("4k4/9/9/9/9/9/9/9/9 b Q 1", "`Q` in the hand"),
        ("4x4/9/9/9/9/9/9/9/9 b - 1", "`x` in the board"),
        ("4k4/9/9/9/9/9/9/9/9 b - one", "move number `one`"),
        ("4k4/9/9/9/9/9/9/9/9 b - 1 extra", "`extra`"),
        ("4k4/9/9/9/9/9/9/9/9 b", "lacks the pieces in hand"),
    ];
    for (text, quoted) in cases {
        match error_of(text) {
            PositionError::Syntax(msg) => {
                assert!(
                    msg.contains(quoted),
                    "{text:?}: {msg:?} should mention {quoted:?}"
                );
            }
            e => panic!("{text:?}: {e:?}"),
        }
    }
}

#[test]
fn the_side_not_to_move_in_check_is_refused() {
    // Black to move with its rook on White's king file: White, not to move, is in check.
    assert_eq!(
        error_of("4k4/9/9/9/4R4/9/9/9/4K4 b - 1"),
        PositionError::SideNotToMoveInCheck(Color::WHITE)
    );
}

#[test]
fn a_missing_king_to_check_is_refused() {
    use PositionError as E;
    // Black to move, not in check: White must have a king to be checked.
    assert_eq!(
        error_of("9/9/9/9/9/9/9/9/4K4 b R 1"),
        E::NoKing(Color::WHITE)
    );
    assert_eq!(error_of("9/9/9/9/9/9/9/9/9 w R 1"), E::NoKing(Color::BLACK));
    // ... but the attacker may lack a king, and so may the side in check's opponent.
    pos("4k4/9/9/9/9/9/9/9/9 b R 1");
    pos("4k4/9/9/9/4R4/9/9/9/9 w - 1");
}

#[test]
fn two_kings_of_one_colour_are_refused() {
    use PositionError as E;
    assert_eq!(
        error_of("4k4/9/9/9/9/9/9/9/3KK4 b - 1"),
        E::TwoKings(Color::BLACK)
    );
    assert_eq!(
        error_of("kk7/9/9/9/9/9/9/9/4K4 b - 1"),
        E::TwoKings(Color::WHITE)
    );
    // Extra kings are reported as two kings of one colour.
    assert_eq!(
        error_of("4k4/9/9/9/9/9/9/9/2KK1K3 b - 1"),
        E::TwoKings(Color::BLACK)
    );
}

#[test]
fn double_pawns_are_refused() {
    use PositionError as E;
    assert_eq!(
        error_of("4k4/9/9/9/9/4P4/4P4/9/4K4 b - 1"),
        E::DoublePawn {
            color: Color::BLACK,
            file: 5
        }
    );
    assert_eq!(
        error_of("4k3p/8p/9/9/9/9/9/9/4K4 b - 1"),
        E::DoublePawn {
            color: Color::WHITE,
            file: 1
        }
    );
    // A promoted pawn does not count for double pawns.
    pos("4k4/9/9/9/9/4+P4/4P4/9/4K4 b - 1");
}

#[test]
fn pieces_without_a_move_are_refused() {
    let dead = |piece: &str, square: &str| PositionError::DeadPiece {
        piece: piece.to_string(),
        square: square.to_string(),
    };
    assert_eq!(
        error_of("P3k4/9/9/9/9/9/9/9/4K4 b - 1"),
        dead("Black pawn", "9a")
    );
    assert_eq!(
        error_of("4k3L/9/9/9/9/9/9/9/4K4 b - 1"),
        dead("Black lance", "1a")
    );
    assert_eq!(
        error_of("4k4/N8/9/9/9/9/9/9/4K4 b - 1"),
        dead("Black knight", "9b")
    );
    assert_eq!(
        error_of("4k4/9/9/9/9/9/9/9/4K3p b - 1"),
        dead("White pawn", "1i")
    );
    assert_eq!(
        error_of("4k4/9/9/9/9/9/9/8n/4K4 b - 1"),
        dead("White knight", "1h")
    );
    // Knights on the third rank from the end, promoted pieces anywhere: fine.
    pos("4k4/9/N8/9/9/9/8n/9/+P3K3+l b - 1");
}

#[test]
fn more_pieces_than_the_game_has_are_refused() {
    let too_many = |kind: &str, count: u32, max: u32| PositionError::TooManyPieces {
        kind: kind.to_string(),
        count,
        max,
    };
    assert_eq!(
        error_of("4k4/9/9/9/9/9/9/9/4K4 b 18Pp 1"),
        too_many("pawns", 19, 18)
    );
    assert_eq!(
        error_of("4k4/9/9/9/9/9/4+P4/9/4K4 b 17Pp 1"),
        too_many("pawns", 19, 18)
    );
    pos("4k4/9/9/9/9/9/9/9/4K4 b 17Pp 1");
    assert_eq!(
        error_of("4k4/9/9/9/4+B4/9/9/9/4K4 b 2B 1"),
        too_many("bishops", 3, 2)
    );
    assert_eq!(
        error_of("4k4/9/9/9/9/9/9/9/4K4 b 3R 1"),
        too_many("rooks", 3, 2)
    );
    assert_eq!(
        error_of("4k4/9/9/9/9/9/9/9/4K4 b 4B 1"),
        too_many("bishops", 4, 2)
    );
    assert_eq!(
        error_of("4k4/9/9/9/9/9/9/9/4K4 b 3G2g 1"),
        too_many("golds", 5, 4)
    );
    assert_eq!(
        error_of("4k4/9/9/9/9/9/9/9/4K4 b 3S2s 1"),
        too_many("silvers", 5, 4)
    );
    assert_eq!(
        error_of("4k4/9/9/9/9/9/9/9/4K4 b 3N2n 1"),
        too_many("knights", 5, 4)
    );
    assert_eq!(
        error_of("4k4/9/9/9/9/9/9/9/4K4 b 3L2l 1"),
        too_many("lances", 5, 4)
    );
}

#[test]
fn more_than_two_checkers_are_refused() {
    // Knight 4c, rook 5f and bishop 8d all check 5a: no move does that.
    assert_eq!(
        error_of("4k4/9/5N3/1B7/9/4R4/9/9/9 w - 1"),
        PositionError::TooManyCheckers {
            color: Color::WHITE,
            count: 3
        }
    );
}

#[test]
fn every_position_error_names_the_fix() {
    // Every message names the fix.
    for e in [
        error_of("4k4/9/9/9/4R4/9/9/9/4K4 b - 1"),
        error_of("9/9/9/9/9/9/9/9/4K4 b R 1"),
        error_of("4k4/9/9/9/9/9/9/9/3KK4 b - 1"),
        error_of("4k4/9/9/9/9/4P4/4P4/9/4K4 b - 1"),
        error_of("P3k4/9/9/9/9/9/9/9/4K4 b - 1"),
        error_of("4k4/9/9/9/9/9/9/9/4K4 b 3R 1"),
        error_of("4k4/9/5N3/1B7/9/4R4/9/9/9 w - 1"),
    ] {
        let msg = e.to_string();
        assert!(
            ["remove", "add", "give the move", "promote"]
                .iter()
                .any(|w| msg.contains(w)),
            "{msg}"
        );
    }
}
