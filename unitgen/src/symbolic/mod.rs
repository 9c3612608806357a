//! Basilisk's explorer: concolic generational search over a unit's
//! parameters. The unit runs with its parameter bytes symbolic; from each
//! trace, every branch past the input's bound whose other direction no
//! trace has taken yet is negated (its prefix kept, sliced), solved, and
//! the solution queued as a new input with the bound moved past it.
//! String parameters are fixed-size symbolic buffers (a NUL may move in);
//! integers are their bytes.

pub mod dag;

use crate::solver::{self, Answer, Cond, Query, Solver};
use crate::{Candidate, UnitGenerator};
use model::snapshot::RELOC_IN_ARG;
use model::symtrace::{PathEntry, Trace};
use model::trace::*;
use model::unit::{Param, Site, Value};
use serde::Serialize;
use std::collections::{HashMap, HashSet, VecDeque};

/// Most queries asked per trace, and the most time spent solving for one.
const MAX_QUERIES: usize = 64;
const MAX_SOLVING: std::time::Duration = std::time::Duration::from_secs(2);
/// Direction of a switch's default.
const DEFAULT: u64 = u64::MAX;

/// What the explorer did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ExploreStats {
    pub traces: u64,
    pub path_entries: u64,
    /// Traces cut at the runtime's bounds (DAG or path full).
    pub truncated: u64,
    /// Traces whose negations stopped at the query or time bound.
    pub traces_cut_short: u64,
    pub inputs_queued: u64,
    /// Queued inputs dropped because another input covered their target.
    pub inputs_skipped: u64,
    pub solver: solver::Stats,
}

struct Item {
    input: Vec<u8>,
    bound: usize,
    /// The branch direction it was solved for.
    target: (u32, u64),
}

/// One parameter's place among the symbolic bytes.
#[derive(Clone, Copy)]
struct Slot {
    param: usize,
    first: u32,
    len: u32,
    arg: bool,
}

pub struct Symbolic {
    solver: Box<dyn Solver>,
    slots: Vec<Slot>,
    inputs: Vec<SymInput>,
    base: Vec<u8>,
    queue: VecDeque<Item>,
    tried: HashSet<Vec<u8>>,
    covered: HashSet<(u32, u64)>,
    /// Candidates out for a run: their input and bound.
    out: HashMap<u64, (Vec<u8>, usize)>,
    next_tag: u64,
    seeded: bool,
    stats: ExploreStats,
}

impl Symbolic {
    pub fn new(timeout_ms: u32, smt_log: Option<std::path::PathBuf>) -> Symbolic {
        Symbolic {
            solver: Box::new(solver::chain(timeout_ms, smt_log)),
            slots: Vec::new(),
            inputs: Vec::new(),
            base: Vec::new(),
            queue: VecDeque::new(),
            tried: HashSet::new(),
            covered: HashSet::new(),
            out: HashMap::new(),
            next_tag: 1,
            seeded: false,
            stats: ExploreStats::default(),
        }
    }

    pub fn explore_stats(&self) -> ExploreStats {
        ExploreStats { solver: self.solver.stats(), ..self.stats.clone() }
    }

    fn candidate(&mut self, input: Vec<u8>, bound: usize, op: &'static str) -> Candidate {
        let mut values = Vec::new();
        for s in &self.slots {
            let (a, b) = (s.first as usize, (s.first + s.len) as usize);
            if input[a..b] == self.base[a..b] {
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
        self.out.insert(tag, (input, bound));
        Candidate { values, op, tag }
    }
}

/// The parameter's current bytes: an integer's little-endian bytes, a
/// string's bytes.
fn current_bytes(p: &Param) -> Option<(Vec<u8>, bool)> {
    match p.site {
        Site::Arg { size, .. } => {
            let v: i64 = std::str::from_utf8(&p.original).ok()?.trim().parse().ok()?;
            Some((v.to_le_bytes()[..size.clamp(1, 8) as usize].to_vec(), true))
        }
        Site::Bytes { len, .. } if len as usize == p.original.len() && len > 0 => Some((p.original.clone(), false)),
        _ => None,
    }
}

/// The condition an entry's direction puts on the path.
fn held(e: &PathEntry) -> Cond {
    match e.kind {
        PATH_SWITCH => Cond::Is(e.node, e.taken),
        _ => Cond::Bit(e.node, e.taken != 0),
    }
}

fn direction(e: &PathEntry) -> (u32, u64) {
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

impl UnitGenerator for Symbolic {
    fn name(&self) -> &'static str {
        "symbolic"
    }

    fn start(&mut self, params: &[Param]) {
        self.slots.clear();
        self.inputs.clear();
        self.base.clear();
        self.queue.clear();
        self.tried.clear();
        self.out.clear();
        self.seeded = false;
        for (k, p) in params.iter().enumerate() {
            let Some((bytes, arg)) = current_bytes(p) else { continue };
            let first = self.base.len() as u32;
            let (object, offset) = match p.site {
                Site::Arg { index, .. } => (RELOC_IN_ARG, u64::from(index)),
                Site::Bytes { object, offset, .. } => (object, offset),
                Site::Stream { .. } => continue,
            };
            self.inputs.push(SymInput { object, offset, len: bytes.len() as u32, first });
            self.slots.push(Slot { param: k, first, len: bytes.len() as u32, arg });
            self.base.extend_from_slice(&bytes);
        }
        self.tried.insert(self.base.clone());
    }

    fn symbolic_inputs(&self) -> Option<Vec<SymInput>> {
        Some(self.inputs.clone())
    }

    fn next(&mut self, _params: &[Param], n: usize) -> Vec<Candidate> {
        let mut out = Vec::new();
        if !self.seeded {
            self.seeded = true;
            out.push(self.candidate(self.base.clone(), 0, "seed"));
        }
        while out.len() < n {
            let Some(item) = self.queue.pop_front() else { break };
            if self.covered.contains(&item.target) {
                self.stats.inputs_skipped += 1;
                continue;
            }
            out.push(self.candidate(item.input, item.bound, "solved"));
        }
        out
    }

    fn observe(&mut self, c: &Candidate, trace: Option<&Trace>) {
        let Some((input, bound)) = self.out.remove(&c.tag) else { return };
        let Some(t) = trace else { return };
        self.stats.traces += 1;
        self.stats.path_entries += t.path.len() as u64;
        self.stats.truncated += u64::from(t.flags != 0);
        for e in &t.path {
            if e.kind != PATH_PIN {
                self.covered.insert(direction(e));
            }
        }
        let id = self.next_tag;
        self.next_tag += 1;
        let mut asked = HashSet::new();
        let started = std::time::Instant::now();
        let mut prefix: Vec<Cond> = t.path[..bound.min(t.path.len())].iter().map(held).collect();
        'entries: for (i, e) in t.path.iter().enumerate().skip(bound) {
            for (dir, cond) in alternatives(e) {
                if asked.len() >= MAX_QUERIES || started.elapsed() >= MAX_SOLVING {
                    self.stats.traces_cut_short += 1;
                    break 'entries;
                }
                if self.covered.contains(&dir) || !asked.insert(dir) {
                    continue;
                }
                let mut conds = prefix.clone();
                conds.push(cond);
                if let Answer::Sat(assign) = self.solver.solve(&Query { id, trace: t, conds }) {
                    let mut child = input.clone();
                    for (k, v) in assign {
                        if let Some(b) = child.get_mut(k as usize) {
                            *b = v;
                        }
                    }
                    if self.tried.insert(child.clone()) {
                        self.stats.inputs_queued += 1;
                        self.queue.push_back(Item { input: child, bound: i + 1, target: dir });
                    }
                }
            }
            prefix.push(held(e));
        }
    }

    fn stats_json(&self) -> serde_json::Value {
        serde_json::to_value(self.explore_stats()).unwrap_or_default()
    }
}
