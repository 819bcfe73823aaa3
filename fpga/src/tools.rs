//! Running the FPGA tools: each as a stage with its log, the latest output line in the
//! stage's spinner, and an optional watcher that may stop it.
//!
//! nextpnr-ecp5 and ecppack (yowasp's) run in WebAssembly and mount a private folder of
//! their own at `/tmp`: a file the host wrote under `/tmp` is invisible to them, and they
//! may not climb above their working directory with `..`. So every tool runs in the project
//! root ([`Tool`]) and every path it is handed, on its command line or in a script it
//! reads, is relative to that root ([`tool_path`]). yosys is native (pyosys) and would take
//! any path; it gets the same relative ones.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};

use crate::Tools;
use crate::util::{self, Stage};

/// `path` as a tool running in `root` must be given it: relative to `root`, without `..`.
/// An absolute path below `root` loses the prefix; one elsewhere is an error.
pub fn tool_path(root: &Path, path: &Path) -> Result<PathBuf> {
    let relative = if path.is_absolute() {
        path.strip_prefix(root).with_context(|| {
            format!(
                "{} is outside the project folder {}: the FPGA tools see only files below \
                 the folder they run in; move it into the project",
                path.display(),
                root.display()
            )
        })?
    } else {
        path
    };
    if relative
        .components()
        .any(|c| matches!(c, Component::ParentDir | Component::RootDir))
    {
        bail!(
            "{}: the FPGA tools run in the project folder {} and cannot reach a path with \
             `..`; give one below it",
            path.display(),
            root.display()
        );
    }
    Ok(relative.to_path_buf())
}

/// The quoted form of a relative path in a yosys script.
pub fn quoted(p: &Path) -> String {
    format!("\"{}\"", p.display())
}

/// A command line of one of the FPGA tools (a wrapper of [`Tools::bin`]), run in the
/// project root with every path argument made relative to it ([`tool_path`]).
pub struct Tool {
    root: PathBuf,
    cmd: Command,
    error: Option<anyhow::Error>,
}

impl Tool {
    /// The wrapper `name` of `tools`.
    pub fn new(tools: &Tools, root: &Path, name: &str) -> Tool {
        Tool::program(root, &tools.wrapper(name))
    }

    /// Any program.
    pub fn program(root: &Path, program: &Path) -> Tool {
        let mut cmd = Command::new(program);
        cmd.current_dir(root);
        Tool {
            root: root.to_path_buf(),
            cmd,
            error: None,
        }
    }

    /// An argument that is not a path.
    pub fn arg(mut self, a: impl AsRef<OsStr>) -> Tool {
        self.cmd.arg(a);
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(mut self, args: I) -> Tool {
        self.cmd.args(args);
        self
    }

    /// A path argument, relative to the project root.
    pub fn path(mut self, p: &Path) -> Tool {
        match tool_path(&self.root, p) {
            Ok(relative) => {
                self.cmd.arg(relative);
            }
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
        self
    }

    /// The command, or the first path that cannot be handed to the tool.
    pub fn command(self) -> Result<Command> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.cmd),
        }
    }
}

/// A watcher of a tool's output lines: `Some(reason)` stops the tool.
pub type Watch = Box<dyn FnMut(&str) -> Option<String> + Send>;

/// Remove what an earlier run left at these paths, if anything.
pub fn remove_stale(paths: &[&Path]) -> Result<()> {
    for stale in paths {
        if stale.exists() {
            std::fs::remove_file(stale)
                .with_context(|| format!("cannot remove {}", stale.display()))?;
        }
    }
    Ok(())
}

/// Run a tool, its output into `log` and the stage's message line, with an optional
/// watcher of the output lines that may stop it: then the fourth value is its reason.
fn run_watched(
    cmd: &mut Command,
    stage: &Stage,
    log: &Path,
    watch: Option<Watch>,
) -> Result<(bool, String, String, Option<String>)> {
    use std::io::{BufRead, BufReader, Write};
    use std::sync::{Arc, Mutex};
    let mut file =
        std::fs::File::create(log).with_context(|| format!("cannot create {}", log.display()))?;
    writeln!(file, "$ {}", util::show(cmd)).ok();
    let file = Arc::new(Mutex::new(file));
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let watch = Arc::new(Mutex::new(watch));
    let abort = Arc::new(Mutex::new(None::<String>));
    cmd.stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot start `{}`", util::show(cmd)))?;
    let streams: Vec<Box<dyn std::io::Read + Send>> = [
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
    ]
    .into_iter()
    .flatten()
    .collect();
    let readers: Vec<_> = streams
        .into_iter()
        .map(|stream| {
            let (file, lines, bar) = (Arc::clone(&file), Arc::clone(&lines), stage.bar().clone());
            let (watch, abort) = (Arc::clone(&watch), Arc::clone(&abort));
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines() {
                    let Ok(line) = line else { break };
                    let reason = watch
                        .lock()
                        .ok()
                        .and_then(|mut w| w.as_mut().and_then(|w| w(&line)));
                    if let (Some(reason), Ok(mut a)) = (reason, abort.lock()) {
                        a.get_or_insert(reason);
                    }
                    if let Ok(mut f) = file.lock() {
                        writeln!(f, "{line}").ok();
                    }
                    let shown = line.trim();
                    if !shown.is_empty() {
                        bar.set_message(shown.chars().take(100).collect::<String>());
                    }
                    if let Ok(mut l) = lines.lock() {
                        l.push(line);
                    }
                }
            })
        })
        .collect();
    let stopped = loop {
        if let Some(status) = child.try_wait().context("waiting for a child process")? {
            break Ok(status);
        }
        let reason = abort.lock().ok().and_then(|a| a.clone());
        if let Some(reason) = reason {
            child.kill().ok();
            let status = child.wait().context("waiting for a child process")?;
            break Err((reason, status));
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    for r in readers {
        let _ = r.join();
    }
    let output = lines.lock().map(|l| l.join("\n")).unwrap_or_default();
    Ok(match stopped {
        Ok(status) => (status.success(), status.to_string(), output, None),
        Err((reason, status)) => {
            if let Ok(mut f) = file.lock() {
                writeln!(f, "stopped: {reason}").ok();
            }
            (false, status.to_string(), output, Some(reason))
        }
    })
}

/// Run a tool as a stage; on failure, the error shows the tail of its log.
pub fn tool_stage(label: &str, note: &str, cmd: &mut Command, log: &Path) -> Result<Duration> {
    watched_stage(label, note, cmd, log, None)
}

/// `tool_stage` with a watcher that may stop the tool (the router not converging).
pub fn watched_stage(
    label: &str,
    note: &str,
    cmd: &mut Command,
    log: &Path,
    watch: Option<Watch>,
) -> Result<Duration> {
    let stage = Stage::start(label);
    stage.note(note);
    let (success, status, output, stopped) = run_watched(cmd, &stage, log, watch)?;
    if let Some(reason) = stopped {
        stage.fail();
        return Err(anyhow!(
            "{label} stopped: {reason}. The design does not route on this device as it is \
             (see the overuse in {}; nextpnr's --router2-heatmap shows where); \
             `--router-patience 0` lets the router run on. Last lines:\n{}",
            log.display(),
            util::tail(&output, 10)
        ));
    }
    if !success {
        stage.fail();
        let hint = if output.contains("Unable to place")
            || output.contains("failed to place")
            || output.contains("Failed to expand region")
            || output.contains("not enough")
        {
            "the design does not fit the device. "
        } else {
            ""
        };
        return Err(anyhow!(
            "{label} failed ({status}): {hint}last lines of {}:\n{}",
            log.display(),
            util::tail(&output, 25)
        ));
    }
    // The log as the tool's folder (the project root) names it.
    let root = cmd.get_current_dir().unwrap_or(Path::new(""));
    Ok(stage.done(&format!("log {}", util::rel(root, log))))
}

/// A tool run in the background (the per-block pass runs beside place and route).
pub struct Background {
    handle: std::thread::JoinHandle<std::io::Result<(std::process::ExitStatus, Duration)>>,
    log: PathBuf,
}

impl Background {
    pub fn spawn(mut cmd: Command, log: PathBuf) -> Result<Background> {
        let file = std::fs::File::create(&log)
            .with_context(|| format!("cannot create {}", log.display()))?;
        let err = file
            .try_clone()
            .with_context(|| format!("cannot reopen {}", log.display()))?;
        cmd.stdin(std::process::Stdio::null())
            .stdout(file)
            .stderr(err);
        let handle = std::thread::spawn(move || {
            let t = Instant::now();
            let status = cmd.status()?;
            Ok((status, t.elapsed()))
        });
        Ok(Background { handle, log })
    }

    /// Wait for it as a stage (spinner while it still runs); its wall time.
    pub fn join(self, label: &str) -> Result<Duration> {
        let stage = Stage::start(label);
        stage.note("waiting for the per-block synthesis");
        let result = self
            .handle
            .join()
            .map_err(|_| anyhow::anyhow!("the {label} thread panicked"))?;
        let (status, took) = match result {
            Ok(done) => done,
            Err(error) => {
                stage.fail();
                return Err(error).context(format!("cannot run yosys for {label}"));
            }
        };
        if !status.success() {
            stage.fail();
            let text = std::fs::read_to_string(&self.log).unwrap_or_default();
            return Err(anyhow!(
                "{label} failed ({status}): last lines of {}:\n{}",
                self.log.display(),
                util::tail(&text, 25)
            ));
        }
        stage.done(&format!(
            "yosys, beside the other stages ({})",
            util::secs(took)
        ));
        Ok(took)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_paths_are_relative_to_the_root() {
        let root = Path::new("/tmp/project");
        let rel = |p: &str| tool_path(root, Path::new(p)).map_err(|e| e.to_string());
        assert_eq!(
            rel("/tmp/project/build/synth.ys"),
            Ok("build/synth.ys".into())
        );
        assert_eq!(rel("hdl/board/pll.v"), Ok("hdl/board/pll.v".into()));
        let e = rel("/tmp/other/x.v").unwrap_err();
        assert!(
            e.starts_with("/tmp/other/x.v is outside the project folder /tmp/project"),
            "{e}"
        );
        let e = rel("/tmp/project/../x.v").unwrap_err();
        assert!(e.contains("cannot reach a path with `..`"), "{e}");
        assert!(rel("build/../../x.v").is_err());

        let tools = Tools::of_checkout(root);
        let cmd = Tool::new(&tools, root, "yosys")
            .arg("-s")
            .path(&root.join("build/synth.ys"))
            .command()
            .unwrap();
        assert_eq!(cmd.get_current_dir(), Some(root));
        let args: Vec<_> = cmd.get_args().collect();
        assert_eq!(args, ["-s", "build/synth.ys"]);
        assert!(
            Tool::new(&tools, root, "yosys")
                .path(Path::new("/elsewhere"))
                .arg("-q")
                .command()
                .is_err()
        );
    }
}
