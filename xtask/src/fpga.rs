//! The FPGA flow's tasks, `cargo xtask bitstream`, `block-fmax` and `depth`: the
//! `tsume-fpga` crate (fpga/), handed the project (its root, swim.toml, the tools of
//! `.tools/`) and, as its [`tsume_fpga::Host`], setup and the Spade compiler of this task
//! runner.

use std::path::{Path, PathBuf};

use anyhow::Result;
use tsume::solver::Config;
use tsume_fpga::{BitstreamArgs, BlockFmaxArgs, DepthArgs, Project, Tools};

use crate::{hdl, setup, toolchain, util};

/// The project of this checkout, with the tools `cargo xtask setup` installs.
fn project() -> Result<Project> {
    let root = util::project_root();
    Ok(Project {
        manifest: tsume::project::Manifest::load(&root)?,
        tools: Tools {
            python: toolchain::venv_python(),
            yosys: root.join(tsume_fpga::LAUNCHER),
            bin: util::tools_bin(),
        },
        root,
    })
}

/// What the flow asks of xtask: setup when the tools are missing, the Spade compiled.
struct Host<'a> {
    project: &'a Project,
}

impl tsume_fpga::Host for Host<'_> {
    fn require_tools(&self) -> Result<()> {
        if !setup::fpga_tools_ready()? {
            eprintln!("bitstream: FPGA tools missing in .tools: running setup first");
            setup::run()?;
        }
        Ok(())
    }

    fn compile_spade(&self) -> Result<PathBuf> {
        hdl::run(&hdl::HdlArgs {
            force: false,
            root: None,
        })?;
        Ok(self.project.verilog())
    }

    fn compile_spade_with_geometry(&self, table: &Config, dir: &Path) -> Result<PathBuf> {
        let project = self.project;
        hdl::compile_with_geometry(&project.root, &project.manifest, table, dir)
    }
}

/// `cargo xtask bitstream`.
pub fn bitstream(args: &BitstreamArgs) -> Result<()> {
    let project = project()?;
    tsume_fpga::bitstream(&project, &Host { project: &project }, args)
}

/// `cargo xtask block-fmax`.
pub fn block_fmax(args: &BlockFmaxArgs) -> Result<()> {
    let project = project()?;
    tsume_fpga::block_fmax(&project, &Host { project: &project }, args)
}

/// `cargo xtask depth` (no tool runs).
pub fn depth(args: &DepthArgs) -> Result<()> {
    tsume_fpga::depth(&project()?, args)
}
