//! `bridge review OUT`: the campaign's failures grouped by signature
//! (`engine::review`), printed as a table, and as JSON, an HTML page and
//! SARIF on request.

use crate::cli::ReviewArgs;
use anyhow::Context;
use engine::review::{reduced_path, Options};
use model::layout;

pub fn run(args: ReviewArgs) -> anyhow::Result<i32> {
    let root = &args.output;
    let depth = usize::from(args.depth);
    let opts = Options { depth, reduce: !args.no_reduce, max_runs: args.max_runs };
    let r = engine::review::review(root, &opts)?;
    let (groups, inputs, command, not_failing) = (&r.groups, &r.inputs, &r.command, r.not_failing);
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
        print!("{}", review::table::render(groups));
        for (k, g) in groups.iter().enumerate() {
            if let Some(line) = r.report_line(g) {
                println!("{k:>3}  {line}");
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
        let html = engine::review::html(&r, root);
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        driver::files::write_atomic(&dir.join("index.html"), html.as_bytes())?;
        if !args.json {
            println!("bridge review: HTML report in {}", dir.join("index.html").display());
        }
    }
    if let Some(path) = &args.sarif {
        let log = review::sarif::report(groups, env!("CARGO_PKG_VERSION"), command);
        driver::files::write_atomic(path, serde_json::to_string_pretty(&log)?.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(0)
}
