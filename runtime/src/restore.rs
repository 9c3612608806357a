//! Restoring a carved call's context: fresh objects for heap, stack and
//! argv objects, the real globals for globals, streams and descriptors
//! recreated, pointers patched. A [`Context`] is what the call needs; a
//! patch record ([`KIND_PATCH`]) changes some of it for one try.

use crate::model::snapshot::*;
use crate::model::REPLAY_EXIT_MALFORMED;
use crate::model::REPLAY_EXIT_NOT_REPLAYABLE;
use crate::state::State;
use crate::sys;
use alloc::vec::Vec;

pub type Tramp = extern "C" fn(*mut u64) -> u64;

/// A restored call, ready to run.
pub struct Context {
    pub tramp: Tramp,
    /// The trampoline of the function's symbolic clone, if it has one.
    pub sym_tramp: Option<Tramp>,
    /// The argument words (pointers already patched).
    pub words: Vec<u64>,
    /// Where each object of the unit lives now (0 for descriptors and the
    /// locale).
    places: Vec<usize>,
    /// Each object's size (a symbolic input must lie inside it).
    sizes: Vec<u64>,
    /// Descriptors reopened, with the offset each must start at: a forked
    /// try shares the descriptor's offset with the fork server, so each
    /// try seeks back.
    fds: Vec<(i32, u64)>,
}

fn bad(what: &[u8]) -> i32 {
    sys::complain(what);
    REPLAY_EXIT_MALFORMED
}

/// Reads a unit file's snapshot and restores it.
pub fn restore(st: &mut State, bytes: &[u8]) -> Result<Context, i32> {
    let (kind, payload, _) =
        next_record(bytes).map_err(|_| bad(b"replay: not a unit file (bad header or checksum)"))?;
    if kind != KIND_SNAPSHOT {
        return Err(bad(b"replay: the first record is not a snapshot"));
    }
    let mut r = Reader::new(payload);
    let parse = |r: &mut Reader<'_>| -> Result<_, DecodeError> {
        let function = r.u32()?;
        let n = r.u16()? as usize;
        r.take(n)?;
        r.u32()?;
        r.u32()?;
        let nargs = r.u16()? as usize;
        let mut args = Vec::with_capacity(nargs);
        for _ in 0..nargs {
            args.push(Arg::decode(r)?.value);
        }
        Ok((function, args))
    };
    let (function, words) = parse(&mut r).map_err(|_| bad(b"replay: malformed snapshot"))?;
    let f = st.tables.function(function).ok_or_else(|| bad(b"replay: unknown function (another binary?)"))?;
    if f.tramp.is_null() {
        sys::complain(b"replay: this function cannot be called from a unit (its parameters)");
        return Err(REPLAY_EXIT_NOT_REPLAYABLE);
    }
    // SAFETY: the pass made this trampoline for exactly this function.
    let tramp: Tramp = unsafe { core::mem::transmute(f.tramp) };
    // SAFETY: likewise, for the function's symbolic clone.
    let sym_tramp = (!f.sym_tramp.is_null()).then(|| unsafe { core::mem::transmute::<*const u8, Tramp>(f.sym_tramp) });
    let mut cx = Context { tramp, sym_tramp, words, places: Vec::new(), sizes: Vec::new(), fds: Vec::new() };
    let nobj = r.u32().map_err(|_| bad(b"replay: malformed snapshot"))? as usize;
    cx.places.reserve(nobj.min(1 << 16));
    for _ in 0..nobj {
        let h = ObjectHead::decode(&mut r).map_err(|_| bad(b"replay: malformed object"))?;
        let data = r.take(h.len as usize).map_err(|_| bad(b"replay: truncated object"))?;
        let place = cx.place(st, &h, data)?;
        cx.places.push(place);
        cx.sizes.push(h.size);
    }
    cx.relocate(st, &mut r)?;
    Ok(cx)
}

impl Context {
    /// Applies one try's patch: new argument bits, fresh copies of the
    /// changed objects, the relocations again.
    pub fn apply_patch(&mut self, st: &mut State, bytes: &[u8]) -> Result<(), i32> {
        let (kind, payload, _) = next_record(bytes).map_err(|_| bad(b"replay: not a patch file"))?;
        if kind != KIND_PATCH {
            return Err(bad(b"replay: not a patch record"));
        }
        let mut r = Reader::new(payload);
        let malformed = |_| bad(b"replay: malformed patch");
        let nargs = r.u16().map_err(malformed)? as usize;
        if nargs != self.words.len() {
            return Err(bad(b"replay: the patch has another number of arguments"));
        }
        for w in self.words.iter_mut() {
            *w = r.u64().map_err(malformed)?;
        }
        let nobj = r.u32().map_err(malformed)?;
        for _ in 0..nobj {
            let i = r.u32().map_err(malformed)? as usize;
            let h = ObjectHead::decode(&mut r).map_err(malformed)?;
            let data = r.take(h.len as usize).map_err(malformed)?;
            if i >= self.places.len() {
                return Err(bad(b"replay: the patch changes no object"));
            }
            self.places[i] = self.place(st, &h, data)?;
            self.sizes[i] = h.size;
        }
        self.relocate(st, &mut r)
    }

    /// Where the bytes of a symbolic input are: an argument word or bytes
    /// of an object, and how many of its `len` bytes are there (a string's
    /// room past its NUL is there once a patch gave it; `None`: no such
    /// place).
    pub fn place_of(&mut self, object: u32, offset: u64, len: u32) -> Option<(*mut u8, u32)> {
        if object == RELOC_IN_ARG {
            let w = self.words.get_mut(offset as usize)?;
            return (len <= 8).then_some(((w as *mut u64).cast(), len));
        }
        let &p = self.places.get(object as usize)?;
        let size = self.sizes[object as usize];
        let there = size.checked_sub(offset).filter(|&n| n > 0)?.min(u64::from(len)) as u32;
        (p != 0).then_some(((p + offset as usize) as *mut u8, there))
    }

    /// Puts the descriptors back at their carved offsets (a forked try
    /// shares them with its fork server).
    pub fn rewind(&self) {
        for &(fd, offset) in &self.fds {
            // SAFETY: a plain seek on a descriptor this context opened.
            unsafe { libc::lseek(fd, offset as i64, libc::SEEK_SET) };
        }
    }

    /// Where the object lives now, its bytes copied in.
    fn place(&mut self, st: &mut State, h: &ObjectHead, data: &[u8]) -> Result<usize, i32> {
        let place = match h.kind {
            OBJ_FD => {
                if let Some(fd) = reopen(h.global, h.addr, data) {
                    self.fds.push((fd, h.addr));
                }
                return Ok(0);
            }
            OBJ_LOCALE => {
                let mut name = data.to_vec();
                name.push(0);
                // SAFETY: a NUL-terminated locale name.
                unsafe { libc::setlocale(libc::LC_ALL, name.as_ptr().cast()) };
                return Ok(0);
            }
            OBJ_STREAM => return open_stream(h.global, data).ok_or_else(|| bad(b"replay: cannot recreate a stream")),
            OBJ_GLOBAL => {
                let g = st.tables.global(h.global).ok_or_else(|| bad(b"replay: unknown global (another binary?)"))?;
                if h.len > g.size {
                    return Err(bad(b"replay: global larger than in this binary"));
                }
                g.addr as usize
            }
            _ => {
                // SAFETY: a fresh zeroed block, at least one byte.
                let p = unsafe { libc::calloc(1, (h.size as usize).max(1)) } as usize;
                if p == 0 {
                    return Err(bad(b"replay: out of memory"));
                }
                p
            }
        };
        // SAFETY: `place` holds at least `len` bytes (checked above for
        // globals); a global that already holds them is not written (it may
        // be read-only).
        let same =
            h.kind == OBJ_GLOBAL && unsafe { core::slice::from_raw_parts(place as *const u8, data.len()) } == data;
        if !same {
            unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), place as *mut u8, data.len()) };
        }
        Ok(place)
    }

    /// Reads a relocation list and writes every pointer it describes.
    fn relocate(&mut self, st: &State, r: &mut Reader<'_>) -> Result<(), i32> {
        let nrel = r.u32().map_err(|_| bad(b"replay: malformed relocations"))? as usize;
        for _ in 0..nrel {
            let x = Reloc::decode(r).map_err(|_| bad(b"replay: malformed relocation"))?;
            let value = match x.target_kind {
                RELOC_OBJECT => {
                    self.places.get(x.target as usize).ok_or_else(|| bad(b"replay: relocation to no object"))?
                        + x.addend as usize
                }
                _ => st.tables.function(x.target).ok_or_else(|| bad(b"replay: unknown function"))?.addr as usize,
            };
            if x.object == RELOC_IN_ARG {
                *self.words.get_mut(x.offset as usize).ok_or_else(|| bad(b"replay: relocation of no argument"))? =
                    value as u64;
            } else {
                let place =
                    *self.places.get(x.object as usize).ok_or_else(|| bad(b"replay: relocation in no object"))?;
                if place == 0 {
                    return Err(bad(b"replay: relocation in a descriptor"));
                }
                // SAFETY: the offset was in the recorded bytes of that object.
                unsafe { (place as *mut u8).add(x.offset as usize).cast::<u64>().write_unaligned(value as u64) };
            }
        }
        Ok(())
    }
}

/// A stream like the carved one: what was left to read from it, in memory;
/// writes go to /dev/null.
fn open_stream(mode: u32, rest: &[u8]) -> Option<usize> {
    // SAFETY: plain stdio calls; the buffer lives as long as the process.
    unsafe {
        let fp = if mode & STREAM_READ != 0 && !rest.is_empty() {
            let buf = libc::malloc(rest.len()) as *mut u8;
            if buf.is_null() {
                return None;
            }
            core::ptr::copy_nonoverlapping(rest.as_ptr(), buf, rest.len());
            let m = if mode & STREAM_WRITE != 0 { c"r+" } else { c"r" };
            let fp = libc::fmemopen(buf.cast(), rest.len(), m.as_ptr());
            // Fill its buffer, as the carved stream's was: code that looks
            // inside streams (gnulib's freadahead...) sees data waiting.
            if !fp.is_null() {
                let c = libc::fgetc(fp);
                if c != libc::EOF {
                    libc::ungetc(c, fp);
                }
            }
            fp
        } else if mode & STREAM_WRITE != 0 {
            libc::fopen(c"/dev/null".as_ptr(), c"w".as_ptr())
        } else {
            libc::fopen(c"/dev/null".as_ptr(), c"r".as_ptr())
        };
        (!fp.is_null()).then_some(fp as usize)
    }
}

/// Opens `path` again as descriptor `mode & 0xffffff`, at `offset`: the
/// carved call's descriptor, when the file is there (the replay recreates
/// the carving run's input file).
fn reopen(mode: u32, offset: u64, path: &[u8]) -> Option<i32> {
    let fd = (mode & 0xff_ffff) as i32;
    let acc = ((mode >> 24) as i32) & libc::O_ACCMODE;
    let mut p = path.to_vec();
    p.push(0);
    // SAFETY: plain descriptor calls on a NUL-terminated path.
    unsafe {
        let f = libc::open(p.as_ptr().cast(), acc | libc::O_CLOEXEC);
        if f < 0 {
            return None;
        }
        if f != fd {
            libc::dup2(f, fd);
            libc::close(f);
        }
        libc::lseek(fd, offset as i64, libc::SEEK_SET);
    }
    Some(fd)
}
