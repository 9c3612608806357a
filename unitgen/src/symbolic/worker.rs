//! The explorer's solving, on a thread of its own: traces come in, their
//! branches past the bound are negated and solved, and the solutions
//! join the queue the explorer draws candidates from. Running tries and
//! solving thus overlap, and a caller that has other work (a campaign's
//! system fuzzing) need not wait for the solver.

use super::closest::{closest, hold};
use super::context::InContext;
use super::dag::Dag;
use super::retry::{self, Kept, Retries, Retry};
use super::unsolvable::Unsolvable;
use super::ExploreStats;
use crate::solver::paced::thread_cpu;
use crate::solver::{self, Answer, Cond, Query, Solver};
use model::op::Op;
use model::symtrace::{PathEntry, Trace};
use model::trace::*;
use std::collections::{HashMap, HashSet, VecDeque};
use std::panic::AssertUnwindSafe;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

/// Most queries asked per trace, and the most time spent solving for one:
/// the solver thread's CPU time, so that a trace gets as much solving on
/// a core shared with system runs as alone.
const MAX_QUERIES: usize = 64;
const MAX_SOLVING: Duration = Duration::from_secs(2);
/// Direction of a switch's default.
pub(super) const DEFAULT: u64 = u64::MAX;
/// Traces that took a branch direction, below which it is solved for
/// again from other traces (after the directions no trace took): a
/// direction taken once, say the parser's `q` case, is reached again from
/// other paths, where what follows it (running the `q`) is new.
pub(super) const RARE: u32 = 4;

/// A trace to solve from: the input that made it and its bound.
pub(super) struct Job {
    pub generation: u64,
    pub id: u64,
    /// The trace's place among those observed ([`Shared::arrived`]).
    pub arrival: u64,
    pub trace: Arc<Trace>,
    /// Each path entry's meeting bucket ([`super::context::buckets`]).
    pub buckets: Vec<u8>,
    pub input: Vec<u8>,
    pub bound: usize,
    /// Symbolic bytes (first, end) and the values they must not take.
    pub guards: Arc<Vec<(u32, u32, Vec<u8>)>>,
    /// Its input was solved for a direction it did not take: the entry
    /// where it left the path it was solved to follow, solved for first.
    pub repair: Option<Repair>,
}

/// The path an input was solved to follow: its parent's entries before
/// the one negated (`len` of `path`: each site and direction, pins
/// without one), and how many repairs came before it (at most
/// [`MAX_REPAIRS`] in a row).
#[derive(Clone)]
pub(super) struct Expected {
    pub path: Arc<Vec<Step>>,
    pub len: usize,
    pub repairs: u8,
}

/// An entry of a path: its site and direction (none for a pin).
pub(super) type Step = (u32, Option<u64>);

/// Repairs in a row toward one target.
const MAX_REPAIRS: u8 = 2;

/// An entry of a trace to solve for the direction its parent took there,
/// so that a child follows its parent's path on to `target`.
pub(super) struct Repair {
    pub entry: usize,
    pub dir: (u32, u64),
    pub target: (u32, u64),
    pub expected: Expected,
}

/// Where trace `t`, of an input solved for `target` along `expected`,
/// left that path: the first entry at a site the path met there whose
/// direction differs (none when the path took another shape first, or
/// after [`MAX_REPAIRS`] repairs).
pub(super) fn repair(t: &Trace, target: (u32, u64), expected: Expected) -> Option<Repair> {
    if expected.repairs >= MAX_REPAIRS {
        return None;
    }
    for (entry, (e, &(site, dir))) in t.path.iter().zip(&expected.path[..expected.len]).enumerate() {
        if e.site != site || (e.kind == PATH_PIN) != dir.is_none() {
            return None;
        }
        match dir {
            Some(d) if direction(e).1 != d => {
                let expected = Expected { repairs: expected.repairs + 1, ..expected };
                return Some(Repair { entry, dir: (site, d), target, expected });
            }
            _ => {}
        }
    }
    None
}

/// A solved input, with its bound moved past the negated entry.
pub(super) struct Item {
    pub input: Vec<u8>,
    pub bound: usize,
    /// The branch direction it was solved for.
    pub target: (u32, u64),
    /// That direction's coverage-map slot, when known.
    pub slot: Option<u32>,
    /// The path it was solved to follow up to the target.
    pub expected: Option<Expected>,
    /// Some trace took that direction already (see [`RARE`]).
    pub again: bool,
    /// Solved for the direction in this context, which no trace gave it
    /// (the direction itself being common).
    pub context: Option<InContext>,
    /// Its direction was taken already; its values are the point (see
    /// [`super::ends`]): never skipped as covered.
    pub ends: bool,
}

/// What the explorer and its solver thread share.
#[derive(Default)]
pub(super) struct Shared {
    /// Bumped when a new unit starts: older jobs and items are dropped.
    pub generation: u64,
    /// Jobs of this generation sent and not finished.
    pub pending: usize,
    /// Inputs solved exactly for directions no trace took.
    pub queue: VecDeque<Item>,
    /// Inputs for rare directions and those solved optimistically: tried
    /// when `queue` is empty.
    pub later: VecDeque<Item>,
    /// Inputs run or queued for the current unit.
    pub tried: HashSet<Vec<u8>>,
    /// Branch directions and how many traces took each (across units).
    pub seen: HashMap<(u32, u64), u32>,
    /// Traces observed (across units), and for each direction the place
    /// among them of the first trace that took it: a trace's negations ask
    /// for the directions no trace had taken when it arrived, whatever
    /// the tries of its own earlier negations took since (see [`negate`]).
    pub arrived: u64,
    pub first_seen: HashMap<(u32, u64), u64>,
    /// Directions a trace solved for them took: a solution for one of them
    /// (neither for a rare direction nor for a context) is then not run.
    pub reached: HashSet<(u32, u64)>,
    /// Branch directions in the contexts traces took them.
    pub seen_in_context: HashSet<InContext>,
    /// Directions whose path had no solution (across units).
    pub unsolvable: Unsolvable,
    /// Order comparisons whose numbers were tried at the ends of their
    /// types ([`super::ends`]), by site and first input byte read, and how
    /// many times (the current unit's: another unit may hold the number
    /// with room to grow).
    pub ends_tried: HashMap<(u32, u32), u8>,
    /// Queries that timed out, to ask again with a longer limit when the
    /// solver thread is idle (the current unit's).
    pub retries: Retries,
    /// The system runs' coverage (the map's union of buckets; empty when
    /// none is known): a direction whose edge they cover is solved for
    /// after those they do not.
    pub covered: Vec<u8>,
    pub stats: ExploreStats,
    /// Set when the explorer is dropped.
    pub closed: bool,
}

/// The shared state and the condition signalled when a job finishes.
#[derive(Default)]
pub(super) struct Link {
    state: Mutex<Shared>,
    pub done: Condvar,
}

impl Shared {
    /// Whether system runs covered the edge at `slot`.
    pub fn covered(&self, slot: Option<u32>) -> bool {
        slot.is_some_and(|k| self.covered.get(k as usize).is_some_and(|&b| b != 0))
    }
}

impl Link {
    pub fn lock(&self) -> MutexGuard<'_, Shared> {
        // Nothing panics while holding the lock; a poisoned one still holds
        // consistent counters.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Starts the solver thread; it ends when the job channel closes. Its
/// queries keep to `pace`'s share of a core, and give up when it halts.
pub(super) fn spawn(
    link: Arc<Link>,
    jobs: Receiver<Job>,
    timeout_ms: u32,
    smt_log: Option<std::path::PathBuf>,
    pace: Arc<solver::paced::Pace>,
) -> JoinHandle<()> {
    spawn_with(link, jobs, retry::escalated(timeout_ms), move || {
        solver::paced::Paced::new(solver::chain(timeout_ms, smt_log, Some(pace.halt_flag())), pace)
    })
}

/// Starts the solver thread with the solver `make` gives (made on the
/// thread: the chain's caches are its own), queries that time out asked
/// again with `retry_ms` when it is idle.
pub(super) fn spawn_with<S: Solver>(
    link: Arc<Link>,
    jobs: Receiver<Job>,
    retry_ms: Option<u32>,
    make: impl FnOnce() -> S + Send + 'static,
) -> JoinHandle<()> {
    link.lock().retries.set_limit(retry_ms);
    std::thread::Builder::new()
        .name("carve-solver".into())
        // z3 recurses over deep terms (long chains of byte operations).
        .stack_size(256 << 20)
        .spawn(move || {
            let mut solver = make();
            // Jobs whose open directions were solved for, waiting for
            // the rest: every new trace's open directions come first.
            let mut backlog: VecDeque<(Job, Budget)> = VecDeque::new();
            loop {
                // Idle but for retries: they wait for no job.
                let busy = !backlog.is_empty() || !link.lock().retries.is_empty();
                let next = if busy {
                    match jobs.try_recv() {
                        Ok(job) => Some(job),
                        Err(TryRecvError::Empty) => None,
                        Err(TryRecvError::Disconnected) => break,
                    }
                } else {
                    match jobs.recv() {
                        Ok(job) => Some(job),
                        Err(_) => break,
                    }
                };
                let (job, budget, last, failed) = match next {
                    Some(job) => {
                        let mut budget = Budget::default();
                        // A query z3 rejects must not leave `pending` counted.
                        let failed = std::panic::catch_unwind(AssertUnwindSafe(|| {
                            if let Some(r) = &job.repair {
                                mend(&mut solver, &link, &job, r, &mut budget);
                            }
                            negate(&mut solver, &link, &job, Phase::Open, &mut budget);
                            super::ends::ends(&mut solver, &link, &job, &mut budget);
                        }))
                        .is_err();
                        (job, budget, false, failed)
                    }
                    None => {
                        let Some((job, mut budget)) = backlog.pop_front() else {
                            // Nothing new and no backlog: one retry.
                            let failed =
                                std::panic::catch_unwind(AssertUnwindSafe(|| retry::run(&mut solver, &link))).is_err();
                            let mut s = link.lock();
                            s.stats.solver_errors += u64::from(failed);
                            s.stats.solver = solver.stats();
                            drop(s);
                            link.done.notify_all();
                            continue;
                        };
                        let failed = std::panic::catch_unwind(AssertUnwindSafe(|| {
                            for phase in [Phase::Covered, Phase::Again] {
                                negate(&mut solver, &link, &job, phase, &mut budget);
                            }
                        }))
                        .is_err();
                        (job, budget, true, failed)
                    }
                };
                // A trace whose solving failed is done with.
                let done = last || failed || budget.cut_short;
                let mut s = link.lock();
                s.stats.solver_errors += u64::from(failed);
                let generation = if s.closed { 0 } else { s.generation };
                if job.generation == generation && done {
                    s.pending = s.pending.saturating_sub(1);
                    s.stats.traces_cut_short += u64::from(budget.cut_short);
                }
                s.stats.solver = solver.stats();
                drop(s);
                link.done.notify_all();
                // Work for an older unit is dropped.
                backlog.retain(|(j, _)| j.generation == generation);
                if job.generation == generation && !done {
                    backlog.push_back((job, budget));
                }
            }
        })
        .expect("cannot start the solver thread")
}

/// The condition an entry's direction puts on the path.
fn held(e: &PathEntry) -> Cond {
    match e.kind {
        // The default: any value no case names (pinning the value taken
        // would make every later branch on it unsolvable).
        PATH_SWITCH if !e.cases.contains(&e.taken) => Cond::NotAny(e.node, e.cases.clone()),
        PATH_SWITCH => Cond::Is(e.node, e.taken),
        _ => Cond::Bit(e.node, e.taken != 0),
    }
}

pub(super) fn direction(e: &PathEntry) -> (u32, u64) {
    if e.kind == PATH_SWITCH && !e.cases.contains(&e.taken) {
        (e.site, DEFAULT)
    } else {
        (e.site, e.taken)
    }
}

/// The other directions of an entry, with the condition each needs.
fn alternatives(e: &PathEntry) -> Vec<((u32, u64), Cond)> {
    match e.kind {
        PATH_BRANCH => vec![((e.site, u64::from(e.taken == 0)), Cond::Bit(e.node, e.taken == 0))],
        PATH_SWITCH => {
            let mut alts: Vec<_> =
                e.cases.iter().filter(|&&c| c != e.taken).map(|&c| ((e.site, c), Cond::Is(e.node, c))).collect();
            if e.cases.contains(&e.taken) {
                alts.push(((e.site, DEFAULT), Cond::NotAny(e.node, e.cases.clone())));
            }
            alts
        }
        _ => Vec::new(),
    }
}

/// Which directions of a trace a pass over it solves for.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// No trace took them and no system run covered their edge.
    Open,
    /// No trace took them, but system runs covered their edge (solved
    /// for to go deeper from there).
    Covered,
    /// Fewer than [`RARE`] traces took them, or none in their context.
    Again,
}

impl Phase {
    /// Its rank among retries ([`retry::Rank`]): greater comes first.
    fn rank(self) -> u8 {
        match self {
            Phase::Open => 2,
            Phase::Covered => 1,
            Phase::Again => 0,
        }
    }
}

/// What one trace has cost over its phases: the directions asked for and
/// the solving time (CPU); cut short at [`MAX_QUERIES`] or [`MAX_SOLVING`].
#[derive(Default)]
pub(super) struct Budget {
    /// Directions met (each is asked for once per trace), and how many
    /// of them were asked for.
    met: HashSet<InContext>,
    asked: usize,
    pub(super) solving: Duration,
    cut_short: bool,
    /// The path's conditions, each with whether the trace's own input
    /// meets it (see [`path_conds`]); made at the trace's first pass.
    pub(super) path: Option<Vec<(Cond, bool)>>,
    /// The input bytes the trace's nodes read, filled as asked.
    dag: Dag,
}

impl Budget {
    /// The input bytes node `node` of job `job`'s trace reads.
    pub(super) fn inputs(&mut self, job: &Job, node: u32) -> std::rc::Rc<[u32]> {
        self.dag.for_trace(job.id);
        self.dag.inputs(&job.trace, node)
    }
}

/// The condition each path entry's direction puts on the path, and
/// whether the input that made the trace meets it. Every entry's does,
/// unless the trace holds an expression for a byte that was overwritten
/// since without its shadow (a stale expression): such an entry would
/// make every later negation's path have no solution. It is left out of
/// the prefixes (and counted).
pub(super) fn path_conds(link: &Link, job: &Job) -> Vec<(Cond, bool)> {
    let conds: Vec<Cond> = job.trace.path.iter().map(held).collect();
    let ok = hold(&job.trace, &conds, &job.input);
    let stale = ok.iter().filter(|&&k| !k).count();
    if stale > 0 {
        link.lock().stats.entries_stale += stale as u64;
    }
    conds.into_iter().zip(ok).collect()
}

/// Input bytes that must keep values a lift can carry: every query holds
/// them (slicing drops those a query does not involve).
pub(super) fn guards(job: &Job) -> Vec<Cond> {
    job.trace
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| n.op == Op::Input)
        .filter_map(|(i, n)| {
            let g = job.guards.iter().find(|g| (u64::from(g.0)..u64::from(g.1)).contains(&n.val))?;
            Some(Cond::NotAny(i as u32, g.2.iter().map(|&b| u64::from(b)).collect()))
        })
        .collect()
}

/// Solves the job's trace for the direction its parent took where it left
/// the parent's path (its prefix kept), and queues what solves first,
/// bound for the target its input was solved for. A value the parent's
/// trace had concrete (a sum the optimiser vectorised: the pass gives
/// vectors no shadow) held the bytes it read, which the solution
/// changed; here it is concrete with their new values.
fn mend(solver: &mut dyn Solver, link: &Link, job: &Job, r: &Repair, budget: &mut Budget) {
    let t = &job.trace;
    let Some(e) = t.path.get(r.entry) else { return };
    let Some((_, cond)) = alternatives(e).into_iter().find(|(d, _)| *d == r.dir) else { return };
    {
        let mut s = link.lock();
        if s.closed || s.generation != job.generation {
            return;
        }
        s.stats.repairs_asked += 1;
    }
    let started = thread_cpu();
    let mut conds = guards(job);
    let path = budget.path.get_or_insert_with(|| path_conds(link, job));
    conds.extend(path[..r.entry.min(path.len())].iter().filter(|(_, ok)| *ok).map(|(c, _)| c.clone()));
    conds.push(cond);
    let q = Query { id: job.id, trace: t, conds, near: &job.input };
    budget.asked += 1;
    if let Answer::Sat(assign) = solver.solve(&q) {
        let input = child(&job.input, closest(t, &q.conds, &job.input, assign));
        let item = Item {
            input,
            bound: r.entry + 1,
            target: r.target,
            slot: None,
            again: false,
            context: None,
            expected: Some(r.expected.clone()),
            ends: false,
        };
        queue(link, job.generation, item, false, false);
    }
    budget.solving += thread_cpu().saturating_sub(started);
}

/// Negates the entries of the job's trace past its bound whose other
/// direction `phase` takes (see [`Phase`]), with the prefix kept, and
/// queues what solves (what does not, solved alone, is queued behind;
/// all but [`Phase::Open`]'s exact solutions are too). Stops early at the
/// per-trace bounds or when the unit changed.
fn negate(solver: &mut dyn Solver, link: &Link, job: &Job, phase: Phase, budget: &mut Budget) {
    let t = &job.trace;
    if budget.cut_short {
        return;
    }
    let started = thread_cpu();
    let again = phase == Phase::Again;
    let guards = guards(job);
    let mut prefix: Vec<Cond> = guards.clone();
    let path = budget.path.get_or_insert_with(|| path_conds(link, job)).clone();
    let kept = |(c, ok): &(Cond, bool)| ok.then(|| c.clone());
    prefix.extend(path[..job.bound.min(path.len())].iter().filter_map(kept));
    let mut expected_path: Option<Arc<Vec<Step>>> = None;
    for (i, e) in t.path.iter().enumerate().skip(job.bound) {
        for (dir, cond) in alternatives(e) {
            if budget.asked >= MAX_QUERIES || budget.solving + (thread_cpu().saturating_sub(started)) >= MAX_SOLVING {
                budget.cut_short = true;
                return;
            }
            let in_context = (dir.0, dir.1, job.buckets.get(i).copied().unwrap_or(0));
            let slot = e.slot((dir.1 != DEFAULT || e.kind == PATH_BRANCH).then_some(dir.1));
            let context = {
                let mut s = link.lock();
                if s.closed || s.generation != job.generation {
                    return;
                }
                let seen = s.seen.get(&dir).copied().unwrap_or(0);
                // Taken by a trace that came no later than this one. A
                // direction first taken since came by a try that left this
                // path earlier (often one of this trace's own negations,
                // run while the solver went on along the path): on this
                // path it is as open as it was.
                let taken = s.first_seen.get(&dir).is_some_and(|&k| k <= job.arrival);
                let wanted = match phase {
                    Phase::Open => !taken && !s.covered(slot),
                    Phase::Covered => !taken && s.covered(slot),
                    Phase::Again => taken,
                };
                if !wanted {
                    continue;
                }
                let context = if !again || seen < RARE {
                    None
                } else if !s.seen_in_context.contains(&in_context) {
                    Some(in_context)
                } else {
                    continue;
                };
                // A direction is asked for once per trace; in context, once
                // per context.
                if !budget.met.insert(context.unwrap_or((dir.0, dir.1, u8::MAX))) {
                    continue;
                }
                if !s.unsolvable.ask(dir) {
                    s.stats.skipped_unsolvable += 1;
                    continue;
                }
                budget.asked += 1;
                let asked = match phase {
                    Phase::Open => &mut s.stats.asked_open,
                    Phase::Covered => &mut s.stats.asked_covered,
                    Phase::Again => &mut s.stats.asked_again,
                };
                *asked += 1;
                context
            };
            let mut conds = prefix.clone();
            conds.push(cond.clone());
            let exact = Query { id: job.id, trace: t, conds, near: &job.input };
            let answer = solver.solve(&exact);
            match answer {
                Answer::Sat(_) => link.lock().unsolvable.sat(dir),
                Answer::Unsat => link.lock().unsolvable.unsat(dir),
                // A direction without a counter (a libc model's decision,
                // a division's or an access's check) that the solver gave
                // up on is asked for less often too: checks stay open on
                // every trace, and their queries are the slow ones.
                Answer::Unknown if slot.is_none() => link.lock().unsolvable.unsat(dir),
                Answer::Unknown => {}
            }
            let timed_out = answer == Answer::Unknown;
            let found = match answer {
                Answer::Sat(assign) => Some((closest(t, &exact.conds, &job.input, assign), false)),
                // Optimistic, as QSYM: the condition alone (and the guards),
                // when the path with it has no solution.
                _ => {
                    let mut conds = guards.clone();
                    conds.push(cond);
                    let alone = Query { id: job.id, trace: t, conds, near: &job.input };
                    match solver.solve(&alone) {
                        Answer::Sat(assign) => Some((closest(t, &alone.conds, &job.input, assign), true)),
                        _ => None,
                    }
                }
            };
            let mut expected = |optimistic: bool| {
                // An optimistic solution may leave the path: it is not
                // brought back to it.
                (context.is_none() && !optimistic).then(|| {
                    let path = expected_path.get_or_insert_with(|| {
                        let p = t.path.iter().map(|e| (e.site, (e.kind != PATH_PIN).then(|| direction(e).1)));
                        Arc::new(p.collect())
                    });
                    // Up to the negated entry (not included).
                    Expected { path: path.clone(), len: i, repairs: 0 }
                })
            };
            if timed_out {
                // Asked again, with a longer limit, when the thread is idle.
                let item = Item {
                    input: job.input.clone(),
                    bound: i + 1,
                    target: dir,
                    slot,
                    again,
                    context,
                    expected: expected(false),
                    ends: false,
                };
                let rank = (phase.rank(), found.is_none());
                let r = Retry {
                    generation: job.generation,
                    id: job.id,
                    trace: job.trace.clone(),
                    conds: exact.conds.clone(),
                    item,
                    behind: phase != Phase::Open,
                    rank,
                };
                keep(link, r);
            }
            if let Some((assign, optimistic)) = found {
                let input = child(&job.input, assign);
                let expected = expected(optimistic);
                let item = Item { input, bound: i + 1, target: dir, slot, again, context, expected, ends: false };
                queue(link, job.generation, item, phase != Phase::Open || optimistic, optimistic);
            }
        }
        prefix.extend(path.get(i).and_then(kept));
    }
    budget.solving += thread_cpu().saturating_sub(started);
}

/// Keeps a query that timed out for a retry, when retries are on.
fn keep(link: &Link, r: Retry) {
    let mut s = link.lock();
    if s.retries.limit_ms().is_none() {
        return;
    }
    let current = if s.closed { 0 } else { s.generation };
    match s.retries.keep(r, current) {
        Kept::Yes(dropped) => {
            s.stats.retries_kept += 1;
            s.stats.retries_dropped += u64::from(dropped);
        }
        Kept::No => s.stats.retries_dropped += 1,
    }
}

/// `input` with the solver's values put in.
pub(super) fn child(input: &[u8], assign: Vec<(u32, u8)>) -> Vec<u8> {
    let mut child = input.to_vec();
    for (k, v) in assign {
        if let Some(b) = child.get_mut(k as usize) {
            *b = v;
        }
    }
    child
}

/// Queues a solved input not tried yet for the unit (behind the others
/// when `behind`).
pub(super) fn queue(link: &Link, generation: u64, item: Item, behind: bool, optimistic: bool) {
    let mut s = link.lock();
    if s.generation != generation || !s.tried.insert(item.input.clone()) {
        return;
    }
    s.stats.inputs_queued += 1;
    s.stats.optimistic += u64::from(optimistic);
    if behind {
        s.later.push_back(item);
    } else {
        s.queue.push_back(item);
    }
    drop(s);
    link.done.notify_all();
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// Says every query has a solution: byte 0 is 'a'.
    struct Always;

    impl Solver for Always {
        fn solve(&mut self, _: &Query<'_>) -> Answer {
            Answer::Sat(vec![(0, b'a')])
        }

        fn stats(&self) -> solver::Stats {
            solver::Stats::default()
        }
    }

    /// A trace of one branch on byte 0 being 'a', not taken.
    pub(in crate::symbolic) fn job(arrival: u64) -> Job {
        let node = |op, width, a, b, val| Node { op, width, a, b, c: 0, val };
        let nodes = vec![
            Node::default(),
            node(Op::Input, 8, 0, 0, 0),
            node(Op::Const, 8, 0, 0, u64::from(b'a')),
            node(Op::Eq, 1, 1, 2, 0),
        ];
        let path =
            vec![PathEntry { kind: PATH_BRANCH, site: 3, node: 3, taken: 0, cases: Vec::new(), slots: Vec::new() }];
        let trace = Trace { flags: 0, nodes, path, tables: Vec::new(), pin_names: Vec::new() };
        Job {
            generation: 1,
            id: 1,
            arrival,
            trace: Arc::new(trace),
            buckets: vec![1],
            input: b"x".to_vec(),
            bound: 0,
            guards: Arc::default(),
            repair: None,
        }
    }

    /// Directions asked for and inputs queued when the job's trace, the
    /// `arrival`-th, is negated and the branch's other direction was first
    /// taken by the `first`-th trace (and by two in all).
    fn open_from(arrival: u64, first: u64) -> (u64, usize) {
        let link = Link::default();
        {
            let mut s = link.lock();
            s.generation = 1;
            s.seen.insert((3, 1), 2);
            s.first_seen.insert((3, 1), first);
        }
        let mut budget = Budget::default();
        negate(&mut Always, &link, &job(arrival), Phase::Open, &mut budget);
        let s = link.lock();
        (s.stats.asked_open, s.queue.len())
    }

    #[test]
    fn a_direction_first_taken_after_the_trace_came_is_still_open_on_its_path() {
        // Taken since by tries that left this path before the branch (the
        // trace's own negations of earlier entries, run while the solver
        // went on): asked for.
        assert_eq!(open_from(4, 5), (1, 1));
        // Taken before the trace came: not open.
        assert_eq!(open_from(4, 4), (0, 0));
        assert_eq!(open_from(4, 2), (0, 0));
    }

    #[test]
    fn a_path_is_left_where_a_direction_first_differs_at_the_same_site() {
        let t = job(1).trace;
        let expected = |path: Vec<Step>, repairs| Expected { len: path.len(), path: Arc::new(path), repairs };
        // The parent took the branch (1) where the child did not.
        let r = repair(&t, (9, 0), expected(vec![(3, Some(1))], 0)).expect("left at entry 0");
        assert_eq!((r.entry, r.dir, r.target, r.expected.repairs), (0, (3, 1), (9, 0), 1));
        // The same direction, another site, a pin, too many repairs: none.
        assert!(repair(&t, (9, 0), expected(vec![(3, Some(0))], 0)).is_none());
        assert!(repair(&t, (9, 0), expected(vec![(4, Some(1))], 0)).is_none());
        assert!(repair(&t, (9, 0), expected(vec![(3, None)], 0)).is_none());
        assert!(repair(&t, (9, 0), expected(vec![(3, Some(1))], MAX_REPAIRS)).is_none());
    }
}
