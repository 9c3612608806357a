//! An expression builder for the runtime's models of libc calls: values
//! are known (folded as they are built) or nodes of the symbolic DAG, and
//! each constant is made once. The regex model (`symregex.rs`) runs its
//! automaton through it, on the symbolic bytes and, for the check against
//! the real call, on the concrete ones, where everything folds.

use crate::model::op::Op;
use crate::sym::Sym;
use alloc::collections::BTreeMap;

/// A value: known, or an expression of the symbolic bytes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum V {
    K(u64),
    S(u32),
}

/// Builds nodes, folding what is known, each constant once; `full` once
/// the DAG is.
pub struct B<'a> {
    pub s: &'a mut Sym,
    pub full: bool,
    consts: BTreeMap<(u64, u32), u32>,
}

/// The width of a byte, and of the automaton's small values.
pub const W: u32 = 8;

impl<'a> B<'a> {
    pub fn new(s: &'a mut Sym) -> B<'a> {
        B { s, full: false, consts: BTreeMap::new() }
    }
}

impl B<'_> {
    pub fn konst(&mut self, k: u64, width: u32) -> u32 {
        let s = &mut *self.s;
        *self.consts.entry((k, width)).or_insert_with(|| s.constant(k, width))
    }

    pub fn node(&mut self, v: V, width: u32) -> u32 {
        match v {
            V::S(n) => n,
            V::K(k) => self.konst(k, width),
        }
    }

    pub fn sym(&mut self, n: u32) -> V {
        if n == 0 {
            self.full = true;
        }
        V::S(n)
    }

    pub fn eq(&mut self, a: V, k: u64) -> V {
        self.eq_w(a, k, W)
    }

    pub fn eq_w(&mut self, a: V, k: u64, width: u32) -> V {
        match a {
            V::K(x) => V::K(u64::from(x == k)),
            V::S(n) => {
                let c = self.konst(k, width);
                let r = self.s.node(Op::Eq, 1, n, c, 0, 0);
                self.sym(r)
            }
        }
    }

    pub fn ule(&mut self, a: V, k: u64) -> V {
        match a {
            V::K(x) => V::K(u64::from(x <= k)),
            V::S(n) => {
                let c = self.konst(k, W);
                let r = self.s.node(Op::Ule, 1, n, c, 0, 0);
                self.sym(r)
            }
        }
    }

    pub fn bool_op(&mut self, op: Op, a: V, b: V) -> V {
        match (op, a, b) {
            (Op::And, V::K(0), _) | (Op::And, _, V::K(0)) => V::K(0),
            (Op::Or, V::K(1), _) | (Op::Or, _, V::K(1)) => V::K(1),
            (_, V::K(_), x) | (_, x, V::K(_)) => x,
            (_, V::S(x), V::S(y)) => {
                let r = self.s.node(op, 1, x, y, 0, 0);
                self.sym(r)
            }
        }
    }

    pub fn and(&mut self, a: V, b: V) -> V {
        self.bool_op(Op::And, a, b)
    }

    pub fn or(&mut self, a: V, b: V) -> V {
        self.bool_op(Op::Or, a, b)
    }

    pub fn not(&mut self, a: V) -> V {
        match a {
            V::K(x) => V::K(u64::from(x == 0)),
            V::S(n) => {
                let one = self.konst(1, 1);
                let r = self.s.node(Op::Xor, 1, n, one, 0, 0);
                self.sym(r)
            }
        }
    }

    pub fn ite(&mut self, c: V, a: V, b: V, width: u32) -> V {
        match c {
            V::K(0) => b,
            V::K(_) => a,
            _ if a == b => a,
            V::S(cn) => {
                let (an, bn) = (self.node(a, width), self.node(b, width));
                let r = self.s.node(Op::Ite, width, cn, an, bn, 0);
                self.sym(r)
            }
        }
    }

    /// `a + d`, kept within `0..=max`.
    pub fn step(&mut self, a: V, d: i64, max: u64) -> V {
        match a {
            V::K(x) => V::K((x as i64 + d).clamp(0, max as i64) as u64),
            V::S(n) => {
                let edge = if d > 0 { max } else { 0 };
                let at_edge = self.eq(a, edge);
                let c = self.konst(d as u64, W);
                let moved = self.s.node(Op::Add, W, n, c, 0, 0);
                let moved = self.sym(moved);
                self.ite(at_edge, a, moved, W)
            }
        }
    }

    /// `reg` (64 bits) shifted one byte up, with byte `c` below.
    pub fn shift_in(&mut self, reg: V, c: V) -> V {
        match (reg, c) {
            (V::K(r), V::K(x)) => V::K(r << 8 | x),
            _ => {
                let (rn, cn) = (self.node(reg, 64), self.node(c, W));
                let eight = self.konst(8, 64);
                let up = self.s.node(Op::Shl, 64, rn, eight, 0, 0);
                let wide = self.s.node(Op::ZExt, 64, cn, 0, 0, 0);
                let r = self.s.node(Op::Or, 64, up, wide, 0, 0);
                self.sym(r)
            }
        }
    }

    /// `reg & mask` (64 bits).
    pub fn mask(&mut self, reg: V, mask: u64) -> V {
        match reg {
            V::K(r) => V::K(r & mask),
            V::S(n) => {
                let k = self.konst(mask, 64);
                let r = self.s.node(Op::And, 64, n, k, 0, 0);
                self.sym(r)
            }
        }
    }

    pub fn zext(&mut self, c: V) -> V {
        match c {
            V::K(x) => V::K(x),
            V::S(n) => {
                let r = self.s.node(Op::ZExt, 64, n, 0, 0, 0);
                self.sym(r)
            }
        }
    }
}
