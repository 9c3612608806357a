//! Names of the environment variables (no `std`: the runtime compiles this
//! file too). Registered, with their help, in `env.rs`.

/// System V shared-memory id of the coverage map (set by `bridge`). Absent:
/// the runtime uses a private map so the binary runs standalone.
pub const SHM_ID: &str = "CARVE_SHM_ID";
/// `1`: the runtime performs the fork-server handshake at `main`.
pub const FORKSRV: &str = "CARVE_FORKSRV";
/// `1`: in a host built without carve-clang, the runtime starts (fork
/// server, replay) when the host calls `__carve_start()`, after its own
/// set-up, rather than when the first instrumented library loads.
pub const DEFER: &str = "CARVE_DEFER";
/// Runs a harness's forked child may make before it exits (persistent
/// mode, set by `bridge`): the child stops itself after each run and the
/// fork server continues it for the next. Absent or `1`: one run per child.
pub const PERSISTENT: &str = "CARVE_PERSISTENT";
/// `1`: `bridge` clears and reads the whole coverage map at every run,
/// not only the part the target's modules use (to compare the two, or to
/// rule the narrowing out when coverage looks wrong).
pub const WHOLE_MAP: &str = "CARVE_WHOLE_MAP";
/// Path of the clang used by `carve-clang` (default `clang-19`).
pub const CC: &str = "CARVE_CC";
/// Path of the clang++ used by `carve-clang++` (default `clang++-19`).
pub const CXX: &str = "CARVE_CXX";
/// Path of the runtime static library (default: next to `carve-clang`).
pub const RUNTIME: &str = "CARVE_RUNTIME";
/// `1`: `carve-clang` prints every command it runs.
pub const DEBUG: &str = "CARVE_DEBUG";
/// `1`: `carve-clang` compiles without instrumentation (plain clang).
pub const NO_INSTRUMENT: &str = "CARVE_NO_INSTRUMENT";
/// A directory where `carve-clang` keeps each source's bitcode at every
/// step (front end, copies made, optimised, instrumented).
pub const SAVE_TEMPS: &str = "CARVE_SAVE_TEMPS";
/// Seconds one step of `carve-clang` (front end, pass, optimiser, back end,
/// link) may take before it is stopped with an error naming the step and
/// the file (default 900; `0`: no limit).
pub const CC_TIMEOUT: &str = "CARVE_CC_TIMEOUT";
/// `hang:STEP` or `crash:STEP`: `carve-clang` spins or faults when it enters
/// that step, to check the limit and the crash report (tests).
pub const CC_FAULT: &str = "CARVE_CC_FAULT";
/// `1`: the runtime prints what it does to stderr.
pub const RT_DEBUG: &str = "CARVE_RT_DEBUG";
/// Path of a file holding the arguments of the next run (NUL-terminated
/// strings, `argv[1..]`): set by `bridge` with `--args-in-input`; each
/// forked run reads it and replaces its command line.
pub const ARGS_FILE: &str = "CARVE_ARGS_FILE";
/// `1`: a run started as `prog TEST [ARGS...]` (as `afl-fuzz ... -- prog
/// @@` starts it) takes its command line from TEST's first line, as tests
/// of `bridge run --args-in-input` carry it; `@@` in it is a file holding
/// the rest of TEST.
pub const ARGS_IN_INPUT: &str = "CARVE_ARGS_IN_INPUT";
/// `UID:GID` the fork server switches to before forking runs (set by
/// `bridge` when it runs as root, so targets cannot touch root's files).
pub const RUN_AS: &str = "CARVE_RUN_AS";
/// Directory the runtime writes snapshots of carved calls to; when set, the
/// runtime tracks calls and allocations.
pub const CARVE_DIR: &str = "CARVE_CARVE_DIR";
/// Comma-separated names of the functions to carve (absent: all).
pub const CARVE_FUNCS: &str = "CARVE_CARVE_FUNCS";
/// Most snapshots per function (default 5).
pub const CARVE_MAX: &str = "CARVE_CARVE_MAX";
/// Byte budget of one snapshot's objects (default 1 MiB).
pub const CARVE_BYTES: &str = "CARVE_CARVE_BYTES";
/// A unit file to replay instead of running `main`.
pub const REPLAY: &str = "CARVE_REPLAY";
/// A patch file (a `KIND_PATCH` record) each replay applies over the unit
/// before the call. With `CARVE_FORKSRV=1` the fork server restores the
/// unit once and every forked run applies the patch written for it.
pub const REPLAY_PATCH: &str = "CARVE_REPLAY_PATCH";
/// Where the replay writes the call's outcome record.
pub const REPLAY_OUT: &str = "CARVE_REPLAY_OUT";
/// A file to write the function table to (`id name` lines) instead of
/// running `main`.
pub const LIST: &str = "CARVE_LIST";
/// The symbolic-input file (a `KIND_SYM_IN` record): set, the replay runs
/// the function's symbolic clone with those parameter bytes symbolic.
pub const SYM_IN: &str = "CARVE_SYM_IN";
/// Where a symbolic replay writes its trace (a `KIND_TRACE` record).
pub const SYM_OUT: &str = "CARVE_SYM_OUT";
/// The input file of a symbolic replay whose bytes are symbolic when read
/// ([`crate::trace::SYM_IN_FILE`]): its path, or `-` for stdin.
pub const SYM_FILE: &str = "CARVE_SYM_FILE";
/// A file the runtime writes the failing call stack to when the run
/// crashes, or when it gets `SIGUSR2` (a hang's stack): the signal, the
/// faulting address, then one frame a line as `MODULE OFFSET` (set by
/// `bridge review` and `bridge reduce`, never in campaigns).
pub const STACK_OUT: &str = "CARVE_STACK_OUT";
/// The symbolizer `bridge review` names frames with (default
/// `llvm-symbolizer-19`).
pub const SYMBOLIZER: &str = "CARVE_SYMBOLIZER";
/// The scripts' cache of source packages and subject builds.
pub const CACHE: &str = "CARVE_CACHE";
/// The carve-clang the compiler sweep (scripts/bench/compiler.sh) tests.
pub const CLANG: &str = "CARVE_CLANG";
/// Where the compiler sweep's logging compiler writes the commands it saw.
pub const SWEEP_LOG: &str = "CARVE_SWEEP_LOG";
