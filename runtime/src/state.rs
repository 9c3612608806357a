//! The runtime's state behind one try-lock: a probe that finds it taken
//! (a signal handler running instrumented code in the middle of a probe,
//! or a second thread) does nothing rather than wait.

use crate::carve::Config;
use crate::objects::Objects;
use crate::tables::Tables;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, AtomicU8, Ordering};

/// Non-zero while calls and allocations are tracked (carving). The pass
/// reads it at every function entry.
#[no_mangle]
pub static __carve_tracking: AtomicU8 = AtomicU8::new(0);

pub fn tracking() -> bool {
    __carve_tracking.load(Ordering::Relaxed) != 0
}

/// Set while a unit replays symbolically: blocks are registered as
/// allocated and freed, as while carving, but no call is carved. A symbolic replay's access
/// checks need every object's bounds, the restored ones
/// ([`crate::restore`]) and those the call allocates.
static REPLAYING: AtomicBool = AtomicBool::new(false);

/// From now on this process replays a unit symbolically (see [`registers`]).
pub fn start_replaying() {
    REPLAYING.store(true, Ordering::Relaxed);
}

/// Whether allocations are registered in the object map: while carving,
/// and while a unit replays symbolically.
pub fn registers() -> bool {
    tracking() || REPLAYING.load(Ordering::Relaxed)
}

/// A live frame of an instrumented function, while tracking.
pub struct Frame {
    /// Its stack objects, removed from the map when it returns.
    pub objects: Vec<usize>,
    /// Set when this call is being carved.
    pub carved: Option<Carved>,
}

/// A call being carved: where its snapshot went and the map at its entry.
pub struct Carved {
    pub fd: i32,
    pub function: u32,
    pub map_at_entry: Vec<u8>,
}

#[derive(Default)]
pub struct State {
    pub tables: Tables,
    pub objects: Objects,
    pub frames: Vec<Frame>,
    pub config: Option<Config>,
    pub carved: BTreeMap<u32, u32>,
    pub seq: u32,
}

struct Cell(UnsafeCell<Option<State>>);
// SAFETY: every access goes through `with`, guarded by BUSY.
unsafe impl Sync for Cell {}
static STATE: Cell = Cell(UnsafeCell::new(None));
static BUSY: AtomicBool = AtomicBool::new(false);

/// Runs `f` on the state unless another probe holds it.
pub fn with<R>(f: impl FnOnce(&mut State) -> R) -> Option<R> {
    if BUSY.swap(true, Ordering::Acquire) {
        return None;
    }
    // SAFETY: BUSY gives exclusive access.
    let st = unsafe { (*STATE.0.get()).get_or_insert_with(State::default) };
    let r = f(st);
    BUSY.store(false, Ordering::Release);
    Some(r)
}

/// The object `p` points into, `(base, size)`: from the object map (what
/// carving tracks), else a global (a replay has the globals).
pub fn object_at(p: usize) -> Option<(usize, usize)> {
    with(|st| st.objects.find(p).map(|o| (o.base, o.size)).or_else(|| st.tables.global_at(p))).flatten()
}
