//! The runtime's own allocations go straight to glibc's allocator (the
//! runtime is `no_std`), past the interposed `malloc` of `malloc.rs`: they
//! are never registered as the program's objects.

use crate::malloc::{__libc_free, __libc_malloc, __libc_memalign, __libc_realloc};
use core::alloc::{GlobalAlloc, Layout};

pub struct LibcHeap;

unsafe impl GlobalAlloc for LibcHeap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= 16 {
            __libc_malloc(layout.size()).cast()
        } else {
            __libc_memalign(layout.align(), layout.size()).cast()
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _: Layout) {
        __libc_free(ptr.cast());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= 16 {
            __libc_realloc(ptr.cast(), new_size).cast()
        } else {
            let new = self.alloc(Layout::from_size_align_unchecked(new_size, layout.align()));
            if !new.is_null() {
                core::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
            new
        }
    }
}
