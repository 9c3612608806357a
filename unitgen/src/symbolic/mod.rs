//! Basilisk's explorer: concolic generational search over a unit's
//! parameters. The unit runs with its parameter bytes symbolic; from each
//! trace, every branch past the input's bound whose other direction no
//! trace has taken yet is negated (its prefix kept, sliced), solved, and
//! the solution queued as a new input with the bound moved past it; then,
//! behind those, the directions that only a few traces took (reached from
//! another path, what follows them may be new).
//! Solving happens on a thread of its own ([`worker`]), while tries run.
//! String parameters are fixed-size symbolic buffers (a NUL may move in);
//! integers are their bytes; `main`'s input file is symbolic as the
//! program reads it (its first [`MAX_FILE_SYMBOLIC`] bytes, length fixed);
//! a new word of `main`'s command line starts as [`FIRST_WORD`].

pub(crate) mod closest;
pub use closest::evaluate;
mod context;
pub mod dag;
mod ends;
mod retry;
mod unsolvable;
mod worker;

use crate::solver;
use crate::{Candidate, Pending, UnitGenerator};
use model::snapshot::RELOC_IN_ARG;
use model::symtrace::Trace;
use model::trace::*;
use model::unit::{Param, Site, Value};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::Duration;
use worker::{direction, Job, Link};

/// What the explorer did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ExploreStats {
    pub traces: u64,
    pub path_entries: u64,
    /// Traces cut at the runtime's bounds (DAG or path full).
    pub truncated: u64,
    /// Traces whose negations stopped at the query or time bound.
    pub traces_cut_short: u64,
    /// Directions asked for, by phase: none of the traces took them and
    /// no system run covered their edge; none took them but system runs
    /// covered it; few traces took them (or none in their context).
    pub asked_open: u64,
    pub asked_covered: u64,
    pub asked_again: u64,
    pub inputs_queued: u64,
    /// Solved inputs run (those for a direction, not a context), and
    /// those whose trace took the direction they were solved for (the
    /// rest diverged: a concretised value, an optimistic solution).
    pub solved_tried: u64,
    pub solved_reached: u64,
    /// Of those, inputs solved for a branch condition alone, its path
    /// having no solution (they may leave the path early).
    pub optimistic: u64,
    /// Queued inputs dropped because another input covered their target.
    pub inputs_skipped: u64,
    /// Solved inputs that left the path they were solved to follow, whose
    /// trace was solved for the direction they left it by.
    pub repairs_asked: u64,
    /// Order comparisons on a path whose numbers were tried at the ends
    /// of their types, and those that kept the path ([`ends`]).
    pub ends_asked: u64,
    pub ends_found: u64,
    /// Directions not asked for at a meeting because their path had no
    /// solution the last times ([`unsolvable`]).
    pub skipped_unsolvable: u64,
    /// Path entries the input that made their trace does not meet (a
    /// stale expression for an overwritten byte), left out of queries.
    pub entries_stale: u64,
    /// Queries that timed out, kept to be asked again with a longer limit
    /// when the solver thread is idle ([`retry`]), and those dropped
    /// (replaced by a newer one for the same direction, or less
    /// promising than those kept).
    pub retries_kept: u64,
    pub retries_dropped: u64,
    /// Retries asked to their end, and how they went: a solution (queued),
    /// none, timed out again.
    pub retries: u64,
    pub retries_sat: u64,
    pub retries_unsat: u64,
    pub retries_timed_out: u64,
    /// Retries given up for fresh work (and kept to run again), and those
    /// not asked because their direction was taken meanwhile.
    pub retries_given_up: u64,
    pub retries_moot: u64,
    /// Values pinned to what they were (kept concrete in every query), by
    /// what pinned them: an unmodelled call's name, or the runtime's word
    /// for it. What blocks exploration, for a user to see.
    pub pinned: std::collections::BTreeMap<String, u64>,
    /// Loads through an index of any width from a small constant object,
    /// read as a table with the index kept within the object (not pins).
    pub bounded_table_reads: u64,
    /// Traces whose solving failed inside the tools (a panic, caught:
    /// the rest of the trace is dropped and the exploration goes on).
    pub solver_errors: u64,
    pub solver: solver::Stats,
}

/// One parameter's place among the symbolic bytes.
#[derive(Clone, Copy)]
struct Slot {
    param: usize,
    first: u32,
    len: u32,
    arg: bool,
    /// A string with room past its NUL: its value always goes in the
    /// patch, which gives the object that room.
    room: bool,
    /// A word `main`'s command line does not have yet (`Site::NewWord`).
    word: bool,
}

/// The new word first tried: `-`, an operand most programs take (stdin,
/// empty in unit runs) and the start of every option.
const FIRST_WORD: &[u8] = b"-";

/// Bytes of the input file that are symbolic when read.
pub const MAX_FILE_SYMBOLIC: u32 = 4096;

/// A candidate out for a run: its input, its bound and the direction it
/// was solved for (when not solved for a context).
struct Out {
    input: Vec<u8>,
    bound: usize,
    target: Option<(u32, u64)>,
    /// The path it was solved to follow up to the target, and how many
    /// repairs led to it ([`worker::Expected`]).
    expected: Option<worker::Expected>,
}

pub struct Symbolic {
    link: Arc<Link>,
    /// The solver thread's share of a core.
    pace: Arc<crate::solver::paced::Pace>,
    jobs: Sender<Job>,
    slots: Vec<Slot>,
    inputs: Vec<SymInput>,
    base: Vec<u8>,
    /// Symbolic bytes whose values a lift cannot carry.
    guards: Arc<Vec<(u32, u32, Vec<u8>)>>,
    generation: u64,
    /// Candidates out for a run: their input and bound.
    /// Candidates out for a run.
    out: HashMap<u64, Out>,
    next_tag: u64,
    seeded: bool,
    /// The solver thread, joined when this is dropped.
    thread: Option<std::thread::JoinHandle<()>>,
}

/// The longest a drop waits for the solver thread to end.
const JOIN_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

impl Symbolic {
    pub fn new(timeout_ms: u32, smt_log: Option<std::path::PathBuf>) -> Symbolic {
        let link = Arc::new(Link::default());
        let pace = Arc::new(crate::solver::paced::Pace::default());
        let (jobs, rx) = std::sync::mpsc::channel();
        let thread = Some(worker::spawn(link.clone(), rx, timeout_ms, smt_log, pace.clone()));
        Symbolic {
            link,
            pace,
            jobs,
            slots: Vec::new(),
            inputs: Vec::new(),
            base: Vec::new(),
            guards: Arc::default(),
            generation: 0,
            out: HashMap::new(),
            next_tag: 1,
            seeded: false,
            thread,
        }
    }

    pub fn explore_stats(&self) -> ExploreStats {
        self.link.lock().stats.clone()
    }

    fn candidate(
        &mut self,
        input: Vec<u8>,
        bound: usize,
        target: Option<(u32, u64)>,
        expected: Option<worker::Expected>,
        op: &'static str,
    ) -> Candidate {
        let mut values = Vec::new();
        for s in &self.slots {
            let (a, b) = (s.first as usize, (s.first + s.len) as usize);
            if input[a..b] == self.base[a..b] && !s.room {
                continue;
            }
            let bytes = &input[a..b];
            let v = if s.arg {
                let mut w = [0u8; 8];
                w[..bytes.len()].copy_from_slice(bytes);
                let shift = 64 - 8 * bytes.len() as u32;
                Value::Int(((u64::from_le_bytes(w) << shift) as i64) >> shift)
            } else {
                Value::Bytes(bytes.to_vec())
            };
            values.push((s.param, v));
        }
        let tag = self.next_tag;
        self.next_tag += 1;
        self.out.insert(tag, Out { input, bound, target, expected });
        Candidate { values, op, tag }
    }
}

/// The parameter's current bytes: an integer's little-endian bytes, a
/// digit array's or a sign field's bytes as held (see `Param::held`), a
/// string's bytes (and the zeros of its room, see `Param::room`).
fn current_bytes(p: &Param) -> Option<(Vec<u8>, bool)> {
    match p.site {
        Site::Arg { size, .. } => Some((p.original_int()?.to_le_bytes()[..size.clamp(1, 8) as usize].to_vec(), true)),
        // Digits and signs: their bytes as the object holds them.
        Site::Bytes { len, .. } if p.held().is_some_and(|h| h.len() == len as usize && len > 0) => {
            Some((p.held()?, false))
        }
        Site::Bytes { len, nul, .. } if len as usize == p.original.len() && len > 0 => {
            // Room past the NUL: zeros, so the seed is the string as carved.
            let room = if nul { p.room as usize } else { 0 };
            Some(([&p.original[..], &vec![0; room]].concat(), false))
        }
        Site::InputFile => Some((p.original.clone(), false)),
        Site::NewWord { .. } => Some((vec![0; (p.room as usize).max(FIRST_WORD.len() + 1)], false)),
        _ => None,
    }
}

impl UnitGenerator for Symbolic {
    fn name(&self) -> &'static str {
        "symbolic"
    }

    fn start(&mut self, function: &str, params: &[Param]) {
        self.slots.clear();
        self.inputs.clear();
        self.base.clear();
        self.out.clear();
        self.seeded = false;
        let mut guards = Vec::new();
        for (k, p) in params.iter().enumerate() {
            let Some((bytes, arg)) = current_bytes(p) else { continue };
            let first = self.base.len() as u32;
            let (object, offset, len) = match p.site {
                Site::Arg { index, .. } => (RELOC_IN_ARG, u64::from(index), bytes.len() as u32),
                Site::Bytes { object, offset, .. } => (object, offset, bytes.len() as u32),
                Site::InputFile => (SYM_IN_FILE, 0, (bytes.len() as u32).min(MAX_FILE_SYMBOLIC)),
                Site::NewWord { word, .. } => (word, 0, bytes.len() as u32),
                Site::Stream { .. } => continue,
            };
            self.inputs.push(SymInput { object, offset, len, first });
            let room = !arg && bytes.len() > p.original.len();
            let word = matches!(p.site, Site::NewWord { .. });
            self.slots.push(Slot { param: k, first, len: bytes.len() as u32, arg, room, word });
            // A sign field holds 0 or 1 in its first byte (see
            // `Param::held`): its other bytes stay 0. (A byte's guard is
            // the first that covers it.)
            if matches!(p.encoding, model::unit::Encoding::Sign { .. }) && len > 1 {
                guards.push((first + 1, first + len, (1..=0xff).collect()));
            }
            if !arg && !p.excluded.is_empty() {
                guards.push((first, first + bytes.len() as u32, p.excluded.clone()));
            }
            // A binary field narrower than its argument, which the program
            // reads zero-extended (the mapping takes such a field only
            // unsigned): the argument's bytes past it stay 0, so that every
            // value solved for is one the field can carry.
            // A length likewise keeps to two bytes (it is lifted up to
            // `MAX_LENGTH`, 4,096).
            let width = match p.encoding {
                model::unit::Encoding::Binary { width, .. } => Some(u32::from(width)),
                model::unit::Encoding::Length => Some(2),
                _ => None,
            };
            if let (true, Some(width)) = (arg, width) {
                if width < len {
                    guards.push((first + width, first + len, (1..=0xff).collect()));
                }
            }
            self.base.extend_from_slice(&bytes);
        }
        self.guards = Arc::new(guards);
        let mut s = self.link.lock();
        s.generation += 1;
        self.generation = s.generation;
        s.pending = 0;
        s.queue.clear();
        s.later.clear();
        s.tried.clear();
        s.tried.insert(self.base.clone());
        s.retries.clear();
        s.ends_tried.clear();
        s.unsolvable.enter(function);
    }

    fn symbolic_inputs(&self) -> Option<Vec<SymInput>> {
        Some(self.inputs.clone())
    }

    fn next(&mut self, _params: &[Param], n: usize) -> Vec<Candidate> {
        let mut out = Vec::new();
        if !self.seeded {
            self.seeded = true;
            out.push(self.candidate(self.base.clone(), 0, None, None, "seed"));
            // A new word is not read while it is empty: the seed's trace
            // says nothing of it. Its first value is given.
            let words: Vec<usize> = self.slots.iter().filter(|s| s.word).map(|s| s.first as usize).collect();
            for at in words {
                let mut input = self.base.clone();
                input[at..at + FIRST_WORD.len()].copy_from_slice(FIRST_WORD);
                self.link.lock().tried.insert(input.clone());
                out.push(self.candidate(input, 0, None, None, "new word"));
            }
        }
        let mut items = Vec::new();
        {
            let mut s = self.link.lock();
            while items.len() + out.len() < n {
                let item = match s.queue.pop_front() {
                    // A direction system runs covered since it was solved
                    // for waits behind those they still do not.
                    Some(item) if s.covered(item.slot) => {
                        s.later.push_back(item);
                        continue;
                    }
                    Some(item) => item,
                    None => match s.later.pop_front() {
                        Some(item) => item,
                        None => break,
                    },
                };
                let seen = s.seen.get(&item.target).copied().unwrap_or(0);
                let covered = match item.context {
                    _ if item.ends => false,
                    Some(c) => s.seen_in_context.contains(&c),
                    None if item.again => seen >= worker::RARE,
                    // A direction solved for where no trace had taken it:
                    // done once an input solved for it took it. A try that
                    // took it off this path (an earlier branch negated)
                    // says nothing of it here.
                    None => s.reached.contains(&item.target),
                };
                if covered {
                    s.stats.inputs_skipped += 1;
                    continue;
                }
                items.push(item);
            }
        }
        for item in items {
            let target = item.context.is_none().then_some(item.target);
            out.push(self.candidate(item.input, item.bound, target, item.expected, "solved"));
        }
        out
    }

    fn observe(&mut self, c: &Candidate, trace: Option<Trace>) {
        let Some(Out { input, bound, target, expected }) = self.out.remove(&c.tag) else { return };
        let Some(t) = trace else { return };
        // Solved for a direction it did not take: where it left the path
        // it was solved to follow, that entry is solved for again from its
        // own trace (what its parent's trace had concrete may be symbolic
        // here, or concrete with the new values).
        let repair = match (target, expected) {
            (Some(target), Some(expected)) if !t.path.iter().any(|e| e.kind != PATH_PIN && direction(e) == target) => {
                worker::repair(&t, target, expected)
            }
            _ => None,
        };
        let buckets = context::buckets(&t.path);
        let id = self.next_tag;
        self.next_tag += 1;
        let arrival = {
            let mut s = self.link.lock();
            s.stats.traces += 1;
            s.stats.path_entries += t.path.len() as u64;
            s.stats.truncated += u64::from(t.flags != 0);
            for e in t.path.iter().filter(|e| e.kind == PATH_PIN) {
                let by = t.pinned_by(e).unwrap_or("(unnamed)");
                if by.as_bytes() == &TABLE_BOUND[..TABLE_BOUND.len() - 1] {
                    s.stats.bounded_table_reads += 1;
                } else {
                    *s.stats.pinned.entry(by.to_string()).or_default() += 1;
                }
            }
            let taken: std::collections::HashSet<_> =
                t.path.iter().filter(|e| e.kind != PATH_PIN).map(direction).collect();
            if let Some(target) = target {
                s.stats.solved_tried += 1;
                s.stats.solved_reached += u64::from(taken.contains(&target));
                if taken.contains(&target) {
                    s.reached.insert(target);
                }
            }
            s.arrived += 1;
            let arrival = s.arrived;
            for d in taken {
                *s.seen.entry(d).or_default() += 1;
                s.first_seen.entry(d).or_insert(arrival);
            }
            for (e, &b) in t.path.iter().zip(&buckets) {
                if e.kind != PATH_PIN {
                    let (site, value) = direction(e);
                    s.seen_in_context.insert((site, value, b));
                }
            }
            s.pending += 1;
            arrival
        };
        let job = Job {
            generation: self.generation,
            id,
            arrival,
            trace: Arc::new(t),
            buckets,
            input,
            bound,
            guards: self.guards.clone(),
            repair,
        };
        if self.jobs.send(job).is_err() {
            // The solver thread is gone: nothing more will come.
            let mut s = self.link.lock();
            s.pending = s.pending.saturating_sub(1);
        }
    }

    fn pending(&self) -> Pending {
        let s = self.link.lock();
        if !s.queue.is_empty() || !s.later.is_empty() {
            Pending::Ready
        } else if s.pending > 0 || !s.retries.is_empty() {
            // Retries run while nothing else does: the unit waits for
            // them as for new traces' solving.
            Pending::Working
        } else {
            Pending::Nothing
        }
    }

    fn system_coverage(&mut self, covered: &[u8]) {
        let mut s = self.link.lock();
        s.covered.clear();
        s.covered.extend_from_slice(covered);
    }

    fn wait(&self, limit: Duration) {
        let s = self.link.lock();
        if (s.pending > 0 || !s.retries.is_empty()) && s.queue.is_empty() && s.later.is_empty() {
            let _ = self.link.done.wait_timeout(s, limit);
        }
    }

    fn set_cpu_share(&self, share: f64) {
        self.pace.set_share(share);
    }

    fn own_cpu_seconds(&self) -> f64 {
        self.pace.cpu_seconds()
    }

    fn stats_json(&self) -> serde_json::Value {
        let mut v = serde_json::to_value(self.explore_stats()).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.insert("solver_cpu_s".into(), self.pace.cpu_seconds().into());
            o.insert("solver_waited_s".into(), self.pace.waited_seconds().into());
        }
        v
    }
}

impl Drop for Symbolic {
    /// Stops the solver thread and waits for it (up to [`JOIN_WAIT`]): the
    /// query under way gives up, and the thread ends as its job channel
    /// closes. A thread still in z3 when the process exits would run on
    /// while z3's globals are torn down (a floating-point exception or an
    /// assertion of z3's bignum code, after everything was written).
    fn drop(&mut self) {
        self.link.lock().closed = true;
        self.pace.halt();
        drop(std::mem::replace(&mut self.jobs, std::sync::mpsc::channel().0));
        let Some(thread) = self.thread.take() else { return };
        let waited = std::time::Instant::now();
        while !thread.is_finished() && waited.elapsed() < JOIN_WAIT {
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        if thread.is_finished() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests;
