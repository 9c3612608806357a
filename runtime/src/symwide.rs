//! Models of the conversions between bytes and wide characters, which
//! programs that handle multibyte text call on every byte (gnulib's
//! `quotearg` and `mbsstr`, the `mbrtowc` loops of coreutils and sed):
//! `mbrtowc` and `mbrlen`, `wcrtomb`, `wctob` and `btowc`, and the wide
//! character classes and case changes (`iswprint`, `towlower`...). In glibc's
//! locales of interest ("C", UTF-8) a byte below 0x80 is its own
//! character, and that is what the models know: whether the byte
//! (character) is below 0x80 is a decision at the call's site, and under
//! it the result and the character (byte) stored follow the symbolic
//! value. Past 0x80 the locale decides (an invalid byte in "C", the first
//! of a sequence in UTF-8): the decision is kept, so a solution may bring
//! the byte back below 0x80, and the rest is the real call's. A call that
//! did not answer as the model would (a locale where ASCII bytes are not
//! themselves) gets no model, and its symbolic length or character is
//! pinned as any unmodelled call's.

use crate::model::chars::WIDE_CHAR_FUNCTIONS;
use crate::model::op::Op;
use crate::sym::{self, Sym};
use crate::symchars::{self as c, Decisions};
use crate::symfold::{B, V};

/// The first character that is not its own byte.
const ASCII_END: u64 = 0x80;
/// `(size_t) -2`, an incomplete character (`(size_t) -1` is an invalid
/// one): the lengths below it are those of a character read.
const INCOMPLETE: u64 = u64::MAX - 1;
/// The most bytes a character takes (glibc's `MB_LEN_MAX`).
const MB_LEN_MAX: u64 = 16;
/// `WEOF` as `btowc` returns it, and `EOF` as `wctob` does (32 bits).
const WEOF: u64 = 0xffff_ffff;

/// The 64-bit value `v` whose shadow is `sv`, as a folding value.
fn value(b: &mut B, sv: u32, v: u64, width: u32) -> V {
    if sv == 0 {
        return V::K(v);
    }
    let e = b.s.resize(sv, width, false);
    b.sym(e)
}

/// The 32-bit character `ch` (shadow `sc`), and whether it is its own
/// byte (below 0x80): a decision of the call.
fn own_byte(b: &mut B, d: &mut Decisions, sc: u32, ch: u64) -> (V, bool) {
    let x = value(b, sc, ch, 32);
    let own = c::op(b, Op::Ult, 32, x, V::K(ASCII_END));
    (x, d.decide(own, (ch & WEOF) < ASCII_END))
}

/// Records the decisions and answers whether the model holds.
fn finish(b: &mut B, d: &Decisions) -> bool {
    if b.full || d.wrong {
        return false;
    }
    d.commit(b.s);
    true
}

/// What a call without a model leaves: its symbolic length pinned, and
/// the character it stored (when it stored one) concrete.
fn unmodelled(s: &mut Sym, sn: u32, n: u64, pwc: *mut u8, r: u64) {
    if sn != 0 {
        s.pin(sn, n, c"mbrtowc".as_ptr().cast());
    }
    forget_stored(s, pwc, r);
}

/// The character a call stored (when it returned a length) is concrete.
fn forget_stored(s: &mut Sym, pwc: *mut u8, r: u64) {
    if !pwc.is_null() && r < INCOMPLETE {
        s.clear(pwc as usize, 4);
    }
}

/// After `mbrtowc(pwc, p, n, _)` (`mbrlen` when `pwc` is null) returned
/// `r`, `n`'s shadow being `sn`: the result's shadow (64 bits); the
/// shadow of the character stored at `pwc`.
///
/// # Safety
/// `p` is what the real call read (when `n > 0`), `pwc` what it wrote.
#[no_mangle]
pub unsafe extern "C" fn __sym_model_mbrtowc(pwc: *mut u8, p: *const u8, n: u64, sn: u32, r: u64, site: u32) -> u32 {
    let Some(s) = sym::get() else { return 0 };
    if p.is_null() {
        unmodelled(s, sn, n, pwc, r);
        return 0;
    }
    let mut b = B::new(s);
    let mut d = Decisions::new(site);
    let nv = value(&mut b, sn, n, 64);
    let empty = b.eq_w(nv, 0, 64);
    if d.decide(empty, n == 0) {
        if r != INCOMPLETE || !finish(&mut b, &d) {
            unmodelled(b.s, sn, n, pwc, r);
        }
        return 0;
    }
    // SAFETY: the real call read this byte.
    let v = unsafe { *p };
    let x = c::byte(&mut b, p as usize, v);
    let own = c::op(&mut b, Op::Ult, 8, x, V::K(ASCII_END));
    if !d.decide(own, u64::from(v) < ASCII_END) {
        // The locale's: the class alone is modelled.
        if finish(&mut b, &d) {
            forget_stored(b.s, pwc, r);
        } else {
            unmodelled(b.s, sn, n, pwc, r);
        }
        return 0;
    }
    if r != u64::from(v != 0) || !finish(&mut b, &d) {
        unmodelled(b.s, sn, n, pwc, r);
        return 0;
    }
    let nul = b.eq(x, 0);
    let result = b.ite(nul, V::K(0), V::K(1), 64);
    if !pwc.is_null() {
        let wide = c::widen(&mut b, x, 32);
        let stored = b.node(wide, 32);
        if matches!(wide, V::S(_)) {
            b.s.store(pwc as usize, stored, 4);
        } else {
            b.s.clear(pwc as usize, 4);
        }
    }
    match result {
        V::S(e) if !b.full => e,
        _ => 0,
    }
}

/// After `wcrtomb(p, wc, _)` returned `r`, `wc`'s shadow being `sw`: the
/// shadow of the byte stored at `p` (the result, 1 or the locale's, stays
/// concrete under the decision on the character's class).
///
/// # Safety
/// `p` is what the real call wrote (when it returned 1).
#[no_mangle]
pub unsafe extern "C" fn __sym_model_wcrtomb(p: *mut u8, wc: u64, sw: u32, r: u64, site: u32) {
    let Some(s) = sym::get() else { return };
    if sw == 0 || p.is_null() {
        if sw != 0 {
            s.pin(sw, wc & WEOF, c"wcrtomb".as_ptr().cast());
        }
        forget_bytes(s, p, r);
        return;
    }
    let mut b = B::new(s);
    let mut d = Decisions::new(site);
    let (x, is_own) = own_byte(&mut b, &mut d, sw, wc);
    if (is_own && r != 1) || !finish(&mut b, &d) {
        b.s.pin(sw, wc & WEOF, c"wcrtomb".as_ptr().cast());
        forget_bytes(b.s, p, r);
        return;
    }
    if is_own {
        let byte = b.node(x, 32);
        let byte = b.s.extract(byte, 0, 8);
        b.s.store(p as usize, byte, 1);
    } else {
        // The locale's bytes, or none (an invalid character).
        forget_bytes(b.s, p, r);
    }
}

/// The bytes `wcrtomb` wrote at `p` (`r` of them, when it wrote any) are
/// concrete.
fn forget_bytes(s: &mut Sym, p: *mut u8, r: u64) {
    if !p.is_null() && r <= MB_LEN_MAX {
        s.clear(p as usize, r as usize);
    }
}

/// After `wctob(c)` (`to_byte`) or `btowc(c)` returned `r`, `c`'s shadow
/// being `sc`: the result's shadow (32 bits).
#[no_mangle]
pub extern "C" fn __sym_model_wctob(to_byte: u32, ch: u64, sc: u32, r: u64, site: u32) -> u32 {
    let Some(s) = sym::get() else { return 0 };
    if sc == 0 {
        return 0;
    }
    let why = if to_byte != 0 { c"wctob" } else { c"btowc" };
    let mut b = B::new(s);
    let mut d = Decisions::new(site);
    let (x, is_own) = own_byte(&mut b, &mut d, sc, ch);
    // Both give the character back when it is its own byte; else `EOF`
    // (-1) and `WEOF`, the same 32 bits, in "C" and UTF-8 alike.
    let want = if is_own { ch & WEOF } else { WEOF };
    if r & WEOF != want || !finish(&mut b, &d) {
        b.s.pin(sc, ch & WEOF, why.as_ptr().cast());
        return 0;
    }
    match x {
        V::S(e) if is_own && !b.full => e,
        _ => 0,
    }
}

/// After wide character function `kind` (`towupper`, `iswprint`..., see
/// `model::chars`) of `ch` returned `r`, `ch`'s shadow being `sc`: the
/// result's shadow (32 bits). Below 0x80 it answers as its narrow form in
/// the "C" locale; past 0x80 the class is the locale's (concrete), and a
/// case change that left the character alone leaves it symbolic.
#[no_mangle]
pub extern "C" fn __sym_model_wchar(kind: u32, ch: u64, sc: u32, r: u64, site: u32) -> u32 {
    let Some(s) = sym::get() else { return 0 };
    let Some(why) = WIDE_CHAR_FUNCTIONS.get(kind as usize) else { return 0 };
    if sc == 0 {
        return 0;
    }
    let mut b = B::new(s);
    let mut d = Decisions::new(site);
    let (x, is_own) = own_byte(&mut b, &mut d, sc, ch);
    let (v, r) = (ch & WEOF, r & WEOF);
    let holds = !is_own
        || match crate::symmodels::char_class_of(kind, v as u8) {
            Some(want) if kind <= 1 => r == u64::from(want),
            Some(want) => (r != 0) == (want != 0),
            None => false,
        };
    if !holds || !finish(&mut b, &d) {
        b.s.pin(sc, v, why.as_ptr().cast());
        return 0;
    }
    let V::S(e) = x else { return 0 };
    match (is_own, kind <= 1 && r == v) {
        (true, _) => crate::symmodels::char_class(b.s, kind, e),
        (false, true) => e,
        (false, false) => 0,
    }
}
