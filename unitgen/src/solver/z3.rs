//! z3 behind the [`Solver`] trait: a trace's expressions as bit-vectors,
//! a timeout per query, and optionally every query appended to a file as
//! SMT-LIB.

use super::{Answer, Cond, Halt, Query, Solver, Stats, Stop};
use model::op::Op;
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
    halt: Option<Halt>,
    stats: Stats,
}

impl Z3 {
    pub fn new(timeout_ms: u32, log: Option<std::path::PathBuf>, halt: Option<Halt>) -> Z3 {
        Z3 { timeout_ms, log, halt, stats: Stats::default() }
    }

    fn halted(&self) -> bool {
        self.halt.as_ref().is_some_and(|h| h.load(std::sync::atomic::Ordering::Relaxed))
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
            let refs = [x.a, x.b, x.c];
            let ops = &refs[..x.op.operands()];
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
            Op::Input => BV::new_const(format!("in{}", x.val), 8),
            Op::Const => BV::from_u64(x.val, w),
            Op::ZExt => {
                let a = g(x.a);
                a.zero_ext(w.saturating_sub(a.get_size()))
            }
            Op::SExt => {
                let a = g(x.a);
                a.sign_ext(w.saturating_sub(a.get_size()))
            }
            Op::Extract => g(x.a).extract(x.val as u32 + w - 1, x.val as u32),
            Op::Concat => g(x.a).concat(g(x.b)),
            Op::Ite => {
                let c = g(x.a).eq(BV::from_u64(1, 1));
                c.ite(&g(x.b), &g(x.c))
            }
            Op::Table => {
                let index = g(x.a);
                let entries = self.q.trace.tables.get(x.val as usize).map_or(&[][..], |t| &t[..]);
                let at = |i: usize| entries.get(i).copied().unwrap_or(0);
                mux(&at, 0, 1 << index.get_size().min(8), &index, w)
            }
            Op::Add => g(x.a).bvadd(g(x.b)),
            Op::Sub => g(x.a).bvsub(g(x.b)),
            Op::Mul => g(x.a).bvmul(g(x.b)),
            Op::UDiv => g(x.a).bvudiv(g(x.b)),
            Op::SDiv => g(x.a).bvsdiv(g(x.b)),
            Op::URem => g(x.a).bvurem(g(x.b)),
            Op::SRem => g(x.a).bvsrem(g(x.b)),
            Op::Shl => g(x.a).bvshl(g(x.b)),
            Op::LShr => g(x.a).bvlshr(g(x.b)),
            Op::AShr => g(x.a).bvashr(g(x.b)),
            Op::And => g(x.a).bvand(g(x.b)),
            Op::Or => g(x.a).bvor(g(x.b)),
            Op::Xor => g(x.a).bvxor(g(x.b)),
            Op::Eq => bit(&g(x.a).eq(g(x.b))),
            Op::Ne => bit(&g(x.a).eq(g(x.b)).not()),
            Op::Ult => bit(&g(x.a).bvult(g(x.b))),
            Op::Ule => bit(&g(x.a).bvule(g(x.b))),
            Op::Ugt => bit(&g(x.a).bvugt(g(x.b))),
            Op::Uge => bit(&g(x.a).bvuge(g(x.b))),
            Op::Slt => bit(&g(x.a).bvslt(g(x.b))),
            Op::Sle => bit(&g(x.a).bvsle(g(x.b))),
            Op::Sgt => bit(&g(x.a).bvsgt(g(x.b))),
            Op::Sge => bit(&g(x.a).bvsge(g(x.b))),
        }
    }

    fn cond(&mut self, c: &Cond) -> Bool {
        let t = self.term(c.node());
        let w = t.get_size();
        match c {
            Cond::Bit(_, b) => t.eq(BV::from_u64(u64::from(*b), w)),
            Cond::Is(_, v) => t.eq(BV::from_u64(*v, w)),
            Cond::NotAny(_, vs) => {
                // Runs of consecutive values as ranges (bytes that are not
                // ASCII: one comparison, not 128).
                let mut sorted = vs.clone();
                sorted.sort_unstable();
                sorted.dedup();
                let mut ne: Vec<Bool> = Vec::new();
                let mut k = 0;
                while k < sorted.len() {
                    let mut end = k;
                    while end + 1 < sorted.len() && sorted[end + 1] == sorted[end] + 1 {
                        end += 1;
                    }
                    let (lo, hi) = (BV::from_u64(sorted[k], w), BV::from_u64(sorted[end], w));
                    ne.push(if end > k { Bool::or(&[t.bvult(&lo), t.bvugt(&hi)]) } else { t.eq(lo).not() });
                    k = end + 1;
                }
                Bool::and(&ne)
            }
        }
    }
}

/// How often a check past its timeout is interrupted again.
const AGAIN: Duration = Duration::from_millis(10);
/// How often a check that may be given up asks whether to.
const POLL: Duration = Duration::from_millis(10);

impl Z3 {
    /// Checks, interrupted after `limit` (or once `stop` says so or the
    /// solver is halted, asked every [`POLL`]) by a watchdog thread. (z3's
    /// own `timeout` parameter starts timer threads that, in z3 4.8.12,
    /// race when the solver runs off the main thread.) The watchdog
    /// interrupts only while the check runs, under a lock the check's end
    /// takes too, and again until the check returns: one that comes
    /// before z3 is checking is lost.
    ///
    /// z3 4.8.12 counts every interrupt on the context's limit, and only a
    /// check's start and end clear that count: one that lands between the
    /// end of z3's check and its return here would stay set and break the
    /// next operation on the context (z3 stops the process in its bignum
    /// code). So after a check that was interrupted, an empty check
    /// clears it, with the watchdog gone.
    fn check_within(&self, solver: &z3::Solver, limit: Duration, stop: Option<Stop<'_>>) -> SatResult {
        let ctx = z3::Context::thread_local();
        let handle = &ctx.handle();
        let running = &Mutex::new(true);
        let interrupted = &std::sync::atomic::AtomicBool::new(false);
        let (done, finished) = std::sync::mpsc::channel::<()>();
        let deadline = Instant::now() + limit;
        let polled = stop.is_some() || self.halt.is_some();
        let result = std::thread::scope(|s| {
            s.spawn(move || {
                let mut interrupting = false;
                loop {
                    let wait = if interrupting {
                        AGAIN
                    } else {
                        let left = deadline.saturating_duration_since(Instant::now());
                        if polled {
                            left.min(POLL)
                        } else {
                            left
                        }
                    };
                    if finished.recv_timeout(wait) != Err(RecvTimeoutError::Timeout) {
                        break;
                    }
                    let give_up = stop.is_some_and(|f| f()) || self.halted();
                    if !interrupting && Instant::now() < deadline && !give_up {
                        continue;
                    }
                    interrupting = true;
                    let running = running.lock().unwrap_or_else(|e| e.into_inner());
                    if !*running {
                        break;
                    }
                    interrupted.store(true, std::sync::atomic::Ordering::Relaxed);
                    handle.interrupt();
                }
            });
            let result = solver.check();
            *running.lock().unwrap_or_else(|e| e.into_inner()) = false;
            drop(done);
            result
        });
        if interrupted.load(std::sync::atomic::Ordering::Relaxed) {
            let _ = z3::Solver::new().check();
        }
        result
    }

    fn run(&mut self, q: &Query<'_>, timeout_ms: u32, stop: Option<Stop<'_>>) -> Answer {
        if self.halted() {
            return Answer::Unknown;
        }
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
        let result = self.check_within(&solver, Duration::from_millis(u64::from(timeout_ms)), stop);
        self.stats.queries += 1;
        self.stats.solver_ms += started.elapsed().as_secs_f64() * 1e3;
        match result {
            SatResult::Sat => {
                self.stats.sat += 1;
                let Some(model) = solver.get_model() else { return Answer::Unknown };
                let mut out = Vec::new();
                for (&n, _) in terms.bv.iter() {
                    let x = q.trace.nodes[n as usize];
                    if x.op == Op::Input {
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
}

impl Solver for Z3 {
    fn solve(&mut self, q: &Query<'_>) -> Answer {
        self.run(q, self.timeout_ms, None)
    }

    fn solve_within(&mut self, q: &Query<'_>, timeout_ms: u32, stop: Stop<'_>) -> Answer {
        self.run(q, timeout_ms, Some(stop))
    }

    fn stats(&self) -> Stats {
        self.stats.clone()
    }
}

#[cfg(test)]
mod agreement {
    use model::op::{Op, ALL_OPS};
    use z3::ast::{Ast, BV};

    /// The one concrete evaluation of the operators (`model::op`, which
    /// the runtime's folding and the tools' evaluator use) agrees with
    /// z3 on every two-operand operator, widths 1, 8, 32 and 64, edge and
    /// random values.
    #[test]
    fn concrete_evaluation_agrees_with_z3() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut checked = 0;
        for op in ALL_OPS.iter().copied().filter(|o| o.operands() == 2 && *o != Op::Concat) {
            for w in [1u32, 8, 32, 64] {
                let m = model::op::mask(w);
                let edges = [0, 1, m, m >> 1, (m >> 1) + 1, 7 & m];
                let mut pairs: Vec<(u64, u64)> =
                    edges.iter().flat_map(|&a| edges.iter().map(move |&b| (a, b))).collect();
                pairs.extend((0..40).map(|_| (next() & m, next() & m)));
                for (a, b) in pairs {
                    let (za, zb) = (BV::from_u64(a, w), BV::from_u64(b, w));
                    let z = match op {
                        Op::Add => za.bvadd(&zb),
                        Op::Sub => za.bvsub(&zb),
                        Op::Mul => za.bvmul(&zb),
                        Op::UDiv => za.bvudiv(&zb),
                        Op::SDiv => za.bvsdiv(&zb),
                        Op::URem => za.bvurem(&zb),
                        Op::SRem => za.bvsrem(&zb),
                        Op::Shl => za.bvshl(&zb),
                        Op::LShr => za.bvlshr(&zb),
                        Op::AShr => za.bvashr(&zb),
                        Op::And => za.bvand(&zb),
                        Op::Or => za.bvor(&zb),
                        Op::Xor => za.bvxor(&zb),
                        cmp => {
                            let c = match cmp {
                                Op::Eq => za.eq(&zb),
                                Op::Ne => za.eq(&zb).not(),
                                Op::Ult => za.bvult(&zb),
                                Op::Ule => za.bvule(&zb),
                                Op::Ugt => za.bvugt(&zb),
                                Op::Uge => za.bvuge(&zb),
                                Op::Slt => za.bvslt(&zb),
                                Op::Sle => za.bvsle(&zb),
                                Op::Sgt => za.bvsgt(&zb),
                                _ => za.bvsge(&zb),
                            };
                            c.ite(&BV::from_u64(1, 1), &BV::from_u64(0, 1))
                        }
                    };
                    let want = z.simplify().as_u64().expect("a constant");
                    let out = if op.is_comparison() { 1 } else { w };
                    assert_eq!(op.eval(out, w, w, a, b, 0, 0), Some(want), "{op:?} w{w} a={a:#x} b={b:#x}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 3000, "{checked}");
    }
}
