//! What the HTML report of a reviewed campaign shows: per signature, its
//! reproducers, its parent test or unit, its source lines and its trail;
//! for the campaign, its coverage per function and what its seeds, their
//! lines and the operators led to.

use super::{reduced_path, sorted_dir, Reviewed};
use crate::{FileContext, Result};
use model::layout;
use review::table::Group;
use std::collections::HashMap;
use std::path::Path;

/// The HTML page of `r`, the campaign in `root`.
pub fn html(r: &Reviewed, root: &Path) -> String {
    let pages: Vec<review::html::Page<'_>> =
        r.groups.iter().map(|g| page(root, g, &r.inputs[&g.findings[0].path], &r.command, &r.reports)).collect();
    let csv = std::fs::read_to_string(root.join(layout::COVERAGE_CSV)).ok();
    let title = format!("bridge review of {}", r.campaign.config.command.join(" "));
    let functions = match function_coverage(root, &r.target) {
        Ok(f) => Some(f),
        Err(e) => {
            eprintln!("bridge review: no per-function coverage in the report: {e}");
            None
        }
    };
    let tables = provenance_tables(root);
    review::html::render(&title, &pages, csv.as_deref(), functions.as_deref(), &tables)
}

/// Branch outcomes per function that the queue's tests cover (each run
/// once more through a fork server), most outcomes first.
fn function_coverage(root: &Path, target: &exec::Target) -> Result<Vec<(String, u32, u32)>> {
    let program = exec::forkserver::resolve(&target.program)?;
    let functions = driver::carve::list_functions(&program, &target.args)?;
    let mut fs = exec::ForkServer::start(target.clone())?;
    let mut cov = exec::Coverage::default();
    for test in sorted_dir(&root.join(layout::QUEUE)) {
        let bytes = std::fs::read(&test).at("read", &test)?;
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
    reports: &HashMap<String, String>,
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
