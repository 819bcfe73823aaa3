//! The engine's options (`setoption`) and the arguments of `go`.

use std::time::Duration;

use crate::futile::Rule;
use crate::solver::Config;

/// Table size of a fresh engine, in MiB (`USI_Hash`).
pub const DEFAULT_HASH_MB: usize = 16;
/// The largest `USI_Hash`, in MiB, on a machine with twice as much memory available: 64 M
/// entries, 64 times the table of the suite's longest problems.
pub const MAX_HASH_MB: usize = 1024;

/// The largest `USI_Hash` this machine takes, in MiB: [`MAX_HASH_MB`], or half the memory
/// available when that is less (where the system tells: Linux), so that the maximum a GUI
/// is shown can be allocated. A value is checked again when its table is allocated.
pub fn max_hash_mb() -> usize {
    let half = crate::solver::transposition_table::available_memory()
        .map_or(u64::MAX, |bytes| bytes / 2 / (1 << 20));
    usize::try_from(half)
        .unwrap_or(usize::MAX)
        .clamp(DEFAULT_HASH_MB, MAX_HASH_MB)
}
/// The largest node limit announced to GUIs (many read spin values as 32-bit integers);
/// `setoption` takes any 64-bit value.
pub const MAX_NODE_LIMIT_SHOWN: u64 = i32::MAX as u64;

/// The option names, in the order `usi` announces them.
pub const NAMES: [&str; 8] = [
    "USI_Hash",
    "USI_Ponder",
    "NodeLimit",
    "Shortest",
    "Interpositions",
    "MaxPlies",
    "Engine",
    "BoardPort",
];

/// What runs the searches of `go mate` (the option `Engine`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Engine {
    /// The df-pn model (`crate::solver::Solver`).
    #[default]
    Model,
    /// The chip's search (`solver_top`) simulated by Verilator (`crate::chip::solver`).
    Chip,
    /// The chip's search on an FPGA board over its serial port (`BoardPort`;
    /// `crate::chip::link::BoardSearcher`).
    Board,
}

/// The most plies `MaxPlies` may give the frames (the plies the table keys hold).
pub const MAX_PLIES: usize = crate::solver::position_hash::PLY_KEYS;

/// The values of the options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    /// Table size in MiB.
    pub hash_mb: usize,
    /// The largest table size `USI_Hash` takes, in MiB ([`max_hash_mb`] when the session
    /// began).
    pub max_hash_mb: usize,
    /// Moves a solve may make (0: no limit).
    pub node_limit: u64,
    /// Answer a mate with a line of the least length (the solver's shortest mode).
    pub shortest: bool,
    /// Which of the defender's replies the model counts (`Interpositions`: composers or
    /// every; the chip and the board count every one).
    pub interpositions: Rule,
    /// Child frames on the path (`max_plies` of the geometry; `None`: swim.toml's).
    pub max_plies: Option<usize>,
    /// What runs the searches.
    pub engine: Engine,
    /// The board's serial port (`BoardPort`), for `Engine board`.
    pub board_port: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: DEFAULT_HASH_MB,
            max_hash_mb: MAX_HASH_MB,
            node_limit: 0,
            shortest: true,
            interpositions: Rule::Composers,
            max_plies: None,
            engine: Engine::Model,
            board_port: None,
        }
    }
}

impl Options {
    /// The options of a session on this machine: the defaults, with the largest `USI_Hash`
    /// of [`max_hash_mb`].
    pub fn for_this_machine() -> Options {
        Options {
            max_hash_mb: max_hash_mb(),
            ..Options::default()
        }
    }

    /// The `option` lines of the answer to `usi` (`base`: the geometry of swim.toml).
    pub fn announce(&self, base: Config) -> Vec<String> {
        vec![
            format!(
                "option name USI_Hash type spin default {DEFAULT_HASH_MB} min 1 max {}",
                self.max_hash_mb
            ),
            "option name USI_Ponder type check default false".to_string(),
            format!("option name NodeLimit type spin default 0 min 0 max {MAX_NODE_LIMIT_SHOWN}"),
            "option name Shortest type check default true".to_string(),
            "option name Interpositions type combo default composers var composers var every"
                .to_string(),
            format!(
                "option name MaxPlies type spin default {} min 2 max {MAX_PLIES}",
                base.max_plies
            ),
            "option name Engine type combo default model var model var chip var board".to_string(),
            "option name BoardPort type string default <empty>".to_string(),
        ]
    }

    /// Applies `setoption <args>` (`args` is the text after `setoption`). The error names
    /// the input and the fix.
    pub fn set(&mut self, args: &str) -> Result<(), String> {
        let tokens: Vec<&str> = args.split_whitespace().collect();
        let usage = "send `setoption name <option> value <value>`";
        if tokens.first() != Some(&"name") || tokens.len() < 2 {
            return Err(format!("`setoption {args}`: no option name; {usage}"));
        }
        let at = tokens.iter().position(|&t| t == "value");
        let name = tokens[1..at.unwrap_or(tokens.len())].join(" ");
        let value = at.map(|at| tokens[at + 1..].join(" "));
        let known = NAMES.join(", ");
        let Some(&option) = NAMES.iter().find(|n| n.eq_ignore_ascii_case(&name)) else {
            return Err(format!("unknown option `{name}`: the options are {known}"));
        };
        let value = match value.as_deref() {
            Some(v) if !v.is_empty() => v,
            _ => return Err(format!("option {option} has no value; {usage}")),
        };
        match option {
            "USI_Hash" => {
                let most = self.max_hash_mb;
                self.hash_mb = value
                    .parse()
                    .ok()
                    .filter(|mb| (1..=most).contains(mb))
                    .ok_or_else(|| {
                        format!(
                            "USI_Hash `{value}`: give the table size in MiB, 1 to {most} (the \
                             most this machine holds; the table keeps {} MiB)",
                            self.hash_mb
                        )
                    })?;
            }
            "NodeLimit" => {
                self.node_limit = value.parse().map_err(|_| {
                    format!("NodeLimit `{value}`: give a number of nodes (0: no limit)")
                })?;
            }
            "MaxPlies" => {
                let plies = value
                    .parse()
                    .ok()
                    .filter(|p| (2..=MAX_PLIES).contains(p))
                    .ok_or_else(|| {
                        format!(
                            "MaxPlies `{value}`: give the plies the search may hold, 2 to \
                             {MAX_PLIES} (a mate of up to MaxPlies - 1 plies is found)"
                        )
                    })?;
                self.max_plies = Some(plies);
            }
            "USI_Ponder" | "Shortest" => {
                let on = match value {
                    "true" => true,
                    "false" => false,
                    _ => return Err(format!("{option} `{value}`: give true or false")),
                };
                if option == "Shortest" {
                    self.shortest = on;
                }
            }
            "Interpositions" => {
                self.interpositions = match value.to_ascii_lowercase().as_str() {
                    "composers" => Rule::Composers,
                    "every" => Rule::EveryInterposition,
                    _ => {
                        return Err(format!(
                            "Interpositions `{value}`: give composers (a futile interposition \
                             is no reply) or every (every interposition counts)"
                        ));
                    }
                };
            }
            "Engine" => {
                self.engine = match value.to_ascii_lowercase().as_str() {
                    "model" => Engine::Model,
                    "chip" => Engine::Chip,
                    "board" => Engine::Board,
                    _ => {
                        return Err(format!(
                            "Engine `{value}`: give model (the df-pn model), chip (the \
                             chip's search, simulated) or board (the chip on an FPGA board at \
                             BoardPort)"
                        ));
                    }
                };
            }
            "BoardPort" => {
                self.board_port = (value != "<empty>").then(|| value.to_string());
            }
            _ => unreachable!("every name of NAMES has an arm"),
        }
        Ok(())
    }

    /// The solver's geometry: `base` (swim.toml) with a table of `USI_Hash` MiB and the
    /// frames of `MaxPlies`.
    pub fn config(&self, base: Config) -> Config {
        let entries = crate::solver::transposition_table::entries_in_mib(self.hash_mb);
        Config {
            max_plies: self.max_plies.unwrap_or(base.max_plies),
            ..base.with_tt_entries(entries)
        }
    }

    /// The node limit of a solve.
    pub fn nodes(&self) -> u64 {
        if self.node_limit == 0 {
            u64::MAX
        } else {
            self.node_limit
        }
    }
}

/// What `go` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Go {
    /// A mate search within this time (`None`: until found or stopped).
    Mate(Option<Duration>),
    /// A move of a game (`go btime ...`, `go infinite`, ...), which this engine does not play.
    Game,
}

impl Go {
    /// Reads the text after `go`. The error names the input and the fix.
    pub fn parse(args: &str) -> Result<Go, String> {
        let tokens: Vec<&str> = args.split_whitespace().collect();
        let Some(at) = tokens.iter().position(|&t| t == "mate") else {
            return Ok(Go::Game);
        };
        match tokens.get(at + 1) {
            None | Some(&"infinite") => Ok(Go::Mate(None)),
            Some(t) => t
                .parse::<u64>()
                .map(|ms| Go::Mate(Some(Duration::from_millis(ms))))
                .map_err(|_| {
                    format!(
                        "`go {args}`: `{t}` is neither a time in milliseconds nor `infinite`; \
                         send `go mate 10000` or `go mate infinite`"
                    )
                }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::transposition_table::Entry;

    #[test]
    fn options_are_set_and_checked() {
        let mut o = Options::default();
        o.set("name USI_Hash value 64").unwrap();
        o.set("name nodelimit value 5000").unwrap();
        o.set("name Shortest value false").unwrap();
        o.set("name USI_Ponder value false").unwrap();
        o.set("name MaxPlies value 128").unwrap();
        o.set("name Engine value board").unwrap();
        o.set("name BoardPort value /dev/ttyUSB1").unwrap();
        o.set("name Interpositions value every").unwrap();
        assert_eq!(
            o,
            Options {
                hash_mb: 64,
                max_hash_mb: MAX_HASH_MB,
                node_limit: 5000,
                shortest: false,
                interpositions: Rule::EveryInterposition,
                max_plies: Some(128),
                engine: Engine::Board,
                board_port: Some("/dev/ttyUSB1".to_string()),
            }
        );
        o.set("name Engine value chip").unwrap();
        o.set("name BoardPort value <empty>").unwrap();
        assert_eq!((o.engine, o.board_port.as_deref()), (Engine::Chip, None));
        assert_eq!(o.nodes(), 5000);
        assert_eq!(Options::default().nodes(), u64::MAX);
        let e = o.set("name MultiPV value 3").unwrap_err();
        assert!(e.contains("`MultiPV`") && e.contains("NodeLimit"), "{e}");
        let e = o.set("name USI_Hash value 0").unwrap_err();
        assert!(e.contains("USI_Hash `0`"), "{e}");
        let e = o.set("name USI_Hash value 1025").unwrap_err();
        assert!(e.contains("1 to 1024") && e.contains("keeps 64 MiB"), "{e}");
        let e = o.set("name MaxPlies value 1").unwrap_err();
        assert!(e.contains("MaxPlies `1`"), "{e}");
        let e = o.set("name Shortest").unwrap_err();
        assert!(e.contains("no value"), "{e}");
        let e = o.set("USI_Hash 3").unwrap_err();
        assert!(e.contains("no option name"), "{e}");
        let e = o.set("name Engine value fpga").unwrap_err();
        assert!(e.contains("Engine `fpga`") && e.contains("chip"), "{e}");
        assert_eq!(o.engine, Engine::Chip);
        let e = o.set("name Interpositions value some").unwrap_err();
        assert!(
            e.contains("Interpositions `some`") && e.contains("composers"),
            "{e}"
        );
        assert_eq!(Options::default().interpositions, Rule::Composers);
        assert_eq!(o.hash_mb, 64, "a refused value changes nothing");
    }

    #[test]
    fn the_hash_sizes_the_table() {
        let base = super::super::built_in_config().unwrap();
        let o = Options {
            hash_mb: 64,
            ..Options::default()
        };
        let config = o.config(base);
        let bytes = config.tt_entries() * std::mem::size_of::<Entry>();
        assert!(bytes <= 64 << 20 && bytes > 32 << 20, "{bytes} bytes");
        assert_eq!(config.max_plies, base.max_plies);
        assert!(config.check().is_ok());
    }

    #[test]
    fn go_is_read() {
        assert_eq!(Go::parse("mate"), Ok(Go::Mate(None)));
        assert_eq!(Go::parse("mate infinite"), Ok(Go::Mate(None)));
        assert_eq!(
            Go::parse("mate 1500"),
            Ok(Go::Mate(Some(Duration::from_millis(1500))))
        );
        assert_eq!(Go::parse("btime 0 wtime 0 byoyomi 1000"), Ok(Go::Game));
        let e = Go::parse("mate soon").unwrap_err();
        assert!(
            e.contains("`soon`") && e.contains("go mate infinite"),
            "{e}"
        );
    }
}
