//! Every `extern "C"` entry point of the runtime. Keep in step with
//! `include/carve_rt.h` and `instrument/src/abi.rs`.

use crate::model::MAP_SIZE;
use crate::{forkserver, map};
use core::cell::UnsafeCell;

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

/// Called first thing in `main`: starts the fork server when `bridge` asked
/// for one (`CARVE_FORKSRV=1`); otherwise returns at once.
#[no_mangle]
pub extern "C" fn __carve_main_entry() {
    forkserver::start_if_asked();
}
