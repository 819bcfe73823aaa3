//! Reading what the tools write: the hierarchy of the Spade Verilog and the blocks of the
//! per-block table, yosys' `stat -json` statistics as resources, and nextpnr's `--report`
//! JSON (the clocks it reached, the utilisation, the critical paths).

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

/// The module a Verilog line opens (`module \\name (`, as Spade writes it), unescaped.
pub fn module_of(line: &str) -> Option<String> {
    let rest = line.strip_prefix("module ")?;
    let name = rest
        .trim_start()
        .split(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("");
    Some(name.trim_start_matches('\\').to_string())
}

/// The design's hierarchy before flattening, from the Spade Verilog: for each module, its
/// instances in source order (instance name, module name).
pub struct Hierarchy {
    instances: BTreeMap<String, Vec<(String, String)>>,
}

impl Hierarchy {
    /// Parse `verilog` (Spade's output: one instance per line, `MODULE INSTANCE (...`).
    pub fn parse(verilog: &str) -> Hierarchy {
        let unescape = |t: &str| t.trim_start_matches('\\').to_string();
        let names: std::collections::BTreeSet<String> =
            verilog.lines().filter_map(module_of).collect();
        let mut instances: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
        let mut current: Option<String> = None;
        for line in verilog.lines() {
            if let Some(name) = module_of(line) {
                current = Some(name);
                continue;
            }
            if line.starts_with("endmodule") {
                current = None;
                continue;
            }
            let Some(module) = &current else { continue };
            let mut tokens = line.split_whitespace();
            let (Some(first), Some(second), Some(third)) =
                (tokens.next(), tokens.next(), tokens.next())
            else {
                continue;
            };
            let kind = unescape(first);
            if !third.starts_with('(') || !names.contains(&kind) {
                continue;
            }
            instances
                .entry(module.clone())
                .or_default()
                .push((unescape(second), kind));
        }
        Hierarchy { instances }
    }
}

/// The blocks of the per-block table, as (tag, unit) pairs (the tag names the module
/// `submod` makes): the units the first of `blocks_of` instantiates (the pipeline stages and
/// the link), where an instance of a later `blocks_of` unit (the move generator) is replaced
/// by that unit's own instances, in source order. A unit that a block also instantiates (a
/// helper such as a square's code look-up, used everywhere) is no row: tagging its module
/// would take its instances out of every block that uses it; its cells stay with the unit
/// that instantiates it.
pub fn stage_units(hierarchy: &Hierarchy, blocks_of: &[String]) -> Result<Vec<(String, String)>> {
    let Some(outer) = blocks_of.first() else {
        bail!("swim.toml [fpga] blocks_of is empty: name the unit whose instances are the rows");
    };
    for unit in blocks_of {
        if !hierarchy.instances.contains_key(unit) {
            bail!(
                "swim.toml [fpga] blocks_of names `{unit}`: no such module with instances in \
                 build/spade.sv"
            );
        }
    }
    fn walk(h: &Hierarchy, unit: &str, inner: &[String], units: &mut Vec<String>) {
        for (_, child) in &h.instances[unit] {
            if inner.contains(child) {
                walk(h, child, inner, units);
            } else if !units.contains(child) {
                units.push(child.clone());
            }
        }
    }
    let mut units = Vec::new();
    walk(hierarchy, outer, &blocks_of[1..], &mut units);
    // Every module under the outer unit, and which of them instantiate which.
    let mut under = vec![outer.clone()];
    let mut i = 0;
    while i < under.len() {
        for (_, child) in hierarchy.instances.get(&under[i]).into_iter().flatten() {
            if !under.contains(child) {
                under.push(child.clone());
            }
        }
        i += 1;
    }
    let shared = |unit: &String| {
        under.iter().any(|m| {
            !blocks_of.contains(m)
                && hierarchy
                    .instances
                    .get(m)
                    .is_some_and(|list| list.iter().any(|(_, c)| c == unit))
        })
    };
    Ok(units
        .into_iter()
        .filter(|unit| !shared(unit))
        .map(|unit| (tag(&unit), unit))
        .collect())
}

/// A module-name-safe tag for a unit: `tsume::a::b` -> `a__b`.
pub fn tag(unit: &str) -> String {
    unit.trim_start_matches("tsume::")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

#[derive(Debug, Deserialize)]
struct StatModules {
    modules: BTreeMap<String, StatModule>,
}

#[derive(Debug, Deserialize)]
struct StatModule {
    #[serde(default)]
    num_cells_by_type: BTreeMap<String, u64>,
}

/// One row per block from yosys' `stat -json` of the synthesised design: module
/// `<top>_<tag>` is the block of that tag; the top's own cells (and the PLL wrapper, a
/// blackbox) are the board's. Rows: the stages in `units` order, then the own cells of each
/// `blocks_of` unit (the link top's and the generator's pipeline registers), then the
/// board.
pub fn block_rows(
    stat: &Path,
    top: &str,
    blocks_of: &[String],
    units: &[(String, String)],
) -> Result<Vec<(String, Resources)>> {
    let parsed: StatModules = read_json(stat, "yosys `stat -json` output")?;
    let mut by_tag: BTreeMap<String, Resources> = BTreeMap::new();
    for (module, m) in &parsed.modules {
        let name = module.trim_start_matches('\\');
        let key = name
            .strip_prefix(&format!("{top}_"))
            .map_or_else(|| top.to_string(), str::to_string);
        by_tag
            .entry(key)
            .or_default()
            .add(&Resources::from_cells(&m.num_cells_by_type));
    }
    let mut rows = Vec::new();
    for (t, unit) in units {
        if let Some(r) = by_tag.remove(t) {
            rows.push((unit.trim_start_matches("tsume::").to_string(), r));
        }
    }
    for unit in blocks_of {
        if let Some(r) = by_tag.remove(&tag(unit)) {
            let name = unit.trim_start_matches("tsume::");
            rows.push((format!("{name} (pipeline registers, glue)"), r));
        }
    }
    let mut board = Resources::default();
    for r in by_tag.values() {
        board.add(r);
    }
    rows.push((format!("{top} (PLL, reset, LEDs)"), board));
    rows.retain(|(_, r)| *r != Resources::default());
    Ok(rows)
}

/// Resources of one block (or of the chip).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq)]
pub struct Resources {
    /// LUT4s, carry cells counted as two.
    pub lut4: u64,
    /// Of `lut4`, in carry chains (CCU2C).
    pub carry_lut4: u64,
    pub ff: u64,
    /// DP16KD block RAMs.
    pub bram: u64,
    /// MULT18X18D and ALU54B.
    pub dsp: u64,
    /// LUT RAM (TRELLIS_DPR16X4).
    pub lutram: u64,
}

impl Resources {
    fn from_cells(cells: &BTreeMap<String, u64>) -> Resources {
        let n = |k: &str| cells.get(k).copied().unwrap_or(0);
        Resources {
            lut4: n("LUT4") + 2 * n("CCU2C"),
            carry_lut4: 2 * n("CCU2C"),
            ff: n("TRELLIS_FF"),
            bram: n("DP16KD"),
            dsp: n("MULT18X18D") + n("ALU54B"),
            lutram: n("TRELLIS_DPR16X4"),
        }
    }

    pub fn add(&mut self, o: &Resources) {
        self.lut4 += o.lut4;
        self.carry_lut4 += o.carry_lut4;
        self.ff += o.ff;
        self.bram += o.bram;
        self.dsp += o.dsp;
        self.lutram += o.lutram;
    }
}

#[derive(Debug, Deserialize)]
struct StatDesign {
    design: StatModule,
}

/// The chip's resources from yosys' `stat -json` of the flat synthesis.
pub fn design_totals(stat: &Path) -> Result<Resources> {
    let parsed: StatDesign = read_json(stat, "yosys `stat -json` output")?;
    Ok(Resources::from_cells(&parsed.design.num_cells_by_type))
}

/// nextpnr's `--report` JSON.
#[derive(Debug, Deserialize)]
pub struct NextpnrReport {
    pub fmax: BTreeMap<String, NextpnrFmax>,
    pub utilization: BTreeMap<String, Utilisation>,
    #[serde(default)]
    pub critical_paths: Vec<NextpnrPath>,
}

/// One critical path of nextpnr's report: its clock edges and its segments.
#[derive(Debug, Deserialize)]
pub struct NextpnrPath {
    #[serde(default)]
    from: String,
    #[serde(default)]
    to: String,
    #[serde(default)]
    path: Vec<NextpnrSegment>,
}

#[derive(Debug, Deserialize)]
struct NextpnrSegment {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    delay: f64,
    #[serde(default)]
    from: Option<NextpnrPin>,
    #[serde(default)]
    to: Option<NextpnrPin>,
}

#[derive(Debug, Deserialize)]
struct NextpnrPin {
    #[serde(default)]
    cell: String,
}

/// A critical path as the report shows it: where it starts and ends, and how its delay
/// splits between logic and routing.
#[derive(Debug, Clone, Serialize)]
pub struct CriticalPath {
    pub clocks: String,
    pub delay_ns: f64,
    pub logic_ns: f64,
    pub routing_ns: f64,
    /// Logic cells passed through (LUTs, multiplexers, carry cells).
    pub logic_levels: usize,
    pub start: String,
    pub end: String,
    /// The blocks the path passes through, in order (from the cells' instance names).
    pub blocks: Vec<String>,
}

/// The block of a flattened cell name: its instance path without the `_<n>` instance
/// numbers, e.g. `link_top_0.move_stream_0.w_TRELLIS_FF_Q` -> `link_top/move_stream`.
pub fn block_of_cell(cell: &str) -> String {
    let cell = cell.trim_start_matches('\\');
    let parts: Vec<&str> = cell.split('.').collect();
    let instances = &parts[..parts.len().saturating_sub(1)];
    instances
        .iter()
        .map(|p| match p.rsplit_once('_') {
            Some((name, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => name,
            _ => p,
        })
        .collect::<Vec<_>>()
        .join("/")
}

pub fn critical_path(p: &NextpnrPath) -> CriticalPath {
    let mut c = CriticalPath {
        clocks: format!("{} -> {}", p.from, p.to),
        delay_ns: 0.0,
        logic_ns: 0.0,
        routing_ns: 0.0,
        logic_levels: 0,
        start: String::new(),
        end: String::new(),
        blocks: Vec::new(),
    };
    for seg in &p.path {
        c.delay_ns += seg.delay;
        if seg.kind == "routing" {
            c.routing_ns += seg.delay;
        } else {
            c.logic_ns += seg.delay;
        }
        if seg.kind == "logic" {
            c.logic_levels += 1;
        }
        for pin in [&seg.from, &seg.to].into_iter().flatten() {
            if c.start.is_empty() {
                c.start = pin.cell.clone();
            }
            c.end = pin.cell.clone();
            let block = block_of_cell(&pin.cell);
            if !block.is_empty() && c.blocks.last() != Some(&block) {
                c.blocks.push(block);
            }
        }
    }
    c
}

/// One clock of nextpnr's report: the Fmax it reached and the clock it was placed and
/// routed against.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct NextpnrFmax {
    pub achieved: f64,
    constraint: f64,
}

/// One clock of the report: what nextpnr reached, what it ran against, and the target.
#[derive(Debug, Clone, Copy, Deserialize, Serialize)]
pub struct Fmax {
    pub achieved: f64,
    /// The clock nextpnr placed and routed against.
    pub constraint: f64,
    /// The clock the design must reach: `constraint` over the place-and-route margin.
    pub target: f64,
}

impl Fmax {
    /// nextpnr's figures for a run placed and routed against `margin` times the target.
    pub fn new(nextpnr: NextpnrFmax, margin: f64) -> Self {
        Self {
            achieved: nextpnr.achieved,
            constraint: nextpnr.constraint,
            target: nextpnr.constraint / margin,
        }
    }

    pub fn met(&self) -> bool {
        self.achieved >= self.target
    }
}

#[derive(Debug, Clone, Copy, Deserialize, Serialize)]
pub struct Utilisation {
    pub used: u64,
    pub available: u64,
}

/// A JSON file the flow wrote or reads back (`what` it should be, for the error).
pub fn read_json<T: serde::de::DeserializeOwned>(path: &Path, what: &str) -> Result<T> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not {what}", path.display()))
}

/// nextpnr's `--report` JSON, read from `report`.
pub fn read_nextpnr_report(report: &Path) -> Result<NextpnrReport> {
    read_json(report, "a nextpnr report")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rows of the board's per-block report, from swim.toml's `blocks_of` and the
    /// compiled Verilog (`cargo xtask hdl`, which `cargo xtask test` runs first): the
    /// search's blocks and the link's are there.
    #[test]
    fn the_boards_blocks_are_the_search_and_the_link() {
        let root = crate::checkout();
        let manifest = tsume::project::manifest::Manifest::load(&root).unwrap();
        let path = root.join(&manifest.hdl.output);
        let verilog = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}; run `cargo xtask hdl`", path.display()));
        let fpga = manifest.fpga().unwrap();
        let units = stage_units(&Hierarchy::parse(&verilog), &fpga.blocks_of).unwrap();
        let units: Vec<&str> = units.iter().map(|(_, u)| u.as_str()).collect();
        for block in [
            "tsume::search::controller::controller",
            "tsume::search::expand::expand",
            "tsume::search::geometry::table",
            "tsume::link::host_link::host_link",
            "tsume::link::solver_link::solver_link",
            "tsume::movegen::position_store::position_store",
        ] {
            assert!(
                units.iter().any(|u| u.starts_with(block)),
                "{block} is not a row: {units:?}"
            );
        }
        // A square's code look-up is used by the store, EXPAND and the controller too.
        assert!(
            !units.iter().any(|u| u.ends_with("::code_at")),
            "a shared helper is a row: {units:?}"
        );
    }

    #[test]
    fn fmax_target_is_the_constraint_over_the_margin() {
        let nextpnr = super::NextpnrFmax {
            achieved: 54.73,
            constraint: 55.0,
        };
        let f = super::Fmax::new(nextpnr, 1.1);
        assert!((f.target - 50.0).abs() < 1e-9, "{f:?}");
        assert!(f.met());
        let f = super::Fmax::new(nextpnr, 1.0);
        assert!(!f.met(), "{f:?}");
    }

    #[test]
    fn critical_paths_and_their_blocks() {
        assert_eq!(
            block_of_cell("link_top_0.move_stream_0.w_TRELLIS_FF_Q_12"),
            "link_top/move_stream"
        );
        assert_eq!(block_of_cell("\\ecp5_pll_0.pll"), "ecp5_pll");
        // nextpnr's report format: segments of clk-to-q, logic, routing and setup.
        let json = r#"{"from": "posedge clk", "to": "posedge clk", "path": [
            {"type": "clk-to-q", "delay": 0.5, "from": {"cell": "t_0.a_0.r_TRELLIS_FF", "port": "CLK"},
             "to": {"cell": "t_0.a_0.r_TRELLIS_FF", "port": "Q"}},
            {"type": "routing", "delay": 2.0, "net": "n", "from": {"cell": "t_0.a_0.r_TRELLIS_FF", "port": "Q"},
             "to": {"cell": "t_0.b_0.x_LUT4", "port": "A"}},
            {"type": "logic", "delay": 0.25, "from": {"cell": "t_0.b_0.x_LUT4", "port": "A"},
             "to": {"cell": "t_0.b_0.x_LUT4", "port": "Z"}},
            {"type": "routing", "delay": 1.0, "net": "m", "from": {"cell": "t_0.b_0.x_LUT4", "port": "Z"},
             "to": {"cell": "t_0.b_0.y_TRELLIS_FF", "port": "DI"}},
            {"type": "setup", "delay": 0.25, "from": {"cell": "t_0.b_0.y_TRELLIS_FF", "port": "DI"},
             "to": {"cell": "t_0.b_0.y_TRELLIS_FF", "port": "CLK"}}
        ]}"#;
        let c = critical_path(&serde_json::from_str(json).unwrap());
        assert_eq!(c.clocks, "posedge clk -> posedge clk");
        assert!((c.delay_ns - 4.0).abs() < 1e-9 && (c.routing_ns - 3.0).abs() < 1e-9);
        assert_eq!(c.logic_levels, 1);
        assert_eq!(c.start, "t_0.a_0.r_TRELLIS_FF");
        assert_eq!(c.end, "t_0.b_0.y_TRELLIS_FF");
        assert_eq!(c.blocks, ["t/a", "t/b"]);
        assert_eq!(block_of_cell("clk_25mhz$tr_io"), "");
    }
}
