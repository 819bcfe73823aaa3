//! The simulated SDRAM's rules, each broken on purpose.
use super::*;

/// The model at the board's clock, 65 MHz.
fn chip() -> Sdram {
    Sdram::new(&Timing::DATASHEET, 65.0)
}

fn nops(s: &mut Sdram, n: u64) -> Vec<Option<u16>> {
    (0..n).map(|_| s.clock(&Pins::nop()).unwrap()).collect()
}

/// Power up by the book: the wait, PRECHARGE ALL, refreshes, mode (burst 8, CL 2).
fn powered() -> Sdram {
    let mut s = chip();
    let c = *s.cycles();
    nops(&mut s, c.power_up);
    s.clock(&Pins::precharge_all()).unwrap();
    nops(&mut s, c.rp - 1);
    for _ in 0..2 {
        s.clock(&Pins::refresh()).unwrap();
        nops(&mut s, c.rfc - 1);
    }
    s.clock(&Pins::load_mode(0x023)).unwrap();
    nops(&mut s, c.mrd - 1);
    assert!(s.ready());
    s
}

fn rule(result: Result<Option<u16>, SdramError>) -> Rule {
    result.expect_err("the command breaks a rule").rule
}

#[test]
fn cycles_at_65_mhz_are_the_controllers() {
    // hdl/sdram/controller.spade's functions at 65 MHz.
    let c = Timing::DATASHEET.at_mhz(65.0);
    assert_eq!(c.power_up, 13_000);
    assert_eq!(
        (c.rcd, c.rp, c.ras, c.rc, c.rfc, c.wr, c.mrd),
        (2, 2, 3, 5, 5, 2, 2)
    );
    assert_eq!(c.refresh_interval, 507);
    assert_eq!(c.rrd, 1);
}

#[test]
fn a_burst_written_is_read_back_cas_latency_later() {
    let mut s = powered();
    let c = *s.cycles();
    s.clock(&Pins::activate(2, 4000)).unwrap();
    nops(&mut s, c.rcd - 1);
    s.clock(&Pins::write(2, 16, 100)).unwrap();
    for i in 1..8 {
        s.clock(&Pins::data(100 + i)).unwrap();
    }
    nops(&mut s, c.wr - 1);
    s.clock(&Pins::precharge(2)).unwrap();
    nops(&mut s, c.rp - 1);
    assert_eq!(s.word(2, 4000, 16), 100);
    assert_eq!(s.word(2, 4000, 23), 107);
    // Read from the middle of the burst: the columns wrap within it.
    s.clock(&Pins::activate(2, 4000)).unwrap();
    nops(&mut s, c.rcd - 1);
    assert_eq!(s.clock(&Pins::read(2, 20)).unwrap(), None);
    let out = nops(&mut s, 9);
    let want = [104, 105, 106, 107, 100, 101, 102, 103];
    // CL 2: word 0 is driven after the edge that follows the READ.
    assert_eq!(out[0], Some(want[0]));
    let got: Vec<u16> = out[..8].iter().map(|w| w.unwrap()).collect();
    assert_eq!(got, want);
    assert_eq!(out[8], None);
}

#[test]
fn precharge_cuts_a_read_burst() {
    let mut s = powered();
    s.clock(&Pins::activate(0, 1)).unwrap();
    nops(&mut s, 1);
    s.clock(&Pins::read(0, 0)).unwrap();
    nops(&mut s, 2);
    // PRECHARGE three edges after READ: words sampled from edge READ + 3 + CL on are cut.
    assert_eq!(s.clock(&Pins::precharge(0)).unwrap(), Some(0));
    let out = nops(&mut s, 4);
    assert_eq!(out, vec![None, None, None, None]);
}

#[test]
fn commands_during_power_up_are_refused() {
    let mut s = chip();
    nops(&mut s, 100);
    assert_eq!(
        rule(s.clock(&Pins::precharge_all())),
        Rule::PowerUpWait {
            waited: 100,
            needed: 13_000
        }
    );
}

#[test]
fn the_power_up_sequence_is_checked() {
    let mut s = chip();
    nops(&mut s, 13_000);
    assert_eq!(rule(s.clock(&Pins::refresh())), Rule::NotPrecharged);
    let mut s = chip();
    nops(&mut s, 13_000);
    s.clock(&Pins::precharge_all()).unwrap();
    nops(&mut s, 3);
    s.clock(&Pins::refresh()).unwrap();
    nops(&mut s, 5);
    s.clock(&Pins::load_mode(0x023)).unwrap();
    nops(&mut s, 2);
    assert_eq!(
        rule(s.clock(&Pins::activate(0, 0))),
        Rule::InitRefreshes { done: 1, needed: 2 }
    );
    let mut s = chip();
    nops(&mut s, 13_000);
    s.clock(&Pins::precharge_all()).unwrap();
    nops(&mut s, 3);
    for _ in 0..2 {
        s.clock(&Pins::refresh()).unwrap();
        nops(&mut s, 5);
    }
    assert_eq!(rule(s.clock(&Pins::activate(0, 0))), Rule::ModeNotLoaded);
    assert_eq!(rule(s.clock(&Pins::load_mode(0x027))), Rule::BadMode(0x027));
    assert_eq!(rule(s.clock(&Pins::load_mode(0x00b))), Rule::BadMode(0x00b));
}

#[test]
fn row_timings_are_checked() {
    let mut s = powered();
    s.clock(&Pins::activate(1, 7)).unwrap();
    assert_eq!(
        rule(s.clock(&Pins::read(1, 0))),
        Rule::Trcd {
            bank: 1,
            waited: 1,
            needed: 2
        }
    );
    let mut s = powered();
    s.clock(&Pins::activate(1, 7)).unwrap();
    assert_eq!(
        rule(s.clock(&Pins::precharge(1))),
        Rule::Tras {
            bank: 1,
            waited: 1,
            needed: 3
        }
    );
    // At 65 MHz tRAS + tRP is tRC: tRC binds on a chip whose tRC is longer.
    let mut s = powered();
    s.cycles.rc = 8;
    s.clock(&Pins::activate(1, 7)).unwrap();
    nops(&mut s, 2);
    s.clock(&Pins::precharge(1)).unwrap();
    nops(&mut s, 1);
    assert_eq!(
        rule(s.clock(&Pins::activate(1, 8))),
        Rule::Trc {
            bank: 1,
            waited: 5,
            needed: 8
        }
    );
    let mut s = powered();
    s.clock(&Pins::activate(1, 7)).unwrap();
    nops(&mut s, 4);
    s.clock(&Pins::precharge(1)).unwrap();
    assert_eq!(
        rule(s.clock(&Pins::activate(1, 8))),
        Rule::Trp {
            bank: 1,
            waited: 1,
            needed: 2
        }
    );
    let mut s = powered();
    s.clock(&Pins::activate(1, 7)).unwrap();
    assert_eq!(
        rule(s.clock(&Pins::activate(1, 8))),
        Rule::RowOpen { bank: 1, row: 7 }
    );
    let mut s = powered();
    assert_eq!(
        rule(s.clock(&Pins::write(3, 0, 0))),
        Rule::NoOpenRow { bank: 3 }
    );
    let mut s = powered();
    s.clock(&Pins::activate(0, 7)).unwrap();
    nops(&mut s, 2);
    assert!(matches!(
        rule(s.clock(&Pins::read(0, 1 << 10))),
        Rule::Unsupported(_)
    ));
}

#[test]
fn write_recovery_and_data_are_checked() {
    let mut s = powered();
    s.clock(&Pins::activate(0, 7)).unwrap();
    nops(&mut s, 1);
    s.clock(&Pins::write(0, 0, 1)).unwrap();
    for i in 1..8 {
        s.clock(&Pins::data(i)).unwrap();
    }
    // The last word was at the previous edge: tWR needs two.
    assert_eq!(
        rule(s.clock(&Pins::precharge(0))),
        Rule::Twr {
            bank: 0,
            waited: 1,
            needed: 2
        }
    );
    let mut s = powered();
    s.clock(&Pins::activate(0, 7)).unwrap();
    nops(&mut s, 1);
    s.clock(&Pins::write(0, 0, 1)).unwrap();
    assert_eq!(
        rule(s.clock(&Pins::nop())),
        Rule::WriteDataNotDriven { word: 1 }
    );
}

#[test]
fn the_bus_is_checked() {
    let mut s = powered();
    s.clock(&Pins::activate(0, 7)).unwrap();
    nops(&mut s, 1);
    s.clock(&Pins::read(0, 0)).unwrap();
    nops(&mut s, 1);
    assert_eq!(rule(s.clock(&Pins::data(5))), Rule::BusConflict);
}

#[test]
fn refresh_is_checked() {
    let mut s = powered();
    s.clock(&Pins::activate(2, 7)).unwrap();
    nops(&mut s, 4);
    assert_eq!(
        rule(s.clock(&Pins::refresh())),
        Rule::RefreshWithBankOpen { bank: 2, row: 7 }
    );
    let mut s = powered();
    s.clock(&Pins::refresh()).unwrap();
    assert_eq!(
        rule(s.clock(&Pins::activate(0, 0))),
        Rule::Trfc {
            waited: 1,
            needed: 5
        }
    );
    // Eight refreshes may be postponed, not nine.
    let mut s = powered();
    let interval = s.cycles().refresh_interval;
    nops(&mut s, 9 * interval - 2);
    let error = (0..4)
        .find_map(|_| s.clock(&Pins::nop()).err())
        .expect("a refresh missed");
    assert_eq!(
        error.rule,
        Rule::RefreshMissed {
            owed: 9,
            done: 0,
            allowed: 8
        }
    );
    // Refreshes given on time keep it quiet for long.
    let mut s = powered();
    for _ in 0..100 {
        s.clock(&Pins::refresh()).unwrap();
        nops(&mut s, interval - 1);
    }
    assert_eq!(s.refreshes(), 100);
}

#[test]
fn an_error_names_its_cycle_command_and_rule() {
    let mut s = powered();
    let cycle = s.cycle();
    let e = s.clock(&Pins::read(1, 8)).unwrap_err();
    assert_eq!(e.cycle, cycle);
    assert_eq!(
        e.to_string(),
        format!(
            "SDRAM cycle {cycle}, READ bank 1 column 8: READ or WRITE to bank 1, which has no open row"
        )
    );
}
