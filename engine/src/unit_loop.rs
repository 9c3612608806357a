//! One unit, explored: the generator's candidates are patched into the
//! unit, run through the unit fork server (symbolically when the generator
//! asks for it) and handed, with their outcome, to the caller, which
//! lifts what is worth it. Shared by `bridge fuzz-unit`, `bridge explore`
//! and the campaign's unit rounds.

use ::exec::Outcome;
use driver::{Restore, UnitRunner};
use model::unit::{Param, Unit};
use std::path::Path;
use std::time::{Duration, Instant};
use unitgen::{Candidate, Pending, UnitGenerator};

/// Candidates asked for at a time.
const BATCH: usize = 16;
/// A symbolic run's time limit, in units of the concrete one: building
/// expressions costs that much more.
const SYMBOLIC_SLOWDOWN: u32 = 5;
/// How long to wait at a time for a generator that is still working.
const WAIT: Duration = Duration::from_millis(50);

/// One try and how it went.
pub struct Try<'a> {
    pub candidate: &'a Candidate,
    pub unit: Unit,
    pub outcome: Outcome,
    /// It reached unit-level edges no earlier try reached.
    pub new: bool,
    /// Those edges (their coverage-map slots, the same as in system runs).
    pub new_edges: Vec<usize>,
    /// A symbolic replay: slower than the program by a factor no limit
    /// fits, so its timeouts say nothing.
    pub symbolic: bool,
}

impl Try<'_> {
    /// The unit crashed or hung (a symbolic replay that ran out of time
    /// did not: building expressions slows some runs down far more than
    /// [`SYMBOLIC_SLOWDOWN`], and their lifts reproduced nothing).
    pub fn failed(&self) -> bool {
        match self.outcome {
            Outcome::Crash(_) => true,
            Outcome::Timeout => !self.symbolic,
            _ => false,
        }
    }

    /// Whether the values are worth a system run: they changed something
    /// and the unit failed, or reached new unit-level edges of which one
    /// at least no system run has covered (edges that system tests reach
    /// already cannot make a coverage lift). With `branches` (a flag per
    /// map slot), only branch outcomes count: function entries and the
    /// edges only out-of-line copies have are no system run's to cover.
    pub fn worth_lifting(&self, system: &::exec::Coverage, branches: Option<&[bool]>) -> bool {
        let counts = |e: usize| branches.is_none_or(|b| b.get(e).copied().unwrap_or(false));
        !self.candidate.values.is_empty()
            && (self.failed() || self.new_edges.iter().any(|&e| counts(e) && !system.is_covered(e)))
    }
}

/// How a unit's exploration ended.
#[derive(Debug, Default, Clone, Copy)]
pub struct Explored {
    pub tries: u64,
    pub seconds_in_tries: f64,
    /// Tries that ran out of time (a symbolic try's limit adapts to the
    /// unit: `driver`'s `try_limit.rs`).
    pub timed_out: u64,
    /// Its tries all timed out, one after another, until it was given up.
    pub given_up: bool,
    /// Directions its symbolic traces took that name their edge's
    /// coverage slot, and of those, the ones whose counter did not count
    /// (see [`UnitRunner::slot_check`]).
    pub directions_with_slot: u64,
    pub directions_not_counted: u64,
}

/// Limits of one unit's exploration.
pub struct Limits {
    pub tries: usize,
    pub until: Option<Instant>,
    pub timeout: Duration,
    pub restore: Restore,
    /// When the generator has no candidate yet but is still working
    /// (solving), wait for it; otherwise the exploration ends there and
    /// may go on later with [`Explore::Resume`].
    pub wait: bool,
}

/// Whether a unit's exploration begins or picks up where an earlier one
/// left off (the generator keeps its state for the unit in between).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Explore {
    Start,
    Resume,
}

/// The parameters of `unit` against the system `input` it was carved
/// from, liftable. When the input starts with the command line, `main`
/// gets room for one more word (`carver::words`), which changes `unit`.
pub fn parameters(unit: &mut Unit, input: &[u8], args_in_input: bool) -> Vec<Param> {
    let mut params = carver::mapping::map(unit, input);
    if args_in_input {
        // The new word goes after the program's name and the line's words.
        let slot = 1 + ::exec::split_test(input).0.len();
        params.extend(carver::words::make_room(unit, input, slot));
    }
    liftable(params, input, args_in_input)
}

/// `params` with the bytes their values cannot hold and still be lifted,
/// when the system input starts with the command line (added to those
/// their encoding excludes: a digit array's values past 9).
pub fn liftable(mut params: Vec<Param>, input: &[u8], args_in_input: bool) -> Vec<Param> {
    if args_in_input {
        for p in &mut params {
            p.excluded.extend(lifter::unliftable_bytes(input, p));
            p.excluded.sort_unstable();
            p.excluded.dedup();
        }
    }
    params
}

/// Starts the unit (an error when it cannot be replayed at all) and
/// returns how it ran as carved, then explores it unless that failed.
/// The unit fork server stays in `runner`, where a resumed exploration
/// finds it again (a started one replaces it).
#[allow(clippy::too_many_arguments)]
pub fn explore(
    program: &Path,
    unit: &Unit,
    params: &[Param],
    gen: &mut dyn UnitGenerator,
    how: Explore,
    limits: &Limits,
    runner: &mut Option<UnitRunner>,
    mut each: impl FnMut(Try<'_>) -> crate::Result<()>,
) -> crate::Result<(Outcome, Explored)> {
    if how == Explore::Start {
        gen.start(&unit.meta.function, params);
    }
    let symbolic = gen.symbolic_inputs();
    if how == Explore::Start || runner.is_none() {
        *runner = None;
        let timeout = if symbolic.is_some() { limits.timeout * SYMBOLIC_SLOWDOWN } else { limits.timeout };
        *runner = Some(UnitRunner::start(program, timeout, unit, limits.restore, symbolic.as_deref())?);
    }
    let runner = runner.as_mut().expect("started above");
    let first = runner.first;
    let mut done = Explored::default();
    if matches!(first, Outcome::Crash(_) | Outcome::Timeout) {
        return Ok((first, done));
    }
    'all: while (done.tries as usize) < limits.tries {
        let batch = gen.next(params, BATCH.min(limits.tries - done.tries as usize));
        if batch.is_empty() {
            if !(limits.wait && gen.pending() != Pending::Nothing) || limits.until.is_some_and(|t| Instant::now() >= t)
            {
                break;
            }
            gen.wait(WAIT);
            continue;
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
            let (outcome, new_edges) = runner.try_unit(&patched)?;
            let trace = runner.take_trace()?;
            if let Some(t) = &trace {
                let (n, missed) = runner.slot_check(t);
                done.directions_with_slot += n;
                done.directions_not_counted += missed;
            }
            done.seconds_in_tries += started.elapsed().as_secs_f64();
            done.tries += 1;
            done.timed_out += u64::from(outcome == Outcome::Timeout);
            gen.observe(c, trace);
            let symbolic = symbolic.is_some();
            each(Try { candidate: c, unit: patched, outcome, new: !new_edges.is_empty(), new_edges, symbolic })?;
        }
    }
    Ok((first, done))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symbolic_replay_that_runs_out_of_time_is_no_failure_a_crash_is() {
        let c = Candidate { values: vec![(0, model::unit::Value::Int(1))], op: "solved", tag: 0 };
        let t = |outcome, symbolic| Try {
            candidate: &c,
            unit: Unit::default(),
            outcome,
            new: false,
            new_edges: Vec::new(),
            symbolic,
        };
        assert!(t(Outcome::Timeout, false).failed());
        assert!(!t(Outcome::Timeout, true).failed());
        assert!(t(Outcome::Crash(11), true).failed());
        assert!(!t(Outcome::Exit(0), false).failed());
    }
}
