//! `cargo xtask analyse`: positions looked at for new problems of the suite
//! (problems/README.md, "Adding a problem"): whether each is a valid position, its legal
//! moves, its move set by category, its mate length by the exhaustive search of
//! `src/mate.rs` within `--plies` with the first moves that keep the shortest mate, the
//! `expected` object of a problem file, and the search's effort.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use clap::Args;
use tsume::input::given;
use tsume::mate::{mate_length_nodes, mating_moves};
use tsume::position::Position;
use tsume::reference::tsume_moves;
use tsume::rsshogi::movegen::{LegalAll, MoveListGen};

use crate::util::Failure;

#[derive(Debug, Args)]
pub struct AnalyseArgs {
    /// One position in SFEN, quoted or as words after --sfen (a leading `sfen`, the move
    /// number and `position ... moves ...` as for `sim`).
    #[arg(long, num_args = 1.., value_name = "SFEN", conflicts_with = "positions", required_unless_present = "positions")]
    pub sfen: Option<Vec<String>>,
    /// A text file of positions, one a line (blank lines and `#` comments skipped); `-`
    /// reads standard input.
    #[arg(long, value_name = "FILE")]
    pub positions: Option<PathBuf>,
    /// The longest mate searched for, in plies (odd): a problem's `expected` is a mate
    /// within it or `no_mate_within` it.
    #[arg(long, default_value_t = 5, value_parser = odd_plies)]
    pub plies: u32,
}

fn odd_plies(text: &str) -> Result<u32, String> {
    let plies: u32 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of plies"))?;
    if plies.is_multiple_of(2) {
        return Err(format!(
            "{plies} plies: give an odd number (a mate ends on the attacker's move)"
        ));
    }
    Ok(plies)
}

pub fn run(args: &AnalyseArgs) -> Result<()> {
    let inputs = given(args.sfen.as_deref(), args.positions.as_deref())?
        .expect("clap requires --sfen or --positions");
    let mut out = std::io::stdout().lock();
    let mut invalid = 0;
    for (i, input) in inputs.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        match input.position() {
            Ok(pos) => write!(out, "{}", analyse(&input.sfen, &pos, args.plies))?,
            Err(error) => {
                invalid += 1;
                let what = if input.sfen.is_empty() {
                    &input.label
                } else {
                    &input.sfen
                };
                writeln!(out, "{what}\n  INVALID: {error}")?;
            }
        }
        out.flush()?;
    }
    if invalid > 0 {
        return Err(Failure::error(
            1,
            format!(
                "{invalid} of {} positions are not valid (see above)",
                inputs.len()
            ),
        ));
    }
    Ok(())
}

/// The report of one valid position `pos`, given as `given`.
fn analyse(given: &str, pos: &Position, plies: u32) -> String {
    let start = Instant::now();
    let (found, nodes) = mate_length_nodes(pos, plies);
    let seconds = start.elapsed().as_secs_f64();
    let set = tsume_moves(pos);
    let legal = MoveListGen::<LegalAll>::new(pos.inner()).iter().count();
    let mut text = format!("{given}\n");
    if Position::from_sfen(given).is_err() {
        // Given as shogi tools write it (`startpos moves ...`): the SFEN after the moves.
        text.push_str(&format!("  sfen: {}\n", pos.to_sfen()));
    }
    text.push_str(&format!(
        "  in check: {}, {legal} legal moves, {} in the move set ({})\n",
        pos.in_check(),
        set.moves.len(),
        set.mode.as_str()
    ));
    let mut by_category: Vec<(&str, Vec<String>)> = Vec::new();
    for m in &set.moves {
        let name = m.category.as_str();
        match by_category.iter_mut().find(|(c, _)| *c == name) {
            Some((_, moves)) => moves.push(m.mv.to_usi()),
            None => by_category.push((name, vec![m.mv.to_usi()])),
        }
    }
    for (category, moves) in &by_category {
        text.push_str(&format!("    {category}: {}\n", moves.join(" ")));
    }
    match found {
        Some(n) => {
            let first: Vec<String> = mating_moves(pos, n).iter().map(|m| m.to_usi()).collect();
            text.push_str(&format!(
                "  expected: {{\"mate\": {n}}} by {}\n",
                first.join(" ")
            ));
        }
        None => text.push_str(&format!("  expected: {{\"no_mate_within\": {plies}}}\n")),
    }
    text.push_str(&format!("  search: {nodes} nodes, {seconds:.3} s\n"));
    text
}
