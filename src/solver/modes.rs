//! The table modes by name (docs/search.md, "The pieces table", "Child counts"): the four
//! switches of swim.toml `[search]` that choose the table and the first numbers of new
//! children, as `cargo xtask bench --solver --model-modes` and `--chip-table`, and `cargo
//! xtask solve --table` name them. No chip block: the chip takes the switches themselves
//! (`hdl/search/solver_top.spade`), all modes but the child counts and
//! the count estimates.

use anyhow::bail;

use super::Config;
use super::count_estimate::Estimate;

/// A table mode: its name and the four switches of swim.toml `[search]` it sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode {
    pub name: &'static str,
    pub hand_superiority: bool,
    pub depth_free: bool,
    pub child_counts: bool,
    pub estimate: Option<Estimate>,
}

/// The modes: the table keyed by plies left, the hands out of the key, the plies left out
/// of it (depth-free entries), both; the keyed table, the pieces table and the depth-free
/// table with child counts (docs/search.md, "Child counts"); the depth-free table and the
/// pieces table with each count estimate ([`Estimate`], `est-` and `pieces-est-` and its
/// name). The chip has the first four.
pub const MODES: [Mode; 15] = [
    Mode {
        name: "plies",
        hand_superiority: false,
        depth_free: false,
        child_counts: false,
        estimate: None,
    },
    Mode {
        name: "hands",
        hand_superiority: true,
        depth_free: false,
        child_counts: false,
        estimate: None,
    },
    Mode {
        name: "depth",
        hand_superiority: false,
        depth_free: true,
        child_counts: false,
        estimate: None,
    },
    Mode {
        name: "pieces",
        hand_superiority: true,
        depth_free: true,
        child_counts: false,
        estimate: None,
    },
    Mode {
        name: "counts",
        hand_superiority: false,
        depth_free: false,
        child_counts: true,
        estimate: None,
    },
    Mode {
        name: "pieces-counts",
        hand_superiority: true,
        depth_free: true,
        child_counts: true,
        estimate: None,
    },
    Mode {
        name: "depth-counts",
        hand_superiority: false,
        depth_free: true,
        child_counts: true,
        estimate: None,
    },
    Mode {
        name: "est-ring",
        hand_superiority: false,
        depth_free: true,
        child_counts: false,
        estimate: Some(Estimate::Ring),
    },
    Mode {
        name: "est-checker",
        hand_superiority: false,
        depth_free: true,
        child_counts: false,
        estimate: Some(Estimate::Checker),
    },
    Mode {
        name: "est-attacked",
        hand_superiority: false,
        depth_free: true,
        child_counts: false,
        estimate: Some(Estimate::Attacked),
    },
    Mode {
        name: "est-replies",
        hand_superiority: false,
        depth_free: true,
        child_counts: false,
        estimate: Some(Estimate::Replies),
    },
    Mode {
        name: "pieces-est-ring",
        hand_superiority: true,
        depth_free: true,
        child_counts: false,
        estimate: Some(Estimate::Ring),
    },
    Mode {
        name: "pieces-est-checker",
        hand_superiority: true,
        depth_free: true,
        child_counts: false,
        estimate: Some(Estimate::Checker),
    },
    Mode {
        name: "pieces-est-attacked",
        hand_superiority: true,
        depth_free: true,
        child_counts: false,
        estimate: Some(Estimate::Attacked),
    },
    Mode {
        name: "pieces-est-replies",
        hand_superiority: true,
        depth_free: true,
        child_counts: false,
        estimate: Some(Estimate::Replies),
    },
];

/// The names of the modes, comma-separated (for messages).
pub fn mode_names() -> String {
    MODES.map(|m| m.name).join(", ")
}

/// The modes named in `text` (comma-separated, spaces around a name ignored), in the order
/// given, each once; an error names an unknown mode, or says none is named.
/// The mode `config` searches in (its four switches), if it is one of [`MODES`].
pub fn mode_of(config: &Config) -> Option<&'static Mode> {
    MODES.iter().find(|m| m.apply(*config) == *config)
}

pub fn parse_modes(text: &str) -> anyhow::Result<Vec<Mode>> {
    let mut modes: Vec<Mode> = Vec::new();
    for name in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        let Some(mode) = MODES.iter().find(|m| m.name == name) else {
            bail!("no mode `{name}`; the modes are {}", mode_names());
        };
        if !modes.contains(mode) {
            modes.push(*mode);
        }
    }
    if modes.is_empty() {
        bail!("no mode named; name some of {}", mode_names());
    }
    Ok(modes)
}

impl Mode {
    /// Whether the chip searches this mode: no child counts, no count estimates but the
    /// count unit's (`attacked`).
    pub fn on_chip(&self) -> bool {
        !self.child_counts && matches!(self.estimate, None | Some(Estimate::Attacked))
    }

    /// `config` with this mode's four switches.
    pub fn apply(&self, config: Config) -> Config {
        Config {
            hand_superiority: self.hand_superiority,
            depth_free: self.depth_free,
            child_counts: self.child_counts,
            child_estimates: self.estimate,
            ..config
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(modes: &[Mode]) -> Vec<&'static str> {
        modes.iter().map(|m| m.name).collect()
    }

    #[test]
    fn every_mode_parses_by_its_name() {
        for mode in MODES {
            assert_eq!(parse_modes(mode.name).unwrap(), vec![mode]);
        }
        assert_eq!(
            mode_names(),
            "plies, hands, depth, pieces, counts, pieces-counts, depth-counts, est-ring, \
             est-checker, est-attacked, est-replies, pieces-est-ring, pieces-est-checker, \
             pieces-est-attacked, pieces-est-replies"
        );
    }

    #[test]
    fn modes_keep_their_order_once_each_with_spaces_and_empty_names_ignored() {
        let modes = parse_modes(" pieces, plies,,pieces ,depth,").unwrap();
        assert_eq!(names(&modes), ["pieces", "plies", "depth"]);
    }

    #[test]
    fn an_unknown_or_no_mode_is_an_error_naming_the_modes() {
        let e = parse_modes("depth,deep").unwrap_err().to_string();
        assert!(
            e.contains("no mode `deep`") && e.contains("pieces-counts"),
            "{e}"
        );
        let e = parse_modes(" , ").unwrap_err().to_string();
        assert!(e.starts_with("no mode named") && e.contains("plies"), "{e}");
        assert!(parse_modes("Depth").is_err());
    }

    #[test]
    fn a_mode_sets_the_four_switches_and_the_chip_has_all_but_the_counts() {
        let config = Config {
            tt_index_bits: 4,
            tt_ways: 2,
            max_plies: 16,
            max_children: 32,
            hand_superiority: false,
            depth_free: false,
            child_counts: false,
            child_estimates: None,
            tt2_index_bits: 0,
        };
        let set = MODES[5].apply(config);
        assert!(set.hand_superiority && set.depth_free && set.child_counts);
        assert_eq!((set.tt_index_bits, set.max_plies), (4, 16));
        assert_eq!(MODES[0].apply(set), config);
        let est = MODES[9].apply(config);
        assert_eq!(est.child_estimates, Some(Estimate::Attacked));
        assert!(est.depth_free && !est.hand_superiority && !est.child_counts);
        est.check().unwrap();
        est.check_chip().unwrap();
        assert!(MODES[8].apply(config).check_chip().is_err());
        let on_chip: Vec<_> = MODES
            .iter()
            .filter(|m| m.on_chip())
            .map(|m| m.name)
            .collect();
        assert_eq!(
            on_chip,
            [
                "plies",
                "hands",
                "depth",
                "pieces",
                "est-attacked",
                "pieces-est-attacked"
            ]
        );
    }
}
