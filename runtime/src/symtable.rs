//! Loads through a symbolic byte index (`table[c]`, as glibc's `isdigit`
//! and `toupper` macros do): the 256 entries the index can reach are read
//! (safely: an unreadable table is no table) and the load becomes an
//! `OP_TABLE` node over the byte.

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
            OP_SEXT | OP_ZEXT => {
                // The innermost extension decides how the byte reads.
                signed = Some(x.op == OP_SEXT);
                n = x.a;
            }
            _ => return None,
        }
    }
}

/// The node reading `size` bytes at `p = base + vi * elem`, with the index
/// symbolic (`si`); `None` when that cannot be a table read.
pub fn read(s: &mut Sym, p: usize, si: u32, vi: u64, elem: usize, size: usize) -> Option<u32> {
    let (byte, signed) = byte_index(s, si)?;
    if elem == 0 || elem > 8 || size == 0 || size > 8 {
        return None;
    }
    let base = p.wrapping_sub((vi as usize).wrapping_mul(elem));
    let (lo, hi) = if signed { (-128i64, 127i64) } else { (0, 255) };
    let start = base.wrapping_add((lo as usize).wrapping_mul(elem));
    let len = (hi - lo) as usize * elem + size;
    let mut raw = alloc::vec![0u8; len];
    if !crate::sys::read_memory(start, &mut raw) {
        return None;
    }
    // A table whose bytes are themselves symbolic is not a constant table.
    if (0..len).any(|i| s.byte(start + i) != 0) {
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
    Some(s.node(OP_TABLE, 8 * size as u32, byte, 0, 0, id as u64))
}
