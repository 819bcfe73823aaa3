//! `cargo xtask depth`: the logic depth of any mapped netlist as a table, by register of
//! the Verilog or by lists of cells, with the netlist's cell counts.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use serde::Serialize;

use super::{Registers, count_deeper, flip_flop_depths, grouped, read_netlist, register_of};
use crate::Project;

/// How the flip-flops of a depth table are grouped.
pub enum Grouping<'a> {
    /// By register of the Verilog source (the report's grouping, `Registers`).
    Registers(&'a Registers),
    /// By lists of cell names (`read_groups`); the flip-flops of no list make one group.
    Lists(&'a HashMap<String, String>),
}

/// The group of the flip-flops of no list.
const UNLISTED: &str = "(in no list)";

/// One row of a depth table.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub name: String,
    pub flip_flops: usize,
    /// The levels in front of its deepest flip-flop.
    pub deepest: f64,
    /// How many of its flip-flops sit behind more than each of `TABLE_DEEPER_THAN` levels.
    pub deeper_than: Vec<(u32, usize)>,
}

impl Row {
    fn new(name: String, levels: &[f64]) -> Self {
        Row {
            name,
            flip_flops: levels.len(),
            deepest: levels.iter().copied().fold(0.0, f64::max),
            deeper_than: count_deeper(levels, &TABLE_DEEPER_THAN),
        }
    }
}

/// The thresholds of a depth table's columns, in LUT levels.
const TABLE_DEEPER_THAN: [u32; 4] = [5, 6, 7, 8];

/// A netlist's logic depth by register group (`cargo xtask depth`).
#[derive(Debug, Clone, Serialize)]
pub struct Table {
    /// Cells of the module by type.
    pub cells: BTreeMap<String, usize>,
    /// LUT4, PFUMX and L6MUX21 by the instance they were flattened out of, for cells whose
    /// names say so (`$flatten\\NAME.`): modules mapped apart, then joined.
    pub mapped_in: BTreeMap<String, BTreeMap<String, usize>>,
    /// Groups, deepest first.
    pub rows: Vec<Row>,
    /// Every flip-flop together.
    pub all: Row,
}

/// A cell name flattened out of an instance (`$flatten\\NAME.cell`): (the instance, the
/// cell's name inside it).
fn flattened(name: &str) -> Option<(&str, &str)> {
    name.strip_prefix("$flatten\\")?.split_once('.')
}

/// The logic depth of module `top` of the netlist at `path`, by `grouping`. A cell name in
/// a list also matches the same cell flattened out of an instance (`$flatten\\NAME.cell`).
pub fn depth_table(path: &Path, top: &str, grouping: &Grouping) -> Result<Table> {
    let netlist = read_netlist(path)?;
    let (g, ends) = flip_flop_depths(&netlist, path, top)?;
    let mut cells = BTreeMap::new();
    let mut mapped_in: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for &(name, c) in &g.cells {
        *cells.entry(c.kind.clone()).or_default() += 1;
        if !["LUT4", "PFUMX", "L6MUX21"].contains(&c.kind.as_str()) {
            continue;
        }
        if let Some((instance, _)) = flattened(name) {
            *mapped_in
                .entry(instance.to_string())
                .or_default()
                .entry(c.kind.clone())
                .or_default() += 1;
        }
    }
    let rows: Vec<Row> = grouped(&ends, |i| {
        let (name, cell) = g.cells[i];
        match grouping {
            Grouping::Registers(r) => register_of((name, cell), Some(r)),
            Grouping::Lists(lists) => lists
                .get(name)
                .or_else(|| flattened(name).and_then(|(_, n)| lists.get(n)))
                .cloned()
                .unwrap_or_else(|| UNLISTED.to_string()),
        }
    })
    .into_iter()
    .map(|(name, levels)| Row::new(name, &levels))
    .collect();
    let every: Vec<f64> = ends.iter().map(|e| e.0).collect();
    Ok(Table {
        cells,
        mapped_in,
        rows,
        all: Row::new("all".into(), &every),
    })
}

/// Lists of flip-flops by group from the files `ff-GROUP.txt` in `dir`, one cell a line
/// as yosys' `select -list` writes it (`module/cell`): cell name -> group.
pub fn read_groups(dir: &Path) -> Result<HashMap<String, String>> {
    let mut lists = HashMap::new();
    let entries = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read the folder {}", dir.display()))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("ff-") && n.ends_with(".txt"))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        bail!(
            "{} has no ff-GROUP.txt lists: write them with yosys \
             `tee -q -o ff-GROUP.txt select -list SELECTION` (one module/cell a line)",
            dir.display()
        );
    }
    for file in files {
        let stem = file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        let group = stem.trim_start_matches("ff-").to_string();
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        for line in text.split_whitespace() {
            let cell = line.split_once('/').map_or(line, |(_, cell)| cell);
            lists.insert(cell.to_string(), group.clone());
        }
    }
    Ok(lists)
}

/// The table as markdown, with the cell counts above it; `limit` rows at most (the
/// deepest), then the whole chip.
pub fn render(path: &Path, top: &str, table: &Table, limit: usize) -> String {
    let count = |kinds: &BTreeMap<String, usize>, k: &str| {
        crate::util::thousands(kinds.get(k).copied().unwrap_or(0))
    };
    let mut out = format!(
        "{} (module {top}): LUT4 {}, TRELLIS_FF {}, PFUMX {}, L6MUX21 {}, CCU2C {}\n",
        path.display(),
        count(&table.cells, "LUT4"),
        count(&table.cells, "TRELLIS_FF"),
        count(&table.cells, "PFUMX"),
        count(&table.cells, "L6MUX21"),
        count(&table.cells, "CCU2C"),
    );
    for (instance, kinds) in &table.mapped_in {
        out += &format!(
            "  mapped in `{instance}`: LUT4 {}, PFUMX {}, L6MUX21 {}\n",
            count(kinds, "LUT4"),
            count(kinds, "PFUMX"),
            count(kinds, "L6MUX21"),
        );
    }
    let heads: Vec<String> = TABLE_DEEPER_THAN.iter().map(|t| format!("> {t}")).collect();
    out += &format!(
        "\n| registers | FF | deepest | {} |\n|---|---:|---:|{}\n",
        heads.join(" | "),
        "---:|".repeat(heads.len())
    );
    let shown = table.rows.len().min(limit);
    for row in table.rows.iter().take(limit).chain([&table.all]) {
        let counts: Vec<String> = row
            .deeper_than
            .iter()
            .map(|&(_, n)| crate::util::thousands(n))
            .collect();
        out += &format!(
            "| {} | {} | {:.2} | {} |\n",
            row.name,
            crate::util::thousands(row.flip_flops),
            row.deepest,
            counts.join(" | ")
        );
    }
    if shown < table.rows.len() {
        out += &format!(
            "\n{} of {} groups shown (the deepest; --limit N for more)\n",
            shown,
            table.rows.len()
        );
    }
    out
}

/// `cargo xtask depth`: LUT levels in front of the flip-flops of a synthesised netlist.
#[derive(Debug, clap::Args)]
pub struct DepthArgs {
    /// Netlist (yosys JSON, mapped to ECP5 cells); default: the flow's,
    /// build/bitstream/TOP.json.
    pub netlist: Option<PathBuf>,
    /// Module to analyse; default: swim.toml [fpga] top.
    #[arg(long)]
    pub top: Option<String>,
    /// Group the flip-flops by the lists `ff-GROUP.txt` in this folder (cell names, one a
    /// line, as yosys `select -list` writes them) instead of by register of the Verilog.
    #[arg(long)]
    pub groups: Option<PathBuf>,
    /// The Verilog the netlist was synthesised from, for grouping by register; default:
    /// swim.toml [hdl] output.
    #[arg(long)]
    pub verilog: Option<PathBuf>,
    /// Groups shown, the deepest first.
    #[arg(long, default_value_t = 20)]
    pub limit: usize,
    /// The table as JSON instead of markdown.
    #[arg(long)]
    pub json: bool,
}

/// `cargo xtask depth` on `project` (no tool runs: the netlist is read as it is).
pub fn run(project: &Project, args: &DepthArgs) -> Result<()> {
    let (root, manifest) = (&project.root, &project.manifest);
    let top = match &args.top {
        Some(top) => top.clone(),
        None => manifest.fpga()?.top.clone(),
    };
    let netlist = args.netlist.clone().unwrap_or_else(|| {
        root.join("build")
            .join("bitstream")
            .join(format!("{top}.json"))
    });
    if !netlist.exists() {
        bail!(
            "the netlist {} does not exist: run `cargo xtask bitstream --synth-only` \
             first, or name a netlist",
            netlist.display()
        );
    }
    let table = match &args.groups {
        Some(dir) => depth_table(&netlist, &top, &Grouping::Lists(&read_groups(dir)?))?,
        None => {
            let verilog = args.verilog.clone().unwrap_or_else(|| project.verilog());
            let text = std::fs::read_to_string(&verilog).with_context(|| {
                format!(
                    "cannot read the Verilog {} (--verilog names another)",
                    verilog.display()
                )
            })?;
            let file = verilog.file_name().unwrap_or_default().to_string_lossy();
            let registers = Registers::parse(&file, &text);
            depth_table(&netlist, &top, &Grouping::Registers(&registers))?
        }
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&table)?);
    } else {
        print!("{}", render(&netlist, &top, &table, args.limit));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::tests::netlist_file;
    use super::*;

    /// A depth table by lists of cells: a listed cell also matches once flattened out of an
    /// instance, unlisted flip-flops make a group of their own, and the cells mapped in an
    /// instance are counted apart.
    #[test]
    fn table_by_lists() {
        let json = r#"{"modules": {"top": {"cells": {
            "a": {"type": "TRELLIS_FF", "port_directions": {"DI": "input", "Q": "output"},
                "connections": {"DI": [1], "Q": [2]}},
            "$flatten\\part.l1": {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"},
                "connections": {"A": [2], "Z": [3]}},
            "$flatten\\part.l2": {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"},
                "connections": {"A": [3], "Z": [4]}},
            "$flatten\\part.b": {"type": "TRELLIS_FF", "port_directions": {"DI": "input", "Q": "output"},
                "connections": {"DI": [4], "Q": [5]}},
            "m": {"type": "PFUMX", "port_directions": {"ALUT": "input", "Z": "output"},
                "connections": {"ALUT": [5], "Z": [6]}},
            "c": {"type": "TRELLIS_FF", "port_directions": {"DI": "input", "Q": "output"},
                "connections": {"DI": [6], "Q": [1]}}
        }}}}"#;
        let (dir, path) = netlist_file("depth-lists", json);
        let e = read_groups(&dir).unwrap_err().to_string();
        assert!(e.contains("no ff-GROUP.txt lists"), "{e}");
        std::fs::write(dir.join("ff-stage.txt"), "top/a\ntop/b\n").unwrap();
        let lists = read_groups(&dir).unwrap();
        let t = depth_table(&path, "top", &Grouping::Lists(&lists)).unwrap();
        let rows: Vec<(&str, usize, f64)> = t
            .rows
            .iter()
            .map(|r| (r.name.as_str(), r.flip_flops, r.deepest))
            .collect();
        assert_eq!(rows, [("stage", 2, 2.0), (UNLISTED, 1, 0.35)]);
        assert_eq!((t.all.flip_flops, t.all.deepest), (3, 2.0));
        assert_eq!(t.all.deeper_than, [(5, 0), (6, 0), (7, 0), (8, 0)]);
        assert_eq!(t.cells["TRELLIS_FF"], 3);
        assert_eq!(t.mapped_in["part"]["LUT4"], 2);
        assert!(!t.mapped_in["part"].contains_key("PFUMX"));
        let text = render(&path, "top", &t, 1);
        assert!(text.contains("mapped in `part`: LUT4 2, PFUMX 0"), "{text}");
        assert!(
            text.contains("| stage | 2 | 2.00 | 0 | 0 | 0 | 0 |"),
            "{text}"
        );
        assert!(text.contains("| all | 3 | 2.00 |"), "{text}");
        assert!(text.contains("1 of 2 groups shown"), "{text}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
