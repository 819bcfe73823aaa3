//! The random tsume-position generator: legality, kinds, determinism and the distribution
//! its documentation promises. The seed comes from `TSUME_SEED` (or the clock) and is in
//! every assertion message, so a failing run can be repeated with `TSUME_SEED=<seed>`.

use tsume::position::Position;
use tsume::random::{Kind, TsumeGenerator, seed_from_env};
use tsume::reference::{Category, Mode, tsume_moves};
use tsume::rsshogi::types::{Color, PieceType, Square};
use tsume::solver::hands::FULL;

const N: usize = 10_000;

const CATEGORIES: [Category; 8] = Category::ALL;

/// What one position shows (for the distribution checks).
#[derive(Default)]
struct Stats {
    positions: usize,
    in_check: usize,
    black_attacks: usize,
    attacker_king: usize,
    promoted: usize,
    defender_pinned: usize,
    attacker_pinned: usize,
    with_checks: usize,
    double_checks: usize,
    king_in_open: usize,
    /// The attacker holds at least 5 pieces.
    rich_hand: usize,
    /// The defender holds nothing (every remaining piece went to the attacker).
    defender_hand_empty: usize,
    /// Fewest and most attacking pieces on the board.
    attackers_min: usize,
    attackers_max: usize,
    /// Positions whose move set has at least one move of each category (Category order).
    categories: [usize; 8],
}

impl Stats {
    fn frac(&self, n: usize) -> f64 {
        n as f64 / self.positions as f64
    }
}

fn check_position(pos: &Position, kind: Kind, seed: u64, i: usize, stats: &mut Stats) {
    let sfen = pos.to_sfen();
    let ctx = format!("TSUME_SEED={seed}, {kind:?} position #{i}: {sfen}");
    // Legal: the SFEN parses back (with the full validation) to the same position.
    let again = Position::from_sfen(&sfen).unwrap_or_else(|e| panic!("{ctx}: rejected: {e}"));
    assert_eq!(again.to_sfen(), sfen, "{ctx}: SFEN round trip differs");
    assert!(again == *pos, "{ctx}: re-parsed position differs");

    // Piece totals never exceed the game's.
    let mut counts = [0u32; 8];
    for sq in Square::iter() {
        if let Some((_, pt)) = pos.piece_on(sq)
            && pt != PieceType::KING
        {
            let raw = if pt.is_promoted() { pt.demote() } else { pt };
            counts[raw.raw() as usize] += 1;
        }
    }
    for color in [Color::BLACK, Color::WHITE] {
        // HandPiece order: pawn, lance, knight, silver, bishop, rook, gold = raw types 1..=7.
        for (k, n) in pos.hand(color).iter().enumerate() {
            counts[k + 1] += u32::from(*n);
        }
    }
    // The game's totals: a hand full in every kind (hand kind k is raw type k + 1).
    for raw in 1..8 {
        assert!(
            counts[raw] <= u32::from(FULL[raw - 1]),
            "{ctx}: {} pieces of raw type {raw}",
            counts[raw]
        );
    }

    let to_move = pos.side_to_move();
    let checked = pos.in_check();
    match kind {
        Kind::Checks => assert!(!checked, "{ctx}: a Checks position is in check"),
        Kind::Evasions => assert!(checked, "{ctx}: an Evasions position is not in check"),
        Kind::Any => {}
    }
    let set = tsume_moves(pos);
    assert_eq!(
        set.mode,
        if checked {
            Mode::Evasions
        } else {
            Mode::Checks
        },
        "{ctx}"
    );

    let attacker = if checked { to_move.flip() } else { to_move };
    let defender = attacker.flip();
    stats.positions += 1;
    stats.in_check += usize::from(checked);
    stats.black_attacks += usize::from(attacker == Color::BLACK);
    let attacker_king = pos.king_square(attacker);
    stats.attacker_king += usize::from(attacker_king.is_some());
    let promoted =
        Square::iter().any(|sq| pos.piece_on(sq).is_some_and(|(_, pt)| pt.is_promoted()));
    stats.promoted += usize::from(promoted);
    let inner = pos.inner();
    stats.defender_pinned += usize::from(inner.pinned_pieces(defender).any());
    if attacker_king.is_some() {
        stats.attacker_pinned += usize::from(inner.pinned_pieces(attacker).any());
    }
    let king = pos
        .king_square(defender)
        .unwrap_or_else(|| panic!("{ctx}: no defending king"));
    let back = if defender == Color::WHITE {
        king.rank().raw()
    } else {
        8 - king.rank().raw()
    };
    stats.king_in_open += usize::from(back >= 3);
    let hand_total = |c: Color| pos.hand(c).iter().map(|&n| usize::from(n)).sum::<usize>();
    stats.rich_hand += usize::from(hand_total(attacker) >= 5);
    stats.defender_hand_empty += usize::from(hand_total(defender) == 0);
    let on_board = Square::iter()
        .filter(|&sq| {
            pos.piece_on(sq)
                .is_some_and(|(c, pt)| c == attacker && pt != PieceType::KING)
        })
        .count();
    if stats.positions == 1 {
        stats.attackers_min = on_board;
    }
    stats.attackers_min = stats.attackers_min.min(on_board);
    stats.attackers_max = stats.attackers_max.max(on_board);
    for (k, cat) in CATEGORIES.iter().enumerate() {
        stats.categories[k] += usize::from(set.moves.iter().any(|m| m.category == *cat));
    }
    if checked {
        stats.double_checks += usize::from(inner.checkers().count() >= 2);
    } else {
        stats.with_checks += usize::from(!set.moves.is_empty());
    }
}

fn run(kind: Kind) -> (u64, Stats) {
    let seed = seed_from_env();
    let mut generator = TsumeGenerator::new(seed);
    let mut stats = Stats::default();
    for i in 0..N {
        let pos = generator.next_position(kind);
        check_position(&pos, kind, seed, i, &mut stats);
    }
    (seed, stats)
}

/// Fractions every kind must show.
fn common_minimums(seed: u64, kind: Kind, s: &Stats) {
    let at_least = |what: &str, n: usize, min: f64| {
        let f = s.frac(n);
        assert!(
            f >= min,
            "TSUME_SEED={seed}, {kind:?}: {what} in {f:.3} of the positions, want >= {min}"
        );
    };
    let at_most = |what: &str, n: usize, max: f64| {
        let f = s.frac(n);
        assert!(
            f <= max,
            "TSUME_SEED={seed}, {kind:?}: {what} in {f:.3} of the positions, want <= {max}"
        );
    };
    at_least("Black attacking", s.black_attacks, 0.45);
    at_most("Black attacking", s.black_attacks, 0.55);
    at_least("an attacking king", s.attacker_king, 0.2);
    at_most("an attacking king", s.attacker_king, 0.4);
    at_least("a promoted piece", s.promoted, 0.5);
    at_least("a pinned defending piece", s.defender_pinned, 0.15);
    at_least("a pinned attacking piece", s.attacker_pinned, 0.03);
    at_least("the defending king off its back ranks", s.king_in_open, 0.1);
    at_least("an attacker hand of 5 or more pieces", s.rich_hand, 0.3);
    at_least(
        "every remaining piece in the attacker's hand",
        s.defender_hand_empty,
        0.08,
    );
}

/// Every category of `cats` occurs in at least `min` of the positions.
fn categories_occur(seed: u64, kind: Kind, s: &Stats, cats: &[Category], min: f64) {
    for cat in cats {
        let k = CATEGORIES.iter().position(|c| c == cat).expect("listed");
        let f = s.frac(s.categories[k]);
        assert!(
            f >= min,
            "TSUME_SEED={seed}, {kind:?}: a {} move in {f:.3} of the positions, want >= {min}",
            cat.as_str()
        );
    }
}

#[test]
fn checks_positions_are_legal_quiet_and_varied() {
    let (seed, s) = run(Kind::Checks);
    common_minimums(seed, Kind::Checks, &s);
    assert!(
        s.attackers_max <= 7 + 1,
        "TSUME_SEED={seed}: {} attacking pieces",
        s.attackers_max
    );
    assert!(
        s.attackers_min >= 1,
        "TSUME_SEED={seed}: a Checks position without attacking piece"
    );
    categories_occur(
        seed,
        Kind::Checks,
        &s,
        &[
            Category::Direct,
            Category::Indirect,
            Category::DirectIndirect,
            Category::Drop,
        ],
        0.05,
    );
    let with = s.frac(s.with_checks);
    assert!(
        with >= 0.85,
        "TSUME_SEED={seed}: only {with:.3} of the Checks positions have a check"
    );
    assert!(
        with <= 0.995,
        "TSUME_SEED={seed}: {with:.3} of the Checks positions have a check, want some without"
    );
}

#[test]
fn evasion_positions_are_legal_in_check_and_varied() {
    let (seed, s) = run(Kind::Evasions);
    common_minimums(seed, Kind::Evasions, &s);
    categories_occur(
        seed,
        Kind::Evasions,
        &s,
        &[
            Category::KingEscape,
            Category::Capture,
            Category::DropBlock,
            Category::MoveBlock,
        ],
        0.1,
    );
    let double = s.frac(s.double_checks);
    assert!(
        double >= 0.05,
        "TSUME_SEED={seed}: only {double:.3} of the Evasions positions are double checks"
    );
}

#[test]
fn any_positions_mix_both_kinds() {
    let (seed, s) = run(Kind::Any);
    common_minimums(seed, Kind::Any, &s);
    let checked = s.frac(s.in_check);
    assert!(
        (0.45..=0.55).contains(&checked),
        "TSUME_SEED={seed}: {checked:.3} of the Any positions are in check"
    );
}

#[test]
fn same_seed_same_positions() {
    let seed = seed_from_env();
    let sfens = |seed: u64| -> Vec<String> {
        let mut g = TsumeGenerator::new(seed);
        [Kind::Checks, Kind::Evasions, Kind::Any]
            .iter()
            .cycle()
            .take(3000)
            .map(|&k| g.next_position(k).to_sfen())
            .collect()
    };
    let a = sfens(seed);
    assert_eq!(
        a,
        sfens(seed),
        "TSUME_SEED={seed}: the same seed gave different positions"
    );
    let b = sfens(seed.wrapping_add(1));
    assert_ne!(
        a,
        b,
        "TSUME_SEED={seed}: seeds {seed} and {} gave the same positions",
        seed.wrapping_add(1)
    );
}

#[test]
fn fixed_seed_is_stable() {
    // The generator must not depend on anything but the seed (no clock, no global state).
    let mut g = TsumeGenerator::new(0);
    let first: Vec<String> = (0..5)
        .map(|_| g.next_position(Kind::Any).to_sfen())
        .collect();
    let mut h = TsumeGenerator::new(0);
    let again: Vec<String> = (0..5)
        .map(|_| h.next_position(Kind::Any).to_sfen())
        .collect();
    assert_eq!(first, again);
}
