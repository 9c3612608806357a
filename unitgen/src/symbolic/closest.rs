//! A solution as close to its parent input as the query allows. The
//! solver gives a value to every byte a query involves; many of them need
//! not change (a string that grows by one byte does not need the bytes of
//! its room after that one). Each changed byte is put back to its parent's
//! value while the query still holds, evaluated concretely here.

use crate::solver::Cond;
use model::op::{mask, Op};
use model::symtrace::Trace;
use model::trace::*;
use std::collections::{HashMap, HashSet};

/// Most node evaluations spent on one solution: what the solver thread
/// may give this, against its queries' few milliseconds.
const MAX_WORK: usize = 1 << 21;

/// The operand places of `x`.
fn operands(x: &Node) -> &'static [usize] {
    const ALL: [usize; 3] = [0, 1, 2];
    &ALL[..x.op.operands()]
}

/// The nodes the conditions depend on, in increasing order (operands come
/// before their users), each with the places of its operands in that
/// order (`usize::MAX`: none).
pub(crate) struct Plan {
    order: Vec<u32>,
    ops: Vec<[usize; 3]>,
}

impl Plan {
    pub(crate) fn new(t: &Trace, conds: &[Cond]) -> Plan {
        let mut mark = HashSet::new();
        let mut stack: Vec<u32> = conds.iter().map(Cond::node).collect();
        while let Some(n) = stack.pop() {
            let Some(x) = t.nodes.get(n as usize) else { continue };
            if n == 0 || !mark.insert(n) {
                continue;
            }
            let refs = [x.a, x.b, x.c];
            stack.extend(operands(x).iter().map(|&k| refs[k]));
        }
        let mut order: Vec<u32> = mark.into_iter().collect();
        order.sort_unstable();
        let at: HashMap<u32, usize> = order.iter().enumerate().map(|(i, &n)| (n, i)).collect();
        let ops = order
            .iter()
            .map(|&n| {
                let x = t.nodes[n as usize];
                let refs = [x.a, x.b, x.c];
                let mut o = [usize::MAX; 3];
                for &k in operands(&x) {
                    o[k] = at.get(&refs[k]).copied().unwrap_or(usize::MAX);
                }
                o
            })
            .collect();
        Plan { order, ops }
    }

    /// Each node's value with `input`'s bytes, in `vals` (by place);
    /// `None` where the evaluation cannot follow (over 64 bits).
    pub(crate) fn evaluate(&self, t: &Trace, input: &[u8], vals: &mut Vec<u64>) -> Option<()> {
        vals.clear();
        for (&n, o) in self.order.iter().zip(&self.ops) {
            let x = t.nodes[n as usize];
            let get = |k: usize| if o[k] == usize::MAX { 0 } else { vals[o[k]] };
            let (a, b, c) = (get(0), get(1), get(2));
            let width = |k: u32| t.nodes.get(k as usize).map_or(0, |y| y.width);
            let op = x.op;
            let (wa, wb) = (u32::from(width(x.a)), u32::from(width(x.b)));
            let wb = if op.operands() >= 2 { wb } else { 0 };
            let v = match op {
                Op::Input => u64::from(input.get(x.val as usize).copied().unwrap_or(0)),
                Op::Table => {
                    t.tables.get(x.val as usize).and_then(|e| e.get((a & 0xff) as usize)).copied().unwrap_or(0)
                }
                _ => op.eval(u32::from(x.width), wa, wb, a, b, c, x.val)?,
            };
            vals.push(v & mask(u32::from(x.width)));
        }
        Some(())
    }

    pub(crate) fn value(&self, vals: &[u64], node: u32) -> u64 {
        self.order.binary_search(&node).map_or(0, |i| vals[i])
    }
}

/// The value of `node` when the inputs are `input`'s bytes (`None` where
/// the evaluation cannot follow: wider than 64 bits). The one concrete
/// evaluator of a trace's expressions on the tools' side.
pub fn evaluate(t: &Trace, node: u32, input: &[u8]) -> Option<u64> {
    let plan = Plan::new(t, &[Cond::Bit(node, true)]);
    let mut vals = Vec::new();
    plan.evaluate(t, input, &mut vals)?;
    Some(plan.value(&vals, node))
}

/// Whether each condition holds when the inputs are `input`'s bytes (all
/// do where the evaluation cannot follow).
pub(super) fn hold(t: &Trace, conds: &[Cond], input: &[u8]) -> Vec<bool> {
    let plan = Plan::new(t, conds);
    let mut vals = Vec::new();
    if plan.evaluate(t, input, &mut vals).is_none() {
        return vec![true; conds.len()];
    }
    conds.iter().map(|c| holds(c, plan.value(&vals, c.node()))).collect()
}

pub(crate) fn holds(c: &Cond, v: u64) -> bool {
    match c {
        Cond::Bit(_, b) => v == u64::from(*b),
        Cond::Is(_, x) => v == *x,
        Cond::NotAny(_, xs) => !xs.contains(&v),
    }
}

/// `assign` (the solver's values for `conds`) with every byte that need
/// not differ from `input` put back, in order; `assign` as it is when the
/// evaluation cannot follow it.
pub(super) fn closest(t: &Trace, conds: &[Cond], input: &[u8], assign: Vec<(u32, u8)>) -> Vec<(u32, u8)> {
    let plan = Plan::new(t, conds);
    let changed = assign.iter().filter(|&&(k, v)| input.get(k as usize).is_some_and(|&p| p != v)).count();
    if changed == 0 || plan.order.len().saturating_mul(changed + 1) > MAX_WORK {
        return assign;
    }
    let mut vals = Vec::with_capacity(plan.order.len());
    let mut child = input.to_vec();
    for &(k, v) in &assign {
        if let Some(b) = child.get_mut(k as usize) {
            *b = v;
        }
    }
    let mut ok = |child: &[u8]| {
        plan.evaluate(t, child, &mut vals).is_some() && conds.iter().all(|c| holds(c, plan.value(&vals, c.node())))
    };
    if !ok(&child) {
        return assign;
    }
    for &(k, _) in &assign {
        let k = k as usize;
        let Some(&parent) = input.get(k) else { continue };
        let solved = child[k];
        if solved == parent {
            continue;
        }
        child[k] = parent;
        if !ok(&child) {
            child[k] = solved;
        }
    }
    assign.into_iter().map(|(k, _)| (k, child.get(k as usize).copied().unwrap_or(0))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use model::trace::Node;

    fn node(op: Op, width: u8, a: u32, b: u32, c: u32, val: u64) -> Node {
        Node { op, width, a, b, c, val }
    }

    /// `strlen` of input bytes 0..4 (an ITE chain, as the runtime's model
    /// builds it), and the condition `3 < strlen`.
    fn grown() -> (Trace, Cond) {
        let mut nodes = vec![Node::default(), node(Op::Const, 8, 0, 0, 0, 0)];
        let mut acc = {
            nodes.push(node(Op::Const, 64, 0, 0, 0, 4));
            nodes.len() as u32 - 1
        };
        for i in (0..4u64).rev() {
            nodes.push(node(Op::Input, 8, 0, 0, 0, i));
            let x = nodes.len() as u32 - 1;
            nodes.push(node(Op::Eq, 1, x, 1, 0, 0));
            let nul = nodes.len() as u32 - 1;
            nodes.push(node(Op::Const, 64, 0, 0, 0, i));
            let at = nodes.len() as u32 - 1;
            nodes.push(node(Op::Ite, 64, nul, at, acc, 0));
            acc = nodes.len() as u32 - 1;
        }
        nodes.push(node(Op::Const, 64, 0, 0, 0, 3));
        let three = nodes.len() as u32 - 1;
        nodes.push(node(Op::Ult, 1, three, acc, 0, 0));
        let lt = nodes.len() as u32 - 1;
        (Trace { flags: 0, nodes, path: Vec::new(), tables: Vec::new(), pin_names: Vec::new() }, Cond::Bit(lt, true))
    }

    #[test]
    fn only_the_bytes_the_query_needs_are_changed() {
        let (t, c) = grown();
        // The parent "abc" and its NUL; the solver filled the room too.
        let input = b"abc\0\0\0".to_vec();
        let assign = vec![(0, b'x'), (1, b'y'), (2, b'z'), (3, b'w'), (4, 9)];
        let got = closest(&t, std::slice::from_ref(&c), &input, assign);
        // One more byte is all `3 < strlen` needs.
        assert_eq!(got, vec![(0, b'a'), (1, b'b'), (2, b'c'), (3, b'w'), (4, 0)]);
    }

    #[test]
    fn an_assignment_the_evaluation_disagrees_with_is_kept() {
        let (t, c) = grown();
        let assign = vec![(0, 0), (3, 0)];
        assert_eq!(closest(&t, std::slice::from_ref(&c), b"abcd", assign.clone()), assign);
    }
}
