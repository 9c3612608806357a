//! One unit, explored: the generator's candidates are patched into the
//! unit, run through the unit fork server (symbolically when the generator
//! asks for it) and handed, with their outcome, to the caller, which
//! lifts what is worth it. Shared by `bridge fuzz-unit`, `bridge explore`
//! and the campaign's unit rounds.

use crate::unit_runner::{Restore, UnitRunner};
use ::exec::Outcome;
use model::unit::{Param, Unit};
use std::path::Path;
use std::time::{Duration, Instant};
use unitgen::{Candidate, UnitGenerator};

/// Candidates asked for at a time.
const BATCH: usize = 16;
/// A symbolic run's time limit, in units of the concrete one: building
/// expressions costs that much more.
const SYMBOLIC_SLOWDOWN: u32 = 5;

/// One try and how it went.
pub struct Try<'a> {
    pub candidate: &'a Candidate,
    pub unit: Unit,
    pub outcome: Outcome,
    /// It reached unit-level edges no earlier try reached.
    pub new: bool,
}

/// How a unit's exploration ended.
#[derive(Debug, Default, Clone, Copy)]
pub struct Explored {
    pub tries: u64,
    pub seconds_in_tries: f64,
    /// Its tries all timed out, one after another, until it was given up.
    pub given_up: bool,
}

/// Limits of one unit's exploration.
pub struct Limits {
    pub tries: usize,
    pub until: Option<Instant>,
    pub timeout: Duration,
    pub restore: Restore,
}

/// Starts the unit (an error when it cannot be replayed at all) and
/// returns how it ran as carved, then explores it unless that failed.
pub fn explore(
    program: &Path,
    unit: &Unit,
    params: &[Param],
    gen: &mut dyn UnitGenerator,
    limits: &Limits,
    mut each: impl FnMut(Try<'_>) -> anyhow::Result<()>,
) -> anyhow::Result<(Outcome, Explored)> {
    gen.start(params);
    let symbolic = gen.symbolic_inputs();
    let timeout = if symbolic.is_some() { limits.timeout * SYMBOLIC_SLOWDOWN } else { limits.timeout };
    let mut runner = UnitRunner::start(program, timeout, unit, limits.restore, symbolic.as_deref())?;
    let first = runner.first;
    let mut done = Explored::default();
    if matches!(first, Outcome::Crash(_) | Outcome::Timeout) {
        return Ok((first, done));
    }
    'all: while (done.tries as usize) < limits.tries {
        let batch = gen.next(params, BATCH.min(limits.tries - done.tries as usize));
        if batch.is_empty() {
            break;
        }
        for c in &batch {
            if runner.hopeless() {
                done.given_up = true;
                break 'all;
            }
            if limits.until.is_some_and(|t| Instant::now() >= t) {
                break 'all;
            }
            let mut patched = Some(unit.clone());
            for (k, v) in &c.values {
                patched = patched.and_then(|u| carver::patch::apply(&u, &params[*k].site, v));
            }
            let Some(patched) = patched else { continue };
            let started = Instant::now();
            let (outcome, new) = runner.try_unit(&patched)?;
            let trace = runner.take_trace()?;
            done.seconds_in_tries += started.elapsed().as_secs_f64();
            done.tries += 1;
            gen.observe(c, trace.as_ref());
            each(Try { candidate: c, unit: patched, outcome, new })?;
        }
    }
    Ok((first, done))
}
