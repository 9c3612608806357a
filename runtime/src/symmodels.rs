//! Models of the libc calls that matter, called by the symbolic clones
//! right after the real call with its arguments and result: each returns
//! the result's shadow (or copies shadows, for the copying calls).
//! A string is read no further than the real call read it.

use crate::model::trace::*;
use crate::sym::{self, Sym};

/// Longest string or block a model looks at.
pub(crate) const MAX_SPAN: usize = 4096;

fn with<R: Default>(f: impl FnOnce(&mut Sym) -> R) -> R {
    sym::get().map(f).unwrap_or_default()
}

pub(crate) fn byte_expr(s: &mut Sym, p: usize) -> u32 {
    let b = s.byte(p);
    if b != 0 {
        return b;
    }
    // SAFETY: the real call read this byte.
    let v = unsafe { *(p as *const u8) };
    s.constant(u64::from(v), 8)
}

/// Length of the string at `p`, at most `max`.
pub(crate) fn strnlen(p: usize, max: usize) -> usize {
    // SAFETY: a string the program passed to the real call.
    unsafe { libc::strnlen(p as *const libc::c_char, max) }
}

/// `strcmp`/`strncmp`/`memcmp` (`n`: the byte limit; `strings`: stop at
/// NUL): the result as a chain over the positions both sides hold.
#[no_mangle]
pub extern "C" fn __sym_model_cmp(a: *const u8, b: *const u8, n: u64, strings: u32) -> u32 {
    with(|s| {
        let (a, b) = (a as usize, b as usize);
        let mut span = (n as usize).min(MAX_SPAN);
        if strings != 0 {
            // Every position up to the shorter string's NUL, included.
            span = span.min(strnlen(a, MAX_SPAN).min(strnlen(b, MAX_SPAN)) + 1);
        }
        if !(0..span).any(|i| s.byte(a + i) != 0 || s.byte(b + i) != 0) {
            return 0;
        }
        let mut acc = s.constant(0, 32);
        for i in (0..span).rev() {
            let (x, y) = (byte_expr(s, a + i), byte_expr(s, b + i));
            let ne = s.node(OP_NE, 1, x, y, 0, 0);
            let (x32, y32) = (s.resize(x, 32, false), s.resize(y, 32, false));
            let d = s.node(OP_SUB, 32, x32, y32, 0, 0);
            acc = s.node(OP_ITE, 32, ne, d, acc, 0);
            if acc == 0 {
                return 0;
            }
        }
        acc
    })
}

/// `strlen(p) == len`: the first NUL among the symbolic bytes, the NUL
/// the call found included, and past it as far as the bytes stay
/// symbolic (a string parameter's room: the string may grow into it).
#[no_mangle]
pub extern "C" fn __sym_model_strlen(p: *const u8, len: u64) -> u32 {
    with(|s| {
        let (p, len) = (p as usize, (len as usize).min(MAX_SPAN));
        if !(0..=len).any(|i| s.byte(p + i) != 0) {
            return 0;
        }
        let mut end = len;
        while end < MAX_SPAN && s.byte(p + end) != 0 {
            end += 1;
        }
        let mut acc = s.constant(end as u64, 64);
        for i in (0..end).rev() {
            let x = byte_expr(s, p + i);
            let zero = s.constant(0, 8);
            let is_nul = s.node(OP_EQ, 1, x, zero, 0, 0);
            let at = s.constant(i as u64, 64);
            acc = s.node(OP_ITE, 64, is_nul, at, acc, 0);
            if acc == 0 {
                return 0;
            }
        }
        acc
    })
}

/// `strcpy`/`stpcpy`/`strcat`-like: after the call, the string now at
/// `dst` came from `src`.
#[no_mangle]
pub extern "C" fn __sym_model_strcpy(dst: *mut u8, src: *const u8) {
    let n = strnlen(dst as usize, MAX_SPAN) + 1;
    with(|s| s.copy(dst as usize, src as usize, n))
}

/// Character functions (`kind`: 0 toupper, 1 tolower, 2 isdigit, 3
/// isspace, 4 isalpha, 5 isalnum, 6 isupper, 7 islower, 8 isxdigit) on a
/// symbolic `int`.
#[no_mangle]
pub extern "C" fn __sym_model_char(kind: u32, sc: u32) -> u32 {
    if sc == 0 {
        return 0;
    }
    with(|s| {
        let c = s.resize(sc, 32, false);
        let range = |s: &mut Sym, lo: u64, hi: u64| {
            let (l, h) = (s.constant(lo, 32), s.constant(hi, 32));
            let a = s.node(OP_UGE, 1, c, l, 0, 0);
            let b = s.node(OP_ULE, 1, c, h, 0, 0);
            s.node(OP_AND, 1, a, b, 0, 0)
        };
        let or = |s: &mut Sym, a: u32, b: u32| s.node(OP_OR, 1, a, b, 0, 0);
        let cond = match kind {
            0 | 1 => {
                let (lo, hi, delta) = if kind == 0 { (97, 122, 32u64.wrapping_neg()) } else { (65, 90, 32) };
                let inside = range(s, lo, hi);
                let d = s.constant(delta, 32);
                let moved = s.node(OP_ADD, 32, c, d, 0, 0);
                return s.node(OP_ITE, 32, inside, moved, c, 0);
            }
            2 => range(s, 48, 57),
            3 => {
                let (a, b) = (range(s, 9, 13), range(s, 32, 32));
                or(s, a, b)
            }
            4 | 5 => {
                let (a, b) = (range(s, 65, 90), range(s, 97, 122));
                let x = or(s, a, b);
                if kind == 5 {
                    let d = range(s, 48, 57);
                    or(s, x, d)
                } else {
                    x
                }
            }
            6 => range(s, 65, 90),
            7 => range(s, 97, 122),
            8 => {
                let (a, b, d) = (range(s, 48, 57), range(s, 65, 70), range(s, 97, 102));
                let x = or(s, a, b);
                or(s, x, d)
            }
            _ => return 0,
        };
        let (one, zero) = (s.constant(1, 32), s.constant(0, 32));
        s.node(OP_ITE, 32, cond, one, zero, 0)
    })
}
