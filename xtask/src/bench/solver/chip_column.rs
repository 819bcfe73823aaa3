//! The chip's column of `bench --solver`: the simulated `solver_top` on the positions of
//! each set that the model at the chip's geometry answers within the chip's node limit,
//! checked against that model, its cycles timed at the board's clock.

use super::*;
/// The chip's totals on one set: the positions it ran and, on exactly those positions, the
/// other engines' wall times from the same run.
#[derive(Default, Debug, Clone, PartialEq)]
pub struct ChipTally {
    /// Positions looked at: the first `--chip-sample` readable ones.
    pub tried: u64,
    /// Positions the model at the chip's geometry leaves at the chip's node limit: not run.
    pub beyond: u64,
    /// Positions run on the chip.
    pub positions: u64,
    pub mate: u64,
    pub wrong: u64,
    /// Positions whose outcome on the chip is not the model's.
    pub differ: u64,
    pub nodes: u64,
    pub cycles: Cycles,
    /// Wall time of the simulation (Verilator) on the chip's positions.
    pub sim_seconds: f64,
    /// The model at the chip's geometry (the one the chip is checked against).
    pub twin_seconds: f64,
    /// The model of the main table (the bench's table) on the same positions.
    pub model_seconds: f64,
    /// cshogi's DfPn on the same positions.
    pub cshogi_seconds: f64,
    /// Of the same positions, those cshogi crashed on or could not read (no time).
    pub cshogi_failed: u64,
}

impl ChipTally {
    /// One position run on the chip: its outcome and cycles, and the other engines' runs.
    pub fn add(&mut self, expect: Expect, outcome: &Outcome, cycles: Cycles, others: Others) {
        self.positions += 1;
        let answer = answer_of(outcome);
        if matches!(answer, Answer::Mate(_)) {
            self.mate += 1;
        }
        if is_wrong(expect, &answer) {
            self.wrong += 1;
        }
        self.nodes += outcome.counters.nodes;
        self.cycles += cycles;
        self.model_seconds += others.model.seconds;
        self.cshogi_seconds += others.cshogi.seconds;
        if matches!(others.cshogi.answer, Answer::Crashed(_) | Answer::Error(_)) {
            self.cshogi_failed += 1;
        }
    }

    /// The totals of `self` and `other`.
    pub fn merge(&self, other: &ChipTally) -> ChipTally {
        ChipTally {
            tried: self.tried + other.tried,
            beyond: self.beyond + other.beyond,
            positions: self.positions + other.positions,
            mate: self.mate + other.mate,
            wrong: self.wrong + other.wrong,
            differ: self.differ + other.differ,
            nodes: self.nodes + other.nodes,
            cycles: self.cycles + other.cycles,
            sim_seconds: self.sim_seconds + other.sim_seconds,
            twin_seconds: self.twin_seconds + other.twin_seconds,
            model_seconds: self.model_seconds + other.model_seconds,
            cshogi_seconds: self.cshogi_seconds + other.cshogi_seconds,
            cshogi_failed: self.cshogi_failed + other.cshogi_failed,
        }
    }

    /// The chip's time at `mhz`, in seconds.
    pub fn chip_seconds(&self, mhz: f64) -> f64 {
        self.cycles.total as f64 / (mhz * 1e6)
    }

    /// `| set | on the chip | proved | nodes | cycles a node | wait / expand / select /
    /// descend / return | nodes/s | chip | cshogi | model | cshogi / chip |`.
    pub fn row(&self, set: &str, mhz: f64) -> String {
        let n = self.nodes.max(1) as f64;
        let per_node = |c: u64| c as f64 / n;
        let chip = self.chip_seconds(mhz);
        let rate = if chip > 0.0 {
            format!("{:.2} M", self.nodes as f64 / chip / 1e6)
        } else {
            "-".into()
        };
        let ratio = if chip > 0.0 {
            format!("{:.2}", self.cshogi_seconds / chip)
        } else {
            "-".into()
        };
        let failed = if self.cshogi_failed > 0 {
            format!(" ({} failed)", self.cshogi_failed)
        } else {
            String::new()
        };
        format!(
            "| {set} | {} of {} ({} beyond) | {} | {} | {} | {:.1} | {:.1} / {:.1} / {:.1} / {:.1} / {:.1} | {rate} | {} | {}{failed} | {} | {ratio} |",
            self.positions,
            self.tried,
            self.beyond,
            self.mate,
            self.differ,
            self.nodes,
            per_node(self.cycles.total),
            per_node(self.cycles.wait),
            per_node(self.cycles.expand),
            per_node(self.cycles.select),
            per_node(self.cycles.descend),
            per_node(self.cycles.ret),
            millis(chip),
            millis(self.cshogi_seconds),
            millis(self.model_seconds),
        )
    }
}

/// The runs of the model and cshogi on a position the chip runs.
pub struct Others<'a> {
    pub model: &'a Run,
    pub cshogi: &'a Run,
}

/// Seconds as milliseconds, three decimals.
pub(super) fn millis(seconds: f64) -> String {
    format!("{:.3}", seconds * 1e3)
}

/// The chip of a bench run, with the model at its geometry that it is checked against.
pub(super) struct ChipBench<'ctx> {
    pub(super) chip: ChipSearcher<'ctx>,
    pub(super) twin: Solver,
    /// The node limit of the chip's solves: `--nodes` or `--chip-nodes`, the smaller.
    pub(super) limit: u64,
    pub(super) sample: usize,
    pub(super) mhz: f64,
}

impl ChipBench<'_> {
    /// The chip on the first positions of `items` (the model's and cshogi's runs of them in
    /// `model` and `cshogi`); differences from the model appended to `differ`.
    pub(super) fn run(
        &mut self,
        set: &str,
        items: &[Item],
        model: &[Run],
        cshogi: &[Run],
        differ: &mut Vec<String>,
    ) -> ChipTally {
        let mut tally = ChipTally::default();
        let tried: Vec<(usize, Position)> = items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| Position::from_sfen(&item.sfen).ok().map(|p| (i, p)))
            .take(self.sample)
            .collect();
        let bar = util::progress_bar(tried.len() as u64);
        bar.set_message(format!("{set}: chip"));
        for (i, pos) in tried {
            let item = &items[i];
            tally.tried += 1;
            let limits = Limits {
                nodes: self.limit,
                shortest: false,
                root: root_of(set),
            };
            let start = Instant::now();
            let want = self.twin.solve(&pos, limits);
            let twin_seconds = start.elapsed().as_secs_f64();
            if matches!(want.result, SearchResult::Unknown(Reason::NodeLimit { .. })) {
                tally.beyond += 1;
                bar.inc(1);
                continue;
            }
            let start = Instant::now();
            let got = solve_on(&mut self.chip, &pos, limits);
            tally.sim_seconds += start.elapsed().as_secs_f64();
            tally.twin_seconds += twin_seconds;
            let others = Others {
                model: &model[i],
                cshogi: &cshogi[i],
            };
            tally.add(item.expect, &got, self.chip.cycles(), others);
            if got != want {
                tally.differ += 1;
                let line = format!(
                    "| {set} | {} | {} | {} | `{}` |",
                    item.id,
                    brief(&got),
                    brief(&want),
                    item.sfen
                );
                bar.println(format!(
                    "bench: the chip differs from the model on {set} {}:\n  chip  {got:?}\n  model {want:?}",
                    item.id
                ));
                differ.push(line);
            }
            bar.inc(1);
        }
        bar.finish_and_clear();
        tally
    }
}

/// An outcome in a few words: the answer and the counters.
pub(super) fn brief(outcome: &Outcome) -> String {
    let c = &outcome.counters;
    let line: Vec<String> = outcome.pv.iter().map(|m| m.to_usi()).collect();
    format!(
        "{} `{}`; {} nodes, {} expansions, {} probes, {} stores",
        describe(&answer_of(outcome)),
        line.join(" "),
        c.nodes,
        c.expansions,
        c.probes,
        c.stores
    )
}

/// The chip's table: per set and in total.
pub(super) fn print_chip(
    chip: &ChipBench,
    geometry: Config,
    rows: &[String],
    total: &ChipTally,
    model_time: Option<std::time::Duration>,
) {
    let mhz = chip.mhz;
    println!(
        "\n### The chip (`solver_top`, simulated) on the same positions\n\n\
         Per set, the first {} readable positions; those the model at the chip's geometry \
         (swim.toml [search]: table of {} entries, {}-way, {} plies of frames) answers within {} \
         nodes run on the chip at that node limit, the others are beyond it and not run. Each \
         chip solve must equal that model's (result, line, every counter): differ counts those \
         that do not. Cycles are the chip's counters from each search's start to its answer, a \
         node = total cycles / nodes; the split is by controller state (waiting for the hash or \
         the table, EXPAND, SELECT, DESCEND, RETURN). Times: the chip's = cycles / {mhz} MHz; \
         cshogi's and the model's (the table above) are their wall times in this run on exactly \
         the positions the chip ran.\n",
        chip.sample,
        geometry.tt_entries(),
        geometry.tt_ways,
        geometry.max_plies,
        chip.limit,
    );
    println!(
        "| set | on the chip | proved | differ | nodes | cycles a node | wait / expand / select / descend / return a node | nodes/s at {mhz} MHz | chip at {mhz} MHz (ms) | cshogi DfPn (ms) | model (ms) | cshogi / chip |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for row in rows {
        println!("{row}");
    }
    println!("{}", total.row("all", mhz));
    println!(
        "\nSimulation: {} cycles in {:.1} s ({:.0} cycles/s, {:.0} nodes/s); the model at the \
         chip's geometry on the same positions: {:.3} s; Verilator model of solver_top: build \
         or load {}.",
        total.cycles.total,
        total.sim_seconds,
        total.cycles.total as f64 / total.sim_seconds.max(1e-9),
        total.nodes as f64 / total.sim_seconds.max(1e-9),
        total.twin_seconds,
        model_time.map_or("-".into(), util::secs),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chip_tallies_sum_cycles_and_the_other_engines_times() {
        use tsume::solver::{Counters, Kind};
        let outcome = |result, nodes| Outcome {
            result,
            pv: vec![],
            root: Kind::Or,
            shortest: false,
            rule: tsume::futile::Rule::EveryInterposition,
            left_out: Vec::new(),
            counters: Counters {
                nodes,
                ..Counters::default()
            },
        };
        let run = |seconds| Run {
            answer: Answer::Mate(1),
            nodes: 1,
            expansions: None,
            probes: None,
            counts: None,
            level_two: None,
            seconds,
        };
        let cycles = |total| Cycles {
            total,
            wait: total / 10,
            expand: total / 2,
            select: total / 5,
            descend: total / 10,
            ret: total / 10,
        };
        let mut a = ChipTally {
            tried: 2,
            beyond: 1,
            ..ChipTally::default()
        };
        a.add(
            Expect::Mate(Some(3)),
            &outcome(SearchResult::Mate, 100),
            cycles(5_000),
            Others {
                model: &run(0.002),
                cshogi: &run(0.5),
            },
        );
        let mut b = ChipTally {
            tried: 1,
            ..ChipTally::default()
        };
        let crashed = Run {
            answer: Answer::Crashed("signal 11".into()),
            ..run(0.0)
        };
        b.add(
            Expect::Mate(None),
            &outcome(SearchResult::NoMate, 50),
            cycles(2_500),
            Others {
                model: &run(0.001),
                cshogi: &crashed,
            },
        );
        let t = a.merge(&b);
        assert_eq!(
            (t.tried, t.beyond, t.positions, t.mate, t.wrong, t.nodes),
            (3, 1, 2, 1, 1, 150)
        );
        assert_eq!(t.cycles, cycles(7_500));
        assert_eq!(t.cshogi_failed, 1);
        // 7,500 cycles at 75 MHz: 0.1 ms, 150 nodes in it: 1.5 M nodes/s; cshogi 500 ms.
        assert!((t.chip_seconds(75.0) - 1e-4).abs() < 1e-12);
        let row = t.row("mate-3", 75.0);
        assert_eq!(
            row,
            "| mate-3 | 2 of 3 (1 beyond) | 1 | 0 | 150 | 50.0 | 5.0 / 25.0 / 10.0 / 5.0 / 5.0 \
             | 1.50 M | 0.100 | 500.000 (1 failed) | 3.000 | 5000.00 |"
        );
        assert!(
            ChipTally::default()
                .row("famous", 75.0)
                .ends_with("| - | 0.000 | 0.000 | 0.000 | - |")
        );
    }
}
