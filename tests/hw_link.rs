//! The chip behind its host link (`link_top`: UART + protocol engine + move generator), in
//! simulation, driven by the same `LinkDriver` that `cargo xtask run` uses on a board, over a
//! bit-level UART model:
//! - the move lists that come over the UART equal the software reference on the problem
//!   suite and on random tsume-like positions (seed printed on failure; `TSUME_SEED`
//!   repeats a run, `TSUME_LINK_RANDOM` sets how many), APPLY and READ work, and END's
//!   cycle count equals the bare generator's (`movegen_top`);
//! - bad input (bad CRC, unknown type, bad length, overlong frame, a frame cut short, line
//!   noise, a framing error, requests before any position, a new request while a list
//!   streams, reset in the middle of a frame or of a list) gets the documented ERROR frame
//!   or recovery, never a hang, and the next good request works.

mod common;

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::Duration;

use tsume::bus;
use tsume::chip::MovegenChip;
use tsume::chip::link::{
    ErrorCode, Frame, LinkDriver, LinkError, Request, Response, SimConfig, SimUart, kind,
};
use tsume::position::Position;
use tsume::random::{Kind, TsumeGenerator, seed_from_env};
use tsume::reference::{Mode, TsumeMove, tsume_moves};

const DEFAULT_RANDOM: usize = 200;

/// Small bit time and frame timeout: fast tests, same logic as on the board, at the
/// board's generator clock (swim.toml).
fn config() -> SimConfig {
    SimConfig {
        clocks_per_bit: 4,
        ..SimConfig::at_mhz(common::board_clock_mhz())
    }
}

/// The position with the most legal moves known (593): a long list to interrupt.
const LONG_LIST: &str = "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1";
const SMALL: &str = "4k4/9/4P4/9/9/9/9/9/9 b G 1";

/// One Verilator model at a time in this process.
static MODEL: Mutex<()> = Mutex::new(());

type Link<'ctx> = LinkDriver<SimUart<'ctx>>;

fn keys(moves: &[TsumeMove]) -> BTreeSet<(String, &'static str)> {
    moves
        .iter()
        .map(|m| (m.mv.to_usi(), m.category.as_str()))
        .collect()
}

/// Differences between the chip's list over the link and the reference (None if equal).
fn compare(link: &mut Link, pos: &Position) -> Option<String> {
    let want = tsume_moves(pos);
    let got = match link.generate(pos) {
        Ok(got) => got,
        Err(error) => return Some(format!("link error: {error}")),
    };
    compare_list(&want.moves, want.mode, &got.moves, got.mode)
}

fn compare_list(
    want: &[TsumeMove],
    want_mode: Mode,
    got: &[TsumeMove],
    got_mode: Mode,
) -> Option<String> {
    if got_mode != want_mode {
        return Some(format!("chip mode {got_mode:?}, reference {want_mode:?}"));
    }
    let (w, g) = (keys(want), keys(got));
    if g.len() != got.len() {
        return Some(format!(
            "duplicates: {} moves, {} distinct",
            got.len(),
            g.len()
        ));
    }
    (w != g).then(|| {
        format!(
            "missing {:?}\n    extra {:?}",
            w.difference(&g).collect::<Vec<_>>(),
            g.difference(&w).collect::<Vec<_>>()
        )
    })
}

fn position(sfen: &str) -> Position {
    Position::from_sfen(sfen).expect("valid SFEN")
}

/// A quiet time longer than the chip's frame timeout: anything the chip has to say about
/// the bytes sent so far has been said by then.
fn settle() -> Duration {
    let config = config();
    Duration::from_secs_f64(
        f64::from(config.clocks_per_bit) * (f64::from(config.timeout_bits) + 100.0)
            / config.clock_hz,
    )
}

/// A fresh simulated chip behind its link, one at a time in this process.
fn with_link(test: impl FnOnce(&mut Link)) {
    let _one = MODEL.lock().unwrap_or_else(|e| e.into_inner());
    let runtime = common::runtime();
    let sim = SimUart::new(&runtime, config(), None).expect("link_top model");
    test(&mut LinkDriver::new(sim));
}

fn assert_no_failures(failures: &[String], seed: u64) {
    let shown: Vec<_> = failures.iter().take(8).cloned().collect();
    assert!(
        failures.is_empty(),
        "{} failures over the link (seed {seed}, rerun with TSUME_SEED={seed}):\n{}",
        failures.len(),
        shown.join("\n")
    );
}

#[test]
fn link_lists_match_reference() {
    with_link(|link| {
        let mut positions: Vec<(String, Position)> = common::suite()
            .into_iter()
            .map(|(p, pos)| (p.id, pos))
            .collect();
        positions.push(("longest list".into(), position(LONG_LIST)));
        let seed = seed_from_env();
        let count = std::env::var("TSUME_LINK_RANDOM")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(DEFAULT_RANDOM);
        let mut generator = TsumeGenerator::new(seed);
        for i in 0..count {
            positions.push((format!("random #{i}"), generator.next_position(Kind::Any)));
        }
        let mut failures = Vec::new();
        for (name, pos) in &positions {
            if let Some(diff) = compare(link, pos) {
                failures.push(format!("{name} `{}`:\n    {diff}", pos.to_sfen()));
            }
        }
        assert_no_failures(&failures, seed);
    });
}

/// READ gives back the words LOAD wrote; APPLY gives the list after the move.
#[test]
fn read_and_apply_over_the_link() {
    with_link(|link| {
        let seed = seed_from_env();
        let mut generator = TsumeGenerator::new(seed ^ 0x5eed);
        let mut failures = Vec::new();
        let mut applied = 0;
        for i in 0..10 {
            let pos = generator.next_position(Kind::Any);
            let list = match link.generate(&pos) {
                Ok(list) => list,
                Err(error) => {
                    failures.push(format!("apply #{i}: load: {error}"));
                    continue;
                }
            };
            for (addr, word) in bus::load_words(&pos) {
                match link.read_word(addr) {
                    Ok(got) if got == word => {}
                    Ok(got) => failures.push(format!(
                        "read #{i} `{}` word {addr}: {got:#x}, loaded {word:#x}",
                        pos.to_sfen()
                    )),
                    Err(error) => failures.push(format!("read #{i} word {addr}: {error}")),
                }
            }
            let Some(first) = list.moves.first() else {
                continue;
            };
            let after = pos.after(first.mv);
            let want = tsume_moves(&after);
            applied += 1;
            match link.apply(first.mv) {
                Ok(got) => {
                    if let Some(diff) = compare_list(&want.moves, want.mode, &got.moves, got.mode) {
                        failures.push(format!(
                            "apply #{i} {} to `{}`:\n    {diff}",
                            first.mv.to_usi(),
                            pos.to_sfen()
                        ));
                    }
                }
                Err(error) => failures.push(format!("apply #{i}: {error}")),
            }
        }
        assert_no_failures(&failures, seed);
        assert!(applied > 0, "no position had a move to apply (seed {seed})");
    });
}

/// END's cycle count is the bare generator's: the UART's waits are not counted.
#[test]
fn end_counts_the_bare_generators_cycles() {
    with_link(|link| {
        let runtime = common::runtime();
        let mut chip = MovegenChip::new(&runtime, None).expect("movegen_top model");
        let seed = seed_from_env();
        let mut generator = TsumeGenerator::new(seed ^ 0xc1c1e5);
        let mut failures = Vec::new();
        for i in 0..20 {
            let pos = generator.next_position(Kind::Any);
            let bare = chip.generate(&pos, 2_000).expect("movegen_top list");
            match link.generate(&pos) {
                Ok(got) if u64::from(got.cycles) == bare.cycles => {}
                Ok(got) => failures.push(format!(
                    "cycles #{i} `{}`: END says {}, movegen_top took {}",
                    pos.to_sfen(),
                    got.cycles,
                    bare.cycles
                )),
                Err(error) => failures.push(format!("cycles #{i}: {error}")),
            }
        }
        assert_no_failures(&failures, seed);
    });
}

/// Every frame until the chip has been quiet for longer than its frame timeout.
fn drain(link: &mut Link) -> Vec<Response> {
    link.transport().flush();
    link.drain(settle()).expect("transport")
}

fn error(code: ErrorCode, detail: u8) -> Response {
    Response::Error { code, detail }
}

/// After bad input: exactly the expected frames come back, then a good request works.
fn expect_then_good(link: &mut Link, case: &str, expected: &[Response]) {
    let got = drain(link);
    assert_eq!(got, expected, "{case}: frames after the bad input");
    let pos = position(SMALL);
    if let Some(diff) = compare(link, &pos) {
        panic!("{case}: the good request after it failed: {diff}");
    }
}

fn load_frame(sfen: &str) -> Vec<u8> {
    Request::load(&position(sfen)).frame().encode()
}

/// MOVE frames of a list in progress until its END; returns (moves, the END, other frames
/// seen in between).
fn collect_until_end(link: &mut Link) -> (Vec<TsumeMove>, tsume::chip::link::End, Vec<Response>) {
    let mut moves = Vec::new();
    let mut others = Vec::new();
    loop {
        let timeout = link.answer_timeout();
        match link.receive(timeout).expect("transport") {
            Some(Response::Move { word, category }) => moves.push(TsumeMove {
                mv: bus::decode_move(word).expect("move word"),
                category: bus::decode_category(category).expect("category"),
            }),
            Some(Response::End(end)) => return (moves, end, others),
            Some(other) => others.push(other),
            None => panic!(
                "no END within {timeout:?} ({} moves so far, others {others:?})",
                moves.len()
            ),
        }
    }
}

/// Receive until `n` MOVE frames have arrived.
fn wait_moves(link: &mut Link, n: usize) -> usize {
    let mut seen = 0;
    while seen < n {
        let timeout = link.answer_timeout();
        match link.receive(timeout).expect("transport") {
            Some(Response::Move { .. }) => seen += 1,
            other => panic!("expected MOVE frames, got {other:?}"),
        }
    }
    seen
}

#[test]
fn requests_before_any_position_are_refused() {
    with_link(|link| {
        link.send(&Request::Generate).unwrap();
        link.send(&Request::Apply(0)).unwrap();
        let got = drain(link);
        assert_eq!(
            got,
            [
                error(ErrorCode::NotLoaded, kind::GENERATE),
                error(ErrorCode::NotLoaded, kind::APPLY)
            ],
            "requests before any LOAD"
        );
        let status = link.status().expect("status");
        assert!(!status.loaded && !status.streaming, "{status:?}");
        assert_eq!((status.frames_ok, status.errors), (3, 2), "{status:?}");
        assert_eq!(status.clocks_per_bit, config().clocks_per_bit);
        assert_eq!(status.version, tsume::chip::link::PROTOCOL_VERSION);
        assert_eq!(link.transport().leds() & 0b110, 0, "LEDs: nothing loaded");
        expect_then_good(link, "fresh chip", &[]);
        // LEDs: 1 loaded, 2 streaming (no longer), 4 error (stretched: still lit).
        let leds = link.transport().leds();
        assert_eq!(
            leds & 0b0001_0110,
            0b0001_0010,
            "LEDs after the first list: {leds:#010b}"
        );
    });
}

#[test]
fn a_bad_crc_is_reported() {
    with_link(|link| {
        let mut bad = load_frame(LONG_LIST);
        *bad.last_mut().unwrap() ^= 0x5a;
        link.send_raw(&bad).unwrap();
        expect_then_good(link, "bad CRC", &[error(ErrorCode::BadCrc, kind::LOAD)]);
    });
}

#[test]
fn a_flipped_payload_bit_is_caught_by_the_crc() {
    with_link(|link| {
        let mut bad = load_frame(LONG_LIST);
        bad[10] ^= 0x04;
        link.send_raw(&bad).unwrap();
        expect_then_good(link, "flipped bit", &[error(ErrorCode::BadCrc, kind::LOAD)]);
    });
}

#[test]
fn an_unknown_type_is_reported() {
    with_link(|link| {
        link.send_raw(&Frame::new(0x42, [1, 2, 3]).encode())
            .unwrap();
        expect_then_good(link, "unknown type", &[error(ErrorCode::UnknownType, 0x42)]);
    });
}

#[test]
fn a_wrong_length_for_the_type_is_reported() {
    with_link(|link| {
        link.send_raw(&Frame::new(kind::STATUS, [0]).encode())
            .unwrap();
        let mut short_load = Request::load(&position(SMALL)).frame();
        short_load.payload.pop();
        link.send_raw(&short_load.encode()).unwrap();
        expect_then_good(
            link,
            "bad length",
            &[
                error(ErrorCode::BadLength, kind::STATUS),
                error(ErrorCode::BadLength, kind::LOAD),
            ],
        );
    });
}

/// LEN above 60: reported once; the rest of it, full of SYNC bytes and frame-like bytes, is
/// drained without further reports.
#[test]
fn an_overlong_frame_is_reported_once() {
    with_link(|link| {
        let mut overlong = vec![0xa5, kind::LOAD, 200];
        let inner = Request::Status.frame().encode();
        for i in 0..200usize {
            overlong.push(if i % 7 == 0 {
                0xa5
            } else {
                inner[i % inner.len()]
            });
        }
        link.send_raw(&overlong).unwrap();
        expect_then_good(link, "overlong", &[error(ErrorCode::Overlong, kind::LOAD)]);
    });
}

/// A frame cut short: the chip times out and forgets it.
#[test]
fn a_frame_cut_short_times_out() {
    with_link(|link| {
        let frame = load_frame(SMALL);
        link.send_raw(&frame[..20]).unwrap();
        expect_then_good(link, "cut short", &[error(ErrorCode::Timeout, kind::LOAD)]);
    });
}

#[test]
fn a_frame_cut_after_its_type_times_out() {
    with_link(|link| {
        let frame = load_frame(SMALL);
        link.send_raw(&frame[..2]).unwrap();
        expect_then_good(
            link,
            "cut after TYPE",
            &[error(ErrorCode::Timeout, kind::LOAD)],
        );
    });
}

#[test]
fn noise_between_frames_is_dropped_silently() {
    with_link(|link| {
        link.send_raw(&[0x00, 0xff, 0x13, 0x37, 0x5a]).unwrap();
        expect_then_good(link, "noise", &[]);
    });
}

#[test]
fn a_low_stop_bit_is_a_framing_error() {
    with_link(|link| {
        let frame = load_frame(SMALL);
        link.transport().queue(&frame[..5]);
        link.transport().queue_bad_stop(0x55);
        link.transport().queue(&frame[5..]);
        expect_then_good(link, "framing error", &[error(ErrorCode::Framing, 0)]);
    });
}

/// A bad frame while a list streams: its ERROR comes between MOVE frames, the list goes on.
#[test]
fn a_bad_frame_while_streaming_does_not_stop_the_list() {
    with_link(|link| {
        let long = position(LONG_LIST);
        link.send(&Request::load(&long)).unwrap();
        let before = wait_moves(link, 3);
        let mut bad = Request::Status.frame().encode();
        *bad.last_mut().unwrap() ^= 1;
        link.send_raw(&bad).unwrap();
        link.send(&Request::Status).unwrap();
        let (moves, end, others) = collect_until_end(link);
        assert!(!end.abandoned, "{end:?}");
        assert_eq!(usize::from(end.count), before + moves.len());
        assert_eq!(others.len(), 2, "frames between the moves: {others:?}");
        assert_eq!(others[0], error(ErrorCode::BadCrc, kind::STATUS));
        assert!(
            matches!(others[1], Response::Status(s) if s.streaming),
            "{others:?}"
        );
        assert_eq!(usize::from(end.count), tsume_moves(&long).moves.len());
        expect_then_good(link, "bad frame while streaming", &[]);
    });
}

/// A new position while moves stream: the old list ends with END(abandoned) counting the
/// MOVE frames sent, then the new list comes whole.
#[test]
fn a_new_position_while_streaming_abandons_the_list() {
    with_link(|link| {
        let long = position(LONG_LIST);
        link.send(&Request::load(&long)).unwrap();
        let mut sent = wait_moves(link, 5);
        let small = position(SMALL);
        link.send(&Request::load(&small)).unwrap();
        let (moves, end, others) = collect_until_end(link);
        sent += moves.len();
        assert!(others.is_empty(), "{others:?}");
        assert!(end.abandoned, "{end:?}");
        assert_eq!(usize::from(end.count), sent, "{end:?}");
        assert!(sent < tsume_moves(&long).moves.len());
        let list = link.collect_list().expect("the new list");
        let want = tsume_moves(&small);
        if let Some(diff) = compare_list(&want.moves, want.mode, &list.moves, list.mode) {
            panic!("list after the abandoned one: {diff}");
        }
        expect_then_good(link, "new position while streaming", &[]);
    });
}

/// GENERATE twice in a row while a list streams: each request gets its END.
#[test]
fn generate_twice_while_streaming_ends_each_list() {
    with_link(|link| {
        let long = position(LONG_LIST);
        link.send(&Request::load(&long)).unwrap();
        wait_moves(link, 2);
        link.send(&Request::Generate).unwrap();
        link.send(&Request::Generate).unwrap();
        let mut ends = Vec::new();
        while ends.len() < 2 {
            let (_, end, others) = collect_until_end(link);
            assert!(others.is_empty(), "{others:?}");
            assert!(end.abandoned, "{end:?}");
            ends.push(end);
        }
        let list = link.collect_list().expect("the list after two GENERATEs");
        let want = tsume_moves(&long);
        if let Some(diff) = compare_list(&want.moves, want.mode, &list.moves, list.mode) {
            panic!("list after GENERATE: {diff}");
        }
        expect_then_good(link, "GENERATE while streaming", &[]);
    });
}

/// Reset in the middle of a frame, bytes still arriving while reset is held and after: the
/// partial frame is dropped, the receiver waits for an idle line, the store is empty.
#[test]
fn reset_mid_frame_drops_the_frame_and_the_store() {
    with_link(|link| {
        // A list first, so that the store is not empty before the reset.
        expect_then_good(link, "before the reset", &[]);
        let bit = u64::from(config().clocks_per_bit);
        link.transport().queue(&load_frame(LONG_LIST));
        link.transport().run(25 * bit + 1);
        link.transport().set_reset(true);
        link.transport().run(37);
        link.transport().set_reset(false);
        let got = drain(link);
        assert_eq!(got, [], "frames after a reset mid-frame");
        assert_eq!(
            link.transport().leds() & 0b10,
            0,
            "LEDs: the store is empty after reset"
        );
        link.send(&Request::Generate).unwrap();
        let got = drain(link);
        assert_eq!(
            got,
            [error(ErrorCode::NotLoaded, kind::GENERATE)],
            "the store after reset"
        );
        expect_then_good(link, "reset mid-frame", &[]);
    });
}

/// Reset while a list streams: the frame on the wire may be cut; the host's decoder drops
/// the pieces, and the chip answers the next request.
#[test]
fn reset_while_streaming_recovers() {
    with_link(|link| {
        let bit = u64::from(config().clocks_per_bit);
        let long = position(LONG_LIST);
        link.send(&Request::load(&long)).unwrap();
        wait_moves(link, 4);
        link.transport().run(7 * bit);
        link.transport().set_reset(true);
        link.transport().run(5);
        link.transport().set_reset(false);
        for frame in drain(link) {
            assert!(
                matches!(frame, Response::Move { .. }),
                "after reset during a list: {frame:?}"
            );
        }
        link.transport().run(12 * bit);
        expect_then_good(link, "reset while streaming", &[]);
        let status = link.status().expect("status");
        assert!(status.loaded && !status.streaming, "{status:?}");
    });
}

/// Every wait in the driver ends: a request to a chip held in reset times out.
#[test]
fn a_chip_in_reset_times_out() {
    with_link(|link| {
        let bit = u64::from(config().clocks_per_bit);
        link.transport().set_reset(true);
        match link.status() {
            Err(LinkError::Timeout(..)) => {}
            other => panic!("status of a chip in reset: {other:?}"),
        }
        link.transport().set_reset(false);
        link.transport().run(12 * bit);
        expect_then_good(link, "after a timeout", &[]);
    });
}
