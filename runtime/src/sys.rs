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
pub const RT_DEBUG: &CStr = c"CARVE_RT_DEBUG";
pub const ARGS_FILE: &CStr = c"CARVE_ARGS_FILE";
pub const RUN_AS: &CStr = c"CARVE_RUN_AS";
const _: () = assert!(spells(RUN_AS, crate::model::env::RUN_AS));
const _: () = assert!(spells(ARGS_FILE, crate::model::env::ARGS_FILE));
const _: () = assert!(spells(SHM_ID, crate::model::env::SHM_ID));
const _: () = assert!(spells(FORKSRV, crate::model::env::FORKSRV));
const _: () = assert!(spells(RT_DEBUG, crate::model::env::RT_DEBUG));
