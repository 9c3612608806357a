//! The coverage map: attached on first use (the shared-memory segment named
//! by `CARVE_SHM_ID`, else the one AFL++ names by `__AFL_SHM_ID`, else the
//! private dummy map), and the placement of each module's counters in it.

use crate::abi::__carve_dummy_map;
use crate::model::protocol::{ModuleRange, MAX_MODULES};
use crate::model::{MAP_SIZE, MAP_TAIL};
use crate::sys;
use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, Ordering};

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
static FROM_AFL: AtomicBool = AtomicBool::new(false);
/// The bridge's segment has room past the map to announce late modules in.
static TAIL: AtomicBool = AtomicBool::new(false);
/// The fork server is serving: a module placed now is a late one.
static SERVING: AtomicBool = AtomicBool::new(false);

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
    if let Some(id) = sys::getenv(sys::SHM_ID) {
        let Some(id) = sys::parse_int(id) else {
            sys::debug("CARVE_SHM_ID is not a number; using a private map");
            return None;
        };
        let p = attach_whole(id as i32)?;
        TAIL.store(segment_size(id as i32).is_some_and(|n| n >= MAP_SIZE + MAP_TAIL), Ordering::Relaxed);
        return Some(p);
    }
    let id = sys::getenv(sys::AFL_SHM_ID)?;
    let Some(id) = sys::parse_int(id) else {
        sys::debug("__AFL_SHM_ID is not a number; using a private map");
        return None;
    };
    let p = attach_afl(id as i32)?;
    FROM_AFL.store(true, Ordering::Relaxed);
    Some(p)
}

/// A segment of at least `MAP_SIZE` bytes (the bridge makes it so).
fn attach_whole(id: i32) -> Option<*mut u8> {
    // SAFETY: shmat either maps the segment or returns (void*)-1.
    let p = unsafe { libc::shmat(id, core::ptr::null(), 0) };
    if p as isize == -1 {
        sys::debug("cannot attach the shared coverage map; using a private map");
        return None;
    }
    Some(p.cast())
}

/// The size of segment `id`.
fn segment_size(id: i32) -> Option<usize> {
    // SAFETY: IPC_STAT fills `ds` or fails.
    let mut ds: libc::shmid_ds = unsafe { core::mem::zeroed() };
    (unsafe { libc::shmctl(id, libc::IPC_STAT, &mut ds) } == 0).then_some(ds.shm_segsz)
}

/// AFL++'s segment, which may be smaller than `MAP_SIZE` (its first start
/// uses 64 KiB, or `AFL_MAP_SIZE`, then the size the hello announces):
/// the segment is laid over the start of a private `MAP_SIZE` area, so
/// counters past its end count in private memory instead of faulting.
fn attach_afl(id: i32) -> Option<*mut u8> {
    let Some(size) = segment_size(id) else {
        sys::debug("cannot read the size of AFL++'s coverage map; using a private map");
        return None;
    };
    if size >= MAP_SIZE {
        return attach_whole(id);
    }
    // SAFETY: a fresh private mapping; the segment then replaces its first
    // pages (SHM_REMAP), page-aligned as shmat needs.
    unsafe {
        let area = libc::mmap(
            core::ptr::null_mut(),
            MAP_SIZE,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if area == libc::MAP_FAILED {
            return None;
        }
        let p = libc::shmat(id, area, libc::SHM_REMAP);
        if p as isize == -1 {
            sys::debug("cannot attach AFL++'s coverage map; using a private map");
            libc::munmap(area, MAP_SIZE);
            return None;
        }
        Some(p.cast())
    }
}

/// True when the map is AFL++'s.
pub fn from_afl() -> bool {
    FROM_AFL.load(Ordering::Relaxed)
}

/// The bytes of the map the registered modules' counters occupy.
pub fn used() -> u32 {
    modules().iter().map(|m| m.base + m.edges).max().unwrap_or(0)
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
    let map = get();
    if SERVING.load(Ordering::Relaxed) && TAIL.load(Ordering::Relaxed) {
        // A late module (loaded by a run): the bridge reads only the part
        // of the map the hello's modules use until told where this one ends.
        let next = NEXT.load(Ordering::Relaxed) as usize;
        let end = if next > MAP_SIZE { MAP_SIZE } else { next.max(base + edges as usize) };
        // SAFETY: the segment holds MAP_TAIL bytes past the map (TAIL).
        unsafe { map.add(MAP_SIZE).cast::<u32>().write_volatile(end as u32) };
    }
    // SAFETY: base + edges <= MAP_SIZE.
    unsafe { map.add(base) }
}

/// The fork server starts serving: modules placed from now on are late.
pub fn serving() {
    SERVING.store(true, Ordering::Relaxed);
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
