//! `bridge exec`: a corpus through the fork server, and a summary.

use crate::cli::ExecArgs;
use ::exec::{Coverage, Outcome};
use anyhow::Context;
use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant;

#[derive(Serialize, Default)]
struct Summary {
    inputs: usize,
    unreadable: Vec<String>,
    runs: u64,
    seconds: f64,
    execs_per_sec: f64,
    exit_zero: u64,
    exit_nonzero: u64,
    crashes: u64,
    timeouts: u64,
    resource_limits: u64,
    edges: usize,
    edges_total: u32,
    branches: usize,
    branches_total: usize,
    fork_server_restarts: u32,
    new_inputs: u64,
    crashing_inputs: Vec<String>,
    hanging_inputs: Vec<String>,
}

pub fn run(args: ExecArgs) -> anyhow::Result<i32> {
    let target = super::target(&args.target)?;
    anyhow::ensure!(args.repeat > 0, "--repeat must be at least 1");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&args.corpus)
        .with_context(|| format!("cannot read corpus directory {}", args.corpus.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| !p.is_dir())
        .collect();
    files.sort();
    let mut sum = Summary { inputs: files.len(), ..Summary::default() };
    let mut inputs = Vec::with_capacity(files.len());
    for f in files {
        match std::fs::read(&f) {
            Ok(bytes) => inputs.push((f, bytes)),
            Err(e) => {
                eprintln!("bridge exec: warning: skipping {}: {e}", f.display());
                sum.unreadable.push(f.display().to_string());
            }
        }
    }
    anyhow::ensure!(!inputs.is_empty(), "no readable input in {}", args.corpus.display());
    let mut fs = ::exec::ForkServer::start(target)?;
    let mut cov = match &args.state {
        Some(p) if p.exists() => {
            let bytes = std::fs::read(p).with_context(|| format!("cannot read coverage state {}", p.display()))?;
            Coverage::from_bytes(&bytes).with_context(|| format!("{} is not a coverage state file", p.display()))?
        }
        _ => Coverage::default(),
    };
    if let Some(d) = &args.save_new {
        std::fs::create_dir_all(d).with_context(|| format!("cannot create {}", d.display()))?;
    }
    let start = Instant::now();
    for round in 0..args.repeat {
        for (path, bytes) in &inputs {
            let outcome = fs.run(bytes).with_context(|| format!("running {}", path.display()))?;
            let newness = cov.add(fs.map());
            sum.runs += 1;
            if let (Some(d), true) = (&args.save_new, newness != ::exec::Newness::Nothing) {
                let name = path.file_name().unwrap_or_default();
                std::fs::write(d.join(name), bytes).with_context(|| format!("cannot save into {}", d.display()))?;
                sum.new_inputs += 1;
            }
            let first = round == 0;
            match outcome {
                Outcome::Exit(0) => sum.exit_zero += 1,
                Outcome::Exit(_) => sum.exit_nonzero += 1,
                Outcome::Crash(_) => {
                    sum.crashes += 1;
                    if first {
                        sum.crashing_inputs.push(format!("{} ({outcome})", path.display()));
                    }
                }
                Outcome::Limit(_) => sum.resource_limits += 1,
                Outcome::Timeout => {
                    sum.timeouts += 1;
                    if first {
                        sum.hanging_inputs.push(path.display().to_string());
                    }
                }
            }
        }
    }
    sum.seconds = start.elapsed().as_secs_f64();
    sum.execs_per_sec = sum.runs as f64 / sum.seconds.max(1e-9);
    sum.edges = cov.edges();
    sum.edges_total = fs.hello().edges;
    let slots = fs.branch_slots();
    sum.branches = cov.covered_among(&slots);
    sum.branches_total = slots.len();
    sum.fork_server_restarts = fs.restarts();
    if let Some(p) = &args.state {
        let tmp = p.with_extension("tmp");
        std::fs::write(&tmp, cov.as_bytes()).with_context(|| format!("cannot write {}", tmp.display()))?;
        std::fs::rename(&tmp, p).with_context(|| format!("cannot write {}", p.display()))?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&sum)?);
    } else {
        print_summary(&sum);
    }
    Ok(0)
}

fn print_summary(s: &Summary) {
    let pct = 100.0 * s.edges as f64 / f64::from(s.edges_total.max(1));
    let bpct = 100.0 * s.branches as f64 / s.branches_total.max(1) as f64;
    println!("inputs      {} ({} unreadable, skipped)", s.inputs, s.unreadable.len());
    println!("runs        {} in {:.2} s ({:.0} execs/s)", s.runs, s.seconds, s.execs_per_sec);
    println!(
        "outcomes    {} exit 0, {} exit non-zero, {} crashes, {} timeouts, {} over a resource limit",
        s.exit_zero, s.exit_nonzero, s.crashes, s.timeouts, s.resource_limits
    );
    println!(
        "coverage    {} of {} edges ({pct:.1} %); {} of {} branch outcomes ({bpct:.1} %)",
        s.edges, s.edges_total, s.branches, s.branches_total
    );
    if s.fork_server_restarts > 0 {
        println!("restarts    {} (the fork server died and was restarted)", s.fork_server_restarts);
    }
    for c in &s.crashing_inputs {
        println!("crash       {c}");
    }
    for h in &s.hanging_inputs {
        println!("hang        {h}");
    }
}
