//! Place and route: nextpnr's options of the command line and of swim.toml, the nextpnr-ecp5
//! command line ([`Nextpnr`]), the router watch that stops a router that no longer
//! converges, seed sweeps (one run per seed, the fastest kept) and the LPF with the
//! place-and-route margin.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use clap::Args;
use serde::{Deserialize, Serialize};

use super::device::Device;
use super::netlist::{Fmax, read_nextpnr_report};
use super::tools::{Tool, Watch, remove_stale, watched_stage};
use crate::{Tools, util};
use tsume::project::manifest;

/// nextpnr's algorithms on the command line (`bitstream`, `block-fmax`).
#[derive(Debug, Args)]
pub struct NextpnrArgs {
    /// nextpnr's placer (`heap`, `static` or `sa`) instead of swim.toml's [fpga] placer.
    #[arg(long, value_name = "PLACER", value_parser = PLACERS)]
    pub placer: Option<String>,
    /// nextpnr's router (`router1` or `router2`) instead of swim.toml's [fpga] router.
    #[arg(long, value_name = "ROUTER", value_parser = ROUTERS)]
    pub router: Option<String>,
    /// Let the router rip up and route again the nets of failing paths (nextpnr's
    /// experimental `--tmg-ripup` for router1, `--router2-tmg-ripup` for router2): more
    /// routing time for a faster clock after routing.
    #[arg(long)]
    pub tmg_ripup: bool,
}

/// What `NextpnrArgs::choose` picked for a run.
pub struct NextpnrChoice<'a> {
    pub placer: &'a str,
    pub router: &'a str,
    /// Further nextpnr options of the command line.
    pub extra: Vec<&'static str>,
}

impl NextpnrChoice<'_> {
    /// The choice as nextpnr-ecp5 options: placer, router and the further ones.
    pub fn options(&self) -> Vec<&str> {
        let mut options = vec!["--placer", self.placer, "--router", self.router];
        options.extend(self.extra.iter().copied());
        options
    }
}

impl NextpnrArgs {
    /// The placer and the router of this run (the command line's, or swim.toml's), each
    /// checked, and the further options; those given on the command line join the
    /// reproducing `command`.
    pub fn choose<'a>(
        &'a self,
        fpga: &'a manifest::Fpga,
        command: &mut String,
    ) -> Result<NextpnrChoice<'a>> {
        let placer = nextpnr_choice(
            "placer",
            self.placer.as_deref(),
            &fpga.placer,
            &PLACERS,
            command,
        )?;
        let router = nextpnr_choice(
            "router",
            self.router.as_deref(),
            &fpga.router,
            &ROUTERS,
            command,
        )?;
        let mut extra = Vec::new();
        if self.tmg_ripup {
            command.push_str(" --tmg-ripup");
            extra.push(if router == "router2" {
                "--router2-tmg-ripup"
            } else {
                "--tmg-ripup"
            });
        }
        Ok(NextpnrChoice {
            placer,
            router,
            extra,
        })
    }
}

/// nextpnr-ecp5's routers.
pub const ROUTERS: [&str; 2] = ["router1", "router2"];

/// A nextpnr algorithm (`what`: placer or router): the command-line choice, or swim.toml's,
/// checked against nextpnr's `choices`; a command-line choice joins the reproducing `command`.
fn nextpnr_choice<'a>(
    what: &str,
    option: Option<&'a str>,
    manifest: &'a str,
    choices: &[&str],
    command: &mut String,
) -> Result<&'a str> {
    let chosen = option.unwrap_or(manifest);
    if !choices.contains(&chosen) {
        bail!(
            "swim.toml [fpga] {what} = `{chosen}`: nextpnr-ecp5's {what}s are {}",
            choices.join(", ")
        );
    }
    if let Some(o) = option {
        command.push_str(&format!(" --{what} {o}"));
    }
    Ok(chosen)
}

/// nextpnr-ecp5's placers.
pub const PLACERS: [&str; 3] = ["heap", "static", "sa"];

/// A nextpnr-ecp5 run on a board's part: the netlist, the constraints, the algorithms.
/// Paths may be absolute below `root`; the command hands them to the tool relative to it.
#[derive(Clone, Copy)]
pub struct Nextpnr<'a> {
    pub tools: &'a Tools,
    pub root: &'a Path,
    pub device: &'a Device,
    pub package: &'a str,
    pub speed: u8,
    pub netlist: &'a Path,
    pub lpf: &'a Path,
    /// The LPF places only some pins (`--lpf-allow-unconstrained`).
    pub lpf_allow_unconstrained: bool,
    /// The clock of the clocks without a constraint of their own (`--freq`).
    pub freq_mhz: Option<f64>,
    /// Placer, router and further options (`NextpnrChoice::options`).
    pub options: &'a [&'a str],
}

impl Nextpnr<'_> {
    /// The command of one run: placer seed `seed`, the report to `report`, the textual
    /// configuration (for ecppack) to `config` when given.
    pub fn command(&self, seed: u64, report: &Path, config: Option<&Path>) -> Result<Command> {
        let mut tool = Tool::new(self.tools, self.root, "nextpnr-ecp5")
            .arg(self.device.nextpnr)
            .args(["--package", self.package])
            .args(["--speed", &self.speed.to_string()])
            .arg("--json")
            .path(self.netlist)
            .arg("--lpf")
            .path(self.lpf);
        if self.lpf_allow_unconstrained {
            tool = tool.arg("--lpf-allow-unconstrained");
        }
        if let Some(mhz) = self.freq_mhz {
            tool = tool.args(["--freq", &format!("{mhz}")]);
        }
        tool = tool
            .args(["--seed", &seed.to_string()])
            .args(self.options)
            .arg("--timing-allow-fail")
            .arg("--report")
            .path(report);
        if let Some(config) = config {
            tool = tool.arg("--textcfg").path(config);
        }
        tool.command()
    }
}

/// The LPF with every `FREQUENCY PORT "name" F MHZ` multiplied by `margin` (nextpnr derives
/// the PLL outputs' constraints from it); the other lines unchanged.
pub fn scaled_lpf(lpf: &str, margin: f64) -> Result<String> {
    let mut out = String::with_capacity(lpf.len() + 64);
    let mut scaled = 0;
    for line in lpf.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() >= 5 && words[0] == "FREQUENCY" && words[1] == "PORT" {
            let unit = words[4].trim_end_matches(';');
            let mhz: f64 = words[3]
                .parse()
                .with_context(|| format!("LPF line `{line}`: `{}` is not a number", words[3]))?;
            if !unit.eq_ignore_ascii_case("MHZ") {
                bail!("LPF line `{line}`: give the frequency in MHZ");
            }
            let _ = writeln!(
                out,
                "FREQUENCY PORT {} {} MHZ; # {mhz} MHz x {margin} (pnr margin)",
                words[2],
                util::mhz_text(mhz * margin)
            );
            scaled += 1;
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    if scaled == 0 {
        bail!("the LPF has no `FREQUENCY PORT` line to scale");
    }
    Ok(out)
}

// ---------------------------------------------------------------- running tools

/// Follows the router's progress lines and tells when it has stopped converging. router2
/// prints `iter=N wires=W overused=O ...` once an iteration: it is stopped when no new
/// lowest overuse has come for `patience` iterations. router1 prints a row every 1,000
/// arcs routed (`Info:  232000 |  63250  166950 |  462  534 |  29347|  2.76  919.74|`,
/// the fourth column the arcs left to route): it is stopped when no new lowest count of
/// arcs left has come for `patience` times 10,000 arcs.
#[derive(Debug, Clone)]
pub struct RouterWatch {
    patience: u32,
    /// The lowest overuse (router2) or count of arcs left (router1) so far, and the
    /// iteration or arc count where it came.
    best: Option<(u64, u64)>,
}

/// Arcs routed by router1 that count as one unit of patience.
const ROUTER1_PATIENCE_ARCS: u64 = 10_000;

impl RouterWatch {
    pub fn new(patience: u32) -> Self {
        Self {
            patience,
            best: None,
        }
    }

    /// A router2 iteration line: (iteration, overused wires).
    fn router2_line(line: &str) -> Option<(u64, u64)> {
        let field = |name: &str| -> Option<u64> {
            line.split_whitespace()
                .find_map(|w| w.strip_prefix(name))
                .and_then(|v| v.parse().ok())
        };
        field("wires=")?;
        Some((field("iter=")?, field("overused=")?))
    }

    /// A router1 progress row: (arcs routed, arcs left).
    fn router1_line(line: &str) -> Option<(u64, u64)> {
        let cols: Vec<&str> = line.strip_prefix("Info:")?.split('|').collect();
        if cols.len() < 5 {
            return None;
        }
        Some((cols[0].trim().parse().ok()?, cols[3].trim().parse().ok()?))
    }

    /// The watch as a tool stage takes it.
    pub fn boxed(mut self) -> Watch {
        Box::new(move |line| self.line(line))
    }

    /// Feed one log line; `Some(reason)` when routing should be given up.
    pub fn line(&mut self, line: &str) -> Option<String> {
        // router2 counts its progress in iterations, router1 in arcs routed.
        let (by_iteration, (at, value)) = if let Some(v) = Self::router2_line(line) {
            (true, v)
        } else if let Some(v) = Self::router1_line(line) {
            (false, v)
        } else {
            return None;
        };
        match self.best {
            Some((_, best)) if value >= best => {}
            _ => self.best = Some((at, value)),
        }
        let (best_at, best) = self.best?;
        let patience = u64::from(self.patience);
        let wait = if by_iteration {
            patience
        } else {
            patience * ROUTER1_PATIENCE_ARCS
        };
        (self.patience > 0 && value > 0 && at >= best_at + wait).then(|| {
            if by_iteration {
                format!(
                    "router2 is not converging: {value} overused wires at iteration {at}, \
                     none below the {best} of iteration {best_at} for {wait} iterations"
                )
            } else {
                format!(
                    "router1 is not converging: {value} arcs left to route at {at} arcs \
                     routed, none below the {best} of {best_at} arcs routed for {wait} arcs"
                )
            }
        })
    }
}

/// `1,2,3`.
pub fn seed_list(seeds: &[u64]) -> String {
    seeds
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// One place-and-route run of a seed sweep (`--seed 1,2,...`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeedRun {
    pub seed: u64,
    /// The clock furthest below (or least above) its target: the MHz it reached and that
    /// over the target (none when the run did not finish).
    pub fmax_mhz: Option<f64>,
    pub of_target: Option<f64>,
    /// Wall time of the run, in seconds.
    pub seconds: f64,
    /// The bitstream and the report come from this run.
    pub chosen: bool,
    /// Why the run did not finish.
    pub error: Option<String>,
}

/// The slowest clock of a nextpnr report against its target: (achieved MHz, achieved over
/// target).
pub fn slowest_clock(report: &Path, margin: f64) -> Result<(f64, f64)> {
    read_nextpnr_report(report)?
        .fmax
        .values()
        .map(|f| Fmax::new(*f, margin))
        .map(|f| (f.achieved, f.achieved / f.target))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .with_context(|| format!("{} names no clock domain", report.display()))
}

/// The run to keep: the one whose slowest clock is furthest above its target.
pub fn choose_seed(runs: &mut [SeedRun]) -> Option<u64> {
    let best = runs
        .iter()
        .enumerate()
        .filter_map(|(i, r)| r.of_target.map(|x| (i, x)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)?;
    runs[best].chosen = true;
    Some(runs[best].seed)
}

/// Place and route of one netlist for each seed, `jobs` runs at a time.
pub struct PnrSweep<'a> {
    pub nextpnr: &'a Nextpnr<'a>,
    pub seeds: &'a [u64],
    pub jobs: usize,
    pub dir: &'a Path,
    /// Where the kept run's nextpnr report and configuration go.
    pub report: &'a Path,
    pub config: &'a Path,
    pub margin: f64,
    pub patience: u32,
}

impl PnrSweep<'_> {
    /// One seed writes straight into `dir` (`pnr.log`, the report, the configuration) and
    /// gives no runs back. Several write each into `dir/seed-N/`; the fastest run's report,
    /// configuration and log are then copied to the places of a single run. The result is
    /// an error only when no run finished (the first failure, with its log's tail).
    pub fn run(&self) -> (Vec<SeedRun>, Result<Duration>) {
        let start = Instant::now();
        let note = "nextpnr-ecp5 place and route (the per-block synthesis runs beside it)";
        if let [seed] = self.seeds {
            let mut cmd = match self.nextpnr.command(*seed, self.report, Some(self.config)) {
                Ok(cmd) => cmd,
                Err(e) => return (Vec::new(), Err(e)),
            };
            let took = watched_stage(
                "pnr",
                note,
                &mut cmd,
                &self.dir.join("pnr.log"),
                Some(RouterWatch::new(self.patience).boxed()),
            );
            return (Vec::new(), took);
        }
        let file = |p: &Path| p.file_name().unwrap_or_default().to_owned();
        let order: Vec<usize> = (0..self.seeds.len()).collect();
        let finished = util::parallel_map(&order, self.jobs, |i| {
            let seed = self.seeds[i];
            let sub = self.dir.join(format!("seed-{seed}"));
            let (report, config) = (sub.join(file(self.report)), sub.join(file(self.config)));
            let outcome = (|| -> Result<(f64, f64, Duration)> {
                std::fs::create_dir_all(&sub)
                    .with_context(|| format!("cannot create {}", sub.display()))?;
                remove_stale(&[&report, &config])?;
                let mut cmd = self.nextpnr.command(seed, &report, Some(&config))?;
                let took = watched_stage(
                    &format!("pnr seed {seed}"),
                    note,
                    &mut cmd,
                    &sub.join("pnr.log"),
                    Some(RouterWatch::new(self.patience).boxed()),
                )?;
                let (mhz, of_target) = slowest_clock(&report, self.margin)?;
                Ok((mhz, of_target, took))
            })();
            (seed, outcome)
        });
        let mut runs = Vec::new();
        let mut first_error = None;
        for (seed, outcome) in finished {
            runs.push(match outcome {
                Ok((mhz, of_target, took)) => SeedRun {
                    seed,
                    fmax_mhz: Some(mhz),
                    of_target: Some(of_target),
                    seconds: took.as_secs_f64(),
                    chosen: false,
                    error: None,
                },
                Err(e) => {
                    let run = SeedRun {
                        seed,
                        fmax_mhz: None,
                        of_target: None,
                        seconds: 0.0,
                        chosen: false,
                        error: Some(e.to_string().lines().next().unwrap_or_default().to_string()),
                    };
                    first_error.get_or_insert(e);
                    run
                }
            });
        }
        let Some(best) = choose_seed(&mut runs) else {
            let e = first_error.unwrap_or_else(|| anyhow::anyhow!("no place-and-route run"));
            return (runs, Err(e));
        };
        let sub = self.dir.join(format!("seed-{best}"));
        let copies = [
            (sub.join(file(self.report)), self.report.to_path_buf()),
            (sub.join(file(self.config)), self.config.to_path_buf()),
            (sub.join("pnr.log"), self.dir.join("pnr.log")),
        ];
        for (from, to) in copies {
            if let Err(e) = std::fs::copy(&from, &to) {
                let e = anyhow::Error::new(e).context(format!(
                    "cannot copy {} to {}",
                    from.display(),
                    to.display()
                ));
                return (runs, Err(e));
            }
        }
        let root = self.nextpnr.root;
        eprintln!(
            "  seeds {}: seed {best} kept ({}/ copied to {}/)",
            seed_list(self.seeds),
            util::rel(root, &sub),
            util::rel(root, self.dir)
        );
        (runs, Ok(start.elapsed()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// nextpnr's options of the command line `options`.
    fn args(options: &[&str]) -> NextpnrArgs {
        #[derive(clap::Parser)]
        struct Cli {
            #[command(flatten)]
            args: NextpnrArgs,
        }
        let argv = std::iter::once("pnr").chain(options.iter().copied());
        <Cli as clap::Parser>::try_parse_from(argv)
            .expect("the options parse")
            .args
    }

    #[test]
    fn tmg_ripup_reaches_the_chosen_router_and_the_command() {
        let manifest = tsume::project::manifest::Manifest::load(&crate::checkout()).unwrap();
        let fpga = manifest.fpga().expect("swim.toml has [fpga]");
        let cases: [(&[&str], &str, &[&str], &str); 3] = [
            (&[], &fpga.router, &[], ""),
            (
                &["--tmg-ripup", "--router", "router1"],
                "router1",
                &["--tmg-ripup"],
                " --router router1 --tmg-ripup",
            ),
            (
                &["--router", "router2", "--tmg-ripup"],
                "router2",
                &["--router2-tmg-ripup"],
                " --router router2 --tmg-ripup",
            ),
        ];
        for (options, router, extra, added) in cases {
            let a = args(options);
            let mut command = String::from("cargo xtask bitstream");
            let chosen = a.choose(fpga, &mut command).unwrap();
            assert_eq!(chosen.router, router, "{options:?}");
            let mut expected = vec!["--placer", chosen.placer, "--router", router];
            expected.extend(extra);
            assert_eq!(chosen.options(), expected, "{options:?}");
            assert_eq!(
                command,
                format!("cargo xtask bitstream{added}"),
                "{options:?}"
            );
        }
    }

    #[test]
    fn seed_sweep_keeps_the_fastest_finished_run() {
        assert_eq!(super::seed_list(&[3, 1, 2]), "3,1,2");
        let run = |seed, of_target: Option<f64>| super::SeedRun {
            seed,
            fmax_mhz: of_target.map(|x| 75.0 * x),
            of_target,
            seconds: 1.0,
            chosen: false,
            error: of_target
                .is_none()
                .then(|| "router1 is not converging".to_string()),
        };
        let mut runs = vec![
            run(1, Some(1.03)),
            run(2, None),
            run(3, Some(1.06)),
            run(4, Some(0.98)),
        ];
        assert_eq!(super::choose_seed(&mut runs), Some(3));
        let kept: Vec<u64> = runs.iter().filter(|r| r.chosen).map(|r| r.seed).collect();
        assert_eq!(kept, vec![3]);
        let mut failed = vec![run(1, None), run(2, None)];
        assert_eq!(super::choose_seed(&mut failed), None);
        assert!(failed.iter().all(|r| !r.chosen));

        // The slowest clock against its target, from nextpnr's report (placed and routed
        // against 1.1 times the targets).
        let dir = std::env::temp_dir().join(format!("tsume-seeds-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let report = dir.join("nextpnr-report.json");
        std::fs::write(
            &report,
            r#"{"fmax": {"clk": {"achieved": 80.0, "constraint": 82.5},
                         "uart": {"achieved": 30.0, "constraint": 27.5}},
                "utilization": {}}"#,
        )
        .unwrap();
        let (mhz, of_target) = super::slowest_clock(&report, 1.1).unwrap();
        // clk: 80 against 75 (1.067), uart: 30 against 25 (1.2).
        assert_eq!(mhz, 80.0);
        assert!((of_target - 80.0 / 75.0).abs() < 1e-9, "{of_target}");
        std::fs::write(&report, r#"{"fmax": {}, "utilization": {}}"#).unwrap();
        let e = super::slowest_clock(&report, 1.1).unwrap_err().to_string();
        assert!(e.ends_with("names no clock domain"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn scaled_lpf_scales_only_the_oscillator_frequency() {
        let root = crate::checkout();
        let manifest = tsume::project::manifest::Manifest::load(&root).unwrap();
        let path = root.join(&manifest.board(None).unwrap().1.constraints);
        let lpf = std::fs::read_to_string(&path).expect("the default board's LPF");
        let scaled = super::scaled_lpf(&lpf, 1.1).expect("the board LPF scales");
        let freq: Vec<&str> = scaled
            .lines()
            .filter(|l| l.starts_with("FREQUENCY"))
            .collect();
        assert_eq!(freq.len(), 1, "{freq:?}");
        assert!(
            freq[0].starts_with("FREQUENCY PORT \"clk_25mhz\" 27.5 MHZ;"),
            "{}",
            freq[0]
        );
        // Every other line is kept as it was.
        let others = |t: &str| -> Vec<String> {
            t.lines()
                .filter(|l| !l.starts_with("FREQUENCY"))
                .map(String::from)
                .collect()
        };
        assert_eq!(others(&lpf), others(&scaled));
        assert!(super::scaled_lpf("LOCATE COMP \"a\" SITE \"G2\";\n", 1.1).is_err());
        assert!(super::scaled_lpf("FREQUENCY PORT \"a\" 25 KHZ;\n", 1.1).is_err());
    }

    #[test]
    fn router_watch_stops_a_router_that_no_longer_converges() {
        let line = |i: u32, o: u64| {
            format!(
                "Info:     iter={i} wires={} overused={o} overuse={} archfail=NA",
                700_000 + i,
                o + 1000
            )
        };
        // The overuse of a measured run: falls until iteration 6, then rises.
        let run = [
            65495, 48692, 37933, 31481, 28319, 27788, 28596, 29800, 30639, 32157,
        ];
        let mut watch = RouterWatch::new(4);
        let mut stopped = None;
        for (i, o) in run.iter().enumerate() {
            assert!(watch.line("Info: Routing globals...").is_none());
            if let Some(reason) = watch.line(&line(i as u32 + 1, *o)) {
                stopped = Some((i + 1, reason));
                break;
            }
        }
        let (at, reason) = stopped.expect("the watcher never stopped the run");
        assert_eq!(at, 10);
        assert!(
            reason.contains("27788") && reason.contains("iteration 6"),
            "{reason}"
        );

        // A run that stalls for three iterations and then converges is never stopped, nor
        // any run with patience 0.
        let converging = [9000, 7000, 7100, 7050, 6900, 6950, 7000, 7001, 3000, 0];
        for (patience, series) in [(4, &converging), (0, &converging), (0, &run)] {
            let mut watch = RouterWatch::new(patience);
            for (i, o) in series.iter().enumerate() {
                let got = watch.line(&line(i as u32 + 1, *o));
                assert!(
                    got.is_none(),
                    "patience {patience}, iteration {}: {got:?}",
                    i + 1
                );
            }
        }
    }

    #[test]
    fn router_watch_follows_router1_arcs_left() {
        let row = |arcs: u64, left: u64| {
            format!(
                "Info:     {arcs} |    6000     16000 |  400   600 |     {left}|       2.08     914.72|"
            )
        };
        let header = "Info:    IterCnt |  w/ripup   wo/ripup |  w/r  wo/r |      arcs| batch(sec) total(sec)|";
        // Falling arcs left: never stopped.
        let mut watch = RouterWatch::new(4);
        assert!(watch.line(header).is_none());
        for k in 1..=60u64 {
            assert!(
                watch.line(&row(k * 1000, 90_000 - k * 500)).is_none(),
                "row {k}"
            );
        }
        // Stuck at 29,000 from 100,000 arcs on: stopped 40,000 arcs later.
        let mut watch = RouterWatch::new(4);
        let mut stopped = None;
        for k in 90..=200u64 {
            let left = if k <= 100 {
                40_000 - (k - 90) * 1_100
            } else {
                29_500
            };
            if let Some(reason) = watch.line(&row(k * 1000, left)) {
                stopped = Some((k, reason));
                break;
            }
        }
        let (at, reason) = stopped.expect("the watcher never stopped router1");
        assert_eq!(at, 140);
        assert!(
            reason.starts_with("router1 is not converging")
                && reason.contains("29000 of 100000 arcs routed")
                && reason.contains("40000 arcs"),
            "{reason}"
        );
    }
}
