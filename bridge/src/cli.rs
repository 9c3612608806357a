//! Flags of every subcommand (parsed here, validated by the subcommand).

use clap::builder::TypedValueParser;
use clap::{Args, Parser, Subcommand};
use engine::campaign::state::Parents;
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "bridge",
    version,
    about = "Carve unit tests out of system runs of C programs and bridge what they find back to whole-program inputs"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Run the target once and print the edges the input covers.
    Showmap(ShowmapArgs),
    /// Run every file of a corpus through the fork server and summarise.
    Exec(ExecArgs),
    /// Run a campaign: generate system tests, keep what covers new code,
    /// save crashes and hangs.
    Run(Box<RunArgs>),
    /// Run the target once on an input and carve unit tests out of the run.
    Carve(CarveArgs),
    /// Replay unit tests (a file or a directory) and check their fidelity.
    Replay(ReplayArgs),
    /// List the unit tests of a directory.
    Units(UnitsArgs),
    /// Print a unit test as C.
    Show(ShowArgs),
    /// Fuzz units' mapped parameters, lift what fails or finds new code
    /// into the system input and keep what reproduces.
    FuzzUnit(FuzzUnitArgs),
    /// Explore units symbolically (z3): solve for parameter values that
    /// take new branches, lift them and keep what reproduces.
    Explore(ExploreArgs),
    /// Review a campaign's failures: one row per signature (kind and
    /// innermost frames), each reduced to a small reproducer; SARIF too.
    Review(ReviewArgs),
    /// Reduce a failing test while it fails the same way (same kind, same
    /// innermost frames).
    Reduce(ReduceArgs),
    /// Run a test once and print its failure's signature (kind and stack).
    Signature(SignatureArgs),
    /// Where a campaign's tests came from: one test's trail back to its
    /// seed, or what each seed and each operator led to.
    Provenance(ProvenanceArgs),
    /// Check a grammar against sample inputs, learn its probabilities from
    /// them (or invert them), and generate inputs.
    Grammar(GrammarArgs),
}

#[derive(Args)]
pub struct GrammarArgs {
    /// The grammar (the Fuzzing Book's JSON form).
    #[arg(value_name = "GRAMMAR")]
    pub grammar: PathBuf,
    /// Sample inputs (a directory, or files): each is parsed; the
    /// alternatives' uses in their trees give the learned probabilities.
    #[arg(long, value_name = "PATH", num_args = 1..)]
    pub samples: Vec<PathBuf>,
    /// The probabilities to generate with and print: `uniform` (as the
    /// file gives them), `learned`, `inverse` (reciprocals of the learned
    /// ones) or `rank-swap` (the learned ones swapped by rank).
    #[arg(long, default_value = "learned", value_name = "MODE")]
    pub mode: String,
    /// Inputs to generate (into --output, or on standard output, one per
    /// line, when there is none).
    #[arg(short = 'n', long, default_value_t = 0, value_name = "N")]
    pub count: usize,
    /// Directory for the generated inputs (one file each).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Most nonterminal nodes of a generated input.
    #[arg(long, default_value_t = 400, value_name = "N")]
    pub max_nodes: usize,
    /// Seed of the generator.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Write the grammar with the mode's probabilities (JSON).
    #[arg(long, value_name = "FILE")]
    pub write: Option<PathBuf>,
}

#[derive(Args)]
pub struct ProvenanceArgs {
    /// The campaign directory (`bridge run -o`).
    #[arg(value_name = "OUT")]
    pub output: PathBuf,
    /// A test of the campaign (its path under OUT, or its file name): its
    /// trail. Without it, the summary per seed and per operator.
    #[arg(value_name = "TEST")]
    pub test: Option<String>,
    /// Print it as JSON.
    #[arg(long)]
    pub json: bool,
    /// Strip the recorded labels of the latest queue entries, rebuild them
    /// greedily from the seeds and ancestors (pseudo-provenance, what a
    /// test whose labels were lost gets) and say how the two agree.
    #[arg(long, conflicts_with = "test")]
    pub rebuild: bool,
    /// How many queue entries `--rebuild` measures, and how many tests
    /// kept without labels the summary rebuilds.
    #[arg(long, default_value_t = 1000, value_name = "N")]
    pub limit: usize,
}

#[derive(Args)]
pub struct SignatureArgs {
    /// The test.
    #[arg(value_name = "TEST")]
    pub test: PathBuf,
    /// Frames of the stack in the key that tells failures apart.
    #[arg(long, default_value_t = 3, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=32))]
    pub depth: u8,
    /// Print it as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub target: TargetArgs,
}

#[derive(Args)]
pub struct ReviewArgs {
    /// The campaign directory (`bridge run -o`).
    #[arg(value_name = "OUT")]
    pub output: PathBuf,
    /// Frames of the stack that tell two failures apart.
    #[arg(long, default_value_t = 3, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=32))]
    pub depth: u8,
    /// Write the failures as SARIF 2.1.0 here.
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,
    /// Write a self-contained HTML report (`DIR/index.html`).
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,
    /// Do not reduce the first reproducer of each signature.
    #[arg(long)]
    pub no_reduce: bool,
    /// Most runs one reduction may make.
    #[arg(long, default_value_t = 2000, value_name = "N")]
    pub max_runs: usize,
    /// Print the review as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct ReduceArgs {
    /// The failing test.
    #[arg(value_name = "TEST")]
    pub test: PathBuf,
    /// Where the reduced test goes.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
    /// Frames of the stack the reduced test must keep.
    #[arg(long, default_value_t = 3, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=32))]
    pub depth: u8,
    /// Most runs the reduction may make.
    #[arg(long, default_value_t = 2000, value_name = "N")]
    pub max_runs: usize,
    #[command(flatten)]
    pub target: TargetArgs,
}

/// The full per-run time limit when `-t` is not given.
pub const DEFAULT_TIMEOUT_MS: u64 = 1000;

impl TargetArgs {
    /// The full per-run time limit.
    pub fn timeout_ms(&self) -> u64 {
        self.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS)
    }
}

/// How to run the target: shared by the subcommands that run it.
#[derive(Args, Clone)]
pub struct TargetArgs {
    /// Per-run time limit in milliseconds [default: 1000]. When it is not
    /// given, `bridge run` limits runs to a few times what the seeds take
    /// (at least 20 ms) and runs again under 1000 ms every run that
    /// exceeds that before counting it as a hang.
    #[arg(short = 't', long = "timeout", value_name = "MS")]
    pub timeout_ms: Option<u64>,
    /// Memory (address-space) limit of the target in MiB; 0 for none. For a
    /// program built with AddressSanitizer, whose shadow memory reserves
    /// terabytes of address space, it limits ASan's allocator instead
    /// (`malloc_limit_mb`), as AFL++ runs such programs without an
    /// address-space limit.
    #[arg(short = 'm', long = "mem-limit", default_value_t = 1024, value_name = "MB")]
    pub mem_limit_mb: u64,
    /// With a program built with AddressSanitizer: look for memory leaks
    /// at exit (LeakSanitizer); a leak is then a failure. Off by default,
    /// as fuzzers run such programs. Sanitizer options of your own
    /// (`ASAN_OPTIONS`, `UBSAN_OPTIONS`) come after ours and win.
    #[arg(long)]
    pub detect_leaks: bool,
    /// Runs a child of a libFuzzer harness (built with `carve-clang
    /// -fsanitize=fuzzer`) makes before it exits: persistent mode, as
    /// AFL++ runs a harness. 1: a fork per run. A crash in a child that
    /// ran other inputs first is run again in a fresh child, and kept only
    /// when it repeats there. Programs with their own `main` and runs that
    /// carve, replay or look for leaks always fork per run.
    #[arg(long, default_value_t = ::exec::target::DEFAULT_PERSISTENT, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub persistent: u32,
    /// Let the target's stdout and stderr through.
    #[arg(long)]
    pub show_output: bool,
    /// The first line of each test holds arguments (split as a shell
    /// splits words), put before the ones given here; the rest of the test
    /// is the input (the `@@` file, or stdin).
    #[arg(long)]
    pub args_in_input: bool,
    /// Run the target in bridge's working directory, as bridge's user,
    /// without the file-size and CPU limits (default: contained).
    #[arg(long)]
    pub no_contain: bool,
    /// The input is also the file at PATH for the target: a file it reads
    /// where no argument names it, often through libc (`/etc/passwd` for
    /// `getpwent`, `/etc/hosts` for `gethostbyname`). The target runs in a
    /// mount namespace of its own with the input mounted over PATH; the
    /// machine's file is not touched. Without `@@`, standard input is
    /// /dev/null. Needs root. Give it to every command that runs the
    /// target (`carve`, `explore`, `review`...).
    #[arg(long, value_name = "PATH")]
    pub input_at: Option<std::path::PathBuf>,
    /// The target and its arguments; `@@` stands for the input file (stdin
    /// carries the input when there is none).
    #[arg(last = true, required = true, value_name = "PROG [ARGS]")]
    pub command: Vec<String>,
}

#[derive(Args)]
pub struct ShowmapArgs {
    /// Input file (default: standard input).
    #[arg(short = 'i', long = "input", value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Write the edge list here instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Print edge ids only, without hit-count buckets.
    #[arg(long)]
    pub edges_only: bool,
    #[command(flatten)]
    pub target: TargetArgs,
}

#[derive(Args)]
pub struct ExecArgs {
    /// Directory of inputs (every regular file in it, sorted by name).
    #[arg(short = 'c', long = "corpus", value_name = "DIR")]
    pub corpus: PathBuf,
    /// Run the corpus this many times (for measuring throughput).
    #[arg(long, default_value_t = 1, value_name = "N")]
    pub repeat: u32,
    /// Print the summary as JSON on standard output.
    #[arg(long)]
    pub json: bool,
    /// Cumulative coverage across invocations: read from FILE when it
    /// exists, written back at the end.
    #[arg(long, value_name = "FILE")]
    pub state: Option<PathBuf>,
    /// Copy the inputs that add coverage (new edges or hit counts) here.
    #[arg(long, value_name = "DIR")]
    pub save_new: Option<PathBuf>,
    #[command(flatten)]
    pub target: TargetArgs,
}

#[derive(Args)]
pub struct RunArgs {
    /// System-level generator: `radamsa-like` (mutation), `grammar`
    /// (derivations of --grammar, edited in the corpus's parse trees),
    /// `gnast` (a generative network trained on the most unusual
    /// executions; see --gnast-*) or `afl++` (none of its own: the tests
    /// AFL++ instances queue in the --sync directory).
    #[arg(long, default_value = "radamsa-like", value_name = "NAME")]
    pub system: String,
    /// The grammar of the system tests (the Fuzzing Book's JSON form), for
    /// `--system grammar`. With --args-in-input it derives the command
    /// line too.
    #[arg(long, value_name = "FILE")]
    pub grammar: Option<PathBuf>,
    /// Which probabilities new derivations follow: `uniform` (as the file
    /// gives them), `learned` from the corpus's parse trees, `inverse`
    /// (the learned ones inverted: rare and unseen alternatives first), or
    /// `mixed` (uniform, learned and inverse, a third of the tests each).
    #[arg(long, default_value = "mixed", value_name = "MODE", requires = "grammar")]
    pub mode: String,
    /// Unit-level generator: `symbolic` (the bridge: z3 explores carved
    /// units), `fuzz` (mutation of their parameters) or `none` (system
    /// testing alone, for baselines).
    #[arg(long, default_value = "symbolic", value_name = "NAME")]
    pub unit: String,
    /// The unit level carves and explores only the functions whose names
    /// match this regex (your own code in a large library, say); coverage
    /// counts every function all the same. Default: all.
    #[arg(long, value_name = "REGEX", value_parser = a_regex)]
    pub functions: Option<String>,
    /// Keep system tests as they were made. By default kept tests are
    /// trimmed as AFL++ trims its queue, when they come up as parents:
    /// before each batch, up to 4 favoured entries not yet trimmed lose
    /// the chunks whose cut keeps the same edges in the same hit-count
    /// buckets (at most 128 runs a test, counted in the execs; seeds, the
    /// command line of a test that carries one, and tests a grammar
    /// derived, are left whole).
    #[arg(long)]
    pub no_trim: bool,
    /// A dictionary file in AFL++'s format (`-x`; libFuzzer's `.dict`
    /// files are the same): its tokens go into tests, inserted or written
    /// over bytes. May be given more than once.
    #[arg(long, short = 'x', value_name = "FILE")]
    pub dict: Vec<PathBuf>,
    /// Leave out the program's own dictionary. By default the system
    /// generator also inserts the constants the program's code compares
    /// with (switch cases, `==` constants, strings given to `strcmp` and
    /// `memcmp`), which carve-clang collects at compile time.
    #[arg(long)]
    pub no_auto_dict: bool,
    /// Leave the campaign unbound. By default it binds itself and its
    /// targets to one core that no other process is bound to alone, as
    /// AFL++ binds itself: runs hand over between processes at every exec,
    /// and across cores each hand-over waits for a wake-up (png-fuzz
    /// without the unit level: about 14k execs/s free, 40k bound). The
    /// campaign then runs as on a one-core machine (the solver thread
    /// shares the core; see the unit level's share). A campaign started on
    /// one core already (`taskset -c N`) stays there; when every core is
    /// taken, it runs unbound and says so.
    #[arg(long)]
    pub no_bind: bool,
    /// Directory of seed inputs.
    #[arg(short = 'i', long = "input", value_name = "DIR", required_unless_present = "resume")]
    pub input: Option<PathBuf>,
    /// Campaign directory (must not exist, unless --resume); with --sync,
    /// `SYNC/NAME`.
    #[arg(short = 'o', long = "output", value_name = "DIR", required_unless_present = "sync")]
    pub output: Option<PathBuf>,
    /// An AFL++ sync directory (`afl-fuzz -o DIR`): the campaign is its
    /// instance `DIR/NAME`, imports what the other instances queue, and
    /// queues what it finds where they import it from. With `--system
    /// afl++` its system tests are those imports alone.
    #[arg(long, value_name = "DIR")]
    pub sync: Option<PathBuf>,
    /// The campaign's instance name in the sync directory.
    #[arg(long, default_value = "bridge", value_name = "NAME", requires = "sync")]
    pub name: String,
    /// Time budget, execution included: 90 (seconds), 30s, 15m, 2h.
    #[arg(long, default_value = "15m", value_name = "DURATION", value_parser = parse_duration)]
    pub time: f64,
    /// Seed of the generators' randomness.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Tests generated per batch.
    #[arg(long, default_value_t = 100, value_name = "N")]
    pub batch: usize,
    /// Which tests the system generator mutates: `all` (the seeds and
    /// every test kept for new coverage, but those that ran past the
    /// calibrated time limit), `seeds` (the seeds only, no coverage
    /// feedback, as radamsa alone is used), `diverse` (the seeds and the
    /// farthest-first half of what `all` takes, by the branch outcomes
    /// each reaches: GNAST's culling of the redundant tail) or `sample`
    /// (the seeds and a random half, the control for `diverse`).
    #[arg(long, default_value = "all", value_parser = clap::builder::PossibleValuesParser::new(Parents::NAMES).map(|s| s.parse::<Parents>().expect("a known name")), value_name = "WHICH")]
    pub parents: Parents,
    /// Continue the campaign in --output (its configuration is kept; --time
    /// sets the new total budget).
    #[arg(long)]
    pub resume: bool,
    /// Innermost frames of the program that tell two crashes (and two
    /// lifted alarms) apart: one of each signature is kept, the others
    /// counted.
    #[arg(long, default_value_t = 3, value_name = "N", value_parser = clap::value_parser!(u8).range(1..=32))]
    pub signature_depth: u8,
    #[command(flatten)]
    pub gnast: GnastArgs,
    #[command(flatten)]
    pub target: TargetArgs,
}

/// GNAST's sizes and cadence (`--system gnast`); each defaults to what
/// fits one core beside the fork server.
#[derive(Args, Default)]
pub struct GnastArgs {
    /// GNAST: dimensions of the latent space (the VAE's encodings, the
    /// generator's input). Default 16.
    #[arg(long, value_name = "N")]
    pub gnast_latent: Option<usize>,
    /// GNAST: the longest test the generator makes, in bytes (at most
    /// 4096). Default 128.
    #[arg(long, value_name = "BYTES")]
    pub gnast_max_len: Option<usize>,
    /// GNAST: tests run between two training passes. Default 512.
    #[arg(long, value_name = "N")]
    pub gnast_epoch: Option<usize>,
    /// GNAST: training steps of each network per pass. Default 4.
    #[arg(long, value_name = "N")]
    pub gnast_steps: Option<usize>,
    /// GNAST: executions kept to train on, the farthest-first prefix of
    /// what ran. Default 512.
    #[arg(long, value_name = "N")]
    pub gnast_keep: Option<usize>,
}

impl GnastArgs {
    /// The options given, over the defaults; `None` when none is.
    pub fn options(&self) -> Option<systemgen::GnastOptions> {
        let given = [self.gnast_latent, self.gnast_max_len, self.gnast_epoch, self.gnast_steps, self.gnast_keep];
        if given.iter().all(Option::is_none) {
            return None;
        }
        let d = systemgen::GnastOptions::default();
        Some(systemgen::GnastOptions {
            latent: self.gnast_latent.unwrap_or(d.latent),
            max_len: self.gnast_max_len.unwrap_or(d.max_len),
            epoch: self.gnast_epoch.unwrap_or(d.epoch),
            steps: self.gnast_steps.unwrap_or(d.steps),
            keep: self.gnast_keep.unwrap_or(d.keep),
            ..d
        })
    }
}

#[derive(Args)]
pub struct CarveArgs {
    /// Directory for the unit tests (created if needed).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: PathBuf,
    /// Carve the functions whose names match (default: all).
    #[arg(long, value_name = "REGEX")]
    pub functions: Option<String>,
    /// Most calls carved per function.
    #[arg(long, default_value_t = 5, value_name = "N")]
    pub max_per_function: u32,
    /// Byte budget of one snapshot's memory.
    #[arg(long, default_value_t = 1 << 20, value_name = "BYTES")]
    pub budget: u64,
    /// Input file (default: standard input).
    #[arg(short = 'i', long = "input", value_name = "FILE")]
    pub input: Option<PathBuf>,
    #[command(flatten)]
    pub target: TargetArgs,
}

#[derive(Args)]
pub struct ReplayArgs {
    /// A unit file, or a directory of them.
    pub unit: PathBuf,
    /// The instrumented program (default: the one the unit was carved from).
    #[arg(long, value_name = "PROG")]
    pub program: Option<PathBuf>,
    /// Per-replay time limit in milliseconds.
    #[arg(short = 't', long = "timeout", default_value_t = 2000, value_name = "MS")]
    pub timeout_ms: u64,
    /// Print the results as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct UnitsArgs {
    pub dir: PathBuf,
}

#[derive(Args)]
pub struct ShowArgs {
    pub unit: PathBuf,
}

#[derive(Args)]
pub struct FuzzUnitArgs {
    /// A unit file, or a directory of them.
    pub unit: PathBuf,
    /// Tries per unit.
    #[arg(long, default_value_t = 500, value_name = "N")]
    pub tries: usize,
    /// Unit-level generator.
    #[arg(long, default_value = "fuzz", value_name = "NAME")]
    pub unit_gen: String,
    /// Seed of the unit generator.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Where true alarms go (`OUT/alarms/<id>/`), and the system tests
    /// of coverage lifts (`OUT/lifts/`).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Print the results as JSON.
    #[arg(long)]
    pub json: bool,
    /// Restore the whole unit in every try instead of once in the unit
    /// fork server (slower; for comparison).
    #[arg(long)]
    pub restore_each_try: bool,
    /// The whole program, as for `bridge exec` (lifted inputs run here).
    #[command(flatten)]
    pub target: TargetArgs,
}

#[derive(Args)]
pub struct ExploreArgs {
    /// A unit file, or a directory of them.
    pub unit: PathBuf,
    /// Most symbolic runs per unit.
    #[arg(long, default_value_t = 200, value_name = "N")]
    pub tries: usize,
    /// Time limit of one solver query in milliseconds.
    #[arg(long, default_value_t = unitgen::SOLVER_TIMEOUT_MS, value_name = "MS")]
    pub solver_timeout: u32,
    /// Append every solver query to this file, as SMT-LIB.
    #[arg(long, value_name = "FILE")]
    pub smt_log: Option<PathBuf>,
    /// Where true alarms go (`OUT/alarms/<id>/`), and the system tests
    /// of coverage lifts (`OUT/lifts/`).
    #[arg(short = 'o', long = "output", value_name = "DIR")]
    pub output: Option<PathBuf>,
    /// Print the results as JSON.
    #[arg(long)]
    pub json: bool,
    /// The whole program, as for `bridge exec` (lifted inputs run here).
    #[command(flatten)]
    pub target: TargetArgs,
}

/// `90`, `30s`, `15m`, `2h` -> seconds (positive).
pub fn parse_duration(s: &str) -> Result<f64, String> {
    let s = s.trim();
    let (num, unit) = match s.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let n: f64 = num.parse().map_err(|_| format!("'{s}' is no duration: use e.g. 90, 30s, 15m, 2h"))?;
    let scale = match unit {
        "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        _ => return Err(format!("unknown unit in '{s}': use s, m or h")),
    };
    if !(n > 0.0 && n.is_finite()) {
        return Err("the duration must be positive".into());
    }
    Ok(n * scale)
}

/// A `--functions` value: a regex that compiles, checked before anything
/// starts.
fn a_regex(s: &str) -> Result<String, String> {
    regex::Regex::new(s).map(|_| s.to_string()).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn durations() {
        assert_eq!(super::parse_duration("90").unwrap(), 90.0);
        assert_eq!(super::parse_duration("15m").unwrap(), 900.0);
        assert_eq!(super::parse_duration("1.5h").unwrap(), 5400.0);
        assert!(super::parse_duration("5d").is_err());
        assert!(super::parse_duration("-1").is_err());
    }
}
