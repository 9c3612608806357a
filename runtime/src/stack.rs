//! The failing call stack, for a review (`CARVE_STACK_OUT`): when that is
//! set, a crash (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP) or a
//! SIGUSR2 (what `bridge` sends a run that hangs) writes the signal, the
//! faulting instruction and one frame a line to the file, then the signal
//! takes its default action, so the run ends as it would have. Nothing is
//! installed when the variable is unset. Under the fork server the file
//! is opened once, before the first fork: every run that crashes rewrites
//! it from its start, and a run that does not crash costs nothing.
//!
//! The file, a line each:
//! `signal N` (decimal), `pc MODULE HEX` (the interrupted instruction),
//! `func MODULE HEX` (the start of the function it is in, when known: for a
//! hang from the unwind tables, else from the loader's exported symbols),
//! then `frame MODULE HEX` from the innermost frame out (the handler's own
//! frames first) (`MODULE` is `-` for the program itself,
//! else a shared object's path; `HEX` is the offset in that module).

use core::ffi::{c_int, c_void};
use core::sync::atomic::{AtomicUsize, Ordering::Relaxed};

extern "C" {
    fn backtrace(buffer: *mut *mut c_void, size: c_int) -> c_int;
}

/// The descriptor the stack goes to. A fixed number, not a variable: the
/// bug being signed may have overwritten the program's data (a wild
/// `memset` runs through `.bss` until it faults), the runtime's with it.
const FD: c_int = 1017;

const SIGNALS: [c_int; 7] =
    [libc::SIGSEGV, libc::SIGBUS, libc::SIGFPE, libc::SIGILL, libc::SIGABRT, libc::SIGTRAP, libc::SIGUSR2];
const MAX_FRAMES: usize = 64;
const ALT_STACK: usize = 64 << 10;

struct AltStack(core::cell::UnsafeCell<[u8; ALT_STACK]>);
// SAFETY: handed to the kernel once; only signal handlers run on it.
unsafe impl Sync for AltStack {}
static ALT: AltStack = AltStack(core::cell::UnsafeCell::new([0; ALT_STACK]));

/// libgcc's `_Unwind_FindEnclosingFunction`, looked up at install (0: not
/// found), then its complement. It finds the start of any function with
/// unwind tables, static ones included; the loader's `dladdr` knows
/// exported symbols only, and a program exports none of its own. The
/// complement tells it from what a wild write left here (see [`FD`]).
static ENCLOSING: [AtomicUsize; 2] = [AtomicUsize::new(0), AtomicUsize::new(!0)];

/// Load addresses of the instrumented shared libraries (the program's
/// is `program_base`): their frames are the program's own as much as the
/// program's are, and are written `+NAME` rather than `NAME`.
static INSTRUMENTED: [AtomicUsize; 64] = [const { AtomicUsize::new(0) }; 64];

/// Notes the object that holds `table` (a module's function table) as
/// instrumented. Called as each module registers.
pub fn note_module(table: usize) {
    let Some(info) = lookup(table) else { return };
    let base = info.dli_fbase as usize;
    if base == program_base() {
        return;
    }
    for slot in &INSTRUMENTED {
        match slot.compare_exchange(0, base, Relaxed, Relaxed) {
            Ok(_) => return,
            Err(b) if b == base => return,
            Err(_) => {}
        }
    }
}

fn instrumented(base: usize) -> bool {
    INSTRUMENTED.iter().any(|s| s.load(Relaxed) == base)
}

/// Installs the handlers when `CARVE_STACK_OUT` names a file.
pub fn install_if_asked() {
    let Some(path) = crate::sys::getenv(crate::sys::STACK_OUT) else { return };
    let mut p = alloc::vec::Vec::with_capacity(path.len() + 1);
    p.extend_from_slice(path);
    p.push(0);
    // SAFETY: a NUL-terminated path; plain libc calls on our own buffers.
    unsafe {
        let fd = libc::open(p.as_ptr().cast(), libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_CLOEXEC, 0o600);
        if fd < 0 {
            return;
        }
        if fd != FD {
            let moved = libc::dup3(fd, FD, libc::O_CLOEXEC);
            libc::close(fd);
            if moved != FD {
                return;
            }
        }
        // The unwinder loads on its first use: not inside a handler.
        let mut warm = [core::ptr::null_mut(); 2];
        backtrace(warm.as_mut_ptr(), 2);
        let gcc = libc::dlopen(c"libgcc_s.so.1".as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
        if !gcc.is_null() {
            let f = libc::dlsym(gcc, c"_Unwind_FindEnclosingFunction".as_ptr());
            ENCLOSING[0].store(f as usize, Relaxed);
            ENCLOSING[1].store(!(f as usize), Relaxed);
        }
        let ss = libc::stack_t { ss_sp: ALT.0.get().cast(), ss_flags: 0, ss_size: ALT_STACK };
        libc::sigaltstack(&ss, core::ptr::null_mut());
        for sig in SIGNALS {
            let mut sa: libc::sigaction = core::mem::zeroed();
            sa.sa_sigaction = handler as *const () as usize;
            sa.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_RESETHAND | libc::SA_NODEFER;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, core::ptr::null_mut());
        }
    }
}

/// A line buffer on the stack (no allocation in a handler).
struct Line {
    buf: [u8; 4200],
    len: usize,
}

impl Line {
    fn push(&mut self, bytes: &[u8]) {
        let n = bytes.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&bytes[..n]);
        self.len += n;
    }

    fn hex(&mut self, mut v: u64) {
        let mut d = [0u8; 16];
        let mut i = d.len();
        loop {
            i -= 1;
            d[i] = b"0123456789abcdef"[(v & 15) as usize];
            v >>= 4;
            if v == 0 {
                break;
            }
        }
        self.push(&d[i..]);
    }

    fn flush(&mut self, fd: c_int) {
        crate::sys::write_all(fd, &self.buf[..self.len]);
        self.len = 0;
    }
}

/// Load address of the program itself (where this runtime is linked),
/// asked of the loader at each use rather than kept.
fn program_base() -> usize {
    // SAFETY: dladdr only reads the loader's tables.
    let mut info: libc::Dl_info = unsafe { core::mem::zeroed() };
    let found = unsafe { libc::dladdr(program_base as *const c_void, &mut info) } != 0;
    if found {
        info.dli_fbase as usize
    } else {
        0
    }
}

extern "C" fn handler(sig: c_int, _info: *mut libc::siginfo_t, ctx: *mut c_void) {
    let fd = FD;
    // SAFETY: asking whether the descriptor is open.
    if unsafe { libc::fcntl(fd, libc::F_GETFD) } != -1 {
        // The file may hold an earlier run's stack (the fork server's
        // children share it): from its start. Both calls are
        // async-signal-safe.
        // SAFETY: our own descriptor.
        unsafe {
            libc::lseek(fd, 0, libc::SEEK_SET);
            libc::ftruncate(fd, 0);
        }
        let mut l = Line { buf: [0; 4200], len: 0 };
        l.push(b"signal ");
        l.push(&[b'0' + (sig / 10) as u8, b'0' + (sig % 10) as u8]);
        l.push(b"\n");
        let (mut pc, mut sp) = (0usize, 0usize);
        if !ctx.is_null() {
            // SAFETY: the kernel's context of the interrupted code.
            let g = unsafe { &(*(ctx as *const libc::ucontext_t)).uc_mcontext.gregs };
            (pc, sp) = (g[libc::REG_RIP as usize] as usize, g[libc::REG_RSP as usize] as usize);
        }
        let base = program_base();
        let at = if pc == 0 { None } else { lookup(pc) };
        place(&mut l, b"pc ", pc, base);
        // The function it is in (its first instruction): where a hang is
        // is that function, whichever instruction of its loop it was at.
        // Only a hang is signed by it: a crash may follow a wild write.
        let exported = at.map_or(0, |i| i.dli_saddr as usize);
        let start = if pc == 0 || sig != libc::SIGUSR2 { 0 } else { enclosing(pc) };
        if start != 0 || exported != 0 {
            place(&mut l, b"func ", if start != 0 { start } else { exported }, base);
        }
        let mut frames = [core::ptr::null_mut(); MAX_FRAMES];
        // SAFETY: our own array; the unwinder was loaded at install.
        let n = unsafe { backtrace(frames.as_mut_ptr(), MAX_FRAMES as c_int) }.max(0) as usize;
        // The handler's own frames (it, then the signal trampoline) come
        // before the interrupted one.
        let first = frames[..n].iter().position(|&f| f as usize == pc).map_or(2.min(n), |k| k + 1);
        let in_program = |a: usize| lookup(a).is_some_and(|i| i.dli_fbase as usize == base);
        let mut reached = at.is_some_and(|i| i.dli_fbase as usize == base);
        if at.is_some() {
            for &f in &frames[first..n] {
                reached |= in_program(f as usize);
                place(&mut l, b"frame ", f as usize, base);
                l.flush(fd);
            }
        }
        if !reached && sp != 0 && sp % 8 == 0 {
            // A call to nowhere (a null function pointer), or a fault in
            // a leaf routine the unwinder cannot leave (libc's `memset`):
            // the caller's return address is on top of the stack.
            // SAFETY: the interrupted code's stack pointer, just pushed to.
            let ret = unsafe { *(sp as *const usize) };
            if in_program(ret) && after_a_call(ret, base) {
                place(&mut l, b"frame ", ret, base);
            }
        }
        l.flush(fd);
        // SAFETY: closing our own descriptor.
        unsafe { libc::close(fd) };
    }
    // The default action now (SA_RESETHAND): the run ends by this signal.
    // SAFETY: raising a signal on ourselves.
    unsafe { libc::raise(sig) };
}

/// The start of the function the instruction at `pc` is in, from the
/// unwind tables; 0 when unknown.
fn enclosing(pc: usize) -> usize {
    let f = ENCLOSING[0].load(Relaxed);
    if f == 0 || f != !ENCLOSING[1].load(Relaxed) {
        return 0;
    }
    // SAFETY: libgcc's function, found by its name at install; it reads the
    // unwind tables only, as `backtrace` does in this handler.
    let find: unsafe extern "C" fn(*mut c_void) -> *mut c_void = unsafe { core::mem::transmute(f) };
    // It looks up `pc - 1` (it expects a return address); `pc` is the
    // interrupted instruction itself, which may be a function's first.
    unsafe { find((pc + 1) as *mut c_void) as usize }
}

/// Whether `ret`, an address in the program's code, follows a call
/// instruction (`call rel32`, or `call` through a register or memory with
/// a 0-, 1- or 4-byte displacement): a return address, not a word a
/// smashed stack happens to hold.
fn after_a_call(ret: usize, base: usize) -> bool {
    if ret < base + 8 {
        return false;
    }
    // SAFETY: the bytes before an address of the program's own image.
    let b = |k: usize| unsafe { *((ret - k) as *const u8) };
    let call_via = |k: usize| b(k) == 0xff && (b(k - 1) & 0x38) == 0x10;
    b(5) == 0xe8 || call_via(2) || call_via(3) || call_via(6)
}

/// What the loader knows of `addr` (its module, the symbol before it).
fn lookup(addr: usize) -> Option<libc::Dl_info> {
    // SAFETY: dladdr only reads the loader's tables.
    let mut info: libc::Dl_info = unsafe { core::mem::zeroed() };
    (unsafe { libc::dladdr(addr as *const c_void, &mut info) } != 0 && !info.dli_fbase.is_null()).then_some(info)
}

/// `WHAT MODULE OFFSET` of the return (or faulting) address `addr`
/// (`program`: the program's load address, written as `-`; an instrumented
/// library's name is written after a `+`).
fn place(l: &mut Line, what: &[u8], addr: usize, program: usize) {
    l.push(what);
    match lookup(addr) {
        None => {
            l.push(b"? ");
            l.hex(addr as u64);
        }
        Some(info) => {
            let base = info.dli_fbase as usize;
            if base == program || info.dli_fname.is_null() {
                l.push(b"-");
            } else {
                if instrumented(base) {
                    l.push(b"+");
                }
                // SAFETY: the loader's NUL-terminated module name.
                l.push(unsafe { core::ffi::CStr::from_ptr(info.dli_fname) }.to_bytes());
            }
            l.push(b" ");
            l.hex((addr - base) as u64);
        }
    }
    l.push(b"\n");
}
