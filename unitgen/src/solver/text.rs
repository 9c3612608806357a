//! Numbers written as text, tried before the solver. Parsers read numbers
//! from decimal (or hex) digits, and a condition on such a number (`n ==
//! INT_MIN`, `count > 16`) is a chain of multiplications by ten that a
//! bit-blasting solver takes seconds over. Here the constant a condition
//! compares with, and the values at the ends of its type (the boundaries
//! where wraps and traps live: `UINT_MAX`, `INT_MIN`, `-1`, `0`), are
//! written as text into the bytes the compared value is read from, in the
//! parent input, and the query is evaluated concretely; what satisfies
//! every condition is the answer. A query this does not satisfy goes on
//! to the solver unchanged, so the stage only ever saves time: it never
//! answers `Unsat` or `Unknown`.

use super::{Answer, Cond, Query, Solver, Stats, Stop};
use crate::symbolic::closest::{holds, Plan};
use crate::symbolic::dag::Dag;
use model::op::{mask, Op};
use model::symtrace::Trace;
use std::collections::BTreeSet;
use std::ops::Range;

/// Most concrete evaluations of one query.
const MAX_TRIES: usize = 256;
/// Longest run of bytes a number is written into.
const MAX_RUN: usize = 40;
/// Most runs of one value tried.
const MAX_RUNS: usize = 4;
/// Longest run of digits a number is raised in (its nines fit in `u64`).
const MAX_DIGITS: usize = 18;
/// How deep conditions are followed through `and`, `or` and `not`.
const MAX_DEPTH: u32 = 6;

pub struct Textual<S> {
    inner: S,
    dag: Dag,
    solved: u64,
}

impl<S: Solver> Textual<S> {
    pub fn new(inner: S) -> Self {
        Textual { inner, dag: Dag::default(), solved: 0 }
    }
}

/// A comparison to make hold: `node` (1 bit, or the compared value itself
/// for [`Cond::Is`]) is to be `want`, by a value of `x` written as text.
#[derive(Debug, Clone, Copy)]
struct Leaf {
    node: u32,
    want: u64,
    x: u32,
    /// The constant `x` is compared with.
    k: u64,
    /// An equality (only `k` is tried), else an order.
    eq: bool,
}

/// The comparisons with a constant under `node` that, made to hold, may
/// make `node` be `want`.
fn leaves(t: &Trace, node: u32, want: bool, depth: u32, out: &mut Vec<Leaf>) {
    let Some(n) = t.nodes.get(node as usize).copied() else { return };
    let konst = |k: u32| t.nodes.get(k as usize).filter(|m| m.op == Op::Const).map(|m| m.val);
    match n.op {
        Op::And | Op::Or if depth < MAX_DEPTH && n.width == 1 => {
            leaves(t, n.a, want, depth + 1, out);
            leaves(t, n.b, want, depth + 1, out);
        }
        Op::Xor if depth < MAX_DEPTH && n.width == 1 && konst(n.b) == Some(1) => leaves(t, n.a, !want, depth + 1, out),
        Op::Eq | Op::Ne => {
            let eq = (n.op == Op::Eq) == want;
            let side = match (konst(n.a), konst(n.b)) {
                (None, Some(k)) => Some((n.a, k)),
                (Some(k), None) => Some((n.b, k)),
                _ => None,
            };
            if let (true, Some((x, k))) = (eq, side) {
                out.push(Leaf { node, want: u64::from(want), x, k, eq: true });
            }
        }
        op if op.is_order() => {
            let side = match (konst(n.a), konst(n.b)) {
                (None, Some(k)) => Some((n.a, k)),
                (Some(k), None) => Some((n.b, k)),
                _ => None,
            };
            if let Some((x, k)) = side {
                out.push(Leaf { node, want: u64::from(want), x, k, eq: false });
            }
        }
        _ => {}
    }
}

/// The values to try for `leaf`'s `x` (`width` bits): its constant, then
/// for an order the ends of the type and (unless `ends`) the constant's
/// neighbours.
fn values(leaf: &Leaf, width: u32, ends: bool) -> Vec<u64> {
    let m = mask(width);
    let k = leaf.k & m;
    if leaf.eq {
        return vec![k];
    }
    let top = 1u64 << (width - 1);
    let mut v = vec![m, top - 1, top, 0];
    if !ends {
        v.extend([k.wrapping_add(1) & m, k.wrapping_sub(1) & m, k]);
    }
    v.dedup();
    v
}

/// `v` (`width` bits) as the texts a parser may read it from: signed and
/// unsigned decimal, the digits of its magnitude (for a run after a sign;
/// when `magnitude`), and hex (after a `0x` the run already has).
fn texts(v: u64, width: u32, run: &[u8], magnitude: bool) -> Vec<Vec<u8>> {
    let signed = signed(v, width);
    let mut out: Vec<Vec<u8>> = Vec::new();
    let mut add = |t: String, prefix: &[u8]| {
        let (sign, digits) = t.strip_prefix('-').map_or(("", t.as_str()), |d| ("-", d));
        let len = prefix.len() + sign.len() + digits.len();
        if len > run.len() {
            return;
        }
        let mut b = prefix.to_vec();
        b.extend_from_slice(sign.as_bytes());
        b.resize(run.len() - digits.len(), b'0');
        b.extend_from_slice(digits.as_bytes());
        if !out.contains(&b) {
            out.push(b);
        }
    };
    add(signed.to_string(), b"");
    add(v.to_string(), b"");
    // The digits alone, for a run whose sign stands before it.
    if magnitude {
        add(signed.unsigned_abs().to_string(), b"");
    }
    let hex = run.len() > 2 && run[0] == b'0' && run[1] | 0x20 == b'x';
    add(format!("{v:x}"), if hex { &run[..2] } else { b"" });
    out
}

/// How close a number must be to an end of a usual type to count as at
/// it (a count of `2^32 - depth`, a length of `2^64 - addr`).
const NEAR_END: u64 = 1 << 16;

/// Whether `n` is at an end of a usual integer type (within
/// [`NEAR_END`]), other than 0.
fn at_an_end(n: i64) -> bool {
    let u = n as u64;
    let ends = [u64::MAX, i64::MAX as u64, i64::MIN as u64, u64::from(u32::MAX), 1 << 31];
    ends.iter().any(|&e| u.abs_diff(e) <= NEAR_END)
}

/// `v` (`width` bits) sign-extended.
fn signed(v: u64, width: u32) -> i64 {
    if width < 64 && v >> (width - 1) & 1 == 1 {
        (v | !mask(width)) as i64
    } else {
        v as i64
    }
}

/// The runs of consecutive bytes in `ins` (sorted), each short enough to
/// hold a number and inside the input; at most [`MAX_RUNS`].
fn runs_of(ins: &[u32], len: usize) -> Vec<Range<usize>> {
    let mut runs: Vec<Range<usize>> = Vec::new();
    for &k in ins {
        let k = k as usize;
        match runs.last_mut() {
            Some(r) if r.end == k => r.end += 1,
            _ => runs.push(k..k + 1),
        }
    }
    runs.retain(|r| r.len() <= MAX_RUN && r.end <= len);
    runs.truncate(MAX_RUNS);
    runs
}

/// `v` written as text into `run` of `input`.
fn written(input: &[u8], run: &Range<usize>, v: u64) -> Vec<u8> {
    let mut next = input.to_vec();
    let text = format!("{v:0>width$}", width = run.len());
    next[run.clone()].copy_from_slice(&text.as_bytes()[..run.len()]);
    next
}

/// The state of one attempt: the input as changed so far and which
/// conditions it satisfies.
struct Attempt<'q, 'p> {
    q: &'q Query<'q>,
    plan: &'p Plan,
    vals: Vec<u64>,
    input: Vec<u8>,
    held: Vec<bool>,
    tries: usize,
}

impl Attempt<'_, '_> {
    /// Which conditions `input` satisfies (`None`: not evaluable, or out
    /// of tries); `vals` then holds every node's value.
    fn eval(&mut self, input: &[u8]) -> Option<Vec<bool>> {
        if self.tries >= MAX_TRIES {
            return None;
        }
        self.tries += 1;
        self.plan.evaluate(self.q.trace, input, &mut self.vals)?;
        Some(self.q.conds.iter().map(|c| holds(c, self.plan.value(&self.vals, c.node()))).collect())
    }

    /// Takes `next` when it makes `leaf` hold and keeps every condition
    /// that held.
    fn offer(&mut self, leaf: &Leaf, next: Vec<u8>) -> bool {
        next != self.input && self.take(next, Some(leaf))
    }

    /// Takes `next` when every condition that held still holds (and
    /// `leaf`, when given, holds).
    fn take(&mut self, next: Vec<u8>, leaf: Option<&Leaf>) -> bool {
        let Some(now) = self.eval(&next) else { return false };
        let keeps = self.held.iter().zip(&now).all(|(was, is)| !was || *is);
        if keeps && leaf.is_none_or(|l| self.plan.value(&self.vals, l.node) == l.want) {
            (self.input, self.held) = (next, now);
            return true;
        }
        false
    }

    /// `x`'s value with `v` written into `run`.
    fn probe(&mut self, x: u32, run: &Range<usize>, v: u64) -> Option<u64> {
        let next = written(&self.input, run, v);
        self.eval(&next)?;
        Some(self.plan.value(&self.vals, x))
    }

    /// Makes `leaf` hold by a number in one of the runs its value reads
    /// (see [`Attempt::solve_runs`]); when none does it alone, by one of
    /// them with the others written 0 first: a sum that must be
    /// `INT_MIN`, each number parsed in `int`'s range, is reached by no
    /// one number while the other adds 5, and by either once it adds 0.
    fn solve_leaf(&mut self, leaf: &Leaf, runs: &[Range<usize>], width: u32, ends: bool) -> bool {
        if self.solve_runs(leaf, runs, width, ends) {
            return true;
        }
        if ends || runs.len() < 2 {
            return false;
        }
        for (k, run) in runs.iter().enumerate() {
            let saved = (self.input.clone(), self.held.clone());
            let mut next = self.input.clone();
            for (j, other) in runs.iter().enumerate() {
                if j != k {
                    next = written(&next, other, 0);
                }
            }
            if self.take(next, None) && self.solve_runs(leaf, std::slice::from_ref(run), width, ends) {
                return true;
            }
            (self.input, self.held) = saved;
        }
        !leaf.eq && self.solve_at_limits(leaf, runs)
    }

    /// Makes an order `leaf` over several numbers hold by moving each
    /// to the largest value the other conditions let it take: a product
    /// of two fields, each checked against a limit of its own (`qty <=
    /// 9999`, `euros <= 9999`), passes `INT_MAX` only where both are near
    /// their limits. No one number gets there alone, and a bit-blasting
    /// solver needs seconds for a product of two parsed numbers.
    fn solve_at_limits(&mut self, leaf: &Leaf, runs: &[Range<usize>]) -> bool {
        let saved = (self.input.clone(), self.held.clone());
        for run in runs {
            self.raise(run);
        }
        if self.take(self.input.clone(), Some(leaf)) {
            return true;
        }
        (self.input, self.held) = saved;
        false
    }

    /// Writes into `run` (decimal digits) the largest number that keeps
    /// every condition that holds, assuming the numbers that do form a
    /// range (as a parser's checks make them): the longest run of nines
    /// that does, then a binary search up to the next one.
    fn raise(&mut self, run: &Range<usize>) {
        let digits = &self.input[run.clone()];
        if run.len() > MAX_DIGITS || !digits.iter().all(u8::is_ascii_digit) {
            return;
        }
        let now: u64 = std::str::from_utf8(digits).ok().and_then(|d| d.parse().ok()).unwrap_or(0);
        let nines = |k: u32| 10u64.pow(k) - 1;
        let mut lo = now;
        let mut k = (now.checked_ilog10().unwrap_or(0) + 1).max(1);
        let mut hi = nines(run.len() as u32);
        while k <= run.len() as u32 {
            if nines(k) > lo {
                if !self.take(written(&self.input, run, nines(k)), None) {
                    hi = nines(k) - 1;
                    break;
                }
                lo = nines(k);
            }
            k += 1;
        }
        while lo < hi && self.tries < MAX_TRIES {
            let mid = lo + (hi - lo).div_ceil(2);
            if self.take(written(&self.input, run, mid), None) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
    }

    /// Makes `leaf` hold by a number in one of `runs`: the value it wants
    /// written there, or, where the value is `s * n + c` of that run's
    /// number `n` (a sum of two numbers, a negation, an index scaled to
    /// an offset; `s` and `c` found by writing 0 and 1), the number that
    /// gives it, and for an order the number at the ends of the usual
    /// types.
    fn solve_runs(&mut self, leaf: &Leaf, runs: &[Range<usize>], width: u32, ends: bool) -> bool {
        let m = mask(width);
        for run in runs {
            // At the ends, only numbers that are at one (below) are tried.
            for v in values(leaf, width, ends).into_iter().filter(|_| !ends) {
                for text in texts(v, width, &self.q.near[run.clone()], true) {
                    let mut next = self.input.clone();
                    next[run.clone()].copy_from_slice(&text);
                    if self.offer(leaf, next) {
                        return true;
                    }
                }
            }
            let (Some(c), Some(one)) = (self.probe(leaf.x, run, 0), self.probe(leaf.x, run, 1)) else { continue };
            let s = signed(one.wrapping_sub(c) & m, width);
            if s == 0 {
                continue;
            }
            let mut numbers = Vec::new();
            for v in values(leaf, width, ends) {
                let n = signed(v.wrapping_sub(c) & m, width).wrapping_div(s);
                // Also as the unsigned number of the value's width (a
                // count of 2^32 - 2 where -2 is the signed one).
                numbers.extend([n, n.wrapping_add(1), n.wrapping_sub(1), (n as u64 & m) as i64]);
            }
            if !leaf.eq {
                // The number itself at the ends of the usual types.
                numbers.extend([i64::from(i32::MIN), i64::from(i32::MAX), i64::from(u32::MAX), i64::MIN, i64::MAX, -1]);
            }
            numbers.dedup();
            if ends {
                numbers.retain(|&n| at_an_end(n));
            }
            for n in numbers {
                for text in texts(n as u64, 64, &self.q.near[run.clone()], !ends) {
                    let mut next = self.input.clone();
                    next[run.clone()].copy_from_slice(&text);
                    if self.offer(leaf, next) {
                        return true;
                    }
                }
            }
        }
        false
    }
}

impl<S: Solver> Textual<S> {
    /// Bytes that satisfy `q`, found by writing numbers into its parent
    /// input; `None` when none of the tries did.
    fn attempt(&mut self, q: &Query<'_>) -> Option<Vec<(u32, u8)>> {
        if q.near.is_empty() || q.conds.is_empty() {
            return None;
        }
        self.dag.for_trace(q.id);
        let t = q.trace;
        let plan = Plan::new(t, &q.conds);
        let mut a = Attempt { q, plan: &plan, vals: Vec::new(), input: q.near.to_vec(), held: Vec::new(), tries: 0 };
        a.held = a.eval(q.near)?;
        for (i, c) in q.conds.iter().enumerate() {
            if a.held[i] {
                continue;
            }
            let mut found = Vec::new();
            match c {
                Cond::Bit(n, b) => leaves(t, *n, *b, 0, &mut found),
                Cond::Is(n, v) => found.push(Leaf { node: *n, want: *v, x: *n, k: *v, eq: true }),
                Cond::NotAny(..) => {}
            }
            for leaf in found {
                let width = t.nodes.get(leaf.x as usize).map_or(0, |n| u32::from(n.width));
                if width == 0 || width > 64 {
                    continue;
                }
                let runs = runs_of(&self.dag.inputs(t, leaf.x), q.near.len());
                if a.solve_leaf(&leaf, &runs, width, false) && a.held[i] {
                    break;
                }
            }
            if a.tries >= MAX_TRIES {
                return None;
            }
        }
        if !a.held.iter().all(|&h| h) {
            return None;
        }
        let mut bytes = BTreeSet::new();
        for c in &q.conds {
            bytes.extend(self.dag.inputs(t, c.node()).iter().copied());
        }
        Some(bytes.into_iter().map(|k| (k, a.input.get(k as usize).copied().unwrap_or(0))).collect())
    }
}

impl<S: Solver> Textual<S> {
    /// See [`Solver::extremes`]: the last condition (holding on the parent
    /// input, as all do) is an order with a constant; its number is moved
    /// to the ends of the usual types while every condition still holds.
    /// Wraps hide there: a count of `UINT_MAX` passes `depth + count <=
    /// 16`, a length of `2^64 - 16` passes `addr + len <= 256`. Each
    /// number the comparison reads is tried on its own, and each that
    /// keeps the path gives an answer: a wrapped `addr` may write below
    /// an array where a wrapped `len` runs off the end of memory.
    fn ends(&mut self, q: &Query<'_>) -> Vec<Vec<(u32, u8)>> {
        let mut out = Vec::new();
        let Some(Cond::Bit(n, want)) = q.conds.last() else { return out };
        if q.near.is_empty() {
            return out;
        }
        let t = q.trace;
        let mut found = Vec::new();
        leaves(t, *n, *want, 0, &mut found);
        found.retain(|l| !l.eq);
        if found.is_empty() {
            return out;
        }
        self.dag.for_trace(q.id);
        let plan = Plan::new(t, &q.conds);
        let mut a = Attempt { q, plan: &plan, vals: Vec::new(), input: q.near.to_vec(), held: Vec::new(), tries: 0 };
        let Some(held) = a.eval(q.near) else { return out };
        if !held.iter().all(|&h| h) {
            return out;
        }
        for leaf in found {
            let width = t.nodes.get(leaf.x as usize).map_or(0, |n| u32::from(n.width));
            if !(16..=64).contains(&width) {
                continue;
            }
            for run in runs_of(&self.dag.inputs(t, leaf.x), q.near.len()) {
                (a.input, a.held) = (q.near.to_vec(), held.clone());
                if a.solve_leaf(&leaf, std::slice::from_ref(&run), width, true) {
                    let changed = (0..a.input.len()).filter(|&k| a.input[k] != q.near[k]);
                    let answer: Vec<(u32, u8)> = changed.map(|k| (k as u32, a.input[k])).collect();
                    if !out.contains(&answer) {
                        out.push(answer);
                    }
                }
            }
        }
        out
    }
}

impl<S: Solver> Solver for Textual<S> {
    fn solve(&mut self, q: &Query<'_>) -> Answer {
        if let Some(assign) = self.attempt(q) {
            self.solved += 1;
            return Answer::Sat(assign);
        }
        self.inner.solve(q)
    }

    fn solve_within(&mut self, q: &Query<'_>, timeout_ms: u32, stop: Stop<'_>) -> Answer {
        if let Some(assign) = self.attempt(q) {
            self.solved += 1;
            return Answer::Sat(assign);
        }
        self.inner.solve_within(q, timeout_ms, stop)
    }

    fn extremes(&mut self, q: &Query<'_>) -> Vec<Vec<(u32, u8)>> {
        self.ends(q)
    }

    fn stats(&self) -> Stats {
        Stats { by_text: self.solved, ..self.inner.stats() }
    }
}

#[cfg(test)]
#[path = "text_tests.rs"]
mod tests;
