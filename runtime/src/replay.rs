//! Unit replay (`CARVE_REPLAY=unit`): instead of running `main`, restore a
//! carved call's context ([`crate::restore`]), apply this try's patch
//! (`CARVE_REPLAY_PATCH`) if any, call the function through its trampoline
//! and write the outcome (`CARVE_REPLAY_OUT`). Under a fork server with a
//! patch file, the context is restored once, in the fork server, and each
//! forked try only applies its patch. Also the function list (`CARVE_LIST`:
//! `id first_branch branches name` lines, then `token HEX` lines: the
//! modules' dictionaries).

use crate::model::op::Op;
use crate::model::snapshot::*;
use crate::model::trace::{SymInput, KIND_SYM_IN, SYM_IN_FILE};
use crate::model::{REPLAY_EXIT_MALFORMED, REPLAY_EXIT_NOT_REPLAYABLE, REPLAY_EXIT_UNREADABLE};
use crate::restore::{restore, Context, Tramp};
use crate::state::State;
use crate::{map, sys};
use alloc::vec::Vec;
use core::cell::UnsafeCell;

/// The context the fork server restored for its tries (or why it could
/// not).
struct Served(UnsafeCell<Option<Result<Context, i32>>>);
// SAFETY: written once before the fork server serves, read in its
// single-threaded children.
unsafe impl Sync for Served {}
static SERVED: Served = Served(UnsafeCell::new(None));

/// Called by the fork server before it serves: with a unit and a patch
/// file, the unit is restored here once, for every try.
pub fn prepare_for_serving() {
    if sys::getenv(sys::REPLAY).is_some() && sys::getenv(sys::REPLAY_PATCH).is_some() {
        let cx = load();
        // SAFETY: single-threaded, before any try is forked.
        unsafe { *SERVED.0.get() = Some(cx) };
    }
}

fn load() -> Result<Context, i32> {
    let path = sys::getenv(sys::REPLAY).unwrap_or_default();
    let Some(bytes) = sys::read_file(path) else {
        sys::complain(b"replay: cannot read the unit file");
        return Err(REPLAY_EXIT_UNREADABLE);
    };
    // The context is restored under the state's lock; the call runs
    // without it (the function's own probes may need the state).
    crate::state::with(|st| restore(st, &bytes)).unwrap_or(Err(REPLAY_EXIT_MALFORMED))
}

/// Called at `main` (after the fork server, if any): never returns when
/// asked to replay or list.
pub fn run_if_asked() {
    if let Some(path) = sys::getenv(sys::LIST) {
        let path = path.to_vec();
        crate::state::with(|st| list(st, &path));
        exit(0);
    }
    if sys::getenv(sys::REPLAY).is_none() {
        return;
    }
    // SAFETY: single-threaded; the fork server stored it before forking.
    let served = unsafe { (*SERVED.0.get()).take() };
    let mut cx = match served.unwrap_or_else(load) {
        Ok(cx) => cx,
        Err(code) => exit(code),
    };
    cx.rewind();
    if let Some(path) = sys::getenv(sys::REPLAY_PATCH) {
        let Some(patch) = sys::read_file(path) else {
            sys::complain(b"replay: cannot read the patch file");
            exit(REPLAY_EXIT_UNREADABLE);
        };
        // An empty patch file: the unit as carved.
        if !patch.is_empty() {
            let applied = crate::state::with(|st| cx.apply_patch(st, &patch)).unwrap_or(Err(REPLAY_EXIT_MALFORMED));
            if let Err(code) = applied {
                exit(code);
            }
        }
    }
    if let Some(spec) = sys::getenv(sys::SYM_IN) {
        symbolic(&mut cx, spec);
    }
    call(cx.tramp, &mut cx.words);
    exit(0)
}

/// A symbolic replay: the parameter bytes the spec names get input
/// expressions, the function's symbolic clone runs, the trace is written.
fn symbolic(cx: &mut Context, spec: &[u8]) -> ! {
    let Some(bytes) = sys::read_file(spec) else {
        sys::complain(b"replay: cannot read the symbolic-input file");
        exit(REPLAY_EXIT_UNREADABLE);
    };
    let Some(tramp) = cx.sym_tramp else {
        sys::complain(b"replay: this function has no symbolic clone (rebuild the program with carve-clang)");
        exit(REPLAY_EXIT_NOT_REPLAYABLE);
    };
    let inputs = parse_sym_in(&bytes).unwrap_or_else(|| {
        sys::complain(b"replay: malformed symbolic-input file");
        exit(REPLAY_EXIT_MALFORMED)
    });
    // Only a symbolic replay checks accesses: a plain try does not pay
    // for registering every block its call allocates.
    crate::state::start_replaying();
    let s = crate::sym::activate();
    for i in inputs {
        if i.object == SYM_IN_FILE {
            if !crate::symfile::register(i.first, i.len) {
                sys::complain(b"replay: the symbolic input file (CARVE_SYM_FILE) is not there");
            }
            continue;
        }
        let Some((p, there)) = cx.place_of(i.object, i.offset, i.len) else {
            sys::complain(b"replay: a symbolic input has no place in this unit");
            exit(REPLAY_EXIT_MALFORMED);
        };
        for k in 0..there {
            let n = s.node(Op::Input, 8, 0, 0, 0, u64::from(i.first + k));
            s.set_byte(p as usize + k as usize, n);
        }
    }
    // A function that ends the program (`exit` in `main`, `usage`) still
    // leaves its trace.
    // SAFETY: registering a handler that takes no arguments.
    unsafe { libc::atexit(trace_at_exit) };
    call(tramp, &mut cx.words);
    write_trace();
    exit(0)
}

extern "C" fn trace_at_exit() {
    write_trace();
}

/// Writes the trace once (the shadow stops with it).
fn write_trace() {
    if let (Some(trace), Some(out)) = (crate::sym::finish(), sys::getenv(sys::SYM_OUT)) {
        sys::write_file(out, &trace);
    }
}

fn parse_sym_in(bytes: &[u8]) -> Option<Vec<SymInput>> {
    let (kind, payload, _) = next_record(bytes).ok()?;
    if kind != KIND_SYM_IN {
        return None;
    }
    let mut r = Reader::new(payload);
    let n = r.u32().ok()?;
    (0..n).map(|_| SymInput::decode(&mut r).ok()).collect()
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
    // `token HEX` per token of the modules' dictionaries.
    for blob in &st.tables.tokens {
        let mut rest: &[u8] = blob;
        while let Some((&n, tail)) = rest.split_first() {
            let t = &tail[..(n as usize).min(tail.len())];
            out.extend_from_slice(b"token ");
            sys::push_hex(&mut out, t);
            out.push(b'\n');
            rest = &tail[t.len()..];
        }
    }
    sys::write_file(path, &out);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::carve::Buf;

    fn sym_in(inputs: &[SymInput]) -> Vec<u8> {
        let mut p = Buf(Vec::new());
        p.u32(inputs.len() as u32);
        for i in inputs {
            i.encode(&mut p);
        }
        let mut out = header(KIND_SYM_IN, &p.0).to_vec();
        out.extend_from_slice(&p.0);
        out
    }

    #[test]
    fn the_symbolic_input_file_reads_back_and_anything_else_is_refused() {
        let inputs = [
            SymInput { object: RELOC_IN_ARG, offset: 1, len: 8, first: 0 },
            SymInput { object: SYM_IN_FILE, offset: 0, len: 100, first: 8 },
        ];
        let bytes = sym_in(&inputs);
        assert_eq!(parse_sym_in(&bytes).as_deref(), Some(&inputs[..]));
        assert_eq!(parse_sym_in(&bytes[..bytes.len() - 1]), None);
        let mut other = bytes.clone();
        other[8] ^= 1; // the record's kind
        assert_eq!(parse_sym_in(&other), None);
        assert_eq!(parse_sym_in(b""), None);
    }

    /// Mutated symbolic-input files never panic (`RUNTIME_FUZZ_INPUTS`,
    /// default 20 000; the checksum made to fit most of the time).
    #[test]
    fn mutated_symbolic_input_files_never_panic() {
        let n = crate::fuzzing::inputs();
        let valid = sym_in(&[
            SymInput { object: 0, offset: 4, len: 3, first: 0 },
            SymInput { object: SYM_IN_FILE, offset: 0, len: 9, first: 3 },
        ]);
        let mut m = crate::fuzzing::Mutator::new(0x2545_f491_4f6c_dd1d);
        let (mut accepted, mut rejected) = (0u64, 0u64);
        for _ in 0..n {
            let bytes = m.mutate(KIND_SYM_IN, &valid);
            match parse_sym_in(&bytes) {
                Some(_) => accepted += 1,
                None => rejected += 1,
            }
        }
        std::println!("| runtime symbolic-input file | {n} | {accepted} | {rejected} | 0 |");
        assert!(accepted > 0 && rejected > 0);
    }
}
