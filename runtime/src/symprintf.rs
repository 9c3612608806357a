//! A model of the `sprintf` family for formats of literal text around one
//! `%s` (`snprintf(name, sizeof name, "%s", word)`, `"%s.txt"`): the bytes
//! the call wrote at `dst` are the literal text, concrete, and the string
//! argument's bytes with their expressions, so a name copied this way stays
//! tied to the input it came from. With any other conversion the bytes
//! written are concrete (their integer arguments were pinned before the
//! call).

use crate::sym;
use crate::symmodels::{strnlen, MAX_SPAN};

/// After `sprintf(dst, fmt, arg, ...)` (or `snprintf` with a buffer of `n`
/// bytes; `n < 0`: no bound) returned `ret`. `arg`: the first argument
/// after the format when it is a pointer, else null.
#[no_mangle]
pub extern "C" fn __sym_model_sprintf(dst: *mut u8, n: i64, fmt: *const u8, arg: *const u8, ret: i64) {
    let Some(s) = sym::get() else { return };
    if dst.is_null() || fmt.is_null() || ret < 0 || n == 0 {
        return;
    }
    let written = if n > 0 { ret.min(n - 1) } else { ret } as usize;
    let dst = dst as usize;
    let flen = strnlen(fmt as usize, MAX_SPAN);
    // SAFETY: the format the call just read, `flen` bytes before its NUL.
    let f = unsafe { core::slice::from_raw_parts(fmt, flen) };
    let (mut at, mut k, mut string_done) = (0usize, 0usize, false);
    while k < f.len() && at < written {
        match (f[k], f.get(k + 1)) {
            (b'%', Some(b'%')) => {
                s.clear(dst + at, 1);
                at += 1;
                k += 2;
            }
            (b'%', Some(b's')) if !string_done && !arg.is_null() => {
                let len = strnlen(arg as usize, MAX_SPAN).min(written - at);
                s.copy(dst + at, arg as usize, len);
                at += len;
                k += 2;
                string_done = true;
            }
            (b'%', _) => break,
            _ => {
                s.clear(dst + at, 1);
                at += 1;
                k += 1;
            }
        }
    }
    // What was not followed (another conversion), and the NUL.
    s.clear(dst + at, written - at.min(written) + 1);
}
