//! Carving: at the entry of a selected function, a snapshot of the call
//! (arguments, and every object reachable from them and from the dirty
//! globals, pointers turned into relocations); at its return, the outcome
//! (return value, edges hit during the call). Memory is read with
//! `process_vm_readv`, so a bad pointer costs an error, never a fault.

use crate::model::snapshot::*;
use crate::state::{Carved, Frame, State};
use crate::{map, sys};
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::ffi::CStr;
use core::sync::atomic::{AtomicBool, Ordering};

/// Whether calls are carved yet: not in a host that starts the runtime
/// itself (`CARVE_DEFER=1`) before it does, so that its setup (Python
/// filling a database) spends no carving budget; objects are tracked
/// all along, so that what the setup allocated has its bounds.
pub static OPEN: AtomicBool = AtomicBool::new(true);

/// The carving configuration, read once from the environment.
pub struct Config {
    /// `dir/` as bytes, ready for file names.
    pub dir: Vec<u8>,
    /// Function names to carve; `None`: all.
    pub funcs: Option<Vec<Vec<u8>>>,
    pub max_per_function: u32,
    pub budget: usize,
}

impl Config {
    pub fn from_env() -> Option<Config> {
        let dir = sys::getenv(sys::CARVE_DIR)?;
        let mut d = dir.to_vec();
        d.push(b'/');
        let funcs = sys::getenv(sys::CARVE_FUNCS)
            .filter(|f| !f.is_empty())
            .map(|f| f.split(|&b| b == b',').map(<[u8]>::to_vec).collect());
        let max_per_function = sys::getenv(sys::CARVE_MAX).and_then(sys::parse_int).unwrap_or(5) as u32;
        let budget = sys::getenv(sys::CARVE_BYTES).and_then(sys::parse_int).unwrap_or(1 << 20) as usize;
        Some(Config { dir: d, funcs, max_per_function, budget })
    }

    fn selects(&self, name: &[u8]) -> bool {
        self.funcs.as_ref().is_none_or(|list| list.iter().any(|n| n == name))
    }
}

pub struct Buf(pub Vec<u8>);
impl Sink for Buf {
    fn put(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }
}

/// `__carve_enter`: registers the frame; carves the call when selected.
pub fn enter(st: &mut State, function: u32, args: &[u64], kinds: Option<&[u8]>, frame: &[u64]) -> u64 {
    let mut objects = Vec::with_capacity(frame.len() / 2);
    for pair in frame.chunks_exact(2) {
        st.objects.insert(pair[0] as usize, pair[1] as usize, OBJ_STACK, NO_GLOBAL);
        objects.push(pair[0] as usize);
    }
    let carved = kinds.and_then(|k| carve(st, function, args, k));
    st.frames.push(Frame { objects, carved });
    st.frames.len() as u64
}

/// `__carve_leave`: pops frames down to `token`'s (frames skipped by
/// `longjmp` go too), writing the outcome of a carved call.
pub fn leave(st: &mut State, token: u64, ret: u64, ret_kind: u8) {
    while st.frames.len() as u64 >= token && token > 0 {
        let Some(frame) = st.frames.pop() else { break };
        for o in &frame.objects {
            st.objects.remove(*o);
        }
        if let Some(c) = frame.carved {
            if st.frames.len() as u64 + 1 == token {
                write_outcome(&c, ret, ret_kind);
            }
            // SAFETY: our own descriptor.
            unsafe { libc::close(c.fd) };
        }
    }
}

fn write_outcome(c: &Carved, ret: u64, ret_kind: u8) {
    let now = map::slice();
    let mut edges: Vec<u32> = (0..now.len()).filter(|&i| now[i] != c.map_at_entry[i]).map(|i| i as u32).collect();
    // The entry counter ran just before the snapshot: it belongs to the call.
    if let Err(p) = edges.binary_search(&c.function) {
        edges.insert(p, c.function);
    }
    let mut b = Buf(Vec::with_capacity(16 + 4 * edges.len()));
    encode_outcome(&mut b, ret, ret_kind, edges.into_iter());
    sys::write_all(c.fd, &header(KIND_OUTCOME, &b.0));
    sys::write_all(c.fd, &b.0);
}

fn carve(st: &mut State, function: u32, args: &[u64], kinds: &[u8]) -> Option<Carved> {
    let cfg = st.config.as_ref()?;
    if !OPEN.load(Ordering::Relaxed) {
        return None;
    }
    // SAFETY: names are the pass's NUL-terminated constants, alive for good.
    let name: &'static [u8] = st.tables.function(function).map(|f| unsafe { CStr::from_ptr(f.name) }.to_bytes())?;
    if !cfg.selects(name) {
        return None;
    }
    let n = st.carved.entry(function).or_insert(0);
    if *n >= cfg.max_per_function {
        return None;
    }
    *n += 1;
    let payload = snapshot(st, function, name, args, kinds);
    let cfg = st.config.as_ref()?;
    st.seq += 1;
    let mut path = cfg.dir.clone();
    path.extend_from_slice(&name[..name.len().min(100)]);
    path.push(b'.');
    sys::push_decimal(&mut path, unsafe { libc::getpid() } as u64);
    path.push(b'.');
    sys::push_decimal(&mut path, u64::from(st.seq));
    path.extend_from_slice(b".snap\0");
    // SAFETY: a NUL-terminated path.
    let fd = unsafe {
        libc::open(path.as_ptr().cast(), libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC | libc::O_CLOEXEC, 0o644)
    };
    if fd < 0 {
        sys::debug("cannot create a snapshot file");
        return None;
    }
    sys::write_all(fd, &header(KIND_SNAPSHOT, &payload));
    sys::write_all(fd, &payload);
    Some(Carved { fd, function, map_at_entry: map::slice().to_vec() })
}

/// Builds the snapshot payload (layout: `model::unit::Snapshot`).
fn snapshot(st: &mut State, function: u32, name: &[u8], args: &[u64], kinds: &[u8]) -> Vec<u8> {
    let budget = st.config.as_ref().map_or(1 << 20, |c| c.budget);
    let dirty = st.tables.dirty_globals();
    let mut w = Walk {
        st,
        objects: Vec::new(),
        index: BTreeMap::new(),
        relocs: Vec::new(),
        raw: 0,
        left: budget,
        truncated: false,
        // SAFETY: gettid cannot fail.
        tid: unsafe { libc::gettid() },
    };
    let guessed = guess_unknown(w.st, args, kinds);
    let mut arg_list = Vec::with_capacity(args.len());
    for (i, &v) in args.iter().enumerate() {
        let (kind, size) = (kinds.get(2 * i).copied().unwrap_or(ARG_INT), kinds.get(2 * i + 1).copied().unwrap_or(8));
        arg_list.push(Arg { kind, size, value: v });
        if kind == ARG_PTR {
            w.pointer(RELOC_IN_ARG, i as u64, v as usize, &dirty);
        }
    }
    for &g in &dirty {
        if let Some(addr) = w.st.tables.global(g).map(|e| e.addr as usize) {
            w.object_for(addr, &dirty);
        }
    }
    w.file_descriptors();
    w.locale();
    // Breadth first: dump each object, follow its pointers.
    let mut next = 0;
    while next < w.objects.len() {
        w.dump(next, &dirty);
        next += 1;
    }
    for base in guessed {
        w.st.objects.remove(base);
    }
    let mut b = Buf(Vec::with_capacity(4096));
    let head = SnapshotHead { function, flags: if w.truncated { FLAG_TRUNCATED } else { 0 }, raw_pointers: w.raw };
    let objects = w.objects.iter().map(|(h, bytes)| (h, bytes.as_slice()));
    encode_snapshot(&mut b, head, name, &arg_list, objects, &w.relocs);
    b.0
}

/// Most bytes a pointer argument to memory the runtime does not know is
/// taken to reach.
const GUESS: usize = 4096;

/// Pointer arguments into memory the runtime does not know (a buffer of a
/// program built without carve-clang, calling an instrumented library):
/// taken, for this snapshot, as objects that start where they point and
/// end after the first NUL (a string), or after [`GUESS`] readable bytes.
/// Returns their bases, to be forgotten after the snapshot.
fn guess_unknown(st: &mut State, args: &[u64], kinds: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    for (i, &v) in args.iter().enumerate() {
        let p = v as usize;
        if kinds.get(2 * i).copied() != Some(ARG_PTR) || !(0x10000..0x8000_0000_0000).contains(&p) {
            continue;
        }
        // (An end pointer, `buf + len`, is its object's.)
        if st.objects.ending_at(p).is_some()
            || st.objects.find(p).is_some()
            || st.tables.function_at(p).is_some()
            || st.tables.global_at(p).is_some()
        {
            continue;
        }
        let mut size = 0;
        let mut chunk = [0u8; 256];
        while size < GUESS && sys::read_memory(p + size, &mut chunk) {
            match chunk.iter().position(|&b| b == 0) {
                Some(k) => {
                    size += k + 1;
                    break;
                }
                None => size += chunk.len(),
            }
        }
        if size > 0 {
            st.objects.insert(p, size.min(GUESS), OBJ_HEAP, NO_GLOBAL);
            out.push(p);
        }
    }
    out
}

/// Whether the 8 bytes at `off` of an object's `bytes` start with the
/// owner field of a glibc mutex this thread holds: the carving thread's
/// id there, a lock word held (non-zero) 8 bytes before it, and at least
/// one user after it ([`RELOC_TID`]). `tid`: the thread's id.
fn held_mutex_owner(bytes: &[u8], off: usize, tid: i32) -> bool {
    let int = |at: usize| bytes.get(at..at + 4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    off >= 8 && int(off) == Some(tid) && int(off - 8).is_some_and(|l| l != 0) && int(off + 4).is_some_and(|u| u >= 1)
}

struct Walk<'a> {
    st: &'a mut State,
    objects: Vec<(ObjectHead, Vec<u8>)>,
    index: BTreeMap<usize, u32>,
    relocs: Vec<Reloc>,
    raw: u32,
    left: usize,
    truncated: bool,
    /// The carving thread's kernel id (mutex owners, [`RELOC_TID`]).
    tid: i32,
}

impl Walk<'_> {
    /// The index of the object holding `addr`, recorded (not yet dumped)
    /// when first met.
    fn object_for(&mut self, addr: usize, dirty: &[u32]) -> Option<u32> {
        let o = self.st.objects.find(addr).or_else(|| stream_buffer(self.st, addr))?;
        if let Some(&i) = self.index.get(&o.base) {
            return Some(i);
        }
        let i = self.objects.len() as u32;
        // Clean globals hold their initial bytes in the replaying process
        // too: they are relocation targets, not dumped.
        let clean_global = o.kind == OBJ_GLOBAL && !dirty.contains(&o.global);
        let len = if clean_global { 0 } else { u64::MAX };
        self.objects.push((
            ObjectHead { kind: o.kind, global: o.global, addr: o.base as u64, size: o.size as u64, len },
            Vec::new(),
        ));
        self.index.insert(o.base, i);
        Some(i)
    }

    /// The index of the object `addr` points just past (an end pointer,
    /// `buf + len`, that no object holds), recorded as [`Walk::object_for`]
    /// does.
    fn end_of(&mut self, addr: usize, dirty: &[u32]) -> Option<u32> {
        let o = self.st.objects.ending_at(addr)?;
        self.object_for(o.base, dirty)
    }

    /// Records what the pointer `v`, found at (`object`, `offset`), is.
    fn pointer(&mut self, object: u32, offset: u64, v: usize, dirty: &[u32]) {
        if v == 0 {
            return;
        }
        if let Some(t) = self.object_for(v, dirty).or_else(|| self.end_of(v, dirty)) {
            let base = self.objects[t as usize].0.addr as usize;
            self.relocs.push(Reloc { object, offset, target_kind: RELOC_OBJECT, target: t, addend: (v - base) as u64 });
        } else if let Some(f) = self.st.tables.function_at(v) {
            self.relocs.push(Reloc { object, offset, target_kind: RELOC_FUNCTION, target: f, addend: 0 });
        // SAFETY: pthread_self cannot fail.
        } else if v == (unsafe { libc::pthread_self() }) as usize {
            self.relocs.push(Reloc { object, offset, target_kind: RELOC_THREAD, target: 0, addend: 0 });
        } else if (0x10000..0x8000_0000_0000).contains(&v) {
            self.raw += 1;
        }
    }

    /// Open descriptors of regular files (3 and up), for calls that use
    /// descriptors rather than streams.
    fn file_descriptors(&mut self) {
        for fd in 3..256 {
            // SAFETY: inspecting descriptors; nothing is changed.
            unsafe {
                let flags = libc::fcntl(fd, libc::F_GETFL);
                if flags < 0 {
                    continue;
                }
                let mut st: libc::stat = core::mem::zeroed();
                if libc::fstat(fd, &mut st) != 0 || st.st_mode & libc::S_IFMT != libc::S_IFREG {
                    continue;
                }
                let mut link = Vec::new();
                link.extend_from_slice(b"/proc/self/fd/");
                sys::push_decimal(&mut link, fd as u64);
                link.push(0);
                let mut path = [0u8; 512];
                let n = libc::readlink(link.as_ptr().cast(), path.as_mut_ptr().cast(), path.len());
                if n <= 0 || n as usize >= path.len() || path[0] != b'/' {
                    continue;
                }
                let offset = libc::lseek(fd, 0, libc::SEEK_CUR).max(0) as u64;
                let mode = (fd as u32) | (((flags & libc::O_ACCMODE) as u32) << 24);
                let head = ObjectHead { kind: OBJ_FD, global: mode, addr: offset, size: n as u64, len: n as u64 };
                self.objects.push((head, path[..n as usize].to_vec()));
            }
        }
    }

    /// The locale, unless it is "C" (which a replay starts in).
    fn locale(&mut self) {
        // SAFETY: querying the locale changes nothing.
        let name = unsafe { libc::setlocale(libc::LC_ALL, core::ptr::null()) };
        if name.is_null() {
            return;
        }
        // SAFETY: setlocale returns a NUL-terminated string.
        let name = unsafe { CStr::from_ptr(name) }.to_bytes();
        if name != b"C" && name.len() < 4096 {
            let head = ObjectHead {
                kind: OBJ_LOCALE,
                global: NO_GLOBAL,
                addr: 0,
                size: name.len() as u64,
                len: name.len() as u64,
            };
            self.objects.push((head, name.to_vec()));
        }
    }

    /// Reads object `i` (within the budget) and follows its pointers.
    fn dump(&mut self, i: usize, dirty: &[u32]) {
        let (head, _) = self.objects[i];
        if head.len == 0 || head.kind == OBJ_FD || head.kind == OBJ_LOCALE {
            return;
        }
        if head.kind == OBJ_STREAM {
            let (mode, rest) = stream_state(head.addr as usize, self.left);
            self.left -= rest.len();
            self.objects[i].0 = ObjectHead { global: mode, size: rest.len() as u64, len: rest.len() as u64, ..head };
            self.objects[i].1 = rest;
            return;
        }
        let want = head.size as usize;
        let len = want.min(self.left);
        let mut bytes = alloc::vec![0u8; len];
        let len = if sys::read_memory(head.addr as usize, &mut bytes) { len } else { 0 };
        bytes.truncate(len);
        if len < want {
            self.truncated = true;
        }
        self.left -= len;
        let first = (8 - head.addr as usize % 8) % 8;
        let mut off = first;
        while off + 8 <= len {
            let mut w = [0u8; 8];
            w.copy_from_slice(&bytes[off..off + 8]);
            self.pointer(i as u32, off as u64, u64::from_le_bytes(w) as usize, dirty);
            if held_mutex_owner(&bytes, off, self.tid) {
                self.relocs.push(Reloc {
                    object: i as u32,
                    offset: off as u64,
                    target_kind: RELOC_TID,
                    target: 0,
                    addend: 0,
                });
            }
            off += 8;
        }
        self.objects[i].0.len = len as u64;
        self.objects[i].1 = bytes;
    }
}

/// A stream's mode and what is left to read from it (at most `budget`
/// bytes, read with `pread`: the stream and its descriptor are untouched).
fn stream_state(addr: usize, budget: usize) -> (u32, Vec<u8>) {
    let fp = addr as *mut libc::FILE;
    // SAFETY: `fp` is a live stream the program opened (closed ones leave
    // the map); fileno, fcntl and ftello do not change its state.
    let (fd, flags, pos) = unsafe {
        let fd = libc::fileno(fp);
        let flags = if fd >= 0 { libc::fcntl(fd, libc::F_GETFL) } else { -1 };
        (fd, flags, if fd >= 0 { libc::ftello(fp) } else { -1 })
    };
    if flags < 0 {
        return (STREAM_READ | STREAM_WRITE, Vec::new());
    }
    let mode = match flags & libc::O_ACCMODE {
        libc::O_RDONLY => STREAM_READ,
        libc::O_WRONLY => STREAM_WRITE,
        _ => STREAM_READ | STREAM_WRITE,
    };
    let mut rest = Vec::new();
    if mode & STREAM_READ != 0 && pos >= 0 {
        let mut chunk = [0u8; 8192];
        while rest.len() < budget {
            let want = chunk.len().min(budget - rest.len());
            // SAFETY: reading into our own buffer at an explicit offset.
            let n = unsafe { libc::pread(fd, chunk.as_mut_ptr().cast(), want, pos + rest.len() as i64) };
            if n <= 0 {
                break;
            }
            rest.extend_from_slice(&chunk[..n as usize]);
        }
    }
    (mode, rest)
}

/// The stdio buffer of a registered stream that `addr` points into, as a
/// heap object (glibc's `FILE`: `_IO_buf_base` at 56, `_IO_buf_end` at 64).
fn stream_buffer(st: &State, addr: usize) -> Option<crate::objects::Object> {
    st.objects.streams().find_map(|f| {
        let mut w = [0u8; 16];
        if !sys::read_memory(f.base + 56, &mut w) {
            return None;
        }
        let base = u64::from_le_bytes(w[..8].try_into().ok()?) as usize;
        let end = u64::from_le_bytes(w[8..].try_into().ok()?) as usize;
        (base != 0 && base <= addr && addr < end && end - base <= 1 << 24).then_some(crate::objects::Object {
            base,
            size: end - base,
            kind: OBJ_HEAP,
            global: NO_GLOBAL,
        })
    })
}
