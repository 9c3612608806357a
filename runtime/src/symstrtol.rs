//! A model of `strtol` and its family (`strtoul`, `strtoll`, `strtoull`,
//! `strtoimax`, `strtoumax`, `atoi`, `atol`, `atoll`), every base: blanks,
//! sign, the `0x` prefix of bases 0 and 16, the octal `0` of base 0, then
//! the digits. The value is the digits' expression; each decision on a
//! symbolic byte (a blank, the sign, the prefix, each digit and the byte
//! that ends them) is a branch at the call's site, so a solution keeps the
//! number's shape or changes it on purpose. `*endptr` is concrete.

use crate::model::op::Op;
use crate::sym;
use crate::symchars::{self as c, Decisions, Str, Text};
use crate::symfold::{B, V};

/// Whether any number of `n` digits of `base` fits the call's type
/// (exact: no overflow to saturate).
pub fn fits(base: u32, n: usize, signed: bool) -> bool {
    let mut pow: u128 = 1;
    for _ in 0..n {
        pow = pow.saturating_mul(u128::from(base));
    }
    pow <= if signed { 1 << 63 } else { 1 << 64 }
}

/// The digits of `base` from position `at`: their value (64 bits, wrapping),
/// how many, and where they end. `width` bounds how many are read (scanf).
pub fn digits(
    b: &mut B,
    d: &mut Decisions,
    t: &mut impl Text,
    mut at: usize,
    base: u32,
    width: usize,
) -> (V, usize, usize) {
    let mut acc = V::K(0);
    let mut n = 0;
    while n < width {
        let ch = t.at(b, at);
        let ok = c::is_digit(b, ch.x, base);
        let is = ch.c.is_some_and(|v| (v as char).is_digit(base));
        if !d.decide(ok, is) {
            break;
        }
        let v = c::digit(b, ch.x, base);
        let m = c::op(b, Op::Mul, 64, acc, V::K(u64::from(base)));
        acc = c::op(b, Op::Add, 64, m, v);
        n += 1;
        at += 1;
    }
    (acc, n, at)
}

/// `v` negated when `neg`.
pub fn signed(b: &mut B, v: V, neg: bool) -> V {
    if neg {
        c::op(b, Op::Sub, 64, V::K(0), v)
    } else {
        v
    }
}

/// glibc's `strtol` on `t` in `base`: the value (exact unless it may
/// overflow) and the length it took (0: no number); `None` for a base
/// the call rejects.
pub fn strtol(b: &mut B, d: &mut Decisions, t: &mut impl Text, base: u32, signed_: bool) -> Option<(V, bool, usize)> {
    if base == 1 || base > 36 {
        return None;
    }
    let mut i = 0;
    loop {
        let ch = t.at(b, i);
        let sp = c::is_space(b, ch.x);
        if !d.decide(sp, ch.c.is_some_and(c::space)) {
            break;
        }
        i += 1;
    }
    let ch = t.at(b, i);
    let minus = b.eq(ch.x, u64::from(b'-'));
    let plus = b.eq(ch.x, u64::from(b'+'));
    let sign = b.or(minus, plus);
    if let Some(r) = sign_or_digit(b, d, t, i, base, signed_, (minus, plus, sign)) {
        return Some(r);
    }
    let mut neg = false;
    if d.decide(sign, matches!(ch.c, Some(b'-' | b'+'))) {
        neg = d.decide(minus, ch.c == Some(b'-'));
        i += 1;
    }
    let mut base = base;
    let mut x_at = None;
    if base == 0 || base == 16 {
        let ch = t.at(b, i);
        let zero = b.eq(ch.x, u64::from(b'0'));
        if d.decide(zero, ch.c == Some(b'0')) {
            let next = t.at(b, i + 1);
            let l = c::op(b, Op::Or, 8, next.x, V::K(0x20));
            let x = b.eq(l, u64::from(b'x'));
            if d.decide(x, matches!(next.c, Some(b'x' | b'X'))) {
                base = 16;
                x_at = Some(i + 1);
                i += 2;
            } else if base == 0 {
                base = 8;
            }
        } else if base == 0 {
            base = 10;
        }
    }
    let (acc, n, end) = digits(b, d, t, i, base, usize::MAX);
    if n == 0 {
        // No digits: 0, and the end is the `x` of a bare `0x`, else the start.
        return Some((V::K(0), true, x_at.unwrap_or(0)));
    }
    Some((signed(b, acc, neg), fits(base, n, signed_), end))
}

/// A number whose first byte (at `i`) is a digit followed by another
/// digit, in a base with no prefix to decide: that first byte may also be
/// a sign, the value being `-rest`, `rest` or the whole digits as it is.
/// One decision holds the three, so a solution can flip a number's sign
/// (`-0…` for `00…`, as the padded numbers of `carver::grow` hold) along
/// with its digits, where a decision of its own would take a generation
/// per sign, and a second sign met at the same site would look covered.
fn sign_or_digit(
    b: &mut B,
    d: &mut Decisions,
    t: &mut impl Text,
    i: usize,
    base: u32,
    signed_: bool,
    (minus, plus, sign): (V, V, V),
) -> Option<(V, bool, usize)> {
    let is = |c: Option<u8>| c.is_some_and(|v| (v as char).is_digit(base));
    let first = t.at(b, i);
    if base == 0 || base == 16 || !is(first.c) || !is(t.at(b, i + 1).c) {
        return None;
    }
    let lead = c::is_digit(b, first.x, base);
    let either = b.or(sign, lead);
    d.decide(either, true);
    let (rest, n, end) = digits(b, d, t, i + 1, base, usize::MAX);
    let scale = (0..n).fold(1u64, |p, _| p.wrapping_mul(u64::from(base)));
    let top = c::digit(b, first.x, base);
    let top = c::op(b, Op::Mul, 64, top, V::K(scale));
    let whole = c::op(b, Op::Add, 64, top, rest);
    let negated = signed(b, rest, true);
    let v = b.ite(plus, rest, whole, 64);
    let v = b.ite(minus, negated, v, 64);
    Some((v, fits(base, n + 1, signed_), end))
}

/// After `strtol(p, endptr, base)` and its family (`flags` bit 0: the
/// call is signed; `width`: its result's bits): the result's shadow.
///
/// # Safety
/// `p` is the string the real call read; `endptr` is null or where it
/// stored the end.
#[no_mangle]
pub unsafe extern "C" fn __sym_model_strtol(
    p: *const u8,
    endptr: *mut *mut u8,
    base: i64,
    site: u32,
    width: u32,
    flags: u32,
) -> u32 {
    let Some(s) = sym::get() else { return 0 };
    if !endptr.is_null() {
        s.clear(endptr as usize, 8);
    }
    if p.is_null() || !(0..=36).contains(&base) {
        return 0;
    }
    let mut b = B::new(s);
    let mut d = Decisions::new(site);
    let Some((v, exact, len)) = strtol(&mut b, &mut d, &mut Str(p as usize), base as u32, flags & 1 != 0) else {
        return 0;
    };
    // SAFETY: where the real call stored the end, by the contract.
    let agrees = endptr.is_null() || unsafe { *endptr } as usize == p as usize + len;
    if b.full || d.wrong || !agrees {
        return 0;
    }
    d.commit(b.s);
    match v {
        V::S(n) if exact => b.s.resize(n, width, false),
        _ => 0,
    }
}
