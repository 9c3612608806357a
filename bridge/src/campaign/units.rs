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
//! again while it has candidates coming; a new unit is taken when it is
//! idle, and a round goes on to the next unit while the generator stays
//! idle (a unit that gives nothing more costs no wait). Values that fail
//! or reach edges no system run covered are lifted and re-run through the
//! whole program: true alarms go to `alarms/`, coverage lifts join the
//! queue, false alarms are counted; a function whose lifts keep
//! reproducing nothing is dropped.

mod main_rounds;
mod shares;

use super::outdir::sanitize;
use super::Campaign;
use crate::unit_loop::{explore, Explore, Limits, Try};
use ::exec::Outcome;
use driver::carve::{carve_run, list_functions, Caps, FunctionInfo};
use driver::Restore;
use lifter::Class;
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
/// Units of one carved entry kept for the rounds to come.
const POOL: usize = 8;
/// The most of a campaign's time that unit rounds take.
const MAX_SHARE: f64 = 0.5;
/// Values tried per unit, over the rounds that explore it.
const TRIES: usize = 300;
/// Units of one function that could not be replayed, after which the
/// function is no longer chosen (its context is not in its snapshots).
const MAX_UNREPLAYABLE: u32 = 2;
/// Carvings for a function that gave it no unit with parameters, after
/// which no more entries are carved for it.
const MAX_BARREN: u32 = 2;
/// Lifts in a row from one function that reproduced nothing at system
/// level, after which its values are no longer lifted and it is no longer
/// chosen (its parameters are coincidences: `version_etc_arn`'s count of
/// authors mapped to a `2` of the input).
const MAX_FRUITLESS: u32 = 8;
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
    /// Values tried so far.
    tries: usize,
    /// Its unit fork server, kept for the rounds that resume it.
    runner: Option<driver::UnitRunner>,
}

pub struct UnitWork {
    program: PathBuf,
    functions: BTreeMap<String, FunctionInfo>,
    generator: Box<dyn UnitGenerator>,
    next_entry: usize,
    /// Queue entries carved for a function (chosen because they reach it).
    carves: BTreeMap<String, u32>,
    /// Carvings for a function that gave it no unit with parameters.
    barren: BTreeMap<String, u32>,
    analysed: BTreeMap<String, u32>,
    /// Lifts in a row per function that were neither coverage lifts nor
    /// true alarms.
    fruitless: BTreeMap<String, u32>,
    /// Units per function whose replay, as carved, crashed or hung.
    unreplayable: BTreeMap<String, u32>,
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
}

impl UnitWork {
    pub fn new(program: PathBuf, generator: Box<dyn UnitGenerator>) -> anyhow::Result<UnitWork> {
        let functions = list_functions(&program)?.into_iter().map(|f| (f.name.clone(), f)).collect();
        Ok(UnitWork {
            program,
            functions,
            generator,
            next_entry: 0,
            carves: BTreeMap::new(),
            barren: BTreeMap::new(),
            analysed: BTreeMap::new(),
            fruitless: BTreeMap::new(),
            unreplayable: BTreeMap::new(),
            alarms: BTreeMap::new(),
            last: Instant::now(),
            current: None,
            pool: Vec::new(),
            main_done: BTreeSet::new(),
            main_grown: BTreeSet::new(),
            main_turns: 0,
            shares: shares::Shares::default(),
            coverage_given: 0,
        })
    }
}

impl Campaign {
    /// A unit round, when one is due.
    pub(super) fn unit_round(&mut self) -> anyhow::Result<()> {
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
        if uw.last.elapsed() < QUICK
            || uw.generator.pending() == Pending::Working
            || self.file.stats.unit_seconds > MAX_SHARE * self.elapsed()
        {
            self.units = Some(uw);
            return Ok(());
        }
        let started = Instant::now();
        // A bug in the tools that panics in a round costs the round, not
        // the campaign (the tools unwind; only the runtime aborts).
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.rounds(&mut uw, started)))
            .unwrap_or_else(|p| Err(anyhow::anyhow!("internal error: {}", panic_text(&p))));
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
    fn rounds(&mut self, uw: &mut UnitWork, started: Instant) -> anyhow::Result<()> {
        loop {
            let (t, before) = (Instant::now(), self.effective_lifts());
            self.round(uw)?;
            if let Some(cur) = &uw.current {
                let main = cur.unit.meta.function == main_rounds::MAIN;
                uw.shares.add(main, t.elapsed().as_secs_f64(), self.effective_lifts() - before);
            }
            if uw.generator.pending() != Pending::Nothing
                || started.elapsed() >= ROUND
                || self.elapsed() >= self.file.config.time_budget_s
            {
                return Ok(());
            }
        }
    }

    fn round(&mut self, uw: &mut UnitWork) -> anyhow::Result<()> {
        // A unit whose generator still works on it (its solver runs while
        // the system fuzzer does) is picked up again.
        if let Some(mut cur) = uw.current.take() {
            if uw.generator.pending() != Pending::Nothing && cur.tries < TRIES {
                let r = self.explore_unit(uw, &mut cur, Explore::Resume);
                uw.current = Some(cur);
                return r;
            }
        }
        // `main` or the pool, by their turns; the other when the first has
        // no unit to give.
        let main_first = uw.shares.main_due();
        if main_first {
            if let Some(cur) = self.main_turn(uw)? {
                return self.start_unit(uw, cur);
            }
        }
        if let Some(cur) = self.pool_unit(uw)? {
            return self.start_unit(uw, cur);
        }
        if !main_first {
            if let Some(cur) = self.main_turn(uw)? {
                return self.start_unit(uw, cur);
            }
        }
        Ok(())
    }

    /// The pool's unit worth a round, when it has one (filled from a new
    /// carving when empty).
    fn pool_unit(&mut self, uw: &mut UnitWork) -> anyhow::Result<Option<Current>> {
        if uw.pool.is_empty() {
            self.fill_pool(uw)?;
        }
        // The unit whose function has the most uncovered branch outcomes,
        // less what earlier rounds spent on it.
        let score = |c: &Current| {
            let f = &c.unit.meta.function;
            let analysed = uw.analysed.get(f).copied().unwrap_or(0);
            open_outcomes(&uw.functions[f], &self.cov) as f64 / f64::from(1 + analysed)
        };
        let replayable = |c: &Current| {
            let f = &c.unit.meta.function;
            uw.unreplayable.get(f).copied().unwrap_or(0) < MAX_UNREPLAYABLE
                && uw.fruitless.get(f).copied().unwrap_or(0) < MAX_FRUITLESS
        };
        let best = (0..uw.pool.len())
            .filter(|&i| replayable(&uw.pool[i]))
            .max_by(|&i, &j| score(&uw.pool[i]).total_cmp(&score(&uw.pool[j])));
        let Some(best) = best else {
            uw.pool.clear();
            return Ok(None);
        };
        Ok(Some(uw.pool.swap_remove(best)))
    }

    /// Coverage lifts and true alarms so far.
    fn effective_lifts(&self) -> u64 {
        self.file.stats.coverage_lifts + self.file.stats.true_alarms
    }

    /// Explores a unit from its start; it stays the current one.
    fn start_unit(&mut self, uw: &mut UnitWork, mut cur: Current) -> anyhow::Result<()> {
        uw.shares.start(cur.unit.meta.function == main_rounds::MAIN);
        *uw.analysed.entry(cur.unit.meta.function.clone()).or_default() += 1;
        self.file.stats.units_analysed += 1;
        let r = self.explore_unit(uw, &mut cur, Explore::Start);
        uw.current = Some(cur);
        r
    }

    /// Carves a queue entry that reaches the function most worth a unit
    /// (see [`Campaign::entry_to_carve`]); its units with parameters (the
    /// best few, by uncovered branch outcomes of their function) wait in
    /// the pool for the rounds to come.
    fn fill_pool(&mut self, uw: &mut UnitWork) -> anyhow::Result<()> {
        let (k, target) = self.entry_to_carve(uw);
        // Only the functions the pool could keep are carved: those the
        // entry reaches with the most uncovered outcomes (a snapshot per
        // function is the cost of a carving run, and with every function
        // carvable, inlined ones too, a run would snapshot them all).
        let hits = self.corpus[k].hits.as_slice();
        let mut wanted: Vec<(usize, &str)> = uw
            .functions
            .values()
            .filter(|f| f.name != "main" && !reaching(std::iter::once(hits), f).is_empty())
            .map(|f| (open_outcomes(f, &self.cov), f.name.as_str()))
            .filter(|(open, _)| *open > 0)
            .collect();
        wanted.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
        let mut functions: Vec<String> = wanted.iter().take(2 * POOL).map(|(_, n)| n.to_string()).collect();
        if let Some(t) = &target {
            if !functions.contains(t) {
                functions.push(t.clone());
            }
        }
        let mut pool: Vec<(usize, Current)> = Vec::new();
        for c in self.carve_entry(&uw.program, k, functions)? {
            let Some(f) = uw.functions.get(&c.unit.meta.function) else { continue };
            // `main` has rounds of its own.
            if f.name != "main" {
                pool.push((open_outcomes(f, &self.cov), c));
            }
        }
        if let Some(t) = target {
            if !pool.iter().any(|(_, c)| c.unit.meta.function == t) {
                *uw.barren.entry(t.clone()).or_default() += 1;
            }
            *uw.carves.entry(t).or_default() += 1;
        }
        pool.sort_by_key(|p| std::cmp::Reverse(p.0));
        uw.pool = pool.into_iter().take(POOL).map(|p| p.1).collect();
        Ok(())
    }

    /// Carves corpus entry `k` (one call of each of `functions`, or of
    /// every function): its units with parameters, counted.
    fn carve_entry(
        &mut self,
        program: &std::path::Path,
        k: usize,
        functions: Vec<String>,
    ) -> anyhow::Result<Vec<Current>> {
        let (entry, input) = (self.corpus[k].id, self.corpus[k].data.clone());
        let caps = Caps { functions, max_per_function: 1, budget: 256 << 10 };
        let args_in_input = self.fs.target().args_in_input;
        let (_, carved) = carve_run(self.fs.target().clone(), program, &input, &caps)?;
        self.file.stats.units_carved += carved.units.len() as u64;
        let mut out = Vec::new();
        for mut unit in carved.units {
            let params = crate::unit_loop::parameters(&mut unit, &input, args_in_input);
            self.file.stats.units_with_params += u64::from(!params.is_empty());
            if !params.is_empty() {
                out.push(Current { unit, params, entry, input: input.clone(), tries: 0, runner: None });
            }
        }
        Ok(out)
    }

    /// The queue entry to carve next, and the function it was chosen for.
    /// Among the functions that system runs reach but do not cover fully,
    /// the one with the most uncovered branch outcomes (less the entries
    /// already carved for it); its reaching entries are taken in turn.
    /// When none is left (every such function gave no unit with
    /// parameters, or could not be replayed), the entries in queue order.
    fn entry_to_carve(&self, uw: &mut UnitWork) -> (usize, Option<String>) {
        let count = |m: &BTreeMap<String, u32>, f: &str| m.get(f).copied().unwrap_or(0);
        let mut targets: Vec<(f64, &FunctionInfo)> = uw
            .functions
            .values()
            .filter(|f| {
                count(&uw.barren, &f.name) < MAX_BARREN
                    && count(&uw.unreplayable, &f.name) < MAX_UNREPLAYABLE
                    && count(&uw.fruitless, &f.name) < MAX_FRUITLESS
            })
            .filter_map(|f| {
                let open = open_outcomes(f, &self.cov);
                (open > 0 && (open as u32) < f.branches)
                    .then(|| (open as f64 / f64::from(1 + count(&uw.carves, &f.name)), f))
            })
            .collect();
        targets.sort_by(|a, b| b.0.total_cmp(&a.0));
        for (_, f) in targets {
            let reaching = reaching(self.corpus.iter().map(|e| e.hits.as_slice()), f);
            if !reaching.is_empty() {
                let k = reaching[count(&uw.carves, &f.name) as usize % reaching.len()];
                return (k, Some(f.name.clone()));
            }
        }
        let k = uw.next_entry % self.corpus.len();
        uw.next_entry += 1;
        (k, None)
    }

    /// Explores the round's unit until its generator has nothing ready,
    /// for at most as long as the system fuzzing between two rounds, and
    /// never past the campaign's end.
    fn explore_unit(&mut self, uw: &mut UnitWork, cur: &mut Current, how: Explore) -> anyhow::Result<()> {
        let left = (self.file.config.time_budget_s - self.elapsed()).clamp(0.0, PERIOD.as_secs_f64());
        let limits = Limits {
            tries: TRIES - cur.tries,
            until: Some(Instant::now() + Duration::from_secs_f64(left)),
            timeout: self.fs.target().timeout,
            restore: Restore::Once,
            wait: false,
        };
        let before = (self.file.stats.lifted, self.file.stats.coverage_lifts, self.file.stats.true_alarms);
        let (program, alarms, fruitless) = (uw.program.clone(), &mut uw.alarms, &mut uw.fruitless);
        let mut runner = cur.runner.take();
        let (unit, params) = (&cur.unit, &cur.params);
        let result = explore(&program, unit, params, uw.generator.as_mut(), how, &limits, &mut runner, |t| {
            let fruitless = fruitless.entry(unit.meta.function.clone()).or_default();
            self.unit_try(alarms, fruitless, cur, t)
        });
        cur.runner = runner;
        let (first, done) = result?;
        cur.tries += done.tries as usize;
        let s = &self.file.stats;
        let row = format!(
            "{:.3},{},{},{},{},{},{},{}",
            self.elapsed(),
            unit.meta.function,
            cur.entry,
            if how == Explore::Start { "start" } else { "resume" },
            done.tries,
            s.lifted - before.0,
            s.coverage_lifts - before.1,
            s.true_alarms - before.2
        );
        self.out.append_line("units.csv", UNITS_CSV_HEADER, &row)?;
        if done.given_up || matches!(first, Outcome::Crash(_) | Outcome::Timeout) {
            cur.tries = TRIES;
        }
        if matches!(first, Outcome::Crash(_) | Outcome::Timeout) {
            self.file.stats.units_unreplayable += 1;
            *uw.unreplayable.entry(unit.meta.function.clone()).or_default() += 1;
        }
        self.file.stats.units_given_up += u64::from(done.given_up);
        self.file.stats.unit_generator = uw.generator.stats_json();
        Ok(())
    }

    /// One try of a unit round: counted, and lifted when it failed or
    /// found unit-level coverage.
    fn unit_try(
        &mut self,
        alarms: &mut BTreeMap<String, u64>,
        fruitless: &mut u32,
        cur: &Current,
        t: Try<'_>,
    ) -> anyhow::Result<()> {
        let (entry, input, unit, params) = (cur.entry, &cur.input[..], &cur.unit, &cur.params[..]);
        self.file.stats.unit_tries += 1;
        let failed = t.failed();
        self.file.stats.unit_failures += u64::from(failed);
        if !t.worth_lifting(&self.cov, Some(&self.branch_mask)) || *fruitless >= MAX_FRUITLESS {
            return Ok(());
        }
        let c = t.candidate;
        let subs: Vec<_> = c.values.iter().map(|(k, v)| (&params[*k], v)).collect();
        let lifted = lifter::lift_all(input, &subs, self.fs.target().args_in_input);
        let (class, sys) = lifter::check(&mut self.fs, &mut self.cov, &lifted)?;
        // What the lifted run's crash was, if it crashed (taken whatever
        // the class, so that no later run is given this stack).
        let key = super::signatures::take_key(self.out.root(), self.file.config.signature_depth);
        self.file.stats.execs += 1;
        self.file.stats.lifted += 1;
        let function = unit.meta.function.clone();
        *fruitless = if class == Class::FalseAlarm { *fruitless + 1 } else { 0 };
        match (class, c.changed(params)) {
            (Class::TrueAlarm, None) => self.file.stats.true_alarms += 1,
            (Class::TrueAlarm, Some((k, value))) => {
                self.file.stats.true_alarms += 1;
                let key = key.unwrap_or_else(|| format!("{function} parameter {k}: {sys}"));
                let found =
                    super::alarms::Found { cur, t: &t, k: *k, value, lifted: &lifted, outcome: sys.to_string() };
                self.keep_alarm(alarms, key, found)?;
            }
            (Class::CoverageLift, _) => {
                self.file.stats.coverage_lifts += 1;
                let id = self.next_id;
                self.next_id += 1;
                let new_word = c.values.iter().any(|(k, v)| {
                    matches!(params[*k].site, model::unit::Site::NewWord { .. }) && !params[*k].text(v).is_empty()
                });
                let suffix = if new_word { super::outdir::NEW_WORD_OP } else { "" };
                let name = format!("queue/id:{id:06},src:{entry:06},op:lift_{}{suffix}", sanitize(&function));
                self.out.write(&name, &lifted)?;
                let hits = self.hits();
                self.corpus.push(super::Entry { id, data: lifted, hits, new_word, seed: false });
            }
            (Class::FalseAlarm, _) => self.file.stats.false_alarms += u64::from(failed),
        }
        Ok(())
    }
}

/// What a caught panic said.
fn panic_text(p: &Box<dyn std::any::Any + Send>) -> &str {
    p.downcast_ref::<String>().map(String::as_str).or_else(|| p.downcast_ref::<&str>().copied()).unwrap_or("a panic")
}

/// Branch outcomes of `f` that no system run has covered.
fn open_outcomes(f: &FunctionInfo, cov: &::exec::Coverage) -> usize {
    (f.first_branch..f.first_branch + f.branches).filter(|&s| !cov.is_covered(s as usize)).count()
}

/// The entries (their positions) whose runs hit a branch outcome of `f`,
/// given each entry's sorted hits.
fn reaching<'a>(hits: impl Iterator<Item = &'a [u32]>, f: &FunctionInfo) -> Vec<usize> {
    let (lo, hi) = (f.first_branch, f.first_branch + f.branches);
    hits.enumerate()
        .filter(|(_, h)| {
            let i = h.partition_point(|&s| s < lo);
            i < h.len() && h[i] < hi
        })
        .map(|(k, _)| k)
        .collect()
}

impl UnitWork {
    /// The alarms a resumed campaign kept (see `alarms::known_alarms`).
    pub fn remember(&mut self, alarms: BTreeMap<String, u64>) {
        self.alarms = alarms;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_reach_the_functions_whose_outcomes_they_hit() {
        let f = FunctionInfo { first_branch: 10, branches: 4, name: "f".into() };
        let hits: [&[u32]; 5] = [&[1, 9, 14], &[10], &[13, 20], &[], &[2, 11, 12]];
        assert_eq!(reaching(hits.iter().copied(), &f), [1, 2, 4]);
        let empty = FunctionInfo { first_branch: 10, branches: 0, name: "g".into() };
        assert!(reaching(hits.iter().copied(), &empty).is_empty());
    }
}
