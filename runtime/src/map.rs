//! The coverage map: attached on first use (the shared-memory segment named
//! by `CARVE_SHM_ID`, or the private dummy map), and the placement of each
//! module's counters in it.

use crate::abi::__carve_dummy_map;
use crate::model::protocol::{ModuleRange, MAX_MODULES};
use crate::model::MAP_SIZE;
use crate::sys;
use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicPtr, AtomicU32, Ordering};

/// Where each module sits (registration happens in constructors, one at a
/// time, before any thread exists).
struct Modules(UnsafeCell<[ModuleRange; MAX_MODULES]>);
// SAFETY: written only by constructors, read only by the fork server.
unsafe impl Sync for Modules {}
static MODULES: Modules = Modules(UnsafeCell::new([ModuleRange { base: 0, functions: 0, edges: 0 }; MAX_MODULES]));
static MODULE_COUNT: AtomicU32 = AtomicU32::new(0);

static MAP: AtomicPtr<u8> = AtomicPtr::new(core::ptr::null_mut());
static NEXT: AtomicU32 = AtomicU32::new(0);
static EDGES: AtomicU32 = AtomicU32::new(0);
static BRANCHES: AtomicU32 = AtomicU32::new(0);

/// The map every module writes to.
pub fn get() -> *mut u8 {
    let p = MAP.load(Ordering::Acquire);
    if !p.is_null() {
        return p;
    }
    let p = attach().unwrap_or_else(|| __carve_dummy_map.0.get().cast());
    MAP.store(p, Ordering::Release);
    p
}

fn attach() -> Option<*mut u8> {
    let id = sys::getenv(sys::SHM_ID)?;
    let Some(id) = sys::parse_int(id) else {
        sys::debug("CARVE_SHM_ID is not a number; using a private map");
        return None;
    };
    // SAFETY: shmat either maps the segment or returns (void*)-1.
    let p = unsafe { libc::shmat(id as i32, core::ptr::null(), 0) };
    if p as isize == -1 {
        sys::debug("cannot attach the shared coverage map; using a private map");
        return None;
    }
    Some(p.cast())
}

/// Reserves `edges` counters for one module and returns where they start.
/// Ranges are handed out in registration order (constructor order, fixed
/// for a given binary); past `MAP_SIZE` they wrap and may collide.
pub fn place_module(edges: u32, branches: u32) -> *mut u8 {
    let edges = edges.min(MAP_SIZE as u32);
    let base = NEXT.fetch_add(edges, Ordering::Relaxed);
    EDGES.fetch_add(edges, Ordering::Relaxed);
    BRANCHES.fetch_add(branches, Ordering::Relaxed);
    let base = if base as usize + edges as usize <= MAP_SIZE {
        base as usize
    } else {
        sys::debug("more edges than the map holds: counters may collide");
        (base as usize) % (MAP_SIZE - edges as usize + 1)
    };
    let k = MODULE_COUNT.load(Ordering::Relaxed) as usize;
    if k < MAX_MODULES {
        let functions = edges.saturating_sub(branches);
        // SAFETY: constructors run one at a time; slot k is unused.
        unsafe { (*MODULES.0.get())[k] = ModuleRange { base: base as u32, functions, edges } };
        MODULE_COUNT.store(k as u32 + 1, Ordering::Relaxed);
    }
    // SAFETY: base + edges <= MAP_SIZE.
    unsafe { get().add(base) }
}

/// Instrumented edges and branch outcomes registered so far.
pub fn totals() -> (u32, u32) {
    (EDGES.load(Ordering::Relaxed), BRANCHES.load(Ordering::Relaxed))
}

/// The modules registered so far.
pub fn modules() -> &'static [ModuleRange] {
    let n = MODULE_COUNT.load(Ordering::Relaxed) as usize;
    // SAFETY: the first n slots are written and no longer change.
    unsafe { core::slice::from_raw_parts(MODULES.0.get().cast::<ModuleRange>(), n) }
}

/// The whole map.
pub fn slice() -> &'static [u8] {
    // SAFETY: the map is MAP_SIZE bytes for the life of the process.
    unsafe { core::slice::from_raw_parts(get(), MAP_SIZE) }
}

/// Zeroes the map.
pub fn clear() {
    // SAFETY: as above.
    unsafe { core::ptr::write_bytes(get(), 0, MAP_SIZE) }
}

/// The map slot `p` (a module's area pointer) stands for.
pub fn slot_of(p: *const u8) -> u32 {
    (p as usize).wrapping_sub(get() as usize) as u32
}
