//! Futile interpositions (無駄合), the composers' rule of docs/search.md, "Futile
//! interpositions": a defender's interposition that the attacker takes at once, mating at
//! once, is no reply. The model's df-pn (EXPAND and the line, `src/solver/`) and the
//! exhaustive search (`src/mate.rs`) take their defender's replies through [`Rule`]; the
//! chip has no twin of this block yet (it counts every interposition, and refuses the
//! rule: `tsume::chip::solver`). Tested in `tests/futile.rs` (the rule's worked examples,
//! and the model's lengths by the rule against the exhaustive search's on fresh random
//! positions).

use std::collections::HashMap;

use rsshogi::board::Position as Board;
use rsshogi::board::zobrist::ZobristKey;
use rsshogi::movegen::{LegalAll, MoveListGen};
use rsshogi::types::{Bitboard, Move};

/// Which of the defender's replies count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Rule {
    /// Every legal evasion is a reply (plain minimax: the mate's length counts every
    /// interposition).
    #[default]
    EveryInterposition,
    /// The composers' rule: a futile interposition ([`is_futile`]) is no reply.
    Composers,
}

impl Rule {
    /// The rule's name in reports and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Rule::EveryInterposition => "every interposition",
            Rule::Composers => "composers",
        }
    }

    /// What a mate's length says of the rule: ` by the composers' rule`, or nothing when
    /// every interposition counts (the plain length).
    pub fn length_words(self) -> &'static str {
        match self {
            Rule::EveryInterposition => "",
            Rule::Composers => " by the composers' rule",
        }
    }

    /// Keeps in `evasions` (the legal evasions of the defender to move in `board`, in
    /// check) the replies that count under the rule, in their order.
    pub fn keep_replies(self, board: &mut Board, evasions: &mut Vec<Move>) {
        if self == Rule::Composers {
            let mut futility = Futility::default();
            evasions.retain(|&mv| !futility.futile(board, mv));
        }
    }
}

/// Whether `mv` of the defender to move in `board` (in check) is an interposition: a
/// move of a piece other than the king, or a drop, to a square strictly between the one
/// piece checking and the king (a long-range check from afar).
pub fn is_interposition(board: &Board, mv: Move) -> bool {
    let checkers = board.checkers();
    if checkers.count() != 1 {
        return false;
    }
    let king = board.king_square(board.turn());
    if !mv.is_drop() && mv.from_sq() == king {
        return false;
    }
    let checker = checkers.iter().next().expect("one checker");
    Bitboard::between(checker, king).test(mv.to_sq())
}

/// Whether the defender's reply `mv` in `board` (the defender to move, in check) is a
/// futile interposition: an interposition ([`is_interposition`]) after which some attacker
/// move that takes the interposed piece and gives check leaves the defender mated at once
/// by the rule ([`mated_by_rule`]): without an evasion, or with futile interpositions only.
/// The captured piece is never used (the mate is at once), so the interposition changed
/// nothing but the plies. The recursion ends: every level takes one more of the
/// defender's pieces.
pub fn is_futile(board: &mut Board, mv: Move) -> bool {
    Futility::default().futile(board, mv)
}

/// Whether the defender to move in `board`, in check, is mated under the composers' rule:
/// every legal evasion is a futile interposition (none at all: checkmate).
pub fn mated_by_rule(board: &mut Board) -> bool {
    Futility::default().mated(board)
}

/// The futile interpositions among the legal evasions of the defender to move in `board`
/// (in check), in the order given: what a line under the rule leaves out at that node.
pub fn futile_replies(board: &mut Board, evasions: &[Move]) -> Vec<Move> {
    let mut futility = Futility::default();
    evasions
        .iter()
        .copied()
        .filter(|&mv| futility.futile(board, mv))
        .collect()
}

/// The tests of one node's replies, with the positions after a capture already judged
/// (a chain of interpositions meets the same ones again and again).
#[derive(Default)]
struct Futility {
    /// By rsshogi's 64-bit key of the position (board, hands, side), as `src/mate.rs`
    /// memoises its search.
    mated: HashMap<ZobristKey, bool>,
}

impl Futility {
    fn futile(&mut self, board: &mut Board, mv: Move) -> bool {
        if !is_interposition(board, mv) {
            return false;
        }
        let square = mv.to_sq();
        board.apply_move(mv);
        let mut captures = Vec::new();
        crate::solver::moves::with_checks(board, |checks| {
            captures.extend(checks.filter(|c| c.to_sq() == square));
        });
        let futile = captures.into_iter().any(|capture| {
            board.apply_move(capture);
            let mated = self.mated(board);
            board
                .undo_move(capture)
                .expect("undo of the capture just made");
            mated
        });
        board
            .undo_move(mv)
            .expect("undo of the interposition just made");
        futile
    }

    fn mated(&mut self, board: &mut Board) -> bool {
        let key = board.key();
        if let Some(&known) = self.mated.get(&key) {
            return known;
        }
        let evasions: Vec<Move> = MoveListGen::<LegalAll>::new(board)
            .iter()
            .copied()
            .collect();
        // A reply that is no interposition (a king's move, a capture of the checker) is
        // never futile: look at those first.
        let mated = evasions.iter().all(|&mv| is_interposition(board, mv))
            && evasions.into_iter().all(|mv| self.futile(board, mv));
        self.mated.insert(key, mated);
        mated
    }
}

/// The interpositions a line under the composers' rule left out: for each defender's node
/// on `line` (played from `board`, a root of `root`), the ply of the attacker's move that
/// made it (1 for the first move) and its futile interpositions, where it has any.
pub fn left_out(board: &Board, root: crate::solver::Kind, line: &[Move]) -> Vec<LeftOut> {
    let mut b = board.clone_compact();
    let mut out = Vec::new();
    for ply in 0..=line.len() {
        // The defender moves at odd plies from an attacker's root, at even ones from its own.
        if (ply % 2 == 1) == (root == crate::solver::Kind::Or) {
            let mut evasions = Vec::new();
            crate::solver::moves::node_moves(&b, crate::solver::Kind::And, &mut evasions);
            let futile = futile_replies(&mut b, &evasions);
            if !futile.is_empty() {
                out.push(LeftOut { ply, moves: futile });
            }
        }
        if let Some(&mv) = line.get(ply) {
            b.apply_move(mv);
        }
    }
    out
}

/// A defender's node of a line and the futile interpositions left out there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftOut {
    /// Plies played before the node (the attacker's move that made it is this ply).
    pub ply: usize,
    /// Its futile interpositions, in stream order (the order of the search's children).
    pub moves: Vec<Move>,
}

impl LeftOut {
    /// `after ply 1: P*2b L*2b`, as the reports write it.
    pub fn text(&self) -> String {
        let moves: Vec<String> = self.moves.iter().map(|m| m.to_usi()).collect();
        format!("after ply {}: {}", self.ply, moves.join(" "))
    }
}
