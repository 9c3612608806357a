//! `bridge replay`: each unit restored and called in a fresh process, its
//! outcome compared with the recorded one.

use crate::cli::ReplayArgs;
use ::exec::Outcome;
use driver::files::{read_unit, unit_files};
use driver::replay::replay_one;
use serde::Serialize;
use std::time::Duration;

#[derive(Serialize)]
struct Result1 {
    unit: String,
    function: String,
    outcome: String,
    ret: Option<u64>,
    edges: usize,
    /// The map slots the replayed call hit.
    edge_slots: Vec<u32>,
    /// None when the original call has no recorded outcome.
    faithful: Option<bool>,
    missing_edges: usize,
    extra_edges: usize,
    /// The snapshot was cut at the byte budget: unfaithful replays are
    /// expected.
    truncated: bool,
}

/// Replays the units; exits 1 when one of them could not be replayed at
/// all: not read, or read by the target but found unreadable or
/// malformed there. A function whose parameters cannot be replayed (a
/// trampoline-less one, say variadic) is an outcome of its unit, reported
/// as such: carving a program that calls one makes such units.
pub fn run(args: ReplayArgs) -> anyhow::Result<i32> {
    let files = unit_files(&args.unit)?;
    anyhow::ensure!(!files.is_empty(), "no unit in {}", args.unit.display());
    let mut results = Vec::new();
    let mut not_replayed = 0;
    for f in &files {
        let unit = match read_unit(f) {
            Ok(u) => u,
            Err(e) => {
                eprintln!("bridge replay: {:#}", anyhow::Error::from(e));
                not_replayed += 1;
                continue;
            }
        };
        let program = args.program.clone().unwrap_or_else(|| unit.meta.program.clone().into());
        let _input = driver::input_file::InputFile::recreate(&unit.meta);
        let (outcome, replayed) =
            replay_one(&program, &unit.meta.program_args, f, Duration::from_millis(args.timeout_ms))?;
        if let Outcome::Exit(model::REPLAY_EXIT_UNREADABLE | model::REPLAY_EXIT_MALFORMED) = outcome {
            not_replayed += 1;
        }
        let fid = match (&unit.outcome, &replayed) {
            (Some(rec), Some(rep)) => Some(carver::compare(rec, rep)),
            // The call returned, its replay did not: as unfaithful as it gets.
            (Some(rec), None) => {
                Some(carver::Fidelity { same_return: false, missing: rec.edges.clone(), extra: Vec::new() })
            }
            _ => None,
        };
        results.push(Result1 {
            unit: f.display().to_string(),
            function: unit.meta.function.clone(),
            outcome: describe(outcome),
            ret: replayed.as_ref().map(|r| r.ret),
            edges: replayed.as_ref().map_or(0, |r| r.edges.len()),
            edge_slots: replayed.as_ref().map(|r| r.edges.clone()).unwrap_or_default(),
            faithful: fid.as_ref().map(|f| f.faithful() && outcome == Outcome::Exit(0)),
            missing_edges: fid.as_ref().map_or(0, |f| f.missing.len()),
            extra_edges: fid.as_ref().map_or(0, |f| f.extra.len()),
            truncated: unit.snapshot.truncated(),
        });
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&results)?);
    } else {
        for r in &results {
            let verdict = match r.faithful {
                Some(true) => "faithful".to_string(),
                Some(false) if r.truncated => "differs (the snapshot was cut at the budget)".to_string(),
                Some(false) => format!("UNFAITHFUL ({} edges missing, {} extra)", r.missing_edges, r.extra_edges),
                None => "no recorded outcome to compare".to_string(),
            };
            let ret = r.ret.map(|v| format!("returned {}", v as i64)).unwrap_or_default();
            println!("{}: {}: {} {} {} edges; {verdict}", r.unit, r.function, r.outcome, ret, r.edges);
        }
        let judged: Vec<_> = results.iter().filter_map(|r| r.faithful).collect();
        let ok = judged.iter().filter(|f| **f).count();
        if judged.len() > 1 {
            println!("{ok} of {} replays faithful ({:.1} %)", judged.len(), 100.0 * ok as f64 / judged.len() as f64);
        }
    }
    if not_replayed > 0 {
        eprintln!("bridge replay: {not_replayed} of {} units could not be replayed", files.len());
        return Ok(1);
    }
    Ok(0)
}

fn describe(o: Outcome) -> String {
    match o {
        Outcome::Exit(0) => "ok".into(),
        Outcome::Exit(model::REPLAY_EXIT_UNREADABLE) => "the target could not read the unit".into(),
        Outcome::Exit(model::REPLAY_EXIT_MALFORMED) => {
            "the target found the unit malformed or from another binary".into()
        }
        Outcome::Exit(model::REPLAY_EXIT_NOT_REPLAYABLE) => "the function's parameters cannot be replayed".into(),
        other => format!("{other}"),
    }
}
