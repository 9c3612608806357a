//! An expression that reads one input byte only, evaluated at each of the
//! byte's 256 values: what a load through such an index reads at each
//! (`symtable.rs`), so that the load is a table of the byte rather than a
//! value the index is pinned to.

use crate::model::op::{signed, Op};
use crate::sym::Sym;
use alloc::vec::Vec;

/// Most nodes an index expression may have (a few operations on a byte:
/// `c - 'a'`, `depth + c`, a table of `c` times a stride).
const MAX_NODES: usize = 48;

/// An expression of one input byte: its nodes in id order (operands come
/// before the nodes they are operands of) and the byte's node.
pub struct OneByte {
    order: Vec<u32>,
    top: u32,
    pub input: u32,
}

impl OneByte {
    /// `e`'s nodes when they read one input byte (one offset), and are few.
    pub fn of(s: &Sym, e: u32) -> Option<OneByte> {
        let mut order: Vec<u32> = Vec::new();
        let mut todo = alloc::vec![e];
        let mut input: Option<(u32, u64)> = None;
        while let Some(n) = todo.pop() {
            if order.contains(&n) {
                continue;
            }
            if order.len() == MAX_NODES {
                return None;
            }
            order.push(n);
            let x = s.nodes[n as usize];
            if x.op == Op::Input {
                match input {
                    Some((_, off)) if off != x.val => return None,
                    Some(_) => {}
                    None => input = Some((n, x.val)),
                }
                continue;
            }
            let refs = x.op.operands();
            todo.extend_from_slice(&[x.a, x.b, x.c][..refs]);
        }
        order.sort_unstable();
        Some(OneByte { order, top: e, input: input?.0 })
    }

    /// The expression's value, as a signed number of its width, when the
    /// byte is `b` (`vals`: room for the nodes' values).
    pub fn at(&self, s: &Sym, b: u8, vals: &mut Vec<u64>) -> Option<i64> {
        vals.clear();
        let val = |vals: &[u64], n: u32| self.order.binary_search(&n).ok().map(|k| vals[k]);
        for &n in &self.order {
            let x = s.nodes[n as usize];
            let v = match x.op {
                Op::Input => u64::from(b),
                Op::Table => s.table_entry(x.val as usize, val(vals, x.a)? as u8)?,
                op => {
                    let w = |k: u32| if k == 0 { 0 } else { s.width(k) };
                    let get = |k: u32| if k == 0 { Some(0) } else { val(vals, k) };
                    let (a, bv, c) = (get(x.a)?, get(x.b)?, get(x.c)?);
                    op.eval(u32::from(x.width), w(x.a), w(x.b), a, bv, c, x.val)?
                }
            };
            vals.push(v);
        }
        Some(signed(val(vals, self.top)?, s.width(self.top)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_of_one_byte_is_evaluated_at_each_value_and_one_of_two_bytes_is_refused() {
        let s = crate::sym::activate();
        let c = s.node(Op::Input, 8, 0, 0, 0, 3);
        let wide = s.node(Op::SExt, 32, c, 0, 0, 0);
        let a = s.constant((-97i32) as u32 as u64, 32);
        let idx = s.node(Op::Add, 32, wide, a, 0, 0);
        let idx = s.node(Op::ZExt, 64, idx, 0, 0, 0);
        let e = OneByte::of(s, idx).expect("one byte");
        assert_eq!(e.input, c);
        let mut vals = Vec::new();
        assert_eq!(e.at(s, b'q', &mut vals), Some(16));
        // 0xff is -1 as a signed char: -98 as an int, widened unsigned.
        assert_eq!(e.at(s, 0xff, &mut vals), Some(0xffff_ff9e));
        // The same byte read twice is still one byte; another is not.
        let again = s.node(Op::Input, 8, 0, 0, 0, 3);
        let sum = s.node(Op::Add, 8, c, again, 0, 0);
        assert_eq!(OneByte::of(s, sum).and_then(|e| e.at(s, 5, &mut vals)), Some(10));
        let other = s.node(Op::Input, 8, 0, 0, 0, 4);
        let mixed = s.node(Op::Add, 8, c, other, 0, 0);
        assert!(OneByte::of(s, mixed).is_none());
    }
}
