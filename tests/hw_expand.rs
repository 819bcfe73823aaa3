//! The search's EXPAND on the simulated chip (`expand_top`): on fresh random positions, as
//! nodes at random plies with random plies left, a table pre-filled with entries for some
//! children (and other keys) and a path of random hashes in which some children's hashes
//! are planted (at plies of either parity, above and below the node; a side to move in
//! check expanded as an AND node, or now and then as an OR node, whose children are its
//! evasions that give check, and as OR nodes positions in check picked for having such
//! evasions), the chip's expansion must equal the model's `machine::expand`: every
//! child's hash (the model's `Keys::after`), the frame written (move words and values, in
//! stream order), the outcome (child limit, no move, no plies left, or a filled frame),
//! the length of the list and the probes counted; now and then with a child limit below
//! the list's length (the chip's `max_children` input), so that the limit is reached. The
//! same again with the pieces table (depth-free entries and hand superiority under a rule
//! of random complete kinds): the entries keyed by `KeyRule::key` and kept with hands
//! about the child's, each child probed with its table key and its attacker's hand, the
//! frame's values those of the model's `machine::expand_with` probing a `PieceTable`.
//! Seed given on failure; `TSUME_SEED` repeats a run, `TSUME_RANDOM` sets the number of
//! positions.

mod common;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use tsume::bus::encode_move;
use tsume::chip::expand::{ExpandChip, Expanded, Outcome};
use tsume::position::Position;
use tsume::random::{Kind as PositionKind, TsumeGenerator, seed_from_env};
use tsume::rsshogi::types::Move;
use tsume::solver::child_frames::Child;
use tsume::solver::expand::{Node, expand, expand_with};
use tsume::solver::hands::{self, FULL, Hand};
use tsume::solver::moves::node_moves;
use tsume::solver::pieces::{PieceTable, Probe};
use tsume::solver::position_hash::{KeyRule, Keys};
use tsume::solver::transposition_table::Table;
use tsume::solver::values::INF;
use tsume::solver::values::Value;
use tsume::solver::{Config, Kind, Reason};

/// Positions per default run.
const POSITIONS: usize = 400;
/// Plies of the path (the frames' max_plies).
const PLIES: usize = 64;
/// The checks of this position are more than a frame holds (593 legal moves).
const CROWDED: &str = "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1";

/// A value a table entry may hold: proven, disproven (bounded or not) or unsolved.
fn entry(rng: &mut StdRng) -> (u32, u32, u16, bool) {
    match rng.random_range(0..4) {
        0 => (0, INF, rng.random_range(1..40), false),
        1 => (INF, 0, 0, rng.random_bool(0.5)),
        _ => (
            rng.random_range(1..1000),
            rng.random_range(1..1000),
            0,
            false,
        ),
    }
}

#[derive(Default)]
struct Seen {
    select: usize,
    limit: usize,
    no_move: usize,
    no_ply: usize,
    repeated: usize,
    // OR nodes in check; their children (the evasions that give check).
    or_in_check: usize,
    counter_checks: usize,
    found: usize,
    new: usize,
    // Nodes in check whose check a drop could block, and lists of drops alone.
    blockable: usize,
    drops_only: usize,
}

/// A hand the table keeps for a child whose attacker holds `hand`: the same, or one piece
/// of a kind fewer or more, so that superiority answers either way.
fn kept_hand(rng: &mut StdRng, hand: &Hand) -> Hand {
    let mut h = *hand;
    let k = rng.random_range(0..7);
    match rng.random_range(0..3) {
        0 => h[k] = h[k].saturating_sub(1),
        1 => h[k] = (h[k] + 1).min(FULL[k]),
        _ => {}
    }
    h
}

/// The children of a node: its moves, their hashes and hands, and the generator's list.
struct Children {
    moves: Vec<Move>,
    /// Each move's child hash (the model's `Keys::after`), for the path and the table.
    hashes: Vec<u64>,
    /// The node's hands, and each child's, for the pieces table.
    node_hands: [Hand; 2],
    hands: Vec<[Hand; 2]>,
    /// The length of the generator's list (every evasion in check, of which an OR node
    /// keeps some).
    stream_len: usize,
}

impl Children {
    fn of(pos: &Position, kind: Kind, parent: u64) -> Children {
        let keys = Keys::get();
        let board = pos.inner();
        let mut moves: Vec<Move> = Vec::new();
        node_moves(board, kind, &mut moves);
        let hashes = moves
            .iter()
            .map(|&mv| keys.after(board, parent, mv))
            .collect();
        let node_hands = hands::hands(board);
        let hands = moves
            .iter()
            .map(|&mv| hands::hands_after(board, &node_hands, mv))
            .collect();
        let stream_len = if kind == Kind::Or && pos.in_check() {
            let mut all = Vec::new();
            node_moves(board, Kind::And, &mut all);
            all.len()
        } else {
            moves.len()
        };
        Children {
            moves,
            hashes,
            node_hands,
            hands,
            stream_len,
        }
    }
}

/// The key rule of a node of `kind` (the pieces table's if `pieces`), its complete kinds
/// those of the board or random.
fn key_rule(rng: &mut StdRng, pos: &Position, kind: Kind, pieces: bool) -> KeyRule {
    let board = pos.inner();
    let attacker = match kind {
        Kind::Or => board.turn(),
        Kind::And => board.turn().flip(),
    };
    KeyRule {
        hand_superiority: pieces,
        depth_free: pieces,
        attacker,
        complete: if rng.random_bool(0.5) {
            hands::complete_kinds(board)
        } else {
            std::array::from_fn(|_| rng.random_bool(0.5))
        },
    }
}

/// The node's ply and plies left: an OR node has an odd number left, an AND node an even
/// one (0 too), and the root's is below max_plies; None when the draw gives no such node.
fn ply_and_left(rng: &mut StdRng, kind: Kind) -> Option<(usize, u32)> {
    let d = rng.random_range(0..PLIES);
    let room = (PLIES - 1 - d) as u32;
    let mut left = rng.random_range(0..=room);
    if (left % 2 == 1) != (kind == Kind::Or) {
        left = if left > 0 { left - 1 } else { 1 };
    }
    if left as usize + d >= PLIES || (kind == Kind::Or && left == 0) {
        return None;
    }
    Some((d, left))
}

/// The path, written to the chip: random hashes, some of them children's (`hashes`), one
/// now and then where the model looks from ply `d`.
fn plant_path(chip: &mut ExpandChip, rng: &mut StdRng, d: usize, hashes: &[u64]) -> Vec<u64> {
    let mut path: Vec<u64> = (0..PLIES).map(|_| rng.random()).collect();
    if !hashes.is_empty() {
        for _ in 0..rng.random_range(0..4) {
            let q = rng.random_range(0..PLIES);
            path[q] = hashes[rng.random_range(0..hashes.len())];
        }
        // One planted where the model looks (d - 1, d - 3, ...), when there is such a ply.
        if d > 0 && rng.random_bool(0.5) {
            let q = d - 1 - 2 * rng.random_range(0..d.div_ceil(2));
            path[q] = hashes[rng.random_range(0..hashes.len())];
        }
    }
    for (q, &h) in path.iter().enumerate() {
        chip.write_path(q, h);
    }
    path
}

/// The model's tables, the plain one and the pieces table (used with hand superiority).
struct Tables {
    table: Table,
    pieces: PieceTable,
}

/// The tables, the chip's and the model's: empty, then entries for some children (with
/// their plies left, `left - 1`, or others) and some random keys.
fn fill_tables(
    chip: &mut ExpandChip,
    cfg: &Config,
    rng: &mut StdRng,
    rule: &KeyRule,
    left: u32,
    children: &Children,
) -> anyhow::Result<Tables> {
    let keys = Keys::get();
    let pieces = rule.hand_superiority;
    let mut table = Table::new(cfg.tt_index_bits, cfg.tt_ways);
    let mut piece_table =
        PieceTable::try_new(cfg.tt_index_bits, cfg.tt_ways, true, true).expect("a small table");
    chip.clear()?;
    // (key, plies left, the child's attacker's hand)
    let mut stores: Vec<(u64, u32, Hand)> = Vec::new();
    for (&h, after) in children.hashes.iter().zip(&children.hands) {
        if rng.random_bool(0.4) {
            let r = if left == 0 || rng.random_bool(0.2) {
                rng.random_range(0..PLIES as u32)
            } else {
                left - 1
            };
            let key = if pieces {
                rule.key(h, after, r)
            } else {
                keys.table_key(h, r)
            };
            stores.push((key, r, rule.attacker_hand(after)));
        }
    }
    for _ in 0..rng.random_range(0..4) {
        stores.push((
            rng.random(),
            rng.random_range(0..PLIES as u32),
            hands::EMPTY,
        ));
    }
    for (key, r, hand) in stores {
        let (pn, dn, len, bounded) = entry(rng);
        if pieces {
            let kept = kept_hand(rng, &hand);
            let probe = Probe {
                key,
                hand: kept,
                left: r,
            };
            piece_table.store(probe, pn, dn, len, bounded, kept);
            chip.store(key, pn, dn, len, bounded, r as u16, &kept)?;
        } else {
            table.store(key, pn, dn, len, bounded);
            chip.store(key, pn, dn, len, bounded, 0, &hands::EMPTY)?;
        }
    }
    Ok(Tables {
        table,
        pieces: piece_table,
    })
}

/// The model's expansion: its outcome, the frame's children and the probes counted.
struct ModelExpansion {
    outcome: Outcome,
    children: Vec<Child>,
    probes: u64,
}

/// The model's expansion of `case` (`machine::expand`, or `expand_with` probing the
/// pieces table when the rule has hand superiority).
fn model_expansion(
    case: &Case,
    max_children: usize,
    tables: &Tables,
) -> anyhow::Result<ModelExpansion> {
    let Case {
        pos,
        kind,
        d,
        left,
        parent,
        ref rule,
        ref children,
        ref path,
    } = *case;
    let board = pos.inner();
    let node = Node {
        ply: d,
        root_left: left + d as u32,
        hash: parent,
        // The chip's replies: every evasion.
        rule: tsume::futile::Rule::EveryInterposition,
    };
    let mut frame: Vec<Child> = Vec::new();
    let mut scratch = Vec::new();
    let mut probes = 0;
    let model = if rule.hand_superiority {
        let child_left = left.saturating_sub(1);
        expand_with(
            board,
            kind,
            node,
            |q| path[q],
            max_children,
            &mut scratch,
            &mut frame,
            &mut probes,
            |hash, mv| {
                let after = hands::hands_after(board, &children.node_hands, mv);
                let probe = Probe {
                    key: rule.key(hash, &after, child_left),
                    hand: rule.attacker_hand(&after),
                    left: child_left,
                };
                tables
                    .pieces
                    .lookup(probe)
                    .map(|f| (Value::found(f.pn, f.dn, f.len, f.bounded), f.pieces))
            },
        )
    } else {
        expand(
            board,
            kind,
            node,
            |q| path[q],
            &tables.table,
            max_children,
            &mut scratch,
            &mut frame,
            &mut probes,
        )
    };
    let outcome = match model {
        Err(Reason::ChildLimit { .. }) => Outcome::ChildLimit,
        Err(e) => anyhow::bail!("the model stopped: {e:?}"),
        Ok(Some(v)) if left == 0 && !children.moves.is_empty() => {
            anyhow::ensure!(v.bounded, "no plies left: a bounded disproof");
            Outcome::NoPlyLeft
        }
        Ok(Some(_)) => Outcome::NoMove,
        Ok(None) => Outcome::Filled,
    };
    Ok(ModelExpansion {
        outcome,
        children: frame,
        probes,
    })
}

/// A node to expand, as drawn: `pos` as a node of `kind` at ply `d` with `left` plies
/// left, its hash, its key rule, its children and the path above it.
struct Case<'a> {
    pos: &'a Position,
    kind: Kind,
    d: usize,
    left: u32,
    parent: u64,
    rule: KeyRule,
    children: Children,
    path: Vec<u64>,
}

/// The chip's expansion `got` of `case` against the model's `want`: the outcome, the
/// list's length, the probes, what a solved node's pieces need, the kept children's
/// hashes and, for a filled frame, every child's move, value and pieces; counted in
/// `seen`.
fn compare(
    chip: &mut ExpandChip,
    case: &Case,
    max_children: usize,
    got: &Expanded,
    want: &ModelExpansion,
    seen: &mut Seen,
) -> Vec<String> {
    let mut diffs = Vec::new();
    let moves = &case.children.moves;
    if got.outcome != want.outcome {
        diffs.push(format!(
            "outcome {:?}, expected {:?}",
            got.outcome, want.outcome
        ));
    }
    if got.children != moves.len() {
        diffs.push(format!(
            "{} children, expected {}",
            got.children,
            moves.len()
        ));
    }
    if got.probes != want.probes {
        diffs.push(format!("{} probes, expected {}", got.probes, want.probes));
    }
    // What a solved node's pieces need of its expansion.
    let board = case.pos.inner();
    let blockable = hands::drop_can_block(board);
    let board_move = moves.iter().any(|m| m.dropped_piece().is_none());
    if (got.blockable, got.board_move) != (blockable, board_move) {
        diffs.push(format!(
            "blockable {} board move {}, expected {blockable} {board_move}",
            got.blockable, got.board_move
        ));
    }
    seen.blockable += usize::from(blockable);
    seen.drops_only += usize::from(!moves.is_empty() && !board_move);
    // The hashes of every child the chip keeps (below the limit, with plies left).
    let kept = if case.left == 0 {
        0
    } else {
        moves.len().min(max_children)
    };
    let want_hashes: Vec<(usize, u64)> = case
        .children
        .hashes
        .iter()
        .copied()
        .enumerate()
        .take(kept)
        .collect();
    if got.hashes != want_hashes {
        let first = got
            .hashes
            .iter()
            .zip(&want_hashes)
            .position(|(a, b)| a != b)
            .unwrap_or(got.hashes.len().min(want_hashes.len()));
        diffs.push(format!(
            "child hashes differ from child {first} ({} from the chip, {} expected)",
            got.hashes.len(),
            want_hashes.len()
        ));
    }
    match want.outcome {
        Outcome::Filled => {
            seen.select += 1;
            compare_frame(chip, case, &want.children, seen, &mut diffs);
        }
        Outcome::ChildLimit => seen.limit += 1,
        Outcome::NoMove => seen.no_move += 1,
        Outcome::NoPlyLeft => seen.no_ply += 1,
    }
    diffs
}

/// The frame the chip wrote against the model's `children`: every child's move word,
/// value, pieces and hand change.
fn compare_frame(
    chip: &mut ExpandChip,
    case: &Case,
    children: &[Child],
    seen: &mut Seen,
    diffs: &mut Vec<String>,
) {
    for (i, c) in children.iter().enumerate() {
        let (mv, value) = chip.peek_child(case.d, i);
        let (hand, change) = chip.peeked_pieces();
        let want_value: Value = c.value;
        let want_change = hands::hand_change(case.pos.inner(), c.mv).code();
        if mv != encode_move(c.mv)
            || value != want_value
            || (hand, change) != (c.pieces, want_change)
        {
            diffs.push(format!(
                "child {i} ({:?}): chip {mv:#06x} {value:?} pieces {hand:?} change \
                 {change}, model {:#06x} {want_value:?} {:?} {want_change}",
                c.mv,
                encode_move(c.mv),
                c.pieces
            ));
        }
        if c.value.rep != tsume::solver::values::REP_NONE {
            seen.repeated += 1;
        } else if c.value == Value::NEW {
            seen.new += 1;
        } else {
            seen.found += 1;
        }
    }
}

/// One expansion of `pos` as a node of `kind` on chip and in the model (with the pieces
/// table if `pieces`); the differences.
fn check(
    chip: &mut ExpandChip,
    cfg: &Config,
    rng: &mut StdRng,
    pos: &Position,
    kind: Kind,
    pieces: bool,
    seen: &mut Seen,
) -> anyhow::Result<Vec<String>> {
    let rule = key_rule(rng, pos, kind, pieces);
    chip.set_rule(&rule);
    let Some((d, left)) = ply_and_left(rng, kind) else {
        return Ok(Vec::new());
    };
    let parent = Keys::get().hash(pos.inner());
    let chip_hash = chip.load_hashed(pos)?;
    let mut diffs = Vec::new();
    if chip_hash != parent {
        diffs.push(format!(
            "parent hash {chip_hash:#018x}, expected {parent:#018x}"
        ));
    }
    let children = Children::of(pos, kind, parent);
    let path = plant_path(chip, rng, d, &children.hashes);
    let tables = fill_tables(chip, cfg, rng, &rule, left, &children)?;
    // The child limit: the frames' own, or now and then one the list exceeds.
    let n = children.moves.len();
    let max_children = if n >= 2 && rng.random_bool(0.15) {
        rng.random_range(1..n).min(cfg.max_children)
    } else {
        cfg.max_children
    };
    let case = Case {
        pos,
        kind,
        d,
        left,
        parent,
        rule,
        children,
        path,
    };
    let want = model_expansion(&case, max_children, &tables)?;
    if kind == Kind::Or && pos.in_check() {
        seen.or_in_check += 1;
        seen.counter_checks += n;
    }
    let stream_len = case.children.stream_len as u64;
    let got = chip.expand(d, kind, left, max_children, 10 * stream_len + 200)?;
    diffs.extend(compare(chip, &case, max_children, &got, &want, seen));
    if !diffs.is_empty() {
        diffs.insert(
            0,
            format!("{} as {kind:?} at ply {d} with {left} left", pos.to_sfen()),
        );
    }
    Ok(diffs)
}

#[test]
fn expansions_match_the_model() {
    expansions(false);
}

#[test]
fn expansions_with_hands_match_the_model() {
    expansions(true);
}

/// Expansions of random positions (with the pieces table if `pieces`) against the model.
fn expansions(pieces: bool) {
    let seed = seed_from_env();
    // The two tests draw other positions from one seed.
    let salt = if pieces { 0x9e37_79b9 } else { 0 };
    let mut rng = StdRng::seed_from_u64(seed ^ salt);
    let mut generator = TsumeGenerator::new(seed ^ salt);
    let cfg = common::search_config();
    let runtime = common::runtime();
    let mut chip = ExpandChip::new(&runtime, None).expect("expand_top");
    let mut seen = Seen::default();
    let mut failures = Vec::new();
    let count = common::random_count(POSITIONS);
    // The side to move in check is an AND node (the defender's), or in a third of the
    // positions an OR node (the attacker's, after a counter-check), which keeps the
    // evasions that give check.
    let mut positions: Vec<(Position, Kind)> = vec![(common::pos(CROWDED), Kind::Or)];
    for _ in 0..count {
        let pos = generator.next_position(PositionKind::Any);
        let kind = if pos.in_check() && !rng.random_bool(1.0 / 3.0) {
            Kind::And
        } else {
            Kind::Or
        };
        positions.push((pos, kind));
    }
    // Few evasions give check, so few random positions are such nodes: OR
    // nodes in check with children, from positions in check picked for them.
    let mut evasions = TsumeGenerator::new(seed ^ salt ^ 0x636f_756e);
    let mut scratch = Vec::new();
    let wanted = (count / 10).max(1);
    let mut picked = 0;
    for _ in 0..1000 * wanted {
        if picked == wanted {
            break;
        }
        let pos = evasions.next_position(PositionKind::Evasions);
        node_moves(pos.inner(), Kind::Or, &mut scratch);
        if !scratch.is_empty() {
            positions.push((pos, Kind::Or));
            picked += 1;
        }
    }
    for (pos, kind) in &positions {
        let diffs = check(&mut chip, &cfg, &mut rng, pos, *kind, pieces, &mut seen)
            .unwrap_or_else(|e| vec![format!("{}: {e:#}", pos.to_sfen())]);
        if !diffs.is_empty() {
            failures.push(diffs.join("\n  "));
        }
    }
    common::assert_no_failures(&failures, "expansions disagree with the model", seed);
    for (case, n) in [
        ("filled frame", seen.select),
        ("child limit", seen.limit),
        ("no move", seen.no_move),
        ("no plies left", seen.no_ply),
        ("repeated child", seen.repeated),
        ("OR node in check", seen.or_in_check),
        (
            "evasion that gives check at an OR node",
            seen.counter_checks,
        ),
        ("child found in the table", seen.found),
        ("new child", seen.new),
        ("a check a drop could block", seen.blockable),
        ("a list of drops alone", seen.drops_only),
    ] {
        assert!(
            n > 0,
            "no expansion hit `{case}` (seed {seed}, rerun with TSUME_SEED={seed})"
        );
    }
}
