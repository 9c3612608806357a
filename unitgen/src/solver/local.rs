//! Solving near the parent input first. A query is its path prefix and the
//! condition to make hold (the last); the prefix holds on the parent input
//! already. Slicing keeps every condition that shares a byte with the last
//! one, transitively, and in a parser that is often the whole file (each
//! line is read by the same `sscanf` and compared by the same `strcmp`),
//! so the solver meets every number's chain of multiplications by ten,
//! and times out. Here the bytes the last condition does not read are
//! first held at their parent values: the solver's simplifier folds the
//! prefix over them to constants, and what is left is the last
//! condition's own bytes. A solution of that query solves the whole one
//! (it is the whole one with more conditions); when it has none, or the
//! solver gives up, the whole query is asked as it is.

use super::{Answer, Cond, Query, Solver, Stats, Stop};
use crate::symbolic::dag::Dag;
use model::trace::OP_INPUT;
use std::collections::BTreeSet;

pub struct Local<S> {
    inner: S,
    dag: Dag,
    solved: u64,
}

impl<S: Solver> Local<S> {
    pub fn new(inner: S) -> Self {
        Local { inner, dag: Dag::default(), solved: 0 }
    }

    /// `q` with the bytes its last condition does not read held at their
    /// parent values; `None` when that holds no byte (it is `q`).
    fn narrowed(&mut self, q: &Query<'_>) -> Option<Vec<Cond>> {
        let last = q.conds.last()?;
        if q.near.is_empty() || q.conds.len() < 2 {
            return None;
        }
        self.dag.for_trace(q.id);
        let own: BTreeSet<u32> = self.dag.inputs(q.trace, last.node()).iter().copied().collect();
        let mut read = BTreeSet::new();
        for c in &q.conds {
            read.extend(self.dag.inputs(q.trace, c.node()).iter().copied());
        }
        let held: BTreeSet<u32> = read.difference(&own).copied().collect();
        if held.is_empty() {
            return None;
        }
        let mut conds = q.conds.clone();
        for (n, x) in q.trace.nodes.iter().enumerate() {
            if x.op == OP_INPUT && x.width == 8 && held.contains(&(x.val as u32)) {
                if let Some(&v) = q.near.get(x.val as usize) {
                    conds.insert(conds.len() - 1, Cond::Is(n as u32, u64::from(v)));
                }
            }
        }
        Some(conds)
    }

    fn ask(&mut self, q: &Query<'_>, mut solve: impl FnMut(&mut S, &Query<'_>) -> Answer) -> Answer {
        if let Some(conds) = self.narrowed(q) {
            let near = Query { id: q.id, trace: q.trace, conds, near: q.near };
            if let Answer::Sat(assign) = solve(&mut self.inner, &near) {
                self.solved += 1;
                return Answer::Sat(assign);
            }
        }
        solve(&mut self.inner, q)
    }
}

impl<S: Solver> Solver for Local<S> {
    fn solve(&mut self, q: &Query<'_>) -> Answer {
        self.ask(q, |s, q| s.solve(q))
    }

    fn solve_within(&mut self, q: &Query<'_>, timeout_ms: u32, stop: Stop<'_>) -> Answer {
        self.ask(q, |s, q| s.solve_within(q, timeout_ms, stop))
    }

    fn stats(&self) -> Stats {
        Stats { near_parent: self.solved, ..self.inner.stats() }
    }
}
