//! Every `extern "C"` entry point of the runtime. Keep in step with
//! `include/carve_rt.h` and `instrument/src/abi.rs`.

use crate::model::MAP_SIZE;
use crate::{args, forkserver, map};
use core::cell::UnsafeCell;
use core::ffi::{c_char, c_int};

/// Where counters go before their module registers (and the private map
/// when the target runs without `bridge`).
#[repr(C, align(64))]
pub struct DummyMap(pub(crate) UnsafeCell<[u8; MAP_SIZE]>);
// SAFETY: counters are racy by design, as in AFL; nobody reads them in-process.
unsafe impl Sync for DummyMap {}

#[no_mangle]
pub static __carve_dummy_map: DummyMap = DummyMap(UnsafeCell::new([0; MAP_SIZE]));

/// Registers one instrumented module: `*area` becomes the module's slice of
/// the coverage map, `edges` counters long. Called by each module's
/// constructor, before `main`.
///
/// # Safety
/// `area` must point to the module's `__carve_area` pointer.
#[no_mangle]
pub unsafe extern "C" fn __carve_register_module(area: *mut *mut u8, edges: u32, branches: u32) {
    if area.is_null() {
        return;
    }
    let slice = map::place_module(edges, branches);
    *area = slice;
}

/// Called first thing in `main` with the addresses of `main`'s `argc` and
/// `argv` (null when `main` takes none): starts the fork server when
/// `bridge` asked for one (`CARVE_FORKSRV=1`), and in each forked run
/// replaces the command line when `CARVE_ARGS_FILE` is set. Otherwise
/// returns at once.
///
/// # Safety
/// `argc` and `argv` are null or point to `main`'s argument slots.
#[no_mangle]
pub unsafe extern "C" fn __carve_main_entry(argc: *mut c_int, argv: *mut *mut *mut c_char) {
    forkserver::start_if_asked();
    if !argc.is_null() && !argv.is_null() {
        args::replace_if_asked(argc, argv);
    }
}
