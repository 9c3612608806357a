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

    /// Heap object `base` of `size` bytes in place of the objects it
    /// overlaps, which are stale. A `fresh` block (just allocated) replaces
    /// whatever overlaps it: freed blocks' parts (a record libc kept there)
    /// outlive them in the map. A record libc filled anew replaces the heap
    /// objects it overlaps (the parts of the last call's record, the
    /// buffer libc parses into), and is no object where it lies inside an
    /// object of another kind (a global, a stack object, argv).
    pub fn insert_heap(&mut self, base: usize, size: usize, fresh: bool) {
        use crate::model::snapshot::{NO_GLOBAL, OBJ_HEAP};
        let before = self.map.range(..=base).next_back().map(|(_, o)| *o);
        if let Some(o) = before.filter(|o| base < o.base + o.size.max(1)) {
            if o.kind != OBJ_HEAP && !fresh {
                return;
            }
            self.map.remove(&o.base);
        }
        // (Usually nothing: no allocation on the allocator's path.)
        let end = base.saturating_add(size);
        let mut from = base;
        while let Some(b) = self.map.range(from..end).find(|(_, o)| fresh || o.kind == OBJ_HEAP).map(|(&b, _)| b) {
            self.map.remove(&b);
            from = b + 1;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::snapshot::{NO_GLOBAL, OBJ_GLOBAL, OBJ_HEAP, OBJ_STREAM};

    #[test]
    fn a_fresh_block_replaces_what_it_overlaps_and_a_record_only_heap_objects() {
        let mut o = Objects::default();
        // libc's line buffer, split by a passwd record's strings.
        o.insert(0x1000, 0x100, OBJ_HEAP, NO_GLOBAL);
        o.insert_heap(0x1000, 5, false);
        o.insert_heap(0x1010, 8, false);
        assert_eq!(o.find(0x1012).map(|x| (x.base, x.size)), Some((0x1010, 8)));
        assert!(o.find(0x1050).is_none(), "the buffer gave way to its parts");
        // The buffer freed (only its base goes), a fresh block there: the
        // stale string inside it goes too.
        o.remove(0x1000);
        o.insert_heap(0x1000, 0x40, true);
        assert_eq!(o.find(0x1012).map(|x| (x.base, x.size)), Some((0x1000, 0x40)));
        // A record is no object inside a global; a fresh block replaces a
        // stale stream.
        o.insert(0x2000, 0x100, OBJ_GLOBAL, 3);
        o.insert_heap(0x2010, 8, false);
        assert_eq!(o.find(0x2010).map(|x| (x.base, x.kind)), Some((0x2000, OBJ_GLOBAL)));
        o.insert(0x3000, 216, OBJ_STREAM, NO_GLOBAL);
        o.insert_heap(0x3000, 32, true);
        assert_eq!(o.find(0x3000).map(|x| (x.size, x.kind)), Some((32, OBJ_HEAP)));
    }
}
