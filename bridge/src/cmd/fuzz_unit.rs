//! `bridge fuzz-unit`: the bridge at work on carved units. Each unit's
//! parameters are mapped to its system input; a unit generator proposes
//! values, tried in the unit's context through a replay fork server; values
//! that make the unit fail or reach new unit-level code are lifted into the
//! system input and run through the whole program; only what reproduces
//! there is kept (true alarms, coverage lifts); false alarms are counted.

use super::units::{read_unit, unit_files};
use crate::cli::FuzzUnitArgs;
use crate::unit_runner::UnitRunner;
use ::exec::{Coverage, ForkServer, Outcome};
use anyhow::Context;
use carver::patch;
use lifter::Class;
use serde::Serialize;
use std::path::Path;

#[derive(Serialize, Default)]
struct Summary {
    units: usize,
    units_with_params: usize,
    tries: u64,
    unit_failures: u64,
    unit_new_coverage: u64,
    lifted: u64,
    true_alarms: u64,
    unique_true_alarms: u64,
    coverage_lifts: u64,
    false_alarms: u64,
    alarms: Vec<Alarm>,
}

#[derive(Serialize, Clone)]
struct Alarm {
    id: u64,
    function: String,
    param: usize,
    op: &'static str,
    original: String,
    value: String,
    outcome: String,
    unit: String,
}

pub fn run(args: FuzzUnitArgs) -> anyhow::Result<i32> {
    let files = unit_files(&args.unit)?;
    anyhow::ensure!(!files.is_empty(), "no unit in {}", args.unit.display());
    let mut system = ForkServer::start(super::target(&args.target)?)?;
    let mut sys_cov = Coverage::default();
    // One alarm per function, parameter and way of failing.
    let mut seen = std::collections::BTreeSet::<(String, usize, String)>::new();
    let mut sum = Summary { units: files.len(), ..Summary::default() };
    for (k, f) in files.iter().enumerate() {
        let unit = match read_unit(f) {
            Ok(u) => u,
            Err(e) => {
                eprintln!("bridge fuzz-unit: skipping: {e:#}");
                continue;
            }
        };
        let input = unit.meta.system_input.clone();
        let params =
            if unit.meta.params.is_empty() { carver::mapping::map(&unit, &input) } else { unit.meta.params.clone() };
        // The original system test's coverage is the bar lifts must pass.
        system.run(&input)?;
        sys_cov.add(system.map());
        if params.is_empty() {
            continue;
        }
        sum.units_with_params += 1;
        let mut runner = UnitRunner::start(Path::new(&unit.meta.program), system.target().timeout, &unit)?;
        let mut gen = unitgen::by_name(&args.unit_gen, args.seed ^ k as u64)
            .ok_or_else(|| anyhow::anyhow!("unknown unit generator '{}' (known: fuzz)", args.unit_gen))?;
        for c in gen.next(&params, args.tries) {
            let p = &params[c.param];
            let Some(patched) = patch::apply(&unit, &p.site, &c.value) else { continue };
            let (outcome, new) = runner.try_unit(&patched)?;
            sum.tries += 1;
            let failed = matches!(outcome, Outcome::Crash(_) | Outcome::Timeout);
            sum.unit_failures += u64::from(failed);
            sum.unit_new_coverage += u64::from(new && !failed);
            if !failed && !new {
                continue;
            }
            let lifted = lifter::lift(&input, p, &c.value);
            let (class, sys_outcome) = lifter::check(&mut system, &mut sys_cov, &lifted)?;
            sum.lifted += 1;
            match class {
                Class::TrueAlarm => {
                    sum.true_alarms += 1;
                    if seen.insert((unit.meta.function.clone(), c.param, sys_outcome.to_string())) {
                        let alarm = Alarm {
                            id: sum.unique_true_alarms,
                            function: unit.meta.function.clone(),
                            param: c.param,
                            op: c.op,
                            original: String::from_utf8_lossy(&p.original).into_owned(),
                            value: String::from_utf8_lossy(&c.value.text()).into_owned(),
                            outcome: sys_outcome.to_string(),
                            unit: f.display().to_string(),
                        };
                        if let Some(out) = &args.output {
                            save_alarm(out, &alarm, &lifted, &input, &patched.encode())?;
                        }
                        sum.unique_true_alarms += 1;
                        sum.alarms.push(alarm);
                    }
                }
                Class::CoverageLift => sum.coverage_lifts += 1,
                Class::FalseAlarm => sum.false_alarms += u64::from(failed),
            }
        }
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&sum)?);
    } else {
        println!(
            "{} units ({} with parameters), {} tries: {} unit failures, {} with new unit coverage",
            sum.units, sum.units_with_params, sum.tries, sum.unit_failures, sum.unit_new_coverage
        );
        println!(
            "lifted {}: {} true alarms ({} kept), {} coverage lifts, {} false alarms filtered",
            sum.lifted, sum.true_alarms, sum.unique_true_alarms, sum.coverage_lifts, sum.false_alarms
        );
        for a in &sum.alarms {
            println!(
                "alarm {}: {}() parameter {} {:?} -> {:?} ({}): {}",
                a.id, a.function, a.param, a.original, a.value, a.op, a.outcome
            );
        }
    }
    Ok(0)
}

fn save_alarm(out: &Path, a: &Alarm, lifted: &[u8], original: &[u8], unit: &[u8]) -> anyhow::Result<()> {
    let dir = out.join("alarms").join(format!("{:06}", a.id));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    super::carve::write_atomic(&dir.join("input"), lifted)?;
    super::carve::write_atomic(&dir.join("original"), original)?;
    super::carve::write_atomic(&dir.join("unit"), unit)?;
    super::carve::write_atomic(&dir.join("report.json"), serde_json::to_string_pretty(a)?.as_bytes())?;
    Ok(())
}
