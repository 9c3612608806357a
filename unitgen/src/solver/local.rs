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
use model::op::Op;
use std::collections::{BTreeSet, HashMap};

pub struct Local<S> {
    inner: S,
    dag: Dag,
    /// The input node of each byte, for the trace `inputs.0` (a trace may
    /// hold millions of nodes: they are looked through once per trace).
    inputs: (u64, HashMap<u32, u32>),
    solved: u64,
}

impl<S: Solver> Local<S> {
    pub fn new(inner: S) -> Self {
        Local { inner, dag: Dag::default(), inputs: (u64::MAX, HashMap::new()), solved: 0 }
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
        if self.inputs.0 != q.id {
            let nodes = q.trace.nodes.iter().enumerate();
            let map = nodes.filter(|(_, x)| x.op == Op::Input && x.width == 8).map(|(n, x)| (x.val as u32, n as u32));
            self.inputs = (q.id, map.collect());
        }
        let mut conds = q.conds.clone();
        let last = conds.pop()?;
        for k in held {
            if let (Some(&n), Some(&v)) = (self.inputs.1.get(&k), q.near.get(k as usize)) {
                conds.push(Cond::Is(n, u64::from(v)));
            }
        }
        conds.push(last);
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

#[cfg(test)]
mod tests {
    use super::*;
    use model::op::Op;
    use model::symtrace::Trace;
    use model::trace::*;

    /// Records the conditions of each query; solves only those that hold
    /// byte 0 (the narrowed ones) when `narrowed_sat`.
    struct Recorder {
        asked: Vec<Vec<Cond>>,
        narrowed_sat: bool,
    }

    impl Solver for Recorder {
        fn solve(&mut self, q: &Query<'_>) -> Answer {
            self.asked.push(q.conds.clone());
            let held = q.conds.iter().any(|c| matches!(c, Cond::Is(1, _)));
            if held && self.narrowed_sat {
                Answer::Sat(vec![(1, b'x')])
            } else {
                Answer::Unsat
            }
        }
        fn stats(&self) -> Stats {
            Stats::default()
        }
    }

    /// in0 == 'a' (the prefix), and in0 + in1 == 200 (the last).
    fn trace() -> Trace {
        let n = |op, width, a, b, val| Node { op, width, a, b, c: 0, val };
        let nodes = vec![
            Node::default(),
            n(Op::Input, 8, 0, 0, 0),
            n(Op::Input, 8, 0, 0, 1),
            n(Op::Const, 8, 0, 0, u64::from(b'a')),
            n(Op::Eq, 1, 1, 3, 0),
            n(Op::Input, 8, 0, 0, 2),
            n(Op::Const, 8, 0, 0, 200),
            n(Op::Add, 8, 2, 5, 0),
            n(Op::Eq, 1, 7, 6, 0),
        ];
        Trace { flags: 0, nodes, path: Vec::new(), tables: Vec::new(), pin_names: Vec::new() }
    }

    #[test]
    fn bytes_the_last_condition_does_not_read_are_held_first_then_freed() {
        let t = trace();
        let conds = vec![Cond::Bit(4, true), Cond::Bit(8, true)];
        for narrowed_sat in [true, false] {
            let mut s = Local::new(Recorder { asked: Vec::new(), narrowed_sat });
            let a = s.solve(&Query { id: 1, trace: &t, conds: conds.clone(), near: b"abc" });
            let asked = &s.inner.asked;
            // Byte 0 is held at 'a', before the last condition.
            assert_eq!(asked[0], vec![Cond::Bit(4, true), Cond::Is(1, u64::from(b'a')), Cond::Bit(8, true)]);
            if narrowed_sat {
                assert_eq!((asked.len(), a, s.stats().near_parent), (1, Answer::Sat(vec![(1, b'x')]), 1));
            } else {
                assert_eq!((asked.len(), a, s.stats().near_parent), (2, Answer::Unsat, 0));
                assert_eq!(asked[1], conds);
            }
        }
    }

    #[test]
    fn a_query_whose_last_condition_reads_every_byte_is_asked_once() {
        let t = trace();
        let mut s = Local::new(Recorder { asked: Vec::new(), narrowed_sat: true });
        s.solve(&Query { id: 1, trace: &t, conds: vec![Cond::Bit(8, true)], near: b"abc" });
        s.solve(&Query { id: 2, trace: &t, conds: vec![Cond::Bit(4, true), Cond::Bit(8, true)], near: b"" });
        assert_eq!(s.inner.asked.len(), 2);
    }
}
