//! Logic depth of the synthesised chip, from yosys' JSON netlist: for every register, the longest
//! chain of logic cells in front of it, in LUT levels. A quick timing view after synthesis, without
//! place and route: on an ECP5 each LUT level adds a LUT's delay and its routing, so the deepest
//! register groups are where the clock is lost. The bitstream report shows the deepest groups;
//! `cargo xtask depth` shows every group of any mapped netlist, by register of the Verilog or by
//! lists of cells.
//!
//! Delay model, in levels: a LUT4 1; the wide-function multiplexers PFUMX and L6MUX21
//! 0.35; a carry cell 1 from its A/B inputs and 0.06 along the carry (a 40-cell chain
//! costs about as much as two and a half LUTs). Flip-flops, I/O, the PLL and RAM start
//! and end paths.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};

use super::netlist::module_of;

mod table;

pub use table::{DepthArgs, run};

#[derive(Deserialize)]
struct Netlist {
    modules: HashMap<String, Module>,
}

#[derive(Deserialize)]
struct Module {
    #[serde(default)]
    cells: HashMap<String, Cell>,
}

#[derive(Deserialize)]
struct Cell {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    port_directions: HashMap<String, String>,
    #[serde(default)]
    connections: HashMap<String, Vec<serde_json::Value>>,
    #[serde(default)]
    attributes: HashMap<String, serde_json::Value>,
}

/// One register group: a register of the Verilog source (`Registers`), or flip-flops of
/// one name when the source is not known.
#[derive(Debug, Clone, Serialize)]
pub struct Group {
    pub name: String,
    /// The levels in front of its deepest bit.
    pub levels: f64,
    pub flip_flops: usize,
    /// Its flip-flops behind more than `DEEPER_THAN[0]` (6) levels.
    pub deep: usize,
}

/// The deepest register groups and the worst path.
#[derive(Debug, Clone, Serialize)]
pub struct Depth {
    /// Register groups, deepest first.
    pub groups: Vec<Group>,
    /// The deepest path, from its end back to its start: (levels, cell type, cell).
    pub worst_path: Vec<(f64, String, String)>,
    /// How many flip-flops sit behind more than each of `DEEPER_THAN` levels: abc maps
    /// every path up to the deepest one's depth, so this, not the deepest path alone,
    /// shows how much of the chip a clock target has to pull down.
    pub deeper_than: Vec<(u32, usize)>,
}

/// The thresholds of `Depth::deeper_than`, in LUT levels.
const DEEPER_THAN: [u32; 4] = [6, 7, 8, 9];

const SEQUENTIAL: [&str; 6] = [
    "TRELLIS_FF",
    "TRELLIS_IO",
    "EHXPLLL",
    "DCCA",
    "DP16KD",
    "MULT18X18D",
];

fn delay(kind: &str, in_port: &str) -> f64 {
    match kind {
        "PFUMX" | "L6MUX21" => 0.35,
        "CCU2C" if in_port == "CIN" => 0.06,
        _ => 1.0,
    }
}

/// A cell's output pin: (cell index, port).
type Pin<'a> = (usize, &'a str);

struct Graph<'a> {
    cells: Vec<(&'a str, &'a Cell)>,
    /// Net bit -> (cell index, output port).
    driver: HashMap<i64, Pin<'a>>,
    /// (cell index, output port) -> (arrival, the input's driver on the longest path).
    memo: HashMap<Pin<'a>, (f64, Option<Pin<'a>>)>,
}

impl<'a> Graph<'a> {
    fn bit_arrival(&mut self, bit: &serde_json::Value) -> (f64, Option<Pin<'a>>) {
        let Some(b) = bit.as_i64() else {
            return (0.0, None);
        };
        match self.driver.get(&b).copied() {
            Some(src) => (self.out_arrival(src.0, src.1), Some(src)),
            None => (0.0, None),
        }
    }

    fn out_arrival(&mut self, cell: usize, port: &'a str) -> f64 {
        if let Some((a, _)) = self.memo.get(&(cell, port)) {
            return *a;
        }
        let (_, c) = self.cells[cell];
        if SEQUENTIAL.contains(&c.kind.as_str()) {
            self.memo.insert((cell, port), (0.0, None));
            return 0.0;
        }
        // Marks the cell in progress: a combinational loop ends at zero instead of looping.
        self.memo.insert((cell, port), (0.0, None));
        let mut best = (0.0, None);
        for (in_port, dir) in &c.port_directions {
            if dir != "input" {
                continue;
            }
            for bit in c.connections.get(in_port).into_iter().flatten() {
                let (a, src) = self.bit_arrival(bit);
                let t = a + delay(&c.kind, in_port);
                if t > best.0 {
                    best = (t, src);
                }
            }
        }
        self.memo.insert((cell, port), best);
        best.0
    }
}

/// The group a flip-flop belongs to: its name up to the flip-flop suffix yosys adds, with
/// the instances Spade's library functions leave in names (`flip_array_0`, `if#false_0`, ...)
/// dropped, so the bits of one register land in one group.
fn group_of(cell: &str) -> String {
    let cell = cell.trim_start_matches('\\');
    let name = match cell.find("_TRELLIS_FF") {
        Some(i) => &cell[..i],
        None => cell,
    };
    name.split('.')
        .filter(|part| !part.starts_with("flip_array") && !part.starts_with("if#"))
        .collect::<Vec<_>>()
        .join(".")
}

/// The registers of the Verilog the netlist was synthesised from, by line: a flip-flop's
/// `src` attribute names the lines of the `always` block that writes it, and that block
/// names the register and the module it is in. abc renames flip-flops after the logic in
/// front of them (a mask-stage register can come out as `slide_stage_0.s_i_TRELLIS_FF_Q`),
/// so the source line, not the cell name, says which register a flip-flop belongs to.
pub struct Registers {
    /// The Verilog file's name as it appears in `src` attributes (`spade.sv:`).
    file: String,
    /// Line number (1-based) -> `module.register` for the lines of `always` blocks.
    by_line: HashMap<usize, String>,
}

impl Registers {
    /// The registers of Verilog `text`, whose file name is `file`.
    pub fn parse(file: &str, text: &str) -> Self {
        let lines: Vec<&str> = text.lines().collect();
        let mut by_line = HashMap::new();
        let mut module = String::new();
        for (i, line) in lines.iter().enumerate() {
            if let Some(name) = module_of(line) {
                module = name;
            }
            if !line.trim_start().starts_with("always") {
                continue;
            }
            // The first assignment of the block names the register.
            let reg = lines[i..]
                .iter()
                .take(12)
                .find_map(|l| l.split_once("<=").map(|(lhs, _)| lhs.trim()))
                .map(|lhs| lhs.trim_start_matches('\\').trim().to_string());
            if let Some(reg) = reg {
                by_line.insert(i + 1, format!("{module}.{reg}"));
            }
        }
        Registers {
            file: format!("{file}:"),
            by_line,
        }
    }

    /// The register a flip-flop with `src` attribute `src` belongs to.
    fn of(&self, src: &str) -> Option<&str> {
        src.split('|').find_map(|part| {
            let at = part.find(&self.file)?;
            let line: usize = part[at + self.file.len()..]
                .split(|c: char| !c.is_ascii_digit())
                .next()?
                .parse()
                .ok()?;
            self.by_line.get(&line).map(String::as_str)
        })
    }
}

/// For each threshold, how many of the flip-flops' `arrivals` (in levels) exceed it.
fn count_deeper(arrivals: &[f64], thresholds: &[u32]) -> Vec<(u32, usize)> {
    thresholds
        .iter()
        .map(|&t| (t, arrivals.iter().filter(|&&a| a > f64::from(t)).count()))
        .collect()
}

/// Reads the yosys JSON netlist at `path`.
fn read_netlist(path: &Path) -> Result<Netlist> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the netlist {}", path.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("{} is not a yosys JSON netlist", path.display()))
}

/// A flip-flop and the deepest path into it: (levels, cell index, the path's last driver).
type End<'a> = (f64, usize, Option<Pin<'a>>);

/// Module `top` of `netlist` as a graph, with every flip-flop's levels (DI, CE, LSR and M
/// all count), deepest first.
fn flip_flop_depths<'a>(
    netlist: &'a Netlist,
    path: &Path,
    top: &str,
) -> Result<(Graph<'a>, Vec<End<'a>>)> {
    let Some(module) = netlist.modules.get(top) else {
        bail!("{}: no module `{top}`", path.display());
    };
    let mut names: Vec<&String> = module.cells.keys().collect();
    names.sort();
    let cells: Vec<(&str, &Cell)> = names
        .iter()
        .map(|n| (n.as_str(), &module.cells[*n]))
        .collect();
    let mut driver = HashMap::new();
    for (i, (_, c)) in cells.iter().enumerate() {
        for (port, dir) in &c.port_directions {
            if dir != "output" {
                continue;
            }
            for bit in c.connections.get(port).into_iter().flatten() {
                if let Some(b) = bit.as_i64() {
                    driver.insert(b, (i, port.as_str()));
                }
            }
        }
    }
    let mut g = Graph {
        cells,
        driver,
        memo: HashMap::new(),
    };
    let mut ends: Vec<End> = Vec::new();
    for i in 0..g.cells.len() {
        let (_, c) = g.cells[i];
        if c.kind != "TRELLIS_FF" {
            continue;
        }
        let mut best = (0.0, None);
        for port in ["DI", "CE", "LSR", "M"] {
            for bit in c.connections.get(port).into_iter().flatten() {
                let (a, src) = g.bit_arrival(bit);
                if a > best.0 {
                    best = (a, src);
                }
            }
        }
        ends.push((best.0, i, best.1));
    }
    ends.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    Ok((g, ends))
}

/// The flip-flops of `ends` (deepest first) grouped by `name_of` (of the cell index):
/// (name, the levels in front of each of its flip-flops, deepest first), the deepest
/// group first.
fn grouped(ends: &[End], mut name_of: impl FnMut(usize) -> String) -> Vec<(String, Vec<f64>)> {
    let mut groups: Vec<(String, Vec<f64>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for &(a, i, _) in ends {
        let name = name_of(i);
        match index.get(&name) {
            Some(&k) => groups[k].1.push(a),
            None => {
                index.insert(name.clone(), groups.len());
                groups.push((name, vec![a]));
            }
        }
    }
    groups
}

/// The register a flip-flop belongs to: by its source line when `registers` knows it,
/// otherwise by its name (`group_of`).
fn register_of((name, cell): (&str, &Cell), registers: Option<&Registers>) -> String {
    let src = cell.attributes.get("src").and_then(|v| v.as_str());
    match (registers, src) {
        (Some(r), Some(src)) => r.of(src).map(str::to_string),
        _ => None,
    }
    .unwrap_or_else(|| group_of(name))
}

/// The logic depth of module `top` of the netlist at `path`, with the `keep` deepest
/// register groups: registers of the Verilog source when `registers` knows them (see
/// `Registers`), otherwise groups of flip-flop names (`group_of`).
pub fn logic_depth(
    path: &Path,
    top: &str,
    keep: usize,
    registers: Option<&Registers>,
) -> Result<Depth> {
    let netlist = read_netlist(path)?;
    let (g, ends) = flip_flop_depths(&netlist, path, top)?;
    let mut groups: Vec<Group> = grouped(&ends, |i| register_of(g.cells[i], registers))
        .into_iter()
        .map(|(name, levels)| Group {
            name,
            levels: levels[0],
            flip_flops: levels.len(),
            deep: count_deeper(&levels, &DEEPER_THAN[..1])[0].1,
        })
        .collect();
    groups.truncate(keep);
    let mut worst_path = Vec::new();
    if let Some((a, i, src)) = ends.first().copied() {
        worst_path.push((a, "TRELLIS_FF".into(), g.cells[i].0.to_string()));
        let mut at = src;
        while let Some(key) = at {
            let (arrival, next) = g.memo.get(&key).copied().unwrap_or((0.0, None));
            let (name, c) = g.cells[key.0];
            worst_path.push((arrival, c.kind.clone(), name.to_string()));
            at = next;
        }
    }
    let arrivals: Vec<f64> = ends.iter().map(|e| e.0).collect();
    let deeper_than = count_deeper(&arrivals, &DEEPER_THAN);
    Ok(Depth {
        groups,
        worst_path,
        deeper_than,
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    /// `json` written as `n.json` in a fresh temporary folder named after `tag`: (the
    /// folder, the file).
    pub(super) fn netlist_file(tag: &str, json: &str) -> (PathBuf, PathBuf) {
        let dir = std::env::temp_dir().join(format!("tsume-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("n.json");
        std::fs::write(&path, json).unwrap();
        (dir, path)
    }

    /// Two flip-flops with two LUTs and a PFUMX between them, and a carry chain of three
    /// cells beside: the depth is counted as documented.
    #[test]
    fn depth_of_a_small_netlist() {
        let json = r#"{"modules": {"top": {"cells": {
            "a_TRELLIS_FF_Q": {"type": "TRELLIS_FF", "port_directions": {"DI": "input", "Q": "output"},
                "connections": {"DI": [10], "Q": [2]}},
            "l1": {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"},
                "connections": {"A": [2], "Z": [3]}},
            "l2": {"type": "LUT4", "port_directions": {"A": "input", "Z": "output"},
                "connections": {"A": [3], "Z": [4]}},
            "m": {"type": "PFUMX", "port_directions": {"ALUT": "input", "Z": "output"},
                "connections": {"ALUT": [4], "Z": [5]}},
            "b_TRELLIS_FF_Q": {"type": "TRELLIS_FF", "port_directions": {"DI": "input", "Q": "output"},
                "connections": {"DI": [5], "Q": [6]}},
            "c1": {"type": "CCU2C", "port_directions": {"A0": "input", "COUT": "output"},
                "connections": {"A0": [6], "COUT": [7]}},
            "c2": {"type": "CCU2C", "port_directions": {"CIN": "input", "COUT": "output"},
                "connections": {"CIN": [7], "COUT": [8]}},
            "c3": {"type": "CCU2C", "port_directions": {"CIN": "input", "S0": "output"},
                "connections": {"CIN": [8], "S0": [10]}}
        }}}}"#;
        let (dir, path) = netlist_file("depth", json);
        let d = logic_depth(&path, "top", 5, None).unwrap();
        assert_eq!(d.groups[0].name, "b");
        assert!((d.groups[0].levels - 2.35).abs() < 1e-9, "{:?}", d.groups);
        assert_eq!((d.groups[0].flip_flops, d.groups[0].deep), (1, 0));
        assert_eq!(d.groups[1].name, "a");
        assert!((d.groups[1].levels - 1.12).abs() < 1e-9, "{:?}", d.groups);
        let kinds: Vec<&str> = d.worst_path.iter().map(|p| p.1.as_str()).collect();
        assert_eq!(kinds, ["TRELLIS_FF", "PFUMX", "LUT4", "LUT4", "TRELLIS_FF"]);
        // Flip-flop b is behind 2.35 levels, a behind 1.12: none deeper than the report's
        // thresholds; one deeper than 2, both deeper than 1.
        assert!(
            d.deeper_than.iter().all(|&(_, n)| n == 0),
            "{:?}",
            d.deeper_than
        );
        assert_eq!(d.deeper_than.len(), DEEPER_THAN.len());
        assert_eq!(
            count_deeper(&[2.35, 1.12], &[1, 2, 6]),
            [(1, 2), (2, 1), (6, 0)]
        );
        assert!(logic_depth(&path, "other", 5, None).is_err());
        assert_eq!(
            group_of("link_top_0.view_0.rotate_0.flip_array_0.if#false_0._e_441_TRELLIS_FF_Q_3"),
            "link_top_0.view_0.rotate_0._e_441"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A flip-flop is put in the register whose `always` block its `src` attribute names,
    /// whatever abc called the cell.
    #[test]
    fn registers_from_source_lines() {
        let verilog = "module \\tsume::g::gen  (\n    input clk\n);\n    logic[80:0] \\masks ;\n\
                       always @(posedge \\clk ) begin\n        \\masks  <= x;\n    end\n\
                       always @(posedge \\clk ) begin\n        if (\\rst ) begin\n\
                       \\start1  <= 0;\n        end\n    end\nendmodule\n";
        let r = Registers::parse("spade.sv", verilog);
        assert_eq!(
            r.of("hdl/a.spade:3,1|/x/build/spade.sv:5.5-7.8|cells_map.v:16"),
            Some("tsume::g::gen.masks")
        );
        assert_eq!(
            r.of("/x/build/spade.sv:8.5-12.8"),
            Some("tsume::g::gen.start1")
        );
        assert_eq!(r.of("/x/build/spade.sv:3.1-3.9"), None);
        assert_eq!(r.of("hdl/a.spade:5,1"), None);
    }
}
