//! Per-run command lines: with `CARVE_ARGS_FILE` set, each run forked by the
//! fork server replaces `argv[1..]` with the file's NUL-terminated strings
//! (`argv[0]` stays), so one fork server serves tests that carry their own
//! arguments.

use crate::sys;
use core::ffi::{c_char, c_int};

/// Most arguments and bytes a run's command line may have.
const MAX_ARGS: usize = 4096;
const MAX_BYTES: usize = 1 << 20;

/// # Safety
/// `argc`/`argv` point to `main`'s argument slots.
pub unsafe fn replace_if_asked(argc: *mut c_int, argv: *mut *mut *mut c_char) {
    let Some(path) = sys::getenv(sys::ARGS_FILE) else {
        return;
    };
    let Some((buf, len)) = read_file(path.as_ptr().cast(), MAX_BYTES) else {
        sys::debug("cannot read CARVE_ARGS_FILE; keeping the command line");
        return;
    };
    // The buffer and the new argv live as long as the run, like a real argv.
    let bytes = core::slice::from_raw_parts(buf, len);
    let count = bytes.iter().filter(|&&b| b == 0).count().min(MAX_ARGS);
    let table = libc::malloc((count + 2) * core::mem::size_of::<*mut c_char>()) as *mut *mut c_char;
    if table.is_null() {
        return;
    }
    let old = *argv;
    *table = if old.is_null() || *argc < 1 { c"prog".as_ptr() as *mut c_char } else { *old };
    let mut n = 1;
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == 0 && n <= count {
            *table.add(n) = buf.add(start) as *mut c_char;
            n += 1;
            start = i + 1;
        }
    }
    *table.add(n) = core::ptr::null_mut();
    *argc = n as c_int;
    *argv = table;
}

/// Reads a file, at most `max` bytes of it, into a malloc'd buffer,
/// NUL-terminated.
pub(crate) unsafe fn read_file(path: *const c_char, max: usize) -> Option<(*mut u8, usize)> {
    let fd = libc::open(path, libc::O_RDONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return None;
    }
    let mut st: libc::stat = core::mem::zeroed();
    let size = if libc::fstat(fd, &mut st) == 0 { st.st_size as usize } else { 0 };
    let size = size.min(max);
    let buf = libc::malloc(size + 1) as *mut u8;
    if buf.is_null() {
        libc::close(fd);
        return None;
    }
    let ok = sys::read_exact(fd, core::slice::from_raw_parts_mut(buf, size));
    libc::close(fd);
    if !ok {
        libc::free(buf.cast());
        return None;
    }
    *buf.add(size) = 0;
    Some((buf, size))
}
