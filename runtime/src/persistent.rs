//! Persistent mode for libFuzzer harnesses: a forked child runs many
//! inputs instead of one. After each run the harness driver calls
//! [`__carve_persistent_next`]; the child stops itself (`SIGSTOP`), the
//! fork server reports the stop to the client as the end of a run, and
//! continues the child (`SIGCONT`) for the next input instead of forking.
//! A fork per run costs more than a harness's run of a small input.
//!
//! Only plain runs persist: carving, replay, symbolic runs, command lines
//! taken from the test and AFL++'s fork server all keep one run per child.
//! Failing stacks (`stack.rs`) are written as in any run: a crash or a
//! hang ends the child. The child exits after `CARVE_PERSISTENT` runs (state a
//! harness leaks stays bounded), and before its CPU-time limit comes near,
//! so that the limit never ends a run it did not spend.

use crate::sys;
use core::ffi::c_int;
use core::sync::atomic::{AtomicI32, AtomicU32, AtomicU64, Ordering};

/// Runs per child (0: persistent mode is off).
static LIMIT: AtomicU32 = AtomicU32::new(0);
static RUNS: AtomicU32 = AtomicU32::new(0);
/// The CPU-time (seconds) and address-space (bytes) limits the client set
/// before the fork server started, read once (`u64::MAX`: none).
static CPU_LIMIT: AtomicU64 = AtomicU64::new(u64::MAX);
static SPACE_LIMIT: AtomicU64 = AtomicU64::new(u64::MAX);
/// This child's pid (0 before `on_fork`): it stops itself with one `kill`,
/// where `raise` asks for its thread and process ids first.
static PID: AtomicI32 = AtomicI32::new(0);

/// Decides, in the fork server before its first fork, whether children
/// persist: `CARVE_PERSISTENT` above 1, and a plain run.
pub fn decide() {
    let n = sys::getenv(sys::PERSISTENT).and_then(sys::parse_int).unwrap_or(0);
    let special = [sys::CARVE_DIR, sys::REPLAY, sys::SYM_IN, sys::SYM_FILE, sys::LIST, sys::ARGS_FILE]
        .iter()
        .any(|v| sys::getenv(v).is_some())
        || sys::getenv(sys::ARGS_IN_INPUT) == Some(b"1");
    if n > 1 && !special {
        CPU_LIMIT.store(soft_limit(libc::RLIMIT_CPU), Ordering::Relaxed);
        SPACE_LIMIT.store(soft_limit(libc::RLIMIT_AS), Ordering::Relaxed);
        LIMIT.store(n.min(i64::from(u32::MAX)) as u32, Ordering::Relaxed);
    }
}

/// The soft limit on `resource` (`u64::MAX`: none, or unreadable).
fn soft_limit(resource: libc::__rlimit_resource_t) -> u64 {
    // SAFETY: a plain query into a local struct.
    unsafe {
        let mut l: libc::rlimit = core::mem::zeroed();
        if libc::getrlimit(resource, &mut l) != 0 || l.rlim_cur == libc::RLIM_INFINITY {
            return u64::MAX;
        }
        l.rlim_cur
    }
}

/// Whether forked children persist.
pub fn enabled() -> bool {
    LIMIT.load(Ordering::Relaxed) > 1
}

/// In a forked child of a persistent fork server (`server`, its pid):
/// the child dies with the fork server (a stopped child would otherwise
/// outlive it), also when the server died before the child asked.
pub fn on_fork(server: libc::pid_t) {
    if enabled() {
        // SAFETY: plain prctl and getppid calls on this process.
        unsafe {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if libc::getppid() != server {
                libc::_exit(0);
            }
            PID.store(libc::getpid(), Ordering::Relaxed);
        }
    }
}

/// After a run of the harness: stops this child until the fork server
/// continues it with the next input, and returns 1; returns 0 when the
/// child is to exit instead (persistent mode off, its runs made, or its
/// CPU time half spent).
#[no_mangle]
pub extern "C" fn __carve_persistent_next() -> c_int {
    let limit = LIMIT.load(Ordering::Relaxed);
    if limit <= 1 {
        return 0;
    }
    let runs = RUNS.fetch_add(1, Ordering::Relaxed) + 1;
    if runs >= limit || near_limits() {
        return 0;
    }
    let pid = PID.load(Ordering::Relaxed);
    // SAFETY: stops this process (SIGSTOP stops every thread of it); the
    // fork server continues it.
    unsafe {
        if pid <= 0 || libc::kill(pid, libc::SIGSTOP) != 0 {
            libc::raise(libc::SIGSTOP);
        }
    }
    1
}

/// Whether this child has spent half its CPU-time limit (a run may take up
/// to the other half: the limit is twice the run's time limit and more),
/// or holds half its address-space limit in memory.
fn near_limits() -> bool {
    // SAFETY: a plain query into a local struct.
    let usage = unsafe {
        let mut u: libc::rusage = core::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_SELF, &mut u) != 0 {
            return true;
        }
        u
    };
    let spent = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + 1) as u64;
    let rss = usage.ru_maxrss as u64 * 1024;
    spent.saturating_mul(2) >= CPU_LIMIT.load(Ordering::Relaxed)
        || rss.saturating_mul(2) >= SPACE_LIMIT.load(Ordering::Relaxed)
}
