//! A model of `sscanf` and `vsscanf` (glibc's `__isoc99_` forms too): the
//! format is walked as glibc's scanner walks it, on the input's concrete
//! bytes, and every decision it takes on a symbolic byte (a blank skipped,
//! a literal matched, a digit, the byte that ends a token, the input's
//! end) becomes a branch at the call's site. Under those branches the
//! values stored are exact: a number is its digits' expression, a string
//! or `%c` the input bytes' shadows, `%n` and the NULs concrete; the result
//! is an if-then-else chain over each conversion's decisions. A walk that
//! disagrees with the real call records nothing and leaves what it stored
//! concrete. `fscanf` and `scanf` store concrete values
//! (`symscanfmt.rs`).

use crate::model::op::Op;
use crate::sym::{self, Sym};
use crate::symchars::{self as c, Ch, Decisions, Str, Text};
use crate::symfold::{B, V};
use crate::symscanfmt::{args, fb, parse_set, parse_spec, Next, MAX_FORMAT};
use crate::symstrtol::fits;
use alloc::vec::Vec;

/// What a conversion stored.
enum Write {
    /// A number of `size` bytes.
    Num { dst: usize, size: usize, v: V, exact: bool, known: u64 },
    /// Input bytes, then a NUL when `nul`; `alloc`: `dst` holds the
    /// pointer to them (`%ms`).
    Bytes { dst: usize, bytes: Vec<(u8, V)>, nul: bool, alloc: bool },
}

/// glibc's reading of the input: a position, the end once met (it stays).
struct Rd<'t, T: Text> {
    t: &'t mut T,
    pos: usize,
    eof: bool,
    /// Positions whose being the end is decided.
    decided: usize,
}

const END: Ch = Ch { c: None, x: V::K(0), end: V::K(1) };

/// The walk: decisions, the conjunction of those since the last stored
/// conversion, and one such conjunction per stored conversion.
struct Walk<'a, 'b, 't, T: Text> {
    b: &'a mut B<'b>,
    d: Decisions,
    rd: Rd<'t, T>,
    seg: V,
    segs: Vec<V>,
    writes: Vec<Write>,
}

enum Stop {
    Input,
    Match,
}

impl<T: Text> Walk<'_, '_, '_, T> {
    fn dec(&mut self, cond: V, taken: bool) -> bool {
        let held = if taken { cond } else { self.b.not(cond) };
        self.seg = self.b.and(self.seg, held);
        self.d.decide(cond, taken)
    }

    fn inchar(&mut self) -> Ch {
        if self.rd.eof {
            return END;
        }
        let ch = self.rd.t.at(self.b, self.rd.pos);
        if self.rd.pos >= self.rd.decided {
            self.dec(ch.end, ch.c.is_none());
            self.rd.decided = self.rd.pos + 1;
        }
        match ch.c {
            Some(_) => self.rd.pos += 1,
            None => self.rd.eof = true,
        }
        ch
    }

    fn ungetc(&mut self, ch: Ch) {
        if ch.c.is_some() {
            self.rd.pos -= 1;
        }
    }

    fn space(&mut self, ch: Ch) -> bool {
        let sp = c::is_space(self.b, ch.x);
        self.dec(sp, ch.c.is_some_and(c::space))
    }

    /// Blanks before a conversion.
    fn skip_blanks(&mut self) {
        loop {
            let ch = self.inchar();
            if ch.c.is_none() || !self.space(ch) {
                self.ungetc(ch);
                return;
            }
        }
    }

    fn stored(&mut self) {
        let seg = core::mem::replace(&mut self.seg, V::K(1));
        self.segs.push(seg);
    }

    /// `%d`..`%x`, `%p`: after glibc's `number:` label.
    fn number(&mut self, base: u32, signed: bool, width: i64) -> Result<(V, bool), Stop> {
        let mut w = width;
        let mut ch = self.inchar();
        if ch.c.is_none() {
            return Err(Stop::Input);
        }
        let (mut n, mut digits, mut base) = (0, 0, base);
        let minus = self.b.eq(ch.x, u64::from(b'-'));
        let plus = self.b.eq(ch.x, u64::from(b'+'));
        let sign = self.b.or(minus, plus);
        let mut neg = false;
        if self.dec(sign, matches!(ch.c, Some(b'-' | b'+'))) {
            neg = self.dec(minus, ch.c == Some(b'-'));
            n += 1;
            if w > 0 {
                w -= 1;
            }
            ch = self.inchar();
        }
        if w != 0 {
            let zero = self.b.eq(ch.x, u64::from(b'0'));
            if self.dec(zero, ch.c == Some(b'0')) {
                if w > 0 {
                    w -= 1;
                }
                n += 1;
                digits += 1;
                ch = self.inchar();
                let hex = w != 0 && (base == 0 || base == 16) && {
                    let l = c::op(self.b, Op::Or, 8, ch.x, V::K(0x20));
                    let x = self.b.eq(l, u64::from(b'x'));
                    self.dec(x, matches!(ch.c, Some(b'x' | b'X')))
                };
                if hex {
                    base = 16;
                    if w > 0 {
                        w -= 1;
                    }
                    ch = self.inchar();
                } else if base == 0 {
                    base = 8;
                }
            }
        }
        if base == 0 {
            base = 10;
        }
        let mut acc = V::K(0);
        while ch.c.is_some() && w != 0 {
            let ok = c::is_digit(self.b, ch.x, base);
            if !self.dec(ok, ch.c.is_some_and(|v| (v as char).is_digit(base))) {
                break;
            }
            let v = c::digit(self.b, ch.x, base);
            let m = c::op(self.b, Op::Mul, 64, acc, V::K(u64::from(base)));
            acc = c::op(self.b, Op::Add, 64, m, v);
            n += 1;
            digits += 1;
            if w > 0 {
                w -= 1;
            }
            ch = self.inchar();
        }
        self.ungetc(ch);
        if digits == 0 || n == 0 {
            return Err(Stop::Match);
        }
        Ok((crate::symstrtol::signed(self.b, acc, neg), fits(base, digits, signed)))
    }

    /// `%s` (no set), `%[` (`set`, `not_in`): the token's bytes.
    fn token(&mut self, set: Option<(&[bool; 256], bool)>, width: i64) -> Result<Vec<(u8, V)>, Stop> {
        let mut ch = self.inchar();
        if ch.c.is_none() {
            return Err(Stop::Input);
        }
        let mut w = width;
        let mut bytes = Vec::new();
        while let Some(v) = ch.c {
            let stop = match set {
                None => self.space(ch),
                Some((table, not_in)) => {
                    let member = c::in_table(self.b, ch.x, table);
                    self.dec(member, table[v as usize]) == not_in
                }
            };
            if stop {
                self.ungetc(ch);
                break;
            }
            bytes.push((v, ch.x));
            if w > 0 {
                w -= 1;
                if w == 0 {
                    break;
                }
            }
            ch = self.inchar();
        }
        if bytes.is_empty() {
            return Err(Stop::Match);
        }
        Ok(bytes)
    }
}

/// Walks the format over the input: the result the walk predicts, or
/// `None` where the model does not follow glibc (floats, wide strings,
/// positional arguments, too many arguments).
fn walk<T: Text>(w: &mut Walk<'_, '_, '_, T>, fmt: usize, next: &mut Next) -> Option<i64> {
    let (mut f, mut skip_space, mut done) = (0, false, 0i64);
    let stop = loop {
        if f >= MAX_FORMAT {
            return None;
        }
        let fc = fb(fmt, f);
        if fc == 0 {
            break None;
        }
        f += 1;
        if fc != b'%' {
            if c::space(fc) {
                skip_space = true;
                continue;
            }
            let mut ch = w.inchar();
            if ch.c.is_none() {
                break Some(Stop::Input);
            }
            if skip_space {
                while w.space(ch) {
                    ch = w.inchar();
                    if ch.c.is_none() {
                        break;
                    }
                }
                if ch.c.is_none() {
                    break Some(Stop::Input);
                }
                skip_space = false;
            }
            let eq = w.b.eq(ch.x, u64::from(fc));
            if !w.dec(eq, ch.c == Some(fc)) {
                w.ungetc(ch);
                break Some(Stop::Match);
            }
            continue;
        }
        let spec = parse_spec(fmt, f)?;
        f = spec.next;
        if spec.conv == 0 {
            break Some(Stop::Match);
        }
        if skip_space || !matches!(spec.conv, b'[' | b'c' | b'C' | b'n') {
            w.skip_blanks();
            skip_space = false;
        }
        let mut dst = || if spec.suppress { Some(0) } else { next.take() };
        match spec.conv {
            b'%' => {
                let ch = w.inchar();
                if ch.c.is_none() {
                    break Some(Stop::Input);
                }
                let eq = w.b.eq(ch.x, u64::from(b'%'));
                if !w.dec(eq, ch.c == Some(b'%')) {
                    w.ungetc(ch);
                    break Some(Stop::Match);
                }
            }
            b'n' => {
                let dst = dst()?;
                if !spec.suppress {
                    let k = w.rd.pos as u64;
                    w.writes.push(Write::Num { dst, size: spec.size, v: V::K(k), exact: true, known: k });
                }
            }
            b'd' | b'i' | b'u' | b'o' | b'x' | b'X' | b'p' => {
                let (base, signed) = match spec.conv {
                    b'd' => (10, true),
                    b'i' => (0, true),
                    b'u' => (10, false),
                    b'o' => (8, false),
                    _ => (16, false),
                };
                let size = if spec.conv == b'p' { 8 } else { spec.size };
                match w.number(base, signed, spec.width) {
                    Err(e) => break Some(e),
                    Ok((v, exact)) => {
                        let dst = dst()?;
                        if !spec.suppress {
                            let known = if let V::K(k) = v { k } else { 0 };
                            w.writes.push(Write::Num { dst, size, v, exact, known });
                            done += 1;
                            w.stored();
                        }
                    }
                }
            }
            b'c' | b's' | b'[' if !spec.wide => {
                let set = if spec.conv == b'[' {
                    let Some((table, not_in, g)) = parse_set(fmt, f) else { break Some(Stop::Match) };
                    f = g;
                    Some((table, not_in))
                } else {
                    None
                };
                let bytes = if spec.conv == b'c' {
                    let width = if spec.width < 0 { 1 } else { spec.width };
                    let mut ch = w.inchar();
                    if ch.c.is_none() {
                        break Some(Stop::Input);
                    }
                    let mut bytes = Vec::new();
                    while let Some(v) = ch.c {
                        bytes.push((v, ch.x));
                        if bytes.len() as i64 >= width {
                            break;
                        }
                        ch = w.inchar();
                    }
                    bytes
                } else {
                    match w.token(set.as_ref().map(|(t, n)| (t, *n)), spec.width) {
                        Ok(b) => b,
                        Err(e) => break Some(e),
                    }
                };
                let dst = dst()?;
                if !spec.suppress {
                    w.writes.push(Write::Bytes { dst, bytes, nul: spec.conv != b'c', alloc: spec.alloc });
                    done += 1;
                    w.stored();
                }
            }
            _ => return None,
        }
    };
    Some(match stop {
        Some(Stop::Input) if done == 0 => -1,
        _ => done,
    })
}

/// Whether what the walk says was stored is in memory (a number known
/// to the model, a string's bytes).
fn stored_as_walked(writes: &[Write]) -> bool {
    writes.iter().all(|wr| match *wr {
        // SAFETY: the real call stored `size` bytes there.
        Write::Num { dst, size, v: V::K(_), known, .. } => {
            let mut got = [0u8; 8];
            unsafe { core::ptr::copy_nonoverlapping(dst as *const u8, got.as_mut_ptr(), size) };
            let m = if size >= 8 { u64::MAX } else { (1 << (8 * size)) - 1 };
            u64::from_le_bytes(got) & m == known & m
        }
        Write::Num { .. } => true,
        Write::Bytes { alloc: true, .. } => true,
        // SAFETY: the real call stored the token there.
        Write::Bytes { dst, ref bytes, nul, .. } => {
            bytes.iter().enumerate().all(|(k, &(v, _))| unsafe { *((dst + k) as *const u8) } == v)
                && (!nul || unsafe { *((dst + bytes.len()) as *const u8) } == 0)
        }
    })
}

/// Gives what the call stored its shadows (`exact`), or makes it concrete.
fn apply(s: &mut Sym, writes: &[Write], exact: bool) {
    for wr in writes {
        match *wr {
            Write::Num { dst, size, v, exact: fits, .. } => match v {
                V::S(n) if exact && fits => {
                    let e = s.resize(n, 8 * size as u32, false);
                    s.store(dst, e, size);
                }
                _ => s.clear(dst, size),
            },
            Write::Bytes { dst, ref bytes, nul, alloc } => {
                // SAFETY: `%m`: the call stored the buffer's address there.
                let dst = if alloc { unsafe { *(dst as *const usize) } } else { dst };
                for (k, &(_, x)) in bytes.iter().enumerate() {
                    let e = match x {
                        V::S(n) if exact => n,
                        _ => 0,
                    };
                    s.set_byte(dst + k, e);
                }
                if nul {
                    s.clear(dst + bytes.len(), 1);
                }
            }
        }
    }
}

/// The model over any input: the result's shadow.
fn model<T: Text>(s: &mut Sym, t: &mut T, site: u32, fmt: usize, ret: i64, nargs: u32) -> u32 {
    let mut b = B::new(s);
    let rd = Rd { t, pos: 0, eof: false, decided: 0 };
    let mut w = Walk { b: &mut b, d: Decisions::new(site), rd, seg: V::K(1), segs: Vec::new(), writes: Vec::new() };
    let mut next = Next { k: 0, n: nargs as usize };
    let predicted = walk(&mut w, fmt, &mut next);
    let Walk { d, segs, writes, .. } = w;
    let agrees = predicted == Some(ret) && !d.wrong && stored_as_walked(&writes);
    if !agrees || b.full {
        apply(b.s, &writes, false);
        return 0;
    }
    let mut r = V::K(ret as u64 & 0xffff_ffff);
    for (k, &seg) in segs.iter().enumerate().rev() {
        r = b.ite(seg, r, V::K(k as u64), 32);
    }
    if b.full {
        apply(b.s, &writes, false);
        return 0;
    }
    d.commit(b.s);
    apply(b.s, &writes, true);
    match r {
        V::S(n) => n,
        V::K(_) => 0,
    }
}

/// After `sscanf(str, fmt, ...) == ret` (`nargs` pointers given by
/// `__sym_scanf_arg`), or `vsscanf` (`nargs` is `u32::MAX`: the
/// `va_list` copied by `__sym_scanf_va`). The result's shadow.
///
/// # Safety
/// `str` and `fmt` are the call's strings; the arguments are the call's.
#[no_mangle]
pub unsafe extern "C" fn __sym_model_sscanf(site: u32, str: *const u8, fmt: *const u8, ret: i64, nargs: u32) -> u32 {
    let Some(s) = sym::get() else { return 0 };
    if str.is_null() || fmt.is_null() || (nargs == u32::MAX && !args().from_va) {
        return 0;
    }
    let r = model(s, &mut Str(str as usize), site, fmt as usize, ret as i32 as i64, nargs);
    args().from_va = false;
    r
}
