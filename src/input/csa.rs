//! The CSA reader of a tsume problem: `P1`..`P9` rows (or `PI`, the initial position less
//! some pieces), `P+`/`P-` pieces (`00FU` in hand, `00AL` all the rest), the side to move
//! (`+`/`-`).
//!
//! rsshogi has a CSA reader (`records` feature, `parse_csa_str`), but not for a problem: its
//! `00AL` fills a side's hand up to one side's share of the initial position (9 pawns, less
//! only that side's own pieces on the board), where a tsume problem's `00AL` is every piece
//! neither on the board (either side's) nor in the other hand; and its errors carry no line
//! number. This reader is strict: a line it cannot read is an error naming its number. Moves
//! after the position (`+5253KI`, `%TORYO`) are not read.

use super::setup::{KING, LineError, Piece, Setup, Side};

/// A problem as a CSA file gives it: its setup and its title (`$EVENT`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CsaProblem {
    pub setup: Setup,
    pub title: Option<String>,
}

/// The kind and promotion of a CSA piece code.
fn piece_code(code: &str) -> Option<(usize, bool)> {
    Some(match code {
        "FU" => (0, false),
        "KY" => (1, false),
        "KE" => (2, false),
        "GI" => (3, false),
        "KI" => (4, false),
        "KA" => (5, false),
        "HI" => (6, false),
        "OU" => (KING, false),
        "TO" => (0, true),
        "NY" => (1, true),
        "NK" => (2, true),
        "NG" => (3, true),
        "UM" => (5, true),
        "RY" => (6, true),
        _ => return None,
    })
}

const PIECES_HELP: &str = "FU KY KE GI KI KA HI OU, promoted TO NY NK NG UM RY";

/// The initial position, by its `P1`..`P9` rows.
const INITIAL: [&str; 9] = [
    "-KY-KE-GI-KI-OU-KI-GI-KE-KY",
    " * -HI *  *  *  *  * -KA * ",
    "-FU-FU-FU-FU-FU-FU-FU-FU-FU",
    " *  *  *  *  *  *  *  *  * ",
    " *  *  *  *  *  *  *  *  * ",
    " *  *  *  *  *  *  *  *  * ",
    "+FU+FU+FU+FU+FU+FU+FU+FU+FU",
    " *  * +KA *  *  *  * +HI * ",
    "+KY+KE+GI+KI+OU+KI+GI+KE+KY",
];

/// Row `rank`'s cells (`cells`, as after `P1`) read into `setup`.
fn read_row(setup: &mut Setup, rank: usize, cells: &str) -> Result<(), String> {
    if !cells.is_ascii() {
        return Err("a CSA row is ASCII: nine cells of three characters".to_string());
    }
    let cells = format!("{cells:<27}");
    if cells.len() != 27 {
        return Err(format!(
            "{} characters after `P{rank}`, a row has 27: nine cells of three (` * ` empty, \
             `+FU` sente's, `-FU` gote's)",
            cells.trim_end().len()
        ));
    }
    for (i, cell) in cells.as_bytes().chunks_exact(3).enumerate() {
        let file = 9 - i;
        let cell = std::str::from_utf8(cell).expect("ASCII");
        if cell.trim() == "*" || cell.trim().is_empty() {
            continue;
        }
        let side = match &cell[..1] {
            "+" => Side::Sente,
            "-" => Side::Gote,
            _ => {
                return Err(format!(
                    "cell of file {file} `{cell}`: a piece is `+` (sente) or `-` (gote) and its \
                     code ({PIECES_HELP}), an empty square ` * `"
                ));
            }
        };
        let (kind, promoted) = piece_code(&cell[1..]).ok_or_else(|| {
            format!(
                "cell of file {file} `{cell}`: `{}` is not a piece ({PIECES_HELP})",
                &cell[1..]
            )
        })?;
        setup.put(
            file,
            rank,
            Piece {
                side,
                kind,
                promoted,
            },
        );
    }
    Ok(())
}

/// The pieces of a `P+`/`P-` line (`00FU` in hand, `00AL` the rest, `53KI` on a square).
fn read_pieces(setup: &mut Setup, side: Side, items: &str) -> Result<(), String> {
    let items = items.trim_end();
    if !items.is_ascii() || !items.len().is_multiple_of(4) || items.is_empty() {
        return Err(format!(
            "pieces are four characters each: a square and a piece (`53KI`), `00FU` for one in \
             hand, `00AL` for all the rest ({PIECES_HELP})"
        ));
    }
    for item in items.as_bytes().chunks_exact(4) {
        let item = std::str::from_utf8(item).expect("ASCII");
        let (square, code) = item.split_at(2);
        if square == "00" {
            if code == "AL" {
                if setup.rest.is_some_and(|s| s != side) {
                    return Err("both sides hold `00AL`: give the rest to one side".to_string());
                }
                setup.rest = Some(side);
                continue;
            }
            match piece_code(code) {
                Some((kind, false)) if kind != KING => setup.hands[side.index()][kind] += 1,
                Some(_) => {
                    return Err(format!(
                        "`{item}`: a hand holds unpromoted pieces and no king (FU KY KE GI KI KA \
                         HI)"
                    ));
                }
                None => return Err(format!("`{item}`: `{code}` is not a piece ({PIECES_HELP})")),
            }
            continue;
        }
        let digits: Vec<usize> = square
            .chars()
            .filter_map(|c| c.to_digit(10).map(|d| d as usize))
            .collect();
        let (file, rank) = match digits[..] {
            [f, r] if (1..=9).contains(&f) && (1..=9).contains(&r) => (f, r),
            _ => {
                return Err(format!(
                    "`{item}`: `{square}` is not a square (file then rank, 11 to 99; 00 for a hand)"
                ));
            }
        };
        let (kind, promoted) = piece_code(code)
            .ok_or_else(|| format!("`{item}`: `{code}` is not a piece ({PIECES_HELP})"))?;
        if setup.at(file, rank).is_some() {
            return Err(format!(
                "`{item}`: the square {square} already holds a piece"
            ));
        }
        setup.put(
            file,
            rank,
            Piece {
                side,
                kind,
                promoted,
            },
        );
    }
    Ok(())
}

/// The problem of a CSA file's text.
pub fn parse_csa(text: &str) -> Result<CsaProblem, LineError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut setup = Setup::default();
    let mut rows = [0usize; 9];
    let mut initial = None;
    let mut title = None;
    for (i, line) in text.lines().enumerate() {
        let number = i + 1;
        let t = line.trim_end_matches('\r').trim_end();
        let err = |what: String| LineError::at(number, line, what);
        if t.trim().is_empty() || t.starts_with(['\'', 'V', 'N', 'T']) {
            continue;
        }
        if let Some(meta) = t.strip_prefix('$') {
            if let Some(("EVENT", value)) = meta.split_once(':')
                && !value.trim().is_empty()
            {
                title = Some(value.trim().to_string());
            }
            continue;
        }
        match t {
            "+" => setup.turn = Side::Sente,
            "-" => setup.turn = Side::Gote,
            // The moves and the end of a game are not read.
            _ if t.starts_with(['+', '-', '%']) => break,
            _ if t.starts_with("PI") => {
                if rows.iter().any(|&r| r > 0) || initial.is_some() {
                    return Err(err(
                        "`PI` and `P1`..`P9` both set the board: give one of them".to_string(),
                    ));
                }
                initial = Some(number);
                for (r, row) in INITIAL.iter().enumerate() {
                    read_row(&mut setup, r + 1, row).expect("the initial position");
                }
                let removed = &t[2..];
                if !removed.len().is_multiple_of(4) || !removed.is_ascii() {
                    return Err(err(
                        "`PI` is followed by the pieces taken off, four characters each \
                         (`82HI22KA`)"
                            .to_string(),
                    ));
                }
                for item in removed.as_bytes().chunks_exact(4) {
                    let item = std::str::from_utf8(item).expect("ASCII");
                    let file = item[..1].parse::<usize>().unwrap_or(0);
                    let rank = item[1..2].parse::<usize>().unwrap_or(0);
                    let (kind, _) = piece_code(&item[2..]).unwrap_or((usize::MAX, false));
                    let there = (1..=9).contains(&file) && (1..=9).contains(&rank);
                    if !there || setup.at(file, rank).is_none_or(|p| p.kind != kind) {
                        return Err(err(format!(
                            "`{item}`: the initial position has no such piece to take off"
                        )));
                    }
                    setup.board[rank - 1][9 - file] = None;
                }
            }
            _ if t.starts_with("P+") || t.starts_with("P-") => {
                let side = if t.starts_with("P+") {
                    Side::Sente
                } else {
                    Side::Gote
                };
                read_pieces(&mut setup, side, &t[2..]).map_err(err)?;
            }
            _ if t.len() >= 2 && t.starts_with('P') && t.as_bytes()[1].is_ascii_digit() => {
                let rank = usize::from(t.as_bytes()[1] - b'0');
                if !(1..=9).contains(&rank) {
                    return Err(err("the rows are P1 to P9".to_string()));
                }
                if initial.is_some() {
                    return Err(err(
                        "`PI` and `P1`..`P9` both set the board: give one of them".to_string(),
                    ));
                }
                if rows[rank - 1] > 0 {
                    return Err(err(format!(
                        "row P{rank} again (first on line {})",
                        rows[rank - 1]
                    )));
                }
                rows[rank - 1] = number;
                read_row(&mut setup, rank, &t[2..]).map_err(err)?;
            }
            _ => {
                return Err(err(
                    "not a line of a CSA position: `P1`..`P9` rows, `PI`, `P+`/`P-` pieces, \
                     `+`/`-` (the side to move), `$KEY:value`, `N+`/`N-` names or a `'` comment"
                        .to_string(),
                ));
            }
        }
    }
    let given = rows.iter().filter(|&&r| r > 0).count();
    if given > 0 && given < 9 {
        let missing: Vec<String> = (1..=9)
            .filter(|r| rows[r - 1] == 0)
            .map(|r| format!("P{r}"))
            .collect();
        return Err(LineError::file(format!(
            "the board has rows P1 to P9, {} missing (an empty row is `P5 *  *  *  *  *  *  *  \
             *  * `)",
            missing.join(", ")
        )));
    }
    if given == 0 && initial.is_none() && setup.board.iter().flatten().all(Option::is_none) {
        return Err(LineError::file(
            "no position: give the board as `P1`..`P9` rows (or pieces as `P+53KI`, `P-51OU`)",
        ));
    }
    Ok(CsaProblem { setup, title })
}
