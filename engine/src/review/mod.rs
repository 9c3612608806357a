//! A campaign reviewed (`bridge review`): its failures (lifted true
//! alarms, crashes and hangs of system runs), each run once more with the
//! stack asked for, grouped by signature, the first of each group reduced.
//! Signatures and reductions are kept in the campaign directory
//! (`alarms/<id>/signature.json`, `review/`), so a second review runs
//! nothing again. What the HTML page shows is in `page.rs`.

mod page;

use crate::campaign::state::CampaignFile;
use crate::{Error, FileContext, Result};
use model::alarm::{Alarm, Signature};
use model::layout;
use review::identity::Identity;
use review::table::{Finding, Group};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

pub use page::html;

/// How the review goes.
pub struct Options {
    /// Innermost frames of the program in a signature.
    pub depth: usize,
    /// Reduce the first reproducer of each signature.
    pub reduce: bool,
    /// Most runs a reduction may take.
    pub max_runs: usize,
}

/// A campaign's failures, grouped.
pub struct Reviewed {
    pub campaign: CampaignFile,
    pub target: exec::Target,
    pub groups: Vec<Group>,
    /// Each finding's test, by its path in the campaign directory.
    pub inputs: HashMap<String, PathBuf>,
    /// The sanitizer reports of findings that ended in one.
    pub reports: HashMap<String, String>,
    /// Kept failures that did not fail again.
    pub not_failing: usize,
    /// How a reproducer runs (see [`shown_command`]).
    pub command: String,
}

/// A failure on disk, with what the review needs of it.
struct Found {
    finding: Finding,
    input: PathBuf,
    /// Where its signature is kept.
    cache: PathBuf,
}

/// Reviews the campaign in `root`. Says on stderr when no symbolizer is
/// found (frames are then named by module and offset).
pub fn review(root: &Path, opts: &Options) -> Result<Reviewed> {
    let file = std::fs::read(root.join(layout::CAMPAIGN_FILE)).map_err(|e| {
        Error::Refused(format!("{} is not a campaign directory (no campaign.json): {e}", root.display()))
    })?;
    let campaign = CampaignFile::decode(&file)?;
    let target = campaign_target(&campaign)?;
    let symbolizer = review::symbolize::find();
    if symbolizer.is_none() {
        eprintln!("bridge review: no llvm-symbolizer-19 found: frames are named by module and offset");
    }
    let mut signed = Vec::new();
    let mut not_failing = 0;
    for f in findings(root, &campaign)? {
        match signature(&f, &target, symbolizer.as_deref())? {
            Some(s) => signed.push((f, s)),
            None => not_failing += 1,
        }
    }
    let inputs: HashMap<String, PathBuf> =
        signed.iter().map(|(f, _)| (f.finding.path.clone(), f.input.clone())).collect();
    let reports: HashMap<String, String> = signed
        .iter()
        .filter_map(|(f, _)| Some((f.finding.path.clone(), std::fs::read_to_string(report_path(&f.cache)).ok()?)))
        .collect();
    let mut groups = review::table::group(signed.into_iter().map(|(f, s)| (f.finding, s)).collect(), opts.depth);
    if opts.reduce {
        for g in &mut groups {
            let first = &inputs[&g.findings[0].path];
            g.reduced = reduced(root, g, first, &target, opts.depth, opts.max_runs)?;
        }
    }
    let command = shown_command(&campaign);
    Ok(Reviewed { campaign, target, groups, inputs, reports, not_failing, command })
}

impl Reviewed {
    /// The line of group `g`'s sanitizer report that says what went
    /// wrong, without the report's `==PID==` prefix.
    pub fn report_line(&self, g: &Group) -> Option<&str> {
        let report = self.reports.get(&g.findings[0].path)?;
        let line = report.lines().find(|l| is_report_line(l))?;
        Some(line.trim_start_matches('=').trim_start_matches(|c: char| c.is_ascii_digit()).trim_start_matches('='))
    }
}

/// The target the campaign ran, with its time limit and input mode.
fn campaign_target(c: &CampaignFile) -> Result<exec::Target> {
    let command = c.config.command_from_anywhere();
    let (program, rest) =
        command.split_first().ok_or_else(|| Error::Refused("campaign.json names no command".into()))?;
    // The program a libtool wrapper runs: its frames are symbolized from
    // it, not from the script.
    let (program, env) = exec::libtool::unwrap(&exec::forkserver::resolve(Path::new(program))?)?;
    let mut t = exec::Target::new(program, rest.to_vec());
    t.env = env;
    t.detect_leaks = c.config.detect_leaks;
    t.timeout = Duration::from_millis(c.config.timeout_ms.max(1));
    t.args_in_input = c.config.args_in_input;
    Ok(t)
}

/// How a reproducer runs on the program (instrumented or not), `FILE`
/// standing for the test: a command for a shell, from any directory.
pub fn shown_command(c: &CampaignFile) -> String {
    let command = c.config.command_from_anywhere();
    let file = command.iter().any(|w| w.contains("@@"));
    let quote = |w: &String| {
        let q = shlex::try_quote(w).map(|q| q.into_owned()).unwrap_or_else(|_| w.clone());
        q.replace("@@", "FILE")
    };
    let words: Vec<String> = command.iter().map(quote).collect();
    let shown = words.join(" ");
    match (c.config.args_in_input, file) {
        (true, _) => {
            format!("{} WORDS {} (WORDS: the first line of FILE; FILE: the rest)", words[0], words[1..].join(" "))
        }
        (false, true) => shown,
        (false, false) => format!("{shown} < FILE"),
    }
}

/// Every failure the campaign kept: lifted alarms, then system crashes
/// and hangs (their time from the file's age against the first seed's).
fn findings(root: &Path, c: &CampaignFile) -> Result<Vec<Found>> {
    let mut out = Vec::new();
    for dir in sorted_dir(&root.join(layout::ALARMS)) {
        let report = dir.join(layout::ALARM_REPORT);
        let Ok(bytes) = std::fs::read(&report) else { continue };
        let a = match Alarm::from_json(&bytes) {
            Ok(a) => a,
            Err(e) => {
                eprintln!("bridge review: skipping {}: {e}", report.display());
                continue;
            }
        };
        let name = dir.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let input = dir.join(layout::ALARM_INPUT);
        let how = format!(
            "unit {}() parameter {} ({}): {} -> {:?}",
            a.function,
            a.parameter,
            a.site,
            a.generator_op,
            short(&a.new_value)
        );
        let size = std::fs::metadata(&input).map(|m| m.len() as usize).unwrap_or(0);
        let count = c.stats.alarm_counts.get(&name).copied().unwrap_or(1);
        let finding =
            Finding { path: format!("{}/{name}", layout::ALARMS), how, found_after_s: a.found_after_s, size, count };
        out.push(Found { finding, input, cache: dir.join("signature.json") });
    }
    let start = sorted_dir(&root.join(layout::QUEUE)).first().and_then(|p| modified(p));
    for kind in [layout::CRASHES, layout::HANGS] {
        for path in sorted_dir(&root.join(kind)) {
            let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
            let when = match (modified(&path), start) {
                (Some(m), Some(s)) => m.duration_since(s).ok().map(|d| d.as_secs_f64()),
                _ => None,
            };
            let size = std::fs::metadata(&path).map(|m| m.len() as usize).unwrap_or(0);
            let how = format!("system ({})", c.config.system);
            let id = name.strip_prefix("id:").and_then(|n| n.split(',').next()).unwrap_or("");
            let counts = if kind == layout::CRASHES { &c.stats.crash_counts } else { &c.stats.hang_counts };
            let count = counts.get(id).copied().unwrap_or(1);
            let finding = Finding { path: format!("{kind}/{name}"), how, found_after_s: when, size, count };
            let cache = root.join(layout::REVIEW).join(kind).join(format!("{name}.signature.json"));
            out.push(Found { finding, input: path, cache });
        }
    }
    Ok(out)
}

fn short(s: &str) -> String {
    let mut t: String = s.chars().take(40).collect();
    if s.chars().count() > 40 {
        t.push('…');
    }
    t
}

fn modified(p: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

pub(crate) fn sorted_dir(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')))
        .collect();
    v.sort();
    v
}

/// The failure's signature, from its cache or from a run (then cached).
/// `None` when it no longer fails. Hangs get twice the time limit.
fn signature(f: &Found, target: &exec::Target, symbolizer: Option<&Path>) -> Result<Option<Signature>> {
    if let Ok(bytes) = std::fs::read(&f.cache) {
        if let Ok(s) = serde_json::from_slice::<Option<Signature>>(&bytes) {
            return Ok(s);
        }
    }
    let test = std::fs::read(&f.input).at("read", &f.input)?;
    let timeout = target.timeout * 2;
    let found = review::signature::of_test(target, &test, timeout, symbolizer)?;
    if let Some(dir) = f.cache.parent() {
        std::fs::create_dir_all(dir).at("create", dir)?;
    }
    if let Some(report) = found.as_ref().and_then(|(_, dump)| dump.report.as_deref()) {
        driver::files::write_atomic(&report_path(&f.cache), report.as_bytes())?;
    }
    let s = found.map(|(s, _)| s);
    driver::files::write_atomic(&f.cache, serde_json::to_string_pretty(&s)?.as_bytes())?;
    Ok(s)
}

/// Where a failure's sanitizer report is kept, beside its signature.
fn report_path(cache: &Path) -> PathBuf {
    cache.with_extension("report.txt")
}

/// The line of a sanitizer's report that says what went wrong.
fn is_report_line(line: &str) -> bool {
    line.contains("ERROR: AddressSanitizer:")
        || line.contains("ERROR: LeakSanitizer:")
        || line.contains("runtime error:")
}

/// Where group `g`'s reduced reproducer is kept.
pub fn reduced_path(root: &Path, g: &Group) -> PathBuf {
    root.join(layout::REVIEW).join(review::sarif::fingerprint(&g.key)).join(layout::REDUCED)
}

/// The group's first reproducer reduced (kept beside its original in
/// `review/<fingerprint>/`): its size, `None` for a hang (each try
/// would wait for the time limit).
fn reduced(
    root: &Path,
    g: &Group,
    first: &Path,
    target: &exec::Target,
    depth: usize,
    max_runs: usize,
) -> Result<Option<usize>> {
    if g.signature.kind == model::alarm::FailureKind::Hang {
        return Ok(None);
    }
    let path = reduced_path(root, g);
    if let Ok(b) = std::fs::read(&path) {
        return Ok(Some(b.len()));
    }
    let test = std::fs::read(first).at("read", first)?;
    let Some(r) = reduce_test(target, &test, depth, max_runs)? else { return Ok(None) };
    let dir = path.parent().expect("under review/");
    std::fs::create_dir_all(dir).at("create", dir)?;
    driver::files::write_atomic(&dir.join(layout::ALARM_ORIGINAL), &test)?;
    driver::files::write_atomic(&path, &r.test)?;
    Ok(Some(r.test.len()))
}

/// `test` reduced while it fails with the same signal at the same
/// innermost `depth` places of the program; `None` when it does not fail.
pub fn reduce_test(
    target: &exec::Target,
    test: &[u8],
    depth: usize,
    max_runs: usize,
) -> Result<Option<review::reduce::Reduced>> {
    let timeout = target.timeout;
    let (ran, dump) = review::stack::run(target, test, timeout)?;
    let review::stack::Ran::Signal(sig) = ran else { return Ok(None) };
    // The same signal at the same places; for a sanitizer's report, the
    // same report type too.
    let identity = |d: &review::stack::Dump| Identity::of_run(d, d.report.as_deref(), &target.program, depth);
    let own = identity(&dump);
    let mut failure = None;
    let mut same = |t: &[u8]| match review::stack::run(target, t, timeout) {
        Ok((review::stack::Ran::Signal(s), d)) => s == sig && identity(&d) == own,
        Ok(_) => false,
        Err(e) => {
            failure.get_or_insert(e);
            false
        }
    };
    let r = review::reduce::reduce(test, target.args_in_input, max_runs, &mut same);
    if let Some(e) = failure {
        return Err(e.into());
    }
    Ok(Some(r))
}
