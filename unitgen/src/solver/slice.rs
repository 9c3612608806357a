//! Independent-constraint slicing: of the conditions before the negated
//! one (the last), keep only those that share input bytes with it,
//! transitively. The rest cannot change the answer for these bytes.

use super::{Answer, Query, Solver, Stats, Stop};
use crate::symbolic::dag::Dag;
use std::collections::BTreeSet;

pub struct Slicing<S> {
    inner: S,
    dag: Dag,
}

impl<S: Solver> Slicing<S> {
    pub fn new(inner: S) -> Self {
        Slicing { inner, dag: Dag::default() }
    }
}

/// The conditions the last one depends on (it included, last).
pub fn slice(q: &Query<'_>, dag: &mut Dag) -> Vec<usize> {
    let Some(last) = q.conds.len().checked_sub(1) else { return Vec::new() };
    let mut bytes: BTreeSet<u32> = dag.inputs(q.trace, q.conds[last].node()).iter().copied().collect();
    let mut keep = vec![false; q.conds.len()];
    keep[last] = true;
    loop {
        let mut grew = false;
        for (i, c) in q.conds.iter().enumerate() {
            if keep[i] {
                continue;
            }
            let ins = dag.inputs(q.trace, c.node());
            if ins.iter().any(|b| bytes.contains(b)) {
                keep[i] = true;
                bytes.extend(ins.iter().copied());
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    (0..q.conds.len()).filter(|&i| keep[i]).collect()
}

impl<S: Solver> Slicing<S> {
    fn sliced<'a>(&mut self, q: &Query<'a>) -> Query<'a> {
        self.dag.for_trace(q.id);
        let kept = slice(q, &mut self.dag);
        Query { id: q.id, trace: q.trace, conds: kept.into_iter().map(|i| q.conds[i].clone()).collect(), near: q.near }
    }
}

impl<S: Solver> Solver for Slicing<S> {
    fn solve(&mut self, q: &Query<'_>) -> Answer {
        let sliced = self.sliced(q);
        self.inner.solve(&sliced)
    }

    fn solve_within(&mut self, q: &Query<'_>, timeout_ms: u32, stop: Stop<'_>) -> Answer {
        let sliced = self.sliced(q);
        self.inner.solve_within(&sliced, timeout_ms, stop)
    }

    fn extremes(&mut self, q: &Query<'_>) -> Vec<Vec<(u32, u8)>> {
        let sliced = self.sliced(q);
        self.inner.extremes(&sliced)
    }

    fn stats(&self) -> Stats {
        self.inner.stats()
    }
}
