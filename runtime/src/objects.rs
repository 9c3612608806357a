//! The allocation map: every object the program has (heap blocks from the
//! allocation probes, stack objects of live frames, globals, argv), so that
//! any pointer, interior ones included, finds its object and bound.

use alloc::collections::BTreeMap;

#[derive(Clone, Copy, Debug)]
pub struct Object {
    pub base: usize,
    pub size: usize,
    pub kind: u8,
    pub global: u32,
}

#[derive(Default)]
pub struct Objects {
    map: BTreeMap<usize, Object>,
}

impl Objects {
    pub fn insert(&mut self, base: usize, size: usize, kind: u8, global: u32) {
        if base == 0 {
            return;
        }
        self.map.insert(base, Object { base, size, kind, global });
    }

    /// Heap object `base` of `size` bytes in place of the heap objects it
    /// overlaps, which are stale: a fresh block where freed ones were
    /// (parts of one, a record libc kept there, outlive it in the map), a
    /// buffer libc fills anew on each call whose parts were other objects
    /// the call before. Nothing is done where `base` lies in an object of
    /// another kind (a global, a stack object, argv).
    pub fn insert_heap(&mut self, base: usize, size: usize) {
        use crate::model::snapshot::{NO_GLOBAL, OBJ_HEAP};
        let before = self.map.range(..=base).next_back().map(|(_, o)| *o);
        if let Some(o) = before.filter(|o| base < o.base + o.size.max(1)) {
            if o.kind != OBJ_HEAP {
                return;
            }
            self.map.remove(&o.base);
        }
        let end = base.saturating_add(size);
        let inside: alloc::vec::Vec<usize> =
            self.map.range(base..end).filter(|(_, o)| o.kind == OBJ_HEAP).map(|(&b, _)| b).collect();
        for b in inside {
            self.map.remove(&b);
        }
        self.insert(base, size, OBJ_HEAP, NO_GLOBAL);
    }

    pub fn remove(&mut self, base: usize) {
        self.map.remove(&base);
    }

    /// The object `addr` points into (one past the end counts for objects
    /// of size 0 only).
    pub fn find(&self, addr: usize) -> Option<Object> {
        let (_, o) = self.map.range(..=addr).next_back()?;
        (addr < o.base + o.size.max(1)).then_some(*o)
    }

    /// The object `addr` points just past (an end pointer, `buf + len`),
    /// when no object holds `addr` itself.
    pub fn ending_at(&self, addr: usize) -> Option<Object> {
        let o = self.find(addr.checked_sub(1)?)?;
        (o.size > 0 && o.base + o.size == addr && self.find(addr).is_none()).then_some(o)
    }
}

impl Objects {
    /// The registered stdio streams.
    pub fn streams(&self) -> impl Iterator<Item = Object> + '_ {
        self.map.values().filter(|o| o.kind == crate::model::snapshot::OBJ_STREAM).copied()
    }
}
