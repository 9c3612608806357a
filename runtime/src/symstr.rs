//! Models of libc's string searches: `strchr`, `strrchr`, `strchrnul`,
//! `memchr` and `strpbrk` (where the search stopped, as a branch per byte
//! looked at: a solution keeps the found position or moves it on
//! purpose; the result pointer is the string's plus that position),
//! `strspn` and `strcspn` (the length, an if-then-else chain over the
//! bytes, exact while the byte that ended the span still ends it, which
//! is a branch), `strstr` (a branch per position tried), and
//! `strcasecmp`/`strncasecmp` (the difference of the first bytes that
//! differ once lowered, as `strcmp`'s model). Searched bytes, sets and
//! the needle may all be symbolic; no byte is read past those the call read.

use crate::model::op::Op;
use crate::sym;
use crate::symchars::{self as c, Decisions, Str, Text};
use crate::symfold::{B, V};
use alloc::vec::Vec;

/// Longest string a search model looks at.
const MAX_SPAN: usize = 4096;
/// Most byte compares `strstr`'s model builds.
const MAX_COMPARES: usize = 1 << 16;

fn finish(b: &mut B, d: &Decisions) -> bool {
    if b.full || d.wrong {
        return false;
    }
    d.commit(b.s);
    true
}

/// After `strchr` (`kind` 0), `strrchr` (1), `memchr` (2, `n` bytes) or
/// `strchrnul` (3) of `p` (shadow `sp`) for `ch` (shadow `sc`) that
/// returned `r`: the result's shadow.
///
/// # Safety
/// `p` is what the real call searched.
#[no_mangle]
pub unsafe extern "C" fn __sym_model_strchr(
    kind: u32,
    p: *const u8,
    sp: u32,
    ch: i64,
    sc: u32,
    n: u64,
    r: *const u8,
    site: u32,
) -> u32 {
    let Some(s) = sym::get() else { return 0 };
    let (p, r) = (p as usize, r as usize);
    if p == 0 || (r != 0 && r < p) {
        return 0;
    }
    // How far the call read: to the byte found, else to the NUL (all `n`).
    let last = match (kind, r) {
        (1, _) => crate::symmodels::strnlen(p, MAX_SPAN + 1),
        (2, 0) => (n as usize).saturating_sub(1),
        (_, 0) => crate::symmodels::strnlen(p, MAX_SPAN + 1),
        _ => r - p,
    };
    if last > MAX_SPAN || (kind == 2 && n == 0) {
        return 0;
    }
    let mut b = B::new(s);
    let mut d = Decisions::new(site);
    let cx = match sc {
        0 => V::K(ch as u64 & 0xff),
        e => {
            let e = b.s.resize(e, 8, false);
            b.sym(e)
        }
    };
    let c8 = ch as u8;
    let mut t = Str(p);
    for i in 0..=last {
        let at = t.at(&mut b, i);
        let hit = at.c.unwrap_or(0) == c8;
        let m = c::same(&mut b, at.x, cx);
        if kind == 1 || kind == 2 {
            // Every byte is looked at (to the NUL, to `n` or to the match).
            d.decide(m, hit);
            if kind == 1 {
                d.decide(at.end, i == last);
            }
            continue;
        }
        let stop = b.or(m, at.end);
        d.decide(stop, i == last);
        if i == last {
            d.decide(m, hit);
        }
    }
    if !finish(&mut b, &d) || r == 0 {
        return 0;
    }
    c::ptr_add(b.s, sp, (r - p) as u64)
}

/// After `strspn` (`kind` 0), `strcspn` (1) or `strpbrk` (2) of `p`
/// (shadow `sp`) over the set `set`, which returned `r` (a length, or
/// `strpbrk`'s pointer): the result's shadow.
///
/// # Safety
/// `p` and `set` are the call's strings.
#[no_mangle]
pub unsafe extern "C" fn __sym_model_strspn(
    kind: u32,
    p: *const u8,
    sp: u32,
    set: *const u8,
    r: u64,
    site: u32,
) -> u32 {
    let Some(s) = sym::get() else { return 0 };
    let (p, set) = (p as usize, set as usize);
    if p == 0 || set == 0 {
        return 0;
    }
    let last = match (kind, r) {
        (2, 0) => crate::symmodels::strnlen(p, MAX_SPAN + 1),
        (2, r) => (r as usize).wrapping_sub(p),
        (_, r) => r as usize,
    };
    if last > MAX_SPAN {
        return 0;
    }
    let mut b = B::new(s);
    let mut d = Decisions::new(site);
    let Some(members) = c::read_set(&mut b, &mut d, set, MAX_SPAN) else { return 0 };
    let mut t = Str(p);
    // Whether byte `i` goes on the span, and how it went.
    let mut goes = Vec::with_capacity(last + 1);
    for i in 0..=last {
        let at = t.at(&mut b, i);
        let member = c::in_set(&mut b, at.x, &members);
        let is = at.c.is_some_and(|v| members.iter().any(|&(m, _)| m == v));
        let (cond, went) = if kind == 0 {
            (member, is)
        } else {
            let stop = b.or(member, at.end);
            (b.not(stop), !is && at.c.is_some())
        };
        goes.push((cond, went, member, is));
    }
    if kind == 2 {
        for &(cond, went, member, is) in &goes {
            d.decide(cond, went);
            if !went {
                d.decide(member, is);
            }
        }
        if !finish(&mut b, &d) || r == 0 {
            return 0;
        }
        return c::ptr_add(b.s, sp, last as u64);
    }
    // The length: the first byte that does not go on, exact while the
    // last byte looked at ends the span.
    let (cond, went, ..) = goes[last];
    d.decide(cond, went);
    let mut len = V::K(last as u64);
    for (i, &(cond, ..)) in goes.iter().enumerate().take(last).rev() {
        len = b.ite(cond, len, V::K(i as u64), 64);
    }
    if !finish(&mut b, &d) {
        return 0;
    }
    match len {
        V::S(n) => n,
        V::K(_) => 0,
    }
}

/// After `strstr(h, needle) == r` (`sh`: the shadow of `h`).
///
/// # Safety
/// `h` and `needle` are the call's strings.
#[no_mangle]
pub unsafe extern "C" fn __sym_model_strstr(h: *const u8, sh: u32, needle: *const u8, r: *const u8, site: u32) -> u32 {
    let Some(s) = sym::get() else { return 0 };
    let (h, nd, r) = (h as usize, needle as usize, r as usize);
    if h == 0 || nd == 0 || (r != 0 && r < h) {
        return 0;
    }
    let mut b = B::new(s);
    let mut d = Decisions::new(site);
    let Some(needle) = c::read_set(&mut b, &mut d, nd, MAX_SPAN) else { return 0 };
    let m = needle.len();
    // Positions tried: up to the match, else those the needle fits in
    // before the haystack's NUL, which is decided too.
    let (tried, len) = if r != 0 {
        (r - h, r - h + m)
    } else {
        let len = crate::symmodels::strnlen(h, MAX_SPAN + 1);
        (len.saturating_sub(m) + usize::from(len >= m), len)
    };
    if len > MAX_SPAN || tried.saturating_mul(m.max(1)) > MAX_COMPARES {
        return 0;
    }
    let mut t = Str(h);
    let hay: Vec<(u8, V, V)> = (0..len + usize::from(r == 0))
        .map(|i| {
            let at = t.at(&mut b, i);
            (at.c.unwrap_or(0), at.x, at.end)
        })
        .collect();
    // No NUL before the last byte the call needed.
    for (i, &(_, _, end)) in hay.iter().enumerate() {
        d.decide(end, i == len && r == 0);
    }
    let positions = if r != 0 { tried + 1 } else { tried };
    for i in 0..positions {
        // The match at `i`, over the needle's bytes up to the first that
        // differs (the call looked no further).
        let mut all = V::K(1);
        let mut matched = true;
        for (j, &(nv, nx)) in needle.iter().enumerate() {
            let (hv, hx, _) = hay[i + j];
            let eq = c::same(&mut b, hx, nx);
            all = b.and(all, eq);
            if hv != nv {
                matched = false;
                break;
            }
        }
        d.decide(all, matched);
    }
    if !finish(&mut b, &d) || r == 0 {
        return 0;
    }
    c::ptr_add(b.s, sh, (r - h) as u64)
}

/// After `strcasecmp(a, b)` (`n` is `u64::MAX`) or `strncasecmp(a, b,
/// n)`: the difference of the first bytes that differ once lowered, as
/// an if-then-else chain from the last position both strings hold.
///
/// # Safety
/// `a` and `b` are the call's strings.
#[no_mangle]
pub unsafe extern "C" fn __sym_model_casecmp(a: *const u8, bp: *const u8, n: u64) -> u32 {
    let Some(s) = sym::get() else { return 0 };
    let (a, bp) = (a as usize, bp as usize);
    if a == 0 || bp == 0 {
        return 0;
    }
    let span = (n.min(MAX_SPAN as u64) as usize)
        .min(crate::symmodels::strnlen(a, MAX_SPAN).min(crate::symmodels::strnlen(bp, MAX_SPAN)) + 1);
    if !(0..span).any(|i| s.byte(a + i) != 0 || s.byte(bp + i) != 0) {
        return 0;
    }
    let mut b = B::new(s);
    let (mut ta, mut tb) = (Str(a), Str(bp));
    let mut acc = V::K(0);
    for i in (0..span).rev() {
        let (x, y) = (ta.at(&mut b, i), tb.at(&mut b, i));
        let (lx, ly) = (c::lower(&mut b, x.x), c::lower(&mut b, y.x));
        let (wx, wy) = (c::widen(&mut b, lx, 32), c::widen(&mut b, ly, 32));
        let diff = c::op(&mut b, Op::Sub, 32, wx, wy);
        let ne = c::op(&mut b, Op::Ne, 8, lx, ly);
        let rest = b.ite(x.end, V::K(0), acc, 32);
        acc = b.ite(ne, diff, rest, 32);
    }
    match acc {
        V::S(n) if !b.full => n,
        _ => 0,
    }
}
