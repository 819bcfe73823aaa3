//! `cargo xtask hdl`: every `*.spade` file under swim.toml [hdl].dir into one Verilog file.
//!
//! The root file is `<name>,<name>,hdl/main.spade`; any other file `hdl/a/b.spade` is
//! `<name>,<name>::a::b,hdl/a/b.spade` (a `main.spade` in a subfolder is that folder's module).
//! Spade 0.16 finds a module only where its parent declares it, so a subfolder `hdl/a/` needs
//! `mod a;` in `hdl/main.spade` and an `hdl/a/main.spade` that declares `mod b;` for each of
//! its files (an inline `mod a { mod b; }` is refused): `hdl/board/` is such a folder.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use clap::Args;

use crate::setup;
use crate::util::{self, Failure};
use tsume::project::manifest::Manifest;
use tsume::solver::Config;
use tsume::solver::geometry::GEOMETRY_FILE;

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

/// Spade 0.16 numbers the names it makes up differently on every run (the wires of
/// expressions, `_e_N`, and the instances of generic units, `lib::unit[N]`), in the same
/// order and with the same logic. Yosys follows names when it splits the chip into blocks
/// (the per-block table moved by up to 16 % a row from one compile to the next), so the
/// Verilog is written with those numbers given anew in order of first appearance: `_e_N`
/// from 0 in each module, generic instances from 0 over the file. The same sources then
/// give the same Verilog, byte for byte.
fn stable_names(sv: &str) -> String {
    use std::collections::HashMap;
    let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let digits_at = |b: &[u8], i: usize| b[i..].iter().take_while(|c| c.is_ascii_digit()).count();
    let b = sv.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut exprs: HashMap<&[u8], usize> = HashMap::new();
    let mut generics: HashMap<&[u8], usize> = HashMap::new();
    let mut i = 0;
    while i < b.len() {
        let line_start = i == 0 || b[i - 1] == b'\n';
        if line_start && b[i..].starts_with(b"module ") {
            exprs.clear();
        }
        // `_e_N` as a name of its own or the start of one (`_e_N_mut`).
        if b[i..].starts_with(b"_e_") && (i == 0 || !is_word(b[i - 1])) {
            let n = digits_at(b, i + 3);
            if n > 0 {
                let next = exprs.len();
                let k = *exprs.entry(&b[i + 3..i + 3 + n]).or_insert(next);
                out.extend_from_slice(format!("_e_{k}").as_bytes());
                i += 3 + n;
                continue;
            }
        }
        // `path::unit[N]`: a generic unit's instance (the path has `::`, the bracket
        // follows its last character; a bit select of a name is apart from it).
        if b[i] == b'[' && i > 0 && is_word(b[i - 1]) {
            let n = digits_at(b, i + 1);
            if n > 0 && b.get(i + 1 + n) == Some(&b']') {
                let start = b[..i]
                    .iter()
                    .rposition(|&c| c.is_ascii_whitespace() || c == b'\\' || c == b'"')
                    .map_or(0, |p| p + 1);
                let name = &b[start..i];
                if name.windows(2).any(|w| w == b"::") {
                    let next = generics.len();
                    let k = *generics.entry(&b[start..i + 2 + n]).or_insert(next);
                    out.extend_from_slice(format!("[{k}]").as_bytes());
                    i += 2 + n;
                    continue;
                }
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).expect("only ASCII digits are replaced")
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

    let compiler = crate::toolchain::spade_compiler();
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
    // Named from this workspace when the output is inside it (a board's copy of the sources).
    let shown_output = output
        .strip_prefix(util::project_root())
        .or_else(|_| output.strip_prefix(&root))
        .unwrap_or(&output)
        .display();
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
    let verilog = std::fs::read_to_string(&partial)
        .with_context(|| format!("cannot read {}", partial.display()))?;
    std::fs::write(&partial, stable_names(&verilog))
        .with_context(|| format!("cannot write {}", partial.display()))?;
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

/// The Spade of the project at `root` (its `manifest`) compiled with the geometry of `config` in place of
/// the committed one ([`GEOMETRY_FILE`], from `[search]`): a board whose table has fewer
/// sets. swim.toml and the Spade sources are copied under `dir` (files no longer in the
/// project are removed), the geometry file is written there for `config`, and the copy is
/// compiled as a project of its own, its source names the project's (`hdl/...`). Returns
/// the copy's Verilog (`dir/build/spade.sv`).
pub fn compile_with_geometry(
    root: &Path,
    manifest: &Manifest,
    config: &Config,
    dir: &Path,
) -> Result<PathBuf> {
    config
        .check_chip()
        .context("the board's table cannot build the chip")?;
    let src = root.join(&manifest.hdl.dir);
    let copy = dir.join(&manifest.hdl.dir);
    let sources = util::files_with_ext(&src, "spade")?;
    let relative: Vec<&Path> = sources
        .iter()
        .filter_map(|f| f.strip_prefix(&src).ok())
        .collect();
    if copy.is_dir() {
        for old in util::files_with_ext(&copy, "spade")? {
            let rel = old.strip_prefix(&copy).unwrap_or(&old);
            if !relative.contains(&rel) {
                std::fs::remove_file(&old)
                    .with_context(|| format!("cannot remove {}", old.display()))?;
            }
        }
    }
    let geometry = root.join(GEOMETRY_FILE);
    for (file, rel) in sources.iter().zip(&relative) {
        let text = if *file == geometry {
            config.spade_geometry().into_bytes()
        } else {
            std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?
        };
        util::write_if_changed(&copy.join(rel), &text)?;
    }
    let manifest_text = std::fs::read(root.join("swim.toml"))
        .with_context(|| format!("cannot read {}", root.join("swim.toml").display()))?;
    util::write_if_changed(&dir.join("swim.toml"), &manifest_text)?;
    run(&HdlArgs {
        force: false,
        root: Some(dir.to_path_buf()),
    })?;
    Ok(dir.join(&manifest.hdl.output))
}

#[cfg(test)]
mod tests {
    use super::stable_names;

    #[test]
    fn stable_names_numbers_in_order_of_appearance() {
        let a = "module \\lib::f[2087]  (\n  logic _e_12;\n  logic _e_12_mut;\n  assign x = _e_9 | _e_12;\n  \\lib::g[40]  g_0 (.a(q[3]));\n  $dumpvars(0, \"lib::f[2087]\");\nendmodule\nmodule top (\n  logic _e_9;\n  logic x_e_5;\n  \\lib::f[2087]  f_0 ();\nendmodule\n";
        let b = "module \\lib::f[11]  (\n  logic _e_3;\n  logic _e_3_mut;\n  assign x = _e_700 | _e_3;\n  \\lib::g[12]  g_0 (.a(q[3]));\n  $dumpvars(0, \"lib::f[11]\");\nendmodule\nmodule top (\n  logic _e_44;\n  logic x_e_5;\n  \\lib::f[11]  f_0 ();\nendmodule\n";
        let want = "module \\lib::f[0]  (\n  logic _e_0;\n  logic _e_0_mut;\n  assign x = _e_1 | _e_0;\n  \\lib::g[1]  g_0 (.a(q[3]));\n  $dumpvars(0, \"lib::f[0]\");\nendmodule\nmodule top (\n  logic _e_0;\n  logic x_e_5;\n  \\lib::f[0]  f_0 ();\nendmodule\n";
        assert_eq!(stable_names(a), want);
        assert_eq!(stable_names(b), want);
    }

    #[test]
    fn stable_names_keeps_bit_selects_and_other_names() {
        let s = "module m (\n  assign y[4] = a[81] & \\x::y [2] & \\_e_ [1] & x__e_7;\nendmodule\n";
        assert_eq!(stable_names(s), s);
    }
}
