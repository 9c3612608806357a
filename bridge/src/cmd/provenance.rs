//! `bridge provenance OUT [TEST]`: a test's trail back to its seed, or
//! what each seed and each operator of the campaign led to.

use crate::cli::ProvenanceArgs;
use engine::campaign::state::CampaignFile;
use model::layout;
use provenance::{Campaign, Summary};

/// Runs of written bytes shown per step of a trail.
const MAX_CHANGES: usize = 8;

pub fn run(args: ProvenanceArgs) -> anyhow::Result<i32> {
    anyhow::ensure!(
        args.output.join(layout::QUEUE).is_dir(),
        "{} is not a campaign directory (no queue/)",
        args.output.display()
    );
    let c = Campaign::read(&args.output)?;
    // Whether tests start with their command line (their first line's
    // words are tokens then).
    let args_in_input = std::fs::read(args.output.join(layout::CAMPAIGN_FILE))
        .ok()
        .and_then(|b| CampaignFile::decode(&b).ok())
        .is_some_and(|f| f.config.args_in_input);
    if args.rebuild {
        let r = c.rebuild_all(args_in_input, args.limit)?;
        if args.json {
            println!("{}", serde_json::to_string_pretty(&r)?);
        } else {
            println!(
                "bridge provenance: {} entries, {} tokens: {:.1} % given their recorded source; \
                 mean run {:.1} bytes rebuilt, {:.1} recorded",
                r.tests,
                r.tokens,
                100.0 * r.same_source_share,
                r.mean_run_rebuilt,
                r.mean_run_recorded
            );
        }
        return Ok(0);
    }
    if let Some(name) = &args.test {
        let t = c.find(name)?;
        let trail = c.trail(t)?;
        if args.json {
            let mut steps = Vec::new();
            for step in &trail {
                let changes = c.changes(c.find(&step.path)?)?;
                // Labels not recorded: rebuilt, and said to be.
                let pseudo = match &changes {
                    None if !step.ops.is_empty() => Some(c.pseudo_labels(c.find(&step.path)?, args_in_input)?),
                    _ => None,
                };
                steps.push(serde_json::json!({ "step": step, "wrote": changes, "pseudo": pseudo }));
            }
            println!("{}", serde_json::to_string_pretty(&steps)?);
        } else {
            for (k, step) in trail.iter().enumerate() {
                let made = if step.ops.is_empty() {
                    "a seed".to_string()
                } else {
                    format!("made by {}", step.ops.join(" + "))
                };
                let with = if step.donors.is_empty() {
                    String::new()
                } else {
                    format!(", with bytes of {}", step.donors.join(" and "))
                };
                println!("{:>3}  {}  ({made}{with})", k, step.path);
                match c.changes(c.find(&step.path)?)? {
                    Some(changes) => {
                        for ch in changes.iter().take(MAX_CHANGES) {
                            println!("       wrote at {:>5}: {}  ({})", ch.at, ch.text, ch.by);
                        }
                        if changes.len() > MAX_CHANGES {
                            println!("       ... and {} more runs", changes.len() - MAX_CHANGES);
                        }
                    }
                    None if step.ops.is_empty() => {}
                    None => {
                        // Labels lost (a test from before records, another
                        // tool's): rebuilt, and said to be.
                        let p = c.pseudo_labels(c.find(&step.path)?, args_in_input)?;
                        println!(
                            "       no labels recorded; pseudo-provenance (rebuilt from the seeds and ancestors):"
                        );
                        for (at, r) in p.labels.runs().take(MAX_CHANGES) {
                            println!("       pseudo {:>5}..{:<5} {}", at, at + r.len as usize, origin(&r.origin));
                        }
                    }
                }
            }
        }
        return Ok(0);
    }
    let (seeds, unresolved) = c.by_seed();
    let ops = c.by_operator();
    let mut tokens = c.by_token()?;
    let recorded = c.tests().filter(|t| t.recorded).count();
    let unrecorded = c.unrecorded(args_in_input, args.limit)?;
    if args.json {
        let v = serde_json::json!({
            "seeds": seeds,
            "seed_lines": tokens,
            "operators": ops,
            "unresolved": unresolved,
            "recorded": recorded,
            "unrecorded": unrecorded,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(0);
    }
    println!("{}", table("seed", &seeds));
    tokens.sort_by_key(|s| std::cmp::Reverse((s.crashes + s.hangs + s.alarms, s.lifts, s.descendants)));
    if !tokens.is_empty() {
        println!("{}", table("seed line", &tokens[..tokens.len().min(20)]));
    }
    let mut ops = ops;
    ops.sort_by_key(|s| std::cmp::Reverse((s.crashes + s.hangs + s.alarms, s.descendants)));
    println!("{}", table("operator", &ops[..ops.len().min(20)]));
    let total = c.tests().count();
    println!(
        "bridge provenance: {} of {total} tests trace back to a seed; {recorded} have a trail record",
        total - unresolved
    );
    if unrecorded.tests > 0 {
        println!(
            "bridge provenance: {} tests were kept without labels (made by a model, not by mutation); pseudo-provenance traces {} of their {} tokens ({:.1} %) to a seed, and {} of their {} bytes",
            unrecorded.tests,
            unrecorded.from_seeds,
            unrecorded.tokens,
            100.0 * unrecorded.from_seeds_share,
            unrecorded.bytes_from_seeds,
            unrecorded.bytes
        );
    }
    Ok(0)
}

/// An origin in words.
fn origin(o: &provenance::Origin) -> String {
    match o {
        provenance::Origin::Copied { test, offset } => format!("copied from entry {test:06} at {offset}"),
        provenance::Origin::Inserted { op, .. } => format!("not found in any ancestor ({op})"),
        provenance::Origin::Lifted { unit, param, .. } => format!("lifted from {unit} {param}"),
    }
}

fn table(what: &str, rows: &[Summary]) -> String {
    let mut out =
        format!("{what:<40} {:>11} {:>6} {:>8} {:>6} {:>7}\n", "descendants", "lifts", "crashes", "hangs", "alarms");
    for s in rows {
        let name: String = s.name.chars().take(40).collect();
        out.push_str(&format!(
            "{name:<40} {:>11} {:>6} {:>8} {:>6} {:>7}\n",
            s.descendants, s.lifts, s.crashes, s.hangs, s.alarms
        ));
    }
    out
}
