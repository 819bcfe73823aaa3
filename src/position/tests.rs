//! The position parser and its rules.

use super::*;

#[test]
fn round_trip() {
    let text = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";
    let p = Position::from_sfen(text).unwrap();
    assert_eq!(p.to_sfen(), text);
    assert_eq!(p.king_square(Color::BLACK), Square::from_usi("5i"));
    assert!(!p.in_check());
    assert_eq!(text.parse::<Position>().unwrap(), p);
}

#[test]
fn attacker_without_king() {
    let p = Position::from_sfen("sfen 4k4/9/9/9/9/9/9/9/9 b R").unwrap();
    assert_eq!(p.king_square(Color::BLACK), None);
    assert_eq!(p.hand(Color::BLACK), [0, 0, 0, 0, 0, 1, 0]);
}

#[test]
fn shogi_tools_positions_are_read_after_their_moves() {
    let after = "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2";
    for text in [
        "startpos moves 7g7f",
        "position startpos moves 7g7f",
        "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 7g7f",
        "sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 7g7f",
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - moves 7g7f",
    ] {
        let p = Position::from_usi(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(p.to_sfen(), after, "{text}");
    }
    for text in ["startpos", "position startpos", "startpos moves", STARTPOS] {
        assert_eq!(
            Position::from_usi(text).unwrap().to_sfen(),
            STARTPOS,
            "{text}"
        );
    }
    let p: Position = "startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e".parse().unwrap();
    assert_eq!(
        p.to_sfen(),
        "lnsgkg1nl/1r5s1/pppppp1pp/6p2/5B3/2P6/PP1PPPPPP/7R1/LNSGKGSNL w b 6"
    );
}

#[test]
fn a_bad_move_is_named_with_its_place() {
    let e = Position::from_usi("startpos moves 7g7f 3c3d 7f7e 8h2b").unwrap_err();
    assert_eq!(
        e,
        PositionError::BadMove {
            index: 4,
            usi: "8h2b".to_string(),
            reason: "not a legal move in \
                     `lnsgkgsnl/1r5b1/pppppp1pp/6p2/2P6/9/PP1PPPPPP/1B5R1/LNSGKGSNL w - 4`"
                .to_string(),
        },
        "{e}"
    );
    let e = Position::from_usi("startpos moves 7g7f xyz").unwrap_err();
    assert!(
        matches!(&e, PositionError::BadMove { index: 2, usi, .. } if usi == "xyz"),
        "{e:?}"
    );
    assert!(e.to_string().contains("not a move in USI notation"), "{e}");
    let e = Position::from_usi("moves 7g7f").unwrap_err();
    assert!(matches!(&e, PositionError::Syntax(m) if m.contains("no position before")));
    // The position after the moves obeys the rules too: Black, without a king, has
    // moved and White is not in check.
    let e = Position::from_usi("4k4/9/9/9/9/9/9/9/9 b R moves R*1i").unwrap_err();
    assert_eq!(e, PositionError::NoKing(Color::BLACK));
}

#[test]
fn both_kings_in_check_is_named_as_such() {
    // Black's rook checks the White king, White's rook the Black king; Black to move.
    let e = Position::from_sfen("4k3r/9/9/9/4R4/9/9/9/8K b - 1").unwrap_err();
    assert_eq!(e, PositionError::BothKingsInCheck(Color::WHITE));
    let text = e.to_string();
    assert!(
        text.contains("remove the check on the White king") && !text.contains("give the move"),
        "{text}"
    );
    // One king in check, not to move: the advice may give it the move.
    let e = Position::from_sfen("4k4/9/9/9/4R4/9/9/9/8K b - 1").unwrap_err();
    assert_eq!(e, PositionError::SideNotToMoveInCheck(Color::WHITE));
}

#[test]
fn a_byte_order_mark_is_skipped() {
    let p = Position::from_usi("\u{feff}4k4/9/4P4/9/9/9/9/9/9 b G 1").unwrap();
    assert_eq!(p.to_sfen(), "4k4/9/4P4/9/9/9/9/9/9 b G 1");
    let p = Position::from_sfen("\u{feff}sfen 4k4/9/4P4/9/9/9/9/9/9 b G 1").unwrap();
    assert_eq!(p.to_sfen(), "4k4/9/4P4/9/9/9/9/9/9 b G 1");
}
