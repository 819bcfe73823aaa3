//! The board's chip (`solver_link_top`: the search behind the host link), simulated behind
//! the bit-level UART model and driven over the link as a `Searcher`
//! (`tsume::chip::link::BoardSearcher`), against `solver_top` driven on its ports
//! (`ChipSearcher`): every solve must give the same outcome (result, line, counters), the
//! same cycle counters and the same walks, on the problem suite and on fresh random
//! positions (seed printed on failure; `TSUME_SEED` repeats a run, `TSUME_RANDOM` sets the
//! number). The link recovers from bad frames and mistimed requests, a POSITION stops a
//! search, the board's move lists come from the search's generator, and a geometry the
//! board does not hold is refused with a clear error.

mod common;

use common::limits;
use common::twins::{Twin, Twins};

use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use tsume::chip::link::{
    BoardSearcher, ErrorCode, LinkDriver, Request, Response, SOLVER_PROTOCOL_VERSION, SearchAnswer,
    SearchRequest, SimConfig, SimUart, SolverLinkTop,
};
use tsume::chip::solver::{ChipSearcher, Cycles, OnChip, SolverChip, Walked};
use tsume::marlin::spade::SpadeRuntime;
use tsume::position::Position;
use tsume::random::{Kind as PositionKind, TsumeGenerator, seed_from_env};
use tsume::reference;
use tsume::solver::{Config, Limits, Outcome, Root, SearchResult, solve_on};

/// Random positions per default run.
const POSITIONS: usize = 30;
/// The node limit of a suite problem.
const SUITE_NODES: u64 = 3_000;
/// A default run solves every third suite problem (`common::share`; all with `TSUME_LONG`).
const SUITE_SHARE: usize = 3;
/// With hand superiority: suite problems and random positions per default run.
const HS_PROBLEMS: usize = 12;
const HS_POSITIONS: usize = 10;

type Board<'ctx> = BoardSearcher<SimUart<'ctx, SolverLinkTop<'ctx>>>;

fn sim_config() -> SimConfig {
    SimConfig {
        clocks_per_bit: 4,
        ..SimConfig::at_mhz(common::board_clock_mhz())
    }
}

fn sim<'c>(runtime: &'c SpadeRuntime) -> LinkDriver<SimUart<'c, SolverLinkTop<'c>>> {
    let uart = SimUart::new(runtime, sim_config(), None).expect("the solver_link_top model");
    LinkDriver::new(uart)
}

fn board(runtime: &SpadeRuntime, config: Config) -> Board<'_> {
    BoardSearcher::new(sim(runtime), sim_config().clock_hz, config)
        .unwrap_or_else(|e| panic!("the simulated board: {e}"))
}

/// The board against `solver_top` (`common::twins`): the same outcomes, cycle counters
/// and walks.
type BoardAndChip<'ctx> = Twins<Board<'ctx>, ChipSearcher<'ctx>>;

fn board_and_chip(runtime: &SpadeRuntime) -> BoardAndChip<'_> {
    board_and_chip_with(runtime, board_config())
}

/// swim.toml [search] as the board searches it: without count estimates (the board's
/// chip leaves the count unit out).
fn board_config() -> Config {
    Config {
        child_estimates: None,
        ..common::search_config()
    }
}

/// Both searching with `config`, a geometry and table mode the chip takes.
fn board_and_chip_with(runtime: &SpadeRuntime, config: Config) -> BoardAndChip<'_> {
    let chip = SolverChip::new(runtime, None).expect("the solver_top model");
    let mut chip = ChipSearcher::new(chip, common::search_config());
    chip.set_config(config).expect("a mode the chip takes");
    Twins::new(board(runtime, config), chip, ["board", "chip"])
}

/// A chip's trace, the board's or `solver_top`'s: the solve's cycle counters and walks.
impl<S: OnChip> Twin for S {
    type Trace = (Cycles, Walked);

    fn solve_traced(&mut self, pos: &Position, limits: Limits) -> (Outcome, (Cycles, Walked)) {
        let walked = self.walked();
        let outcome = solve_on(self, pos, limits);
        (outcome, (self.cycles(), self.walked().since(walked)))
    }

    fn trace_difference(
        (board_cycles, board_walks): &(Cycles, Walked),
        (chip_cycles, chip_walks): &(Cycles, Walked),
        [a, b]: [&str; 2],
    ) -> String {
        format!(
            "cycles {board_cycles:?} / {chip_cycles:?}, walks {board_walks:?} / {chip_walks:?} ({a} / {b})"
        )
    }
}

#[test]
fn the_board_solves_the_suite_and_random_positions_as_solver_top() {
    let runtime = common::runtime();
    let mut twins = board_and_chip(&runtime);
    let mut failures = Vec::new();
    let mut mates = 0;
    let seed = seed_from_env();
    let problems = common::suite_share(SUITE_SHARE, seed);
    for (p, pos) in &problems {
        match twins.solve(&p.id, pos, limits(SUITE_NODES, true, Root::Attacker)) {
            Ok(out) => mates += usize::from(out.result == SearchResult::Mate),
            Err(e) => failures.push(e),
        }
    }
    common::assert_no_failures(&failures, "suite problems differ on the board", seed);
    assert!(
        mates * 4 >= problems.len(),
        "only {mates} of {} suite problems proven on the board",
        problems.len()
    );
    assert!(
        twins.tested.walked().complete > 0,
        "the board walked no line to the mate"
    );

    let mut g = TsumeGenerator::new(seed);
    let mut rng = StdRng::seed_from_u64(seed ^ 0xb0a7d);
    let mut kinds = [0usize; 3];
    let count = common::random_count(POSITIONS);
    let full = count >= POSITIONS;
    // Past `count`, more positions while a kind of answer has not occurred yet (at most
    // three times as many): a short run of random positions may hold no `nomate`.
    let mut i = 0;
    while i < count || (full && kinds.contains(&0) && i < 3 * count) {
        let pos = g.next_position(PositionKind::Any);
        let lim = limits(rng.random_range(0..400), rng.random_bool(0.5), Root::Auto);
        match twins
            .solve(&format!("random position {i}"), &pos, lim)
            .map(|out| out.result)
        {
            Ok(SearchResult::Mate) => kinds[0] += 1,
            Ok(SearchResult::NoMate) => kinds[1] += 1,
            Ok(_) => kinds[2] += 1,
            Err(e) => failures.push(e),
        }
        i += 1;
    }
    common::assert_no_failures(&failures, "random positions differ on the board", seed);
    if full {
        assert!(
            kinds.iter().all(|&k| k > 0),
            "a kind of answer never occurred (mate, no mate, unknown): {kinds:?} (seed {seed})"
        );
    }
}

/// With hand superiority (BEGIN's rule, LOOKUP's hand): the suite's first problems and
/// random positions as on `solver_top`.
#[test]
fn the_board_solves_with_hand_superiority_as_solver_top() {
    let runtime = common::runtime();
    let config = Config {
        hand_superiority: true,
        depth_free: true,
        ..board_config()
    };
    let mut twins = board_and_chip_with(&runtime, config);
    let mut failures = Vec::new();
    let problems = common::suite()
        .into_iter()
        .filter(|(p, _)| p.solve_only.is_none());
    for (p, pos) in problems.take(HS_PROBLEMS) {
        if let Err(e) = twins.solve(&p.id, &pos, limits(SUITE_NODES, true, Root::Attacker)) {
            failures.push(e);
        }
    }
    let seed = seed_from_env();
    let mut g = TsumeGenerator::new(seed ^ 0x4a5d);
    let mut rng = StdRng::seed_from_u64(seed ^ 0x4a5d);
    for i in 0..common::random_count(HS_POSITIONS) {
        let pos = g.next_position(PositionKind::Any);
        let lim = limits(rng.random_range(0..400), rng.random_bool(0.5), Root::Auto);
        if let Err(e) = twins.solve(&format!("random position {i}"), &pos, lim) {
            failures.push(e);
        }
    }
    common::assert_no_failures(&failures, "hand superiority differs on the board", seed);
}

/// The next frame, within a generous time.
fn next<'c>(link: &mut LinkDriver<SimUart<'c, SolverLinkTop<'c>>>) -> Response {
    link.receive(Duration::from_millis(50))
        .expect("the link")
        .expect("a frame from the board")
}

fn error_of(r: Response) -> ErrorCode {
    match r {
        Response::Error { code, .. } => code,
        other => panic!("expected ERROR, got {other:?}"),
    }
}

#[test]
fn the_board_recovers_from_bad_and_mistimed_frames() {
    let runtime = common::runtime();
    let mut link = sim(&runtime);
    let search = |limit| {
        Request::Search(SearchRequest::Search {
            left: 9,
            and_root: false,
            progress_log2: 10,
            node_limit: limit,
        })
    };
    // STATUS names the solver's protocol.
    link.send(&Request::Status).unwrap();
    match next(&mut link) {
        Response::Status(s) => assert_eq!(s.version, SOLVER_PROTOCOL_VERSION),
        other => panic!("expected STATUS, got {other:?}"),
    }
    // Before any position: SEARCH and WALK are NOT_LOADED; a STOP with no search is
    // NOT_SEARCHING; a BEGIN beyond the geometry is BAD_ARGUMENT.
    link.send(&search(100)).unwrap();
    assert_eq!(error_of(next(&mut link)), ErrorCode::NotLoaded);
    link.send(&Request::Search(SearchRequest::Stop)).unwrap();
    assert_eq!(error_of(next(&mut link)), ErrorCode::NotSearching);
    let too_big = SearchRequest::Begin {
        table_bits: 40,
        max_children: 1,
        depth_free: false,
        hand_superiority: false,
        attacker_white: false,
        complete: 0,
    };
    link.send(&Request::Search(too_big)).unwrap();
    assert_eq!(error_of(next(&mut link)), ErrorCode::BadArgument);
    // A BEGIN flag beyond bit 2, and a LOOKUP's hand beyond 21 bits, are BAD_ARGUMENT.
    let flagged = tsume::chip::link::Frame::new(0x09, [1, 1, 0, 8, 0]).encode();
    link.send_raw(&flagged).unwrap();
    assert_eq!(error_of(next(&mut link)), ErrorCode::BadArgument);
    let mut hand = [0u8; 13];
    hand[12] = 0x20;
    link.send_raw(&tsume::chip::link::Frame::new(0x0b, hand).encode())
        .unwrap();
    assert_eq!(error_of(next(&mut link)), ErrorCode::BadArgument);
    // A bad CRC and a wrong length are answered and nothing is done.
    let mut bad = Request::Search(SearchRequest::Info).frame().encode();
    *bad.last_mut().unwrap() ^= 0x5a;
    link.send_raw(&bad).unwrap();
    assert_eq!(error_of(next(&mut link)), ErrorCode::BadCrc);
    let short = tsume::chip::link::Frame::new(0x07, [1, 2, 3]).encode();
    link.send_raw(&short).unwrap();
    assert_eq!(error_of(next(&mut link)), ErrorCode::BadLength);

    // A long search: PROGRESS frames, a list request refused (BUSY), then a POSITION that
    // stops it (DONE, stopped) and loads the next root.
    let begin = SearchRequest::Begin {
        table_bits: common::search_config().tt_index_bits as u8,
        max_children: common::search_config().max_children as u16,
        depth_free: common::search_config().depth_free,
        hand_superiority: false,
        attacker_white: false,
        complete: 0,
    };
    link.send(&Request::Search(begin)).unwrap();
    assert_eq!(next(&mut link), Response::Search(SearchAnswer::Cleared));
    let hard = long_problem();
    link.send(&Request::Search(SearchRequest::position(&hard)))
        .unwrap();
    assert!(matches!(
        next(&mut link),
        Response::Search(SearchAnswer::Hash(_))
    ));
    link.send(&search(u64::MAX)).unwrap();
    let mut last = 0;
    for _ in 0..2 {
        match next(&mut link) {
            Response::Search(SearchAnswer::Progress { nodes, .. }) => {
                assert!(nodes >= last, "PROGRESS went back from {last} to {nodes}");
                last = nodes;
            }
            other => panic!("expected PROGRESS, got {other:?}"),
        }
    }
    link.send(&Request::Generate).unwrap();
    loop {
        match next(&mut link) {
            Response::Search(SearchAnswer::Progress { .. }) => continue,
            r => {
                assert_eq!(error_of(r), ErrorCode::Busy);
                break;
            }
        }
    }
    let mate3 = common::pos("3sks3/9/4S4/9/9/B8/9/9/9 b S2rb4g4n4l18p 1");
    link.send(&Request::Search(SearchRequest::position(&mate3)))
        .unwrap();
    let done = loop {
        match next(&mut link) {
            Response::Search(SearchAnswer::Progress { .. }) => continue,
            Response::Search(SearchAnswer::Done(d)) => break d,
            other => panic!("expected DONE, got {other:?}"),
        }
    };
    assert_eq!(done.result, 2, "a POSITION mid-search stops it: {done:?}");
    assert!(done.counters.nodes >= last);
    assert!(matches!(
        next(&mut link),
        Response::Search(SearchAnswer::Cycles(_))
    ));
    assert!(matches!(
        next(&mut link),
        Response::Search(SearchAnswer::Hash(_))
    ));
    // The move list of the stored position comes from the search's generator.
    let list = link.regenerate().expect("the list of the stored position");
    assert_eq!(
        list.moves,
        reference::tsume_moves(&mate3).moves,
        "the board's list of {mate3}"
    );
    // And the board then solves the new root.
    let mut board = BoardSearcher::new(link, sim_config().clock_hz, board_config())
        .expect("the board after the stop");
    let out = solve_on(&mut board, &mate3, limits(u64::MAX, true, Root::Attacker));
    assert_eq!(out.result, SearchResult::Mate);
    assert_eq!(out.pv.len(), 3);
}

/// A suite problem the model does not solve within 3,000 nodes: a search long enough for
/// PROGRESS frames and requests in the middle of it.
fn long_problem() -> Position {
    let mut model = tsume::solver::Solver::new(board_config());
    common::suite()
        .into_iter()
        .map(|(_, pos)| pos)
        .find(|pos| {
            let out = model.solve(pos, limits(3_000, false, Root::Attacker));
            out.counters.nodes >= 3_000
        })
        .expect("a suite problem of more than 3,000 nodes")
}

#[test]
fn a_geometry_larger_than_the_board_is_refused() {
    let runtime = common::runtime();
    let built = board_config();
    let larger = Config {
        tt_index_bits: built.tt_index_bits + 1,
        ..built
    };
    let Err(error) = BoardSearcher::new(sim(&runtime), sim_config().clock_hz, larger) else {
        panic!("a table larger than the board's was taken")
    };
    assert!(
        error.contains("the board's chip") && error.contains(&built.tt_entries().to_string()),
        "{error}"
    );
    let more_plies = Config {
        max_plies: built.max_plies + 1,
        ..built
    };
    assert!(BoardSearcher::new(sim(&runtime), sim_config().clock_hz, more_plies).is_err());
    // The count unit's estimates: not on the board's chip.
    let estimates = Config {
        child_estimates: Some(tsume::solver::count_estimate::Estimate::Attacked),
        ..built
    };
    let Err(error) = BoardSearcher::new(sim(&runtime), sim_config().clock_hz, estimates) else {
        panic!("count estimates were taken by the board")
    };
    assert!(error.contains("count unit"), "{error}");
}
