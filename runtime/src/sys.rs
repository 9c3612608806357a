//! Thin, allocation-free wrappers over the few libc calls the runtime makes.

use core::ffi::CStr;

/// `getenv(name)` without allocating; `None` when unset.
pub fn getenv(name: &CStr) -> Option<&'static [u8]> {
    // SAFETY: getenv returns a pointer into the environment or NULL; we
    // read it before main, while no thread can change the environment.
    unsafe {
        let p = libc::getenv(name.as_ptr());
        (!p.is_null()).then(|| CStr::from_ptr(p).to_bytes())
    }
}

/// Parses a decimal non-negative integer.
pub fn parse_int(bytes: &[u8]) -> Option<i64> {
    if bytes.is_empty() || bytes.len() > 18 {
        return None;
    }
    bytes.iter().try_fold(0i64, |acc, b| b.is_ascii_digit().then(|| acc * 10 + i64::from(b - b'0')))
}

/// Writes all of `buf` to `fd`, retrying on EINTR. Returns false on error.
pub fn write_all(fd: i32, mut buf: &[u8]) -> bool {
    while !buf.is_empty() {
        // SAFETY: buf is a valid slice.
        let n = unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) };
        if n < 0 && errno() == libc::EINTR {
            continue;
        }
        if n <= 0 {
            return false;
        }
        buf = &buf[n as usize..];
    }
    true
}

/// Reads exactly `buf.len()` bytes from `fd`. Returns false on EOF/error.
pub fn read_exact(fd: i32, buf: &mut [u8]) -> bool {
    let mut off = 0;
    while off < buf.len() {
        // SAFETY: the range is inside buf.
        let n = unsafe { libc::read(fd, buf[off..].as_mut_ptr().cast(), buf.len() - off) };
        if n < 0 && errno() == libc::EINTR {
            continue;
        }
        if n <= 0 {
            return false;
        }
        off += n as usize;
    }
    true
}

pub fn errno() -> i32 {
    // SAFETY: the thread's errno location is always valid.
    unsafe { *libc::__errno_location() }
}

/// A message on stderr when `CARVE_RT_DEBUG=1`.
pub fn debug(msg: &str) {
    if getenv(RT_DEBUG) == Some(b"1") {
        write_all(2, b"carve-rt: ");
        write_all(2, msg.as_bytes());
        write_all(2, b"\n");
    }
}

/// Whether a C-string literal spells a shared name (checked at compile time,
/// so the runtime's literals cannot drift from `model`).
pub const fn spells(c: &CStr, name: &str) -> bool {
    let (a, b) = (c.to_bytes(), name.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The variables the runtime reads, as C strings.
pub const SHM_ID: &CStr = c"CARVE_SHM_ID";
pub const FORKSRV: &CStr = c"CARVE_FORKSRV";
pub const DEFER: &CStr = c"CARVE_DEFER";
pub const PERSISTENT: &CStr = c"CARVE_PERSISTENT";
pub const RT_DEBUG: &CStr = c"CARVE_RT_DEBUG";
pub const ARGS_FILE: &CStr = c"CARVE_ARGS_FILE";
pub const ARGS_IN_INPUT: &CStr = c"CARVE_ARGS_IN_INPUT";
pub const RUN_AS: &CStr = c"CARVE_RUN_AS";
/// The coverage map AFL++ gives a target it starts (`afl-fuzz`,
/// `afl-showmap`, `afl-tmin`); also the string `afl-fuzz` looks for in a
/// binary before it accepts it as instrumented.
pub const AFL_SHM_ID: &CStr = c"__AFL_SHM_ID";
const _: () = assert!(spells(RUN_AS, crate::model::env::RUN_AS));
const _: () = assert!(spells(ARGS_FILE, crate::model::env::ARGS_FILE));
const _: () = assert!(spells(ARGS_IN_INPUT, crate::model::env::ARGS_IN_INPUT));
const _: () = assert!(spells(SHM_ID, crate::model::env::SHM_ID));
const _: () = assert!(spells(FORKSRV, crate::model::env::FORKSRV));
const _: () = assert!(spells(DEFER, crate::model::env::DEFER));
const _: () = assert!(spells(PERSISTENT, crate::model::env::PERSISTENT));
const _: () = assert!(spells(RT_DEBUG, crate::model::env::RT_DEBUG));

pub const CARVE_DIR: &CStr = c"CARVE_CARVE_DIR";
pub const CARVE_FUNCS: &CStr = c"CARVE_CARVE_FUNCS";
pub const CARVE_MAX: &CStr = c"CARVE_CARVE_MAX";
pub const CARVE_BYTES: &CStr = c"CARVE_CARVE_BYTES";
pub const REPLAY: &CStr = c"CARVE_REPLAY";
pub const REPLAY_OUT: &CStr = c"CARVE_REPLAY_OUT";
pub const REPLAY_PATCH: &CStr = c"CARVE_REPLAY_PATCH";
pub const SYM_IN: &CStr = c"CARVE_SYM_IN";
pub const SYM_OUT: &CStr = c"CARVE_SYM_OUT";
pub const SYM_FILE: &CStr = c"CARVE_SYM_FILE";
pub const LIST: &CStr = c"CARVE_LIST";
pub const STACK_OUT: &CStr = c"CARVE_STACK_OUT";
const _: () = assert!(spells(STACK_OUT, crate::model::env::STACK_OUT));
const _: () = assert!(spells(CARVE_DIR, crate::model::env::CARVE_DIR));
const _: () = assert!(spells(CARVE_FUNCS, crate::model::env::CARVE_FUNCS));
const _: () = assert!(spells(CARVE_MAX, crate::model::env::CARVE_MAX));
const _: () = assert!(spells(CARVE_BYTES, crate::model::env::CARVE_BYTES));
const _: () = assert!(spells(REPLAY, crate::model::env::REPLAY));
const _: () = assert!(spells(REPLAY_OUT, crate::model::env::REPLAY_OUT));
const _: () = assert!(spells(REPLAY_PATCH, crate::model::env::REPLAY_PATCH));
const _: () = assert!(spells(SYM_IN, crate::model::env::SYM_IN));
const _: () = assert!(spells(SYM_OUT, crate::model::env::SYM_OUT));
const _: () = assert!(spells(SYM_FILE, crate::model::env::SYM_FILE));
const _: () = assert!(spells(LIST, crate::model::env::LIST));

/// Appends `bytes` as lowercase hex, two digits a byte.
pub fn push_hex(out: &mut alloc::vec::Vec<u8>, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for b in bytes {
        out.push(DIGITS[(b >> 4) as usize]);
        out.push(DIGITS[(b & 15) as usize]);
    }
}

/// Appends `n` in decimal.
pub fn push_decimal(out: &mut alloc::vec::Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

/// Copies `buf.len()` bytes from `addr` of this process without faulting
/// (false when any of them is unmapped).
pub fn read_memory(addr: usize, buf: &mut [u8]) -> bool {
    if buf.is_empty() {
        return true;
    }
    let local = libc::iovec { iov_base: buf.as_mut_ptr().cast(), iov_len: buf.len() };
    let remote = libc::iovec { iov_base: addr as *mut libc::c_void, iov_len: buf.len() };
    // SAFETY: the kernel checks the remote range; the local one is ours.
    let n = unsafe { libc::process_vm_readv(libc::getpid(), &local, 1, &remote, 1, 0) };
    n == buf.len() as isize
}

/// A whole file (given by a path without NUL), or `None`.
pub fn read_file(path: &[u8]) -> Option<alloc::vec::Vec<u8>> {
    let mut p = path.to_vec();
    p.push(0);
    // SAFETY: a NUL-terminated path; our own descriptor.
    unsafe {
        let fd = libc::open(p.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return None;
        }
        let mut out = alloc::vec::Vec::new();
        let mut chunk = [0u8; 65536];
        loop {
            let n = libc::read(fd, chunk.as_mut_ptr().cast(), chunk.len());
            if n < 0 && errno() == libc::EINTR {
                continue;
            }
            if n <= 0 {
                libc::close(fd);
                return (n == 0).then_some(out);
            }
            out.extend_from_slice(&chunk[..n as usize]);
        }
    }
}

/// Writes a whole file (path without NUL); false on error.
pub fn write_file(path: &[u8], bytes: &[u8]) -> bool {
    let mut p = path.to_vec();
    p.push(0);
    // SAFETY: a NUL-terminated path; our own descriptor.
    unsafe {
        let fd = libc::open(p.as_ptr().cast(), libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_CLOEXEC, 0o644);
        if fd < 0 {
            return false;
        }
        let ok = write_all(fd, bytes);
        libc::close(fd);
        ok
    }
}

/// A message on stderr, always.
pub fn complain(msg: &[u8]) {
    // The tests check what is refused by its result; a million refused
    // inputs need not be told.
    if cfg!(test) {
        return;
    }
    write_all(2, b"carve-rt: ");
    write_all(2, msg);
    write_all(2, b"\n");
}

/// The address ranges `[start, end)` that the loaded objects keep
/// read-only: segments loaded without write permission, and the parts
/// made read-only once the loader relocated them (`PT_GNU_RELRO`: constant
/// tables of pointers, in a position-independent object).
pub fn readonly_ranges() -> alloc::vec::Vec<(usize, usize)> {
    unsafe extern "C" fn each(info: *mut libc::dl_phdr_info, _: usize, out: *mut libc::c_void) -> libc::c_int {
        // SAFETY: the loader passes a valid record; `out` is our vector.
        let (info, out) = unsafe { (&*info, &mut *out.cast::<alloc::vec::Vec<(usize, usize)>>()) };
        for k in 0..info.dlpi_phnum as usize {
            // SAFETY: `dlpi_phnum` headers follow `dlpi_phdr`.
            let ph = unsafe { &*info.dlpi_phdr.add(k) };
            let ro = match ph.p_type {
                libc::PT_LOAD => ph.p_flags & libc::PF_W == 0,
                libc::PT_GNU_RELRO => true,
                _ => false,
            };
            if ro && ph.p_memsz > 0 {
                let start = info.dlpi_addr as usize + ph.p_vaddr as usize;
                out.push((start, start + ph.p_memsz as usize));
            }
        }
        0
    }
    let mut out = alloc::vec::Vec::new();
    // SAFETY: the callback only reads the records and pushes to `out`.
    unsafe { libc::dl_iterate_phdr(Some(each), (&mut out as *mut alloc::vec::Vec<(usize, usize)>).cast()) };
    out
}

/// Copies `src` to `dst` without calling `memcpy`: in a program built with
/// AddressSanitizer, `memcpy` is ASan's, which checks the program's memory
/// as the program's own accesses are checked; the runtime restoring a
/// context is no access of the program's.
///
/// # Safety
/// `dst` is valid for `src.len()` bytes.
pub unsafe fn copy_unchecked(dst: *mut u8, src: &[u8]) {
    for (k, &b) in src.iter().enumerate() {
        // SAFETY: within `dst`'s `src.len()` bytes; volatile, so the loop
        // is not turned back into a `memcpy` call.
        unsafe { core::ptr::write_volatile(dst.add(k), b) };
    }
}

/// Whether the `bytes.len()` bytes at `p` equal `bytes`, without calling
/// `bcmp` (see [`copy_unchecked`]).
///
/// # Safety
/// `p` is valid for `bytes.len()` bytes.
pub unsafe fn equal_unchecked(p: *const u8, bytes: &[u8]) -> bool {
    // SAFETY: within `p`'s `bytes.len()` bytes.
    bytes.iter().enumerate().all(|(k, &b)| unsafe { core::ptr::read_volatile(p.add(k)) } == b)
}

/// Whether the program carries AddressSanitizer (its runtime's entry point
/// is in the process), asked of the loader once.
pub fn has_asan() -> bool {
    use core::sync::atomic::{AtomicU8, Ordering};
    static ASAN: AtomicU8 = AtomicU8::new(0);
    match ASAN.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => {
            // SAFETY: dlsym with a NUL-terminated name.
            let found = !unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"__asan_init".as_ptr()) }.is_null();
            ASAN.store(if found { 2 } else { 1 }, Ordering::Relaxed);
            found
        }
    }
}

/// Whether `addr` lies in the main program's loaded segments (not in a
/// shared library): the loader lists the program first.
pub fn in_main_program(addr: usize) -> bool {
    unsafe extern "C" fn first(info: *mut libc::dl_phdr_info, _: usize, out: *mut libc::c_void) -> libc::c_int {
        // SAFETY: the loader passes a valid record; `out` is our pair.
        let (info, out) = unsafe { (&*info, &mut *out.cast::<(usize, bool)>()) };
        for k in 0..info.dlpi_phnum as usize {
            // SAFETY: `dlpi_phnum` headers follow `dlpi_phdr`.
            let ph = unsafe { &*info.dlpi_phdr.add(k) };
            let start = info.dlpi_addr as usize + ph.p_vaddr as usize;
            if ph.p_type == libc::PT_LOAD && (start..start + ph.p_memsz as usize).contains(&out.0) {
                out.1 = true;
            }
        }
        1 // the first object only
    }
    let mut found = (addr, false);
    // SAFETY: the callback reads the first record and writes our pair.
    unsafe { libc::dl_iterate_phdr(Some(first), (&mut found as *mut (usize, bool)).cast()) };
    found.1
}
