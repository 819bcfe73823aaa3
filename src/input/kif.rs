//! The KIF/KIFU reader of a tsume problem (a board diagram, "BOD", with its hands), and the
//! Japanese notation of a line (`▲３三角打 △同　玉 ...`).
//!
//! rsshogi has a KIF reader (`records` feature, `parse_kif_str`), but it does not serve a
//! problem file: its errors carry a line's text and no number, its hands skip what they
//! cannot read (`歩X` reads as one pawn, `残り全部` as an empty hand), and it knows neither
//! `残り全部` nor a `手番：` line. This reader keeps to the same diagram and is strict: every
//! line it cannot read is an error naming its number and what to write. The moves that may
//! follow the diagram (`手数----指手--`, the composer's answer) are not read. The notation of a
//! line is rsshogi's (KI2, as composers write: `打` only where a piece on the board could
//! also go to the square, `同　玉`, `右`/`直`, `成`/`不成`).

use rsshogi::types::Move;

use super::setup::{KING, LineError, NAMES_JA, Piece, Setup, Side, TOTALS};
use crate::position::Position;

/// A problem as a KIF/KIFU file gives it: its setup and its title.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KifProblem {
    pub setup: Setup,
    /// The `作品名` (or `表題`) header.
    pub title: Option<String>,
}

const RANKS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];

/// How to write a board row.
const ROW_HELP: &str = "a row of the diagram is `|`, nine cells of two characters (` ・` \
                        empty, ` 歩` sente's, `v歩` gote's), `|` and the rank (一 to 九)";

/// The kind and promotion of a piece's one-character name on a diagram.
fn board_piece(c: char) -> Option<(usize, bool)> {
    Some(match c {
        '歩' => (0, false),
        '香' => (1, false),
        '桂' => (2, false),
        '銀' => (3, false),
        '金' => (4, false),
        '角' => (5, false),
        '飛' => (6, false),
        '玉' | '王' => (KING, false),
        'と' => (0, true),
        '杏' => (1, true),
        '圭' => (2, true),
        '全' => (3, true),
        '馬' => (5, true),
        '龍' | '竜' => (6, true),
        _ => return None,
    })
}

/// A hand's kind of a name.
fn hand_kind(c: char) -> Option<usize> {
    NAMES_JA[..KING].iter().position(|n| n.starts_with(c))
}

/// A count as written after a piece in hand: 二, 十, 十八 (or digits: 2, １８).
fn count_of(text: &str) -> Option<u32> {
    let digit = |c: char| -> Option<u32> {
        if let Some(i) = RANKS.iter().position(|r| *r == c) {
            return Some(i as u32 + 1);
        }
        match c {
            '0'..='9' => Some(c as u32 - '0' as u32),
            '０'..='９' => Some(c as u32 - '０' as u32),
            _ => None,
        }
    };
    if text
        .chars()
        .all(|c| c.is_ascii_digit() || ('０'..='９').contains(&c))
    {
        return text.chars().try_fold(0u32, |n, c| Some(n * 10 + digit(c)?));
    }
    match text.split_once('十') {
        Some((tens, ones)) => {
            let tens = match tens {
                "" => 1,
                t if t.chars().count() == 1 => digit(t.chars().next()?)?,
                _ => return None,
            };
            let ones = match ones {
                "" => 0,
                o if o.chars().count() == 1 => digit(o.chars().next()?)?,
                _ => return None,
            };
            Some(tens * 10 + ones)
        }
        None if text.chars().count() == 1 => digit(text.chars().next()?),
        None => None,
    }
}

/// What a hand line holds: counted pieces, or all the rest.
enum Hand {
    Counted([u8; 7]),
    Rest,
}

/// The pieces of a hand line's value (`歩十八 金二`, `なし`, `残り全部`).
fn hand_of(value: &str) -> Result<Hand, String> {
    let text: String = value.chars().filter(|c| !c.is_whitespace()).collect();
    if text.is_empty() || text == "なし" {
        return Ok(Hand::Counted([0; 7]));
    }
    if matches!(
        text.as_str(),
        "残り全部" | "残り全て" | "残りすべて" | "残り"
    ) {
        return Ok(Hand::Rest);
    }
    let chars: Vec<char> = text.chars().collect();
    let mut hand = [0u8; 7];
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let Some(kind) = hand_kind(c) else {
            let what = if c == '玉' || c == '王' {
                "a king is never in hand".to_string()
            } else {
                format!("`{c}` is not a piece of a hand")
            };
            return Err(format!(
                "{what}: write the pieces as 歩 香 桂 銀 金 角 飛, each followed by its count \
                 in kanji when more than one (`歩十八 金二`), or `なし` for none, or `残り全部` \
                 for all the pieces neither on the board nor in the other hand"
            ));
        };
        i += 1;
        let start = i;
        let counting = |c: char| {
            RANKS.contains(&c) || c == '十' || c.is_ascii_digit() || ('０'..='９').contains(&c)
        };
        while i < chars.len() && counting(chars[i]) {
            i += 1;
        }
        let written: String = chars[start..i].iter().collect();
        let n = if written.is_empty() {
            1
        } else {
            count_of(&written).ok_or_else(|| {
                format!(
                    "`{}{written}`: `{written}` is not a count; write it in kanji (`{}十八`, \
                     `{}二`)",
                    NAMES_JA[kind], NAMES_JA[kind], NAMES_JA[kind]
                )
            })?
        };
        let total = u32::from(hand[kind]) + n;
        if n == 0 || total > u32::from(TOTALS[kind]) {
            return Err(format!(
                "{total} {} in one hand: the game has {} of them",
                NAMES_JA[kind], TOTALS[kind]
            ));
        }
        hand[kind] = total as u8;
    }
    Ok(Hand::Counted(hand))
}

/// The side of a `手番：` value.
fn side_of(value: &str) -> Option<Side> {
    match value.trim().trim_end_matches('番') {
        "先手" | "下手" | "▲" | "☗" => Some(Side::Sente),
        "後手" | "上手" | "△" | "☖" => Some(Side::Gote),
        _ => None,
    }
}

/// A row of the diagram, rank `rank` (1..=9), read into `setup`.
fn read_row(setup: &mut Setup, number: usize, line: &str, rank: usize) -> Result<(), LineError> {
    let err = |what: String| LineError::at(number, line, what);
    let text = line.trim();
    let Some(body) = text.strip_prefix('|') else {
        return Err(err(format!(
            "the diagram has nine rows, this is not row {}: {ROW_HELP}",
            RANKS[rank - 1]
        )));
    };
    let Some((cells, after)) = body.split_once('|') else {
        return Err(err(format!("no closing `|`: {ROW_HELP}")));
    };
    let cells: Vec<char> = cells.chars().collect();
    if cells.len() != 18 {
        return Err(err(format!(
            "{} characters between the `|`s, a row has 18 (nine cells of two): {ROW_HELP}",
            cells.len()
        )));
    }
    if let Some(c) = after.trim().chars().next()
        && c != RANKS[rank - 1]
    {
        return Err(err(format!(
            "row {} of the diagram is marked `{c}`: the rows run 一 to 九 from the top",
            RANKS[rank - 1]
        )));
    }
    for (i, cell) in cells.chunks_exact(2).enumerate() {
        let file = 9 - i;
        if cell[1] == '・' && cell[0] == ' ' {
            continue;
        }
        let side = match cell[0] {
            ' ' | '+' | '^' => Side::Sente,
            'v' | 'V' => Side::Gote,
            c => {
                return Err(err(format!(
                    "cell of file {file}: `{c}` is not a side's mark (a space for sente's \
                     pieces, `v` for gote's); {ROW_HELP}"
                )));
            }
        };
        let Some((kind, promoted)) = board_piece(cell[1]) else {
            return Err(err(format!(
                "cell of file {file}: `{}` is not a piece: write 歩 香 桂 銀 金 角 飛 玉, \
                 promoted と 杏 圭 全 馬 龍, or ・ for an empty square",
                cell[1]
            )));
        };
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

/// The problem of a KIF/KIFU file's text.
pub fn parse_kif(text: &str) -> Result<KifProblem, LineError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    let mut setup = Setup::default();
    let mut board = false;
    let mut hands: [Option<usize>; 2] = [None; 2];
    let mut title: Option<(bool, String)> = None;
    let mut i = 0;
    while i < lines.len() {
        let number = i + 1;
        let line = lines[i];
        let t = line.trim();
        i += 1;
        if t.is_empty() || t.starts_with(['#', '*', '&']) {
            continue;
        }
        // The moves (a composer's answer) and the summary after them are not read.
        if t.starts_with("手数") || t.starts_with("まで") || t.starts_with("変化") {
            break;
        }
        if board && t.starts_with(|c: char| c.is_ascii_digit()) {
            break;
        }
        match t {
            "先手番" | "下手番" => {
                setup.turn = Side::Sente;
                continue;
            }
            "後手番" | "上手番" => {
                setup.turn = Side::Gote;
                continue;
            }
            _ => {}
        }
        if t.starts_with('９') && t.contains('１') {
            if board {
                return Err(LineError::at(
                    number,
                    line,
                    "a second board diagram: a KIF problem file holds one problem",
                ));
            }
            board = true;
            let top = lines.get(i).copied().unwrap_or("");
            if !top.trim().starts_with('+') {
                return Err(LineError::at(
                    i + 1,
                    top,
                    "the diagram's top border `+---------------------------+` should follow \
                     its file numbers",
                ));
            }
            i += 1;
            for rank in 1..=9 {
                let row = lines.get(i).copied().unwrap_or("");
                read_row(&mut setup, i + 1, row, rank)?;
                i += 1;
            }
            let bottom = lines.get(i).copied().unwrap_or("");
            if !bottom.trim().starts_with('+') {
                return Err(LineError::at(
                    i + 1,
                    bottom,
                    "the diagram has nine rows, then its bottom border \
                     `+---------------------------+`",
                ));
            }
            i += 1;
            continue;
        }
        let Some((key, value)) = t.split_once(['：', ':']) else {
            let what = if t.contains("持駒") {
                "write a hand as `先手の持駒：` (or `後手の持駒：`) then its pieces (`歩十八 金二`, \
                 `なし`, `残り全部`)"
            } else {
                "not a line of a KIF problem: a header `key：value`, the board diagram, the \
                 hands (`先手の持駒：...`), `先手番`/`後手番`, or a comment (`*`, `#`)"
            };
            return Err(LineError::at(number, line, what));
        };
        let key = key.trim();
        let side = match key {
            "先手の持駒" | "下手の持駒" => Some(Side::Sente),
            "後手の持駒" | "上手の持駒" => Some(Side::Gote),
            _ => None,
        };
        if let Some(side) = side {
            if let Some(first) = hands[side.index()] {
                return Err(LineError::at(
                    number,
                    line,
                    format!("{}'s hand again (first on line {first})", side.ja()),
                ));
            }
            hands[side.index()] = Some(number);
            match hand_of(value).map_err(|what| LineError::at(number, line, what))? {
                Hand::Counted(hand) => setup.hands[side.index()] = hand,
                Hand::Rest => {
                    if setup.rest.is_some() {
                        return Err(LineError::at(
                            number,
                            line,
                            "both hands hold `残り全部`: give it to one side (the defender)",
                        ));
                    }
                    setup.rest = Some(side);
                }
            }
            continue;
        }
        match key {
            "手番" => {
                setup.turn = side_of(value).ok_or_else(|| {
                    LineError::at(number, line, "the side to move is `先手` or `後手`")
                })?;
            }
            "作品名" | "表題" => {
                let value = value.trim();
                let better = key == "作品名" || title.as_ref().is_none_or(|(named, _)| !named);
                if !value.is_empty() && better {
                    title = Some((key == "作品名", value.to_string()));
                }
            }
            _ => {}
        }
    }
    if !board {
        return Err(LineError::file(
            "no board diagram: a KIF problem gives its position as a diagram, the file \
             numbers `  ９ ８ ７ ６ ５ ４ ３ ２ １`, a border `+---------------------------+`, \
             nine rows `| ・ ・ ・ ・ ・ ・ ・v玉 ・|一` and a border",
        ));
    }
    for side in [Side::Gote, Side::Sente] {
        if hands[side.index()].is_none() {
            return Err(LineError::file(format!(
                "no `{}の持駒：` line: write the hand, `なし` when it is empty, or `残り全部` for \
                 all the pieces neither on the board nor in the other hand",
                side.ja()
            )));
        }
    }
    Ok(KifProblem {
        setup,
        title: title.map(|(_, t)| t),
    })
}

/// The moves of `line` from `pos` in Japanese notation (`▲３三角打`, `△同　玉`), by rsshogi
/// ([`rsshogi::types::Move::to_ki2`]); a move it cannot name is given in USI.
pub fn line_ja(pos: &Position, line: &[Move]) -> Vec<String> {
    let mut inner = pos.inner().clone_compact();
    line.iter()
        .map(|&mv| {
            let text = mv.to_ki2(&inner).unwrap_or_else(|| mv.to_usi());
            inner.apply_move(mv);
            text
        })
        .collect()
}

/// A line as composers number it: `1 ▲３三角打  2 △同　玉  3 ▲２二金  まで3手詰`.
pub fn numbered_ja(moves: &[String]) -> String {
    let mut out: Vec<String> = moves
        .iter()
        .enumerate()
        .map(|(i, m)| format!("{} {m}", i + 1))
        .collect();
    out.push(format!("まで{}手詰", moves.len()));
    out.join("  ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_read_in_kanji_and_digits() {
        for (text, n) in [
            ("二", 2),
            ("十", 10),
            ("十八", 18),
            ("二十", 20),
            ("18", 18),
        ] {
            assert_eq!(count_of(text), Some(n), "{text}");
        }
        for text in ["一八", "十十", "x"] {
            assert_eq!(count_of(text), None, "{text}");
        }
    }

    #[test]
    fn hands_are_counted_and_the_rest_is_named() {
        let Ok(Hand::Counted(h)) = hand_of("歩十八　金二 角") else {
            panic!("not counted")
        };
        assert_eq!(h, [18, 0, 0, 0, 2, 1, 0]);
        assert!(matches!(hand_of(" なし "), Ok(Hand::Counted(h)) if h == [0; 7]));
        assert!(matches!(hand_of("残り全部"), Ok(Hand::Rest)));
        let e = hand_of("歩X").err().unwrap();
        assert!(e.starts_with("`X` is not a piece of a hand"), "{e}");
        let e = hand_of("玉").err().unwrap();
        assert!(e.starts_with("a king is never in hand"), "{e}");
        let e = hand_of("角三").err().unwrap();
        assert!(e.starts_with("3 角 in one hand"), "{e}");
    }
}
