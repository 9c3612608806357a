//! The symbolic shadow of a unit replay (compile-time concolic execution).
//!
//! The pass clones every function into `F.sym`, whose instructions call
//! the `__sym_*` entry points ([`crate::symabi`]) with their operands'
//! shadows: expression ids, 0 meaning "concrete". Here those expressions
//! are built into a DAG (node ids are indices), memory has a shadow (an
//! expression per byte, by page), and every branch met on symbolic data
//! is recorded. At the end the DAG and the path are written as a trace
//! (`model::trace`); z3 never runs in the target.
//!
//! Bounded: past [`MAX_NODES`] nodes new values are concrete, past
//! [`MAX_PATH`] entries branches are no longer recorded; the trace says so.

use crate::model::op::{mask, Op};
use crate::model::snapshot::header;
use crate::model::trace::*;
use alloc::boxed::Box;
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::cell::UnsafeCell;
use core::sync::atomic::{AtomicBool, Ordering};

pub const MAX_NODES: usize = 1 << 21;
pub const MAX_PATH: usize = 1 << 16;
/// Most parameters passed with shadows.
pub const MAX_PARAMS: usize = 64;
const PAGE_BITS: u32 = 12;
const PAGE: usize = 1 << PAGE_BITS;

pub struct Entry {
    kind: u8,
    site: u32,
    node: u32,
    taken: u64,
    cases: Vec<u64>,
    /// Each direction's coverage-map slot (branches and switches).
    slots: Vec<u32>,
}

/// Longest name of what pinned a value.
const MAX_PIN_NAME: usize = 256;

pub struct Sym {
    pub nodes: Vec<Node>,
    pub path: Vec<Entry>,
    shadow: BTreeMap<usize, Box<[u32; PAGE]>>,
    pub params: [u32; MAX_PARAMS],
    pub ret: u32,
    flags: u32,
    /// Tables [`Op::Table`] nodes read (`TABLE_LEN` entries each).
    tables: Vec<Vec<u64>>,
    /// What pinned values (a pin entry's site is its index here plus one):
    /// the names the probes pass, by address.
    pin_names: Vec<*const u8>,
    /// Access checks recorded, by site (see `symptr::__sym_check_access`).
    pub checks: BTreeMap<u32, u8>,
}

struct Cell(UnsafeCell<Option<Sym>>);
// SAFETY: a symbolic replay is one thread; the shadow is used by it only.
unsafe impl Sync for Cell {}
static SYM: Cell = Cell(UnsafeCell::new(None));
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// The shadow, when a symbolic replay is running.
pub fn get() -> Option<&'static mut Sym> {
    if !ACTIVE.load(Ordering::Relaxed) {
        return None;
    }
    // SAFETY: single-threaded symbolic replay; callers do not keep the
    // reference across calls into the program.
    unsafe { (*SYM.0.get()).as_mut() }
}

/// Starts symbolic execution (before the call).
pub fn activate() -> &'static mut Sym {
    let s = Sym::new();
    // SAFETY: before the call, single-threaded.
    unsafe { *SYM.0.get() = Some(s) };
    ACTIVE.store(true, Ordering::Relaxed);
    get().expect("just activated")
}

/// Stops it (after the call), so what the program does next is concrete,
/// and returns the trace.
pub fn finish() -> Option<Vec<u8>> {
    let out = get()?.encode();
    ACTIVE.store(false, Ordering::Relaxed);
    Some(out)
}

impl Sym {
    pub(crate) fn new() -> Sym {
        Sym {
            nodes: alloc::vec![Node::default()],
            path: Vec::new(),
            shadow: BTreeMap::new(),
            params: [0; MAX_PARAMS],
            ret: 0,
            flags: 0,
            pin_names: Vec::new(),
            tables: Vec::new(),
            checks: BTreeMap::new(),
        }
    }

    /// A new node; 0 when the DAG is full.
    pub fn node(&mut self, op: Op, width: u32, a: u32, b: u32, c: u32, val: u64) -> u32 {
        // An operand that could not be built (the DAG is full): so is this.
        if [a, b, c][..op.operands()].contains(&0) {
            return 0;
        }
        // A node whose width does not fit its operands' would make the
        // whole trace unreadable: the value is left concrete instead, and
        // the trace says one was (a model or a cast got a width wrong).
        let w = |x: u32| self.nodes.get(x as usize).map_or(0, |n| n.width);
        if width > 64 || !op.well_typed(width as u8, w(a), w(b), w(c), val) {
            self.flags |= TRACE_ILL_TYPED;
            return 0;
        }
        if self.nodes.len() >= MAX_NODES {
            self.flags |= TRACE_NODES_FULL;
            return 0;
        }
        self.nodes.push(Node { op, width: width as u8, a, b, c, val });
        (self.nodes.len() - 1) as u32
    }

    /// The operator of a code the pass passed (its wire code); `None`,
    /// and the trace says a node was not built as for an ill-typed one,
    /// for a code no operator has (a pass out of step with the runtime).
    pub fn op(&mut self, code: u32) -> Option<Op> {
        let op = u8::try_from(code).ok().and_then(Op::from_code);
        if op.is_none() {
            self.flags |= TRACE_ILL_TYPED;
        }
        op
    }

    pub fn constant(&mut self, v: u64, width: u32) -> u32 {
        self.node(Op::Const, width, 0, 0, 0, v & mask(width))
    }

    /// The operand's expression: its shadow, or a constant.
    pub fn operand(&mut self, s: u32, v: u64, width: u32) -> u32 {
        if s != 0 {
            s
        } else {
            self.constant(v, width)
        }
    }

    pub fn width(&self, s: u32) -> u32 {
        u32::from(self.nodes[s as usize].width)
    }

    /// Bits `lo .. lo + width` of `s`.
    pub fn extract(&mut self, s: u32, lo: u32, width: u32) -> u32 {
        let n = self.nodes[s as usize];
        if lo == 0 && u32::from(n.width) == width {
            return s;
        }
        // An extract of an extract reads the original.
        if n.op == Op::Extract {
            return self.extract(n.a, lo + n.val as u32, width);
        }
        self.node(Op::Extract, width, s, 0, 0, u64::from(lo))
    }

    /// `s` resized to `width` bits (zero- or sign-extended, or cut).
    pub fn resize(&mut self, s: u32, width: u32, signed: bool) -> u32 {
        let w = self.width(s);
        if w == width {
            s
        } else if w > width {
            self.extract(s, 0, width)
        } else {
            self.node(if signed { Op::SExt } else { Op::ZExt }, width, s, 0, 0, 0)
        }
    }

    fn page(&mut self, addr: usize) -> Option<&mut [u32; PAGE]> {
        self.shadow.get_mut(&(addr >> PAGE_BITS)).map(|p| &mut **p)
    }

    /// The shadow of one byte.
    pub fn byte(&mut self, addr: usize) -> u32 {
        self.page(addr).map_or(0, |p| p[addr & (PAGE - 1)])
    }

    pub fn set_byte(&mut self, addr: usize, s: u32) {
        let off = addr & (PAGE - 1);
        match self.page(addr) {
            Some(p) => p[off] = s,
            None if s == 0 => {}
            None => {
                let mut p = Box::new([0u32; PAGE]);
                p[off] = s;
                self.shadow.insert(addr >> PAGE_BITS, p);
            }
        }
    }

    /// Forgets the shadow of `n` bytes (they became concrete). Runs at
    /// every concrete store, alloca and malloc of a symbolic replay: no
    /// allocation, and pages stay (emptied) rather than being scanned.
    pub fn clear(&mut self, addr: usize, n: usize) {
        if n == 0 || self.shadow.is_empty() {
            return;
        }
        let (first, last) = (addr >> PAGE_BITS, (addr + n - 1) >> PAGE_BITS);
        for (&k, p) in self.shadow.range_mut(first..=last) {
            let start = (k << PAGE_BITS).max(addr);
            let end = ((k + 1) << PAGE_BITS).min(addr + n);
            p[start & (PAGE - 1)..=(end - 1) & (PAGE - 1)].fill(0);
        }
    }

    /// Whether any of `n` bytes at `addr` has a shadow (a page at a time:
    /// table reads ask this of kilobytes at every load).
    pub fn any_symbolic(&self, addr: usize, n: usize) -> bool {
        if n == 0 || self.shadow.is_empty() {
            return false;
        }
        let (first, last) = (addr >> PAGE_BITS, (addr + n - 1) >> PAGE_BITS);
        self.shadow.range(first..=last).any(|(&k, p)| {
            let start = (k << PAGE_BITS).max(addr);
            let end = ((k + 1) << PAGE_BITS).min(addr + n);
            p[start & (PAGE - 1)..=(end - 1) & (PAGE - 1)].iter().any(|&b| b != 0)
        })
    }

    /// The expression of `size` bytes at `addr` (little endian), 0 when all
    /// are concrete.
    pub fn load(&mut self, addr: usize, size: usize) -> u32 {
        if self.shadow.is_empty() || size == 0 || size > 8 {
            return 0;
        }
        let mut bytes = [0u32; 8];
        for (i, b) in bytes[..size].iter_mut().enumerate() {
            *b = self.byte(addr + i);
        }
        if bytes[..size].iter().all(|&b| b == 0) {
            return 0;
        }
        // The bytes of one stored value, in place: that value.
        let first = self.nodes[bytes[0] as usize];
        if first.op == Op::Extract && first.val == 0 && u32::from(self.nodes[first.a as usize].width) == 8 * size as u32
        {
            let whole = first.a;
            let same = (1..size).all(|i| {
                let n = self.nodes[bytes[i] as usize];
                bytes[i] != 0 && n.op == Op::Extract && n.a == whole && n.val == 8 * i as u64
            });
            if same {
                return whole;
            }
        }
        let mut acc = 0;
        for i in (0..size).rev() {
            let b = if bytes[i] != 0 {
                bytes[i]
            } else {
                // SAFETY: the program just loaded these bytes.
                let v = unsafe { *((addr + i) as *const u8) };
                self.constant(u64::from(v), 8)
            };
            acc = if acc == 0 { b } else { self.node(Op::Concat, self.width(acc) + 8, acc, b, 0, 0) };
            if acc == 0 || b == 0 {
                return 0;
            }
        }
        acc
    }

    /// Shadows the `size` bytes at `addr` with `s` (or clears them).
    pub fn store(&mut self, addr: usize, s: u32, size: usize) {
        if s == 0 {
            self.clear(addr, size);
            return;
        }
        for i in 0..size {
            let b = if self.width(s) == 8 && size == 1 { s } else { self.extract(s, 8 * i as u32, 8) };
            self.set_byte(addr + i, b);
        }
    }

    /// Copies the shadow of `n` bytes (memmove semantics).
    pub fn copy(&mut self, dst: usize, src: usize, n: usize) {
        if self.shadow.is_empty() {
            return;
        }
        let shadows: Vec<u32> = (0..n).map(|i| self.byte(src + i)).collect();
        if shadows.iter().all(|&s| s == 0) {
            self.clear(dst, n);
            return;
        }
        for (i, s) in shadows.into_iter().enumerate() {
            self.set_byte(dst + i, s);
        }
    }

    /// The id of a table with these entries (the same table read again
    /// keeps its id).
    pub fn table(&mut self, entries: Vec<u64>) -> usize {
        if let Some(i) = self.tables.iter().position(|t| *t == entries) {
            return i;
        }
        self.tables.push(entries);
        self.tables.len() - 1
    }

    /// Entry `k` of table `id`.
    pub fn table_entry(&self, id: usize, k: u8) -> Option<u64> {
        self.tables.get(id)?.get(usize::from(k)).copied()
    }

    /// Records a path entry; `cases` and `slots` are copied only when it
    /// is kept (a loop past the path's bound allocates nothing).
    pub fn record(
        &mut self,
        kind: u8,
        site: u32,
        node: u32,
        taken: u64,
        cases: &[u64],
        slots: impl IntoIterator<Item = u32>,
    ) {
        if node == 0 {
            return;
        }
        if self.path.len() >= MAX_PATH {
            self.flags |= TRACE_PATH_FULL;
            return;
        }
        let (cases, slots) = (cases.to_vec(), slots.into_iter().collect());
        self.path.push(Entry { kind, site, node, taken, cases, slots });
    }

    /// Records that `node` (a value whose expression is `sa`) is pinned to
    /// `v` because of `why` (a NUL-terminated name the probes pass, or
    /// null): kept in every query, and counted by name.
    pub fn pin(&mut self, sa: u32, v: u64, why: *const u8) {
        let w = self.width(sa);
        let c = self.constant(v, w);
        if c == 0 {
            return;
        }
        let eq = self.node(Op::Eq, 1, sa, c, 0, 0);
        self.assume(eq, why);
    }

    /// Records that `cond` (1 bit, true in this run) holds on the rest of
    /// the path because of `why` (as for [`Sym::pin`]): kept in every
    /// later query, never negated.
    pub fn assume(&mut self, cond: u32, why: *const u8) {
        if cond == 0 {
            return;
        }
        let site = match self.pin_names.iter().position(|&p| p == why) {
            _ if why.is_null() => 0,
            Some(k) => k as u32 + 1,
            None => {
                self.pin_names.push(why);
                self.pin_names.len() as u32
            }
        };
        self.record(PATH_PIN, site, cond, 1, &[], []);
    }

    /// The trace record (header and payload).
    pub fn encode(&self) -> Vec<u8> {
        let mut p = crate::carve::Buf(Vec::with_capacity(8 + self.nodes.len() * NODE_LEN + self.path.len() * 17));
        let path = self.path.iter().map(|e| EntryRef {
            kind: e.kind,
            site: e.site,
            node: e.node,
            taken: e.taken,
            cases: &e.cases,
            slots: &e.slots,
        });
        // What pinned values, by pin site.
        let names = self.pin_names.iter().map(|&name| {
            // SAFETY: the probes pass NUL-terminated constants; `strnlen`
            // read the `len` bytes taken.
            unsafe { core::slice::from_raw_parts(name, libc::strnlen(name.cast(), MAX_PIN_NAME)) }
        });
        let tables = self.tables.iter().map(|t| &t[..]);
        encode_trace(&mut p, self.flags, &self.nodes[1..], path, tables, names);
        let mut out = header(KIND_TRACE, &p.0).to_vec();
        out.extend_from_slice(&p.0);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_no_operator_has_builds_no_node_and_the_trace_says_so() {
        let mut s = Sym::new();
        assert_eq!(s.op(u32::from(Op::Add.code())), Some(Op::Add));
        assert_eq!(s.flags & TRACE_ILL_TYPED, 0);
        for code in [15, 26, 38, 255, 256 + u32::from(Op::Add.code())] {
            assert_eq!(s.op(code), None, "{code}");
        }
        assert_ne!(s.flags & TRACE_ILL_TYPED, 0);
    }

    #[test]
    fn a_node_missing_an_operand_its_operator_takes_is_not_built() {
        let mut s = Sym::new();
        let c = s.node(Op::Input, 8, 0, 0, 0, 0);
        let one = s.constant(1, 1);
        assert_ne!(s.node(Op::Ite, 8, one, c, c, 0), 0);
        assert_eq!(s.node(Op::Ite, 8, one, c, 0, 0), 0);
        assert_eq!(s.node(Op::Add, 8, c, 0, 0, 0), 0);
        assert_ne!(s.node(Op::ZExt, 32, c, 0, 0, 0), 0);
        assert_eq!(s.flags, 0);
    }

    #[test]
    fn a_range_is_symbolic_when_a_byte_of_it_is_across_pages() {
        let mut s = Sym::new();
        let base = 10 * PAGE;
        assert!(!s.any_symbolic(base, 3 * PAGE));
        s.set_byte(base + PAGE + 5, 7);
        assert!(s.any_symbolic(base, 3 * PAGE));
        assert!(s.any_symbolic(base + PAGE + 5, 1));
        assert!(!s.any_symbolic(base, PAGE + 5));
        assert!(!s.any_symbolic(base + PAGE + 6, 2 * PAGE));
        s.clear(base + PAGE + 5, 1);
        assert!(!s.any_symbolic(base, 3 * PAGE));
    }
}
