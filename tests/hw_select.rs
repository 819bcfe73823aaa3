//! The search's child frames and SELECT on the simulated chip (`select_top`): on fresh
//! random frames, the chip's scan must give exactly the model's [`select`] (node numbers,
//! best child, second best number, and the returned value or the child's thresholds).
//! Frames are drawn to hit the corners: 0, 1, INF, INF - 1, the frame's largest number
//! (2^24 - 2: numbers above it are written to the chip as they are and given to the model
//! as the frame keeps them, `Value::framed`), sums, ties for the best and second, proven
//! and disproven children, lengths up to the frame's, rep values and none, bounded; the
//! thresholds include INF and values at which the node returns. Several plies are written
//! before they are scanned, so a frame that aliased another would show. Seed given on
//! failure; `TSUME_SEED` repeats a run, `TSUME_RANDOM` sets the number of frames. Then the
//! frames the model itself scans while it solves problems of the suite, in its order.
//! Each random child also has random pieces and a random hand change: a solved node's
//! pieces from the scan must be the model's [`scan_pieces`].

mod common;

use std::collections::BTreeMap;

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use tsume::bus::{MOVE_DROP_BIT, drop_square, encode_move};
use tsume::chip::select::SelectChip;
use tsume::position::Position;
use tsume::problems::load_suite;
use tsume::random::seed_from_env;
use tsume::solver::Kind;
use tsume::solver::controller::Machine;
use tsume::solver::hands::{self, FULL, Hand, HandChange};
use tsume::solver::select::{Scan, Selection, select};
use tsume::solver::solved_pieces::scan_pieces;
use tsume::solver::transposition_table::Table;
use tsume::solver::values::{INF, MAX_FINITE, Pn, TABLE_MAX, past_second};
use tsume::solver::values::{REP_NONE, Value};
use tsume::solver::{Config, Counters};

/// Frames per default run.
const FRAMES: usize = 20_000;
/// Frames written (on distinct plies) before they are scanned.
const PLIES_A_ROUND: usize = 12;
/// Frames recorded from the model's solves of suite problems, at most.
const SOLVE_FRAMES: usize = 20_000;
/// Scans of each frame, with different thresholds.
const SCANS_A_FRAME: usize = 3;

/// A frame's children: move word and value, in frame order.
type Children = Vec<(u16, Value)>;

/// A frame the model scanned: ply, kind, thresholds, children.
struct Scanned {
    ply: usize,
    kind: Kind,
    th_pn: Pn,
    th_dn: Pn,
    children: Children,
}

/// A frame's children's pieces and their moves' hand changes, in frame order.
type Pieces = Vec<(Hand, HandChange)>;

/// Random pieces (each count 0, full or anything within its kind; mostly every count
/// full in a frame of `full` ones, as repetitions carry) and hand change.
fn pieces(rng: &mut StdRng, full: bool) -> (Hand, HandChange) {
    let hand = std::array::from_fn(|k| match rng.random_range(0..if full { 12 } else { 3 }) {
        0 => 0,
        2 => rng.random_range(0..=FULL[k]),
        _ => FULL[k],
    });
    let k = rng.random_range(0..7);
    let change = match rng.random_range(0..3) {
        0 => HandChange::None,
        1 => HandChange::Drop(k),
        _ => HandChange::Capture(k),
    };
    (hand, change)
}

/// The pieces the model's scan gives a node of `kind` returning `selection` over
/// `children` with `pieces`, and the refuter's hand change (a disproven AND node only):
/// `None` for an unsolved node.
fn want_pieces(
    kind: Kind,
    selection: &Selection,
    children: &Children,
    pieces: &Pieces,
) -> Option<(Hand, Option<u8>)> {
    let Selection::Return(v) = selection else {
        return None;
    };
    if v.pn != 0 && v.dn != 0 {
        return None;
    }
    let (hand, change) = scan_pieces(
        kind,
        v,
        children
            .iter()
            .zip(pieces)
            .map(|((_, v), (h, c))| (v, *h, *c)),
    );
    let and_disproven = kind == Kind::And && v.dn == 0;
    Some((hand, and_disproven.then(|| change.code())))
}

/// The corner of taking pieces back a solved node of `kind` with `hand` hits: an OR
/// node's proof count kept at 0 over a capture (not below it). (A disproof count over a
/// drop cannot pass the full number: the meet starts full.)
fn piece_cases(kind: Kind, hand: &Hand, pieces: &Pieces) -> Vec<&'static str> {
    let mut hit = vec![];
    if kind == Kind::Or {
        for (p, c) in pieces {
            if let HandChange::Capture(k) = *c
                && p[k] == 0
                && hand[k] == 0
            {
                hit.push("pieces: a count of 0 kept over a capture");
            }
        }
    }
    hit
}

/// A frame's children as [`select`] takes them.
fn words(children: &Children) -> impl Iterator<Item = (u16, &Value)> {
    children.iter().map(|(w, v)| (*w, v))
}

/// A move word: anything, or a drop to one of the frame's few `squares` (so that drops
/// to one square meet, and later ones wait their turn at an AND node).
fn word(rng: &mut StdRng, squares: &[u16]) -> u16 {
    if rng.random_bool(0.5) {
        let kind = rng.random_range(1..8u16);
        MOVE_DROP_BIT | kind << 7 | squares[rng.random_range(0..squares.len())]
    } else {
        rng.random()
    }
}

/// A number from the corners or from anywhere.
fn number(rng: &mut StdRng) -> Pn {
    match rng.random_range(0..13) {
        0 => 0,
        1 => 1,
        2 => INF,
        3 => MAX_FINITE,
        4 => MAX_FINITE - rng.random_range(1..4),
        5 => rng.random_range(2..8),
        6 => (1 << 31) + rng.random_range(0..3) - 1,
        7 => MAX_FINITE / 2 + rng.random_range(0..3),
        8 => rng.random_range(1..1000),
        9 => TABLE_MAX - 1 + rng.random_range(0..3),
        _ => rng.random(),
    }
}

/// The longest length a frame of `config`'s chip keeps: lengths are R bits, one wider
/// than a ply index.
fn length_top(config: &Config) -> u16 {
    ((1u32 << (config.ply_bits() + 1)) - 1) as u16
}

/// A length: small, or at the top of what a frame keeps (`top`: a frame keeps lengths
/// below 2^R, R one bit wider than a ply index).
fn length(rng: &mut StdRng, top: u16) -> u16 {
    match rng.random_range(0..8) {
        0 => top,
        1 => top - 1,
        2 => 0,
        _ => rng.random_range(1..40),
    }
}

/// A `rep`: none, or a ply of the path.
fn rep(rng: &mut StdRng, palette: &[u16]) -> u16 {
    if rng.random_bool(0.4) {
        REP_NONE
    } else {
        palette[rng.random_range(0..palette.len())]
    }
}

/// One child's value. `palette`: numbers shared by the frame (ties); `reps`: its plies.
fn child(rng: &mut StdRng, palette: &[Pn], reps: &[u16], top: u16) -> Value {
    let pick = |rng: &mut StdRng| palette[rng.random_range(0..palette.len())];
    match rng.random_range(0..20) {
        // Proven: (0, INF) with its length.
        0..=2 => Value {
            pn: 0,
            dn: INF,
            len: length(rng, top),
            rep: REP_NONE,
            bounded: false,
        },
        // Disproven: (INF, 0), rep and bounded.
        3..=5 => Value {
            pn: INF,
            dn: 0,
            len: 0,
            rep: rep(rng, reps),
            bounded: rng.random_bool(0.5),
        },
        // New.
        6..=7 => Value::NEW,
        // Anything in every field (the scan must not care what a value means).
        8 => Value {
            pn: number(rng),
            dn: number(rng),
            len: length(rng, top),
            rep: rep(rng, reps),
            bounded: rng.random_bool(0.3),
        },
        // Unsolved, from the frame's palette (ties) or the corners.
        _ => {
            let n = |rng: &mut StdRng| {
                let x = if rng.random_bool(0.7) {
                    pick(rng)
                } else {
                    number(rng)
                };
                x.clamp(1, MAX_FINITE)
            };
            Value {
                pn: n(rng),
                dn: n(rng),
                len: 0,
                rep: REP_NONE,
                bounded: false,
            }
        }
    }
}

/// A frame: 1 to `max_children` children of one style, lengths up to `top`.
fn frame(rng: &mut StdRng, max_children: usize, max_plies: usize, top: u16) -> Children {
    let n = match rng.random_range(0..10) {
        0 => 1,
        1 => max_children,
        2 => rng.random_range(1..=max_children),
        _ => rng.random_range(1..=12.min(max_children)),
    };
    let palette: Vec<Pn> = (0..rng.random_range(1..4)).map(|_| number(rng)).collect();
    let reps: Vec<u16> = (0..rng.random_range(1..3))
        .map(|_| rng.random_range(0..max_plies as u16))
        .collect();
    let squares: Vec<u16> = (0..rng.random_range(1..4))
        .map(|_| rng.random_range(0..128))
        .collect();
    // Styles: every child solved one way (a solved node), none solved (the node
    // descends unless a threshold is reached), or a mix.
    let style = rng.random_range(0..6);
    (0..n)
        .map(|_| {
            let mut v = child(rng, &palette, &reps, top);
            match style {
                // All proven (AND proven) or all disproven (OR disproven), mostly.
                0 if rng.random_bool(0.9) => {
                    v = Value {
                        pn: 0,
                        dn: INF,
                        len: length(rng, top),
                        ..Value::NEW
                    }
                }
                1 if rng.random_bool(0.9) => {
                    v = Value {
                        pn: INF,
                        dn: 0,
                        len: 0,
                        rep: rep(rng, &reps),
                        bounded: rng.random_bool(0.5),
                    }
                }
                2 | 3 if v.pn == 0 || v.dn == 0 => v = Value::NEW,
                _ => {}
            }
            (word(rng, &squares), v)
        })
        .collect()
}

/// Thresholds for a frame whose numbers are (`pn`, `dn`): INF, at the numbers (the node
/// returns), just above them (it descends unless solved), or anywhere.
fn thresholds(rng: &mut StdRng, pn: Pn, dn: Pn) -> (Pn, Pn) {
    let th = |rng: &mut StdRng, x: Pn| match rng.random_range(0..8) {
        0..=2 => INF,
        3 => x,
        4 | 5 => x.saturating_add(rng.random_range(1..4)),
        6 => x.saturating_sub(1),
        _ => number(rng),
    };
    (th(rng, pn), th(rng, dn))
}

/// Whether an unsolved drop follows an unproven drop to its square (the scan of an AND
/// node takes it as waiting; docs/search.md, "Interpositions in turn").
fn waits(frame: &Children) -> bool {
    frame.iter().enumerate().any(|(i, (w, v))| {
        drop_square(*w).is_some()
            && v.pn != 0
            && v.dn != 0
            && frame[..i]
                .iter()
                .any(|(e, u)| drop_square(*e) == drop_square(*w) && u.pn != 0)
    })
}

/// The cases a scan hits, counted over the run.
fn cases(kind: Kind, frame: &Children, scan: &Scan, len_top: u16) -> Vec<&'static str> {
    let children: Vec<Value> = frame.iter().map(|c| c.1).collect();
    let mut hit = vec![];
    if kind == Kind::And && waits(frame) {
        hit.push("a drop waits its turn");
    }
    let or = kind == Kind::Or;
    match scan.selection {
        Selection::Return(v) => {
            hit.push("return");
            hit.push(match (or, v.pn == 0, v.dn == 0) {
                (true, true, _) => "OR proven",
                (true, _, true) => "OR disproven",
                (false, true, _) => "AND proven",
                (false, _, true) => "AND disproven",
                _ => "unsolved at a threshold",
            });
        }
        Selection::Descend { th_pn, th_dn, .. } => {
            hit.push("descend");
            let (spo, shr) = if or { (th_pn, th_dn) } else { (th_dn, th_pn) };
            if shr == INF {
                hit.push("descend, summed threshold INF");
            } else {
                hit.push("descend, summed threshold shared");
            }
            if scan.second == INF {
                hit.push("descend, second INF");
            } else if spo == past_second(INF, scan.second) {
                // The threshold past the second, not cut to the node's own.
                hit.push("descend, second + an eighth + 1");
            }
        }
    }
    let key = |v: &Value| if or { v.pn } else { v.dn };
    let best = key(&children[scan.best]);
    if children.len() > 1 && scan.second == best {
        hit.push("tie for best");
    }
    if children
        .iter()
        .enumerate()
        .filter(|&(i, v)| i != scan.best && key(v) == scan.second && scan.second != best)
        .count()
        > 1
    {
        hit.push("tie for second");
    }
    let sum = if or { scan.dn } else { scan.pn };
    // A frame keeps numbers below 2^24 - 1, so its sums never saturate (128 children of
    // 2^24 - 2 are below 2^31); its largest number is the corner.
    if children
        .iter()
        .any(|v| v.pn == TABLE_MAX || v.dn == TABLE_MAX)
    {
        hit.push("a number at the frame's largest");
    }
    if sum == INF {
        hit.push("sum INF");
    }
    if let Selection::Return(v) = scan.selection
        && v.dn == 0
        && v.pn != 0
    {
        if v.rep != REP_NONE {
            hit.push("disproof with rep");
        }
        if v.bounded {
            hit.push("disproof bounded");
        }
        // AND: a refuter chosen over another of the same rep by not being bounded.
        let refuters: Vec<&Value> = children.iter().filter(|c| c.dn == 0).collect();
        if !or
            && refuters
                .iter()
                .any(|c| c.rep == v.rep && c.bounded != v.bounded)
        {
            hit.push("AND refuter: not bounded first");
        }
    }
    // A frame keeps lengths below 2^R, so a proof's length never saturates its 16 bits;
    // the frame's longest is the corner.
    if let Selection::Return(v) = scan.selection
        && v.pn == 0
        && children.iter().any(|c| c.pn == 0 && c.len == len_top)
    {
        hit.push("a proof from the frame's longest length");
    }
    hit
}

#[test]
fn geometry_is_swim_toml() {
    let config = common::search_config();
    let runtime = common::runtime();
    let mut chip = SelectChip::new(&runtime, None).expect("select_top model");
    assert_eq!(
        chip.geometry(),
        (config.max_plies, config.max_children),
        "hdl/search/geometry.spade is not swim.toml [search]: run `cargo xtask gen`"
    );
}

#[test]
fn scans_equal_the_model() {
    let config = common::search_config();
    let (plies, max_children) = (config.max_plies, config.max_children);
    let len_top = length_top(&config);
    let runtime = common::runtime();
    let mut chip = SelectChip::new(&runtime, None).expect("select_top model");
    let seed = seed_from_env();
    let mut rng = StdRng::seed_from_u64(seed);
    let frames = common::random_count(FRAMES);
    let mut failures = Vec::new();
    let mut counts: BTreeMap<&'static str, usize> = BTreeMap::new();
    let mut done = 0;
    while done < frames {
        // A round: frames on distinct plies, all written before any is scanned.
        let mut round: Vec<usize> = (0..plies).collect();
        round.shuffle(&mut rng);
        round.truncate(PLIES_A_ROUND.min(plies).min(frames - done));
        let written: Vec<(usize, Kind, Children, Pieces)> = round
            .iter()
            .map(|&ply| {
                let kind = if rng.random_bool(0.5) {
                    Kind::Or
                } else {
                    Kind::And
                };
                let children = frame(&mut rng, max_children, plies, len_top);
                let full = rng.random_bool(0.3);
                let pieces: Pieces = children.iter().map(|_| pieces(&mut rng, full)).collect();
                for (i, ((mv, v), (hand, change))) in children.iter().zip(&pieces).enumerate() {
                    chip.write_child(ply, i, *mv, v, hand, *change);
                }
                // The model scans what the frame keeps: the numbers as the table keeps them.
                let children = children.into_iter().map(|(m, v)| (m, v.framed())).collect();
                (ply, kind, children, pieces)
            })
            .collect();
        for (ply, kind, children, pieces) in &written {
            let values: Vec<Value> = children.iter().map(|c| c.1).collect();
            let n = values.len();
            let at_inf = select(*kind, INF, INF, words(children));
            for s in 0..SCANS_A_FRAME {
                let (th_pn, th_dn) = if s == 0 {
                    (INF, INF)
                } else {
                    thresholds(&mut rng, at_inf.pn, at_inf.dn)
                };
                let want = select(*kind, th_pn, th_dn, words(children));
                let got = chip
                    .select(*ply, *kind, n, th_pn, th_dn, n as u64 + 100)
                    .unwrap_or_else(|e| panic!("ply {ply}, {n} children: {e:#}"));
                let pairs = n.div_ceil(2) as u64;
                if got.cycles != pairs + 5 {
                    failures.push(format!(
                        "ply {ply}, {n} children: {} cycles, not ceil(n / 2) + 5",
                        got.cycles
                    ));
                }
                let want_move = children[want.best].0;
                if got.scan != want || got.best_move != want_move {
                    failures.push(format!(
                        "ply {ply}, {kind:?}, th ({th_pn}, {th_dn}), children {values:?}:\n    \
                         chip  {:?} best move {:#06x}\n    model {want:?} best move {want_move:#06x}",
                        got.scan, got.best_move
                    ));
                }
                if let Some((hand, change)) = want_pieces(*kind, &want.selection, children, pieces)
                {
                    if got.pieces != hand || change.is_some_and(|c| c != got.ref_change) {
                        failures.push(format!(
                            "ply {ply}, {kind:?}, children {values:?} pieces {pieces:?}:\n    \
                             chip pieces {:?} refuter's change {}\n    model {hand:?} {change:?}",
                            got.pieces, got.ref_change
                        ));
                    }
                    for case in piece_cases(*kind, &hand, pieces) {
                        *counts.entry(case).or_default() += 1;
                    }
                }
                for case in cases(*kind, children, &want, len_top) {
                    *counts.entry(case).or_default() += 1;
                }
            }
            // One child read back whole.
            let i = rng.random_range(0..n);
            let got = chip.peek_child(*ply, i);
            let (hand, change) = chip.peeked_pieces();
            if got != children[i] || (hand, change) != (pieces[i].0, pieces[i].1.code()) {
                failures.push(format!(
                    "ply {ply} child {i}: read back {got:?} {hand:?} {change}, written {:?} {:?}",
                    children[i], pieces[i]
                ));
            }
        }
        done += written.len();
    }
    common::assert_no_failures(&failures, "scans disagree with the model", seed);
    if frames >= FRAMES {
        for case in [
            "return",
            "descend",
            "OR proven",
            "OR disproven",
            "AND proven",
            "AND disproven",
            "unsolved at a threshold",
            "descend, summed threshold INF",
            "descend, summed threshold shared",
            "descend, second INF",
            "descend, second + an eighth + 1",
            "tie for best",
            "tie for second",
            "a number at the frame's largest",
            "sum INF",
            "disproof with rep",
            "disproof bounded",
            "AND refuter: not bounded first",
            "a proof from the frame's longest length",
            "a drop waits its turn",
            "pieces: a count of 0 kept over a capture",
        ] {
            assert!(
                counts.get(case).copied().unwrap_or(0) > 0,
                "no scan hit `{case}` (seed {seed}, rerun with TSUME_SEED={seed}): {counts:?}"
            );
        }
    }
}

#[test]
fn frames_of_real_solves_equal_the_model() {
    let config = common::search_config();
    let runtime = common::runtime();
    let mut chip = SelectChip::new(&runtime, None).expect("select_top model");
    let problems = load_suite(&common::root().join("problems")).expect("the suite");
    let mut table = Table::new(config.tt_index_bits, config.tt_ways);
    let (mut frames, mut failures) = (0usize, Vec::new());
    let (mut returned, mut descended) = (0usize, 0usize);
    for p in problems.iter().filter(|p| p.solve_only.is_none()) {
        if frames >= SOLVE_FRAMES {
            break;
        }
        let pos = Position::from_sfen(&p.sfen).expect("a suite position");
        // The model's frames, as it scans them.
        let mut seen: Vec<Scanned> = Vec::new();
        let mut hook = |ply: usize, kind: Kind, th_pn: Pn, th_dn: Pn, children: &[_]| {
            if seen.len() + frames < SOLVE_FRAMES {
                let children: Children = children
                    .iter()
                    .map(|c: &tsume::solver::child_frames::Child| (encode_move(c.mv), c.value))
                    .collect();
                seen.push(Scanned {
                    ply,
                    kind,
                    th_pn,
                    th_dn,
                    children,
                });
            }
        };
        table.clear();
        let mut counters = Counters::default();
        let kind = Kind::Or;
        Machine::new(config, &mut table, &mut counters, 200_000)
            .with_select_hook(&mut hook)
            .run(pos.inner(), kind, config.root_plies(kind))
            .ok();
        for Scanned {
            ply,
            kind,
            th_pn,
            th_dn,
            children,
        } in &seen
        {
            for (i, (mv, v)) in children.iter().enumerate() {
                chip.write_child(*ply, i, *mv, v, &hands::EMPTY, HandChange::None);
            }
            let values: Vec<Value> = children.iter().map(|c| c.1).collect();
            let want = select(*kind, *th_pn, *th_dn, words(children));
            let got = chip
                .select(
                    *ply,
                    *kind,
                    values.len(),
                    *th_pn,
                    *th_dn,
                    values.len() as u64 + 100,
                )
                .unwrap_or_else(|e| panic!("{}: ply {ply}: {e:#}", p.id));
            match want.selection {
                Selection::Return(_) => returned += 1,
                Selection::Descend { .. } => descended += 1,
            }
            let want_move = children[want.best].0;
            if got.scan != want || got.best_move != want_move {
                failures.push(format!(
                    "{} ply {ply}, {kind:?}, th ({th_pn}, {th_dn}), children {values:?}:\n    \
                     chip  {:?}\n    model {want:?}",
                    p.id, got.scan
                ));
            }
        }
        frames += seen.len();
    }
    assert!(
        failures.is_empty(),
        "{} frames of the model's solves disagree with it:\n{}",
        failures.len(),
        failures[..failures.len().min(6)].join("\n")
    );
    assert!(
        returned > 0 && descended > 0,
        "the solves both return and descend: {frames} frames, {returned} returned, \
         {descended} descended"
    );
}
