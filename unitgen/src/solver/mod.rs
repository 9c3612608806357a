//! The solver chain behind one trait, in KLEE's manner: independent-
//! constraint slicing ([`slice`]), a query cache ([`cache`]) and z3 with a
//! per-query timeout ([`z3`], the only file that names it).

pub mod cache;
pub mod slice;
pub mod z3;

use model::symtrace::Trace;
use serde::Serialize;

/// One condition on a trace's expressions.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Cond {
    /// A 1-bit node is true (or false).
    Bit(u32, bool),
    /// A node equals a value.
    Is(u32, u64),
    /// A node equals none of these values.
    NotAny(u32, Vec<u64>),
}

impl Cond {
    pub fn node(&self) -> u32 {
        match self {
            Cond::Bit(n, _) | Cond::Is(n, _) | Cond::NotAny(n, _) => *n,
        }
    }
}

/// Conditions over a trace's DAG, all to hold at once.
pub struct Query<'a> {
    /// Unique per trace (facts about a trace's DAG are kept by it).
    pub id: u64,
    pub trace: &'a Trace,
    pub conds: Vec<Cond>,
}

/// What a solver says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Values for the input bytes the conditions involve.
    Sat(Vec<(u32, u8)>),
    Unsat,
    /// Timed out or gave up.
    Unknown,
}

/// Counters of a solver chain.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Stats {
    pub queries: u64,
    pub cache_hits: u64,
    pub sat: u64,
    pub unsat: u64,
    pub timeouts: u64,
    /// Time spent in the solver proper, in milliseconds.
    pub solver_ms: f64,
}

impl Stats {
    /// Mean time of a query that reached the solver.
    pub fn mean_ms(&self) -> f64 {
        let solved = self.queries - self.cache_hits;
        if solved == 0 {
            0.0
        } else {
            self.solver_ms / solved as f64
        }
    }
}

/// Decides queries.
pub trait Solver {
    fn solve(&mut self, q: &Query<'_>) -> Answer;
    fn stats(&self) -> Stats;
}

/// The chain: slicing, then the cache, then z3.
pub fn chain(timeout_ms: u32, smt_log: Option<std::path::PathBuf>) -> impl Solver {
    slice::Slicing::new(cache::Caching::new(z3::Z3::new(timeout_ms, smt_log)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::trace::*;

    fn node(op: u8, width: u8, a: u32, b: u32, val: u64) -> Node {
        Node { op, width, a, b, c: 0, val }
    }

    /// in0 * 31 + in1 == 0x1234 and in2 == 7 (independent of the first).
    fn trace() -> Trace {
        let nodes = vec![
            Node::default(),
            node(OP_INPUT, 8, 0, 0, 0),
            node(OP_INPUT, 8, 0, 0, 1),
            node(OP_ZEXT, 32, 1, 0, 0),
            node(OP_ZEXT, 32, 2, 0, 0),
            node(OP_CONST, 32, 0, 0, 31),
            node(OP_MUL, 32, 3, 5, 0),
            node(OP_ADD, 32, 6, 4, 0),
            node(OP_CONST, 32, 0, 0, 0x1234),
            node(OP_EQ, 1, 7, 8, 0),
            node(OP_INPUT, 8, 0, 0, 2),
            node(OP_CONST, 8, 0, 0, 7),
            node(OP_EQ, 1, 10, 11, 0),
        ];
        Trace { flags: 0, nodes, path: Vec::new(), tables: Vec::new() }
    }

    #[test]
    fn the_chain_solves_slices_and_caches() {
        let t = trace();
        let mut s = chain(2000, None);
        let q = Query { id: 1, trace: &t, conds: vec![Cond::Bit(12, true), Cond::Bit(9, true)] };
        let Answer::Sat(a) = s.solve(&q) else { panic!("satisfiable") };
        // Sliced: the byte constraint on in2 is independent, so only in0
        // and in1 are assigned.
        assert_eq!(a.iter().map(|p| p.0).collect::<Vec<_>>(), vec![0, 1]);
        let v = |k| a.iter().find(|p| p.0 == k).unwrap().1 as u32;
        assert_eq!(v(0) * 31 + v(1), 0x1234);
        assert_eq!(s.solve(&q), Answer::Sat(a.clone()));
        let unsat = Query { id: 1, trace: &t, conds: vec![Cond::Bit(9, true), Cond::Bit(9, false)] };
        assert_eq!(s.solve(&unsat), Answer::Unsat);
        let st = s.stats();
        assert_eq!((st.queries, st.cache_hits, st.sat, st.unsat), (3, 1, 1, 1));
    }

    #[test]
    fn a_hard_query_times_out_and_is_not_cached() {
        // x * y == a 64-bit semiprime, x and y 32-bit and above 1.
        let mut nodes = vec![Node::default()];
        let mut push = |n: Node| {
            nodes.push(n);
            (nodes.len() - 1) as u32
        };
        let mut word = |first: u64| {
            let mut acc = push(node(OP_INPUT, 8, 0, 0, first));
            for k in 1..4 {
                let b = push(node(OP_INPUT, 8, 0, 0, first + k));
                acc = push(Node { op: OP_CONCAT, width: 8 * (k as u8 + 1), a: b, b: acc, c: 0, val: 0 });
            }
            push(node(OP_ZEXT, 64, acc, 0, 0))
        };
        let (x, y) = (word(0), word(4));
        let mut push = |n: Node| {
            nodes.push(n);
            (nodes.len() - 1) as u32
        };
        let m = push(node(OP_MUL, 64, x, y, 0));
        let p = push(node(OP_CONST, 64, 0, 0, 4_294_967_291u64 * 4_294_967_279u64));
        let eq = push(node(OP_EQ, 1, m, p, 0));
        let one = push(node(OP_CONST, 64, 0, 0, 1));
        let gx = push(node(OP_UGT, 1, x, one, 0));
        let gy = push(node(OP_UGT, 1, y, one, 0));
        let t = Trace { flags: 0, nodes, path: Vec::new(), tables: Vec::new() };
        let mut s = chain(1, None);
        let conds = vec![Cond::Bit(gx, true), Cond::Bit(gy, true), Cond::Bit(eq, true)];
        let q = Query { id: 1, trace: &t, conds };
        assert_eq!(s.solve(&q), Answer::Unknown);
        assert_eq!(s.solve(&q), Answer::Unknown);
        let st = s.stats();
        assert_eq!((st.queries, st.cache_hits, st.timeouts), (2, 0, 2));
    }
}
