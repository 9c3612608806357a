//! The format and the arguments of scanf-like calls, for the models of
//! `symscanf.rs`: a conversion's specification and `[...]` set as glibc
//! reads them, the pointer arguments (given one by one, or a copy of a
//! `va_list`), and, after `fscanf` and `scanf`, whose input the model
//! does not see, what they stored made concrete.

use crate::sym::{self, Sym};
use core::cell::UnsafeCell;

/// Most pointer arguments after the format a model follows.
const MAX_ARGS: usize = 32;
/// Longest format walked.
pub const MAX_FORMAT: usize = 1024;

/// The call's pointer arguments: given one by one before the model runs
/// (`__sym_scanf_arg`), or a copy of the `va_list` of `vsscanf`.
pub struct Args {
    ptrs: [usize; MAX_ARGS],
    va: [u64; 3],
    pub from_va: bool,
}

struct Cell(UnsafeCell<Args>);
// SAFETY: a symbolic replay is one thread.
unsafe impl Sync for Cell {}
static ARGS: Cell = Cell(UnsafeCell::new(Args { ptrs: [0; MAX_ARGS], va: [0; 3], from_va: false }));

pub fn args() -> &'static mut Args {
    // SAFETY: single-threaded symbolic replay; no reference is kept.
    unsafe { &mut *ARGS.0.get() }
}

/// Argument `k` after the format of the next modelled call.
#[no_mangle]
pub extern "C" fn __sym_scanf_arg(k: u32, p: *mut u8) {
    if sym::get().is_some() && (k as usize) < MAX_ARGS {
        let a = args();
        a.ptrs[k as usize] = p as usize;
        a.from_va = false;
    }
}

/// Before `vsscanf(_, _, ap)`: a copy of `ap` (x86-64's `va_list`).
///
/// # Safety
/// `ap` is the call's `va_list`.
#[no_mangle]
pub unsafe extern "C" fn __sym_scanf_va(ap: *const u64) {
    if sym::get().is_some() && !ap.is_null() && cfg!(target_arch = "x86_64") {
        let a = args();
        // SAFETY: a va_list is 24 bytes on x86-64, by the contract.
        a.va = unsafe { [*ap, *ap.add(1), *ap.add(2)] };
        a.from_va = true;
    }
}

/// The pointer arguments in order.
pub struct Next {
    pub k: usize,
    pub n: usize,
}

impl Next {
    pub fn take(&mut self) -> Option<usize> {
        let a = args();
        if a.from_va {
            // gp_offset, then the overflow area and the register save area.
            let gp = (a.va[0] & 0xffff_ffff) as usize;
            let p = if gp < 48 {
                a.va[0] = (a.va[0] & !0xffff_ffff) | (gp as u64 + 8);
                (a.va[2] as usize) + gp
            } else {
                let p = a.va[1] as usize;
                a.va[1] += 8;
                p
            };
            // SAFETY: the argument the call itself took from the list.
            return Some(unsafe { *(p as *const usize) });
        }
        let p = (self.k < self.n.min(MAX_ARGS)).then(|| a.ptrs[self.k]);
        self.k += 1;
        p
    }
}

/// Reads a byte of the format.
pub fn fb(fmt: usize, f: usize) -> u8 {
    // SAFETY: the format is a C string and `f` never passes its NUL.
    unsafe { *((fmt + f) as *const u8) }
}

/// A `[...]` set from `f` (after the `[`): the table, `^`, and where the
/// format goes on; `None` when the set does not close.
pub fn parse_set(fmt: usize, mut f: usize) -> Option<([bool; 256], bool, usize)> {
    let mut table = [false; 256];
    let not_in = fb(fmt, f) == b'^';
    if not_in {
        f += 1;
    }
    let first = fb(fmt, f);
    if first == b']' || first == b'-' {
        table[first as usize] = true;
        f += 1;
    }
    loop {
        let c = fb(fmt, f);
        f += 1;
        if c == 0 {
            return None;
        }
        if c == b']' {
            return Some((table, not_in, f));
        }
        let next = fb(fmt, f);
        if c == b'-' && next != 0 && next != b']' && fb(fmt, f - 2) <= next {
            for k in fb(fmt, f - 2)..next {
                table[k as usize] = true;
            }
        } else {
            table[c as usize] = true;
        }
    }
}

/// A conversion: its length modifier as the bytes of its integer (and of
/// its float, `fsize`), whether it reads wide characters (`l`) or
/// allocates (`m`).
pub struct Spec {
    pub suppress: bool,
    pub width: i64,
    pub size: usize,
    pub fsize: usize,
    pub wide: bool,
    pub alloc: bool,
    pub conv: u8,
    pub next: usize,
}

pub fn parse_spec(fmt: usize, mut f: usize) -> Option<Spec> {
    let mut suppress = false;
    loop {
        match fb(fmt, f) {
            b'*' => suppress = true,
            b'\'' | b'I' => {}
            _ => break,
        }
        f += 1;
    }
    let mut width: i64 = 0;
    while fb(fmt, f).is_ascii_digit() {
        width = (width * 10 + i64::from(fb(fmt, f) - b'0')).min(1 << 30);
        f += 1;
    }
    if fb(fmt, f) == b'$' {
        return None; // positional arguments
    }
    if width == 0 {
        width = -1;
    }
    let (mut size, mut fsize, mut wide, mut alloc) = (4, 4, false, false);
    loop {
        match fb(fmt, f) {
            b'h' if size == 2 => size = 1,
            b'h' => size = 2,
            b'l' => {
                wide = size != 8;
                fsize = if wide { 8 } else { 16 };
                size = 8;
            }
            b'L' | b'q' => (size, fsize) = (8, 16),
            b'j' | b'z' | b't' => size = 8,
            b'm' => alloc = true,
            _ => break,
        }
        f += 1;
    }
    let conv = fb(fmt, f);
    Some(Spec { suppress, width, size, fsize, wide, alloc, conv, next: f + 1 })
}

/// After `fscanf`/`scanf(fmt, ...) == ret` (arguments as for
/// `__sym_model_sscanf`): what the first `ret` conversions stored is
/// concrete.
///
/// # Safety
/// As for `__sym_model_sscanf`.
#[no_mangle]
pub unsafe extern "C" fn __sym_model_fscanf(fmt: *const u8, ret: i64, nargs: u32) {
    let Some(s) = sym::get() else { return };
    if !fmt.is_null() && ret > 0 && (nargs != u32::MAX || args().from_va) {
        clear_outputs(s, fmt as usize, ret as i32, nargs);
    }
    args().from_va = false;
}

/// The destinations of the first `ret` storing conversions of `fmt`,
/// their shadows cleared (a string's up to its NUL).
fn clear_outputs(s: &mut Sym, fmt: usize, ret: i32, nargs: u32) {
    let mut next = Next { k: 0, n: nargs as usize };
    let (mut f, mut stored) = (0, 0);
    while stored < ret && f < MAX_FORMAT {
        let fc = fb(fmt, f);
        if fc == 0 {
            return;
        }
        f += 1;
        if fc != b'%' {
            continue;
        }
        let Some(spec) = parse_spec(fmt, f) else { return };
        f = spec.next;
        if spec.conv == b'[' {
            let Some((_, _, g)) = parse_set(fmt, f) else { return };
            f = g;
        }
        if spec.suppress || spec.conv == b'%' {
            continue;
        }
        let Some(dst) = next.take() else { return };
        let n = match spec.conv {
            b'n' => spec.size,
            b'd' | b'i' | b'u' | b'o' | b'x' | b'X' => spec.size,
            b'p' => 8,
            b'e' | b'f' | b'g' | b'a' | b'E' | b'F' | b'G' | b'A' => spec.fsize,
            b'c' if !spec.alloc => {
                (if spec.width < 0 { 1 } else { spec.width as usize }) << (2 * usize::from(spec.wide))
            }
            b's' | b'[' if !spec.alloc && !spec.wide => crate::symmodels::strnlen(dst, 1 << 16) + 1,
            _ => 0,
        };
        s.clear(dst, n);
        if spec.conv != b'n' {
            stored += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(fmt: &[u8]) -> Option<Spec> {
        parse_spec(fmt.as_ptr() as usize, 0)
    }

    fn set(fmt: &[u8]) -> Option<(alloc::vec::Vec<u8>, bool, usize)> {
        let (table, not_in, next) = parse_set(fmt.as_ptr() as usize, 0)?;
        Some(((0..=255u8).filter(|&c| table[c as usize]).collect(), not_in, next))
    }

    #[test]
    fn conversions_read_their_flags_width_and_length() {
        let s = spec(b"*15s\0").unwrap();
        assert_eq!((s.suppress, s.width, s.conv, s.next), (true, 15, b's', 4));
        let s = spec(b"lld\0").unwrap();
        assert_eq!((s.size, s.wide, s.conv), (8, false, b'd'));
        let s = spec(b"hhx\0").unwrap();
        assert_eq!((s.size, s.width), (1, -1));
        let s = spec(b"ls\0").unwrap();
        assert!(s.wide && s.size == 8);
        let s = spec(b"mc\0").unwrap();
        assert!(s.alloc && s.conv == b'c');
        assert!(spec(b"2$d\0").is_none(), "positional arguments are not modelled");
    }

    #[test]
    fn sets_take_ranges_a_leading_bracket_and_a_trailing_dash() {
        assert_eq!(set(b"a-c]x\0"), Some((b"abc".to_vec(), false, 4)));
        assert_eq!(set(b"^]a]\0"), Some((b"]a".to_vec(), true, 4)));
        assert_eq!(set(b"0-9-]\0"), Some((b"-0123456789".to_vec(), false, 5)));
        assert_eq!(set(b"z-a]\0"), Some((b"-az".to_vec(), false, 4)));
        assert_eq!(set(b"abc\0"), None, "a set that does not close");
    }
}
