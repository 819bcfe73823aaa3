//! Helpers of the flow, some also xtask's: a stage's spinner ([`Stage`]), command lines and
//! log tails in messages, numbers in text, work spread over threads.

use std::io::IsTerminal;
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use anyhow::Result;
use indicatif::{MultiProgress, ProgressBar, ProgressStyle};

/// Seconds with one decimal, for progress lines.
pub fn secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

/// The last `n` lines of `text`, indented, for error messages.
pub fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines.len().saturating_sub(n);
    lines[start..]
        .iter()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A describable command line, for messages.
pub fn show(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

/// One stage of a longer task: a spinner with the elapsed time while it runs (on a terminal;
/// elsewhere a plain start line), then one result line with the stage's time.
pub struct Stage {
    label: String,
    start: Instant,
    bar: ProgressBar,
}

/// Every stage's spinner is drawn through this one, so that stages running side by side
/// (place and route of several seeds) each keep a line of their own.
fn stage_bars() -> &'static MultiProgress {
    static BARS: std::sync::OnceLock<MultiProgress> = std::sync::OnceLock::new();
    BARS.get_or_init(MultiProgress::new)
}

impl Stage {
    pub fn start(label: impl Into<String>) -> Stage {
        let label = label.into();
        let bar = if std::io::stderr().is_terminal() {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template(
                    "  {spinner:.cyan} {prefix:.bold} [{elapsed}] {wide_msg:.dim}",
                )
                .expect("valid template"),
            );
            bar.set_prefix(label.clone());
            let bar = stage_bars().add(bar);
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        } else {
            ProgressBar::hidden()
        };
        Stage {
            label,
            start: Instant::now(),
            bar,
        }
    }

    /// For a long step when the spinner is hidden (CI logs): say that it started.
    pub fn note(&self, what: &str) {
        if self.bar.is_hidden() {
            stage_bars().suspend(|| eprintln!("  . {}: {what}", self.label));
        } else {
            self.bar.set_message(what.to_string());
        }
    }

    pub fn bar(&self) -> &ProgressBar {
        &self.bar
    }

    pub fn done(self, result: &str) -> Duration {
        let took = self.start.elapsed();
        self.bar.finish_and_clear();
        stage_bars().remove(&self.bar);
        stage_bars().suspend(|| eprintln!("  ✓ {}: {result} ({})", self.label, secs(took)));
        took
    }

    pub fn fail(self) {
        self.bar.finish_and_clear();
        stage_bars().remove(&self.bar);
        stage_bars().suspend(|| eprintln!("  ✗ {} ({})", self.label, secs(self.start.elapsed())));
    }
}

/// Runs at a time from a `--jobs` option (`what` runs, for the error): the option, or the
/// machine's cores; 0 is an error.
pub fn jobs(option: Option<usize>, what: &str) -> Result<usize> {
    match option {
        Some(0) => {
            anyhow::bail!("--jobs 0: give the number of {what} at a time, e.g. --jobs 2")
        }
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// `f(i)` for `i` in `order`, `jobs` at a time on threads of their own; the results in the
/// order of `order`.
pub fn parallel_map<R: Send>(
    order: &[usize],
    jobs: usize,
    f: impl Fn(usize) -> R + Sync,
) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, order.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                    let Some(&i) = order.get(k) else { break };
                    let r = f(i);
                    if let Ok(mut d) = done.lock() {
                        d.push((k, r));
                    }
                }
            });
        }
    });
    let mut done = done.into_inner().unwrap_or_default();
    done.sort_by_key(|(k, _)| *k);
    done.into_iter().map(|(_, r)| r).collect()
}

/// A frequency in MHz for a constraint file: at most six decimals, trailing zeros dropped
/// (100 x 1.1 is written 110, not 110.00000000000001).
pub fn mhz_text(mhz: f64) -> String {
    let text = format!("{mhz:.6}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// `p` relative to `root` when it lies below it.
pub fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).display().to_string()
}

/// `n` with a comma every three digits.
pub fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn parallel_map_keeps_the_order_and_runs_every_item() {
        let order = [3, 0, 2, 1, 4];
        for jobs in [1, 2, 8] {
            assert_eq!(
                super::parallel_map(&order, jobs, |i| i * 10),
                [30, 0, 20, 10, 40]
            );
        }
        assert!(super::parallel_map(&[], 2, |i| i).is_empty());
    }

    #[test]
    fn jobs_and_mhz_text() {
        assert_eq!(super::jobs(Some(3), "runs").unwrap(), 3);
        assert!(super::jobs(None, "runs").unwrap() >= 1);
        let e = super::jobs(Some(0), "blocks").unwrap_err().to_string();
        assert!(e.contains("number of blocks at a time"), "{e}");
        assert_eq!(super::mhz_text(100.0 * 1.1), "110");
        assert_eq!(super::mhz_text(27.5), "27.5");
    }

    #[test]
    fn thousands_are_grouped() {
        let t = super::thousands;
        assert_eq!(
            [t(0), t(84), t(602), t(1405), t(17590), t(1234567)],
            ["0", "84", "602", "1,405", "17,590", "1,234,567"]
        );
    }
}
