//! Units explored on their own (`bridge fuzz-unit`, `bridge explore`):
//! each unit's parameters are mapped to its system input; a unit
//! generator proposes values, tried in the unit's context through a
//! replay fork server; values that make the unit fail, or reach new
//! unit-level edges that no system run covered, are lifted into the system
//! input and run through the whole program (`lift.rs`); only what
//! reproduces there is kept (true alarms, coverage lifts); false alarms
//! are counted.

use crate::campaign::{outdir::sanitize, signatures};
use crate::lift::{self, AlarmFiles, LiftCounts, Stacks};
use crate::unit_loop::{self, Explore, Limits};
use crate::{FileContext, Result};
use driver::files::read_unit;
use driver::Restore;
use exec::{Coverage, ForkServer, Outcome, Target};
use lifter::Class;
use model::unit::Encoding;
use serde::Serialize;
use std::path::{Path, PathBuf};

/// How the units are explored.
pub struct Options<'a> {
    /// The unit generator of the unit at an index, from a seed.
    pub generator: &'a dyn Fn(u64) -> Box<dyn unitgen::UnitGenerator>,
    pub seed: u64,
    pub tries: usize,
    pub restore: Restore,
    /// Where true alarms go (`OUT/alarms/<id>/`), and the system tests of
    /// coverage lifts (`OUT/lifts/`).
    pub output: Option<&'a Path>,
    /// The command named in the alarms' reports (`fuzz-unit`, `explore`).
    pub found_by: &'a str,
}

#[derive(Serialize, Default)]
pub struct Summary {
    pub units: usize,
    pub units_with_params: usize,
    /// Units whose replay, as carved, crashed or hung, or that this
    /// program cannot replay: skipped.
    pub units_unreplayable: usize,
    /// Units given up after tries that all timed out.
    pub units_given_up: usize,
    #[serde(flatten)]
    pub lifts: LiftCounts,
    /// Tries that ran out of time.
    pub tries_timed_out: u64,
    /// Seconds spent running tries (not lifting).
    pub unit_seconds: f64,
    pub unique_true_alarms: u64,
    /// Units with a digit-array parameter (dc's numbers).
    pub units_with_digit_arrays: usize,
    pub alarms: Vec<Kept>,
    /// Directions symbolic traces took that name their edge's coverage
    /// slot, and those whose counter did not count (zero but for a
    /// counter that wrapped).
    pub trace_directions_with_slot: u64,
    pub trace_directions_not_counted: u64,
    /// The generator's own counters, per unit (the symbolic explorer's
    /// traces, queries and solver statistics).
    pub generator: Vec<serde_json::Value>,
}

/// An alarm kept in `OUT/alarms/<id>/`, as the summary lists it.
#[derive(Serialize)]
pub struct Kept {
    pub id: u64,
    #[serde(flatten)]
    pub alarm: model::alarm::Alarm,
}

/// Explores the units in `files` against `target` (the whole program);
/// what could not be read or replayed is said on stderr and skipped.
pub fn explore(files: &[PathBuf], mut target: Target, opts: &Options<'_>) -> Result<Summary> {
    // The runtime writes the stack of a crashing system run here: alarms
    // are told apart by where they fail, as a campaign's are.
    let stacks = tempfile::tempdir()?;
    let stack_file = signatures::stack_file(stacks.path());
    target.env.push((model::env::STACK_OUT.into(), stack_file.to_string_lossy().into_owned()));
    let mut system = ForkServer::start(target)?;
    let mut sys_cov = Coverage::default();
    // One alarm per function, parameter and place of failing (the way of
    // failing, when the run left no stack).
    let mut seen = std::collections::BTreeSet::<(String, usize, String)>::new();
    let mut sum = Summary { units: files.len(), ..Summary::default() };
    let stacks = Stacks { dir: stacks.path(), depth: signatures::DEFAULT_DEPTH };
    // Said once: a unit replays on the program it was carved from.
    let mut told_program = false;
    for (k, f) in files.iter().enumerate() {
        let mut unit = match read_unit(f) {
            Ok(u) => u,
            Err(e) => {
                eprintln!("bridge {}: skipping: {e}", opts.found_by);
                continue;
            }
        };
        if !told_program && !same_file(&unit.meta.program, &system.target().program) {
            told_program = true;
            eprintln!(
                "bridge {}: {} was carved from {}; units replay there, the system runs use {}",
                opts.found_by,
                f.display(),
                unit.meta.program,
                system.target().program.display()
            );
        }
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
        let mut gen = (opts.generator)(opts.seed ^ k as u64);
        gen.system_coverage(sys_cov.as_bytes());
        let limits = Limits {
            tries: opts.tries,
            until: None,
            timeout: system.target().timeout,
            restore: opts.restore,
            wait: true,
        };
        let program = Path::new(&unit.meta.program);
        let result =
            unit_loop::explore(program, &unit, &params, gen.as_mut(), Explore::Start, &limits, &mut None, |t| {
                if !lift::admit(&mut sum.lifts, &t, &params, &sys_cov, None, false) {
                    return Ok(());
                }
                let subs: Vec<_> = t.candidate.values.iter().map(|(k, v)| (&params[*k], v)).collect();
                let lifted = lifter::lift_all(&input, &subs, args_in_input);
                let checked =
                    lift::check(&mut sum.lifts, &mut system, &mut sys_cov, stacks, (&t, &params), &lifted, true)?;
                match (checked.class, t.candidate.changed(&params)) {
                    (Class::TrueAlarm, Some((k, v))) => {
                        let place = checked.key.unwrap_or_else(|| checked.outcome.to_string());
                        if !seen.insert((unit.meta.function.clone(), *k, place)) {
                            return Ok(());
                        }
                        let mut alarm = lift::alarm(opts.found_by, &unit, &params, (&t, *k, v), &checked.outcome);
                        alarm.unit_file = Some(f.display().to_string());
                        let id = sum.unique_true_alarms;
                        if let Some(out) = opts.output {
                            let unit = t.unit.encode();
                            let files = AlarmFiles {
                                report: &alarm,
                                input: &lifted,
                                original: &input,
                                unit: &unit,
                                record: None,
                            };
                            lift::save_alarm(out, id, files)?;
                        }
                        sum.alarms.push(Kept { id, alarm });
                        sum.unique_true_alarms += 1;
                    }
                    (Class::CoverageLift, _) => {
                        if let Some(out) = opts.output {
                            let dir = out.join(model::layout::LIFTS);
                            std::fs::create_dir_all(&dir).at("create", &dir)?;
                            let name = format!(
                                "{:06},{},{}",
                                sum.lifts.coverage_lifts - 1,
                                unit.meta.function,
                                t.candidate.op
                            );
                            driver::files::write_atomic(&dir.join(sanitize(&name)), &lifted)?;
                        }
                    }
                    _ => {}
                }
                Ok(())
            });
        match result {
            Ok((first, _)) if matches!(first, Outcome::Crash(_) | Outcome::Timeout) => {
                eprintln!("bridge {}: skipping {}: its replay as carved ends in {first}", opts.found_by, f.display());
                sum.units_unreplayable += 1;
            }
            Ok((_, done)) => {
                sum.unit_seconds += done.seconds_in_tries;
                sum.units_given_up += usize::from(done.given_up);
                sum.tries_timed_out += done.timed_out;
                sum.trace_directions_with_slot += done.directions_with_slot;
                sum.trace_directions_not_counted += done.directions_not_counted;
            }
            Err(e) => {
                eprintln!("bridge {}: skipping {}: {e}", opts.found_by, f.display());
                sum.units_unreplayable += 1;
            }
        }
        let stats = gen.stats_json();
        if !stats.is_null() {
            sum.generator.push(serde_json::json!({ "unit": f.display().to_string(), "stats": stats }));
        }
    }
    Ok(sum)
}

/// Whether two paths name one file (as given when either cannot be read).
fn same_file(a: impl AsRef<Path>, b: impl AsRef<Path>) -> bool {
    match (std::fs::canonicalize(a.as_ref()), std::fs::canonicalize(b.as_ref())) {
        (Ok(x), Ok(y)) => x == y,
        _ => a.as_ref() == b.as_ref(),
    }
}
