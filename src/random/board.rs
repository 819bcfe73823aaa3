//! The board of the canonical frame that [`TsumeGenerator`](super::TsumeGenerator) draws
//! positions on (Black attacks, White defends): placing pieces legally (no dead piece, no
//! double pawn), the attacks between squares, and the SFEN of the board turned or not.

use rsshogi::types::PieceType;

use crate::solver::hands::FULL;

/// Black (the canonical attacker) and White (the canonical defender).
pub(super) const ATT: bool = true;
pub(super) const DEF: bool = false;

/// A piece of the canonical frame: (is attacker (Black), piece type).
type Cell = Option<(bool, PieceType)>;

/// The board of the canonical frame: index `file * 9 + rank`, file 0 = file 1,
/// rank 0 = rank a (Black moves towards rank 0).
#[derive(Clone)]
pub(super) struct Board {
    pub(super) cells: [Cell; 81],
    pub(super) kings: [Option<(i8, i8)>; 2],
    /// Pieces not yet used, indexed by the raw piece type (1 = pawn .. 7 = gold).
    pub(super) pool: [u8; 8],
}

/// The game's pieces by raw piece type: 0 none (the king's, placed apart), then 1 pawn .. 7
/// gold, a hand full in every kind (rsshogi's hand order is the raw types' order).
const POOL: [u8; 8] = {
    let mut pool = [0; 8];
    let mut k = 0;
    while k < FULL.len() {
        pool[k + 1] = FULL[k];
        k += 1;
    }
    pool
};

pub(super) const ALL_DIRS: [(i8, i8); 8] = [
    (0, -1),
    (0, 1),
    (-1, 0),
    (1, 0),
    (-1, -1),
    (1, -1),
    (-1, 1),
    (1, 1),
];

pub(super) fn on_board(f: i8, r: i8) -> bool {
    (0..9).contains(&f) && (0..9).contains(&r)
}

pub(super) fn idx(f: i8, r: i8) -> usize {
    (f as usize) * 9 + r as usize
}

pub(super) fn side_index(attacker: bool) -> usize {
    usize::from(attacker)
}

/// Whether a raw piece type is a slider that can pin or form a battery along `dir`
/// (from the target king outwards) for the given side. Returns the possible types.
pub(super) fn sliders_for(dir: (i8, i8), attacker: bool) -> &'static [PieceType] {
    let (df, dr) = dir;
    if df != 0 && dr != 0 {
        &[PieceType::BISHOP, PieceType::HORSE]
    } else if df == 0 && ((attacker && dr == 1) || (!attacker && dr == -1)) {
        // A Black lance below the king (larger rank) attacks upwards; a White lance above.
        &[PieceType::ROOK, PieceType::DRAGON, PieceType::LANCE]
    } else {
        &[PieceType::ROOK, PieceType::DRAGON]
    }
}

impl Board {
    pub(super) fn new() -> Self {
        Board {
            cells: [None; 81],
            kings: [None; 2],
            pool: POOL,
        }
    }

    pub(super) fn get(&self, f: i8, r: i8) -> Cell {
        self.cells[idx(f, r)]
    }

    pub(super) fn empty(&self, f: i8, r: i8) -> bool {
        self.cells[idx(f, r)].is_none()
    }

    /// The squares strictly between two aligned squares are empty.
    pub(super) fn clear_between(&self, from: (i8, i8), to: (i8, i8)) -> bool {
        let sf = (to.0 - from.0).signum();
        let sr = (to.1 - from.1).signum();
        let (mut f, mut r) = (from.0 + sf, from.1 + sr);
        while (f, r) != to {
            if !self.empty(f, r) {
                return false;
            }
            f += sf;
            r += sr;
        }
        true
    }

    /// Whether the piece `pt` of side `attacker` on `from` attacks `to` on this board.
    pub(super) fn attacks(
        &self,
        from: (i8, i8),
        attacker: bool,
        pt: PieceType,
        to: (i8, i8),
    ) -> bool {
        let dx = (to.0 - from.0).abs();
        // Forward is towards rank 0 for Black (the attacker), towards rank 8 for White.
        let dy = if attacker {
            to.1 - from.1
        } else {
            from.1 - to.1
        };
        if dx == 0 && dy == 0 {
            return false;
        }
        let king_step = dx <= 1 && dy.abs() <= 1;
        let gold_step = king_step && !(dx == 1 && dy == 1);
        match pt {
            PieceType::PAWN => dx == 0 && dy == -1,
            PieceType::KNIGHT => dx == 1 && dy == -2,
            PieceType::SILVER => king_step && dy != 0 && !(dx == 0 && dy == 1),
            PieceType::GOLD
            | PieceType::PRO_PAWN
            | PieceType::PRO_LANCE
            | PieceType::PRO_KNIGHT
            | PieceType::PRO_SILVER => gold_step,
            PieceType::KING => king_step,
            PieceType::LANCE => dx == 0 && dy < 0 && self.clear_between(from, to),
            PieceType::BISHOP => dx == dy.abs() && self.clear_between(from, to),
            PieceType::HORSE => king_step || (dx == dy.abs() && self.clear_between(from, to)),
            PieceType::ROOK => (dx == 0 || dy == 0) && self.clear_between(from, to),
            PieceType::DRAGON => {
                king_step || ((dx == 0 || dy == 0) && self.clear_between(from, to))
            }
            _ => false,
        }
    }

    /// Whether a piece of this side could never move from rank `r` (it must be promoted).
    pub(super) fn dead(attacker: bool, pt: PieceType, r: i8) -> bool {
        let rel = if attacker { r } else { 8 - r };
        match pt {
            PieceType::PAWN | PieceType::LANCE => rel == 0,
            PieceType::KNIGHT => rel <= 1,
            _ => false,
        }
    }

    pub(super) fn has_pawn_on_file(&self, attacker: bool, f: i8) -> bool {
        (0..9).any(|r| self.get(f, r) == Some((attacker, PieceType::PAWN)))
    }

    /// Put a non-king piece on `sq` if that keeps the position legal and quiet: the
    /// square is empty, the piece can move, no double pawn, the piece is left in the pool
    /// and it does not attack the enemy king. Returns whether it was placed.
    pub(super) fn try_place(&mut self, sq: (i8, i8), attacker: bool, pt: PieceType) -> bool {
        let (f, r) = sq;
        if !on_board(f, r) || !self.empty(f, r) {
            return false;
        }
        let raw = if pt.is_promoted() { pt.demote() } else { pt };
        if self.pool[raw.raw() as usize] == 0 {
            return false;
        }
        if Self::dead(attacker, pt, r) {
            return false;
        }
        if pt == PieceType::PAWN && self.has_pawn_on_file(attacker, f) {
            return false;
        }
        if let Some(k) = self.kings[side_index(!attacker)]
            && self.attacks(sq, attacker, pt, k)
        {
            return false;
        }
        self.cells[idx(f, r)] = Some((attacker, pt));
        self.pool[raw.raw() as usize] -= 1;
        true
    }

    /// Remaining pool as (raw type, count) pairs, SFEN hand order.
    pub(super) fn sfen(&self, hands: [[u8; 8]; 2], flip: bool) -> String {
        let mut s = String::with_capacity(96);
        for rank in 0..9i8 {
            let mut empties = 0;
            for file in (0..9i8).rev() {
                let (f, r) = if flip {
                    (8 - file, 8 - rank)
                } else {
                    (file, rank)
                };
                match self.get(f, r) {
                    None => empties += 1,
                    Some((attacker, pt)) => {
                        if empties > 0 {
                            s.push(char::from(b'0' + empties));
                            empties = 0;
                        }
                        let black = attacker != flip;
                        push_piece(&mut s, pt, black);
                    }
                }
            }
            if empties > 0 {
                s.push(char::from(b'0' + empties));
            }
            if rank < 8 {
                s.push('/');
            }
        }
        s.push_str(if flip { " w " } else { " b " });
        let mut any = false;
        // Black's hand first, then White's.
        for black in [true, false] {
            let hand = &hands[side_index(black != flip)];
            for pt in [
                PieceType::ROOK,
                PieceType::BISHOP,
                PieceType::GOLD,
                PieceType::SILVER,
                PieceType::KNIGHT,
                PieceType::LANCE,
                PieceType::PAWN,
            ] {
                let n = hand[pt.raw() as usize];
                if n == 0 {
                    continue;
                }
                any = true;
                if n > 1 {
                    s.push_str(&n.to_string());
                }
                let c = letter(pt);
                s.push(if black { c } else { c.to_ascii_lowercase() });
            }
        }
        if !any {
            s.push('-');
        }
        s.push_str(" 1");
        s
    }
}

fn letter(pt: PieceType) -> char {
    match pt {
        PieceType::PAWN => 'P',
        PieceType::LANCE => 'L',
        PieceType::KNIGHT => 'N',
        PieceType::SILVER => 'S',
        PieceType::BISHOP => 'B',
        PieceType::ROOK => 'R',
        PieceType::GOLD => 'G',
        _ => 'K',
    }
}

fn push_piece(s: &mut String, pt: PieceType, black: bool) {
    let base = if pt.is_promoted() {
        s.push('+');
        pt.demote()
    } else {
        pt
    };
    let c = letter(base);
    s.push(if black { c } else { c.to_ascii_lowercase() });
}
