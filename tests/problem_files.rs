//! Problem files as composers keep them (`tests/data/problems/`): the KIF (Shift_JIS), KIFU
//! (UTF-8) and CSA files of one problem read to the position of its SFEN file; malformed
//! files give errors naming their line; a folder reads every file and reports the bad ones;
//! the Japanese notation of a line names the moves the line makes.

use std::path::{Path, PathBuf};

use tsume::input::kif::{line_ja, numbered_ja};
use tsume::input::{Format, Input, problem_of, read_folder, read_positions, read_problem};
use tsume::position::Position;
use tsume::rsshogi::types::{Ki2Notation, Move};

fn problems() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/problems")
}

/// The SFEN of mate3.sfen: the reference the other files of the problem must read to.
fn reference() -> Position {
    let inputs = read_positions(&problems().join("mate3.sfen")).unwrap();
    assert_eq!(inputs.len(), 1);
    Position::from_sfen(&inputs[0].sfen).unwrap()
}

#[test]
fn kif_kifu_and_csa_read_to_the_position_of_the_sfen() {
    let want = reference();
    // The KIF is Shift_JIS (not UTF-8), as composers' tools write it.
    let kif = std::fs::read(problems().join("mate3.kif")).unwrap();
    assert!(std::str::from_utf8(&kif).is_err(), "mate3.kif is Shift_JIS");
    for (file, title) in [
        ("mate3.kif", "龍と馬の三手詰"),
        ("mate3.kifu", "龍と馬の三手詰 (UTF-8)"),
        ("mate3.csa", "dragon and horse, mate in 3"),
    ] {
        let path = problems().join(file);
        let input = read_problem(&path).unwrap_or_else(|e| panic!("{file}: {e:#}"));
        let pos = Position::from_sfen(&input.sfen).unwrap();
        assert_eq!(pos, want, "{file} reads as {}", input.sfen);
        assert_eq!(pos.to_sfen(), want.to_sfen(), "{file}");
        let name = format!("{} ({title})", path.display());
        assert_eq!(input.name.as_deref(), Some(name.as_str()));
        assert_eq!(input.label, name);
        assert_eq!(input.error, None);
        // read_positions takes a problem file as read_problem does.
        assert_eq!(read_positions(&path).unwrap(), [input]);
    }
}

#[test]
fn shift_jis_made_by_encoding_rs_reads_as_the_utf8_file() {
    let utf8 = std::fs::read_to_string(problems().join("mate3.kifu")).unwrap();
    let (sjis, _, unmappable) = encoding_rs::SHIFT_JIS.encode(&utf8);
    assert!(!unmappable);
    let a = problem_of("a.kif", Format::Kif, &sjis).unwrap();
    let b = problem_of("b.kifu", Format::Kifu, utf8.as_bytes()).unwrap();
    assert_eq!(a.sfen, b.sfen);
    // A .kifu is UTF-8: Shift_JIS bytes there are refused, saying so.
    let e = problem_of("c.kifu", Format::Kifu, &sjis).unwrap_err();
    assert!(e.contains("UTF-8"), "{e}");
}

/// The error of a bad file, as a command gives it.
fn error_of(file: &str) -> String {
    let e = read_problem(&problems().join("bad").join(file)).unwrap_err();
    let e = format!("{e:#}");
    assert!(e.contains(file), "the error names the file: {e}");
    e
}

#[test]
fn malformed_files_name_the_line_and_what_to_write() {
    let e = error_of("bad-row.kif");
    assert!(
        e.contains("line 6 `| ・ ・ ・ ・ ・ 龍 ・ 馬v香 ・|三`") && e.contains("a row has 18"),
        "{e}"
    );
    let e = error_of("unknown-piece.kifu");
    assert!(
        e.contains("line 7 ") && e.contains("`犬` is not a piece"),
        "{e}"
    );
    let e = error_of("bad-hand.kifu");
    assert!(
        e.contains("line 14 `先手の持駒：歩X`") && e.contains("`X` is not a piece of a hand"),
        "{e}"
    );
    let e = error_of("no-hand-line.kifu");
    assert!(
        e.contains("no `後手の持駒：` line") && e.contains("残り全部"),
        "{e}"
    );
    let e = error_of("bad-piece.csa");
    assert!(
        e.contains("line 6 `P3 ") && e.contains("`XX` is not a piece"),
        "{e}"
    );
    let e = error_of("two-kings.csa");
    assert!(
        e.contains("not a position of the game") && e.contains("two Black kings"),
        "{e}"
    );
}

#[test]
fn impossible_hands_and_missing_diagrams_are_refused() {
    let kifu = std::fs::read_to_string(problems().join("mate3.kifu")).unwrap();
    // Nineteen pawns: more than the game has.
    let text = kifu.replace("先手の持駒：歩", "先手の持駒：歩三");
    let e = problem_of("p.kifu", Format::Kifu, text.as_bytes()).unwrap_err();
    assert!(e.contains("not a position of the game"), "{e}");
    let e = problem_of(
        "p.kifu",
        Format::Kifu,
        "作品名：x\n先手の持駒：なし\n".as_bytes(),
    )
    .unwrap_err();
    assert!(e.contains("no board diagram"), "{e}");
    // 残り全部 with more pieces counted than the game has: no rest to give.
    let text = std::fs::read_to_string(problems().join("mate3.kifu"))
        .unwrap()
        .replace("飛　角　金四　銀四　桂四　香三　歩十六", "残り全部")
        .replace("先手の持駒：歩", "先手の持駒：歩十八");
    let e = problem_of("p.kifu", Format::Kifu, text.as_bytes()).unwrap_err();
    assert!(e.contains("19 pawns (歩)"), "{e}");
}

#[test]
fn a_folder_reads_every_file_and_reports_the_bad_ones() {
    let inputs = read_folder(&problems().join("bad")).unwrap();
    let files: Vec<String> = inputs
        .iter()
        .map(|i| {
            Path::new(i.label.split(' ').next().unwrap())
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let mut sorted = files.clone();
    sorted.sort();
    assert_eq!(files, sorted, "sorted by name");
    assert_eq!(inputs.len(), 7, "{files:?}");
    let good: Vec<&Input> = inputs.iter().filter(|i| i.error.is_none()).collect();
    assert_eq!(good.len(), 1, "{inputs:#?}");
    assert_eq!(
        Position::from_sfen(&good[0].sfen).unwrap(),
        reference(),
        "good.csa"
    );
    for bad in inputs.iter().filter(|i| i.error.is_some()) {
        assert!(bad.position().is_err());
        assert!(bad.sfen.is_empty(), "{bad:?}");
    }
    // The problems' folder: the four files of the one problem, in order.
    let inputs = read_positions(&problems()).unwrap();
    let want = reference();
    assert_eq!(inputs.len(), 4, "{inputs:#?}");
    for input in &inputs {
        assert_eq!(input.position().unwrap(), want, "{}", input.label);
    }
    assert!(
        inputs[3].label.ends_with("mate3.sfen line 2"),
        "{inputs:#?}"
    );
}

#[test]
fn the_japanese_line_names_the_moves_of_the_line() {
    let pos = reference();
    // A mate the solver finds here (checked by the CLI test); each Japanese move must
    // name, in its position, exactly the move of the line.
    let line: Vec<Move> = ["4c3b", "2a1a", "2c2b"]
        .iter()
        .map(|m| Move::from_usi(m).unwrap())
        .collect();
    let ja = line_ja(&pos, &line);
    assert_eq!(ja.len(), 3);
    let mut inner = pos.inner().clone_compact();
    for (mv, text) in line.iter().zip(&ja) {
        let notation: Ki2Notation = text.parse().unwrap_or_else(|_| panic!("{text}"));
        let back = notation.to_move32(&inner).unwrap();
        assert_eq!(back.to_usi(), mv.to_usi(), "{text}");
        inner.apply_move(*mv);
    }
    assert!(ja[0].starts_with('▲') && ja[1].starts_with('△'), "{ja:?}");
    let numbered = numbered_ja(&ja);
    assert!(
        numbered.starts_with(&format!("1 {}  2 {}", ja[0], ja[1]))
            && numbered.ends_with("まで3手詰"),
        "{numbered}"
    );
}
