//! z3 behind the [`Solver`] trait: a trace's expressions as bit-vectors,
//! a timeout per query, and optionally every query appended to a file as
//! SMT-LIB.

use super::{Answer, Cond, Query, Solver, Stats};
use model::trace::*;
use std::collections::HashMap;
use std::io::Write;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Mutex;
use std::time::Duration;
use std::time::Instant;
use z3::ast::{Bool, BV};
use z3::SatResult;

pub struct Z3 {
    timeout_ms: u32,
    log: Option<std::path::PathBuf>,
    stats: Stats,
}

impl Z3 {
    pub fn new(timeout_ms: u32, log: Option<std::path::PathBuf>) -> Z3 {
        Z3 { timeout_ms, log, stats: Stats::default() }
    }
}

/// Translates nodes to z3 terms (memoized; operands first).
struct Terms<'a> {
    q: &'a Query<'a>,
    bv: HashMap<u32, BV>,
}

/// A table read `entries[index]` (a byte index) as a tree of choices on
/// the index's bits, from the highest: plain bit-vector terms, which the
/// solver takes apart far faster than a 256-store array. A range whose
/// entries are all equal is that constant.
fn mux(at: &dyn Fn(usize) -> u64, lo: usize, len: usize, index: &BV, w: u32) -> BV {
    let v = at(lo);
    if (lo..lo + len).all(|i| at(i) == v) {
        return BV::from_u64(v, w);
    }
    let half = len / 2;
    let bit = half.trailing_zeros();
    let (low, high) = (mux(at, lo, half, index, w), mux(at, lo + half, half, index, w));
    index.extract(bit, bit).eq(BV::from_u64(1, 1)).ite(&high, &low)
}

fn bit(b: &Bool) -> BV {
    b.ite(&BV::from_u64(1, 1), &BV::from_u64(0, 1))
}

impl Terms<'_> {
    fn term(&mut self, root: u32) -> BV {
        // Iteratively, in increasing id order over what `root` needs.
        let mut stack = vec![root];
        let mut seen = std::collections::HashSet::new();
        let mut order = Vec::new();
        while let Some(n) = stack.pop() {
            if self.bv.contains_key(&n) || !seen.insert(n) {
                continue;
            }
            order.push(n);
            let x = self.q.trace.nodes[n as usize];
            let ops: &[u32] = match x.op {
                OP_INPUT | OP_CONST => &[],
                OP_ZEXT | OP_SEXT | OP_EXTRACT | OP_TABLE => &[x.a],
                OP_ITE => &[x.a, x.b, x.c],
                _ => &[x.a, x.b],
            };
            stack.extend(ops.iter().filter(|o| !self.bv.contains_key(o)));
        }
        order.sort_unstable();
        for n in order {
            let t = self.build(n);
            self.bv.insert(n, t);
        }
        self.bv[&root].clone()
    }

    fn build(&mut self, n: u32) -> BV {
        let x = self.q.trace.nodes[n as usize];
        let w = u32::from(x.width);
        let g = |k: u32| self.bv[&k].clone();
        match x.op {
            OP_INPUT => BV::new_const(format!("in{}", x.val), 8),
            OP_CONST => BV::from_u64(x.val, w),
            OP_ZEXT => {
                let a = g(x.a);
                a.zero_ext(w - a.get_size())
            }
            OP_SEXT => {
                let a = g(x.a);
                a.sign_ext(w - a.get_size())
            }
            OP_EXTRACT => g(x.a).extract(x.val as u32 + w - 1, x.val as u32),
            OP_CONCAT => g(x.a).concat(g(x.b)),
            OP_ITE => {
                let c = g(x.a).eq(BV::from_u64(1, 1));
                c.ite(&g(x.b), &g(x.c))
            }
            OP_TABLE => {
                let index = g(x.a);
                let entries = self.q.trace.tables.get(x.val as usize).map_or(&[][..], |t| &t[..]);
                let at = |i: usize| entries.get(i).copied().unwrap_or(0);
                mux(&at, 0, 1 << index.get_size().min(8), &index, w)
            }
            op => {
                let (a, b) = (g(x.a), g(x.b));
                match op {
                    OP_ADD => a.bvadd(&b),
                    OP_SUB => a.bvsub(&b),
                    OP_MUL => a.bvmul(&b),
                    OP_UDIV => a.bvudiv(&b),
                    OP_SDIV => a.bvsdiv(&b),
                    OP_UREM => a.bvurem(&b),
                    OP_SREM => a.bvsrem(&b),
                    OP_SHL => a.bvshl(&b),
                    OP_LSHR => a.bvlshr(&b),
                    OP_ASHR => a.bvashr(&b),
                    OP_AND => a.bvand(&b),
                    OP_OR => a.bvor(&b),
                    OP_XOR => a.bvxor(&b),
                    OP_EQ => bit(&a.eq(&b)),
                    OP_NE => bit(&a.eq(&b).not()),
                    OP_ULT => bit(&a.bvult(&b)),
                    OP_ULE => bit(&a.bvule(&b)),
                    OP_UGT => bit(&a.bvugt(&b)),
                    OP_UGE => bit(&a.bvuge(&b)),
                    OP_SLT => bit(&a.bvslt(&b)),
                    OP_SLE => bit(&a.bvsle(&b)),
                    OP_SGT => bit(&a.bvsgt(&b)),
                    OP_SGE => bit(&a.bvsge(&b)),
                    // An unknown operator: a fresh value (never wrong, only
                    // less precise).
                    _ => BV::fresh_const("unknown", w),
                }
            }
        }
    }

    fn cond(&mut self, c: &Cond) -> Bool {
        let t = self.term(c.node());
        let w = t.get_size();
        match c {
            Cond::Bit(_, b) => t.eq(BV::from_u64(u64::from(*b), w)),
            Cond::Is(_, v) => t.eq(BV::from_u64(*v, w)),
            Cond::NotAny(_, vs) => {
                let ne: Vec<Bool> = vs.iter().map(|&v| t.eq(BV::from_u64(v, w)).not()).collect();
                Bool::and(&ne)
            }
        }
    }
}

/// How often a check past its timeout is interrupted again.
const AGAIN: Duration = Duration::from_millis(10);

impl Z3 {
    /// Checks, interrupted after the timeout by a watchdog thread. (z3's
    /// own `timeout` parameter starts timer threads that, in z3 4.8.12,
    /// race when the solver runs off the main thread.) The watchdog
    /// interrupts only while the check runs, under a lock the check's end
    /// takes too: an interrupt that lands after it would stay set and
    /// break the next operation on the context (z3 stops the process in
    /// its bignum code). It interrupts again until the check returns: one
    /// that comes before z3 is checking is lost.
    fn check_within(&self, solver: &z3::Solver) -> SatResult {
        let ctx = z3::Context::thread_local();
        let handle = &ctx.handle();
        let limit = Duration::from_millis(u64::from(self.timeout_ms));
        let running = &Mutex::new(true);
        let (done, finished) = std::sync::mpsc::channel::<()>();
        std::thread::scope(|s| {
            s.spawn(move || {
                let mut wait = limit;
                while finished.recv_timeout(wait) == Err(RecvTimeoutError::Timeout) {
                    let running = running.lock().unwrap_or_else(|e| e.into_inner());
                    if !*running {
                        break;
                    }
                    handle.interrupt();
                    wait = AGAIN;
                }
            });
            let result = solver.check();
            *running.lock().unwrap_or_else(|e| e.into_inner()) = false;
            drop(done);
            result
        })
    }
}

impl Solver for Z3 {
    fn solve(&mut self, q: &Query<'_>) -> Answer {
        let started = Instant::now();
        // Declared bit-vector logic: z3 then bit-blasts with its QF_BV
        // tactic, some 5x faster on these queries than its default solver.
        let solver = z3::Solver::new_for_logic("QF_BV").unwrap_or_default();
        let mut terms = Terms { q, bv: HashMap::new() };
        for c in &q.conds {
            let b = terms.cond(c);
            solver.assert(&b);
        }
        if let Some(path) = &self.log {
            if let Ok(mut f) = std::fs::OpenOptions::new().create(true).append(true).open(path) {
                let _ = writeln!(f, "; query {}\n{}(check-sat)", self.stats.queries, solver);
            }
        }
        let result = self.check_within(&solver);
        self.stats.queries += 1;
        self.stats.solver_ms += started.elapsed().as_secs_f64() * 1e3;
        match result {
            SatResult::Sat => {
                self.stats.sat += 1;
                let Some(model) = solver.get_model() else { return Answer::Unknown };
                let mut out = Vec::new();
                for (&n, _) in terms.bv.iter() {
                    let x = q.trace.nodes[n as usize];
                    if x.op == OP_INPUT {
                        let v = BV::new_const(format!("in{}", x.val), 8);
                        if let Some(val) = model.eval(&v, true).and_then(|e| e.as_u64()) {
                            out.push((x.val as u32, val as u8));
                        }
                    }
                }
                out.sort_unstable();
                out.dedup_by_key(|p| p.0);
                Answer::Sat(out)
            }
            SatResult::Unsat => {
                self.stats.unsat += 1;
                Answer::Unsat
            }
            SatResult::Unknown => {
                self.stats.timeouts += 1;
                Answer::Unknown
            }
        }
    }

    fn stats(&self) -> Stats {
        self.stats.clone()
    }
}
