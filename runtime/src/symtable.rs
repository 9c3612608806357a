//! Loads through a symbolic byte index (`table[c]`, as glibc's `isdigit`
//! and `toupper` macros do): the 256 entries the index can reach are read
//! (safely: an unreadable table is no table) and the load becomes an
//! `Op::Table` node over the byte. An index computed from one input byte
//! (`regs[c - 'a']`, `stack[depth + c]`) is evaluated at each of the
//! byte's values for the 256 entries (`symeval.rs`).

use crate::model::op::Op;
use crate::model::trace::*;
use crate::sym::Sym;
use alloc::vec::Vec;

/// The byte behind an index expression widened from 8 bits, and whether it
/// was sign-extended.
fn byte_index(s: &Sym, si: u32) -> Option<(u32, bool)> {
    let mut n = si;
    let mut signed = None;
    loop {
        let x = s.nodes[n as usize];
        if x.width == 8 {
            return Some((n, signed.unwrap_or(false)));
        }
        match x.op {
            Op::SExt | Op::ZExt => {
                // The innermost extension decides how the byte reads.
                signed = Some(x.op == Op::SExt);
                n = x.a;
            }
            _ => return None,
        }
    }
}

/// The node reading `size` bytes at `p = base + vi * elem`, with the index
/// symbolic (`si`); `None` when that cannot be a table read.
pub fn read(s: &mut Sym, p: usize, si: u32, vi: u64, elem: usize, size: usize) -> Option<u32> {
    if size == 0 || size > 8 || elem == 0 {
        return None;
    }
    match byte_index(s, si) {
        Some(byte) if elem <= 8 => {
            read_widened(s, p, byte, vi, elem, size).or_else(|| read_computed(s, p, si, vi, elem, size))
        }
        _ => read_computed(s, p, si, vi, elem, size),
    }
}

/// The entries of a computed index within this many bytes of the run's own
/// are read at once.
const MAX_SPAN: usize = 1 << 16;

/// Most entries with symbolic bytes a computed index may reach (each is an
/// arm of an if-then-else around the table of the others).
const MAX_SYMBOLIC: usize = 16;

/// [`read`] through an index computed from one input byte: the address at
/// each of the byte's values. An entry no read reaches (the program would
/// fault there) reads 0; an entry with symbolic bytes is their expression
/// when the byte has its value.
fn read_computed(s: &mut Sym, p: usize, si: u32, vi: u64, elem: usize, size: usize) -> Option<u32> {
    let e = crate::symeval::OneByte::of(s, si)?;
    let base = p.wrapping_sub((vi as usize).wrapping_mul(elem));
    let mut vals = Vec::new();
    let mut addrs = [0usize; TABLE_LEN];
    for (b, a) in addrs.iter_mut().enumerate() {
        let idx = e.at(s, b as u8, &mut vals)?;
        *a = base.wrapping_add((idx as usize).wrapping_mul(elem));
    }
    // The run's own byte leads to `p`, or the evaluation went wrong.
    if !addrs.contains(&p) {
        return None;
    }
    // The entries near `p` in one read; the others (a negative index
    // widened as unsigned lands gigabytes away) one by one.
    let near = |a: usize| a.abs_diff(p) <= MAX_SPAN / 2;
    let lo = addrs.iter().copied().filter(|&a| near(a)).min()?;
    let hi = addrs.iter().copied().filter(|&a| near(a)).max()?;
    let mut raw = alloc::vec![0u8; hi - lo + size];
    let whole = crate::sys::read_memory(lo, &mut raw);
    let mut entries = Vec::with_capacity(TABLE_LEN);
    let mut symbolic: Vec<(u8, usize)> = Vec::new();
    for (b, &a) in addrs.iter().enumerate() {
        if (0..size).any(|i| s.byte(a.wrapping_add(i)) != 0) {
            if symbolic.len() == MAX_SYMBOLIC {
                return None;
            }
            symbolic.push((b as u8, a));
        }
        let mut v = [0u8; 8];
        if whole && near(a) {
            v[..size].copy_from_slice(&raw[a - lo..a - lo + size]);
        } else if !crate::sys::read_memory(a, &mut v[..size]) {
            v = [0; 8];
        }
        entries.push(u64::from_le_bytes(v));
    }
    let id = s.table(entries);
    let width = 8 * size as u32;
    let mut node = s.node(Op::Table, width, e.input, 0, 0, id as u64);
    for (b, a) in symbolic {
        let v = s.load(a, size);
        let k = s.constant(u64::from(b), 8);
        let here = s.node(Op::Eq, 1, e.input, k, 0, 0);
        node = s.node(Op::Ite, width, here, v, node, 0);
    }
    Some(node)
}

/// [`read`] through a byte widened to the index (`byte`, and whether it
/// was sign-extended).
fn read_widened(s: &mut Sym, p: usize, (byte, signed): (u32, bool), vi: u64, elem: usize, size: usize) -> Option<u32> {
    let base = p.wrapping_sub((vi as usize).wrapping_mul(elem));
    let (lo, hi) = if signed { (-128i64, 127i64) } else { (0, 255) };
    let start = base.wrapping_add((lo as usize).wrapping_mul(elem));
    let len = (hi - lo) as usize * elem + size;
    let mut raw = alloc::vec![0u8; len];
    if !crate::sys::read_memory(start, &mut raw) {
        return None;
    }
    // A table whose bytes are themselves symbolic is not a constant table.
    if s.any_symbolic(start, len) {
        return None;
    }
    let mut entries = Vec::with_capacity(TABLE_LEN);
    for b in 0..TABLE_LEN {
        let idx = if signed { i64::from(b as u8 as i8) } else { b as i64 };
        let off = (idx - lo) as usize * elem;
        let mut v = [0u8; 8];
        v[..size].copy_from_slice(&raw[off..off + size]);
        entries.push(u64::from_le_bytes(v));
    }
    let id = s.table(entries);
    Some(s.node(Op::Table, 8 * size as u32, byte, 0, 0, id as u64))
}

/// Most entries a read through an index of any width may range over
/// ([`read_bounded`]): sixteen tables of [`TABLE_LEN`] (PCRE2's character
/// tables are 1,088 bytes in one object, SQLite's parser action table
/// 2,283 entries).
const MAX_BOUNDED: usize = 16 * TABLE_LEN;

/// [`read`] through an index that is no byte (`hash % 127`, `n + c` over
/// several input bytes), into an object `(base, size)` of constant bytes
/// with at most [`MAX_BOUNDED`] entries: the index is assumed to stay
/// within the object (as the program's own access does; a far index is
/// what the access check asks for, before this), and the read is a
/// choice among [`Op::Table`] nodes over the index's low byte. `None`
/// when the object is too big, or holds symbolic bytes.
pub fn read_bounded(
    s: &mut Sym,
    p: usize,
    si: u32,
    vi: u64,
    elem: usize,
    size: usize,
    object: (usize, usize),
) -> Option<u32> {
    let (ob, osize) = object;
    if size == 0 || size > 8 || elem == 0 || p < ob || p + size > ob + osize {
        return None;
    }
    // The entries, as steps of `elem` from `p`, that lie inside the object.
    let before = (p - ob) / elem;
    let after = (ob + osize - size - p) / elem;
    let count = before + after + 1;
    let w = s.width(si);
    if count > MAX_BOUNDED || (w < 64 && count as u64 > 1u64 << w) {
        return None;
    }
    let start = p - before * elem;
    let len = (count - 1) * elem + size;
    if s.any_symbolic(start, len) {
        return None;
    }
    let mut raw = alloc::vec![0u8; len];
    if !crate::sys::read_memory(start, &mut raw) {
        return None;
    }
    // `d`: the index's distance from the first entry, below `count`.
    let first = s.constant(vi.wrapping_sub(before as u64), w);
    let d = s.node(Op::Sub, w, si, first, 0, 0);
    let bound = s.constant(count as u64, w);
    let within = s.node(Op::Ult, 1, d, bound, 0, 0);
    s.assume(within, TABLE_BOUND.as_ptr());
    let low = match w {
        8 => d,
        w if w > 8 => s.extract(d, 0, 8),
        _ => s.resize(d, 8, false),
    };
    let width = 8 * size as u32;
    let chunks = count.div_ceil(TABLE_LEN);
    let mut node = 0;
    for c in (0..chunks).rev() {
        let mut entries = Vec::with_capacity(TABLE_LEN);
        for k in c * TABLE_LEN..(c + 1) * TABLE_LEN {
            let mut v = [0u8; 8];
            if k < count {
                v[..size].copy_from_slice(&raw[k * elem..k * elem + size]);
            }
            entries.push(u64::from_le_bytes(v));
        }
        let id = s.table(entries);
        let table = s.node(Op::Table, width, low, 0, 0, id as u64);
        node = if node == 0 {
            table
        } else {
            let upto = s.constant(((c + 1) * TABLE_LEN) as u64, w);
            let here = s.node(Op::Ult, 1, d, upto, 0, 0);
            s.node(Op::Ite, width, here, table, node, 0)
        };
    }
    Some(node)
}
