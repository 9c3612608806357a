//! Pieces the models of libc's string and number parsers share: the bytes
//! a call read (a string in memory, or a stream's), character classes and
//! digit values as folding expressions ([`crate::symfold`]), and the
//! decisions a call took on symbolic bytes, recorded as branches at the
//! call's site once the model agrees with the real call.

use crate::model::op::Op;
use crate::model::trace::*;
use crate::sym::Sym;
use crate::symfold::{B, V};
use alloc::vec::Vec;

/// One character a call read: `c` is `None` at the end of its input (a
/// string's NUL, a stream's end), `x` its 8-bit value and `end` whether it
/// is the end (symbolic for a string's symbolic byte).
#[derive(Clone, Copy)]
pub struct Ch {
    pub c: Option<u8>,
    pub x: V,
    pub end: V,
}

/// The characters a parsing call read, by position. A model asks for a
/// position only when the real call read it: never past an end.
pub trait Text {
    fn at(&mut self, b: &mut B, i: usize) -> Ch;
}

/// A NUL-ended string in memory.
pub struct Str(pub usize);

impl Text for Str {
    fn at(&mut self, b: &mut B, i: usize) -> Ch {
        // SAFETY: the model reads no further than the real call did.
        let v = unsafe { *((self.0 + i) as *const u8) };
        let x = byte(b, self.0 + i, v);
        let end = b.eq(x, 0);
        Ch { c: (v != 0).then_some(v), x, end }
    }
}

/// The expression of the byte at `addr` whose value is `v`.
pub fn byte(b: &mut B, addr: usize, v: u8) -> V {
    match b.s.byte(addr) {
        0 => V::K(u64::from(v)),
        e => V::S(e),
    }
}

/// `x op y` on `w`-bit values (comparisons are 1 bit), folded when both
/// are known (by the one operator type's evaluation).
pub fn op(b: &mut B, op: Op, w: u32, x: V, y: V) -> V {
    let out = if op.is_comparison() { 1 } else { w };
    if let (V::K(a), V::K(c)) = (x, y) {
        return match op.eval(out, w, w, a, c, 0, 0) {
            Some(r) => V::K(r),
            None => {
                b.full = true;
                V::K(0)
            }
        };
    }
    let (a, c) = (b.node(x, w), b.node(y, w));
    let r = b.s.node(op, out, a, c, 0, 0);
    b.sym(r)
}

/// `x` (8 bits) widened to `w` bits.
pub fn widen(b: &mut B, x: V, w: u32) -> V {
    match x {
        V::K(k) => V::K(k),
        V::S(n) if w == 8 => V::S(n),
        V::S(n) => {
            let r = b.s.node(Op::ZExt, w, n, 0, 0, 0);
            b.sym(r)
        }
    }
}

/// `lo <= x <= hi` for a byte.
pub fn in_range(b: &mut B, x: V, lo: u8, hi: u8) -> V {
    let d = op(b, Op::Sub, 8, x, V::K(u64::from(lo)));
    op(b, Op::Ule, 8, d, V::K(u64::from(hi - lo)))
}

/// `isspace` in the C locale, on a known byte.
pub fn space(v: u8) -> bool {
    v == b' ' || (9..=13).contains(&v)
}

/// `isspace` in the C locale.
pub fn is_space(b: &mut B, x: V) -> V {
    let blank = b.eq(x, u64::from(b' '));
    let ctl = in_range(b, x, 9, 13);
    b.or(blank, ctl)
}

/// `x == y` for two bytes.
pub fn same(b: &mut B, x: V, y: V) -> V {
    op(b, Op::Eq, 8, x, y)
}

/// `tolower` in the C locale.
pub fn lower(b: &mut B, x: V) -> V {
    let upper = in_range(b, x, b'A', b'Z');
    let moved = op(b, Op::Add, 8, x, V::K(32));
    b.ite(upper, moved, x, 8)
}

/// Whether `x` is a digit of `base` (2 to 36).
pub fn is_digit(b: &mut B, x: V, base: u32) -> V {
    if base <= 10 {
        return in_range(b, x, b'0', b'0' + base as u8 - 1);
    }
    let dec = in_range(b, x, b'0', b'9');
    let l = op(b, Op::Or, 8, x, V::K(0x20));
    let letter = in_range(b, l, b'a', b'a' + (base - 11) as u8);
    b.or(dec, letter)
}

/// The value of digit `x` of `base`, on 64 bits.
pub fn digit(b: &mut B, x: V, base: u32) -> V {
    let w = widen(b, x, 64);
    let dec = op(b, Op::Sub, 64, w, V::K(u64::from(b'0')));
    if base <= 10 {
        return dec;
    }
    let is_dec = in_range(b, x, b'0', b'9');
    let l = op(b, Op::Or, 64, w, V::K(0x20));
    let letter = op(b, Op::Sub, 64, l, V::K(u64::from(b'a') - 10));
    b.ite(is_dec, dec, letter, 64)
}

/// Whether byte `x` is one of `set`'s bytes (`set`: the bytes' values and
/// expressions). A concrete set is tested by its runs of consecutive bytes.
pub fn in_set(b: &mut B, x: V, set: &[(u8, V)]) -> V {
    if set.iter().all(|(_, e)| matches!(e, V::K(_))) {
        let mut table = [false; 256];
        for &(v, _) in set {
            table[v as usize] = true;
        }
        return in_table(b, x, &table);
    }
    let mut acc = V::K(0);
    for &(_, e) in set {
        let eq = same(b, x, e);
        acc = b.or(acc, eq);
    }
    acc
}

/// Whether byte `x` is marked in `table`.
pub fn in_table(b: &mut B, x: V, table: &[bool; 256]) -> V {
    if let V::K(k) = x {
        return V::K(u64::from(table[k as usize & 255]));
    }
    let mut acc = V::K(0);
    let mut lo = 0;
    while lo < 256 {
        if !table[lo] {
            lo += 1;
            continue;
        }
        let mut hi = lo;
        while hi + 1 < 256 && table[hi + 1] {
            hi += 1;
        }
        let r = in_range(b, x, lo as u8, hi as u8);
        acc = b.or(acc, r);
        lo = hi + 1;
    }
    acc
}

/// A NUL-ended set of bytes (`strspn`'s, `strtok`'s delimiters): each
/// byte's value and expression; a symbolic byte's NUL-ness is decided.
pub fn read_set(b: &mut B, d: &mut Decisions, p: usize, max: usize) -> Option<Vec<(u8, V)>> {
    let mut set = Vec::new();
    for i in 0..max {
        let ch = Str(p).at(b, i);
        d.decide(ch.end, ch.c.is_none());
        match ch.c {
            Some(v) => set.push((v, ch.x)),
            None => return Some(set),
        }
    }
    None
}

/// The decisions a call took on symbolic bytes, in order: conditions and
/// how they went. A condition that folds must agree with how it went,
/// else the model is wrong for this call and records nothing.
pub struct Decisions {
    pub site: u32,
    list: Vec<(u32, bool)>,
    pub wrong: bool,
}

impl Decisions {
    pub fn new(site: u32) -> Decisions {
        Decisions { site, list: Vec::new(), wrong: false }
    }

    /// `c` went `taken`; returns `c` as it held (negated when not taken).
    pub fn decide(&mut self, c: V, taken: bool) -> bool {
        match c {
            V::K(k) => self.wrong |= (k != 0) != taken,
            V::S(n) => self.list.push((n, taken)),
        }
        taken
    }

    /// Records the decisions as branches of the call's site.
    pub fn commit(&self, s: &mut Sym) {
        for &(n, taken) in &self.list {
            s.record(PATH_BRANCH, self.site, n, u64::from(taken), &[], [NO_SLOT, NO_SLOT]);
        }
    }
}

/// `p + k` for a pointer whose shadow is `sp` (`x + c` kept as such, see
/// `symptr`); 0 when `sp` is.
pub fn ptr_add(s: &mut Sym, sp: u32, k: u64) -> u32 {
    if sp == 0 || k == 0 {
        return sp;
    }
    // A pointer's shadow is 64 bits wide; one narrower (a pointer read back
    // from memory whose shadow held fewer bytes) is widened first.
    let sp = if s.width(sp) == 64 { sp } else { s.resize(sp, 64, false) };
    let n = s.nodes[sp as usize];
    if n.op == Op::Add && s.nodes[n.b as usize].op == Op::Const {
        let c = s.constant(s.nodes[n.b as usize].val.wrapping_add(k), 64);
        return s.node(Op::Add, 64, n.a, c, 0, 0);
    }
    let c = s.constant(k, 64);
    s.node(Op::Add, 64, sp, c, 0, 0)
}
