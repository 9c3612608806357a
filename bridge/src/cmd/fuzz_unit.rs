//! `bridge fuzz-unit`: the bridge at work on carved units. Each unit's
//! parameters are mapped to its system input; a unit generator proposes
//! values, tried in the unit's context through a replay fork server; values
//! that make the unit fail, or reach new unit-level edges that no system
//! run covered, are lifted into the system input and run through the
//! whole program; only what reproduces
//! there is kept (true alarms, coverage lifts); false alarms are counted.

use crate::cli::{ExploreArgs, FuzzUnitArgs};
use crate::unit_loop::{self, Limits};
use ::exec::{Coverage, ForkServer, Outcome};
use anyhow::Context;
use driver::files::{read_unit, unit_files};
use driver::Restore;
use lifter::Class;
use model::unit::Encoding;
use serde::Serialize;
use std::path::Path;

#[derive(Serialize, Default)]
struct Summary {
    units: usize,
    units_with_params: usize,
    /// Units whose replay, as carved, crashed or hung, or that this
    /// program cannot replay: skipped.
    units_unreplayable: usize,
    /// Units given up after tries that all timed out.
    units_given_up: usize,
    tries: u64,
    /// Tries that ran out of time.
    tries_timed_out: u64,
    /// Seconds spent running tries (not lifting).
    unit_seconds: f64,
    unit_failures: u64,
    unit_new_coverage: u64,
    lifted: u64,
    true_alarms: u64,
    unique_true_alarms: u64,
    coverage_lifts: u64,
    false_alarms: u64,
    /// Values that cannot stand in the system input (a digit array given
    /// a byte that is no digit): not run.
    unliftable: u64,
    /// Units with a digit-array parameter (dc's numbers); lifts of a
    /// digit array's values, and those that were true alarms or coverage
    /// lifts.
    units_with_digit_arrays: usize,
    digit_lifts: u64,
    digit_lifts_effective: u64,
    alarms: Vec<Kept>,
    /// Directions symbolic traces took that name their edge's coverage
    /// slot, and those whose counter did not count (zero but for a
    /// counter that wrapped).
    trace_directions_with_slot: u64,
    trace_directions_not_counted: u64,
    /// The generator's own counters, per unit (the symbolic explorer's
    /// traces, queries and solver statistics).
    generator: Vec<serde_json::Value>,
}

/// An alarm kept in `OUT/alarms/<id>/`, as the summary lists it.
#[derive(Serialize)]
struct Kept {
    id: u64,
    #[serde(flatten)]
    alarm: model::alarm::Alarm,
}

/// `bridge explore`: the units, explored by the symbolic generator.
pub fn explore(args: ExploreArgs) -> anyhow::Result<i32> {
    let (timeout, log) = (args.solver_timeout, args.smt_log.clone());
    let fuzz = FuzzUnitArgs {
        unit: args.unit,
        tries: args.tries,
        unit_gen: "symbolic".into(),
        seed: 0,
        output: args.output,
        json: args.json,
        restore_each_try: false,
        target: args.target,
    };
    run_with(fuzz, "explore", &|_| Box::new(unitgen::Symbolic::new(timeout, log.clone())))
}

pub fn run(args: FuzzUnitArgs) -> anyhow::Result<i32> {
    let name = args.unit_gen.clone();
    anyhow::ensure!(
        unitgen::NAMES.contains(&name.as_str()),
        "unknown unit generator '{name}' (known: {})",
        unitgen::NAMES.join(", ")
    );
    run_with(args, "fuzz-unit", &|seed| unitgen::by_name(&name, seed).expect("a known name"))
}

fn run_with(
    args: FuzzUnitArgs,
    found_by: &str,
    make: &dyn Fn(u64) -> Box<dyn unitgen::UnitGenerator>,
) -> anyhow::Result<i32> {
    let files = unit_files(&args.unit)?;
    anyhow::ensure!(!files.is_empty(), "no unit in {}", args.unit.display());
    // The runtime writes the stack of a crashing system run here: alarms
    // are told apart by where they fail, as a campaign's are.
    let stacks = tempfile::tempdir()?;
    let mut target = super::target(&args.target)?;
    let stack_file = crate::campaign::signatures::stack_file(stacks.path());
    target.env.push((model::env::STACK_OUT.into(), stack_file.to_string_lossy().into_owned()));
    let mut system = ForkServer::start(target)?;
    let mut sys_cov = Coverage::default();
    // One alarm per function, parameter and place of failing (the way of
    // failing, when the run left no stack).
    let mut seen = std::collections::BTreeSet::<(String, usize, String)>::new();
    let mut sum = Summary { units: files.len(), ..Summary::default() };
    let restore = if args.restore_each_try { Restore::EachTry } else { Restore::Once };
    for (k, f) in files.iter().enumerate() {
        let mut unit = match read_unit(f) {
            Ok(u) => u,
            Err(e) => {
                eprintln!("bridge fuzz-unit: skipping: {:#}", anyhow::Error::from(e));
                continue;
            }
        };
        let input = unit.meta.system_input.clone();
        let args_in_input = system.target().args_in_input;
        let params = if unit.meta.params.is_empty() {
            unit_loop::parameters(&mut unit, &input, args_in_input)
        } else {
            unit_loop::liftable(unit.meta.params.clone(), &input, args_in_input)
        };
        // The original system test's coverage is the bar lifts must pass.
        system.run(&input)?;
        sys_cov.add(system.map());
        if params.is_empty() {
            continue;
        }
        sum.units_with_params += 1;
        sum.units_with_digit_arrays +=
            usize::from(params.iter().any(|p| matches!(p.encoding, Encoding::Digits { .. })));
        let mut gen = make(args.seed ^ k as u64);
        gen.system_coverage(sys_cov.as_bytes());
        let limits = Limits { tries: args.tries, until: None, timeout: system.target().timeout, restore, wait: true };
        let program = Path::new(&unit.meta.program);
        let how = unit_loop::Explore::Start;
        let result = unit_loop::explore(program, &unit, &params, gen.as_mut(), how, &limits, &mut None, |t| {
            let failed = t.failed();
            sum.unit_failures += u64::from(failed);
            sum.unit_new_coverage += u64::from(t.new && !failed);
            if !t.worth_lifting(&sys_cov, None) {
                return Ok(());
            }
            if t.candidate.values.iter().any(|(k, v)| !params[*k].liftable(v)) {
                sum.unliftable += 1;
                return Ok(());
            }
            let subs: Vec<_> = t.candidate.values.iter().map(|(k, v)| (&params[*k], v)).collect();
            let lifted = lifter::lift_all(&input, &subs, args_in_input);
            let (class, sys_outcome) = lifter::check(&mut system, &mut sys_cov, &lifted)?;
            let key = crate::campaign::signatures::failure_key(
                stacks.path(),
                crate::campaign::signatures::DEFAULT_DEPTH,
                &system,
            );
            sum.lifted += 1;
            if t.candidate.values.iter().any(|(k, _)| matches!(params[*k].encoding, Encoding::Digits { .. })) {
                sum.digit_lifts += 1;
                sum.digit_lifts_effective += u64::from(class != Class::FalseAlarm);
            }
            match (class, t.candidate.changed(&params)) {
                (Class::TrueAlarm, None) => sum.true_alarms += 1,
                (Class::TrueAlarm, Some((k, v))) => {
                    sum.true_alarms += 1;
                    let place = key.unwrap_or_else(|| sys_outcome.to_string());
                    if seen.insert((unit.meta.function.clone(), *k, place)) {
                        let alarm = model::alarm::Alarm {
                            version: model::alarm::ALARM_VERSION,
                            found_by: found_by.into(),
                            function: unit.meta.function.clone(),
                            call: unit.meta.call_index,
                            parameter: *k,
                            site: model::alarm::describe_site(&params[*k].site),
                            original_value: String::from_utf8_lossy(&params[*k].original).into_owned(),
                            new_value: String::from_utf8_lossy(&params[*k].text(v)).into_owned(),
                            parameters_changed: t.candidate.values.len(),
                            generator_op: t.candidate.op.into(),
                            outcome: sys_outcome.to_string(),
                            system_test: None,
                            unit_file: Some(f.display().to_string()),
                            found_after_s: None,
                            key: None,
                        };
                        if let Some(out) = &args.output {
                            save_alarm(out, sum.unique_true_alarms, &alarm, &lifted, &input, &t.unit.encode())?;
                        }
                        sum.alarms.push(Kept { id: sum.unique_true_alarms, alarm });
                        sum.unique_true_alarms += 1;
                    }
                }
                (Class::CoverageLift, _) => {
                    if let Some(out) = &args.output {
                        let dir = out.join("lifts");
                        std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
                        let name = format!("{:06},{},{}", sum.coverage_lifts, unit.meta.function, t.candidate.op);
                        driver::files::write_atomic(&dir.join(crate::campaign::outdir::sanitize(&name)), &lifted)?;
                    }
                    sum.coverage_lifts += 1;
                }
                (Class::FalseAlarm, _) => sum.false_alarms += u64::from(failed),
            }
            Ok(())
        });
        match result {
            Ok((first, _)) if matches!(first, Outcome::Crash(_) | Outcome::Timeout) => {
                eprintln!("bridge fuzz-unit: skipping {}: its replay as carved ends in {first}", f.display());
                sum.units_unreplayable += 1;
            }
            Ok((_, done)) => {
                sum.tries += done.tries;
                sum.unit_seconds += done.seconds_in_tries;
                sum.units_given_up += usize::from(done.given_up);
                sum.tries_timed_out += done.timed_out;
                sum.trace_directions_with_slot += done.directions_with_slot;
                sum.trace_directions_not_counted += done.directions_not_counted;
            }
            Err(e) => {
                eprintln!("bridge fuzz-unit: skipping {}: {e:#}", f.display());
                sum.units_unreplayable += 1;
            }
        }
        let stats = gen.stats_json();
        if !stats.is_null() {
            sum.generator.push(serde_json::json!({ "unit": f.display().to_string(), "stats": stats }));
        }
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&sum)?);
    } else {
        println!(
            "{} units ({} with parameters, {} not replayable), {} tries: {} unit failures, {} with new unit coverage",
            sum.units,
            sum.units_with_params,
            sum.units_unreplayable,
            sum.tries,
            sum.unit_failures,
            sum.unit_new_coverage
        );
        println!(
            "lifted {}: {} true alarms ({} kept), {} coverage lifts, {} false alarms filtered{}",
            sum.lifted,
            sum.true_alarms,
            sum.unique_true_alarms,
            sum.coverage_lifts,
            sum.false_alarms,
            if sum.unliftable > 0 { format!("; {} values not liftable", sum.unliftable) } else { String::new() }
        );
        if let Some(p) = sum.generator.last().and_then(|g| crate::campaign::status::pinned_summary(&g["stats"], 5)) {
            println!("symbolic values {p} (unmodelled calls keep them concrete)");
        }
        for Kept { id, alarm: a } in &sum.alarms {
            println!(
                "alarm {id}: {}() parameter {} {:?} -> {:?} ({}): {}",
                a.function, a.parameter, a.original_value, a.new_value, a.generator_op, a.outcome
            );
        }
    }
    Ok(0)
}

fn save_alarm(
    out: &Path,
    id: u64,
    a: &model::alarm::Alarm,
    lifted: &[u8],
    original: &[u8],
    unit: &[u8],
) -> anyhow::Result<()> {
    let dir = out.join("alarms").join(format!("{id:06}"));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    driver::files::write_atomic(&dir.join("input"), lifted)?;
    driver::files::write_atomic(&dir.join("original"), original)?;
    driver::files::write_atomic(&dir.join("unit"), unit)?;
    driver::files::write_atomic(&dir.join("report.json"), serde_json::to_string_pretty(a)?.as_bytes())?;
    Ok(())
}
