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
    /// The bytes of each place a relocation may write (the block given
    /// it, or the global as this binary has it; none for descriptors,
    /// streams and the locale).
    room: Vec<u64>,
    /// Descriptors reopened, with the offset each must start at: a forked
    /// try shares the descriptor's offset with the fork server, so each
    /// try seeks back.
    fds: Vec<(i32, u64)>,
    /// Where the loaded objects are read-only (found on first need).
    readonly: Option<Vec<(usize, usize)>>,
    /// Objects that are read-only globals: neither written nor relocated
    /// (the loader's relocations made their pointers; a library loaded
    /// elsewhere than in the carving run holds other values there).
    frozen: Vec<bool>,
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
    let mut cx = Context {
        tramp,
        sym_tramp,
        words,
        places: Vec::new(),
        sizes: Vec::new(),
        room: Vec::new(),
        fds: Vec::new(),
        readonly: None,
        frozen: Vec::new(),
    };
    let nobj = r.u32().map_err(|_| bad(b"replay: malformed snapshot"))? as usize;
    cx.places.reserve(nobj.min(1 << 16));
    for _ in 0..nobj {
        let h = ObjectHead::decode(&mut r).map_err(|_| bad(b"replay: malformed object"))?;
        let data = r.take(h.len as usize).map_err(|_| bad(b"replay: truncated object"))?;
        let (place, room) = cx.place(st, &h, data)?;
        let frozen = h.kind == OBJ_GLOBAL && cx.is_readonly(place, room);
        cx.frozen.push(frozen);
        cx.places.push(place);
        cx.sizes.push(h.size);
        cx.room.push(room);
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
            (self.places[i], self.room[i]) = self.place(st, &h, data)?;
            let (place, room) = (self.places[i], self.room[i]);
            self.frozen[i] = h.kind == OBJ_GLOBAL && self.is_readonly(place, room);
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

    /// Where the object lives now, its bytes copied in, and the bytes
    /// there a relocation may write.
    fn place(&mut self, st: &mut State, h: &ObjectHead, data: &[u8]) -> Result<(usize, u64), i32> {
        let (place, room) = match h.kind {
            OBJ_FD => {
                if let Some(fd) = reopen(h.global, h.addr, data) {
                    self.fds.push((fd, h.addr));
                }
                return Ok((0, 0));
            }
            OBJ_LOCALE => {
                let mut name = data.to_vec();
                name.push(0);
                // SAFETY: a NUL-terminated locale name.
                unsafe { libc::setlocale(libc::LC_ALL, name.as_ptr().cast()) };
                return Ok((0, 0));
            }
            OBJ_STREAM => {
                let stream = open_stream(h.global, data).ok_or_else(|| bad(b"replay: cannot recreate a stream"))?;
                return Ok((stream, 0));
            }
            OBJ_GLOBAL => {
                let g = st.tables.global(h.global).ok_or_else(|| bad(b"replay: unknown global (another binary?)"))?;
                if h.len > g.size {
                    return Err(bad(b"replay: global larger than in this binary"));
                }
                (g.addr as usize, g.size)
            }
            _ => {
                // SAFETY: a fresh zeroed block, at least one byte.
                let p = unsafe { libc::calloc(1, (h.size as usize).max(1)) } as usize;
                if p == 0 {
                    return Err(bad(b"replay: out of memory"));
                }
                // Its bounds, for the access checks of a symbolic replay
                // (a heap block of the carved size: in a program built
                // with ASan, one byte past it is a report).
                st.objects.insert(p, h.size as usize, h.kind, NO_GLOBAL);
                (p, h.size.max(1))
            }
        };
        // SAFETY: `place` holds at least `len` bytes (checked above for
        // globals); a global that already holds them is not written, nor
        // is a read-only one (see `frozen`).
        let same = h.kind == OBJ_GLOBAL && unsafe { sys::equal_unchecked(place as *const u8, data) };
        if !(same || h.kind == OBJ_GLOBAL && self.is_readonly(place, room)) {
            unsafe { sys::copy_unchecked(place as *mut u8, data) };
        }
        Ok((place, room))
    }

    /// Whether `[place, place + len)` lies in read-only memory of a loaded
    /// object.
    fn is_readonly(&mut self, place: usize, len: u64) -> bool {
        let ranges = self.readonly.get_or_insert_with(sys::readonly_ranges);
        ranges.iter().any(|&(start, end)| place >= start && place + len as usize <= end)
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
                // SAFETY: pthread_self cannot fail.
                RELOC_THREAD => (unsafe { libc::pthread_self() }) as usize,
                // SAFETY: gettid cannot fail. (The high half is merged in
                // below: only the owner field changes.)
                RELOC_TID => (unsafe { libc::gettid() }) as u32 as usize,
                _ => st.tables.function(x.target).ok_or_else(|| bad(b"replay: unknown function"))?.addr as usize,
            };
            if x.object == RELOC_IN_ARG {
                *self.words.get_mut(x.offset as usize).ok_or_else(|| bad(b"replay: relocation of no argument"))? =
                    value as u64;
            } else {
                let i = x.object as usize;
                let place = *self.places.get(i).ok_or_else(|| bad(b"replay: relocation in no object"))?;
                if self.frozen[i] {
                    continue;
                }
                if place == 0 || self.room[i] == 0 {
                    return Err(bad(b"replay: relocation in a descriptor, stream or locale"));
                }
                if x.offset.checked_add(8).is_none_or(|end| end > self.room[i]) {
                    return Err(bad(b"replay: relocation outside its object"));
                }
                // SAFETY: the pointer's 8 bytes are inside the object's place.
                unsafe {
                    let at = (place as *mut u8).add(x.offset as usize).cast::<u64>();
                    let value = if x.target_kind == RELOC_TID {
                        at.read_unaligned() & !0xffff_ffff | value as u64
                    } else {
                        value as u64
                    };
                    at.write_unaligned(value)
                };
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::carve::Buf;
    use crate::model::snapshot::Sink;
    use alloc::vec;

    extern "C" fn nothing(_: *mut u64) -> u64 {
        0
    }

    /// A restored context of two argument words and two heap objects of
    /// 16 and 32 bytes, each in a block with a guard of 64 bytes after it.
    fn context() -> (Context, Vec<Vec<u8>>) {
        let mut blocks = vec![vec![0u8; 16 + 64], vec![0u8; 32 + 64]];
        let places = blocks.iter_mut().map(|b| b.as_mut_ptr() as usize).collect();
        let cx = Context {
            tramp: nothing,
            sym_tramp: None,
            words: vec![0, 0],
            places,
            sizes: vec![16, 32],
            room: vec![16, 32],
            fds: Vec::new(),
            readonly: None,
            frozen: vec![false, false],
        };
        (cx, blocks)
    }

    /// A constant table, placed by the linker with the read-only data.
    static TABLE: [u64; 2] = [0x1111, 0x2222];

    #[test]
    fn read_only_memory_is_told_from_the_rest() {
        let (mut cx, blocks) = context();
        assert!(cx.is_readonly(TABLE.as_ptr() as usize, 16));
        assert!(!cx.is_readonly(blocks[0].as_ptr() as usize, 16));
        // The code is read-only too; the stack is not.
        assert!(cx.is_readonly(nothing as *const () as usize, 1));
        let local = 0u64;
        assert!(!cx.is_readonly(&local as *const u64 as usize, 8));
    }

    /// A patch record: argument words, objects replaced, relocations.
    fn patch(words: &[u64], objects: &[(u32, ObjectHead, &[u8])], relocs: &[Reloc]) -> Vec<u8> {
        let mut p = Buf(Vec::new());
        p.u16(words.len() as u16);
        for &w in words {
            p.u64(w);
        }
        p.u32(objects.len() as u32);
        for (i, h, data) in objects {
            p.u32(*i);
            h.encode(&mut p);
            p.put(data);
        }
        p.u32(relocs.len() as u32);
        for r in relocs {
            r.encode(&mut p);
        }
        let mut out = header(KIND_PATCH, &p.0).to_vec();
        out.extend_from_slice(&p.0);
        out
    }

    fn reloc(object: u32, offset: u64, target: u32) -> Reloc {
        Reloc { object, offset, target_kind: RELOC_OBJECT, target, addend: 0 }
    }

    #[test]
    fn a_patch_sets_words_and_pointers_inside_their_objects() {
        let (mut cx, blocks) = context();
        let mut st = State::default();
        let p = patch(&[7, 9], &[], &[reloc(RELOC_IN_ARG, 1, 0), reloc(1, 24, 0)]);
        assert_eq!(cx.apply_patch(&mut st, &p), Ok(()));
        assert_eq!(cx.words, [7, blocks[0].as_ptr() as u64]);
        assert_eq!(blocks[1][24..32], (blocks[0].as_ptr() as u64).to_le_bytes());
    }

    #[test]
    fn a_relocation_past_its_object_or_into_no_object_is_refused() {
        let (mut cx, blocks) = context();
        let mut st = State::default();
        for bad in [reloc(0, 9, 1), reloc(1, 25, 0), reloc(1, u64::MAX - 3, 0), reloc(2, 0, 0), reloc(0, 0, 5)] {
            let p = patch(&[0, 0], &[], &[bad]);
            assert_eq!(cx.apply_patch(&mut st, &p), Err(REPLAY_EXIT_MALFORMED), "{bad:?}");
        }
        assert!(blocks.iter().all(|b| b.iter().all(|&x| x == 0)));
        let p = patch(&[0], &[], &[]);
        assert_eq!(cx.apply_patch(&mut st, &p), Err(REPLAY_EXIT_MALFORMED), "another number of arguments");
    }

    /// Mutated patches (bit flips, bytes, cuts, field values, the
    /// checksum made to fit) never panic, and what they are let write
    /// stays inside the objects: the guards after them stay zero. The
    /// count is `RUNTIME_FUZZ_INPUTS` (default 20 000).
    #[test]
    fn mutated_patches_never_panic_nor_write_outside_their_objects() {
        let n = crate::fuzzing::inputs();
        let head = |size, len| ObjectHead { kind: OBJ_HEAP, global: 0, addr: 0, size, len };
        let data = [0x41u8; 8];
        let valid = patch(&[1, 2], &[(1, head(8, 8), &data)], &[reloc(0, 8, 1), reloc(RELOC_IN_ARG, 0, 0)]);
        let mut st = State::default();
        let mut m = crate::fuzzing::Mutator::new(0x9e37_79b9_7f4a_7c15);
        let (mut accepted, mut rejected, mut skipped) = (0u64, 0u64, 0u64);
        for _ in 0..n {
            let bytes = m.mutate(KIND_PATCH, &valid);
            // Streams, descriptors and the locale are the process's own
            // (a descriptor is reopened over whatever number it had):
            // not for a test process.
            if touches_the_process(&bytes) {
                skipped += 1;
                continue;
            }
            let (mut cx, blocks) = context();
            match cx.apply_patch(&mut st, &bytes) {
                Ok(()) => accepted += 1,
                Err(_) => rejected += 1,
            }
            assert!(blocks[0][16..].iter().all(|&x| x == 0) && blocks[1][32..].iter().all(|&x| x == 0));
            // Objects the patch replaced are in blocks of their own.
            for (place, b) in cx.places.iter().zip(&blocks) {
                if *place != b.as_ptr() as usize {
                    // SAFETY: `place` allocated them with calloc.
                    unsafe { libc::free(*place as *mut libc::c_void) };
                }
            }
        }
        std::println!("| runtime patch ({skipped} naming streams, descriptors, the locale: not run) | {n} | {accepted} | {rejected} | 0 |");
        assert!(accepted > 0 && rejected > 0);
    }

    /// Whether a patch (as `apply_patch` reads it) replaces a stream, a
    /// descriptor or the locale.
    fn touches_the_process(bytes: &[u8]) -> bool {
        let Ok((_, payload, _)) = next_record(bytes) else { return false };
        let mut r = Reader::new(payload);
        let Ok(n) = r.u16() else { return false };
        for _ in 0..n {
            if r.u64().is_err() {
                return false;
            }
        }
        let Ok(nobj) = r.u32() else { return false };
        for _ in 0..nobj {
            let (Ok(_), Ok(h)) = (r.u32(), ObjectHead::decode(&mut r)) else { return false };
            if matches!(h.kind, OBJ_STREAM | OBJ_FD | OBJ_LOCALE) {
                return true;
            }
            if r.take(h.len as usize).is_err() {
                return false;
            }
        }
        false
    }
}
