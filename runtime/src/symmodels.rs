//! Models of the libc calls that matter, called by the symbolic clones
//! right after the real call with its arguments and result: each returns
//! the result's shadow (or copies shadows, for the copying calls).
//! A string is read no further than the real call read it.

use crate::model::op::Op;
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
            let ne = s.node(Op::Ne, 1, x, y, 0, 0);
            let (x32, y32) = (s.resize(x, 32, false), s.resize(y, 32, false));
            let d = s.node(Op::Sub, 32, x32, y32, 0, 0);
            acc = s.node(Op::Ite, 32, ne, d, acc, 0);
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
            let is_nul = s.node(Op::Eq, 1, x, zero, 0, 0);
            let at = s.constant(i as u64, 64);
            acc = s.node(Op::Ite, 64, is_nul, at, acc, 0);
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
/// isspace, 4 isalpha, 5 isalnum, 6 isupper, 7 islower, 8 isxdigit, 9
/// isprint, 10 isgraph, 11 iscntrl, 12 ispunct, 13 isblank) on a symbolic
/// `int`.
#[no_mangle]
pub extern "C" fn __sym_model_char(kind: u32, sc: u32) -> u32 {
    if sc == 0 {
        return 0;
    }
    with(|s| {
        let c = s.resize(sc, 32, false);
        char_class(s, kind, c)
    })
}

/// The expression of character function `kind` (see [`__sym_model_char`])
/// on the 32-bit expression `c`, as the "C" locale answers: 0 or 1 for a
/// class, the character moved or not for a case change.
pub(crate) fn char_class(s: &mut Sym, kind: u32, c: u32) -> u32 {
    let range = |s: &mut Sym, lo: u64, hi: u64| {
        let (l, h) = (s.constant(lo, 32), s.constant(hi, 32));
        let a = s.node(Op::Uge, 1, c, l, 0, 0);
        let b = s.node(Op::Ule, 1, c, h, 0, 0);
        s.node(Op::And, 1, a, b, 0, 0)
    };
    let any = |s: &mut Sym, ranges: &[(u64, u64)]| {
        let mut acc = 0;
        for &(lo, hi) in ranges {
            let r = range(s, lo, hi);
            acc = if acc == 0 { r } else { s.node(Op::Or, 1, acc, r, 0, 0) };
        }
        acc
    };
    let cond = match kind {
        0 | 1 => {
            let (lo, hi, delta) = if kind == 0 { (97, 122, 32u64.wrapping_neg()) } else { (65, 90, 32) };
            let inside = range(s, lo, hi);
            let d = s.constant(delta, 32);
            let moved = s.node(Op::Add, 32, c, d, 0, 0);
            return s.node(Op::Ite, 32, inside, moved, c, 0);
        }
        2 => any(s, &[(48, 57)]),
        3 => any(s, &[(9, 13), (32, 32)]),
        4 => any(s, &[(65, 90), (97, 122)]),
        5 => any(s, &[(65, 90), (97, 122), (48, 57)]),
        6 => any(s, &[(65, 90)]),
        7 => any(s, &[(97, 122)]),
        8 => any(s, &[(48, 57), (65, 70), (97, 102)]),
        9 => any(s, &[(32, 126)]),
        10 => any(s, &[(33, 126)]),
        11 => any(s, &[(0, 31), (127, 127)]),
        12 => any(s, &[(33, 47), (58, 64), (91, 96), (123, 126)]),
        13 => any(s, &[(9, 9), (32, 32)]),
        _ => return 0,
    };
    let (one, zero) = (s.constant(1, 32), s.constant(0, 32));
    s.node(Op::Ite, 32, cond, one, zero, 0)
}

/// What character function `kind` answers for the ASCII character `v`
/// in the "C" locale (a class as 0 or 1).
pub(crate) fn char_class_of(kind: u32, v: u8) -> Option<u32> {
    let class = match kind {
        0 => return Some(u32::from(v.to_ascii_uppercase())),
        1 => return Some(u32::from(v.to_ascii_lowercase())),
        2 => v.is_ascii_digit(),
        3 => v == b' ' || (9..=13).contains(&v),
        4 => v.is_ascii_alphabetic(),
        5 => v.is_ascii_alphanumeric(),
        6 => v.is_ascii_uppercase(),
        7 => v.is_ascii_lowercase(),
        8 => v.is_ascii_hexdigit(),
        9 => v == b' ' || v.is_ascii_graphic(),
        10 => v.is_ascii_graphic(),
        11 => v.is_ascii_control(),
        12 => v.is_ascii_punctuation(),
        13 => v == b' ' || v == b'\t',
        _ => return None,
    };
    Some(u32::from(class))
}
