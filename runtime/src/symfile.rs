//! The input file in a symbolic replay of `main` (`CARVE_SYM_FILE`): bytes
//! the program reads from it get input expressions, one per file position,
//! so a solver can write the file. The symbolic clones call these models
//! right after `read`, `fread`, `getc` and its kin (`__uflow`, which the
//! inlined `getc_unlocked` calls to refill a stream's buffer), `fgets`
//! and `getdelim`. A stream is the input file when its descriptor is that
//! file (device and inode); what a call reads from anything else is
//! concrete, so the shadow of the bytes it wrote is cleared.

use crate::model::op::Op;
use crate::sym::{self, Sym};
use alloc::vec::Vec;
use core::cell::UnsafeCell;

/// Most bytes of a stream's buffer given expressions at a refill.
const MAX_BUFFER: usize = 1 << 16;

struct Input {
    /// Index of the file's first symbolic byte.
    first: u32,
    dev: u64,
    ino: u64,
    /// The input node of each symbolic file position, once made.
    nodes: Vec<u32>,
}

struct Cell(UnsafeCell<Option<Input>>);
// SAFETY: a symbolic replay is one thread.
unsafe impl Sync for Cell {}
static INPUT: Cell = Cell(UnsafeCell::new(None));

fn input() -> Option<&'static mut Input> {
    // SAFETY: single-threaded symbolic replay; no reference is kept.
    unsafe { (*INPUT.0.get()).as_mut() }
}

/// Makes the file `CARVE_SYM_FILE` names (`-`: stdin) the symbolic input,
/// its first `len` bytes numbered from `first`. False when it names none.
pub fn register(first: u32, len: u32) -> bool {
    let Some(name) = crate::sys::getenv(crate::sys::SYM_FILE) else { return false };
    // SAFETY: a zeroed `stat` is valid; fstat/stat fill it.
    let mut st: libc::stat = unsafe { core::mem::zeroed() };
    let ok = if name == b"-" {
        // SAFETY: our own buffer.
        unsafe { libc::fstat(0, &mut st) == 0 }
    } else {
        let mut p = name.to_vec();
        p.push(0);
        // SAFETY: a NUL-terminated path and our own buffer.
        unsafe { libc::stat(p.as_ptr().cast(), &mut st) == 0 }
    };
    if !ok {
        return false;
    }
    let i = Input { first, dev: st.st_dev, ino: st.st_ino, nodes: alloc::vec![0; len as usize] };
    // SAFETY: before the call, single-threaded.
    unsafe { *INPUT.0.get() = Some(i) };
    true
}

/// The symbolic input and shadow, when `fd` reads the input file.
fn reading(fd: i32) -> Option<(&'static mut Input, &'static mut Sym)> {
    let s = sym::get()?;
    let i = input()?;
    // SAFETY: a zeroed `stat` is valid; fstat fills it.
    let mut st: libc::stat = unsafe { core::mem::zeroed() };
    // SAFETY: any descriptor; our own buffer.
    let same = fd >= 0 && unsafe { libc::fstat(fd, &mut st) } == 0 && (st.st_dev, st.st_ino) == (i.dev, i.ino);
    same.then_some((i, s))
}

impl Input {
    /// The expression of the file's byte at `pos` (0 past the symbolic
    /// bytes).
    fn byte(&mut self, s: &mut Sym, pos: i64) -> u32 {
        let Some(slot) = usize::try_from(pos).ok().and_then(|p| self.nodes.get_mut(p)) else { return 0 };
        if *slot == 0 {
            *slot = s.node(Op::Input, 8, 0, 0, 0, u64::from(self.first) + pos as u64);
        }
        *slot
    }

    /// `n` bytes at `addr` hold the file from `pos` on.
    fn mark(&mut self, s: &mut Sym, addr: usize, n: usize, pos: i64) {
        for k in 0..n {
            let b = self.byte(s, pos + k as i64);
            s.set_byte(addr + k, b);
        }
    }
}

fn stream_fd(fp: *mut libc::FILE) -> i32 {
    if fp.is_null() {
        return -1;
    }
    // SAFETY: a stream the program just read from.
    unsafe { libc::fileno(fp) }
}

/// Where the stream stands in its file.
fn tell(fp: *mut libc::FILE) -> i64 {
    // SAFETY: as above.
    unsafe { libc::ftello(fp) }
}

/// Writes of `n` bytes at `addr` from `fd` at file position `end - n`: the
/// file's expressions, or concrete when `fd` is not the input file.
fn wrote(fd: i32, addr: usize, n: usize, end: impl FnOnce() -> i64) {
    if n == 0 {
        return;
    }
    match reading(fd) {
        Some((i, s)) => {
            let end = end();
            i.mark(s, addr, n, end - n as i64);
        }
        None => {
            if let Some(s) = sym::get() {
                s.clear(addr, n);
            }
        }
    }
}

/// After `read(fd, buf, _) == ret`.
#[no_mangle]
pub extern "C" fn __sym_model_read(fd: i32, buf: *mut u8, ret: i64) {
    if ret > 0 {
        // SAFETY: lseek on the descriptor just read.
        wrote(fd, buf as usize, ret as usize, || unsafe { libc::lseek(fd, 0, libc::SEEK_CUR) });
    }
}

/// After `fread(buf, size, _, fp) == ret`.
#[no_mangle]
pub extern "C" fn __sym_model_fread(buf: *mut u8, size: i64, ret: i64, fp: *mut libc::FILE) {
    if size > 0 && ret > 0 {
        wrote(stream_fd(fp), buf as usize, (size * ret) as usize, || tell(fp));
    }
}

/// After `fgets(s, _, fp) == ret`.
#[no_mangle]
pub extern "C" fn __sym_model_fgets(s: *mut u8, ret: *mut u8, fp: *mut libc::FILE) {
    if !ret.is_null() {
        let n = crate::symmodels::strnlen(s as usize, usize::MAX);
        wrote(stream_fd(fp), s as usize, n, || tell(fp));
    }
}

/// After `getdelim(line, _, _, fp) == ret` (`getline` too).
#[no_mangle]
pub extern "C" fn __sym_model_getline(line: *mut *mut u8, ret: i64, fp: *mut libc::FILE) {
    if ret > 0 && !line.is_null() {
        // SAFETY: the buffer pointer getdelim just stored.
        let buf = unsafe { *line };
        wrote(stream_fd(fp), buf as usize, ret as usize, || tell(fp));
    }
}

/// glibc's `FILE`: its read pointer, end and base, after `_flags`.
#[repr(C)]
struct Stream {
    flags: i32,
    read_ptr: *mut u8,
    read_end: *mut u8,
    read_base: *mut u8,
}

/// After a call that reads a character (`ret`, or EOF) from `fp` (null:
/// stdin). `how`: 0 consumed it (`getc`), 1 consumed it and may have
/// refilled the buffer (`__uflow`), 2 peeked at it after a refill
/// (`__underflow`). The character's expression.
#[no_mangle]
pub extern "C" fn __sym_model_getc(fp: *mut libc::FILE, ret: i64, how: i32) -> u32 {
    extern "C" {
        static mut stdin: *mut libc::FILE;
    }
    // SAFETY: libc's variable, read on the program's thread.
    let fp = if fp.is_null() { unsafe { stdin } } else { fp };
    let Some((i, s)) = reading(stream_fd(fp)) else { return 0 };
    let at = tell(fp);
    if how != 0 {
        // SAFETY: the stream's own fields; the buffer is its own memory.
        let st = unsafe { &*(fp as *const Stream) };
        let (base, ptr, end) = (st.read_base as usize, st.read_ptr as usize, st.read_end as usize);
        if base != 0 && base <= ptr && ptr <= end && end - base <= MAX_BUFFER {
            i.mark(s, base, end - base, at - (ptr - base) as i64);
        }
    }
    if ret < 0 {
        return 0;
    }
    let b = i.byte(s, if how == 2 { at } else { at - 1 });
    s.resize(b, 32, false)
}

/// After `ungetc(ch, fp)` returned `ret`, `ch`'s shadow being `sc`: a
/// character pushed back onto the input file where it was read from needs
/// no model (the stream's position moves back, and the next read gives
/// the file's byte there its expression again); any other keeps its
/// value, pinned as an unmodelled call's argument.
#[no_mangle]
pub extern "C" fn __sym_model_ungetc(fp: *mut libc::FILE, ch: i64, sc: u32, ret: i64) {
    if sc == 0 {
        return;
    }
    if ret == ch && ret >= 0 {
        if let Some((i, s)) = reading(stream_fd(fp)) {
            let b = i.byte(s, tell(fp));
            if b != 0 && widened_from(s, sc) == b {
                return;
            }
        }
    }
    if let Some(s) = sym::get() {
        s.pin(sc, ch as u64, c"ungetc".as_ptr().cast());
    }
}

/// The expression `e` extends (zero or sign) to its width, or `e`.
fn widened_from(s: &Sym, mut e: u32) -> u32 {
    while let Some(n) = s.nodes.get(e as usize) {
        if n.op != Op::ZExt && n.op != Op::SExt {
            break;
        }
        e = n.a;
    }
    e
}
