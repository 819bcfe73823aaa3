//! What `cargo xtask bitstream` hands its tools: the chip's synthesis script and the
//! per-block one, and ecppack's command, every path in them relative to the project root
//! (the WebAssembly tools, nextpnr-ecp5 and ecppack, cannot see a project under `/tmp` by
//! its absolute path; yosys, native, gets the same form).

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Result;

use crate::Tools;
use crate::synth::{SynthInputs, blocks_script, synth_script};
use crate::tools::{Tool, tool_path};

/// Where the synthesis scripts write (absolute, below the project root).
pub(super) struct ScriptOutputs<'a> {
    pub(super) netlist: &'a Path,
    pub(super) stat: &'a Path,
    pub(super) blocks_stat: &'a Path,
}

/// The chip's synthesis script and the per-block one, every path in them relative to
/// `root`, where yosys runs (the inputs' and the outputs' paths may be absolute below it).
pub(super) fn scripts(
    root: &Path,
    inputs: &SynthInputs,
    blocks_of: &[String],
    units: &[(String, String)],
    out: &ScriptOutputs,
) -> Result<(String, String)> {
    let relative = |paths: &[PathBuf]| -> Result<Vec<PathBuf>> {
        paths.iter().map(|p| tool_path(root, p)).collect()
    };
    let (sources, fpga_verilog) = (relative(inputs.sources)?, relative(inputs.fpga_verilog)?);
    let inputs = SynthInputs {
        sources: &sources,
        fpga_verilog: &fpga_verilog,
        ..*inputs
    };
    let chip = synth_script(
        &inputs,
        &tool_path(root, out.netlist)?,
        &tool_path(root, out.stat)?,
    );
    let blocks = blocks_script(
        &inputs,
        blocks_of,
        units,
        &tool_path(root, out.blocks_stat)?,
    );
    Ok((chip, blocks))
}

/// ecppack of nextpnr's configuration `config` into the bitstream `bit`, compressed (as the
/// ULX3S LPF asks).
pub(crate) fn ecppack(tools: &Tools, root: &Path, config: &Path, bit: &Path) -> Result<Command> {
    Tool::new(tools, root, "ecppack")
        .arg("--compress")
        .arg("--input")
        .path(config)
        .arg("--bit")
        .path(bit)
        .command()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::{device, link_settings, pll_params};
    use crate::pnr::Nextpnr;
    use crate::synth::yosys;
    use crate::{LAUNCHER, util};
    use tsume::project::manifest::Manifest;

    /// Every argument of `cmd` that names a file: none is absolute, and the command runs in
    /// `root`.
    fn assert_relative(cmd: &Command, root: &Path) {
        assert_eq!(cmd.get_current_dir(), Some(root), "{}", util::show(cmd));
        for a in cmd.get_args() {
            let a = a.to_string_lossy();
            assert!(
                !a.starts_with('/') && !a.contains(&*root.to_string_lossy()),
                "`{a}` in `{}`",
                util::show(cmd)
            );
        }
    }

    /// The flow's commands and scripts, built from the repository's swim.toml and board
    /// with the flow's absolute paths, hand the tools only paths relative to the project
    /// root (the yowasp tools cannot see a project under `/tmp` by its absolute path), but
    /// for yosys' launcher, which the venv's Python runs.
    #[test]
    fn tools_get_paths_relative_to_the_project_root() {
        let root = crate::checkout();
        let tools = Tools::of_checkout(&root);
        let manifest = Manifest::load(&root).unwrap();
        let fpga = manifest.fpga().unwrap();
        let (_, board) = manifest.board(None).unwrap();
        let dir = root.join("build").join("bitstream");
        let (netlist, stat, blocks_stat) = (
            dir.join("board_top.json"),
            dir.join("synth-stat.json"),
            dir.join("blocks-stat.json"),
        );
        let pll = pll_params(board.oscillator_mhz, board.clock_mhz).unwrap();
        let link = link_settings(pll.out_mhz, board.baud, board.timeout_bits).unwrap();
        let fpga_verilog: Vec<PathBuf> = fpga.verilog.iter().map(|v| root.join(v)).collect();
        let inputs = SynthInputs {
            top: &fpga.top,
            sources: &[root.join(&manifest.hdl.output)],
            fpga_verilog: &fpga_verilog,
            pll: &pll,
            link: &link,
            abc9: None,
            no_rw_check: &fpga.no_rw_check,
        };
        let units = [("a__b".to_string(), "tsume::a::b".to_string())];
        let outputs = ScriptOutputs {
            netlist: &netlist,
            stat: &stat,
            blocks_stat: &blocks_stat,
        };
        let (chip, blocks) = scripts(&root, &inputs, &fpga.blocks_of, &units, &outputs).unwrap();
        for script in [&chip, &blocks] {
            let quoted: Vec<&str> = script.split('"').skip(1).step_by(2).collect();
            assert!(quoted.len() >= 3, "{script}");
            for q in quoted.iter().filter(|q| q.contains('/')) {
                assert!(!Path::new(q).is_absolute(), "`{q}` in\n{script}");
            }
        }
        assert!(
            chip.contains("read_verilog -sv \"build/spade.sv\"\n"),
            "{chip}"
        );
        assert!(
            chip.contains("-json \"build/bitstream/board_top.json\""),
            "{chip}"
        );
        assert!(blocks.contains("tee -q -o \"build/bitstream/blocks-stat.json\""));

        let cmd = yosys(&tools, &root, &dir.join("synth.ys"), true).unwrap();
        assert_eq!(cmd.get_program(), tools.python);
        assert_eq!(cmd.get_current_dir(), Some(root.as_path()));
        let args: Vec<_> = cmd.get_args().collect();
        assert_eq!(
            args,
            [
                root.join(LAUNCHER).as_os_str(),
                "-q".as_ref(),
                "-s".as_ref(),
                "build/bitstream/synth.ys".as_ref()
            ]
        );
        let config = dir.join("board_top.config");
        let bit = root.join("build").join("tsume.bit");
        assert_relative(&ecppack(&tools, &root, &config, &bit).unwrap(), &root);
        let device = device(&board.device).unwrap();
        let nextpnr = Nextpnr {
            tools: &tools,
            root: &root,
            device: &device,
            package: &board.package,
            speed: board.speed,
            netlist: &netlist,
            lpf: &root.join(&board.constraints),
            lpf_allow_unconstrained: false,
            freq_mhz: Some(board.clock_mhz),
            options: &["--placer", "static"],
        };
        let seed = dir.join("seed-2");
        let cmd = nextpnr
            .command(
                2,
                &seed.join("nextpnr-report.json"),
                Some(&seed.join("c.config")),
            )
            .unwrap();
        assert_relative(&cmd, &root);
        let shown = util::show(&cmd);
        assert!(
            shown.contains(&format!(" --lpf {} ", board.constraints.display()))
                && shown.contains(" --report build/bitstream/seed-2/nextpnr-report.json ")
                && shown.ends_with(" --textcfg build/bitstream/seed-2/c.config"),
            "{shown}"
        );

        // A file outside the project cannot be handed to the tools: a clear error.
        let outside = SynthInputs {
            fpga_verilog: &[PathBuf::from("/elsewhere/pll.v")],
            ..inputs
        };
        let e = scripts(&root, &outside, &fpga.blocks_of, &units, &outputs)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("/elsewhere/pll.v is outside the project folder"),
            "{e}"
        );
        let e = ecppack(&tools, &root, Path::new("../x.config"), &bit)
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot reach a path with `..`"), "{e}");
    }
}
