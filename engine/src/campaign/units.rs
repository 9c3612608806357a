//! The bridge inside a campaign (`--unit fuzz|symbolic`): unit rounds
//! between system batches. A queue entry that reaches a function system
//! runs cover only in part is carved; its units with mapped parameters
//! wait in a pool, and each round explores the one whose
//! function has the most branch outcomes not yet covered at system level
//! (less what earlier rounds spent on it); other rounds explore `main` of
//! the next entry not explored for it (`main_rounds.rs`), the first round
//! the first seed's. `main` and the pool take turns by what they lift: the
//! side with more effective lifts per second starts three units in four
//! (`shares.rs`). A generator that works on its
//! own (the symbolic explorer's solver thread) has its unit picked up
//! again while it has candidates coming, but `main` gives way to a unit of
//! the pool when the pool has had less than a quarter of the rounds' time
//! (dc's long programs kept the solver busy on `main` for whole
//! campaigns, and its number functions were never explored); a new unit is taken when it is
//! idle, and a round goes on to the next unit while the generator stays
//! idle (a unit that gives nothing more costs no wait). Values that fail
//! or reach edges no system run covered are lifted and re-run through the
//! whole program: true alarms go to `alarms/`, coverage lifts join the
//! queue, false alarms are counted; a function whose lifts keep
//! reproducing nothing is dropped. Carving for the pool is in `pool.rs`,
//! a try's lift and run in `tries.rs`.

mod levels;
mod main_rounds;
mod pool;
mod schedule;
mod shares;
mod tries;

use super::Campaign;
use crate::unit_loop::{explore, Explore, Limits};
use ::exec::Outcome;
use driver::carve::FunctionInfo;
use driver::Restore;
use schedule::Schedule;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::{Duration, Instant};
use unitgen::{Pending, UnitGenerator};

/// The most one unit's exploration takes in a round.
const PERIOD: Duration = Duration::from_secs(5);
/// System fuzzing between two rounds; a round is skipped while the
/// generator works on its own (solving, while the system fuzzer runs) and
/// has nothing ready. The share below bounds the rounds' time.
const QUICK: Duration = Duration::from_millis(100);
/// A round goes on to the next unit while its generator is idle (the last
/// unit gave nothing more to try) for up to this long.
const ROUND: Duration = Duration::from_secs(1);
/// How long `main` keeps the floor without a lift that reproduced, while
/// its solver still works: then the next turn comes (see `round`).
const MAIN_SLICE: Duration = Duration::from_secs(15);
/// Units of one carved entry kept for the rounds to come.
const POOL: usize = 8;
/// Values tried per unit, over the rounds that explore it.
const TRIES: usize = 300;
/// The columns of `units.csv`: one row per unit round.
const UNITS_CSV_HEADER: &str = "seconds,function,entry,round,tries,lifted,coverage_lifts,true_alarms";
/// Unit-round errors printed before they are only counted.
const MAX_REPORTED_ERRORS: u64 = 5;

/// The unit a round explored last, and where it came from.
pub(super) struct Current {
    pub(super) unit: model::unit::Unit,
    pub(super) params: Vec<model::unit::Param>,
    pub(super) entry: u64,
    pub(super) input: Vec<u8>,
    /// Per parameter, the grammar's nonterminal its occurrences are
    /// derivation nodes of (`carver::align`; empty without a grammar).
    pub(super) nonterminals: Vec<Option<usize>>,
    /// Values tried so far.
    tries: usize,
    /// When it was started or last lifted a value that reproduced.
    lifted_at: Instant,
    /// Its unit fork server, kept for the rounds that resume it.
    runner: Option<driver::UnitRunner>,
}

pub struct UnitWork {
    program: PathBuf,
    /// The functions and what the rounds know of each (which to explore).
    schedule: Schedule,
    generator: Box<dyn UnitGenerator>,
    next_entry: usize,
    /// The key of every alarm kept (its signature; see `alarms.rs`) and
    /// its id.
    alarms: BTreeMap<String, u64>,
    last: Instant,
    current: Option<Current>,
    /// Units carved from the last entry, not yet explored.
    pool: Vec<Current>,
    /// Entries whose `main` was explored (see `main_rounds.rs`).
    main_done: BTreeSet<u64>,
    /// Entries whose `main` was explored again with its input file's
    /// numbers padded (`carver::grow`).
    main_grown: BTreeSet<u64>,
    /// `main`'s turns so far: they take in turn the oldest lift that added
    /// a word, the queue in order, and the queue again with room to grow.
    main_turns: u64,
    /// The units `main` and the pool started, their time and what each
    /// lifted (`units/shares.rs`).
    shares: shares::Shares,
    /// System coverage (edges) the generator was last given.
    coverage_given: usize,
    /// The unit level's share against system runs (`units/levels.rs`).
    levels: levels::Levels,
}

impl UnitWork {
    /// `functions`: those the program lists (`driver::carve::list_program`).
    /// `only`: the functions the unit level may take (all when `None`).
    pub fn new(
        program: PathBuf,
        mut functions: Vec<FunctionInfo>,
        only: Option<&regex::Regex>,
        generator: Box<dyn UnitGenerator>,
    ) -> crate::Result<UnitWork> {
        if let Some(re) = only {
            functions.retain(|f| re.is_match(&f.name));
            crate::error::ensure!(
                !functions.is_empty(),
                "no function of {} matches --functions {re}",
                program.display()
            );
        }
        Ok(UnitWork {
            schedule: Schedule::new(functions, only.is_some()),
            program,
            generator,
            next_entry: 0,
            alarms: BTreeMap::new(),
            last: Instant::now(),
            current: None,
            pool: Vec::new(),
            main_done: BTreeSet::new(),
            main_grown: BTreeSet::new(),
            main_turns: 0,
            shares: shares::Shares::default(),
            levels: levels::Levels::new(std::thread::available_parallelism().map_or(1, |n| n.get())),
            coverage_given: 0,
        })
    }
}

impl Campaign {
    /// A unit round, when one is due.
    pub(super) fn unit_round(&mut self) -> crate::Result<()> {
        let Some(mut uw) = self.units.take() else { return Ok(()) };
        // The generator learns what system runs cover (its solver works
        // while they run).
        if uw.coverage_given != self.cov.edges() {
            uw.coverage_given = self.cov.edges();
            // Slots that are no branch outcome (entries, edges only the
            // out-of-line copies have) are given as covered: no system
            // run could show them, so the generator does not aim at them.
            let mut covered = self.cov.as_bytes().to_vec();
            for (c, &branch) in covered.iter_mut().zip(&self.branch_mask) {
                if !branch {
                    *c = (*c).max(1);
                }
            }
            uw.generator.system_coverage(&covered);
        }
        let over_share = self.over_share(&mut uw);
        // Without system tests of its own (`--system afl++`) there is no
        // system fuzzing to leave time for between rounds.
        let quick = if self.generator.generates() { QUICK } else { Duration::ZERO };
        if uw.last.elapsed() < quick || uw.generator.pending() == Pending::Working || over_share {
            self.units = Some(uw);
            return Ok(());
        }
        let started = Instant::now();
        // A bug in the tools that panics in a round costs the round, not
        // the campaign (the tools unwind; only the runtime aborts).
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.rounds(&mut uw, started)))
            .unwrap_or_else(|p| Err(crate::Error::Internal(panic_text(&p).to_string())));
        self.file.stats.unit_seconds += started.elapsed().as_secs_f64();
        uw.last = Instant::now();
        self.units = Some(uw);
        // A unit round that fails (a carving run that dies, a unit the
        // program cannot replay) is reported and skipped: system fuzzing
        // goes on.
        if let Err(e) = result {
            self.file.stats.unit_errors += 1;
            if self.file.stats.unit_errors <= MAX_REPORTED_ERRORS {
                eprintln!("\rbridge run: unit round skipped: {e:#}");
            }
        }
        Ok(())
    }

    /// Rounds, one unit each, while the generator is idle after one (its
    /// unit gave nothing more), for up to [`ROUND`].
    fn rounds(&mut self, uw: &mut UnitWork, started: Instant) -> crate::Result<()> {
        loop {
            let (t, before) = (Instant::now(), self.effective_lifts());
            // Nothing to explore: the round ends (it would spin until
            // ROUND, taking that time from system runs).
            if !self.round(uw)? {
                return Ok(());
            }
            if let Some(cur) = &mut uw.current {
                let main = cur.unit.meta.function == main_rounds::MAIN;
                let lifted = self.effective_lifts() - before;
                uw.shares.add(main, t.elapsed().as_secs_f64(), lifted);
                if lifted > 0 {
                    cur.lifted_at = Instant::now();
                }
            }
            if uw.generator.pending() != Pending::Nothing
                || started.elapsed() >= ROUND
                || self.elapsed() >= self.file.config.time_budget_s
            {
                return Ok(());
            }
        }
    }

    /// One unit explored (resumed or started); `false` when there was
    /// none to explore.
    fn round(&mut self, uw: &mut UnitWork) -> crate::Result<bool> {
        // A unit whose generator still works on it (its solver runs while
        // the system fuzzer does) is picked up again.
        // But `main`, whose solver can keep a round busy for the whole
        // campaign (dc's long programs), gives way to a unit of the pool
        // when the pool has had less than its share of the rounds' time,
        // and to the next turn when it has lifted nothing for
        // [`MAIN_SLICE`] (traces of a long input file can keep the solver
        // busy for minutes).
        if let Some(mut cur) = uw.current.take() {
            let main = cur.unit.meta.function == main_rounds::MAIN;
            let stale = main && cur.lifted_at.elapsed() >= MAIN_SLICE;
            if uw.generator.pending() != Pending::Nothing && cur.tries < TRIES && !stale {
                if main && uw.shares.pool_behind() {
                    if let Some(next) = self.pool_unit(uw)? {
                        return self.start_unit(uw, next).map(|()| true);
                    }
                }
                let r = self.explore_unit(uw, &mut cur, Explore::Resume);
                uw.current = Some(cur);
                return r.map(|()| true);
            }
        }
        // `main` or the pool, by their turns; the other when the first has
        // no unit to give.
        let main_first = uw.shares.main_due();
        if main_first {
            if let Some(cur) = self.main_turn(uw)? {
                return self.start_unit(uw, cur).map(|()| true);
            }
        }
        if let Some(cur) = self.pool_unit(uw)? {
            return self.start_unit(uw, cur).map(|()| true);
        }
        if !main_first {
            if let Some(cur) = self.main_turn(uw)? {
                return self.start_unit(uw, cur).map(|()| true);
            }
        }
        Ok(false)
    }

    /// The pool's unit worth a round, when it has one (filled from a new
    /// carving when empty).
    fn pool_unit(&mut self, uw: &mut UnitWork) -> crate::Result<Option<Current>> {
        if uw.pool.is_empty() {
            self.fill_pool(uw)?;
        }
        let cov = &self.cov;
        let functions: Vec<&str> = uw.pool.iter().map(|c| c.unit.meta.function.as_str()).collect();
        let best = uw.schedule.best_in_pool(&functions, &|k| cov.is_covered(k as usize));
        let Some(best) = best else {
            uw.pool.clear();
            return Ok(None);
        };
        Ok(Some(uw.pool.swap_remove(best)))
    }

    /// Whether the unit level has taken its share of the campaign's time
    /// (`units/levels.rs`): all of it when the system tests come from
    /// other instances (`--system afl++`). On one core the solver thread
    /// is paced to what the rounds leave of the share.
    fn over_share(&mut self, uw: &mut UnitWork) -> bool {
        let elapsed = self.elapsed();
        let s = &mut self.file.stats;
        let one_core = uw.levels.one_core();
        let solver_s = if one_core { uw.generator.own_cpu_seconds() } else { 0.0 };
        let unit_s = s.unit_seconds + solver_s;
        uw.levels.update(elapsed, unit_s, s.edges_by_system, s.edges_by_units);
        let external = !self.generator.generates();
        let share = if external { 1.0 } else { uw.levels.unit_share() };
        s.unit_share = share;
        // With no system tests of its own, the unit level has the core:
        // the rounds wait for the solver, so it is not held back.
        if one_core && !external {
            uw.generator.set_cpu_share((share - s.unit_seconds / elapsed.max(1.0)).max(0.05));
        }
        unit_s > share * elapsed
    }

    /// Coverage lifts and true alarms so far.
    fn effective_lifts(&self) -> u64 {
        self.file.stats.lifts.coverage_lifts + self.file.stats.lifts.true_alarms
    }

    /// Explores a unit from its start; it stays the current one.
    fn start_unit(&mut self, uw: &mut UnitWork, mut cur: Current) -> crate::Result<()> {
        uw.shares.start(cur.unit.meta.function == main_rounds::MAIN);
        uw.schedule.record_mut(&cur.unit.meta.function).analysed += 1;
        self.file.stats.units_analysed += 1;
        let r = self.explore_unit(uw, &mut cur, Explore::Start);
        uw.current = Some(cur);
        r
    }

    /// Explores the round's unit until its generator has nothing ready,
    /// for at most as long as the system fuzzing between two rounds, and
    /// never past the campaign's end.
    fn explore_unit(&mut self, uw: &mut UnitWork, cur: &mut Current, how: Explore) -> crate::Result<()> {
        let left = (self.file.config.time_budget_s - self.elapsed()).clamp(0.0, PERIOD.as_secs_f64());
        let limits = Limits {
            tries: TRIES - cur.tries,
            until: Some(Instant::now() + Duration::from_secs_f64(left)),
            timeout: self.fs.target().timeout,
            restore: Restore::Once,
            wait: false,
        };
        let before =
            (self.file.stats.lifts.lifted, self.file.stats.lifts.coverage_lifts, self.file.stats.lifts.true_alarms);
        let (program, alarms, schedule) = (uw.program.clone(), &mut uw.alarms, &mut uw.schedule);
        let mut runner = cur.runner.take();
        let (unit, params) = (&cur.unit, &cur.params);
        let result = explore(&program, unit, params, uw.generator.as_mut(), how, &limits, &mut runner, |t| {
            let fruitless = &mut schedule.record_mut(&unit.meta.function).fruitless;
            self.unit_try(alarms, fruitless, cur, t)
        });
        cur.runner = runner;
        // A unit whose round failed is not resumed, and a function whose
        // rounds keep failing is no longer chosen.
        let (first, done) = result.inspect_err(|_| {
            cur.tries = TRIES;
            uw.schedule.record_mut(&unit.meta.function).failed += 1;
        })?;
        cur.tries += done.tries as usize;
        // A unit whose generator is done with it after trying it as carved
        // only (`main` has rounds of its own, which grow its numbers and
        // words); one still being solved for is not.
        let idle = &mut uw.schedule.record_mut(&unit.meta.function).idle;
        if cur.tries > 1 {
            *idle = 0;
        } else if uw.generator.pending() == Pending::Nothing && unit.meta.function != main_rounds::MAIN {
            *idle += 1;
        }
        let s = &self.file.stats;
        let row = format!(
            "{:.3},{},{},{},{},{},{},{}",
            self.elapsed(),
            unit.meta.function,
            cur.entry,
            if how == Explore::Start { "start" } else { "resume" },
            done.tries,
            s.lifts.lifted - before.0,
            s.lifts.coverage_lifts - before.1,
            s.lifts.true_alarms - before.2
        );
        self.out.append_line(model::layout::UNITS_CSV, UNITS_CSV_HEADER, &row)?;
        if done.given_up || matches!(first, Outcome::Crash(_) | Outcome::Timeout) {
            cur.tries = TRIES;
        }
        if matches!(first, Outcome::Crash(_) | Outcome::Timeout) {
            self.file.stats.units_unreplayable += 1;
            uw.schedule.record_mut(&unit.meta.function).unreplayable += 1;
        }
        self.file.stats.units_given_up += u64::from(done.given_up);
        self.file.stats.unit_generator = uw.generator.stats_json();
        Ok(())
    }
}

/// What a caught panic said.
fn panic_text(p: &Box<dyn std::any::Any + Send>) -> &str {
    p.downcast_ref::<String>().map(String::as_str).or_else(|| p.downcast_ref::<&str>().copied()).unwrap_or("a panic")
}

impl Campaign {
    /// Waits up to `limit` for the unit level: until its generator has
    /// candidates again when it is solving, else for the whole limit.
    pub(super) fn wait_for_units(&self, limit: Duration) {
        match &self.units {
            Some(uw) if uw.generator.pending() == Pending::Working => uw.generator.wait(limit),
            _ => std::thread::sleep(limit),
        }
    }
}

impl UnitWork {
    /// The alarms a resumed campaign kept (see `alarms::known_alarms`).
    pub fn remember(&mut self, alarms: BTreeMap<String, u64>) {
        self.alarms = alarms;
    }
}
