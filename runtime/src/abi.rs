//! Every `extern "C"` entry point of the runtime the probes call (the
//! symbolic shadow's are in `symabi.rs` and the model files).
//! `bridge/tests/suite/abi.rs` checks that every function the pass declares
//! is defined here with the same machine types, and that
//! `include/carve_rt.h` says the same.

use crate::carve::{self, Config};
use crate::model::snapshot::{NO_GLOBAL, OBJ_ARGV, OBJ_GLOBAL, OBJ_HEAP, OBJ_STREAM};
use crate::model::MAP_SIZE;
use crate::state::{self, __carve_tracking};
use crate::tables::{FuncEntry, GlobalEntry};
use crate::{args, forkserver, map, replay};
use core::cell::UnsafeCell;
use core::ffi::{c_char, c_int};
use core::sync::atomic::{AtomicBool, Ordering};

/// Where counters go before their module registers (and the private map
/// when the target runs without `bridge`).
#[repr(C, align(64))]
pub struct DummyMap(pub(crate) UnsafeCell<[u8; MAP_SIZE]>);
// SAFETY: counters are racy by design, as in AFL; nobody reads them in-process.
unsafe impl Sync for DummyMap {}

#[no_mangle]
pub static __carve_dummy_map: DummyMap = DummyMap(UnsafeCell::new([0; MAP_SIZE]));

static CONFIGURED: AtomicBool = AtomicBool::new(false);

/// `sizeof(FILE)` in glibc on x86-64.
const FILE_SIZE: usize = 216;

extern "C" {
    static environ: *mut *mut c_char;
    static stdin: *mut libc::FILE;
    static stdout: *mut libc::FILE;
    static stderr: *mut libc::FILE;
}

/// Reads the environment once (at the first registration): carving on or off.
fn configure() {
    if CONFIGURED.swap(true, Ordering::Relaxed) {
        return;
    }
    if let Some(cfg) = Config::from_env() {
        state::with(|st| {
            st.config = Some(cfg);
            // SAFETY: libc's standard streams are set up before any constructor.
            for f in unsafe { [stdin, stdout, stderr] } {
                st.objects.insert(f as usize, FILE_SIZE, OBJ_STREAM, NO_GLOBAL);
            }
        });
        __carve_tracking.store(1, Ordering::Relaxed);
        if crate::sys::getenv(crate::sys::DEFER) == Some(b"1")
            && !crate::sys::in_main_program(__carve_register_module as *const () as usize)
        {
            crate::carve::OPEN.store(false, Ordering::Relaxed);
        }
    }
}

/// Registers one instrumented module (called by its constructor, before
/// `main`): `*area` becomes the module's slice of the coverage map, `edges`
/// counters long; the function table (`{fn, name, trampoline}[nfuncs]`),
/// the global table (`{addr, size, name}[nglobals]`) and the dirty array
/// (a byte per global) are kept for carving and replay.
///
/// # Safety
/// The pointers are the module's own, as the pass emits them.
#[no_mangle]
pub unsafe extern "C" fn __carve_register_module(
    area: *mut *mut u8,
    edges: u32,
    branches: u32,
    funcs: *const FuncEntry,
    nfuncs: u32,
    globals: *const GlobalEntry,
    nglobals: u32,
    dirty: *mut u8,
) {
    if area.is_null() {
        return;
    }
    configure();
    crate::stack::note_module(funcs as usize);
    let slice = map::place_module(edges, branches);
    *area = slice;
    let base = map::slot_of(slice);
    let tracking = state::tracking();
    state::with(|st| {
        st.tables.register(base, funcs, nfuncs, globals, nglobals, dirty);
        if tracking {
            st.tables.keep_baseline(BASELINE_CAP);
        }
        let m = st.tables.modules.last().expect("just registered");
        GENERATION.fetch_add(1, Ordering::Release);
        if tracking {
            let first = m.first_global;
            let regs: alloc::vec::Vec<(usize, usize)> =
                (0..m.nglobals()).filter_map(|j| m.global(j)).map(|g| (g.addr as usize, g.size as usize)).collect();
            for (j, (addr, size)) in regs.into_iter().enumerate() {
                st.objects.insert(addr, size, OBJ_GLOBAL, first + j as u32);
            }
        }
    });
    start_in_host();
}

/// Registers one module's dictionary (called by its constructor, before
/// it registers the module): `len` bytes of tokens, each a length byte and
/// its bytes, listed with the functions (`CARVE_LIST`).
///
/// # Safety
/// `tokens` is the module's constant array of `len` bytes, or null.
#[no_mangle]
pub unsafe extern "C" fn __carve_register_tokens(tokens: *const u8, len: u32) {
    if tokens.is_null() || len == 0 {
        return;
    }
    let blob = core::slice::from_raw_parts(tokens, len as usize);
    state::with(|st| st.tables.tokens.push(blob));
}

/// Largest global whose bytes at registration are kept while carving.
const BASELINE_CAP: usize = 1 << 20;

static HOST_STARTED: AtomicBool = AtomicBool::new(false);

/// An instrumented shared library in a program built without carve-clang
/// (Python's `sqlite3` module loading an instrumented `libsqlite3.so`):
/// no instrumented `main` will call [`__carve_main_entry`], so the first
/// module to register does what it does, from its constructor: the
/// failing-stack handlers, the fork server (forking the host from here on,
/// every run going on from the library's loading), unit replay and the
/// function list. The runtime is then `libcarve_rt.so`, not a copy linked
/// into the program (an instrumented program's copy interposes it).
fn start_in_host() {
    if crate::sys::in_main_program(__carve_register_module as *const () as usize)
        || crate::sys::getenv(crate::sys::DEFER) == Some(b"1")
    {
        return;
    }
    __carve_start();
}

/// Starts the runtime in a host built without carve-clang, once: the
/// failing-stack handlers, the fork server (every run goes on from this
/// call), unit replay and the function list. Called at the first module's
/// registration, or, with `CARVE_DEFER=1`, by the host itself once it has
/// set itself up (a Python driver, through `ctypes`, after its imports and
/// its database: each run then starts from there). Does nothing in a
/// program whose `main` is instrumented, or the second time.
#[no_mangle]
pub extern "C" fn __carve_start() {
    if MAIN_ENTERED.load(Ordering::Relaxed) || HOST_STARTED.swap(true, Ordering::Relaxed) {
        return;
    }
    crate::carve::OPEN.store(true, Ordering::Relaxed);
    crate::stack::install_if_asked();
    forkserver::start_if_asked();
    replay::run_if_asked();
}

static MAIN_ENTERED: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);

/// Called first thing in `main` with the addresses of `main`'s `argc` and
/// `argv` (null when `main` takes none): starts the fork server when
/// `bridge` asked for one (`CARVE_FORKSRV=1`); in each run, replaces the
/// command line when `CARVE_ARGS_FILE` is set (or takes it from the test
/// file with `CARVE_ARGS_IN_INPUT=1`), records argv and envp when carving,
/// and replays a unit (`CARVE_REPLAY`) or lists the functions
/// (`CARVE_LIST`) instead of running `main`. Returns non-zero when the run
/// carves: `main` then runs its out-of-line copy, whose calls the probes see.
///
/// # Safety
/// `argc` and `argv` are null or point to `main`'s argument slots.
#[no_mangle]
pub unsafe extern "C" fn __carve_main_entry(argc: *mut c_int, argv: *mut *mut *mut c_char) -> c_int {
    // Once per process: a replayed `main` of a module built without
    // out-of-line copies meets this hook again.
    if MAIN_ENTERED.swap(true, core::sync::atomic::Ordering::Relaxed) {
        return 0;
    }
    // Before the fork server: its children inherit the handlers, the
    // alternate stack and the open file (opened before privileges drop).
    crate::stack::install_if_asked();
    forkserver::start_if_asked();
    if !argc.is_null() && !argv.is_null() {
        args::replace_if_asked(argc, argv);
        crate::input_args::replace_if_asked(argc, argv);
        if state::tracking() {
            let (n, v) = (*argc as usize, *argv);
            state::with(|st| {
                st.objects.insert(v as usize, (n + 1) * 8, OBJ_ARGV, NO_GLOBAL);
                for i in 0..n {
                    let s = *v.add(i);
                    if !s.is_null() {
                        st.objects.insert(s as usize, libc::strlen(s) + 1, OBJ_ARGV, NO_GLOBAL);
                    }
                }
                // envp, likewise (its array ends with a null pointer).
                let env = environ;
                if !env.is_null() {
                    let mut k = 0;
                    while !(*env.add(k)).is_null() && k < 1 << 16 {
                        let s = *env.add(k);
                        st.objects.insert(s as usize, libc::strlen(s) + 1, OBJ_ARGV, NO_GLOBAL);
                        k += 1;
                    }
                    st.objects.insert(env as usize, (k + 1) * 8, OBJ_ARGV, NO_GLOBAL);
                }
            });
        }
    }
    replay::run_if_asked();
    c_int::from(state::tracking())
}

/// What an indirect call in an out-of-line copy calls: the copy of the
/// function `fp` points to (so carving sees the call), or `fp` itself when
/// it is no instrumented function (libc's, say).
#[no_mangle]
pub extern "C" fn __carve_copy_of(fp: *const u8) -> *const u8 {
    state::with(|st| st.tables.function_by_addr(fp as usize).map(|f| f.copy))
        .flatten()
        .filter(|c| !c.is_null())
        .unwrap_or(fp)
}

/// What a module remembers of a [`__carve_copy_named`] lookup: the number
/// of modules registered when it was made, plus one (0: never made), and
/// its answer.
#[repr(C)]
pub struct NamedCache {
    generation: u64,
    found: *const u8,
}

/// Modules registered so far: a lookup made with fewer is stale (a library
/// loaded since may define the function).
static GENERATION: core::sync::atomic::AtomicU64 = core::sync::atomic::AtomicU64::new(0);

/// What a call in an out-of-line copy (`sym == 0`) or in a symbolic clone
/// (`sym != 0`) to a function `name` of another module calls when the
/// static link gave it no copy of its own: the copy or clone of the
/// function the name is bound to in the process, when an instrumented
/// module registered one (an instrumented shared library's function called
/// from the program, say); null for the function itself. The name is
/// resolved by the dynamic loader (`dlsym`), so only the function the
/// program would call matches, never a static one of the same name; the
/// answer is kept in `cache` until another module registers.
///
/// # Safety
/// `name` is a NUL-terminated string; `cache` is the caller's own.
#[no_mangle]
pub unsafe extern "C" fn __carve_copy_named(name: *const c_char, cache: *mut NamedCache, sym: u32) -> *const u8 {
    let generation = GENERATION.load(Ordering::Acquire) + 1;
    if (*cache).generation == generation {
        return (*cache).found;
    }
    let addr = libc::dlsym(libc::RTLD_DEFAULT, name) as usize;
    let found = if addr == 0 {
        Some(core::ptr::null())
    } else {
        state::with(|st| {
            st.tables.function_by_addr(addr).map_or(core::ptr::null(), |f| if sym != 0 { f.sym } else { f.copy })
        })
    };
    // A lookup that found the state busy is tried again next time.
    let Some(found) = found else { return core::ptr::null() };
    *cache = NamedCache { generation, found };
    found
}

/// A function was entered (only called while tracking). `area` and `k`
/// name it; `args`/`kinds` are its arguments (`kinds` null when they cannot
/// be recorded); `frame` holds `nframe` (address, size) pairs of its stack
/// objects. Returns the token for `__carve_leave` (0: nothing to do).
///
/// # Safety
/// The arrays hold the stated number of elements.
#[no_mangle]
pub unsafe extern "C" fn __carve_enter(
    area: *const u8,
    k: u32,
    args: *const u64,
    nargs: u32,
    kinds: *const u8,
    frame: *const u64,
    nframe: u32,
) -> u64 {
    let function = map::slot_of(area) + k;
    let args = if nargs == 0 { &[][..] } else { core::slice::from_raw_parts(args, nargs as usize) };
    let kinds = (!kinds.is_null()).then(|| core::slice::from_raw_parts(kinds, 2 * nargs as usize));
    let frame = if nframe == 0 { &[][..] } else { core::slice::from_raw_parts(frame, 2 * nframe as usize) };
    state::with(|st| carve::enter(st, function, args, kinds, frame)).unwrap_or(0)
}

/// The call that got `token` from `__carve_enter` returns `ret`.
#[no_mangle]
pub extern "C" fn __carve_leave(token: u64, ret: u64, has_ret: u32) {
    state::with(|st| carve::leave(st, token, ret, has_ret as u8));
}

/// After `malloc`-like calls: `p` holds `size` bytes.
#[no_mangle]
pub extern "C" fn __carve_on_alloc(p: *mut u8, size: u64) {
    if state::registers() {
        state::with(|st| st.objects.insert(p as usize, size as usize, OBJ_HEAP, NO_GLOBAL));
    }
}

/// After `realloc`: `old` is gone (when `new` is not null), `new` holds `size`.
#[no_mangle]
pub extern "C" fn __carve_on_realloc(old: *mut u8, new: *mut u8, size: u64) {
    if state::registers() && !new.is_null() {
        state::with(|st| {
            st.objects.remove(old as usize);
            st.objects.insert(new as usize, size as usize, OBJ_HEAP, NO_GLOBAL);
        });
    }
}

/// Before `free(p)`.
#[no_mangle]
pub extern "C" fn __carve_on_free(p: *mut u8) {
    if state::registers() {
        state::with(|st| st.objects.remove(p as usize));
    }
}

/// After `strdup`-like calls: `s` is a fresh string.
///
/// # Safety
/// `s` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn __carve_on_string(s: *mut c_char) {
    if state::registers() && !s.is_null() {
        let size = libc::strlen(s) + 1;
        state::with(|st| st.objects.insert(s as usize, size, OBJ_HEAP, NO_GLOBAL));
    }
}

/// After `getline(line, n, ...)`: `old` was `*line` before the call.
///
/// # Safety
/// `line` and `n` are the call's arguments.
#[no_mangle]
pub unsafe extern "C" fn __carve_on_getline(old: *mut c_char, line: *mut *mut c_char, n: *mut usize) {
    if state::registers() && !line.is_null() && !n.is_null() {
        let (p, size) = (*line, *n);
        state::with(|st| {
            if p != old {
                st.objects.remove(old as usize);
            }
            st.objects.insert(p as usize, size, OBJ_HEAP, NO_GLOBAL);
        });
    }
}

/// After `fopen`-like calls: `f` is a fresh stream.
#[no_mangle]
pub extern "C" fn __carve_on_stream(f: *mut libc::FILE) {
    if state::tracking() && !f.is_null() {
        state::with(|st| st.objects.insert(f as usize, FILE_SIZE, OBJ_STREAM, NO_GLOBAL));
    }
}
