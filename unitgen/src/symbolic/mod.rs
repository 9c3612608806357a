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
/// string's bytes (and the zeros of its room, see `Param::room`).
fn current_bytes(p: &Param) -> Option<(Vec<u8>, bool)> {
    match p.site {
        Site::Arg { size, .. } => Some((p.original_int()?.to_le_bytes()[..size.clamp(1, 8) as usize].to_vec(), true)),
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
mod tests {
    use super::*;
    use model::op::Op;
    use model::symtrace::PathEntry;
    use model::trace::Node;
    use model::unit::Encoding;

    fn node(op: Op, width: u8, a: u32, b: u32, val: u64) -> Node {
        Node { op, width, a, b, c: 0, val }
    }

    /// A unit that switches on its string parameter's first byte: cases
    /// '\n', 'q' and 'x'. The seed takes 'x'.
    fn switch_trace() -> Trace {
        let nodes = vec![node(Op::Const, 8, 0, 0, 0), node(Op::Input, 8, 0, 0, 0)];
        let path = vec![PathEntry {
            kind: PATH_SWITCH,
            site: 7,
            node: 1,
            taken: u64::from(b'x'),
            cases: vec![10, 113, 120],
            slots: Vec::new(),
        }];
        Trace { flags: 0, nodes, path, tables: Vec::new(), pin_names: Vec::new() }
    }

    /// The switch's default taken ('k'), then a branch on a class table
    /// of the same byte (`isupper`: bit 8 of its entry) not taken.
    fn default_then_table_trace() -> Trace {
        let upper: Vec<u64> = (0..256u64).map(|c| if (65..91).contains(&c) { 0x100 } else { 0 }).collect();
        let nodes = vec![
            node(Op::Const, 8, 0, 0, 0),
            node(Op::Input, 8, 0, 0, 0),
            node(Op::Table, 16, 1, 0, 0),
            node(Op::Const, 16, 0, 0, 0x100),
            node(Op::And, 16, 2, 3, 0),
            node(Op::Const, 16, 0, 0, 0),
            node(Op::Ne, 1, 4, 5, 0),
        ];
        let path = vec![
            PathEntry {
                kind: PATH_SWITCH,
                site: 7,
                node: 1,
                taken: u64::from(b'k'),
                cases: vec![10, 113, 120],
                slots: Vec::new(),
            },
            PathEntry { kind: PATH_BRANCH, site: 8, node: 6, taken: 0, cases: Vec::new(), slots: Vec::new() },
        ];
        Trace { flags: 0, nodes, path, tables: vec![upper], pin_names: Vec::new() }
    }

    /// The two-byte string parameter the switch traces read, carved as
    /// "xy"; a lift cannot carry `excluded`.
    fn xy(excluded: &[u8]) -> Param {
        Param {
            site: Site::Bytes { object: 1, offset: 0, len: 2, nul: false },
            encoding: Encoding::Raw,
            occurrences: vec![(0, 2)],
            original: b"xy".to_vec(),
            excluded: excluded.to_vec(),
            room: 0,
        }
    }

    /// The values solved, in the order they come, from a trace of the
    /// switch of [`switch_trace`] that took `taken`.
    fn solved_from(g: &mut Symbolic, taken: u8) -> Vec<u8> {
        let mut t = switch_trace();
        t.path[0].taken = u64::from(taken);
        drain(g, t).iter().map(|v| v[0]).collect()
    }

    /// Every value solved from one trace.
    fn drain(g: &mut Symbolic, t: Trace) -> Vec<Vec<u8>> {
        let p = xy(&[]);
        g.start("f", std::slice::from_ref(&p));
        let seed = g.next(std::slice::from_ref(&p), 1);
        g.observe(&seed[0], Some(t));
        let mut found = Vec::new();
        while g.pending() != Pending::Nothing {
            g.wait(std::time::Duration::from_millis(50));
            for c in g.next(std::slice::from_ref(&p), 1) {
                found.extend(c.values.iter().map(|(_, v)| v.text()));
            }
        }
        found
    }

    /// Its solver thread ends with it (a thread left in z3 as the process
    /// exits runs on while z3's globals are torn down).
    #[test]
    fn dropping_it_ends_its_solver_thread() {
        let mut g = Symbolic::new(2000, None);
        assert!(!drain(&mut g, switch_trace()).is_empty());
        let link = g.link.clone();
        let started = std::time::Instant::now();
        drop(g);
        assert_eq!(Arc::strong_count(&link), 1, "the thread still holds its link");
        assert!(started.elapsed() < std::time::Duration::from_secs(2), "{:?}", started.elapsed());
    }

    #[test]
    fn a_direction_few_traces_took_is_solved_again_after_the_new_ones() {
        let mut g = Symbolic::new(2000, None);
        for _ in 1..worker::RARE {
            assert!(!solved_from(&mut g, b'q').contains(&b'q'));
        }
        // 'q' was taken by RARE - 1 traces: solved again, after the
        // directions no trace took ('\n'; the default).
        let found = solved_from(&mut g, b'x');
        assert_eq!(found.len(), 3, "{found:?}");
        assert_eq!(found[2], b'q', "{found:?}");
        // Once RARE traces took it, it is not.
        solved_from(&mut g, b'q');
        let found = solved_from(&mut g, b'x');
        assert!(!found.contains(&b'q'), "{found:?}");
    }

    #[test]
    fn directions_to_edges_system_runs_cover_are_solved_for_after_the_others() {
        let mut g = Symbolic::new(2000, None);
        // The '\n' case's edge (slot 100) is covered; 'q' (101), the
        // seed's 'x' (102) and the default (103) are not.
        let mut covered = vec![0u8; 256];
        covered[100] = 1;
        g.system_coverage(&covered);
        let mut t = switch_trace();
        t.path[0].slots = vec![100, 101, 102, 103];
        let found = drain(&mut g, t);
        assert_eq!(found.len(), 3, "{found:?}");
        assert_eq!(found[2][0], b'\n', "{found:?}");
        let stats = g.explore_stats();
        assert_eq!((stats.asked_open, stats.asked_covered), (2, 1), "{stats:?}");
    }

    #[test]
    fn a_direction_its_path_rules_out_is_asked_for_at_doubling_gaps() {
        // The byte is switched on twice, as a command letter by a parser
        // and again by an executor: under the path through the first
        // switch, the second's other cases have no solution.
        let mut g = Symbolic::new(2000, None);
        let trace = || {
            let mut t = switch_trace();
            let again = PathEntry { site: 8, ..t.path[0].clone() };
            t.path.push(again);
            t
        };
        for _ in 0..6 {
            drain(&mut g, trace());
        }
        // Each trace asks for the first switch's three other directions;
        // the second's are asked for at traces 1, 2 and 4 only.
        let stats = g.explore_stats();
        assert_eq!((stats.asked_open, stats.skipped_unsolvable), (6 * 3 + 3 * 3, 3 * 3), "{stats:?}");
    }

    /// A loop on the parameter's bytes: it goes on at byte 0 (not NUL)
    /// and stops at byte 1 when that is 'y' (`go_on`: it did not).
    fn loop_trace(go_on: bool) -> Trace {
        let nodes = vec![
            node(Op::Const, 8, 0, 0, 0),
            node(Op::Input, 8, 0, 0, 0),
            node(Op::Input, 8, 0, 0, 1),
            node(Op::Const, 8, 0, 0, 0),
            node(Op::Ne, 1, 1, 3, 0),
            node(Op::Const, 8, 0, 0, u64::from(b'y')),
            node(Op::Ne, 1, 2, 5, 0),
        ];
        let branch =
            |node, taken| PathEntry { kind: PATH_BRANCH, site: 9, node, taken, cases: Vec::new(), slots: Vec::new() };
        Trace {
            flags: 0,
            nodes,
            path: vec![branch(4, 1), branch(6, u64::from(go_on))],
            tables: Vec::new(),
            pin_names: Vec::new(),
        }
    }

    /// Waits until the solver thread is done with the traces it was given.
    fn settle(g: &Symbolic) {
        while g.link.lock().pending > 0 {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// Every value still to come.
    fn rest(g: &mut Symbolic, p: &Param) -> Vec<Vec<u8>> {
        let mut found = Vec::new();
        while g.pending() != Pending::Nothing {
            g.wait(std::time::Duration::from_millis(50));
            for c in g.next(std::slice::from_ref(p), 1) {
                found.extend(c.values.iter().map(|(_, v)| v.text()));
            }
        }
        found
    }

    #[test]
    fn a_solution_is_tried_though_a_try_off_its_path_took_its_direction() {
        let p = xy(&[]);
        let mut g = Symbolic::new(2000, None);
        g.start("f", std::slice::from_ref(&p));
        let seed = g.next(std::slice::from_ref(&p), 1);
        g.observe(&seed[0], Some(switch_trace()));
        settle(&g);
        // The first solution's run takes another case than it was solved
        // for (say a byte its trace had concrete sent it elsewhere).
        let first = g.next(std::slice::from_ref(&p), 1);
        let solved_for = first[0].values[0].1.text()[0];
        let other = if solved_for == b'q' { b'\n' } else { b'q' };
        let mut t = switch_trace();
        t.path[0].taken = u64::from(other);
        g.observe(&first[0], Some(t));
        // The solution for that case is still tried: no input solved for
        // it took it.
        let found = rest(&mut g, &p);
        assert!(found.iter().any(|v| v[0] == other), "{found:?}");
    }

    #[test]
    fn a_try_that_left_its_path_early_is_brought_back_to_it_and_on_to_its_target() {
        let p = xy(&[]);
        let mut g = Symbolic::new(2000, None);
        g.start("f", std::slice::from_ref(&p));
        let seed = g.next(std::slice::from_ref(&p), 1);
        // A checksum over both bytes whose sum the trace had concrete for
        // byte 1 (a vectorised loop): byte 0 plus 'y' is 0xf1, taken; then
        // a branch on byte 1 being 'b', not taken.
        let plus = |a, k: u8| vec![node(Op::Const, 8, 0, 0, u64::from(k)), node(Op::Add, 8, 1, a, 0)];
        let mut nodes = vec![node(Op::Const, 8, 0, 0, 0), node(Op::Input, 8, 0, 0, 0), node(Op::Input, 8, 0, 0, 1)];
        nodes.extend(plus(3, b'y'));
        nodes.extend([
            node(Op::Const, 8, 0, 0, 0xf1),
            node(Op::Eq, 1, 4, 5, 0),
            node(Op::Const, 8, 0, 0, u64::from(b'b')),
            node(Op::Eq, 1, 2, 7, 0),
        ]);
        let branch = |site, node, taken| PathEntry {
            kind: PATH_BRANCH,
            site,
            node,
            taken,
            cases: Vec::new(),
            slots: Vec::new(),
        };
        let parent = Trace {
            flags: 0,
            nodes: nodes.clone(),
            path: vec![branch(5, 6, 1), branch(6, 8, 0)],
            tables: Vec::new(),
            pin_names: Vec::new(),
        };
        g.observe(&seed[0], Some(parent));
        settle(&g);
        let solved = g.next(std::slice::from_ref(&p), 4);
        let child = solved.iter().find(|c| c.values[0].1.text() == b"xb").expect("solved for 'b'");
        // Its run: with byte 1 'b', the checksum fails; the trace has byte
        // 1's part concrete again, now 'b'.
        nodes[3] = node(Op::Const, 8, 0, 0, u64::from(b'b'));
        let t = Trace { flags: 0, nodes, path: vec![branch(5, 6, 0)], tables: Vec::new(), pin_names: Vec::new() };
        g.observe(child, Some(t));
        let found = rest(&mut g, &p);
        // Byte 0 mended the checksum, byte 1 kept.
        assert!(found.contains(&vec![0xf1 - b'b', b'b']), "{found:?}");
        assert_eq!(g.explore_stats().repairs_asked, 1);
    }

    #[test]
    fn a_loop_that_goes_on_where_no_trace_went_on_is_solved_for() {
        let mut g = Symbolic::new(2000, None);
        for _ in 0..worker::RARE {
            drain(&mut g, loop_trace(false));
        }
        // Both directions of the loop's branch are common now; going on
        // at its second meeting is not (a script read one byte further).
        let found = drain(&mut g, loop_trace(false));
        assert!(found.iter().any(|v| v.len() == 2 && v[1] != b'y'), "{found:?}");
        // Once a trace went on there, it is not solved for again.
        drain(&mut g, loop_trace(true));
        let found = drain(&mut g, loop_trace(false));
        assert!(!found.iter().any(|v| v.len() == 2 && v[1] != b'y'), "{found:?}");
    }

    fn explore(excluded: &[u8]) -> Vec<Vec<u8>> {
        explore_trace(excluded, switch_trace())
    }

    fn explore_trace(excluded: &[u8], trace: Trace) -> Vec<Vec<u8>> {
        explore_with_stats(excluded, trace).0
    }

    fn explore_with_stats(excluded: &[u8], trace: Trace) -> (Vec<Vec<u8>>, ExploreStats) {
        let p = xy(excluded);
        let mut g = Symbolic::new(2000, None);
        g.start("f", std::slice::from_ref(&p));
        let seed = g.next(std::slice::from_ref(&p), 4);
        assert_eq!(seed.len(), 1);
        assert_eq!(g.pending(), Pending::Nothing);
        g.observe(&seed[0], Some(trace));
        let mut found = Vec::new();
        while g.pending() != Pending::Nothing {
            g.wait(std::time::Duration::from_millis(50));
            for c in g.next(std::slice::from_ref(&p), 4) {
                found.extend(c.values.iter().map(|(_, v)| v.text()));
            }
        }
        found.sort();
        (found, g.explore_stats())
    }

    #[test]
    fn a_case_the_path_rules_out_is_solved_for_alone_and_queued_behind() {
        // The byte was tested for 'x' before the switch: under that path
        // no other case has a solution; alone, each has.
        let mut t = switch_trace();
        t.nodes.push(node(Op::Const, 8, 0, 0, u64::from(b'x')));
        t.nodes.push(node(Op::Eq, 1, 1, 2, 0));
        t.path.insert(
            0,
            PathEntry { kind: PATH_BRANCH, site: 5, node: 3, taken: 1, cases: Vec::new(), slots: Vec::new() },
        );
        let (found, stats) = explore_with_stats(&[], t);
        assert!(found.iter().any(|v| v[0] == b'q') && found.iter().any(|v| v[0] == b'\n'), "{found:?}");
        assert!(stats.optimistic >= 2, "{stats:?}");
    }

    #[test]
    fn an_entry_the_traces_own_input_does_not_meet_is_left_out_of_its_queries() {
        // The trace says byte 0 was 'q' before the switch, but its input
        // has 'x' there (an expression left for a byte overwritten since):
        // with it, no other case would have a solution on the path.
        let mut t = switch_trace();
        t.nodes.push(node(Op::Const, 8, 0, 0, u64::from(b'q')));
        t.nodes.push(node(Op::Eq, 1, 1, 2, 0));
        t.path.insert(
            0,
            PathEntry { kind: PATH_BRANCH, site: 5, node: 3, taken: 1, cases: Vec::new(), slots: Vec::new() },
        );
        let (found, stats) = explore_with_stats(&[], t);
        assert!(found.iter().any(|v| v[0] == b'q') && found.iter().any(|v| v[0] == b'\n'), "{found:?}");
        assert_eq!((stats.entries_stale, stats.optimistic), (1, 0), "{stats:?}");
    }

    #[test]
    fn every_case_of_a_switch_is_solved_on_the_solver_thread() {
        let found = explore(&[]);
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found.iter().any(|v| v[0] == b'q') && found.iter().any(|v| v[0] == b'\n'), "{found:?}");
    }

    #[test]
    fn a_value_past_a_switch_default_is_free_but_for_the_cases() {
        let found = explore_trace(&[], default_then_table_trace());
        // The cases but 'x' (the seed's own byte, already tried), and a
        // capital: the table's branch, solvable only if the default holds
        // the byte to none of the cases rather than to 'k'.
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found.iter().any(|v| v[0].is_ascii_uppercase()), "{found:?}");
    }

    #[test]
    fn a_string_with_room_is_symbolic_past_its_nul_and_starts_as_carved() {
        let p = Param {
            site: Site::Bytes { object: 2, offset: 0, len: 2, nul: true },
            encoding: Encoding::Raw,
            occurrences: vec![(0, 2)],
            original: b"-d".to_vec(),
            excluded: Vec::new(),
            room: 3,
        };
        let mut g = Symbolic::new(2000, None);
        g.start("f", std::slice::from_ref(&p));
        let inputs = g.symbolic_inputs().unwrap();
        assert_eq!((inputs.len(), inputs[0].object, inputs[0].len), (1, 2, 5), "{inputs:?}");
        // The seed's value gives the object its room, and lifts as carved.
        let seed = g.next(std::slice::from_ref(&p), 1);
        assert_eq!(seed[0].values, vec![(0, Value::Bytes(b"-d\0\0\0".to_vec()))]);
        assert_eq!(seed[0].values[0].1.text(), b"-d");
    }

    #[test]
    fn a_new_word_is_tried_as_a_dash_right_after_the_seed() {
        let p = Param {
            site: Site::NewWord { argv: 0, word: 4, slot: 1 },
            encoding: Encoding::Raw,
            occurrences: vec![(3, 0)],
            original: Vec::new(),
            excluded: Vec::new(),
            room: 6,
        };
        let mut g = Symbolic::new(2000, None);
        g.start("f", std::slice::from_ref(&p));
        let inputs = g.symbolic_inputs().unwrap();
        assert_eq!((inputs[0].object, inputs[0].len), (4, 6), "{inputs:?}");
        let first = g.next(std::slice::from_ref(&p), 4);
        let values: Vec<_> = first.iter().map(|c| (c.op, c.values.clone())).collect();
        assert_eq!(
            values,
            vec![
                ("seed", vec![(0, Value::Bytes(vec![0; 6]))]),
                ("new word", vec![(0, Value::Bytes(b"-\0\0\0\0\0".to_vec()))])
            ]
        );
        assert_eq!(p.text(&first[1].values[0].1), b" -");
    }

    #[test]
    fn bytes_a_lift_cannot_carry_are_never_solved_for() {
        let found = explore(b"\n");
        assert_eq!(found.len(), 2, "the '\\n' case is left: {found:?}");
        assert!(found.iter().all(|v| !v.contains(&b'\n')), "{found:?}");
    }

    #[test]
    fn a_range_of_bytes_a_lift_cannot_carry_is_never_solved_for() {
        // 'q' and 'x' are in the range; the seed's own 'x' stays as it was.
        let range: Vec<u8> = (0x70..=0xff).collect();
        let found = explore(&range);
        assert!(found.iter().any(|v| v.contains(&b'\n')), "the '\\n' case is solved: {found:?}");
        assert!(found.iter().all(|v| !v.contains(&b'q')), "{found:?}");
    }

    #[test]
    fn a_binary_field_starts_as_its_bytes_read_and_its_argument_stays_within_it() {
        // A 4-byte argument, 9 in the input as `00 09` (a 16-bit big-endian
        // field).
        let p = Param {
            site: Site::Arg { index: 1, size: 4 },
            encoding: Encoding::Binary { width: 2, big_endian: true },
            occurrences: vec![(5, 2)],
            original: vec![0x00, 0x09],
            excluded: Vec::new(),
            room: 0,
        };
        assert_eq!(solved_for_48_and_past_two_bytes(&p), [Value::Int(48)], "no value past the field's two bytes");
        // A length (of 9 bytes) likewise.
        let length = Param { encoding: Encoding::Length, occurrences: vec![(5, 9)], original: b"9".to_vec(), ..p };
        assert_eq!(solved_for_48_and_past_two_bytes(&length), [Value::Int(48)], "no length past two bytes");
    }

    /// What a 4-byte argument of 9 is solved to when its trace branches on
    /// `len == 48` and on `len >= 0x10000`.
    fn solved_for_48_and_past_two_bytes(p: &Param) -> Vec<Value> {
        let mut nodes = vec![node(Op::Const, 8, 0, 0, 0)];
        nodes.extend((0..4).map(|k| node(Op::Input, 8, 0, 0, k)));
        nodes.push(node(Op::Concat, 16, 2, 1, 0));
        nodes.push(node(Op::Concat, 24, 3, 5, 0));
        nodes.push(node(Op::Concat, 32, 4, 6, 0));
        nodes.push(node(Op::Const, 32, 0, 0, 48));
        nodes.push(node(Op::Eq, 1, 7, 8, 0));
        nodes.push(node(Op::Const, 32, 0, 0, 0x10000));
        nodes.push(node(Op::Uge, 1, 7, 10, 0));
        let branch =
            |site, node| PathEntry { kind: PATH_BRANCH, site, node, taken: 0, cases: Vec::new(), slots: Vec::new() };
        let path = vec![branch(5, 9), branch(6, 11)];
        let t = Trace { flags: 0, nodes, path, tables: Vec::new(), pin_names: Vec::new() };
        let mut g = Symbolic::new(2000, None);
        g.start("f", std::slice::from_ref(p));
        let seed = g.next(std::slice::from_ref(p), 1);
        assert_eq!(g.base, [9, 0, 0, 0], "the argument as carved");
        g.observe(&seed[0], Some(t));
        let mut found = Vec::new();
        while g.pending() != Pending::Nothing {
            g.wait(std::time::Duration::from_millis(50));
            found.extend(g.next(std::slice::from_ref(p), 4).into_iter().flat_map(|c| c.values).map(|(_, v)| v));
        }
        found
    }
}
