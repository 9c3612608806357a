//! A model of `strtok`, `strtok_r` and `strsep`: a hook before the call
//! finds, as glibc will, the delimiters skipped, the token and the byte
//! that ends it (which the call overwrites with a NUL); after it, each of
//! those decisions on a symbolic byte is a branch at the call's site, so
//! a solution keeps the token's bounds or moves them on purpose. The NUL
//! written and the saved pointer are concrete. `strtok`'s own position is
//! followed from call to call; a `strtok(NULL, ...)` this replay did not
//! see begin is not modelled.

use crate::sym;
use crate::symchars::{self as c, Decisions, Str, Text};
use crate::symfold::B;
use core::cell::UnsafeCell;

/// Longest token and delimiter run followed.
const MAX_SPAN: usize = 4096;

#[derive(Clone, Copy, Default)]
struct Pre {
    valid: bool,
    kind: u32,
    start: usize,
    /// Delimiters skipped (strtok), the token's end, and the byte there
    /// before the call.
    skipped: usize,
    end: usize,
    orig: u8,
    /// No token: the call returns NULL.
    none: bool,
    /// Where `strtok` goes on (0: unknown).
    mirror: usize,
}

struct Cell(UnsafeCell<Pre>);
// SAFETY: a symbolic replay is one thread.
unsafe impl Sync for Cell {}
static PRE: Cell =
    Cell(UnsafeCell::new(Pre { valid: false, kind: 0, start: 0, skipped: 0, end: 0, orig: 0, none: false, mirror: 0 }));

fn pre() -> &'static mut Pre {
    // SAFETY: single-threaded symbolic replay; no reference is kept.
    unsafe { &mut *PRE.0.get() }
}

fn at(p: usize) -> u8 {
    // SAFETY: callers read what the real call reads.
    unsafe { *(p as *const u8) }
}

/// Before `strtok(str, delim)` (`kind` 0), `strtok_r(str, delim, save)`
/// (1) or `strsep(save, delim)` (2, `str` unused).
///
/// # Safety
/// The call's arguments.
#[no_mangle]
pub unsafe extern "C" fn __sym_model_strtok_pre(kind: u32, str: *const u8, delim: *const u8, save: *const *const u8) {
    let p = pre();
    p.valid = false;
    if sym::get().is_none() || delim.is_null() {
        return;
    }
    let start = match kind {
        0 if str.is_null() => p.mirror,
        1 if str.is_null() && !save.is_null() => (unsafe { *save }) as usize,
        2 if !save.is_null() => (unsafe { *save }) as usize,
        0 | 1 => str as usize,
        _ => 0,
    };
    if start == 0 {
        return;
    }
    let set = crate::symmodels::strnlen(delim as usize, 256);
    // SAFETY: the delimiters, a C string of `set` bytes.
    let delims = unsafe { core::slice::from_raw_parts(delim, set) };
    let mut i = 0;
    if kind != 2 {
        while i < MAX_SPAN && at(start + i) != 0 && delims.contains(&at(start + i)) {
            i += 1;
        }
    }
    let skipped = i;
    let none = kind != 2 && at(start + i) == 0;
    while !none && i < MAX_SPAN && at(start + i) != 0 && !delims.contains(&at(start + i)) {
        i += 1;
    }
    if i >= MAX_SPAN {
        return;
    }
    *p = Pre { valid: true, kind, start, skipped, end: i, orig: at(start + i), none, mirror: p.mirror };
}

/// After the call that `__sym_model_strtok_pre` saw, which returned `r`.
///
/// # Safety
/// As for `__sym_model_strtok_pre`; `save` is the call's.
#[no_mangle]
pub unsafe extern "C" fn __sym_model_strtok(kind: u32, delim: *const u8, save: *mut u8, r: *const u8, site: u32) {
    let p = *pre();
    pre().valid = false;
    if kind == 0 {
        pre().mirror = 0;
    }
    let Some(s) = sym::get() else { return };
    if kind != 0 && !save.is_null() {
        s.clear(save as usize, 8);
    }
    let expected = if p.none { 0 } else { p.start + p.skipped };
    if !p.valid || p.kind != kind || r as usize != expected {
        return;
    }
    if kind == 0 {
        pre().mirror = p.start + p.end + usize::from(!p.none && p.orig != 0);
    }
    let mut b = B::new(s);
    let mut d = Decisions::new(site);
    let Some(set) = c::read_set(&mut b, &mut d, delim as usize, 256) else { return };
    let mut t = Str(p.start);
    for i in 0..p.skipped {
        let ch = t.at(&mut b, i);
        let m = c::in_set(&mut b, ch.x, &set);
        d.decide(m, true);
    }
    if kind != 2 {
        // The byte after the delimiters: the end (no token), or the token.
        let ch = t.at(&mut b, p.skipped);
        let m = c::in_set(&mut b, ch.x, &set);
        d.decide(m, false);
        d.decide(ch.end, p.none);
    }
    if !p.none {
        let first = p.skipped + usize::from(kind != 2);
        for i in first..p.end {
            let ch = t.at(&mut b, i);
            let m = c::in_set(&mut b, ch.x, &set);
            let stop = b.or(m, ch.end);
            d.decide(stop, false);
        }
        // The byte that ended the token, as it was before the call.
        let x = c::byte(&mut b, p.start + p.end, p.orig);
        let m = c::in_set(&mut b, x, &set);
        let end = b.eq(x, 0);
        let stop = b.or(m, end);
        d.decide(stop, true);
        d.decide(end, p.orig == 0);
    }
    if b.full || d.wrong {
        return;
    }
    d.commit(b.s);
    if !p.none && p.orig != 0 {
        b.s.clear(p.start + p.end, 1);
    }
}
