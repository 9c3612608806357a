//! Weak definitions of the malloc family that forward to glibc's
//! `__libc_*` functions and, while carving or replaying, register every block: they
//! interpose for the whole process, so blocks libc allocates for itself
//! (compiled regexes, stream buffers, `getline` lines) have bounds too. A
//! program that defines its own allocator keeps it (these are weak).

use crate::state;
use core::ffi::c_void;

extern "C" {
    pub(crate) fn __libc_malloc(size: usize) -> *mut c_void;
    pub(crate) fn __libc_calloc(n: usize, size: usize) -> *mut c_void;
    pub(crate) fn __libc_realloc(p: *mut c_void, size: usize) -> *mut c_void;
    pub(crate) fn __libc_free(p: *mut c_void);
    pub(crate) fn __libc_memalign(align: usize, size: usize) -> *mut c_void;
}

fn added(p: *mut c_void, size: usize) -> *mut c_void {
    // A fresh block holds nothing symbolic (its shadow may be a freed
    // block's).
    if !p.is_null() {
        if let Some(s) = crate::sym::get() {
            s.clear(p as usize, size);
        }
    }
    if !p.is_null() && state::registers() {
        state::with(|st| st.objects.insert_heap(p as usize, size, true));
    }
    p
}

fn removed(p: *mut c_void) {
    if !p.is_null() && state::registers() {
        state::with(|st| st.objects.remove(p as usize));
    }
}

// The public names are weak aliases of the functions below.
core::arch::global_asm!(
    ".weak malloc",
    ".set malloc, __carve_malloc",
    ".weak calloc",
    ".set calloc, __carve_calloc",
    ".weak realloc",
    ".set realloc, __carve_realloc",
    ".weak free",
    ".set free, __carve_free",
    ".weak memalign",
    ".set memalign, __carve_memalign",
    ".weak aligned_alloc",
    ".set aligned_alloc, __carve_aligned_alloc",
    ".weak posix_memalign",
    ".set posix_memalign, __carve_posix_memalign",
);

/// # Safety
/// As `malloc(3)`.
#[no_mangle]
pub unsafe extern "C" fn __carve_malloc(size: usize) -> *mut c_void {
    added(__libc_malloc(size), size)
}

/// # Safety
/// As `calloc(3)`.
#[no_mangle]
pub unsafe extern "C" fn __carve_calloc(n: usize, size: usize) -> *mut c_void {
    added(__libc_calloc(n, size), n.saturating_mul(size))
}

/// # Safety
/// As `realloc(3)`.
#[no_mangle]
pub unsafe extern "C" fn __carve_realloc(p: *mut c_void, size: usize) -> *mut c_void {
    let q = __libc_realloc(p, size);
    if !q.is_null() || size == 0 {
        removed(p);
    }
    added(q, size)
}

/// # Safety
/// As `free(3)`.
#[no_mangle]
pub unsafe extern "C" fn __carve_free(p: *mut c_void) {
    removed(p);
    __libc_free(p)
}

/// # Safety
/// As `memalign(3)`.
#[no_mangle]
pub unsafe extern "C" fn __carve_memalign(align: usize, size: usize) -> *mut c_void {
    added(__libc_memalign(align, size), size)
}

/// # Safety
/// As `aligned_alloc(3)`.
#[no_mangle]
pub unsafe extern "C" fn __carve_aligned_alloc(align: usize, size: usize) -> *mut c_void {
    added(__libc_memalign(align, size), size)
}

/// # Safety
/// As `posix_memalign(3)`.
#[no_mangle]
pub unsafe extern "C" fn __carve_posix_memalign(out: *mut *mut c_void, align: usize, size: usize) -> i32 {
    if !align.is_power_of_two() || !align.is_multiple_of(core::mem::size_of::<usize>()) {
        return libc::EINVAL;
    }
    let p = __libc_memalign(align, size);
    if p.is_null() {
        return libc::ENOMEM;
    }
    *out = added(p, size);
    0
}
