//! cshogi's DfPn beside the model: `xtask/python/cshogi_dfpn.py` in the project venv, one
//! process per set that answers one JSON line per position.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use anyhow::{Context, Result, bail};

use super::{Answer, Run};
use crate::util;

/// One line of `cshogi_dfpn.py`.
pub fn parse_cshogi_line(line: &str) -> Result<Run> {
    let v: serde_json::Value = serde_json::from_str(line)
        .with_context(|| format!("cshogi_dfpn.py wrote a line that is not JSON: {line}"))?;
    if let Some(e) = v.get("error").and_then(|e| e.as_str()) {
        return Ok(Run {
            answer: Answer::Error(e.to_string()),
            nodes: 0,
            expansions: None,
            probes: None,
            counts: None,
            level_two: None,
            seconds: 0.0,
        });
    }
    let field = |k: &str| {
        v.get(k)
            .with_context(|| format!("cshogi_dfpn.py wrote no `{k}` in {line}"))
    };
    let answer = match field("result")?.as_str() {
        Some("mate") => Answer::Mate(field("pv")?.as_array().map_or(0, Vec::len)),
        Some("nomate") => Answer::NoMate,
        Some("unknown") => Answer::Unknown(None),
        _ => bail!("cshogi_dfpn.py wrote an unknown result in {line}"),
    };
    Ok(Run {
        answer,
        nodes: field("searched_node")?.as_u64().unwrap_or(0),
        expansions: None,
        probes: None,
        counts: None,
        level_two: None,
        seconds: field("seconds")?.as_f64().unwrap_or(0.0),
    })
}

/// A running `cshogi_dfpn.py`.
pub struct Cshogi {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

fn script() -> PathBuf {
    util::project_root().join("xtask/python/cshogi_dfpn.py")
}

fn python() -> PathBuf {
    crate::toolchain::venv_dir().join("bin").join("python")
}

impl Cshogi {
    pub fn start(nodes: u64) -> Result<Cshogi> {
        let mut child = Command::new(python())
            .arg(script())
            .arg(nodes.to_string())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .with_context(|| {
                format!("cannot start {} {}", python().display(), script().display())
            })?;
        let input = child.stdin.take().context("cshogi_dfpn.py has no stdin")?;
        let output = BufReader::new(
            child
                .stdout
                .take()
                .context("cshogi_dfpn.py has no stdout")?,
        );
        Ok(Cshogi {
            child,
            input,
            output,
        })
    }

    /// The answer on `sfen`, or `None` when the process died on it (with how it ended).
    pub fn ask(&mut self, sfen: &str) -> Result<std::result::Result<Run, String>> {
        let sent = writeln!(self.input, "{sfen}").and_then(|_| self.input.flush());
        let mut line = String::new();
        let read = if sent.is_ok() {
            self.output.read_line(&mut line).unwrap_or(0)
        } else {
            0
        };
        if read == 0 {
            let status = self.child.wait().context("cshogi_dfpn.py: cannot wait")?;
            return Ok(Err(format!("the process ended ({status})")));
        }
        parse_cshogi_line(line.trim()).map(Ok)
    }

    pub fn finish(mut self) {
        drop(self.input);
        let _ = self.child.wait();
    }
}

/// The installed cshogi's version, or an error that says how to install it.
pub fn cshogi_version() -> Result<String> {
    let out = Command::new(python())
        .args([
            "-c",
            "import importlib.metadata as m; print(m.version('cshogi'))",
        ])
        .output()
        .with_context(|| format!("cannot run {}", python().display()))?;
    if !out.status.success() {
        bail!(
            "cshogi is not installed in the project venv ({}): run `cargo xtask setup`",
            crate::toolchain::venv_dir().display()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cshogi_lines_are_read() {
        let run = parse_cshogi_line(
            r#"{"result": "mate", "pv": ["S*5h", "6i6h", "B*5i"], "searched_node": 17, "seconds": 0.5}"#,
        )
        .unwrap();
        assert_eq!(run.answer, Answer::Mate(3));
        assert_eq!((run.nodes, run.seconds), (17, 0.5));
        let run = parse_cshogi_line(
            r#"{"result": "unknown", "pv": [], "searched_node": 100, "seconds": 1}"#,
        )
        .unwrap();
        assert_eq!(run.answer, Answer::Unknown(None));
        let run = parse_cshogi_line(r#"{"error": "bad sfen"}"#).unwrap();
        assert_eq!(run.answer, Answer::Error("bad sfen".into()));
        assert!(parse_cshogi_line("Traceback").is_err());
        assert!(
            parse_cshogi_line(r#"{"result": "maybe", "searched_node": 1, "seconds": 1}"#).is_err()
        );
    }
}
