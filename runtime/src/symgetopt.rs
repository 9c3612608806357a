//! A model of `getopt`, `getopt_long` and `getopt_long_only` in symbolic
//! replay: the option a call returns, as an if-then-else chain over the
//! symbolic bytes of the argv words it may have read. Each short option of
//! `optstring` is `-c` at the start of a word; each long option is `--`
//! and its shortest unambiguous prefix, when the word's symbolic bytes
//! can hold it. Words the call
//! skipped as non-options come first: any of them could become the option.
//! A chain that disagrees with the real call on the concrete bytes is not
//! used; nor is one for a call in the middle of a cluster (`-ab`).

use crate::model::op::Op;
use crate::sym::{self, Sym};
use crate::symmodels::{byte_expr, strnlen};
use alloc::vec::Vec;
use core::cell::UnsafeCell;
use core::ffi::{c_char, c_int};

/// Most argv words a call's chain looks at.
const MAX_WORDS: usize = 8;
/// Most options (short and long) taken from the tables.
const MAX_OPTIONS: usize = 128;
/// Longest option name considered.
const MAX_NAME: usize = 64;

extern "C" {
    static mut optind: c_int;
}

/// What the call before the real one saw, and whether the last call left
/// its word half read.
#[derive(Default)]
struct Pre {
    argv: usize,
    argc: usize,
    words: Vec<usize>,
    in_cluster: bool,
}

struct Cell(UnsafeCell<Option<Pre>>);
// SAFETY: a symbolic replay is one thread.
unsafe impl Sync for Cell {}
static PRE: Cell = Cell(UnsafeCell::new(None));

fn pre() -> &'static mut Pre {
    // SAFETY: single-threaded symbolic replay; no reference is kept.
    unsafe { (*PRE.0.get()).get_or_insert_with(Pre::default) }
}

/// Before the real call: the words from `optind` on (the call may permute
/// them).
///
/// # Safety
/// `argv` holds `argc` pointers, as the program passes them to `getopt`.
#[no_mangle]
pub unsafe extern "C" fn __sym_model_getopt_pre(argc: i32, argv: *const *const c_char) {
    if sym::get().is_none() || argv.is_null() {
        return;
    }
    let p = pre();
    // SAFETY: libc's variable, read on the program's thread.
    let mut first = unsafe { optind } as usize;
    if first == 0 {
        // A restart: getopt begins again at word 1.
        first = 1;
        p.in_cluster = false;
    }
    let argc = argc.max(0) as usize;
    p.argv = argv as usize;
    p.argc = argc;
    // SAFETY: the words `argv` holds, by the caller's contract.
    p.words = (first..argc.min(first + MAX_WORDS)).map(|k| unsafe { *argv.add(k) } as usize).collect();
    p.words.retain(|&w| w != 0);
}

/// One option: the bytes the word must hold and the value returned.
struct Opt {
    text: Vec<u8>,
    /// `=` may end the word's option part (a long option taking a value).
    equals: bool,
    value: i64,
}

impl Opt {
    /// `-c`: it holds at the start of a word, whatever follows (a cluster,
    /// an attached value).
    fn short(&self) -> bool {
        self.text.len() == 2 && self.text[1] != b'-'
    }
}

/// After the real call returned `ret`: its shadow (0 when the model does
/// not apply).
///
/// # Safety
/// `optstring` is a C string; `longopts` is null or a `struct option`
/// array ending in a null name, as the program passes them to `getopt_long`.
#[no_mangle]
pub unsafe extern "C" fn __sym_model_getopt(optstring: *const c_char, longopts: *const LongOption, ret: i64) -> u32 {
    let Some(s) = sym::get() else { return 0 };
    let p = pre();
    let skipped_cluster = p.in_cluster;
    let words = core::mem::take(&mut p.words);
    // An option word: `-x...`; `-` alone is a file name.
    // SAFETY: argv words are C strings.
    let is_option = |w: usize| unsafe { *(w as *const u8) == b'-' && *((w + 1) as *const u8) != 0 };
    let processed = words.iter().position(|&w| is_option(w));
    // This call left its word half read if `optind` still points at it.
    // SAFETY: libc's variable; `argv` holds `argc` words.
    let now = unsafe { optind } as usize;
    p.in_cluster = ret != -1
        && now < p.argc
        && processed.is_some_and(|k| unsafe { *(p.argv as *const usize).add(now) } == words[k]);
    if skipped_cluster || optstring.is_null() {
        return 0;
    }
    // SAFETY: the caller's contract.
    let spec = unsafe { core::ffi::CStr::from_ptr(optstring) }.to_bytes();
    let (posix, spec) = match spec.first() {
        Some(b'-') => return 0, // in-order mode: non-options are returned as 1
        Some(b'+') => (true, &spec[1..]),
        _ => (false, spec),
    };
    let candidates = match (posix, processed) {
        (true, _) => &words[..words.len().min(1)],
        (false, Some(k)) => &words[..=k],
        (false, None) => &words[..],
    };
    // A word's room: its symbolic bytes (a string parameter may grow past
    // its NUL into them), else its length.
    let lens: Vec<usize> = candidates
        .iter()
        .map(|&w| {
            let run = (0..MAX_NAME + 3).take_while(|&i| s.byte(w + i) != 0).count();
            run.max(strnlen(w, MAX_NAME + 3))
        })
        .collect();
    if !candidates.iter().zip(&lens).any(|(&w, &n)| (0..n).any(|i| s.byte(w + i) != 0)) {
        return 0;
    }
    // SAFETY: the caller's contract.
    let opts = options(spec, unsafe { long_options(longopts) });
    // The concrete check: the first option a word holds is what the call returned.
    for (&w, &n) in candidates.iter().zip(&lens) {
        // SAFETY: `n` bytes of a C string, and its NUL.
        let bytes = unsafe { core::slice::from_raw_parts(w as *const u8, n + 1) };
        if let Some(o) = opts.iter().find(|o| holds(o, bytes)) {
            if o.value != ret {
                return 0;
            }
            break;
        }
    }
    let mut acc = s.constant(ret as u64, 32);
    for (&w, &n) in candidates.iter().zip(&lens).rev() {
        for o in opts.iter().rev().filter(|o| o.text.len() <= n) {
            let c = condition(s, o, w, n);
            let v = s.constant(o.value as u64, 32);
            acc = s.node(Op::Ite, 32, c, v, acc, 0);
            if acc == 0 {
                return 0;
            }
        }
    }
    acc
}

/// Whether the concrete word (with its NUL) holds the option.
fn holds(o: &Opt, bytes: &[u8]) -> bool {
    let n = o.text.len();
    bytes.len() > n && bytes[..n] == o.text[..] && (o.short() || bytes[n] == 0 || (o.equals && bytes[n] == b'='))
}

/// The word at `w` (`n` bytes) holds the option.
fn condition(s: &mut Sym, o: &Opt, w: usize, n: usize) -> u32 {
    let mut c = 0;
    let mut and = |s: &mut Sym, e: u32| {
        c = if c == 0 { e } else { s.node(Op::And, 1, c, e, 0, 0) };
    };
    for (i, &b) in o.text.iter().enumerate() {
        let (x, k) = (byte_expr(s, w + i), s.constant(u64::from(b), 8));
        let e = s.node(Op::Eq, 1, x, k, 0, 0);
        and(s, e);
    }
    if !o.short() && o.text.len() < n {
        let x = byte_expr(s, w + o.text.len());
        let nul = s.constant(0, 8);
        let mut e = s.node(Op::Eq, 1, x, nul, 0, 0);
        if o.equals {
            let eq = s.constant(u64::from(b'='), 8);
            let f = s.node(Op::Eq, 1, x, eq, 0, 0);
            e = s.node(Op::Or, 1, e, f, 0, 0);
        }
        and(s, e);
    }
    c
}

/// `struct option` of `<getopt.h>`.
#[repr(C)]
pub struct LongOption {
    name: *const c_char,
    has_arg: c_int,
    flag: *mut c_int,
    val: c_int,
}

/// (name, takes a value, value returned) of each long option.
unsafe fn long_options(longopts: *const LongOption) -> Vec<(&'static [u8], bool, i64)> {
    let mut out = Vec::new();
    if longopts.is_null() {
        return out;
    }
    for k in 0..MAX_OPTIONS {
        // SAFETY: the array ends with a null name, by the caller's contract.
        let o = unsafe { &*longopts.add(k) };
        if o.name.is_null() {
            break;
        }
        // SAFETY: option names are C strings.
        let name = unsafe { core::ffi::CStr::from_ptr(o.name) }.to_bytes();
        if !name.is_empty() && name.len() <= MAX_NAME {
            let value = if o.flag.is_null() { i64::from(o.val) } else { 0 };
            out.push((name, o.has_arg != 0, value));
        }
    }
    out
}

/// The options: `-c` for each short one, then `--` and each long name's
/// shortest prefix no other name shares (the whole name if it is a
/// prefix of another: an exact match wins).
fn options(spec: &[u8], longs: Vec<(&[u8], bool, i64)>) -> Vec<Opt> {
    let mut out: Vec<Opt> = spec
        .iter()
        .filter(|&&c| c != b':' && c != b'-' && c != b';' && c != 0)
        .take(MAX_OPTIONS)
        .map(|&c| Opt { text: alloc::vec![b'-', c], equals: false, value: i64::from(c) })
        .collect();
    for (i, &(name, equals, value)) in longs.iter().enumerate() {
        let unique = |k: usize| longs.iter().enumerate().all(|(j, o)| j == i || !o.0.starts_with(&name[..k]));
        let k = (1..=name.len()).find(|&k| unique(k)).unwrap_or(name.len());
        let mut text = alloc::vec![b'-', b'-'];
        text.extend_from_slice(&name[..k]);
        out.push(Opt { text, equals, value });
    }
    out
}
