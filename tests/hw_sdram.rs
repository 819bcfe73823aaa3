//! The SDRAM controller in simulation (`sdram_top`, hdl/sdram/) against the simulated SDRAM
//! (src/chip/sdram_model.rs), which fails a test with the rule a command breaks:
//! - the power-up sequence (the full 200 us wait) and the refreshes on time;
//! - words written survive refreshes, at random addresses over every bank and row
//!   (seed printed on failure; `TSUME_SEED` repeats a run): every read returns the last
//!   write of its address, requests offered back to back or a cycle apart;
//! - an answer held while `rsp_ready` is low, refreshes going on meanwhile;
//! - the simulated SDRAM catches a controller that breaks a rule (commands fed to it
//!   directly), so that the checker cannot pass silently.

mod common;

use std::collections::HashMap;
use std::sync::Mutex;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use tsume::chip::sdram::{BURSTS, Request, SdramBench, split_address};
use tsume::chip::sdram_model::{Pins, Rule, Sdram, Timing};
use tsume::random::seed_from_env;

/// One Verilator model at a time in this process.
static MODEL: Mutex<()> = Mutex::new(());

/// The power-up sequence's longest: 200 us at the board's clock and a margin.
const POWER_UP_LIMIT: u64 = 20_000;

fn with_bench(test: impl FnOnce(&mut SdramBench)) {
    let _one = MODEL.lock().unwrap_or_else(|e| e.into_inner());
    let runtime = common::runtime();
    let mut bench =
        SdramBench::new(&runtime, common::board_clock_mhz(), None).expect("sdram_top model");
    bench
        .wait_ready(POWER_UP_LIMIT)
        .unwrap_or_else(|e| panic!("power-up: {e:#}"));
    test(&mut bench);
}

fn random_burst(rng: &mut StdRng) -> u128 {
    rng.random()
}

/// Addresses over every bank and a few rows and columns each, so that addresses repeat.
fn random_address(rng: &mut StdRng, crowded: bool) -> u32 {
    if crowded {
        let row = rng.random_range(0..4u32) * 2047;
        let bank = rng.random_range(0..4u32);
        let burst = rng.random_range(0..3u32) * 63;
        (row << 9) | (bank << 7) | burst
    } else {
        rng.random_range(0..BURSTS)
    }
}

#[test]
fn power_up_follows_the_data_sheet() {
    with_bench(|bench| {
        let sdram = bench.sdram();
        assert!(sdram.ready(), "the mode register is loaded");
        let mode = sdram.mode().expect("mode loaded");
        assert_eq!((mode.burst_length, mode.cas_latency), (8, 2));
        let power_up = sdram.cycles().power_up;
        assert!(
            bench.cycles() >= power_up && bench.cycles() < power_up + 200,
            "ready after {} cycles (the wait is {power_up})",
            bench.cycles()
        );
        assert_eq!(bench.top().init_done, 1);
    });
}

#[test]
fn refreshes_come_on_time() {
    with_bench(|bench| {
        let start = bench.sdram().refreshes();
        let interval = bench.sdram().cycles().refresh_interval;
        // 40 refresh intervals: the SDRAM fails the run if one is missed.
        bench.idle(40 * interval).expect("no rule broken");
        let given = bench.sdram().refreshes() - start;
        assert!(
            (40..=42).contains(&given),
            "{given} refreshes in 40 intervals of {interval} cycles"
        );
        assert_eq!(u64::from(bench.top().refreshes), bench.sdram().refreshes());
    });
}

#[test]
fn one_burst_is_read_back() {
    with_bench(|bench| {
        let data = 0x0123_4567_89ab_cdef_fedc_ba98_7654_3210u128;
        let addr = (5000 << 9) | (2 << 7) | 77;
        bench.write(addr, data).expect("write");
        // The request is taken; its WRITE reaches the SDRAM a few cycles later.
        bench.idle(20).expect("no rule broken");
        let (row, bank, column) = split_address(addr);
        for i in 0..8 {
            assert_eq!(
                bench.sdram().word(bank, row, column + i),
                (data >> (16 * i)) as u16,
                "word {i} in the SDRAM"
            );
        }
        assert_eq!(bench.read(addr).expect("read"), data);
    });
}

/// Random writes and reads: each read returns the last write to its address (or 0), with
/// refreshes between (the run is many refresh intervals long).
fn random_run(bench: &mut SdramBench, seed: u64, crowded: bool, back_to_back: bool) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut written: HashMap<u32, u128> = HashMap::new();
    let mut requests = Vec::new();
    let mut expected = Vec::new();
    for _ in 0..1500 {
        let addr = random_address(&mut rng, crowded);
        if rng.random_bool(0.5) {
            let data = random_burst(&mut rng);
            written.insert(addr, data);
            requests.push(Request::Write(addr, data));
        } else {
            requests.push(Request::Read(addr));
            expected.push((addr, written.get(&addr).copied().unwrap_or(0)));
        }
    }
    let refreshes = bench.sdram().refreshes();
    let (answers, cycles) = bench
        .run(&requests, back_to_back)
        .unwrap_or_else(|e| panic!("seed {seed} (TSUME_SEED={seed}): {e:#}"));
    assert_eq!(answers.len(), expected.len(), "seed {seed}");
    for (i, ((addr, want), got)) in expected.iter().zip(&answers).enumerate() {
        assert_eq!(
            got,
            want,
            "seed {seed} (TSUME_SEED={seed}): read {i} of {addr:#x} (row, bank, column {:?})",
            split_address(*addr)
        );
    }
    let given = bench.sdram().refreshes() - refreshes;
    let interval = bench.sdram().cycles().refresh_interval;
    assert!(
        given >= cycles / interval && given >= 10,
        "seed {seed}: {given} refreshes in {cycles} cycles"
    );
    // Back to back, a burst every read's or write's cycles (14 or 13, 15 with the idle
    // cycle) and the refreshes.
    if back_to_back {
        assert!(
            cycles <= requests.len() as u64 * 16,
            "{cycles} cycles for {} requests",
            requests.len()
        );
    }
}

#[test]
fn random_addresses_read_the_last_write_back_to_back() {
    let seed = seed_from_env();
    with_bench(|bench| {
        random_run(bench, seed, true, true);
        random_run(bench, seed ^ 1, false, true);
    });
}

#[test]
fn random_addresses_read_the_last_write_with_gaps() {
    let seed = seed_from_env();
    with_bench(|bench| random_run(bench, seed ^ 2, true, false));
}

#[test]
fn words_survive_a_long_wait() {
    let seed = seed_from_env();
    with_bench(|bench| {
        let mut rng = StdRng::seed_from_u64(seed);
        let bursts: Vec<(u32, u128)> = (0..64)
            .map(|_| (rng.random_range(0..BURSTS), random_burst(&mut rng)))
            .collect();
        let writes: Vec<Request> = bursts.iter().map(|&(a, d)| Request::Write(a, d)).collect();
        bench.run(&writes, true).expect("writes");
        let last: HashMap<u32, u128> = bursts.iter().copied().collect();
        let before = bench.sdram().refreshes();
        bench
            .idle(20 * bench.sdram().cycles().refresh_interval)
            .expect("idle");
        assert!(bench.sdram().refreshes() - before >= 20);
        for (addr, data) in last {
            assert_eq!(
                bench.read(addr).expect("read"),
                data,
                "seed {seed} (TSUME_SEED={seed}): {addr:#x}"
            );
        }
    });
}

#[test]
fn an_answer_waits_for_rsp_ready() {
    with_bench(|bench| {
        let data = u128::MAX / 3;
        bench.write(0x2a_5a5a, data).expect("write");
        bench.top_mut().req_valid = 0;
        while bench.top().req_ready == 0 {
            bench.step().expect("no rule broken");
        }
        let m = bench.top_mut();
        m.rsp_ready = 0;
        m.req_valid = 1;
        m.req_write = 0;
        m.req_addr = 0x2a_5a5a;
        bench.step().expect("read taken");
        bench.top_mut().req_valid = 0;
        let interval = bench.sdram().cycles().refresh_interval;
        let before = bench.sdram().refreshes();
        // Held for three refresh intervals: the answer stays, nothing is taken, refreshes go on.
        for _ in 0..3 * interval {
            bench.step().expect("no rule broken");
        }
        assert_eq!(bench.top().rsp_valid, 1);
        assert_eq!(bench.top().req_ready, 0);
        assert!(bench.sdram().refreshes() - before >= 2);
        let got = u128::from(bench.top().rsp_data_lo) | (u128::from(bench.top().rsp_data_hi) << 64);
        assert_eq!(got, data);
        bench.top_mut().rsp_ready = 1;
        bench.step().expect("answer taken");
        assert_eq!(bench.top().rsp_valid, 0);
    });
}

/// The checker itself: a controller that breaks a rule fails, naming it.
#[test]
fn the_simulated_sdram_catches_violations() {
    let clock = common::board_clock_mhz();
    let fresh = || {
        let mut s = Sdram::new(&Timing::DATASHEET, clock);
        let c = *s.cycles();
        let run = |s: &mut Sdram, pins: Pins, then: u64| {
            s.clock(&pins).unwrap();
            for _ in 0..then {
                s.clock(&Pins::nop()).unwrap();
            }
        };
        for _ in 0..c.power_up {
            s.clock(&Pins::nop()).unwrap();
        }
        run(&mut s, Pins::precharge_all(), c.rp);
        run(&mut s, Pins::refresh(), c.rfc);
        run(&mut s, Pins::refresh(), c.rfc);
        run(&mut s, Pins::load_mode(0x023), c.mrd);
        s
    };
    // A READ one cycle after ACTIVATE: tRCD.
    let mut s = fresh();
    s.clock(&Pins::activate(0, 1)).unwrap();
    let e = s.clock(&Pins::read(0, 0)).unwrap_err();
    assert!(matches!(e.rule, Rule::Trcd { .. }), "{e}");
    assert!(e.to_string().contains("tRCD"), "{e}");
    // A READ with no row open.
    let mut s = fresh();
    let e = s.clock(&Pins::read(2, 0)).unwrap_err();
    assert_eq!(e.rule, Rule::NoOpenRow { bank: 2 });
    // A refresh with a row open.
    let mut s = fresh();
    s.clock(&Pins::activate(3, 9)).unwrap();
    for _ in 0..10 {
        s.clock(&Pins::nop()).unwrap();
    }
    let e = s.clock(&Pins::refresh()).unwrap_err();
    assert_eq!(e.rule, Rule::RefreshWithBankOpen { bank: 3, row: 9 });
    // Too long without refresh.
    let mut s = fresh();
    let e = (0..20 * s.cycles().refresh_interval)
        .find_map(|_| s.clock(&Pins::nop()).err())
        .expect("a refresh missed");
    assert!(matches!(e.rule, Rule::RefreshMissed { .. }), "{e}");
    // A command in the power-up wait.
    let mut s = Sdram::new(&Timing::DATASHEET, clock);
    let e = s.clock(&Pins::refresh()).unwrap_err();
    assert!(matches!(e.rule, Rule::PowerUpWait { .. }), "{e}");
}
