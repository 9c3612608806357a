//! The solver chain behind one trait, in KLEE's manner: independent-
//! constraint slicing ([`slice`]), a query cache ([`cache`]), numbers
//! written as text into the parent input ([`text`]), solving near the
//! parent input first ([`local`]) and z3 with a per-query timeout ([`z3`],
//! the only file that names it).

pub mod cache;
pub mod local;
pub mod paced;
pub mod slice;
pub mod text;
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
    /// The input the trace ran on (empty when unknown): a stage may try
    /// inputs near it before asking the solver.
    pub near: &'a [u8],
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
    /// Queries answered by writing numbers as text ([`text`]), without z3.
    pub by_text: u64,
    /// Queries answered with the bytes their last condition does not read
    /// held at the parent input's values ([`local`]).
    pub near_parent: u64,
    /// Time spent in the solver proper, in milliseconds.
    pub solver_ms: f64,
}

/// Asked now and then while a query runs: whether to give it up (its
/// answer is then [`Answer::Unknown`]).
pub type Stop<'a> = &'a (dyn Fn() -> bool + Sync);

/// Decides queries.
pub trait Solver {
    fn solve(&mut self, q: &Query<'_>) -> Answer;
    /// Decides `q` with a time limit of `timeout_ms` instead of the
    /// chain's own, given up early when `stop` says so. A solver that has
    /// no time limit answers as [`Solver::solve`] does.
    fn solve_within(&mut self, q: &Query<'_>, _timeout_ms: u32, _stop: Stop<'_>) -> Answer {
        self.solve(q)
    }
    /// Bytes that keep every condition of `q` holding, as they hold on
    /// its parent input, with a number the last one compares pushed to
    /// the ends of its type (see [`text`]): one answer per number it
    /// reads (`addr + len`: a wrapped `addr` and a wrapped `len` fail in
    /// different ways); none when the chain has no such stage or found
    /// none.
    fn extremes(&mut self, _q: &Query<'_>) -> Vec<Vec<(u32, u8)>> {
        Vec::new()
    }
    fn stats(&self) -> Stats;
}

/// Set once the solver's owner is done with it: a query under way gives
/// up (unknown) within a few milliseconds, and later ones are not asked.
pub type Halt = std::sync::Arc<std::sync::atomic::AtomicBool>;

/// The chain: slicing, then the cache, then numbers as text, then z3 near
/// the parent input, then z3.
pub fn chain(timeout_ms: u32, smt_log: Option<std::path::PathBuf>, halt: Option<Halt>) -> impl Solver {
    let z3 = z3::Z3::new(timeout_ms, smt_log, halt);
    slice::Slicing::new(cache::Caching::new(text::Textual::new(local::Local::new(z3))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::op::Op;
    use model::trace::*;

    fn node(op: Op, width: u8, a: u32, b: u32, val: u64) -> Node {
        Node { op, width, a, b, c: 0, val }
    }

    /// in0 * 31 + in1 == 0x1234 and in2 == 7 (independent of the first).
    fn trace() -> Trace {
        let nodes = vec![
            Node::default(),
            node(Op::Input, 8, 0, 0, 0),
            node(Op::Input, 8, 0, 0, 1),
            node(Op::ZExt, 32, 1, 0, 0),
            node(Op::ZExt, 32, 2, 0, 0),
            node(Op::Const, 32, 0, 0, 31),
            node(Op::Mul, 32, 3, 5, 0),
            node(Op::Add, 32, 6, 4, 0),
            node(Op::Const, 32, 0, 0, 0x1234),
            node(Op::Eq, 1, 7, 8, 0),
            node(Op::Input, 8, 0, 0, 2),
            node(Op::Const, 8, 0, 0, 7),
            node(Op::Eq, 1, 10, 11, 0),
        ];
        Trace { flags: 0, nodes, path: Vec::new(), tables: Vec::new(), pin_names: Vec::new() }
    }

    #[test]
    fn the_chain_solves_slices_and_caches() {
        let t = trace();
        let mut s = chain(2000, None, None);
        let q = Query { id: 1, trace: &t, conds: vec![Cond::Bit(12, true), Cond::Bit(9, true)], near: &[] };
        let Answer::Sat(a) = s.solve(&q) else { panic!("satisfiable") };
        // Sliced: the byte constraint on in2 is independent, so only in0
        // and in1 are assigned.
        assert_eq!(a.iter().map(|p| p.0).collect::<Vec<_>>(), vec![0, 1]);
        let v = |k| a.iter().find(|p| p.0 == k).unwrap().1 as u32;
        assert_eq!(v(0) * 31 + v(1), 0x1234);
        assert_eq!(s.solve(&q), Answer::Sat(a.clone()));
        let unsat = Query { id: 1, trace: &t, conds: vec![Cond::Bit(9, true), Cond::Bit(9, false)], near: &[] };
        assert_eq!(s.solve(&unsat), Answer::Unsat);
        let st = s.stats();
        assert_eq!((st.queries, st.cache_hits, st.sat, st.unsat), (3, 1, 1, 1));
    }

    /// A 32-bit word squared and added to four times (64 bits), equal to
    /// what some bytes give (its condition's node): z3 takes over a
    /// minute.
    fn hard() -> (Trace, u32) {
        let bytes = [0x12u8, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0];
        let mut want = u64::from(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]));
        let mut nodes = vec![Node::default()];
        let mut push = |n: Node| {
            nodes.push(n);
            (nodes.len() - 1) as u32
        };
        let mut h = push(node(Op::Input, 8, 0, 0, 0));
        for k in 1..4u64 {
            let b = push(node(Op::Input, 8, 0, 0, k));
            h = push(Node { op: Op::Concat, width: 8 * (k as u8 + 1), a: b, b: h, c: 0, val: 0 });
        }
        h = push(node(Op::ZExt, 64, h, 0, 0));
        let mix = push(node(Op::Const, 64, 0, 0, 0x9e37_79b9_7f4a_7c15));
        for k in 4..8u64 {
            want =
                want.wrapping_mul(want).wrapping_add(u64::from(bytes[k as usize])).wrapping_add(0x9e37_79b9_7f4a_7c15);
            let sq = push(node(Op::Mul, 64, h, h, 0));
            let b = push(node(Op::Input, 8, 0, 0, k));
            let b = push(node(Op::ZExt, 64, b, 0, 0));
            let sum = push(node(Op::Add, 64, sq, b, 0));
            h = push(node(Op::Add, 64, sum, mix, 0));
        }
        let want = push(node(Op::Const, 64, 0, 0, want));
        let eq = push(node(Op::Eq, 1, h, want, 0));
        (Trace { flags: 0, nodes, path: Vec::new(), tables: Vec::new(), pin_names: Vec::new() }, eq)
    }

    #[test]
    fn a_hard_query_times_out_and_is_not_cached() {
        // The 1 ms timeout holds however late the watchdog runs.
        let (t, eq) = hard();
        let mut s = chain(1, None, None);
        let conds = vec![Cond::Bit(eq, true)];
        let q = Query { id: 1, trace: &t, conds, near: &[] };
        assert_eq!(s.solve(&q), Answer::Unknown);
        assert_eq!(s.solve(&q), Answer::Unknown);
        let st = s.stats();
        assert_eq!((st.queries, st.cache_hits, st.timeouts), (2, 0, 2));
    }

    #[test]
    fn a_query_with_its_own_limit_is_given_up_when_told_to() {
        let (t, eq) = hard();
        let mut s = chain(1, None, None);
        let q = Query { id: 1, trace: &t, conds: vec![Cond::Bit(eq, true)], near: &[] };
        let started = std::time::Instant::now();
        let stop = || started.elapsed() > std::time::Duration::from_millis(100);
        assert_eq!(s.solve_within(&q, 60_000, &stop), Answer::Unknown);
        let took = started.elapsed();
        assert!(took < std::time::Duration::from_secs(2), "took {took:?}");
        assert!(took >= std::time::Duration::from_millis(100), "took {took:?}");
    }
    #[test]
    fn a_halted_solver_gives_up_its_query_and_asks_no_more() {
        let (t, eq) = hard();
        let halt = Halt::default();
        let mut s = chain(60_000, None, Some(halt.clone()));
        let q = Query { id: 1, trace: &t, conds: vec![Cond::Bit(eq, true)], near: &[] };
        let started = std::time::Instant::now();
        let h = halt.clone();
        let halter = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(100));
            h.store(true, std::sync::atomic::Ordering::Relaxed);
        });
        assert_eq!(s.solve(&q), Answer::Unknown);
        let took = started.elapsed();
        assert!(took < std::time::Duration::from_secs(2), "took {took:?}");
        assert!(took >= std::time::Duration::from_millis(100), "took {took:?}");
        halter.join().unwrap();
        let asked = s.stats();
        // z3 is not asked again (its time and counts stay).
        let q = Query { id: 2, trace: &t, conds: vec![Cond::Bit(eq, false)], near: &[] };
        let _ = s.solve(&q);
        let now = s.stats();
        assert_eq!(
            (now.solver_ms, now.sat, now.unsat, now.timeouts),
            (asked.solver_ms, asked.sat, asked.unsat, asked.timeouts)
        );
    }
}
