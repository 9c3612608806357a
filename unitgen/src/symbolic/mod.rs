//! Basilisk's explorer: concolic generational search over a unit's
//! parameters. The unit runs with its parameter bytes symbolic; from each
//! trace, every branch past the input's bound whose other direction no
//! trace has taken yet is negated (its prefix kept, sliced), solved, and
//! the solution queued as a new input with the bound moved past it.
//! Solving happens on a thread of its own ([`worker`]), while tries run.
//! String parameters are fixed-size symbolic buffers (a NUL may move in);
//! integers are their bytes.

pub mod dag;
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
    pub inputs_queued: u64,
    /// Queued inputs dropped because another input covered their target.
    pub inputs_skipped: u64,
    pub solver: solver::Stats,
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
    link: Arc<Link>,
    jobs: Sender<Job>,
    slots: Vec<Slot>,
    inputs: Vec<SymInput>,
    base: Vec<u8>,
    generation: u64,
    /// Candidates out for a run: their input and bound.
    out: HashMap<u64, (Vec<u8>, usize)>,
    next_tag: u64,
    seeded: bool,
}

impl Symbolic {
    pub fn new(timeout_ms: u32, smt_log: Option<std::path::PathBuf>) -> Symbolic {
        let link = Arc::new(Link::default());
        let (jobs, rx) = std::sync::mpsc::channel();
        worker::spawn(link.clone(), rx, timeout_ms, smt_log);
        Symbolic {
            link,
            jobs,
            slots: Vec::new(),
            inputs: Vec::new(),
            base: Vec::new(),
            generation: 0,
            out: HashMap::new(),
            next_tag: 1,
            seeded: false,
        }
    }

    pub fn explore_stats(&self) -> ExploreStats {
        self.link.lock().stats.clone()
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

impl UnitGenerator for Symbolic {
    fn name(&self) -> &'static str {
        "symbolic"
    }

    fn start(&mut self, params: &[Param]) {
        self.slots.clear();
        self.inputs.clear();
        self.base.clear();
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
        let mut s = self.link.lock();
        s.generation += 1;
        self.generation = s.generation;
        s.pending = 0;
        s.queue.clear();
        s.tried.clear();
        s.tried.insert(self.base.clone());
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
        let mut items = Vec::new();
        {
            let mut s = self.link.lock();
            while items.len() + out.len() < n {
                let Some(item) = s.queue.pop_front() else { break };
                if s.covered.contains(&item.target) {
                    s.stats.inputs_skipped += 1;
                    continue;
                }
                items.push(item);
            }
        }
        for item in items {
            out.push(self.candidate(item.input, item.bound, "solved"));
        }
        out
    }

    fn observe(&mut self, c: &Candidate, trace: Option<Trace>) {
        let Some((input, bound)) = self.out.remove(&c.tag) else { return };
        let Some(t) = trace else { return };
        let id = self.next_tag;
        self.next_tag += 1;
        {
            let mut s = self.link.lock();
            s.stats.traces += 1;
            s.stats.path_entries += t.path.len() as u64;
            s.stats.truncated += u64::from(t.flags != 0);
            for e in &t.path {
                if e.kind != PATH_PIN {
                    s.covered.insert(direction(e));
                }
            }
            s.pending += 1;
        }
        let job = Job { generation: self.generation, id, trace: t, input, bound };
        if self.jobs.send(job).is_err() {
            // The solver thread is gone: nothing more will come.
            let mut s = self.link.lock();
            s.pending = s.pending.saturating_sub(1);
        }
    }

    fn pending(&self) -> Pending {
        let s = self.link.lock();
        if !s.queue.is_empty() {
            Pending::Ready
        } else if s.pending > 0 {
            Pending::Working
        } else {
            Pending::Nothing
        }
    }

    fn wait(&self, limit: Duration) {
        let s = self.link.lock();
        if s.pending > 0 && s.queue.is_empty() {
            let _ = self.link.done.wait_timeout(s, limit);
        }
    }

    fn stats_json(&self) -> serde_json::Value {
        serde_json::to_value(self.explore_stats()).unwrap_or_default()
    }
}

impl Drop for Symbolic {
    fn drop(&mut self) {
        // The solver thread stops at its next query; the channel closes
        // with `jobs`.
        self.link.lock().closed = true;
    }
}
