//! The search on the board: the solver behind the host link (`solver_link_top`, on an FPGA
//! board or simulated behind the UART model) driven as a [`Searcher`], with the search's
//! frames ([`super::search`]). Each call is what [`crate::chip::solver::ChipSearcher`] does
//! on `solver_top`'s ports, done by the chip's side of the link, so a solve on the board
//! has the same results, lines and counters.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rsshogi::board::Position as Board;
use rsshogi::types::Move;

use super::driver::{LinkDriver, Transport};
use super::protocol::{ErrorCode, LinkError, Request, Response, SOLVER_PROTOCOL_VERSION};
use super::search::{Done, Geometry, SearchAnswer, SearchRequest};
use crate::bus;
use crate::chip::solver::{Cycles, OnChip, Walked, chip_takes, ended};
use crate::chip::{MAX_LEFT, left_port};
use crate::position::Position;
use crate::solver::position_hash::KeyRule;
use crate::solver::position_hash::Keys;
use crate::solver::transposition_table::Found;
use crate::solver::values::Value;
use crate::solver::{Config, Counters, Kind, Reason, Searcher, Walk};

/// The solver on the board as a [`Searcher`].
pub struct BoardSearcher<T> {
    link: LinkDriver<T>,
    /// The geometry the board's chip is built for (its INFO).
    built: Config,
    config: Config,
    /// PROGRESS every 2^progress_log2 cycles: the link's heartbeat during a search.
    progress_log2: u8,
    /// The longest silence during a search.
    search_timeout: Duration,
    stop: Option<Arc<AtomicBool>>,
    counters: Counters,
    cycles: Cycles,
    walked: Walked,
    root_n: u16,
    /// A solve has begun and its BEGIN is still to send: with the first root, whose table
    /// key's rule it carries.
    begin_pending: bool,
}

fn engine(what: &str, e: impl std::fmt::Display) -> Reason {
    Reason::Engine(format!("the board, {what}: {e}"))
}

impl<T: Transport> BoardSearcher<T> {
    /// The board behind `link`, clocked at `clock_hz`: checks that it speaks this host's
    /// protocol (STATUS), asks its geometry (INFO) and checks that it takes `config`
    /// ([`chip_takes`]).
    pub fn new(
        mut link: LinkDriver<T>,
        clock_hz: f64,
        config: Config,
    ) -> Result<BoardSearcher<T>, String> {
        let version =
            Self::version(&mut link).map_err(|e| format!("the board answers no STATUS: {e}"))?;
        if version != SOLVER_PROTOCOL_VERSION {
            return Err(format!(
                "the board speaks protocol version {version}, this host \
                 {SOLVER_PROTOCOL_VERSION}: its bitstream is not this project's solver; build \
                 and load the current one (`cargo xtask bitstream`)"
            ));
        }
        let geometry = Self::info(&mut link).map_err(|e| {
            format!(
                "the board answers no INFO ({e}): is its bitstream the solver's (`cargo xtask \
                 bitstream`)?"
            )
        })?;
        let built = Config {
            tt_index_bits: u32::from(geometry.tt_index_bits),
            tt_ways: usize::from(geometry.tt_ways),
            max_plies: usize::from(geometry.max_plies),
            max_children: usize::from(geometry.max_children),
            hand_superiority: false,
            depth_free: false,
            child_counts: false,
            child_estimates: None,
            tt2_index_bits: 0,
        };
        board_takes(built, config).map_err(|why| format!("the board's chip: {why}"))?;
        // A PROGRESS frame (20 bytes) at most every twentieth of the line's time.
        let frame_cycles = link.transport().bit_time().as_secs_f64() * 200.0 * clock_hz;
        let progress_log2 = (frame_cycles * 20.0).log2().ceil().clamp(8.0, 31.0) as u8;
        let period = Duration::from_secs_f64(f64::from(1u32 << progress_log2) / clock_hz);
        let search_timeout = link.answer_timeout() + period * 2;
        Ok(BoardSearcher {
            link,
            built,
            config,
            progress_log2,
            search_timeout,
            stop: None,
            counters: Counters::default(),
            cycles: Cycles::default(),
            walked: Walked::default(),
            root_n: 0,
            begin_pending: false,
        })
    }

    /// The protocol version of the board's STATUS.
    fn version(link: &mut LinkDriver<T>) -> Result<u8, LinkError> {
        Self::ask(link, Request::Status, "STATUS", |r| match r {
            Response::Status(s) => Some(s.version),
            _ => None,
        })
    }

    fn info(link: &mut LinkDriver<T>) -> Result<Geometry, LinkError> {
        let info = Request::Search(SearchRequest::Info);
        Self::ask(link, info, "INFO", |r| match r {
            Response::Search(SearchAnswer::Info(g)) => Some(g),
            _ => None,
        })
    }

    /// `request` sent, and the first answer `pick` takes (`what` names it): frames of an
    /// earlier exchange are skipped, an ERROR is an error.
    fn ask<R>(
        link: &mut LinkDriver<T>,
        request: Request,
        what: &'static str,
        pick: impl Fn(Response) -> Option<R>,
    ) -> Result<R, LinkError> {
        link.send(&request)?;
        loop {
            match link.receive(link.answer_timeout())? {
                Some(Response::Error { code, detail }) => {
                    return Err(LinkError::Chip { code, detail });
                }
                Some(frame) => {
                    if let Some(answer) = pick(frame) {
                        return Ok(answer);
                    }
                }
                None => return Err(LinkError::Timeout(link.answer_timeout(), what)),
            }
        }
    }

    fn send(&mut self, what: &str, request: SearchRequest) -> Result<(), Reason> {
        self.link
            .send(&Request::Search(request))
            .map_err(|e| engine(what, e))
    }

    /// The next answer of the search within `timeout`; an ERROR is an error.
    fn answer(&mut self, what: &str, timeout: Duration) -> Result<SearchAnswer, Reason> {
        match self.link.receive(timeout).map_err(|e| engine(what, e))? {
            Some(Response::Search(answer)) => Ok(answer),
            Some(Response::Error { code, detail }) => {
                Err(engine(what, LinkError::Chip { code, detail }))
            }
            Some(other) => Err(engine(what, format!("unexpected frame {other:?}"))),
            None => Err(engine(what, format!("no answer within {timeout:?}"))),
        }
    }

    fn expect<R>(
        &mut self,
        what: &str,
        pick: impl Fn(SearchAnswer) -> Option<R>,
    ) -> Result<R, Reason> {
        let timeout = self.link.answer_timeout();
        let answer = self.answer(what, timeout)?;
        pick(answer).ok_or_else(|| engine(what, format!("unexpected answer {answer:?}")))
    }

    /// POSITION of `board`, and its HASH checked against the model's.
    /// The solve's BEGIN if it is still to send, with the table key's rule of its root
    /// `board` as a node of `kind` (the table emptied, the counters zeroed).
    fn begin_with(&mut self, board: &Board, kind: Kind) -> Result<(), Reason> {
        if !self.begin_pending {
            return Ok(());
        }
        let rule = KeyRule::of(
            self.config.hand_superiority,
            self.config.depth_free,
            board,
            kind,
        );
        let begin = SearchRequest::Begin {
            table_bits: self.config.tt_index_bits as u8,
            max_children: self.config.max_children as u16,
            depth_free: self.config.depth_free,
            hand_superiority: rule.hand_superiority,
            attacker_white: rule.attacker_white(),
            complete: rule.complete_mask(),
        };
        self.send("BEGIN", begin)?;
        self.expect("CLEARED", |a| (a == SearchAnswer::Cleared).then_some(()))?;
        self.begin_pending = false;
        Ok(())
    }

    fn position(&mut self, board: &Board) -> Result<(), Reason> {
        let pos = Position::from_inner_unchecked(board.clone_compact());
        self.send("POSITION", SearchRequest::position(&pos))?;
        let hash = self.expect("POSITION's HASH", |a| match a {
            SearchAnswer::Hash(h) => Some(h),
            _ => None,
        })?;
        let want = Keys::get().hash(board);
        if hash != want {
            return Err(engine(
                "POSITION",
                format!("its hash {hash:#018x} is not the position's {want:#018x}"),
            ));
        }
        Ok(())
    }

    fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Relaxed))
    }

    /// DONE, after PROGRESS frames, then CYCLES; STOP sent when the flag is set.
    fn wait_done(&mut self, mut stop_sent: bool) -> Result<Done, Reason> {
        loop {
            if !stop_sent && self.stopped() {
                self.send("STOP", SearchRequest::Stop)?;
                stop_sent = true;
            }
            let timeout = self.search_timeout;
            match self
                .link
                .receive(timeout)
                .map_err(|e| engine("SEARCH", e))?
            {
                // The link's heartbeat while the search runs.
                Some(Response::Search(SearchAnswer::Progress { .. })) => {}
                Some(Response::Search(SearchAnswer::Done(done))) => {
                    self.cycles = self.expect("CYCLES", |a| match a {
                        SearchAnswer::Cycles(c) => Some(c),
                        _ => None,
                    })?;
                    return Ok(done);
                }
                // A STOP that crossed the search's end.
                Some(Response::Error {
                    code: ErrorCode::NotSearching,
                    ..
                }) if stop_sent => {}
                Some(Response::Error { code, detail }) => {
                    return Err(engine("SEARCH", LinkError::Chip { code, detail }));
                }
                Some(other) => return Err(engine("SEARCH", format!("unexpected frame {other:?}"))),
                None => return Err(engine("SEARCH", format!("silent for {timeout:?}"))),
            }
        }
    }
}

impl<T: Transport> Searcher for BoardSearcher<T> {
    fn config(&self) -> Config {
        self.config
    }

    fn begin(&mut self) -> Result<(), Reason> {
        // BEGIN goes with the first root: it carries the table key's rule, the root's.
        self.begin_pending = true;
        self.counters = Counters::default();
        self.cycles = Cycles::default();
        Ok(())
    }

    fn search(
        &mut self,
        board: &Board,
        kind: Kind,
        plies: u32,
        node_limit: u64,
    ) -> Result<Value, Reason> {
        self.begin_with(board, kind)?;
        self.position(board)?;
        let stopped = self.stopped();
        let request = SearchRequest::Search {
            left: left_port(plies)?,
            and_root: kind == Kind::And,
            progress_log2: self.progress_log2,
            node_limit,
        };
        self.send("SEARCH", request)?;
        if stopped {
            self.send("STOP", SearchRequest::Stop)?;
        }
        let done = self.wait_done(stopped)?;
        self.counters = done.counters;
        self.root_n = done.root_n;
        ended(
            done.result,
            done.value,
            done.children,
            node_limit,
            self.config.max_children,
        )
    }

    fn root_children(&mut self) -> Result<Vec<(Move, Value)>, Reason> {
        let mut children = Vec::with_capacity(usize::from(self.root_n));
        for i in 0..self.root_n {
            self.send("CHILD", SearchRequest::Child(i))?;
            let (word, value) = self.expect("CHILD", |a| match a {
                SearchAnswer::Child { index, word, value } if index == i => Some((word, value)),
                _ => None,
            })?;
            let mv = bus::decode_move(word)
                .map_err(|e| Reason::Engine(format!("root child {i}: {e}")))?;
            children.push((mv, value));
        }
        Ok(children)
    }

    fn lookup(&mut self, key: u64) -> Result<Option<Found>, Reason> {
        self.lookup_at(key, 0)
    }

    fn lookup_at(&mut self, key: u64, left: u16) -> Result<Option<Found>, Reason> {
        self.lookup_hand(key, left, &crate::solver::hands::EMPTY)
    }

    fn lookup_hand(
        &mut self,
        key: u64,
        left: u16,
        hand: &crate::solver::hands::Hand,
    ) -> Result<Option<Found>, Reason> {
        let hand = bus::pack_hand(*hand) as u32;
        self.send("LOOKUP", SearchRequest::Lookup { key, left, hand })?;
        self.expect("FOUND", |a| match a {
            SearchAnswer::Found(f) => Some(f),
            _ => None,
        })
    }

    fn walk(&mut self, board: &Board, kind: Kind, left: u32) -> Result<Option<Walk>, Reason> {
        self.begin_with(board, kind)?;
        self.position(board)?;
        let walk = SearchRequest::Walk {
            left: left.min(MAX_LEFT) as u16,
            and_node: kind == Kind::And,
        };
        self.send("WALK", walk)?;
        let (complete, len, cycles) = self.expect("WALKED", |a| match a {
            SearchAnswer::Walked {
                complete,
                len,
                cycles,
            } => Some((complete, len, cycles)),
            _ => None,
        })?;
        let mut moves = Vec::with_capacity(usize::from(len));
        for i in 0..len {
            let word = self.expect("LINE", |a| match a {
                SearchAnswer::Line { index, word } if index == i => Some(word),
                _ => None,
            })?;
            moves.push(
                bus::decode_move(word)
                    .map_err(|e| Reason::Engine(format!("the line's move {i}: {e}")))?,
            );
        }
        self.walked.walks += 1;
        self.walked.moves += u64::from(len);
        self.walked.complete += u64::from(complete);
        self.walked.cycles += u64::from(cycles);
        Ok(Some(Walk { moves, complete }))
    }

    fn counters(&self) -> Counters {
        self.counters
    }
}

/// What the board's chip takes: what the simulated chip takes ([`chip_takes`]), without
/// count estimates (the board's chip leaves the count unit out: hdl/link/solver_link_top.spade).
fn board_takes(built: Config, config: Config) -> Result<(), String> {
    if config.child_estimates.is_some() {
        return Err(
            "the board's chip has no count unit yet (child_estimates): search \
                    without it, or on the simulated chip (--sim)"
                .to_string(),
        );
    }
    chip_takes(built, config)
}

impl<T: Transport> OnChip for BoardSearcher<T> {
    fn set_config(&mut self, config: Config) -> Result<(), String> {
        board_takes(self.built, config)?;
        self.config = config;
        Ok(())
    }

    /// STOP is sent when the flag is set.
    fn set_stop(&mut self, stop: Option<Arc<AtomicBool>>) {
        self.stop = stop;
    }

    fn cycles(&self) -> Cycles {
        self.cycles
    }

    fn walked(&self) -> Walked {
        self.walked
    }
}
