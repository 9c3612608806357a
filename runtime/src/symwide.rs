//! Models of the conversions between bytes and wide characters in a
//! single-byte locale, where programs that handle multibyte text call
//! them on every byte (gnulib's `quotearg`, `mbsstr`, the `mbrtowc`
//! loops of coreutils and sed): `mbrtowc` and `mbrlen`, `wcrtomb`,
//! `wctob` and `btowc`. In glibc's "C" locale a byte below 0x80 is its own
//! character and any other byte (character) is invalid. The class of the
//! byte (character) is a decision at the call's site, and within it the
//! result and the character stored follow the symbolic value; a call that
//! did not answer as the model would (another locale, `MB_CUR_MAX > 1`,
//! or a state left mid-character) gets no model, and its symbolic length
//! is pinned as any unmodelled call's.

use crate::model::trace::*;
use crate::sym::{self, Sym};
use crate::symchars::{self as c, Decisions};
use crate::symfold::{B, V};

extern "C" {
    fn __ctype_get_mb_cur_max() -> usize;
}

/// The first character that is not its own byte.
const ASCII_END: u64 = 0x80;
/// `(size_t) -1`, `(size_t) -2`: an invalid and an incomplete character.
const INVALID: u64 = u64::MAX;
const INCOMPLETE: u64 = u64::MAX - 1;
/// `WEOF` as `btowc` returns it, and `EOF` as `wctob` does (32 bits).
const WEOF: u64 = 0xffff_ffff;

fn single_byte_locale() -> bool {
    // SAFETY: a glibc query without arguments.
    unsafe { __ctype_get_mb_cur_max() == 1 }
}

/// The 64-bit value `v` whose shadow is `sv`, as a folding value.
fn value(b: &mut B, sv: u32, v: u64, width: u32) -> V {
    if sv == 0 {
        return V::K(v);
    }
    let e = b.s.resize(sv, width, false);
    b.sym(e)
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
    if !pwc.is_null() && r <= 1 {
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
    if p.is_null() || !single_byte_locale() {
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
    let own = c::op(&mut b, OP_ULT, 8, x, V::K(ASCII_END));
    d.decide(own, u64::from(v) < ASCII_END);
    let want = match v {
        0 => 0,
        v if u64::from(v) < ASCII_END => 1,
        _ => INVALID,
    };
    if r != want || !finish(&mut b, &d) {
        unmodelled(b.s, sn, n, pwc, r);
        return 0;
    }
    if want == INVALID {
        // Nothing was stored; the result is that of the class.
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
/// result's shadow (64 bits); the shadow of the byte stored at `p`.
///
/// # Safety
/// `p` is what the real call wrote (when it returned 1).
#[no_mangle]
pub unsafe extern "C" fn __sym_model_wcrtomb(p: *mut u8, wc: u64, sw: u32, r: u64, site: u32) -> u32 {
    let Some(s) = sym::get() else { return 0 };
    if sw == 0 || p.is_null() || !single_byte_locale() {
        if sw != 0 {
            s.pin(sw, wc & WEOF, c"wcrtomb".as_ptr().cast());
        }
        if !p.is_null() && r == 1 {
            s.clear(p as usize, 1);
        }
        return 0;
    }
    let mut b = B::new(s);
    let mut d = Decisions::new(site);
    let x = value(&mut b, sw, wc, 32);
    let own = c::op(&mut b, OP_ULT, 32, x, V::K(ASCII_END));
    let is_own = (wc & WEOF) < ASCII_END;
    d.decide(own, is_own);
    let want = if is_own { 1 } else { INVALID };
    if r != want || !finish(&mut b, &d) {
        b.s.pin(sw, wc & WEOF, c"wcrtomb".as_ptr().cast());
        if r == 1 {
            b.s.clear(p as usize, 1);
        }
        return 0;
    }
    if is_own {
        let byte = b.node(x, 32);
        let byte = b.s.extract(byte, 0, 8);
        b.s.store(p as usize, byte, 1);
    }
    0
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
    if !single_byte_locale() {
        s.pin(sc, ch & WEOF, why.as_ptr().cast());
        return 0;
    }
    let mut b = B::new(s);
    let mut d = Decisions::new(site);
    let x = value(&mut b, sc, ch, 32);
    let own = c::op(&mut b, OP_ULT, 32, x, V::K(ASCII_END));
    let is_own = (ch & WEOF) < ASCII_END;
    d.decide(own, is_own);
    // Both give the character back when it is its own byte; else `EOF`
    // (-1) and `WEOF`, the same 32 bits.
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
