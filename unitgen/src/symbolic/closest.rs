//! A solution as close to its parent input as the query allows. The
//! solver gives a value to every byte a query involves; many of them need
//! not change (a string that grows by one byte does not need the bytes of
//! its room after that one). Each changed byte is put back to its parent's
//! value while the query still holds, evaluated concretely here.

use crate::solver::Cond;
use model::symtrace::Trace;
use model::trace::*;

fn mask(width: u8) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

fn signed(v: u64, width: u8) -> i64 {
    let shift = 64 - u32::from(width.clamp(1, 64));
    ((v << shift) as i64) >> shift
}

/// The nodes the conditions depend on, in increasing order (operands come
/// before their users).
fn needed(t: &Trace, conds: &[Cond]) -> Vec<u32> {
    let mut mark = vec![false; t.nodes.len()];
    let mut stack: Vec<u32> = conds.iter().map(Cond::node).collect();
    while let Some(n) = stack.pop() {
        let Some(seen) = mark.get_mut(n as usize) else { continue };
        if *seen || n == 0 {
            continue;
        }
        *seen = true;
        let x = t.nodes[n as usize];
        let refs: &[u32] = match x.op {
            OP_INPUT | OP_CONST => &[],
            OP_ZEXT | OP_SEXT | OP_EXTRACT | OP_TABLE => &[x.a],
            OP_ITE => &[x.a, x.b, x.c],
            _ => &[x.a, x.b],
        };
        stack.extend_from_slice(refs);
    }
    (0..t.nodes.len() as u32).filter(|&n| mark[n as usize]).collect()
}

/// Each needed node's value with `input`'s bytes; `None` where an
/// expression is wider than 64 bits.
fn evaluate(t: &Trace, order: &[u32], input: &[u8], vals: &mut [u64]) -> Option<()> {
    for &n in order {
        let x = t.nodes[n as usize];
        let (a, b, c) = (vals[x.a as usize], vals[x.b as usize], vals[x.c as usize]);
        let wa = t.nodes[x.a as usize].width;
        let w = x.width;
        let (sa, sb) = (signed(a, wa), signed(b, wa));
        let v = match x.op {
            OP_INPUT => u64::from(input.get(x.val as usize).copied().unwrap_or(0)),
            OP_CONST => x.val,
            OP_ADD => a.wrapping_add(b),
            OP_SUB => a.wrapping_sub(b),
            OP_MUL => a.wrapping_mul(b),
            OP_UDIV => a.checked_div(b).unwrap_or(u64::MAX),
            OP_UREM => a.checked_rem(b).unwrap_or(a),
            OP_SDIV if b == 0 => {
                if sa < 0 {
                    1
                } else {
                    u64::MAX
                }
            }
            OP_SDIV => sa.wrapping_div(sb) as u64,
            OP_SREM => sa.checked_rem(sb).map_or(a, |r| r as u64),
            OP_SHL => a.checked_shl(b.min(64) as u32).filter(|_| b < u64::from(w)).unwrap_or(0),
            OP_LSHR => a.checked_shr(b.min(64) as u32).filter(|_| b < u64::from(w)).unwrap_or(0),
            OP_ASHR => (sa >> b.min(u64::from(wa) - 1)) as u64,
            OP_AND => a & b,
            OP_OR => a | b,
            OP_XOR => a ^ b,
            OP_EQ => u64::from(a == b),
            OP_NE => u64::from(a != b),
            OP_ULT => u64::from(a < b),
            OP_ULE => u64::from(a <= b),
            OP_UGT => u64::from(a > b),
            OP_UGE => u64::from(a >= b),
            OP_SLT => u64::from(sa < sb),
            OP_SLE => u64::from(sa <= sb),
            OP_SGT => u64::from(sa > sb),
            OP_SGE => u64::from(sa >= sb),
            OP_ZEXT => a,
            OP_SEXT => signed(a, wa) as u64,
            OP_EXTRACT => a.checked_shr(x.val as u32).unwrap_or(0),
            OP_CONCAT => {
                let wb = t.nodes[x.b as usize].width;
                if u32::from(wa) + u32::from(wb) > 64 {
                    return None;
                }
                (a << wb) | b
            }
            OP_ITE => {
                if a & 1 != 0 {
                    b
                } else {
                    c
                }
            }
            OP_TABLE => t.tables.get(x.val as usize).and_then(|e| e.get((a & 0xff) as usize)).copied().unwrap_or(0),
            _ => return None,
        };
        if w > 64 {
            return None;
        }
        vals[n as usize] = v & mask(w);
    }
    Some(())
}

fn holds(c: &Cond, vals: &[u64]) -> bool {
    match c {
        Cond::Bit(n, b) => vals[*n as usize] == u64::from(*b),
        Cond::Is(n, v) => vals[*n as usize] == *v,
        Cond::NotAny(n, vs) => !vs.contains(&vals[*n as usize]),
    }
}

/// `assign` (the solver's values for `conds`) with every byte that need
/// not differ from `input` put back, in order; `assign` as it is when the
/// evaluation cannot follow it.
pub(super) fn closest(t: &Trace, conds: &[Cond], input: &[u8], assign: Vec<(u32, u8)>) -> Vec<(u32, u8)> {
    let order = needed(t, conds);
    let mut vals = vec![0u64; t.nodes.len()];
    let mut child = input.to_vec();
    for &(k, v) in &assign {
        if let Some(b) = child.get_mut(k as usize) {
            *b = v;
        }
    }
    let mut ok =
        |child: &[u8]| evaluate(t, &order, child, &mut vals).is_some() && conds.iter().all(|c| holds(c, &vals));
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

    fn node(op: u8, width: u8, a: u32, b: u32, c: u32, val: u64) -> Node {
        Node { op, width, a, b, c, val }
    }

    /// `strlen` of input bytes 0..4 (an ITE chain, as the runtime's model
    /// builds it), and the condition `3 < strlen`.
    fn grown() -> (Trace, Cond) {
        let mut nodes = vec![Node::default(), node(OP_CONST, 8, 0, 0, 0, 0)];
        let mut acc = {
            nodes.push(node(OP_CONST, 64, 0, 0, 0, 4));
            nodes.len() as u32 - 1
        };
        for i in (0..4u64).rev() {
            nodes.push(node(OP_INPUT, 8, 0, 0, 0, i));
            let x = nodes.len() as u32 - 1;
            nodes.push(node(OP_EQ, 1, x, 1, 0, 0));
            let nul = nodes.len() as u32 - 1;
            nodes.push(node(OP_CONST, 64, 0, 0, 0, i));
            let at = nodes.len() as u32 - 1;
            nodes.push(node(OP_ITE, 64, nul, at, acc, 0));
            acc = nodes.len() as u32 - 1;
        }
        nodes.push(node(OP_CONST, 64, 0, 0, 0, 3));
        let three = nodes.len() as u32 - 1;
        nodes.push(node(OP_ULT, 1, three, acc, 0, 0));
        let lt = nodes.len() as u32 - 1;
        (Trace { flags: 0, nodes, path: Vec::new(), tables: Vec::new() }, Cond::Bit(lt, true))
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
