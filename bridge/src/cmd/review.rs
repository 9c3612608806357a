//! `bridge review OUT`: the campaign's failures (lifted true alarms,
//! crashes and hangs of system runs), each run once more with the stack
//! asked for, grouped by signature, the first of each group reduced; a
//! table, an HTML page and SARIF on request. Signatures and reductions are
//! kept in the campaign directory (`alarms/<id>/signature.json`,
//! `review/`), so a second review runs nothing again.

use crate::cli::ReviewArgs;
use anyhow::Context;
use engine::campaign::state::CampaignFile;
use model::alarm::{Alarm, Signature};
use model::layout;
use review::table::{Finding, Group};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A failure on disk, with what the review needs of it.
struct Found {
    finding: Finding,
    input: PathBuf,
    /// Where its signature is kept.
    cache: PathBuf,
}

pub fn run(args: ReviewArgs) -> anyhow::Result<i32> {
    let root = &args.output;
    let file = std::fs::read(root.join(layout::CAMPAIGN_FILE))
        .with_context(|| format!("{} is not a campaign directory (no campaign.json)", root.display()))?;
    let campaign = CampaignFile::decode(&file)?;
    let target = campaign_target(&campaign)?;
    let symbolizer = review::symbolize::find();
    if symbolizer.is_none() {
        eprintln!("bridge review: no llvm-symbolizer-19 found: frames are named by module and offset");
    }
    let found = findings(root, &campaign)?;
    let depth = usize::from(args.depth);
    let mut signed = Vec::new();
    let mut not_failing = 0;
    for f in found {
        match signature(&f, &target, symbolizer.as_deref())? {
            Some(s) => signed.push((f, s)),
            None => not_failing += 1,
        }
    }
    let inputs: std::collections::HashMap<String, PathBuf> =
        signed.iter().map(|(f, _)| (f.finding.path.clone(), f.input.clone())).collect();
    let reports: std::collections::HashMap<String, String> = signed
        .iter()
        .filter_map(|(f, _)| Some((f.finding.path.clone(), std::fs::read_to_string(report_path(&f.cache)).ok()?)))
        .collect();
    let mut groups = review::table::group(signed.into_iter().map(|(f, s)| (f.finding, s)).collect(), depth);
    if !args.no_reduce {
        for g in &mut groups {
            let first = &inputs[&g.findings[0].path];
            g.reduced = reduced(root, g, first, &target, depth, args.max_runs)?;
        }
    }
    let command = shown_command(&campaign);
    if args.json {
        let rows: Vec<_> = groups
            .iter()
            .map(|g| {
                serde_json::json!({
                    "signature": g.signature, "key": g.key, "count": g.count(),
                    "fingerprint": review::sarif::fingerprint(&g.key),
                    "findings": g.findings.iter().map(|f| &f.path).collect::<Vec<_>>(),
                    "found_after_s": g.findings.iter().map(|f| f.found_after_s).collect::<Vec<_>>(),
                    "inputs": g.findings.iter().map(|f| &inputs[&f.path]).collect::<Vec<_>>(),
                    "reduced": g.reduced.map(|_| reduced_path(root, g)),
                    "reduced_size": g.reduced,
                })
            })
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({ "signatures": rows, "not_failing": not_failing }))?
        );
    } else {
        print!("{}", review::table::render(&groups));
        for (k, g) in groups.iter().enumerate() {
            let error = reports.get(&g.findings[0].path).and_then(|r| r.lines().find(|l| is_report_line(l)));
            if let Some(line) = error {
                println!(
                    "{k:>3}  {}",
                    line.trim_start_matches('=')
                        .trim_start_matches(|c: char| c.is_ascii_digit())
                        .trim_start_matches('=')
                );
            }
        }
        let total: u64 = groups.iter().map(|g| g.count()).sum();
        println!(
            "bridge review: {total} failing run{}, {} signature{} (kind and {depth} innermost frames of the program); reproduce one with: {command}",
            if total == 1 { "" } else { "s" },
            groups.len(),
            if groups.len() == 1 { "" } else { "s" }
        );
        if !args.no_reduce && !groups.is_empty() {
            println!("bridge review: reduced reproducers in {}", root.join(layout::REVIEW).display());
        }
        if not_failing > 0 {
            println!("bridge review: {not_failing} kept failures did not fail again (flaky, or they need the campaign's limits)");
        }
    }
    if let Some(dir) = &args.html {
        let pages: Vec<review::html::Page<'_>> =
            groups.iter().map(|g| page(root, g, &inputs[&g.findings[0].path], &command, &reports)).collect();
        let csv = std::fs::read_to_string(root.join(layout::COVERAGE_CSV)).ok();
        let title = format!("bridge review of {}", campaign.config.command.join(" "));
        let functions = match function_coverage(root, &target) {
            Ok(f) => Some(f),
            Err(e) => {
                eprintln!("bridge review: no per-function coverage in the report: {e:#}");
                None
            }
        };
        let tables = provenance_tables(root);
        let html = review::html::render(&title, &pages, csv.as_deref(), functions.as_deref(), &tables);
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        driver::files::write_atomic(&dir.join("index.html"), html.as_bytes())?;
        if !args.json {
            println!("bridge review: HTML report in {}", dir.join("index.html").display());
        }
    }
    if let Some(path) = &args.sarif {
        let log = review::sarif::report(&groups, env!("CARGO_PKG_VERSION"), &command);
        driver::files::write_atomic(path, serde_json::to_string_pretty(&log)?.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(0)
}

/// Branch outcomes per function that the queue's tests cover (each run
/// once more through a fork server), most outcomes first.
fn function_coverage(root: &Path, target: &::exec::Target) -> anyhow::Result<Vec<(String, u32, u32)>> {
    let program = ::exec::forkserver::resolve(&target.program)?;
    let functions = driver::carve::list_functions(&program, &target.args)?;
    let mut fs = ::exec::ForkServer::start(target.clone())?;
    let mut cov = ::exec::Coverage::default();
    for test in sorted_dir(&root.join(layout::QUEUE)) {
        let bytes = std::fs::read(&test).with_context(|| format!("cannot read {}", test.display()))?;
        fs.run(&bytes)?;
        cov.add(fs.map());
    }
    let mut out: Vec<(String, u32, u32)> = functions
        .into_iter()
        .filter(|f| f.branches > 0)
        .map(|f| {
            let covered = (f.first_branch..f.first_branch + f.branches).filter(|&s| cov.is_covered(s as usize)).count();
            (f.name, covered as u32, f.branches)
        })
        .collect();
    out.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
    Ok(out)
}

/// What the HTML page shows of group `g`, whose first finding is `input`.
fn page<'a>(
    root: &Path,
    g: &'a Group,
    input: &Path,
    command: &str,
    reports: &std::collections::HashMap<String, String>,
) -> review::html::Page<'a> {
    let first = &g.findings[0].path;
    let original = std::fs::read(input).unwrap_or_default();
    let reduced = std::fs::read(reduced_path(root, g)).ok();
    let (parent, unit_c) = if first.starts_with(&format!("{}/", layout::ALARMS)) {
        let dir = root.join(first);
        let unit = std::fs::read(dir.join(layout::ALARM_UNIT)).ok().and_then(|b| model::unit::Unit::decode(&b).ok());
        (std::fs::read(dir.join(layout::ALARM_ORIGINAL)).ok(), unit.map(|u| carver::render_c(&u)))
    } else {
        // A system test's parent: `src:NNNNNN` in its name, in the queue.
        let src = first
            .split(',')
            .find_map(|w| w.strip_prefix("src:"))
            .map(|n| format!("id:{},", n.split('+').next().unwrap_or(n)));
        let parent = src.and_then(|p| {
            std::fs::read_dir(root.join(layout::QUEUE))
                .ok()?
                .flatten()
                .find(|e| e.file_name().to_string_lossy().starts_with(&p))
                .and_then(|e| std::fs::read(e.path()).ok())
        });
        (parent, None)
    };
    let source = g
        .signature
        .telling()
        .iter()
        .map(|f| {
            let text = std::fs::read_to_string(f.file.as_ref()?).ok()?;
            text.lines().nth(f.line? as usize - 1).map(|l| l.trim_end().to_string())
        })
        .collect();
    let shown = reduced_path(root, g);
    let test = if shown.exists() { shown } else { input.to_path_buf() };
    let command = command.replace("FILE", &test.display().to_string());
    let campaign = provenance::Campaign::read(root).ok();
    let trail = campaign
        .as_ref()
        .and_then(|c| c.trail(c.find(first).ok()?).ok())
        .unwrap_or_default()
        .into_iter()
        .map(|step| {
            let mut made =
                if step.ops.is_empty() { "a seed".to_string() } else { format!("made by {}", step.ops.join(" + ")) };
            let changes = campaign.as_ref().and_then(|c| c.changes(c.find(&step.path).ok()?).ok().flatten());
            for ch in changes.unwrap_or_default().iter().take(4) {
                made.push_str(&format!("; wrote {} at {} ({})", ch.text, ch.at, ch.by));
            }
            (step.path, made)
        })
        .collect();
    let report = reports.get(first).cloned();
    review::html::Page { group: g, original, reduced, parent, unit_c, source, command, trail, report }
}

/// What the seeds, their lines and the operators led to, for the report
/// (none when the campaign's provenance cannot be read).
fn provenance_tables(root: &Path) -> Vec<review::html::Table> {
    let Ok(c) = provenance::Campaign::read(root) else { return Vec::new() };
    let header = ["", "descendants", "lifts", "crashes", "hangs", "alarms"].map(String::from).to_vec();
    let rows = |mut v: Vec<provenance::Summary>| {
        v.sort_by_key(|s| std::cmp::Reverse((s.crashes + s.hangs + s.alarms, s.lifts, s.descendants)));
        v.into_iter()
            .take(20)
            .map(|s| {
                let n = [s.descendants, s.lifts, s.crashes, s.hangs, s.alarms].map(|x| x.to_string());
                std::iter::once(s.name).chain(n).collect()
            })
            .collect()
    };
    let table = |title: &str, v| review::html::Table { title: title.into(), header: header.clone(), rows: rows(v) };
    vec![
        table("What each seed led to", c.by_seed().0),
        table("What each line of the seeds led to", c.by_token().unwrap_or_default()),
        table("What each operator led to", c.by_operator()),
    ]
}

/// The target the campaign ran, with its time limit and input mode.
fn campaign_target(c: &CampaignFile) -> anyhow::Result<::exec::Target> {
    let command = c.config.command_from_anywhere();
    let (program, rest) = command.split_first().context("campaign.json names no command")?;
    // The program a libtool wrapper runs: its frames are symbolized from
    // it, not from the script.
    let (program, env) = ::exec::libtool::unwrap(&::exec::forkserver::resolve(Path::new(program))?)?;
    let mut t = ::exec::Target::new(program, rest.to_vec());
    t.env = env;
    t.detect_leaks = c.config.detect_leaks;
    t.timeout = Duration::from_millis(c.config.timeout_ms.max(1));
    t.args_in_input = c.config.args_in_input;
    Ok(t)
}

/// How a reproducer runs on the program (instrumented or not), `FILE`
/// standing for the test: a command for a shell, from any directory.
fn shown_command(c: &CampaignFile) -> String {
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
fn findings(root: &Path, c: &CampaignFile) -> anyhow::Result<Vec<Found>> {
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

fn sorted_dir(dir: &Path) -> Vec<PathBuf> {
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
fn signature(f: &Found, target: &::exec::Target, symbolizer: Option<&Path>) -> anyhow::Result<Option<Signature>> {
    if let Ok(bytes) = std::fs::read(&f.cache) {
        if let Ok(s) = serde_json::from_slice::<Option<Signature>>(&bytes) {
            return Ok(s);
        }
    }
    let test = std::fs::read(&f.input).with_context(|| format!("cannot read {}", f.input.display()))?;
    let timeout = target.timeout * 2;
    let found = review::signature::of_test(target, &test, timeout, symbolizer)?;
    if let Some(dir) = f.cache.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
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

fn reduced_path(root: &Path, g: &Group) -> PathBuf {
    root.join(layout::REVIEW).join(review::sarif::fingerprint(&g.key)).join(layout::REDUCED)
}

/// The group's first reproducer reduced (kept beside its original in
/// `review/<fingerprint>/`): its size, `None` for a hang (each try
/// would wait for the time limit).
fn reduced(
    root: &Path,
    g: &Group,
    first: &Path,
    target: &::exec::Target,
    depth: usize,
    max_runs: usize,
) -> anyhow::Result<Option<usize>> {
    if g.signature.kind == model::alarm::FailureKind::Hang {
        return Ok(None);
    }
    let path = reduced_path(root, g);
    if let Ok(b) = std::fs::read(&path) {
        return Ok(Some(b.len()));
    }
    let test = std::fs::read(first).with_context(|| format!("cannot read {}", first.display()))?;
    let Some(r) = super::reduce::reduce_test(target, &test, depth, max_runs)? else { return Ok(None) };
    let dir = path.parent().expect("under review/");
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    driver::files::write_atomic(&dir.join(layout::ALARM_ORIGINAL), &test)?;
    driver::files::write_atomic(&path, &r.test)?;
    Ok(Some(r.test.len()))
}
