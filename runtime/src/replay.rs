//! Unit replay (`CARVE_REPLAY=unit`): instead of running `main`, restore a
//! carved call's context (fresh objects for heap, stack and argv objects;
//! the real globals for globals), patch its pointers, call the function
//! through its trampoline and write the outcome (`CARVE_REPLAY_OUT`).
//! Also the function list (`CARVE_LIST`: `id first_branch branches name`
//! lines).

use crate::model::snapshot::*;
use crate::model::{REPLAY_EXIT_MALFORMED, REPLAY_EXIT_NOT_REPLAYABLE, REPLAY_EXIT_UNREADABLE};
use crate::state::State;
use crate::{map, sys};
use alloc::vec::Vec;

/// Called at `main` (after the fork server, if any): never returns when
/// asked to replay or list.
pub fn run_if_asked() {
    if let Some(path) = sys::getenv(sys::LIST) {
        let path = path.to_vec();
        crate::state::with(|st| list(st, &path));
        exit(0);
    }
    let Some(path) = sys::getenv(sys::REPLAY) else { return };
    let Some(bytes) = sys::read_file(path) else {
        sys::complain(b"replay: cannot read the unit file");
        exit(REPLAY_EXIT_UNREADABLE);
    };
    // The context is restored under the state's lock; the call runs
    // without it (the function's own probes may need the state).
    let prepared = crate::state::with(|st| restore(st, &bytes)).unwrap_or(Err(REPLAY_EXIT_MALFORMED));
    match prepared {
        Ok((tramp, mut words)) => {
            call(tramp, &mut words);
            exit(0)
        }
        Err(c) => exit(c),
    }
}

fn exit(code: i32) -> ! {
    // SAFETY: leaving the process without running the program.
    unsafe { libc::_exit(code) }
}

fn list(st: &State, path: &[u8]) {
    let mut out = Vec::new();
    // `id first_branch branches name` per line.
    for (id, name, (first, n)) in st.tables.functions() {
        for v in [id, first, n] {
            sys::push_decimal(&mut out, u64::from(v));
            out.push(b' ');
        }
        out.extend_from_slice(name.to_bytes());
        out.push(b'\n');
    }
    sys::write_file(path, &out);
}

type Tramp = extern "C" fn(*mut u64) -> u64;

fn restore(st: &mut State, bytes: &[u8]) -> Result<(Tramp, Vec<u64>), i32> {
    let bad = |what: &[u8]| {
        sys::complain(what);
        REPLAY_EXIT_MALFORMED
    };
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
            args.push(Arg::decode(r)?);
        }
        Ok((function, args))
    };
    let (function, args) = parse(&mut r).map_err(|_| bad(b"replay: malformed snapshot"))?;
    let nobj = r.u32().map_err(|_| bad(b"replay: malformed snapshot"))? as usize;
    // Every object gets its place; bytes are copied in.
    let mut places: Vec<usize> = Vec::with_capacity(nobj.min(1 << 16));
    for _ in 0..nobj {
        let h = ObjectHead::decode(&mut r).map_err(|_| bad(b"replay: malformed object"))?;
        let data = r.take(h.len as usize).map_err(|_| bad(b"replay: truncated object"))?;
        let place = if h.kind == OBJ_FD {
            reopen(h.global, h.addr, data);
            0
        } else if h.kind == OBJ_LOCALE {
            let mut name = data.to_vec();
            name.push(0);
            // SAFETY: a NUL-terminated locale name.
            unsafe { libc::setlocale(libc::LC_ALL, name.as_ptr().cast()) };
            0
        } else if h.kind == OBJ_STREAM {
            open_stream(h.global, data).ok_or_else(|| bad(b"replay: cannot recreate a stream"))?
        } else if h.kind == OBJ_GLOBAL {
            let g = st.tables.global(h.global).ok_or_else(|| bad(b"replay: unknown global (another binary?)"))?;
            if h.len > g.size {
                return Err(bad(b"replay: global larger than in this binary"));
            }
            g.addr as usize
        } else {
            // SAFETY: a fresh zeroed block, at least one byte.
            let p = unsafe { libc::calloc(1, (h.size as usize).max(1)) } as usize;
            if p == 0 {
                return Err(bad(b"replay: out of memory"));
            }
            p
        };
        // SAFETY: `place` holds at least `len` bytes (checked above for
        // globals); a global that already holds them is not written (it may
        // be read-only).
        let same =
            h.kind == OBJ_GLOBAL && unsafe { core::slice::from_raw_parts(place as *const u8, data.len()) } == data;
        if h.kind != OBJ_STREAM && h.kind != OBJ_FD && h.kind != OBJ_LOCALE && !same {
            unsafe { core::ptr::copy_nonoverlapping(data.as_ptr(), place as *mut u8, data.len()) };
        }
        places.push(place);
    }
    let mut words: Vec<u64> = args.iter().map(|a| a.value).collect();
    let nrel = r.u32().map_err(|_| bad(b"replay: malformed snapshot"))? as usize;
    for _ in 0..nrel {
        let x = Reloc::decode(&mut r).map_err(|_| bad(b"replay: malformed relocation"))?;
        let value = match x.target_kind {
            RELOC_OBJECT => {
                places.get(x.target as usize).ok_or_else(|| bad(b"replay: relocation to no object"))?
                    + x.addend as usize
            }
            _ => st.tables.function(x.target).ok_or_else(|| bad(b"replay: unknown function"))?.addr as usize,
        };
        if x.object == RELOC_IN_ARG {
            *words.get_mut(x.offset as usize).ok_or_else(|| bad(b"replay: relocation of no argument"))? = value as u64;
        } else {
            let place = *places.get(x.object as usize).ok_or_else(|| bad(b"replay: relocation in no object"))?;
            // SAFETY: the offset was in the recorded bytes of that object.
            unsafe { (place as *mut u8).add(x.offset as usize).cast::<u64>().write_unaligned(value as u64) };
        }
    }
    let Some(f) = st.tables.function(function) else {
        return Err(bad(b"replay: unknown function (another binary?)"));
    };
    if f.tramp.is_null() {
        sys::complain(b"replay: this function cannot be called from a unit (its parameters)");
        return Err(REPLAY_EXIT_NOT_REPLAYABLE);
    }
    // SAFETY: the pass made this trampoline for exactly this function.
    let tramp: Tramp = unsafe { core::mem::transmute(f.tramp) };
    Ok((tramp, words))
}

/// Calls the function on a clean map and writes the outcome.
fn call(tramp: Tramp, words: &mut [u64]) {
    map::clear();
    let ret = tramp(words.as_mut_ptr());
    let edges: Vec<u32> = map::slice().iter().enumerate().filter(|(_, &h)| h != 0).map(|(i, _)| i as u32).collect();
    if let Some(out) = sys::getenv(sys::REPLAY_OUT) {
        let mut p = crate::carve::Buf(Vec::with_capacity(16 + 4 * edges.len()));
        encode_outcome(&mut p, ret, RET_VALUE, edges.into_iter());
        let mut file = header(KIND_OUTCOME, &p.0).to_vec();
        file.extend_from_slice(&p.0);
        sys::write_file(out, &file);
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
fn reopen(mode: u32, offset: u64, path: &[u8]) {
    let fd = (mode & 0xff_ffff) as i32;
    let acc = ((mode >> 24) as i32) & libc::O_ACCMODE;
    let mut p = path.to_vec();
    p.push(0);
    // SAFETY: plain descriptor calls on a NUL-terminated path.
    unsafe {
        let f = libc::open(p.as_ptr().cast(), acc | libc::O_CLOEXEC);
        if f < 0 {
            return;
        }
        if f != fd {
            libc::dup2(f, fd);
            libc::close(f);
        }
        libc::lseek(fd, offset as i64, libc::SEEK_SET);
    }
}
