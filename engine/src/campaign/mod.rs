//! The campaign of `bridge run`: system tests generated in batches and run
//! as they come, a coverage-guided corpus, crashes and hangs kept once per
//! new behaviour, everything on disk as it happens (see `outdir.rs`), so a
//! killed campaign resumes without losing anything.

pub mod alarms;
mod child_timeouts;
mod cull;
mod failures;
mod favored;
mod imports;
pub mod outdir;
mod scheduler;
mod seed_check;
pub mod setup;
pub mod signatures;
pub mod state;
pub mod status;
pub mod sync;
mod trails;
pub(crate) mod trim;
pub mod units;

use ::exec::{Coverage, ForkServer, Newness, Outcome};
use failures::Sorted;
use model::layout;
use outdir::{sanitize, OutDir};
use provenance::Labels;
use state::{CampaignFile, Parents, Stats};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use systemgen::{Seed, SystemGenerator, TestCase};

/// Set by SIGINT/SIGTERM: stop after the current run, save, exit.
static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_: i32) {
    STOP.store(true, Ordering::Relaxed);
}

/// How often `coverage.csv` gets a row and `campaign.json` is rewritten.
const SAVE_EVERY: Duration = Duration::from_secs(5);

pub(crate) struct Entry {
    id: u64,
    /// Its path in the campaign directory (`queue/id:...`).
    name: String,
    data: Vec<u8>,
    /// The branch-outcome slots its run hit, sorted: which functions it
    /// reaches, for the unit rounds to choose what to carve.
    hits: Vec<u32>,
    /// It is a lift that added a word to the command line: a mode (an
    /// option, an operand) the explorer opened but has yet to explore;
    /// `main`'s rounds take these in turn with the rest.
    new_word: bool,
    /// One of the campaign's seeds.
    seed: bool,
    /// Where its bytes came from (see `provenance::Labels`).
    labels: Labels,
    /// How long its last run took, in microseconds.
    run_us: u32,
    /// It was trimmed already, or is not to be (`trim.rs`).
    trimmed: bool,
}

pub struct Campaign {
    out: OutDir,
    file: CampaignFile,
    fs: ForkServer,
    generator: Box<dyn SystemGenerator>,
    corpus: Vec<Entry>,
    cov: Coverage,
    /// The crashes and hangs kept, by key (`failures.rs`).
    crashes: failures::Failures,
    hangs: failures::Failures,
    /// The kept hang whose key the last run had when the short limit
    /// stopped it (see [`Campaign::run_system`]).
    known_hang: Option<u64>,
    /// The last system run ran into the calibrated limit (whatever a
    /// recheck showed after).
    timed_out: bool,
    /// Per parent, how many of its mutants ran into the limit; counted
    /// only for a generator whose every test names its true parent (not a
    /// grammar's whole derivations, not GNAST's proposals).
    child_timeouts: child_timeouts::ChildTimeouts,
    weigh_timeouts: bool,
    /// The last system run stopped at the calibrated limit and was not run
    /// again (nothing new among timeouts, no kept hang's place): whether it
    /// hangs is not known.
    unchecked: bool,
    /// Which corpus entries are favoured (see `favored.rs`), kept up as
    /// the corpus grows.
    favored: favored::Favored,
    /// Who picks the parents of generated tests (`scheduler.rs`).
    scheduler: scheduler::Scheduler,
    /// Which entries may be parents, when they are culled (`cull.rs`).
    cull: Option<cull::Cull>,
    branch_slots: Vec<usize>,
    /// A flag per map slot: whether it counts a branch outcome.
    branch_mask: Vec<bool>,
    next_id: u64,
    /// The bridge's unit rounds (`--unit fuzz`).
    units: Option<units::UnitWork>,
    /// The system generator's grammar, when it has one: unit parameters
    /// map to the nodes of their input's parse tree, and lifts must keep
    /// the test a sentence of it.
    grammar: Option<std::sync::Arc<grammar::Grammar>>,
    /// The AFL++ sync directory it imports from (`--sync`).
    sync: Option<sync::SyncDir>,
    /// Seconds spent before this process took over, and when it did.
    already: f64,
    started: Instant,
    /// The time-limit counters of the runs before this process took over
    /// (rechecked, slow, seconds lost).
    timeouts_before: (u64, u64, f64),
    /// Crashes not repeated in a fresh child before this process took over.
    not_repeated_before: u64,
}

/// A system test as it was made: its bytes, its name's `src:` and `op:`
/// fields, and its derivation tree when a grammar made it (written beside
/// it wherever it is kept).
struct Made<'a> {
    data: &'a [u8],
    src: &'a str,
    op: &'a str,
    tree: Option<&'a systemgen::Tree>,
}

impl Campaign {
    /// A new campaign in `out`, seeded with every file of the input directory.
    pub fn start(
        out: OutDir,
        file: CampaignFile,
        fs: ForkServer,
        generator: Box<dyn SystemGenerator>,
    ) -> crate::Result<Campaign> {
        let mut c = Campaign::empty(out, file, fs, generator);
        let seeds = driver::files::files_in(&c.file.config.input_dir)?;
        let mut seed_runs = Vec::new();
        for path in seeds {
            let data = match std::fs::read(&path) {
                Ok(d) => d,
                Err(e) => {
                    eprintln!("bridge run: warning: skipping seed {}: {e}", path.display());
                    continue;
                }
            };
            let name = sanitize(&path.file_name().unwrap_or_default().to_string_lossy());
            let id = c.next_id;
            let mut record = trails::seed(id, data.len());
            record.test = layout::test_name(layout::QUEUE, id, &format!("orig:{name}"));
            c.out.write_test(&record.test.clone(), &data, &record)?;
            c.next_id += 1;
            let outcome = c.fs.run(&data)?;
            seed_runs.push(seed_check::SeedRun { name: name.clone(), outcome, time: c.fs.last_run_time() });
            c.cov.add(c.fs.map());
            c.file.stats.execs += 1;
            c.record_failure(outcome, Made { data: &data, src: &format!("{id:06}"), op: "seed", tree: None }, || {
                record.clone()
            })?;
            let hits = c.hits();
            let labels = Labels::own(id, data.len());
            let (name, run_us) = (record.test.clone(), c.run_us());
            c.corpus.push(Entry { id, name, data, hits, new_word: false, seed: true, labels, run_us, trimmed: true });
        }
        crate::error::ensure!(!c.corpus.is_empty(), "no readable seed in {}", c.file.config.input_dir.display());
        for line in seed_check::report(&seed_runs) {
            eprintln!("bridge run: {line}");
        }
        c.calibrate()?;
        c.save()?;
        Ok(c)
    }

    /// Picks up a campaign from its directory: the corpus, crashes and hangs
    /// are run again to rebuild what was covered.
    pub fn resume(
        out: OutDir,
        mut file: CampaignFile,
        fs: ForkServer,
        generator: Box<dyn SystemGenerator>,
    ) -> crate::Result<Campaign> {
        file.stats.resumes += 1;
        file.stats.finished = false;
        let mut c = Campaign::empty(out, file, fs, generator);
        for s in c.out.saved(layout::QUEUE)? {
            c.fs.run(&s.data)?;
            c.cov.add(c.fs.map());
            c.next_id = c.next_id.max(s.id + 1);
            let hits = c.hits();
            let labels = s.labels.unwrap_or_else(|| Labels::own(s.id, s.data.len()));
            c.corpus.push(Entry {
                id: s.id,
                name: s.name,
                trimmed: s.seed,
                data: s.data,
                hits,
                new_word: s.new_word,
                seed: s.seed,
                labels,
                run_us: c.run_us(),
            });
        }
        crate::error::ensure!(
            !c.corpus.is_empty(),
            "the queue of {} is empty: nothing to resume",
            c.out.root().display()
        );
        for (dir, which) in [(layout::CRASHES, 0), (layout::HANGS, 1)] {
            for s in c.out.saved(dir)? {
                c.fs.run(&s.data)?;
                c.cov.add(c.fs.map());
                let depth = c.file.config.signature_depth;
                if which == 0 {
                    let key = signatures::failure_key(c.out.root(), depth, &c.fs);
                    c.crashes.remember(s.id, key, c.fs.map());
                } else {
                    let key = signatures::take_key(c.out.root(), depth);
                    c.hangs.remember(s.id, key, c.fs.map());
                }
            }
        }
        c.calibrate()?;
        c.save()?;
        Ok(c)
    }

    /// Limits runs to a few times what the seeds take, when the campaign
    /// was started without `-t` (see `exec::timeouts`).
    fn calibrate(&mut self) -> crate::Result<()> {
        if !self.file.config.calibrate {
            return Ok(());
        }
        let seeds: Vec<&[u8]> = self.corpus.iter().filter(|e| e.seed).map(|e| &e.data[..]).collect();
        let limit = self.fs.calibrate(&seeds)?;
        self.file.stats.timeout_calibrated_ms = limit.as_millis() as u64;
        eprintln!(
            "bridge run: runs limited to {} ms from the seeds' run times; a run past it runs again under {} ms (-t)",
            limit.as_millis(),
            self.file.config.timeout_ms
        );
        Ok(())
    }

    fn empty(out: OutDir, file: CampaignFile, fs: ForkServer, generator: Box<dyn SystemGenerator>) -> Campaign {
        let grammar = generator.grammar();
        let weigh_timeouts = grammar.is_none() && generator.records_labels();
        let branch_slots = fs.branch_slots();
        let mut branch_mask = vec![false; model::MAP_SIZE];
        for &s in &branch_slots {
            if let Some(b) = branch_mask.get_mut(s) {
                *b = true;
            }
        }
        let already = file.stats.elapsed_s;
        let s = &file.stats;
        let timeouts_before = (s.timeouts_rechecked, s.slow_runs, s.timeout_lost_s);
        let not_repeated_before = s.crashes_not_repeated;
        // A resumed campaign picks from another stream than the one spent.
        let stream = file.config.seed ^ u64::from(s.resumes).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let parents = file.config.parents;
        Campaign {
            out,
            file,
            fs,
            generator,
            corpus: Vec::new(),
            cov: Coverage::default(),
            crashes: failures::Failures::default(),
            hangs: failures::Failures::default(),
            known_hang: None,
            timed_out: false,
            child_timeouts: child_timeouts::ChildTimeouts::default(),
            weigh_timeouts,
            unchecked: false,
            favored: favored::Favored::default(),
            scheduler: scheduler::Scheduler::new(stream),
            cull: match parents {
                Parents::Diverse => Some(cull::Cull::new(cull::How::Diverse, stream)),
                Parents::Sample => Some(cull::Cull::new(cull::How::Sample, stream)),
                Parents::All | Parents::Seeds => None,
            },
            branch_slots,
            branch_mask,
            next_id: 0,
            units: None,
            grammar,
            sync: None,
            already,
            started: Instant::now(),
            timeouts_before,
            not_repeated_before,
        }
    }

    /// Imports the new entries of the other instances of a sync directory
    /// before each batch.
    pub fn with_sync(&mut self, sync: sync::SyncDir) {
        self.sync = Some(sync);
    }

    /// The program the campaign runs (resolved as its fork server found
    /// it) and its arguments (`@@` for the input).
    pub fn command(&self) -> (std::path::PathBuf, Vec<String>) {
        let t = self.fs.target();
        (exec::forkserver::resolve(&t.program).unwrap_or_else(|_| t.program.clone()), t.args.clone())
    }

    /// Whether the target's fork server is carve-clang's (it registered
    /// instrumented modules).
    pub fn instrumented(&self) -> bool {
        !self.fs.modules().is_empty()
    }

    /// Gives the system generator a dictionary: `tokens`, the first `auto`
    /// of them from the program's comparisons. Whether it takes them (a
    /// generator that mutates bytes does).
    pub fn add_tokens(&mut self, tokens: &[Vec<u8>], auto: u64) -> bool {
        if !self.generator.add_tokens(tokens) {
            return false;
        }
        self.file.stats.tokens_auto = auto;
        self.file.stats.tokens_given = tokens.len() as u64 - auto;
        true
    }

    /// Turns on unit rounds between system batches.
    pub fn with_units(&mut self, units: units::UnitWork) {
        self.units = Some(units);
    }

    /// Seconds of campaign so far, across resumes.
    pub(super) fn elapsed(&self) -> f64 {
        self.already + self.started.elapsed().as_secs_f64()
    }

    /// Runs until the budget is spent or a signal asks to stop.
    pub fn run(&mut self) -> crate::Result<&Stats> {
        // SAFETY: the handler only stores to an atomic.
        unsafe {
            libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
            libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
        }
        let budget = self.file.config.time_budget_s;
        self.already = self.file.stats.elapsed_s;
        self.started = Instant::now();
        let mut status = status::Status::new();
        let mut last_save = Instant::now();
        'outer: while self.elapsed() < budget && !STOP.load(Ordering::Relaxed) {
            let imported = self.import()?;
            let seeds_only = self.file.config.parents == Parents::Seeds;
            // An entry slower than the calibrated limit (it finished under
            // the full one) is kept for what it covers but is no parent:
            // its mutants would mostly run into the short limit and say
            // nothing (AFL++ keeps no such entry at all).
            // Only parents are favoured, so that an outcome a slow entry
            // reaches cheapest still has a parent favoured for it.
            let slow_us = self.fs.timeouts().calibrated.map(|l| l.as_micros().min(u32::MAX as u128) as u32);
            let fast = |e: &Entry| slow_us.is_none_or(|l| e.run_us <= l);
            // What a mutant of each entry is expected to cost.
            let costs: Vec<u32> =
                self.corpus.iter().map(|e| self.child_timeouts.cost_us(e.id, e.run_us, slow_us)).collect();
            if let Some(c) = &mut self.cull {
                let all: Vec<(u64, &[u32])> =
                    self.corpus.iter().filter(|e| !e.seed && fast(e)).map(|e| (e.id, e.hits.as_slice())).collect();
                c.refresh(&all);
            }
            let cull = self.cull.as_ref();
            let parent = |e: &Entry| e.seed || (!seeds_only && fast(e) && cull.is_none_or(|c| c.keeps(e.id)));
            let is_parent: Vec<bool> = self.corpus.iter().map(parent).collect();
            let entries = (self.corpus.iter().zip(&is_parent).zip(&costs))
                .map(|((e, &p), &cost)| (if p { e.hits.as_slice() } else { &[] }, cost, e.data.len()));
            let favored = self.favored.update(entries).to_vec();
            self.trim_favored(&favored)?;
            let seeds: Vec<Seed<'_>> = (self.corpus.iter().zip(favored.iter().copied()).zip(&is_parent).zip(&costs))
                .filter(|((_, &p), _)| p)
                .map(|((e, _), &cost)| (e, cost))
                .map(|((e, favored), cost)| Seed {
                    id: e.id,
                    data: &e.data,
                    labels: Some(&e.labels),
                    run_us: cost,
                    favored,
                })
                .collect();
            let mut parents = self.scheduler.batch(&seeds);
            let batch = self.generator.generate(&seeds, &mut parents, self.file.config.batch);
            let idle = batch.is_empty() && imported == 0;
            for case in batch {
                if self.elapsed() >= budget || STOP.load(Ordering::Relaxed) {
                    break 'outer;
                }
                self.run_case(case)?;
                if last_save.elapsed() >= SAVE_EVERY {
                    self.report_generator(false);
                    self.save()?;
                    last_save = Instant::now();
                }
                status.tick(&self.file.stats, budget - self.elapsed());
            }
            if self.elapsed() < budget && !STOP.load(Ordering::Relaxed) {
                let units_before = self.file.stats.lifts.unit_tries;
                self.unit_round()?;
                if idle && self.file.stats.lifts.unit_tries == units_before {
                    // Nothing to import, generate or explore: wait for
                    // the other instances, or for the solver when it works.
                    let t = Instant::now();
                    self.wait_for_units(Duration::from_millis(100));
                    self.file.stats.idle_s += t.elapsed().as_secs_f64();
                    status.tick(&self.file.stats, budget - self.elapsed());
                }
            }
        }
        self.file.stats.finished = self.elapsed() >= budget;
        self.report_generator(true);
        self.save()?;
        status.show(&self.file.stats, budget - self.elapsed());
        status.finish();
        Ok(&self.file.stats)
    }

    fn run_case(&mut self, mut case: TestCase) -> crate::Result<()> {
        let outcome = self.run_system(&case.data)?;
        self.file.stats.execs += 1;
        if self.weigh_timeouts {
            self.child_timeouts.ran(case.parent, self.timed_out);
        }
        let edges_before = self.cov.edges();
        let newness = self.cov.add(self.fs.map());
        self.file.stats.edges_by_system += (self.cov.edges() - edges_before) as u64;
        let src = outdir::src_field(case.parent, &case.donors);
        let generator = self.generator.name();
        let record = || trails::system(generator, case.parent, &case.donors, &case.op, case.labels.clone());
        // Its derivation tree goes beside it wherever it is kept.
        let tree = case.tree.take();
        let made = Made { data: &case.data, src: &src, op: &case.op, tree: tree.as_ref() };
        let failed = self.record_failure(outcome, made, record)?;
        let interesting = newness != Newness::Nothing && !failed;
        if interesting {
            let id = self.next_id;
            self.next_id += 1;
            let name = layout::test_name(layout::QUEUE, id, &format!("src:{src},op:{}", sanitize(&case.op)));
            // A generator whose tests have no trail records no labels;
            // the entry's bytes are its own to its descendants.
            let recorded = self.generator.records_labels();
            let mut labels = if recorded { case.labels.clone() } else { Labels::own(id, case.data.len()) };
            labels.adopt(id);
            let record =
                provenance::Record { test: name.clone(), labels: recorded.then(|| labels.clone()), ..record() };
            outdir::write_kept(&self.out, tree.as_ref(), &name, &case.data, &record)?;
            let (hits, run_us, data) = (self.hits(), self.run_us(), case.data.clone());
            let trimmed = tree.is_some();
            self.corpus.push(Entry { id, name, data, hits, new_word: false, seed: false, labels, run_us, trimmed });
            if newness == Newness::NewEdges {
                self.refresh_stats();
                self.out.append_line(layout::COVERAGE_CSV, outdir::CSV_HEADER, &self.csv_row())?;
            }
        }
        if self.file.config.parents != Parents::Seeds {
            let map = (outcome != Outcome::Timeout).then(|| self.fs.map());
            self.generator.feedback(&case, map, interesting);
        }
        Ok(())
    }

    /// Runs a system test. Under a calibrated limit, a run past it is run
    /// again under the full limit only when it shows an edge no timeout
    /// showed before, as AFL++ decides, and was not stopped where a kept
    /// hang loops (its key, see `signatures.rs`): a second run there would
    /// most likely take the whole limit to say so again. The others count
    /// as hangs at the cost of the short limit (a hang is kept only after
    /// a recheck).
    fn run_system(&mut self, data: &[u8]) -> crate::Result<Outcome> {
        self.known_hang = None;
        self.unchecked = false;
        let outcome = self.fs.run_limited(data)?;
        self.timed_out = outcome == Outcome::Timeout && self.fs.timeouts().calibrated.is_some();
        if outcome != Outcome::Timeout || self.fs.timeouts().calibrated.is_none() {
            return Ok(outcome);
        }
        // Its stack says where it was, not that it hangs: a hang is kept
        // by the stack of a run past the full limit.
        let key = signatures::take_key(self.out.root(), self.file.config.signature_depth);
        self.known_hang = key.and_then(|k| self.hangs.kept(&k));
        // Its edges count among the timeouts' whatever the recheck shows,
        // so a slow path is run to its end once, not every time.
        if self.hangs.cov.add(self.fs.map()) != Newness::NewEdges {
            self.unchecked = self.known_hang.is_none();
            return Ok(outcome);
        }
        if self.known_hang.is_some() {
            self.file.stats.rechecks_spared += 1;
            return Ok(outcome);
        }
        Ok(self.fs.recheck(data)?)
    }

    /// Keeps a crash (hang) when its signature is new (see
    /// `signatures.rs`; when the run left no stack, when it shows a new
    /// edge among crashes (hangs)), and counts it against the one kept for
    /// its signature. Returns whether the run failed.
    fn record_failure(
        &mut self,
        outcome: Outcome,
        made: Made<'_>,
        record: impl Fn() -> provenance::Record,
    ) -> crate::Result<bool> {
        let Made { data, src, op, tree } = made;
        let depth = self.file.config.signature_depth;
        let unchecked = std::mem::take(&mut self.unchecked);
        let s = &mut self.file.stats;
        match outcome {
            Outcome::Crash(sig) => {
                s.crashes += 1;
                let key = signatures::failure_key(self.out.root(), depth, &self.fs);
                match self.crashes.sort(key, self.fs.map(), None, &mut s.crash_counts) {
                    Sorted::Counted(_) => {}
                    Sorted::Unsigned => s.crashes_unsigned += 1,
                    Sorted::New(n) => {
                        s.unique_crashes += 1;
                        let fields = format!("sig:{sig:02},src:{src},op:{}", sanitize(op));
                        let name = layout::test_name(layout::CRASHES, n, &fields);
                        let rec = provenance::Record { test: name.clone(), ..record() };
                        outdir::write_kept(&self.out, tree, &name, data, &rec)?;
                    }
                }
                Ok(true)
            }
            Outcome::Timeout if unchecked => {
                s.timeouts_unchecked += 1;
                Ok(true)
            }
            Outcome::Timeout => {
                s.hangs += 1;
                let key = signatures::take_key(self.out.root(), depth);
                match self.hangs.sort(key, self.fs.map(), self.known_hang.take(), &mut s.hang_counts) {
                    Sorted::Counted(_) => {}
                    Sorted::Unsigned => s.hangs_unsigned += 1,
                    Sorted::New(n) => {
                        s.unique_hangs += 1;
                        let name = layout::test_name(layout::HANGS, n, &format!("src:{src},op:{}", sanitize(op)));
                        let rec = provenance::Record { test: name.clone(), ..record() };
                        outdir::write_kept(&self.out, tree, &name, data, &rec)?;
                    }
                }
                Ok(true)
            }
            Outcome::Limit(_) => {
                s.resource_limits += 1;
                Ok(false)
            }
            Outcome::Exit(_) => Ok(false),
        }
    }

    /// How long the last run took, in microseconds.
    fn run_us(&self) -> u32 {
        self.fs.last_run_time().as_micros().min(u32::MAX as u128) as u32
    }

    /// The branch-outcome slots the last run hit.
    fn hits(&self) -> Vec<u32> {
        let map = self.fs.map();
        self.branch_slots.iter().filter(|&&s| map[s] != 0).map(|&s| s as u32).collect()
    }

    fn refresh_stats(&mut self) {
        let elapsed = self.elapsed();
        let s = &mut self.file.stats;
        s.elapsed_s = elapsed;
        s.queue = self.corpus.len() as u64;
        s.edges = self.cov.edges() as u64;
        s.edges_total = u64::from(self.fs.hello().edges);
        s.branches = self.cov.covered_among(&self.branch_slots) as u64;
        s.branches_total = self.branch_slots.len() as u64;
        let t = self.fs.timeouts();
        let (rechecked, slow, lost) = self.timeouts_before;
        s.timeouts_rechecked = rechecked + t.rechecked;
        s.slow_runs = slow + t.slow;
        s.timeout_lost_s = lost + t.lost.as_secs_f64();
        s.crashes_not_repeated = self.not_repeated_before + self.fs.stateful_crashes();
    }

    fn csv_row(&self) -> String {
        let s = &self.file.stats;
        format!(
            "{:.3},{},{},{},{},{},{:.3},{},{}",
            s.elapsed_s,
            s.execs,
            s.edges,
            s.edges_total,
            s.branches,
            s.branches_total,
            s.branch_pct(),
            s.queue,
            s.unique_crashes
        )
    }

    /// The system generator's figures into the statistics.
    fn report_generator(&mut self, last: bool) {
        let r = self.generator.report(last);
        self.file.stats.generator = r.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
    }

    /// A row of `coverage.csv` and a fresh `campaign.json`.
    fn save(&mut self) -> crate::Result<()> {
        self.refresh_stats();
        self.out.append_line(layout::COVERAGE_CSV, outdir::CSV_HEADER, &self.csv_row())?;
        self.out.write(layout::CAMPAIGN_FILE, serde_json::to_string_pretty(&self.file)?.as_bytes())
    }
}
