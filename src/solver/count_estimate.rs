//! Count estimates (docs/search.md, "Child counts"; experiments/solver.md, "Count
//! estimates"): a new child of an OR node gets a first proof number estimated from the
//! OR node's position and the check alone, without a generator run of the child, as a
//! count unit beside EXPAND's stream works it out in a cycle a child. The chip's search
//! takes [`Estimate::Attacked`] (`Config::child_estimates`; `Config::check_chip` refuses
//! the others): the count unit `hdl/search/count_unit.spade` is its twin, checked on its
//! own in tests/hw_count_unit.rs and in the search in tests/hw_solver.rs.
//!
//! Every estimate is a pure function of the board before the check and the check, at
//! least 1 (an estimate never claims a mate: mates stay EXPAND's) and at most
//! [`MOST`]. The signals a count unit would take, all of them on chip while EXPAND streams
//! the OR node's checks (the position store's bitboards, the generator's masks of the
//! node, the stream's beat):
//!
//! - the defender king's square `K` and its ring (the up to 8 squares around it, an 8-bit
//!   mask in a fixed order);
//! - the position's occupancy and the defender's pieces on the ring (two 8-bit masks
//!   gathered once a node);
//! - the defender's hand (7 counts: which kinds are non-zero, a 7-bit mask, once a node);
//! - the check: `from`, `to`, the piece after the move (kind and promotion), drop or not,
//!   and the generator's category (a direct check, a discovered one, or both);
//! - for [`Estimate::Attacked`]: the ring squares the attacker attacks in the OR node's
//!   position, and those two of its pieces or more attack (two 8-bit masks, once a node:
//!   an attackers-to unit over the 8 squares, a square a cycle while the generator
//!   starts), the moved piece's ring attacks before and after the move (a table of the
//!   kind and the offset from the king for a step, the ring squares on the slider's
//!   lines with the squares between empty for a slider), and the number of defender's
//!   pieces other than the king that attack `to` (an attackers-to unit on `to`, a child
//!   a cycle, and a popcount).
//!
//! [`Estimate::Replies`] is no hardware: the exact number of replies, at least 1 (the
//! count of `child_counts` without its solved leaves), the reference the estimates are
//! measured against.

use rsshogi::board::Position as Board;
use rsshogi::board::attack_tables::{bishop_attacks, lance_attacks, rook_attacks};
use rsshogi::board::{GOLD_ATTACKS, KING_ATTACKS, KNIGHT_ATTACKS, PAWN_ATTACKS, SILVER_ATTACKS};
use rsshogi::types::{Bitboard, Color, HandPiece, Move, Piece, PieceType, Square};
use serde::Deserialize;

use super::moves::{Kind, count_moves};
use super::values::Pn;

/// The largest estimate: a count unit's 5 bits.
pub const MOST: Pn = 31;

/// Which first proof number a new child of an OR node gets from its estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Estimate {
    /// The king's free ring: its neighbour squares that hold no defender's piece after
    /// the check (empty, or the attacker's, the checker's included), plus for a check
    /// from a distance the squares between, if the defender holds a piece in hand.
    Ring,
    /// [`Estimate::Ring`] less the ring squares the checking piece attacks after the
    /// move (through the king), and the square behind the king on a discovered check's
    /// line; the interpositions counted a kind in hand a square.
    Checker,
    /// The king's free ring less every square the attacker attacks after the move (the
    /// node's attack masks less the moved piece's attacks from its square, plus its
    /// attacks after the move, and the square behind the king on a discovered check's
    /// line), plus the defender's pieces other than the king that attack a single
    /// direct checker, plus the interpositions a kind in hand a square.
    Attacked,
    /// The exact number of replies, at least 1: the reference (a generator run a child).
    Replies,
}

impl Estimate {
    /// The estimates by name, as the modes name them.
    pub const ALL: [Estimate; 4] = [
        Estimate::Ring,
        Estimate::Checker,
        Estimate::Attacked,
        Estimate::Replies,
    ];

    /// The estimate's name.
    pub fn name(self) -> &'static str {
        match self {
            Estimate::Ring => "ring",
            Estimate::Checker => "checker",
            Estimate::Attacked => "attacked",
            Estimate::Replies => "replies",
        }
    }
}

/// What an OR node's count unit keeps for every check of the node: worked out once when
/// EXPAND starts (on chip: while the generator starts, from the position store).
#[derive(Debug, Clone, Copy)]
pub struct NodeSignals {
    /// The attacker (the side to move).
    attacker: Color,
    /// The defender king's square.
    king: Square,
    /// The king's ring.
    ring: Bitboard,
    /// The ring squares the attacker attacks (the king taken off the board).
    attacked: Bitboard,
    /// The ring squares two of the attacker's pieces or more attack.
    attacked2: Bitboard,
    /// The occupancy with the king taken off.
    occ: Bitboard,
    /// The kinds in the defender's hand (0 to 7).
    hand_kinds: u32,
}

impl NodeSignals {
    /// The signals of the OR node `board` (the attacker to move).
    pub fn of(board: &Board) -> NodeSignals {
        let attacker = board.turn();
        let defender = attacker.flip();
        let king = board.king_square(defender);
        let ring = KING_ATTACKS[king];
        let occ = board.pieces().and_not(Bitboard::from_square(king));
        let ours = board.bitboards().color_pieces(attacker);
        let (mut attacked, mut attacked2) = (Bitboard::EMPTY, Bitboard::EMPTY);
        for sq in ring.iter() {
            let by = board.attackers_to(sq, occ) & ours;
            if by.any() {
                attacked.set(sq);
            }
            if by.more_than_one() {
                attacked2.set(sq);
            }
        }
        let hand = board.hand(defender);
        let hand_kinds = HandPiece::iter().filter(|&p| hand.count(p) > 0).count() as u32;
        NodeSignals {
            attacker,
            king,
            ring,
            attacked,
            attacked2,
            occ,
            hand_kinds,
        }
    }
}

impl NodeSignals {
    /// The defender king's square.
    pub fn king(&self) -> Square {
        self.king
    }

    /// The ring squares the attacker attacks (the king taken off the board).
    pub fn attacked(&self) -> Bitboard {
        self.attacked
    }

    /// The ring squares two of the attacker's pieces or more attack.
    pub fn attacked2(&self) -> Bitboard {
        self.attacked2
    }

    /// The number of kinds in the defender's hand.
    pub fn hand_kinds(&self) -> u32 {
        self.hand_kinds
    }
}

/// The squares `piece` attacks from `sq` with the board's occupancy `occ`.
fn attacks(piece: Piece, sq: Square, occ: Bitboard) -> Bitboard {
    let c = piece.color();
    match piece.piece_type() {
        PieceType::PAWN => PAWN_ATTACKS[sq][c.to_index()],
        PieceType::LANCE => lance_attacks(sq, occ, c),
        PieceType::KNIGHT => KNIGHT_ATTACKS[sq][c.to_index()],
        PieceType::SILVER => SILVER_ATTACKS[sq][c.to_index()],
        PieceType::BISHOP => bishop_attacks(sq, occ),
        PieceType::ROOK => rook_attacks(sq, occ),
        PieceType::KING => KING_ATTACKS[sq],
        PieceType::HORSE => bishop_attacks(sq, occ) | KING_ATTACKS[sq],
        PieceType::DRAGON => rook_attacks(sq, occ) | KING_ATTACKS[sq],
        // The gold and the promoted pawn, lance, knight and silver.
        _ => GOLD_ATTACKS[sq][c.to_index()],
    }
}

/// The first proof number `estimate` gives the child of the check `mv` of the OR node
/// `board` (its signals `node`, [`NodeSignals::of`]): between 1 and [`MOST`].
pub fn estimate(board: &Board, node: &NodeSignals, estimate: Estimate, mv: Move) -> Pn {
    if estimate == Estimate::Replies {
        let mut b = board.clone_compact();
        b.apply_move(mv);
        return (count_moves(&b, Kind::And) as Pn).clamp(1, MOST);
    }
    let (attacker, king, ring) = (node.attacker, node.king, node.ring);
    let to = mv.to_sq();
    let piece = board.moved_piece_after_move(mv);
    // The board after the move: occupancy, the defender's pieces (a capture takes one).
    let mut occ = board.pieces();
    if !mv.is_drop() {
        occ.clear(mv.from_sq());
    }
    occ.set(to);
    let theirs = board
        .bitboards()
        .color_pieces(attacker.flip())
        .and_not(Bitboard::from_square(to));
    // The generator's category: a direct check (the moved piece attacks the king), a
    // discovered one (the move uncovers a slider's line), or both.
    let direct = attacks(piece, to, occ).test(king);
    let discovered = !mv.is_drop()
        && (board.blockers_for_king(attacker.flip()) & board.bitboards().color_pieces(attacker))
            .test(mv.from_sq())
        && !Bitboard::is_aligned(mv.from_sq(), to, king);
    let double = direct && discovered;
    // The squares a drop could block: between a distant direct checker and the king, or
    // up to the square the move left on a discovered check's line.
    let between = if double {
        0
    } else if direct {
        Bitboard::between(to, king).count()
    } else {
        king.distance(mv.from_sq()) as u32
    };
    let free = ring.and_not(theirs);
    let n = match estimate {
        Estimate::Ring => free.count() + if node.hand_kinds > 0 { between } else { 0 },
        Estimate::Checker => {
            let through = occ.and_not(Bitboard::from_square(king));
            let mut hit = if direct {
                attacks(piece, to, through)
            } else {
                Bitboard::EMPTY
            };
            if discovered {
                hit |= behind(mv.from_sq(), king);
            }
            free.and_not(hit).count() + node.hand_kinds * between
        }
        Estimate::Attacked => {
            let through = occ.and_not(Bitboard::from_square(king));
            // The node's mask less the moved piece's attacks from where it stood (a
            // square two pieces attack stays attacked), plus its attacks after the move.
            let mut hit = if mv.is_drop() {
                node.attacked
            } else {
                let before = board.piece_on(mv.from_sq());
                let old = attacks(before, mv.from_sq(), node.occ);
                node.attacked2 | node.attacked.and_not(old)
            };
            if direct {
                hit |= attacks(piece, to, through);
            }
            if discovered {
                hit |= behind(mv.from_sq(), king);
            }
            let takers = if direct && !double {
                (board.attackers_to(to, occ) & theirs).and_not(Bitboard::from_square(king))
            } else {
                Bitboard::EMPTY
            };
            free.and_not(hit).count() + takers.count() + node.hand_kinds * between
        }
        Estimate::Replies => unreachable!("counted above"),
    };
    (n as Pn).clamp(1, MOST)
}

/// The square behind the king `king` on the line from `from` through it, if on the board
/// (on chip: the ring square opposite the one towards `from`).
fn behind(from: Square, king: Square) -> Bitboard {
    let (df, dr) = (
        (king.file().raw() - from.file().raw()).signum(),
        (king.rank().raw() - from.rank().raw()).signum(),
    );
    let (f, r) = (king.file().raw() + df, king.rank().raw() + dr);
    if (0..9).contains(&f) && (0..9).contains(&r) {
        Bitboard::from_square(Square::new(f * 9 + r))
    } else {
        Bitboard::EMPTY
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::{Kind as Draw, TsumeGenerator, seed_from_env};
    use crate::solver::moves::node_moves;

    /// On fresh random positions every estimate is between 1 and `MOST`, and `Replies`
    /// is the exact count where it is 1 to `MOST`.
    #[test]
    fn estimates_are_positive_and_bounded() {
        let seed = seed_from_env();
        let mut g = TsumeGenerator::new(seed);
        let mut moves = Vec::new();
        let mut seen = 0;
        for _ in 0..3_000 {
            let pos = g.next_position(Draw::Checks);
            let board = pos.inner();
            node_moves(board, Kind::Or, &mut moves);
            let node = NodeSignals::of(board);
            for &mv in &moves {
                for e in Estimate::ALL {
                    let n = estimate(board, &node, e, mv);
                    assert!(
                        (1..=MOST).contains(&n),
                        "TSUME_SEED={seed}: {} {} {}: {n}",
                        pos.to_sfen(),
                        mv.to_usi(),
                        e.name()
                    );
                }
                let mut after = board.clone_compact();
                after.apply_move(mv);
                let exact = count_moves(&after, Kind::And) as Pn;
                assert_eq!(
                    estimate(board, &node, Estimate::Replies, mv),
                    exact.clamp(1, MOST),
                    "TSUME_SEED={seed}: {} {}",
                    pos.to_sfen(),
                    mv.to_usi()
                );
                seen += 1;
            }
        }
        assert!(seen > 1_000, "TSUME_SEED={seed}: only {seen} checks");
    }

    /// The estimates of a few checks worked out by hand (ring, checker, attacked, replies):
    /// a gold dropped in contact (a mate: every estimate at least 1; the gold taken by the
    /// king or a silver; a flight guarded by a pawn), and a rook dropped from afar with a
    /// rook in the defender's hand (its 4 king moves and 3 interpositions).
    #[test]
    fn estimates_of_checks_by_hand() {
        let cases = [
            // The gold on 5b, guarded by the pawn: mated.
            (
                "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1",
                "G*5b",
                [5, 1, 1, 1],
            ),
            // The gold on 4b: 6a, 6b, and the king takes it.
            (
                "4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1",
                "G*4b",
                [5, 3, 3, 3],
            ),
            // The rook from 5e: 4a, 6a, 4b, 6b, and a rook dropped on 5b, 5c or 5d.
            (
                "4k4/9/9/9/9/9/9/9/9 b R2B4G4S4N4L18Pr 1",
                "R*5e",
                [8, 7, 7, 7],
            ),
            // The gold on 5b unguarded: the king or the silver on 4a takes it.
            (
                "4ks3/9/9/9/9/9/9/9/9 b G2r2b3g3s4n4l18p 1",
                "G*5b",
                [4, 1, 2, 2],
            ),
            // The gold on 4b, the pawn on 6c guarding 6b: 6a, and the king takes it.
            (
                "4k4/9/3P5/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1",
                "G*4b",
                [5, 3, 2, 2],
            ),
        ];
        for (sfen, usi, want) in cases {
            let pos = crate::position::Position::from_sfen(sfen).unwrap();
            let board = pos.inner();
            let mv = Move::from_usi(usi).unwrap();
            let node = NodeSignals::of(board);
            let got = Estimate::ALL.map(|e| estimate(board, &node, e, mv));
            assert_eq!(got, want, "{sfen} {usi}");
        }
    }

    #[test]
    fn behind_the_king() {
        let sq = |s: &str| Square::from_usi(s).unwrap();
        assert_eq!(behind(sq("5g"), sq("5e")), Bitboard::from_square(sq("5d")));
        assert_eq!(behind(sq("3c"), sq("5e")), Bitboard::from_square(sq("6f")));
        assert_eq!(behind(sq("5c"), sq("5a")), Bitboard::EMPTY);
    }
}
