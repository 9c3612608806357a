//! What the instrumented modules registered: their functions (address,
//! name, replay trampoline) and their globals (address, size, name, dirty
//! mark), with the ids the snapshots use: a function's id is the map slot
//! of its entry counter; a global's id is its position in registration
//! order. Both are fixed for a given binary.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::ffi::{c_char, CStr};

/// `{ i32 fn, i32 name, i32 tramp, i32 first_branch, i32 branches, i32
/// sym_tramp, i32 copy, i32 sym }`, as the pass lays it out: offsets
/// from the start of the table (`tramp` 0: none), resolved by the static
/// linker, so loading a program costs no relocation per entry.
#[repr(C)]
pub struct FuncEntry {
    addr: i32,
    name: i32,
    tramp: i32,
    /// The function's branch-outcome ids, local to the module.
    first_branch: i32,
    branches: i32,
    /// The trampoline of its symbolic clone (0: none).
    sym_tramp: i32,
    /// Its out-of-line copy, which carving runs, and that copy's symbolic
    /// clone (0: none).
    copy: i32,
    sym: i32,
}

/// `{ i64 size, i32 addr, i32 name }`, offsets likewise.
#[repr(C)]
pub struct GlobalEntry {
    size: u64,
    addr: i32,
    name: i32,
}

/// A function, resolved.
pub struct Func {
    pub addr: *const u8,
    pub name: *const c_char,
    pub tramp: *const u8,
    /// The trampoline of its symbolic clone (null: none).
    pub sym_tramp: *const u8,
    /// Its out-of-line copy and the copy's symbolic clone (null: none).
    pub copy: *const u8,
    pub sym: *const u8,
    /// Map slots of its branch outcomes: `first..first + branches`.
    pub first_branch: u32,
    pub branches: u32,
}

/// A global, resolved.
pub struct Global {
    pub addr: *mut u8,
    pub size: u64,
}

pub struct Module {
    /// Map slot of the module's first counter (= id of its first function).
    pub base: u32,
    funcs: &'static [FuncEntry],
    /// Id of the module's first global.
    pub first_global: u32,
    globals: &'static [GlobalEntry],
    pub dirty: *mut u8,
    /// While carving: each global's bytes as the module registered (before
    /// any of its code ran), so that one written where no probe sees it
    /// (the optimised code, a constructor, libc on its behalf) is known to
    /// have changed. Empty otherwise.
    baseline: Vec<Vec<u8>>,
}

impl Module {
    fn at(table: *const u8, off: i32) -> *const u8 {
        table.wrapping_offset(off as isize)
    }

    pub fn func(&self, k: usize) -> Option<Func> {
        let e = self.funcs.get(k)?;
        let t = self.funcs.as_ptr().cast::<u8>();
        Some(Func {
            addr: if e.addr == 0 { core::ptr::null() } else { Self::at(t, e.addr) },
            name: Self::at(t, e.name).cast(),
            tramp: if e.tramp == 0 { core::ptr::null() } else { Self::at(t, e.tramp) },
            sym_tramp: if e.sym_tramp == 0 { core::ptr::null() } else { Self::at(t, e.sym_tramp) },
            copy: if e.copy == 0 { core::ptr::null() } else { Self::at(t, e.copy) },
            sym: if e.sym == 0 { core::ptr::null() } else { Self::at(t, e.sym) },
            first_branch: self.base + e.first_branch as u32,
            branches: e.branches as u32,
        })
    }

    pub fn nfuncs(&self) -> usize {
        self.funcs.len()
    }

    pub fn global(&self, j: usize) -> Option<Global> {
        let e = self.globals.get(j)?;
        let t = self.globals.as_ptr().cast::<u8>();
        Some(Global { addr: Self::at(t, e.addr) as *mut u8, size: e.size })
    }

    pub fn nglobals(&self) -> usize {
        self.globals.len()
    }
}

#[derive(Default)]
pub struct Tables {
    pub modules: Vec<Module>,
    globals: u32,
    by_addr: BTreeMap<usize, u32>,
    /// Every global's size by its address, built on first use.
    global_spans: BTreeMap<usize, usize>,
    /// The modules' dictionaries: `(length, bytes)*` blobs, the pass's
    /// constants.
    pub tokens: Vec<&'static [u8]>,
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
        self.global_spans.clear();
        self.modules.push(Module { base, funcs, first_global: self.globals, globals, dirty, baseline: Vec::new() });
        self.globals += nglobals;
        self.modules.last().expect("just pushed")
    }

    pub fn function(&self, id: u32) -> Option<Func> {
        self.modules.iter().find_map(|m| id.checked_sub(m.base).and_then(|k| m.func(k as usize)))
    }

    /// The id of the function at `addr`, if it is an instrumented one. The
    /// index is built on first use (carving), not at every start.
    pub fn function_at(&mut self, addr: usize) -> Option<u32> {
        if self.by_addr.is_empty() {
            for m in &self.modules {
                for k in 0..m.nfuncs() {
                    if let Some(f) = m.func(k).filter(|f| !f.addr.is_null()) {
                        self.by_addr.insert(f.addr as usize, m.base + k as u32);
                    }
                }
            }
        }
        self.by_addr.get(&addr).copied()
    }

    /// The function whose address a function pointer holds, if it is an
    /// instrumented one.
    pub fn function_by_addr(&mut self, addr: usize) -> Option<Func> {
        let id = self.function_at(addr)?;
        self.function(id)
    }

    /// The global `addr` points into: its address and size.
    pub fn global_at(&mut self, addr: usize) -> Option<(usize, usize)> {
        if self.global_spans.is_empty() {
            for m in &self.modules {
                for g in (0..m.nglobals()).filter_map(|j| m.global(j)) {
                    self.global_spans.insert(g.addr as usize, g.size as usize);
                }
            }
        }
        let (&base, &size) = self.global_spans.range(..=addr).next_back()?;
        (addr < base + size).then_some((base, size))
    }

    pub fn global(&self, id: u32) -> Option<Global> {
        self.modules.iter().find_map(|m| id.checked_sub(m.first_global).and_then(|j| m.global(j as usize)))
    }

    /// Every function: `(id, name, its branch slots)`.
    pub fn functions(&self) -> impl Iterator<Item = (u32, &CStr, (u32, u32))> {
        self.modules.iter().flat_map(|m| {
            (0..m.nfuncs()).filter_map(move |k| {
                // SAFETY: names are the pass's NUL-terminated constants.
                m.func(k).map(|f| (m.base + k as u32, unsafe { CStr::from_ptr(f.name) }, (f.first_branch, f.branches)))
            })
        })
    }

    /// Keeps the last registered module's globals as they are now (see
    /// `Module::baseline`); a global larger than `cap` bytes is left out
    /// (it counts as changed only by its dirty mark).
    pub fn keep_baseline(&mut self, cap: usize) {
        let Some(m) = self.modules.last_mut() else { return };
        m.baseline = (0..m.globals.len())
            .map(|j| match m.global(j) {
                // SAFETY: a global of the module, `size` bytes.
                Some(g) if (g.size as usize) <= cap => {
                    unsafe { core::slice::from_raw_parts(g.addr as *const u8, g.size as usize) }.to_vec()
                }
                _ => Vec::new(),
            })
            .collect();
    }

    /// Ids of the globals whose dirty mark is set, or whose bytes differ
    /// from the module's baseline.
    pub fn dirty_globals(&self) -> Vec<u32> {
        let mut out = Vec::new();
        for m in &self.modules {
            for j in 0..m.globals.len() {
                // SAFETY: the dirty array has one byte per global.
                let marked = !m.dirty.is_null() && unsafe { *m.dirty.add(j) } != 0;
                let changed = m.baseline.get(j).filter(|b| !b.is_empty()).is_some_and(|b| {
                    // SAFETY: the global's `size` bytes, as at registration.
                    m.global(j).is_some_and(|g| !unsafe { crate::sys::equal_unchecked(g.addr, b) })
                });
                if marked || changed {
                    out.push(m.first_global + j as u32);
                }
            }
        }
        out
    }
}
