//! The yosys side of the flow: how yosys is run ([`yosys`]: native, the pyosys wheel's
//! libyosys behind `yosys.py`), the synthesis options of the command line and the scripts
//! yosys runs: the chip flattened for place and route ([`synth_script`]), the same design
//! cut into one module per block for the per-block table ([`blocks_script`]), and a design
//! synthesised whole for a block alone ([`alone_script`]).
//!
//! Every path in a script is relative to the project root, where yosys runs
//! (`super::tools::tool_path`), as the WebAssembly tools after it need their paths.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Result, bail};
use clap::Args;

use super::device::{LinkSettings, Pll};
use super::netlist::tag;
use super::tools::{Tool, quoted};
use crate::Tools;

/// Synthesis on the command line (`bitstream`, `block-fmax`).
#[derive(Debug, Args)]
pub struct SynthArgs {
    /// ABC commands for the LUT mapping instead of abc9's default script (`&scorr; &sweep;
    /// &dc2; &dch -f -r; &ps; &if -W 300 -v; &mfs`), e.g. `'&scorr; &sweep; &b; &if -W 300
    /// -F 0 -A 0 -v'`: the AIG balanced and mapped for delay alone, without area recovery
    /// (docs/bitstream.md).
    #[arg(long, value_name = "SCRIPT")]
    pub abc9_script: Option<String>,
}

impl SynthArgs {
    /// The script as `abc9 -script` takes it (`abc9_script_arg`), if one was given; the
    /// option joins the reproducing `command`.
    pub fn choose(&self, command: &mut String) -> Result<Option<String>> {
        let Some(script) = &self.abc9_script else {
            return Ok(None);
        };
        let arg = abc9_script_arg(script)?;
        command.push_str(&format!(" --abc9-script '{}'", script.trim()));
        Ok(Some(arg))
    }
}

/// ABC commands as one argument of yosys' `abc9 -script`: `+`, then the commands with each
/// run of blanks as a comma (yosys turns the commas back into blanks).
pub fn abc9_script_arg(script: &str) -> Result<String> {
    if let Some(c) = script
        .chars()
        .find(|c| matches!(c, '"' | ',' | '\\' | '\n' | '\r'))
    {
        bail!(
            "--abc9-script `{script}`: `{}` cannot be passed through yosys' abc9 -script; \
             give ABC commands separated by `;`, e.g. '&scorr; &sweep; &b; &if -W 300 -v'",
            c.escape_default()
        );
    }
    let words: Vec<&str> = script.split_whitespace().collect();
    if words.is_empty() {
        bail!(
            "--abc9-script is empty: give ABC commands separated by `;`, e.g. \
             '&scorr; &sweep; &b; &if -W 300 -v', or leave the option out for abc9's default"
        );
    }
    Ok(format!("+{}", words.join(",")))
}

/// The steps of `synth_ecp5` from `coarse` on for `top` (`flags`: further options such as
/// `-noflatten`; `last`: the last label run, empty for the end; `out`: ` -json FILE` or
/// empty). With `abc9` (an `abc9_script_arg`) synth_ecp5's LUT mapping step (`map_luts`:
/// the latch check, then `abc9 -W 300`) is run by hand with that script instead.
pub fn synth_from_coarse(
    top: &str,
    flags: &str,
    last: &str,
    abc9: Option<&str>,
    out: &str,
) -> String {
    let mut s = String::new();
    match abc9 {
        None => {
            let _ = writeln!(s, "synth_ecp5 -top {top}{flags} -run coarse:{last}{out}");
        }
        Some(script) => {
            let _ = writeln!(s, "synth_ecp5 -top {top}{flags} -run coarse:map_luts");
            let _ = writeln!(s, "check -latchonly -assert");
            let _ = writeln!(s, "abc9 -W 300 -script \"{script}\"");
            let _ = writeln!(s, "clean");
            let _ = writeln!(s, "synth_ecp5 -top {top}{flags} -run map_cells:{last}{out}");
        }
    }
    s
}

/// What the synthesis scripts need.
/// Paths relative to the project root.
pub struct SynthInputs<'a> {
    pub top: &'a str,
    /// The Spade Verilog (build/spade.sv).
    pub sources: &'a [PathBuf],
    /// FPGA-only Verilog (the PLL, the link settings).
    pub fpga_verilog: &'a [PathBuf],
    pub pll: &'a Pll,
    pub link: &'a LinkSettings,
    /// ABC commands for the LUT mapping (`abc9_script_arg`), or abc9's default.
    pub abc9: Option<&'a str>,
    /// swim.toml [fpga] `no_rw_check`: memories read without collision logic.
    pub no_rw_check: &'a [String],
}

impl SynthInputs<'_> {
    /// Read the Spade Verilog and the FPGA-only Verilog, set the PLL and link parameters on
    /// their instances, elaborate and run `proc`.
    fn prologue(&self) -> String {
        let (top, pll, link) = (self.top, self.pll, self.link);
        let mut s = String::new();
        for src in self.sources {
            let _ = writeln!(s, "read_verilog -sv {}", quoted(src));
        }
        for v in self.fpga_verilog {
            let _ = writeln!(s, "read_verilog {}", quoted(v));
        }
        let _ = writeln!(
            s,
            "setparam -set CLKI_DIV {} -set CLKFB_DIV {} -set CLKOP_DIV {} -set CLKOP_CPHASE \
             {} {top}/ecp5_pll_0",
            pll.clki_div, pll.clkfb_div, pll.clkop_div, pll.clkop_cphase
        );
        let _ = writeln!(
            s,
            "setparam -set CLOCKS_PER_BIT {} -set TIMEOUT_BITS {} {top}/board_config_0",
            link.clocks_per_bit, link.timeout_bits
        );
        let _ = writeln!(s, "synth_ecp5 -top {top} -run begin:coarse");
        let _ = writeln!(s, "proc");
        s
    }
}

/// The `setattr` lines that mark the memories `names` (swim.toml [fpga] `no_rw_check`) in a
/// flattened design, under the top or deeper: a read of an address written in the same
/// cycle may return anything, so yosys adds no logic around the block RAM to return the
/// old word.
fn no_rw_check_lines(names: &[String]) -> String {
    names
        .iter()
        .map(|m| format!("setattr -set no_rw_check 1 */m:{m} */m:*.{m}\n"))
        .collect()
}

/// The chip: `synth_ecp5` of the whole flattened design (flattened without `$scopeinfo`
/// cells, which only slow the optimisation passes down), netlist to `json`, statistics to
/// `stat`.
pub fn synth_script(i: &SynthInputs, json: &Path, stat: &Path) -> String {
    let mut s = i.prologue();
    let _ = writeln!(s, "flatten -noscopeinfo");
    s.push_str(&no_rw_check_lines(i.no_rw_check));
    s.push_str(&synth_from_coarse(
        i.top,
        "",
        "",
        i.abc9,
        &format!(" -json {}", quoted(json)),
    ));
    let _ = writeln!(s, "tee -q -o {} stat -json", quoted(stat));
    s
}

/// The per-block pass: the same design with one module per block, statistics to `stat`.
///
/// The blocks (`units`, as (tag, unit)) are the units the `blocks_of` units instantiate
/// (`super::netlist::stage_units`): the position store, the pipeline stages of the move generator
/// and the host link, with registers between them. Each block's modules are flattened into it and
/// its cells tagged, and so are each `blocks_of` unit's own cells (its pipeline registers and
/// glue); the whole design is then flattened and optimised at word level (constants and unused
/// logic cross block boundaries), and `submod` cuts it back into one module per tag (a
/// block's memories, tagged too, collected into cells first so that they go with it), which
/// `synth_ecp5 -noflatten` maps separately. What the blocks cannot share any more (bit-level
/// constants found during mapping, logic merged across a boundary) makes their sum larger than the
/// chip; the report gives both.
pub fn blocks_script(
    i: &SynthInputs,
    blocks_of: &[String],
    units: &[(String, String)],
    stat: &Path,
) -> String {
    let top = i.top;
    let mut s = i.prologue();
    let kept = units
        .iter()
        .map(|(_, u)| u.as_str())
        .chain(blocks_of.iter().map(String::as_str))
        .chain([top]);
    for unit in kept {
        let _ = writeln!(s, "setattr -mod -set keep_hierarchy 1 {}", select(unit));
    }
    let _ = writeln!(s, "flatten -noscopeinfo");
    let tagged = units
        .iter()
        .cloned()
        .chain(blocks_of.iter().map(|b| (tag(b), b.clone())));
    for (t, unit) in tagged {
        let _ = writeln!(s, "setattr -set submod \"{t}\" {}/t:*", select(&unit));
        let _ = writeln!(s, "setattr -set submod \"{t}\" {}/m:*", select(&unit));
    }
    let _ = writeln!(s, "setattr -mod -unset keep_hierarchy *");
    let _ = writeln!(s, "flatten -noscopeinfo");
    s.push_str(&no_rw_check_lines(i.no_rw_check));
    let _ = writeln!(s, "opt");
    // `submod` skips a module that still holds memories: each becomes one cell first,
    // which takes its memory's tag.
    let _ = writeln!(s, "memory_collect");
    let _ = writeln!(s, "submod");
    s.push_str(&synth_from_coarse(top, " -noflatten", "check", i.abc9, ""));
    let _ = writeln!(s, "tee -q -o {} stat -json", quoted(stat));
    s
}

/// A design synthesised whole and flattened (a block alone in its wrapper): the
/// SystemVerilog files `sv` and the Verilog files `verilog` (paths relative to the project
/// root), top unit `top`, netlist to `json`, statistics to `stat`.
pub fn alone_script(
    top: &str,
    sv: &[&Path],
    verilog: &[&Path],
    abc9: Option<&str>,
    no_rw_check: &[String],
    json: &Path,
    stat: &Path,
) -> String {
    let mut s = String::new();
    for src in sv {
        let _ = writeln!(s, "read_verilog -sv {}", quoted(src));
    }
    for v in verilog {
        let _ = writeln!(s, "read_verilog {}", quoted(v));
    }
    let _ = writeln!(
        s,
        "synth_ecp5 -top {top} -run begin:coarse\nproc\nflatten -noscopeinfo"
    );
    s.push_str(&no_rw_check_lines(no_rw_check));
    s.push_str(&synth_from_coarse(
        top,
        "",
        "",
        abc9,
        &format!(" -json {}", quoted(json)),
    ));
    let _ = writeln!(s, "tee -q -o {} stat -json", quoted(stat));
    s
}

/// yosys running `script` in the project root `root` (`quiet`: `-q`, only warnings and
/// errors in its output, and its last lines: peak memory, CPU and wall time): the venv's
/// Python (where `cargo xtask setup` installs pyosys) running the launcher
/// ([`crate::LAUNCHER`]), both from `tools`.
pub fn yosys(tools: &Tools, root: &Path, script: &Path, quiet: bool) -> Result<Command> {
    let mut tool = Tool::program(root, &tools.python).arg(&tools.yosys);
    if quiet {
        tool = tool.arg("-q");
    }
    tool.arg("-s").path(script).command()
}

/// A module name as a yosys selection (names are matched as patterns: escape the pattern
/// characters Spade's mangled names may hold).
fn select(module: &str) -> String {
    module
        .chars()
        .flat_map(|c| match c {
            '[' | ']' | '*' | '?' => vec!['\\', c],
            c => vec![c],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::device::{link_settings, pll_params};
    use super::super::netlist::{Hierarchy, block_rows, stage_units};
    use super::*;

    /// The inputs of `board_top` from `sources` alone, with abc9's default script.
    fn board_inputs<'a>(
        sources: &'a [PathBuf],
        pll: &'a Pll,
        link: &'a LinkSettings,
        no_rw_check: &'a [String],
    ) -> SynthInputs<'a> {
        SynthInputs {
            top: "board_top",
            sources,
            fpga_verilog: &[],
            pll,
            link,
            abc9: None,
            no_rw_check,
        }
    }

    #[test]
    fn memories_without_collision_logic_are_marked_after_the_flatten() {
        let pll = pll_params(25.0, 75.0).unwrap();
        let link = link_settings(75.0, 115_200, 2000).unwrap();
        let marked = ["search_path_0.records".to_string()];
        let sources = [PathBuf::from("build/spade.sv")];
        let inputs = board_inputs(&sources, &pll, &link, &marked);
        let line = "flatten -noscopeinfo\nsetattr -set no_rw_check 1 */m:search_path_0.records \
                    */m:*.search_path_0.records\n";
        let flat = synth_script(&inputs, Path::new("n.json"), Path::new("s.json"));
        assert!(flat.contains(line), "{flat}");
        let blocks = blocks_script(&inputs, &["link_top".to_string()], &[], Path::new("s.json"));
        assert!(
            blocks.contains(&format!("{line}opt\nmemory_collect\nsubmod\n")),
            "{blocks}"
        );
        let alone = alone_script("t", &[], &[], None, &marked, Path::new("n"), Path::new("s"));
        assert!(alone.contains(line), "{alone}");
        let inputs = SynthInputs {
            no_rw_check: &[],
            ..inputs
        };
        let flat = synth_script(&inputs, Path::new("n.json"), Path::new("s.json"));
        assert!(!flat.contains("no_rw_check"));
    }

    #[test]
    fn hierarchy_and_blocks() {
        let verilog = "module \\tsume::a::f  (\n    input x\n);\nendmodule\n\
                       module \\tsume::b::g[12]  (\n);\nendmodule\n\
                       module \\tsume::c::h  (\n);\n\
                       \x20   \\tsume::b::g[12]  \\g_0 (.x(y));\nendmodule\n\
                       module link_top (\n);\n    logic y;\n\
                       \x20   \\tsume::a::f  \\f_0 (.x(y));\n\
                       \x20   \\tsume::b::g[12]  \\g_0 (.x(y));\n\
                       \x20   \\tsume::c::h  \\h_0 (.x(y));\n\
                       \x20   \\tsume::a::f  \\f_1 (.x(y));\nendmodule\n";
        let h = Hierarchy::parse(verilog);
        let units = stage_units(&h, &["link_top".to_string()]).unwrap();
        // g is also used inside h: no row of its own.
        assert_eq!(
            units,
            vec![
                ("a__f".to_string(), "tsume::a::f".to_string()),
                ("c__h".to_string(), "tsume::c::h".to_string()),
            ]
        );
        let units = vec![("b__g_12_".to_string(), "tsume::b::g[12]".to_string())];
        assert!(stage_units(&h, &["nothing".to_string()]).is_err());
        assert!(stage_units(&h, &[]).is_err());
        let pll = pll_params(25.0, 100.0).unwrap();
        let link = link_settings(100.0, 115_200, 2000).unwrap();
        let inputs = SynthInputs {
            top: "board_top",
            sources: &[PathBuf::from("build/spade.sv")],
            fpga_verilog: &[PathBuf::from("hdl/board/ecp5_pll.v")],
            pll: &pll,
            link: &link,
            abc9: None,
            no_rw_check: &[],
        };
        let script = blocks_script(
            &inputs,
            &["link_top".to_string()],
            &units,
            Path::new("s.json"),
        );
        assert!(script.contains("setparam -set CLKI_DIV 1 -set CLKFB_DIV 4"));
        assert!(script.contains("setattr -set submod \"b__g_12_\" tsume::b::g\\[12\\]/t:*"));
        assert!(script.contains("submod\n"));
        let flat = synth_script(&inputs, Path::new("n.json"), Path::new("s.json"));
        assert!(flat.contains("flatten -noscopeinfo\nsynth_ecp5 -top board_top -run coarse:"));
        assert!(!flat.contains("submod"));
        assert!(!flat.contains("abc9"));

        // A script of our own: synth_ecp5's LUT mapping step done by hand with it, in the
        // chip's synthesis and in the per-block one.
        let script = abc9_script_arg(" &scorr; &sweep;  &b; &if -W 300 -F 0 -A 0 -v ").unwrap();
        assert_eq!(script, "+&scorr;,&sweep;,&b;,&if,-W,300,-F,0,-A,0,-v");
        let inputs = SynthInputs {
            abc9: Some(&script),
            ..inputs
        };
        let flat = synth_script(&inputs, Path::new("n.json"), Path::new("s.json"));
        assert!(flat.contains(
            "flatten -noscopeinfo\nsynth_ecp5 -top board_top -run coarse:map_luts\n\
             check -latchonly -assert\n\
             abc9 -W 300 -script \"+&scorr;,&sweep;,&b;,&if,-W,300,-F,0,-A,0,-v\"\nclean\n\
             synth_ecp5 -top board_top -run map_cells: -json \"n.json\"\n"
        ));
        let blocks = blocks_script(
            &inputs,
            &["link_top".to_string()],
            &units,
            Path::new("s.json"),
        );
        assert!(blocks.contains("synth_ecp5 -top board_top -noflatten -run coarse:map_luts\n"));
        assert!(blocks.contains("synth_ecp5 -top board_top -noflatten -run map_cells:check\n"));
        for bad in ["", "  ", "&if \"x\"", "&if,-v", "&b\n&if"] {
            let e = abc9_script_arg(bad).unwrap_err().to_string();
            assert!(e.contains("--abc9-script"), "{e}");
        }
    }

    #[test]
    fn nested_blocks() {
        // link_top: store, generator (view, stream), link; the generator's instances take
        // its place among the rows, in source order, and its own cells get a tag.
        let verilog = "module \\tsume::s::store  (\n);\nendmodule\n\
                       module \\tsume::v::view  (\n);\nendmodule\n\
                       module \\tsume::m::stream  (\n);\nendmodule\n\
                       module \\tsume::h::link  (\n);\nendmodule\n\
                       module \\tsume::g::gen  (\n);\n\
                       \x20   \\tsume::v::view  \\view_0 (.x(y));\n\
                       \x20   \\tsume::m::stream  \\stream_0 (.x(y));\nendmodule\n\
                       module link_top (\n);\n\
                       \x20   \\tsume::s::store  \\store_0 (.x(y));\n\
                       \x20   \\tsume::g::gen  \\gen_0 (.x(y));\n\
                       \x20   \\tsume::h::link  \\link_0 (.x(y));\nendmodule\n";
        let h = Hierarchy::parse(verilog);
        let blocks_of = ["link_top".to_string(), "tsume::g::gen".to_string()];
        let units = stage_units(&h, &blocks_of).unwrap();
        let names: Vec<&str> = units.iter().map(|(_, u)| u.as_str()).collect();
        assert_eq!(
            names,
            [
                "tsume::s::store",
                "tsume::v::view",
                "tsume::m::stream",
                "tsume::h::link"
            ]
        );
        // Without the generator listed it is one row of its own.
        let flat = stage_units(&h, &blocks_of[..1]).unwrap();
        let names: Vec<&str> = flat.iter().map(|(_, u)| u.as_str()).collect();
        assert_eq!(
            names,
            ["tsume::s::store", "tsume::g::gen", "tsume::h::link"]
        );
        let pll = pll_params(25.0, 100.0).unwrap();
        let link = link_settings(100.0, 115_200, 2000).unwrap();
        let sources = [PathBuf::from("build/spade.sv")];
        let inputs = board_inputs(&sources, &pll, &link, &[]);
        let script = blocks_script(&inputs, &blocks_of, &units, Path::new("s.json"));
        assert!(script.contains("setattr -mod -set keep_hierarchy 1 tsume::g::gen\n"));
        assert!(script.contains("setattr -set submod \"g__gen\" tsume::g::gen/t:*"));
        assert!(script.contains("setattr -set submod \"link_top\" link_top/t:*"));
        // The statistics of such a run: one module per tag, the rest the board's.
        let dir = std::env::temp_dir().join(format!("tsume-blocks-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let stat = dir.join("stat.json");
        let cells = |lut: u64, ff: u64| {
            format!(r#"{{"num_cells_by_type": {{"LUT4": {lut}, "TRELLIS_FF": {ff}}}}}"#)
        };
        let modules = [
            ("board_top", cells(3, 4)),
            ("board_top_s__store", cells(10, 5)),
            ("board_top_v__view", cells(20, 0)),
            ("board_top_m__stream", cells(30, 7)),
            ("board_top_h__link", cells(40, 8)),
            ("board_top_g__gen", cells(0, 9)),
            ("board_top_link_top", cells(1, 2)),
        ];
        let body: Vec<String> = modules
            .iter()
            .map(|(m, c)| format!(r#""\\{m}": {c}"#))
            .collect();
        std::fs::write(&stat, format!(r#"{{"modules": {{{}}}}}"#, body.join(", "))).unwrap();
        let rows = block_rows(&stat, "board_top", &blocks_of, &units).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        let got: Vec<(&str, u64, u64)> = rows
            .iter()
            .map(|(n, r)| (n.as_str(), r.lut4, r.ff))
            .collect();
        assert_eq!(
            got,
            [
                ("s::store", 10, 5),
                ("v::view", 20, 0),
                ("m::stream", 30, 7),
                ("h::link", 40, 8),
                ("link_top (pipeline registers, glue)", 1, 2),
                ("g::gen (pipeline registers, glue)", 0, 9),
                ("board_top (PLL, reset, LEDs)", 3, 4),
            ]
        );
    }

    /// yosys (pyosys, through the launcher) synthesises a small design in a project folder
    /// under `/tmp`, through the flow's path handling: the script and the command carry
    /// paths relative to the folder.
    #[test]
    #[ignore = "needs the FPGA tools (yosys, nextpnr-ecp5): run `cargo xtask setup`, then \
                `cargo test -p tsume-fpga -- --ignored` (`cargo xtask test` runs it)"]
    fn yosys_synthesises_a_project_under_tmp() {
        let root = Path::new("/tmp").join(format!("tsume-tool-paths-{}", std::process::id()));
        let build = root.join("build");
        std::fs::create_dir_all(&build).unwrap();
        let verilog = root.join("tiny.v");
        std::fs::write(
            &verilog,
            "module tiny(input clk, input [7:0] a, input [7:0] b, output reg [7:0] q);\n\
             \x20 always @(posedge clk) q <= (a & b) ^ {a[6:0], b[7]};\nendmodule\n",
        )
        .unwrap();
        let (script, json, stat) = (
            build.join("synth.ys"),
            build.join("tiny.json"),
            build.join("synth-stat.json"),
        );
        let at = |p: &Path| super::super::tools::tool_path(&root, p).unwrap();
        let text = alone_script(
            "tiny",
            &[],
            &[&at(&verilog)],
            None,
            &[],
            &at(&json),
            &at(&stat),
        );
        assert!(!text.contains("/tmp"), "{text}");
        std::fs::write(&script, text).unwrap();
        let tools = crate::Tools::of_checkout(&crate::checkout());
        let mut cmd = yosys(&tools, &root, &script, true).unwrap();
        let outcome = super::super::tools::tool_stage(
            "yosys under /tmp",
            "synth_ecp5 of a small design",
            &mut cmd,
            &build.join("synth.log"),
        );
        let totals = outcome.and_then(|_| super::super::netlist::design_totals(&stat));
        let log = std::fs::read_to_string(build.join("synth.log")).unwrap_or_default();
        std::fs::remove_dir_all(&root).ok();
        let totals = totals.unwrap_or_else(|e| panic!("{e:#}\n{log}"));
        assert_eq!(totals.ff, 8, "{totals:?}");
        assert!(totals.lut4 >= 8, "{totals:?}");
    }

    /// The per-block pass through yosys on a small design of Spade's shape (mangled module
    /// names, a block RAM in one block): each block is a module of its own with its cells and
    /// its memory (`submod` skips a module that holds memories, so without their collection
    /// first the whole chip stays one row).
    #[test]
    #[ignore = "needs the FPGA tools (yosys, nextpnr-ecp5): run `cargo xtask setup`, then \
                `cargo test -p tsume-fpga -- --ignored` (`cargo xtask test` runs it)"]
    fn the_blocks_pass_keeps_each_block_with_its_memory() {
        let root = Path::new("/tmp").join(format!("tsume-blocks-pass-{}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(
            root.join("t.v"),
            "module \\tsume::s::count  (input clk, input [8:0] x, output reg [8:0] y);\n\
             \x20 always @(posedge clk) y <= x + 9'd3;\nendmodule\n\
             module \\tsume::s::ram[4]  (input clk, input [8:0] a, output reg [17:0] q);\n\
             \x20 reg [17:0] m [0:511];\n\
             \x20 always @(posedge clk) begin m[a] <= {a, a}; q <= m[a ^ 9'h55]; end\n\
             endmodule\n\
             module board_top (input clk, input [8:0] x, output [17:0] q);\n\
             \x20 wire [8:0] t;\n\
             \x20 \\tsume::s::count  c0 (clk, x, t);\n\
             \x20 \\tsume::s::ram[4]  r0 (clk, t, q);\nendmodule\n",
        )
        .unwrap();
        let pll = pll_params(25.0, 75.0).unwrap();
        let link = link_settings(75.0, 115_200, 2000).unwrap();
        let sources = [PathBuf::from("t.v")];
        let inputs = board_inputs(&sources, &pll, &link, &[]);
        let units: Vec<(String, String)> = ["tsume::s::count", "tsume::s::ram[4]"]
            .iter()
            .map(|u| (super::super::netlist::tag(u), u.to_string()))
            .collect();
        let script = blocks_script(&inputs, &[], &units, Path::new("stat.json"));
        std::fs::write(root.join("blocks.ys"), script).unwrap();
        let tools = crate::Tools::of_checkout(&crate::checkout());
        let mut cmd = yosys(&tools, &root, Path::new("blocks.ys"), true).unwrap();
        let outcome = super::super::tools::tool_stage(
            "yosys",
            "the per-block pass of a small design",
            &mut cmd,
            &root.join("blocks.log"),
        );
        let rows =
            outcome.and_then(|_| block_rows(&root.join("stat.json"), "board_top", &[], &units));
        let log = std::fs::read_to_string(root.join("blocks.log")).unwrap_or_default();
        std::fs::remove_dir_all(&root).ok();
        let rows = rows.unwrap_or_else(|e| panic!("{e:#}\n{log}"));
        let row = |name: &str| {
            rows.iter()
                .find(|(n, _)| n == name)
                .map(|(_, r)| *r)
                .unwrap_or_else(|| panic!("no row {name}: {rows:?}"))
        };
        let (count, ram) = (row("s::count"), row("s::ram[4]"));
        assert_eq!((count.ff, count.bram), (9, 0), "{rows:?}");
        assert!(count.lut4 > 0, "{rows:?}");
        assert_eq!(ram.bram, 1, "{rows:?}");
        assert_eq!(rows.len(), 2, "nothing left in the top: {rows:?}");
    }
}
