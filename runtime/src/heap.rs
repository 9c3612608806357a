//! The runtime's own allocations go to libc's allocator (the runtime is
//! `no_std`); they are never seen by the program's allocation probes.

use core::alloc::{GlobalAlloc, Layout};

pub struct LibcHeap;

unsafe impl GlobalAlloc for LibcHeap {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.align() <= 16 {
            libc::malloc(layout.size()) as *mut u8
        } else {
            let mut p = core::ptr::null_mut();
            if libc::posix_memalign(&mut p, layout.align(), layout.size()) != 0 {
                return core::ptr::null_mut();
            }
            p as *mut u8
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _: Layout) {
        libc::free(ptr.cast());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= 16 {
            libc::realloc(ptr.cast(), new_size) as *mut u8
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
