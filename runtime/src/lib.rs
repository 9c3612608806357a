//! The runtime linked into every instrumented target (C ABI, static library).
//!
//! It runs inside someone else's program: it never unwinds (it is a
//! workspace of its own, built with `panic = "abort"`; the tools unwind),
//! never allocates on a probe's path (probes are inline counter increments
//! that do not call in at all), and reads its configuration from the
//! environment once. The C interface is documented in
//! `include/carve_rt.h`; the entry points are in [`abi`]. It is `no_std`:
//! a program that links it pays for no Rust standard library, neither in
//! size nor in start-up time.

#![no_std]

extern crate alloc;
#[cfg(test)]
extern crate std;

pub mod abi;
mod args;
mod carve;
#[cfg(test)]
mod exports;
#[cfg(test)]
mod fuzzing;
#[cfg(not(test))]
mod heap;
mod input_args;
mod malloc;
mod objects;
mod persistent;
mod records;
mod replay;
mod restore;
mod stack;
mod state;
mod sym;
pub mod symabi;
mod symchars;
mod symeval;
mod symfile;
mod symfold;
mod symgetopt;
mod symmodels;
mod symoverflow;
mod symprintf;
mod symptr;
mod symregex;
mod symscanf;
mod symscanfmt;
mod symstr;
mod symstrtok;
mod symstrtol;
mod symtable;
mod symwide;
mod tables;
// The shared names, compiled from `model`'s `core`-only files (the runtime
// cannot depend on the `model` crate, which uses `std`).
#[allow(dead_code)]
#[path = "../../model/src/abi.rs"]
mod model_abi;
#[allow(dead_code)]
#[path = "../../model/src/chars.rs"]
mod model_chars;
#[allow(dead_code)]
#[path = "../../model/src/consts.rs"]
mod model_consts;
#[allow(dead_code)]
#[path = "../../model/src/names.rs"]
mod model_names;
#[allow(dead_code)]
#[path = "../../model/src/op.rs"]
mod model_op;
#[allow(dead_code)]
#[path = "../../model/src/protocol.rs"]
mod model_protocol;
#[allow(dead_code)]
#[path = "../../model/src/snapshot.rs"]
mod model_snapshot;
#[allow(dead_code)]
#[path = "../../model/src/trace.rs"]
mod model_trace;
// `trace.rs` names its siblings as `crate::op` and `crate::snapshot`, as
// in `model`.
use model_op as op;
use model_snapshot as snapshot;
mod model {
    pub(crate) use crate::model_abi as abi;
    pub(crate) use crate::model_chars as chars;
    pub(crate) use crate::model_consts::*;
    pub(crate) use crate::model_names as env;
    pub(crate) use crate::model_op as op;
    pub(crate) use crate::model_protocol as protocol;
    pub(crate) use crate::model_snapshot as snapshot;
    pub(crate) use crate::model_trace as trace;
}
mod forkserver;
mod map;
mod sys;

#[cfg(not(test))]
#[global_allocator]
static HEAP: heap::LibcHeap = heap::LibcHeap;

/// A panic in the runtime aborts the target at once: it must never unwind.
#[cfg(not(test))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    sys::write_all(2, b"carve-rt: internal error\n");
    // SAFETY: abort never returns.
    unsafe { libc::abort() }
}

/// The precompiled `core` refers to an unwinding personality even though the
/// runtime never unwinds (`panic = "abort"`); this one is never called.
#[cfg(not(test))]
#[no_mangle]
pub extern "C" fn rust_eh_personality() {}

/// The precompiled `alloc` refers to `_Unwind_Resume` from landing pads
/// that never run here (panics abort). `carve-clang` links a copy of this
/// library in which that reference is renamed to this stub, so programs do
/// not need libgcc_s for it and C++ programs keep their real unwinder.
#[cfg(not(test))]
#[no_mangle]
pub extern "C" fn __carve_no_unwind() -> ! {
    // SAFETY: abort never returns.
    unsafe { libc::abort() }
}
