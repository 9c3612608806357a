//! A query cache: the same conditions (compared by the structure of
//! their expressions, not by node ids, which differ between traces) get
//! the same answer without asking the solver again.

use super::{Answer, Cond, Query, Solver, Stats, Stop};
use crate::symbolic::dag::Dag;
use std::collections::HashMap;

/// Most answers kept.
const MAX_ENTRIES: usize = 1 << 16;

pub struct Caching<S> {
    inner: S,
    dag: Dag,
    answers: HashMap<Vec<u64>, Answer>,
    hits: u64,
    queries: u64,
}

impl<S: Solver> Caching<S> {
    pub fn new(inner: S) -> Self {
        Caching { inner, dag: Dag::default(), answers: HashMap::new(), hits: 0, queries: 0 }
    }
}

fn key(q: &Query<'_>, dag: &mut Dag) -> Vec<u64> {
    let mut k: Vec<u64> = q
        .conds
        .iter()
        .map(|c| {
            let h = dag.hash(q.trace, c.node());
            match c {
                Cond::Bit(_, b) => h ^ u64::from(*b).wrapping_mul(0x9e37_79b9_7f4a_7c15),
                Cond::Is(_, v) => h.rotate_left(7) ^ v.wrapping_mul(0xff51_afd7_ed55_8ccd),
                Cond::NotAny(_, vs) => vs.iter().fold(h.rotate_left(13), |a, v| a.rotate_left(5) ^ v),
            }
        })
        .collect();
    k.sort_unstable();
    k
}

impl<S: Solver> Caching<S> {
    /// The cached answer, else what `inner` says (kept unless unknown).
    fn answer(&mut self, q: &Query<'_>, inner: impl FnOnce(&mut S) -> Answer) -> Answer {
        self.queries += 1;
        self.dag.for_trace(q.id);
        let k = key(q, &mut self.dag);
        if let Some(a) = self.answers.get(&k) {
            self.hits += 1;
            return a.clone();
        }
        let a = inner(&mut self.inner);
        if self.answers.len() < MAX_ENTRIES && a != Answer::Unknown {
            self.answers.insert(k, a.clone());
        }
        a
    }
}

impl<S: Solver> Solver for Caching<S> {
    fn solve(&mut self, q: &Query<'_>) -> Answer {
        self.answer(q, |s| s.solve(q))
    }

    fn solve_within(&mut self, q: &Query<'_>, timeout_ms: u32, stop: Stop<'_>) -> Answer {
        self.answer(q, |s| s.solve_within(q, timeout_ms, stop))
    }

    fn extremes(&mut self, q: &Query<'_>) -> Vec<Vec<(u32, u8)>> {
        self.inner.extremes(q)
    }

    fn stats(&self) -> Stats {
        Stats { queries: self.queries, cache_hits: self.hits, ..self.inner.stats() }
    }
}
