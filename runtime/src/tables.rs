//! What the instrumented modules registered: their functions (address,
//! name, replay trampoline) and their globals (address, size, name, dirty
//! mark), with the ids the snapshots use: a function's id is the map slot
//! of its entry counter; a global's id is its position in registration
//! order. Both are fixed for a given binary.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::ffi::{c_char, CStr};

/// `{ ptr fn, ptr name, ptr tramp }`, as the pass lays it out.
#[repr(C)]
pub struct FuncEntry {
    pub addr: *const u8,
    pub name: *const c_char,
    pub tramp: *const u8,
}

/// `{ ptr addr, i64 size, ptr name }`.
#[repr(C)]
pub struct GlobalEntry {
    pub addr: *mut u8,
    pub size: u64,
    pub name: *const c_char,
}

pub struct Module {
    /// Map slot of the module's first counter (= id of its first function).
    pub base: u32,
    pub funcs: &'static [FuncEntry],
    /// Id of the module's first global.
    pub first_global: u32,
    pub globals: &'static [GlobalEntry],
    pub dirty: *mut u8,
}

#[derive(Default)]
pub struct Tables {
    pub modules: Vec<Module>,
    globals: u32,
    by_addr: BTreeMap<usize, u32>,
}

impl Tables {
    /// # Safety
    /// The tables are the pass's constant arrays of `n` entries, or null.
    pub unsafe fn register(
        &mut self,
        base: u32,
        funcs: *const FuncEntry,
        nfuncs: u32,
        globals: *const GlobalEntry,
        nglobals: u32,
        dirty: *mut u8,
    ) -> &Module {
        let funcs = if funcs.is_null() { &[][..] } else { core::slice::from_raw_parts(funcs, nfuncs as usize) };
        let globals = if globals.is_null() { &[][..] } else { core::slice::from_raw_parts(globals, nglobals as usize) };
        self.by_addr.clear();
        self.modules.push(Module { base, funcs, first_global: self.globals, globals, dirty });
        self.globals += nglobals;
        self.modules.last().expect("just pushed")
    }

    pub fn function(&self, id: u32) -> Option<&FuncEntry> {
        self.modules.iter().find_map(|m| id.checked_sub(m.base).and_then(|k| m.funcs.get(k as usize)))
    }

    /// The id of the function at `addr`, if it is an instrumented one. The
    /// index is built on first use (carving), not at every start.
    pub fn function_at(&mut self, addr: usize) -> Option<u32> {
        if self.by_addr.is_empty() {
            for m in &self.modules {
                for (k, f) in m.funcs.iter().enumerate() {
                    self.by_addr.insert(f.addr as usize, m.base + k as u32);
                }
            }
        }
        self.by_addr.get(&addr).copied()
    }

    pub fn global(&self, id: u32) -> Option<&GlobalEntry> {
        self.modules.iter().find_map(|m| id.checked_sub(m.first_global).and_then(|j| m.globals.get(j as usize)))
    }

    /// Every function: `(id, name)`.
    pub fn functions(&self) -> impl Iterator<Item = (u32, &CStr)> {
        self.modules.iter().flat_map(|m| {
            m.funcs.iter().enumerate().map(move |(k, f)| {
                // SAFETY: names are the pass's NUL-terminated constants.
                (m.base + k as u32, unsafe { CStr::from_ptr(f.name) })
            })
        })
    }

    /// Ids of the globals whose dirty mark is set.
    pub fn dirty_globals(&self) -> Vec<u32> {
        let mut out = Vec::new();
        for m in &self.modules {
            if m.dirty.is_null() {
                continue;
            }
            for j in 0..m.globals.len() {
                // SAFETY: the dirty array has one byte per global.
                if unsafe { *m.dirty.add(j) } != 0 {
                    out.push(m.first_global + j as u32);
                }
            }
        }
        out
    }
}
