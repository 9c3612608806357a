//! `campaign.json`: what a campaign was asked to do and how far it got.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Names the file format; `VERSION` changes when its meaning does.
pub const FORMAT: &str = "carve-bridge campaign";
pub const VERSION: u32 = 1;

/// What the user asked for.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Config {
    pub system: String,
    pub unit: String,
    pub seed: u64,
    pub time_budget_s: f64,
    pub command: Vec<String>,
    pub args_in_input: bool,
    /// The full per-run time limit.
    pub timeout_ms: u64,
    /// Runs are limited to a few times what the seeds take, and re-run
    /// under the full limit when they exceed it (no `-t` given).
    #[serde(default)]
    pub calibrate: bool,
    pub mem_limit_mb: u64,
    pub input_dir: PathBuf,
    pub batch: usize,
    /// Which tests the system generator mutates.
    #[serde(default)]
    pub parents: Parents,
    /// Innermost frames of the program that tell two crashes apart.
    #[serde(default = "default_depth")]
    pub signature_depth: usize,
    /// The grammar of `--system grammar` (absolute) and its mode.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grammar: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grammar_mode: Option<String>,
    /// The AFL++ sync directory (absolute) and the campaign's instance
    /// name in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync: Option<PathBuf>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sync_name: Option<String>,
    /// Whether runs of a program built with ASan look for leaks.
    #[serde(default)]
    pub detect_leaks: bool,
    /// The unit level's functions: those whose names match (all when
    /// absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub functions: Option<String>,
    /// Kept system tests are trimmed (`trim.rs`); campaigns from before
    /// trimming were not.
    #[serde(default)]
    pub trim: bool,
    /// The directory `command` was given in (absent in campaigns from
    /// before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<PathBuf>,
    /// GNAST's sizes and cadence (`--system gnast`; `None`: its defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gnast: Option<systemgen::GnastOptions>,
    /// The system generator takes tokens from the constants the program
    /// compares with (its dictionary, listed by the runtime).
    #[serde(default = "yes")]
    pub auto_dict: bool,
    /// Dictionary files in AFL++'s format (absolute).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dict: Vec<PathBuf>,
}

impl Config {
    /// `command` as it runs from any directory: a program given by a
    /// relative path, and arguments naming files relative to `cwd`, made
    /// absolute (a bare program name is still looked up in `PATH`).
    pub fn command_from_anywhere(&self) -> Vec<String> {
        let mut out = self.command.clone();
        let Some(cwd) = &self.cwd else { return out };
        if let Some(p) = out.first_mut() {
            let path = std::path::Path::new(p.as_str());
            if path.is_relative() && path.components().count() > 1 {
                *p = cwd.join(path).components().collect::<PathBuf>().to_string_lossy().into_owned();
            }
        }
        if out.len() > 1 {
            for (i, abs) in ::exec::path_args_in(cwd, &out[1..]) {
                out[i + 1] = abs;
            }
        }
        out
    }
}

fn default_depth() -> usize {
    3
}

fn yes() -> bool {
    true
}

/// The tests a campaign's system generator takes as parents.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Parents {
    /// The seeds and every test kept for new coverage (coverage-guided),
    /// but those that ran past the calibrated time limit.
    #[default]
    All,
    /// The seeds only, as a mutator such as radamsa is used on its own: no
    /// coverage feedback reaches generation (the paper's protocol).
    Seeds,
    /// The seeds and the farthest-first half of the other parents `All`
    /// takes, ranked by the branch outcomes they reach (`cull.rs`).
    Diverse,
    /// The seeds and a random half of the others (the control for
    /// `Diverse`).
    Sample,
}

impl Parents {
    /// The names `bridge run --parents` takes.
    pub const NAMES: [&'static str; 4] = ["all", "seeds", "diverse", "sample"];
}

impl std::str::FromStr for Parents {
    type Err = String;

    fn from_str(s: &str) -> Result<Parents, String> {
        match s {
            "all" => Ok(Parents::All),
            "seeds" => Ok(Parents::Seeds),
            "diverse" => Ok(Parents::Diverse),
            "sample" => Ok(Parents::Sample),
            _ => Err(format!("unknown parents '{s}' (known: {})", Parents::NAMES.join(", "))),
        }
    }
}

/// How far it got.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Stats {
    pub elapsed_s: f64,
    pub execs: u64,
    pub queue: u64,
    pub crashes: u64,
    pub unique_crashes: u64,
    pub hangs: u64,
    pub unique_hangs: u64,
    /// Crashing runs per crash kept (`crashes/id:NNNNNN,...`, by `NNNNNN`):
    /// those of its signature.
    #[serde(default)]
    pub crash_counts: std::collections::BTreeMap<String, u64>,
    /// Crashing runs that left no stack (the handler could not run) and
    /// showed no new edge among crashes: counted here only.
    #[serde(default)]
    pub crashes_unsigned: u64,
    /// Crashes of a persistent child (a harness's, which runs many inputs)
    /// that the input did not repeat when run again in a fresh child: the
    /// failure was the earlier runs', and the input counts as not crashing.
    #[serde(default)]
    pub crashes_not_repeated: u64,
    /// Hangs that left no stack and showed no new edge among hangs:
    /// counted here only (`hangs` = the sum of `hang_counts` and these).
    #[serde(default)]
    pub hangs_unsigned: u64,
    /// Hanging runs per hang kept, likewise (a hang's signature: the
    /// function it was in when the fork server asked).
    #[serde(default)]
    pub hang_counts: std::collections::BTreeMap<String, u64>,
    /// Lifted true alarms per alarm kept (`alarms/NNNNNN`): those of its
    /// signature.
    #[serde(default)]
    pub alarm_counts: std::collections::BTreeMap<String, u64>,
    pub resource_limits: u64,
    pub edges: u64,
    pub edges_total: u64,
    pub branches: u64,
    pub branches_total: u64,
    pub resumes: u32,
    pub finished: bool,
    /// The bridge (`--unit fuzz`): units analysed, tries, and what lifting
    /// made of the interesting values.
    #[serde(default)]
    pub units_analysed: u64,
    /// What the unit level tried and what lifting made of it.
    #[serde(flatten)]
    pub lifts: crate::lift::LiftCounts,
    #[serde(default)]
    pub unique_true_alarms: u64,
    /// Units with a digit-array parameter (dc's and bc's numbers).
    #[serde(default)]
    pub units_with_digit_arrays: u64,
    /// With a grammar: unit parameters whose occurrences are derivation
    /// nodes of their input, occurrences dropped for being no node (a
    /// chance substring), and lifted values offered to the generator.
    #[serde(default)]
    pub params_on_nodes: u64,
    #[serde(default)]
    pub occurrences_off_nodes: u64,
    /// Integer arguments mapped as a length: of a node another parameter
    /// maps to (`carver::align`), or of the bytes a pointer beside them
    /// points at (`carver::counts`).
    #[serde(default)]
    pub params_as_lengths: u64,
    #[serde(default)]
    pub values_offered: u64,
    /// Lifts that put a value in place of a derivation node, and those
    /// whose test the grammar no longer derives (not run).
    #[serde(default)]
    pub node_lifts: u64,
    #[serde(default)]
    pub node_lifts_unparsed: u64,
    /// Values lifted in place of a node, and those that parse as the
    /// node's nonterminal on their own.
    #[serde(default)]
    pub leaf_lifts: u64,
    #[serde(default)]
    pub leaf_lifts_parsed: u64,
    /// Node lifts whose every value that changes the test is on a node and
    /// parses as its node's nonterminal, and those of them whose test the grammar derives again
    /// (the rest: a value that parses differently in its context).
    #[serde(default)]
    pub node_lifts_valid: u64,
    #[serde(default)]
    pub node_lifts_valid_reparsed: u64,
    /// Units carved from queue entries, and of those the ones with at
    /// least one parameter mapped to the system input (the paper's
    /// Table 3).
    #[serde(default)]
    pub units_carved: u64,
    #[serde(default)]
    pub units_with_params: u64,
    /// Explorations of `main` with its input file's numbers padded so
    /// they can grow (`carver::grow`).
    #[serde(default)]
    pub main_grown: u64,
    /// Chosen units skipped because their replay, as carved, crashed or
    /// hung (not faithful: nothing they do could be trusted).
    #[serde(default)]
    pub units_unreplayable: u64,
    /// Units given up after tries that all timed out.
    #[serde(default)]
    pub units_given_up: u64,
    /// Unit rounds that ended in an error (reported, then skipped).
    #[serde(default)]
    pub unit_errors: u64,
    /// The unit generator's own counters (the symbolic explorer's traces
    /// and solver statistics).
    #[serde(default)]
    pub unit_generator: serde_json::Value,
    /// Seconds spent in unit rounds (carving, unit runs, lifting).
    #[serde(default)]
    pub unit_seconds: f64,
    /// The calibrated per-run limit in ms (0: the full limit throughout).
    #[serde(default)]
    pub timeout_calibrated_ms: u64,
    /// System runs that exceeded the calibrated limit and ran again under
    /// the full one; those that then finished (slow, not hung).
    #[serde(default)]
    pub timeouts_rechecked: u64,
    #[serde(default)]
    pub slow_runs: u64,
    /// Runs past the calibrated limit with new edges that were not run
    /// again: they had stopped where a kept hang loops.
    #[serde(default)]
    pub rechecks_spared: u64,
    /// Runs past the calibrated limit that showed no edge a timeout had
    /// not shown: not run again, so not known to hang, and not counted
    /// among the hangs.
    #[serde(default)]
    pub timeouts_unchecked: u64,
    /// Seconds of system runs stopped by a time limit.
    #[serde(default)]
    pub timeout_lost_s: f64,
    /// Entries of other instances' queues run (`--sync`), and those kept
    /// for new coverage.
    #[serde(default)]
    pub imported: u64,
    #[serde(default)]
    pub imported_kept: u64,
    /// Seconds spent waiting, with nothing to import, generate or explore
    /// (for other instances, or for the solver thread's next solutions).
    #[serde(default)]
    pub idle_s: f64,
    /// The system generator's own figures, by name (GNAST's epochs and
    /// losses, say; see `SystemGenerator::report`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub generator: std::collections::BTreeMap<String, f64>,
    /// Edges system runs (generated or imported) and lifts added to the
    /// campaign's coverage, and the unit level's current share of the
    /// time (see `units/levels.rs`).
    #[serde(default)]
    pub edges_by_system: u64,
    #[serde(default)]
    pub edges_by_units: u64,
    #[serde(default)]
    pub unit_share: f64,
    /// Trimming: tests trimmed, runs it took, bytes it cut.
    #[serde(default)]
    pub trimmed: u64,
    #[serde(default)]
    pub trim_runs: u64,
    #[serde(default)]
    pub trim_cut_bytes: u64,
    /// The dictionary the system generator was given: tokens from the
    /// program's comparisons, and from `--dict` files.
    #[serde(default)]
    pub tokens_auto: u64,
    #[serde(default)]
    pub tokens_given: u64,
}

impl Stats {
    pub fn branch_pct(&self) -> f64 {
        100.0 * self.branches as f64 / self.branches_total.max(1) as f64
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CampaignFile {
    pub format: String,
    pub version: u32,
    pub tool_version: String,
    pub config: Config,
    pub stats: Stats,
}

impl CampaignFile {
    pub fn new(config: Config) -> CampaignFile {
        CampaignFile {
            format: FORMAT.into(),
            version: VERSION,
            tool_version: env!("CARGO_PKG_VERSION").into(),
            config,
            stats: Stats::default(),
        }
    }

    /// Decodes `campaign.json`, with a clear error when it is not one.
    pub fn decode(bytes: &[u8]) -> crate::Result<CampaignFile> {
        let f: CampaignFile = serde_json::from_slice(bytes)
            .map_err(|e| crate::Error::Refused(format!("campaign.json is damaged or not a campaign file: {e}")))?;
        crate::error::ensure!(f.format == FORMAT, "campaign.json is not a campaign file (format {:?})", f.format);
        crate::error::ensure!(
            f.version == VERSION,
            "campaign.json has format version {} where this bridge reads {VERSION}",
            f.version
        );
        Ok(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Damaged `campaign.json` files (mutations of a real one) are errors,
    /// never panics (`DECODER_FUZZ_INPUTS`, as for the other decoders).
    #[test]
    fn damaged_campaign_files_are_errors_never_panics() {
        let config = Config {
            system: "radamsa-like".into(),
            unit: "symbolic".into(),
            seed: 7,
            time_budget_s: 60.0,
            command: vec!["./prog".into(), "@@".into()],
            args_in_input: false,
            timeout_ms: 1000,
            calibrate: true,
            sync: None,
            sync_name: None,
            cwd: None,
            gnast: None,
            detect_leaks: false,
            functions: None,
            trim: true,
            auto_dict: true,
            dict: Vec::new(),
            mem_limit_mb: 512,
            input_dir: "seeds".into(),
            batch: 64,
            parents: Parents::All,
            signature_depth: crate::campaign::signatures::DEFAULT_DEPTH,
            grammar: None,
            grammar_mode: None,
        };
        let mut file = CampaignFile::new(config);
        file.stats.execs = 12345;
        file.stats.crash_counts.insert("SIGSEGV in f <- main".into(), 3);
        let seed = serde_json::to_vec_pretty(&file).unwrap();
        let decode = |b: &[u8]| CampaignFile::decode(b).is_ok();
        let panics =
            model::fuzzing::fuzz("campaign state (campaign.json)", &seed, &|b| b, &decode, model::fuzzing::inputs());
        assert_eq!(panics, 0);
    }
}
