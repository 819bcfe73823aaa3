//! `cargo xtask hdl`: every `*.spade` file under swim.toml [hdl].dir into one Verilog file.
//!
//! The root file is `<name>,<name>,hdl/main.spade`; any other file `hdl/a/b.spade` is
//! `<name>,<name>::a::b,hdl/a/b.spade` (a `main.spade` in a subfolder is that folder's module).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Args;

use crate::setup;
use crate::util::{self, Failure, Manifest};

#[derive(Debug, Args)]
pub struct HdlArgs {
    /// Compile even when the Verilog is newer than every source.
    #[arg(long)]
    pub force: bool,
    /// Another project folder (with swim.toml and hdl/) to compile instead of this workspace;
    /// the compiler is still this workspace's `.tools/spade`.
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

/// The compiler's file arguments, relative to the project root.
fn file_args(root: &Path, manifest: &Manifest, sources: &[PathBuf]) -> Result<Vec<String>> {
    let name = &manifest.name;
    let dir = root.join(&manifest.hdl.dir);
    let root_file = dir.join(&manifest.hdl.root);
    if !sources.contains(&root_file) {
        bail!(
            "{} not found: it is the root of the `{name}` namespace (swim.toml [hdl] root); \
             create it and declare `mod X;` in it for every other file X.spade",
            root_file.display()
        );
    }
    let mut args = Vec::new();
    for src in sources {
        let rel = src.strip_prefix(root).unwrap_or(src);
        let rel_text = rel
            .to_str()
            .with_context(|| format!("{} is not a UTF-8 path", rel.display()))?;
        if rel_text.contains(',') {
            bail!(
                "{rel_text}: Spade file arguments are `root,namespace,path`, so paths cannot contain commas"
            );
        }
        let namespace = if *src == root_file {
            name.clone()
        } else {
            let inner = src.strip_prefix(&dir).unwrap_or(src).with_extension("");
            let mut parts = vec![name.clone()];
            parts.extend(inner.iter().map(|p| p.to_string_lossy().into_owned()));
            if parts.len() > 2 && parts.last().is_some_and(|p| p == "main") {
                parts.pop();
            }
            parts.join("::")
        };
        let entry = format!("{name},{namespace},{rel_text}");
        if *src == root_file {
            args.insert(0, entry);
        } else {
            args.push(entry);
        }
    }
    Ok(args)
}

fn files_count(n: usize) -> String {
    if n == 1 {
        "1 Spade file".to_string()
    } else {
        format!("{n} Spade files")
    }
}

pub fn run(args: &HdlArgs) -> Result<()> {
    let start = Instant::now();
    let root = match &args.root {
        Some(r) => r
            .canonicalize()
            .with_context(|| format!("--root {}: no such folder", r.display()))?,
        None => util::project_root(),
    };
    let manifest = Manifest::load(&root)?;
    let dir = root.join(&manifest.hdl.dir);
    if !dir.is_dir() {
        bail!(
            "{} (swim.toml [hdl] dir) is not a folder: create it with the Spade sources",
            dir.display()
        );
    }
    let sources = util::files_with_ext(&dir, "spade")?;
    let output = root.join(&manifest.hdl.output);
    if sources.is_empty() {
        eprintln!(
            "hdl: no *.spade files under {}: nothing to compile",
            dir.display()
        );
        return Ok(());
    }
    let files = file_args(&root, &manifest, &sources)?;

    let compiler = tsume::toolchain::spade_compiler();
    if !setup::spade_ready(&manifest.toolchain.spade) {
        eprintln!(
            "hdl: spade {} is not installed: running setup first",
            manifest.toolchain.spade
        );
        setup::run()?;
    }

    // Up to date: the output is newer than every input and was built from the same files.
    let inputs_stamp = output.with_extension("sv.inputs");
    let stamp_text = files.join("\n") + "\n";
    let newest_input = sources
        .iter()
        .map(PathBuf::as_path)
        .chain([root.join("swim.toml").as_path(), compiler.as_path()])
        .filter_map(util::mtime)
        .max();
    let fresh = match (util::mtime(&output), newest_input) {
        (Some(out), Some(newest)) => out > newest,
        _ => false,
    };
    let same_files = std::fs::read_to_string(&inputs_stamp).is_ok_and(|s| s == stamp_text);
    let shown_output = output.strip_prefix(&root).unwrap_or(&output).display();
    if fresh && same_files && !args.force {
        eprintln!(
            "hdl: {shown_output} up to date ({})",
            files_count(sources.len())
        );
        return Ok(());
    }

    if let Some(parent) = output.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let partial = output.with_extension("sv.partial");
    let mut cmd = Command::new(&compiler);
    if !std::io::stderr().is_terminal() {
        cmd.arg("--no-color");
    }
    cmd.arg("-o").arg(&partial).args(&files).current_dir(&root);
    eprintln!(
        "hdl: compiling {} with spade {}",
        files_count(sources.len()),
        manifest.toolchain.spade
    );
    let status = cmd
        .status()
        .with_context(|| format!("cannot run {}", compiler.display()))?;
    if !status.success() || !partial.exists() {
        std::fs::remove_file(&partial).ok();
        return Err(Failure::error(
            1,
            format!(
                "spade could not compile {} ({status}): see its diagnostics above",
                dir.strip_prefix(&root).unwrap_or(&dir).display()
            ),
        ));
    }
    std::fs::rename(&partial, &output)
        .with_context(|| format!("cannot move the Verilog to {}", output.display()))?;
    std::fs::write(&inputs_stamp, stamp_text)
        .with_context(|| format!("cannot write {}", inputs_stamp.display()))?;
    let size = std::fs::metadata(&output).map(|m| m.len()).unwrap_or(0);
    eprintln!(
        "hdl: wrote {shown_output} ({} kB) in {}",
        size.div_ceil(1000),
        util::secs(start.elapsed())
    );
    Ok(())
}
