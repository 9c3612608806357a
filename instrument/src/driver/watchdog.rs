//! The step `carve-clang` is in, a time limit on each step, and a report
//! naming the step and the file when one runs past its limit or crashes.
//!
//! A build must never wait for ever on the compiler, and a crash of the
//! pass must say where it was. The state lives in statics made of atomics
//! so that the watchdog thread and the signal handler can read it while
//! the main thread is anywhere, inside LLVM included; both write with
//! `write(2)` and leave with `_exit(2)` or the default action of the
//! signal, nothing that could wait on a lock the main thread holds.

use std::sync::atomic::{AtomicI32, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::sync::Once;
use std::time::Duration;

/// The steps of one source's compilation, and the link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// clang: source to unoptimised bitcode.
    Front,
    /// ours: out-of-line copies and source tags (`preserve`).
    Copies,
    /// clang: the optimiser at the user's flags.
    Optimise,
    /// ours: the instrumentation pass.
    Pass,
    /// clang: bitcode to object or assembly.
    Back,
    /// clang: the link.
    Link,
}

impl Step {
    const ALL: [Step; 6] = [Step::Front, Step::Copies, Step::Optimise, Step::Pass, Step::Back, Step::Link];

    /// The name `CARVE_CC_FAULT` uses.
    pub fn key(self) -> &'static str {
        match self {
            Step::Front => "front",
            Step::Copies => "copies",
            Step::Optimise => "optimise",
            Step::Pass => "pass",
            Step::Back => "back",
            Step::Link => "link",
        }
    }

    /// What the step does, for messages.
    pub fn what(self) -> &'static str {
        match self {
            Step::Front => "the front end (clang to bitcode)",
            Step::Copies => "the out-of-line copies (carve-clang, before optimising)",
            Step::Optimise => "the optimiser (clang at the given flags)",
            Step::Pass => "the instrumentation pass (carve-clang)",
            Step::Back => "the back end (clang, bitcode to object)",
            Step::Link => "the link (clang)",
        }
    }

    fn from_key(key: &str) -> Option<Step> {
        Step::ALL.into_iter().find(|s| s.key() == key)
    }
}

/// A fault to inject on entering a step (`CARVE_CC_FAULT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    Hang(Step),
    Crash(Step),
}

impl Fault {
    /// Parses `hang:STEP` or `crash:STEP`.
    pub fn parse(s: &str) -> Result<Fault, String> {
        let (kind, step) = s.split_once(':').ok_or_else(|| format!("'{s}': expected hang:STEP or crash:STEP"))?;
        let keys = || Step::ALL.map(Step::key).join(", ");
        let step = Step::from_key(step).ok_or_else(|| format!("'{step}' is no step (one of {})", keys()))?;
        match kind {
            "hang" => Ok(Fault::Hang(step)),
            "crash" => Ok(Fault::Crash(step)),
            _ => Err(format!("'{kind}': expected hang or crash")),
        }
    }
}

/// Limits and faults of one `carve-clang` run.
#[derive(Debug, Clone, Copy, Default)]
pub struct Watch {
    /// How long one step may take; `None`: for ever.
    pub limit: Option<Duration>,
    pub fault: Option<Fault>,
}

/// The default limit of a step: generous (a large amalgamated source with
/// full debug information takes minutes), but finite.
pub const DEFAULT_LIMIT: Duration = Duration::from_secs(900);

const MSG_CAP: usize = 1024;
static MSG: [AtomicU8; MSG_CAP] = [const { AtomicU8::new(0) }; MSG_CAP];
static MSG_LEN: AtomicUsize = AtomicUsize::new(0);
/// Monotonic milliseconds past which the step is stopped; 0: no step.
static DEADLINE_MS: AtomicU64 = AtomicU64::new(0);
static LIMIT_MS: AtomicU64 = AtomicU64::new(0);
static CHILD: AtomicI32 = AtomicI32::new(0);
/// Set once the watchdog stops the step: from then on the process is the
/// watchdog's to end.
static FIRED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static INSTALL: Once = Once::new();

/// The step under way; leaving it (dropping this) clears it.
#[must_use]
pub struct InStep(());

impl InStep {
    /// The process running the step (a clang), killed if the step runs
    /// past its limit.
    pub fn set_child(&self, pid: u32) {
        CHILD.store(pid as i32, Ordering::SeqCst);
    }
}

impl Drop for InStep {
    fn drop(&mut self) {
        // A clang the watchdog killed returns here: the watchdog is saying
        // why and ends the process.
        while FIRED.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_secs(1));
        }
        DEADLINE_MS.store(0, Ordering::SeqCst);
        CHILD.store(0, Ordering::SeqCst);
        MSG_LEN.store(0, Ordering::SeqCst);
    }
}

/// Enters `step` of `file`: starts its clock (the watchdog thread and the
/// crash handler are installed on first use) and injects `watch.fault`.
pub fn enter(watch: &Watch, step: Step, file: &str) -> InStep {
    INSTALL.call_once(install);
    MSG_LEN.store(0, Ordering::SeqCst);
    let text = format!("{} of {file}", step.what());
    let bytes = &text.as_bytes()[..text.len().min(MSG_CAP)];
    for (slot, b) in MSG.iter().zip(bytes) {
        slot.store(*b, Ordering::Relaxed);
    }
    MSG_LEN.store(bytes.len(), Ordering::SeqCst);
    CHILD.store(0, Ordering::SeqCst);
    match watch.limit {
        Some(limit) => {
            LIMIT_MS.store(limit.as_millis() as u64, Ordering::SeqCst);
            DEADLINE_MS.store(now_ms() + limit.as_millis() as u64, Ordering::SeqCst);
        }
        None => DEADLINE_MS.store(0, Ordering::SeqCst),
    }
    match watch.fault {
        Some(Fault::Hang(s)) if s == step => loop {
            std::hint::spin_loop();
        },
        Some(Fault::Crash(s)) if s == step => {
            // SAFETY: raising a signal; the handler reports and dies.
            unsafe { libc::raise(libc::SIGSEGV) };
        }
        _ => {}
    }
    InStep(())
}

fn now_ms() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `ts` is a valid timespec to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1000 + ts.tv_nsec as u64 / 1_000_000
}

/// Writes to stderr without allocating or locking.
fn say(bytes: &[u8]) {
    // SAFETY: writing a valid buffer to fd 2.
    unsafe { libc::write(2, bytes.as_ptr().cast(), bytes.len()) };
}

/// The step's message, copied out of the statics.
fn current(buf: &mut [u8; MSG_CAP]) -> &[u8] {
    let n = MSG_LEN.load(Ordering::SeqCst).min(MSG_CAP);
    for (b, slot) in buf.iter_mut().zip(&MSG[..n]) {
        *b = slot.load(Ordering::Relaxed);
    }
    &buf[..n]
}

const REPORT: &[u8] = b"carve-clang: this is a bug: please report it with the command and, for a compile, the \
preprocessed source (the same command with -E instead of -c)\n";

fn install() {
    std::thread::Builder::new()
        .name("carve-clang watchdog".into())
        .spawn(watch_loop)
        .expect("a thread for the watchdog");
    install_crash_handler();
}

fn watch_loop() {
    loop {
        let deadline = DEADLINE_MS.load(Ordering::SeqCst);
        let now = now_ms();
        if deadline == 0 || now < deadline {
            let wait = if deadline == 0 { 200 } else { (deadline - now).min(200) };
            std::thread::sleep(Duration::from_millis(wait.max(1)));
            continue;
        }
        FIRED.store(true, Ordering::SeqCst);
        let mut buf = [0u8; MSG_CAP];
        let step = current(&mut buf);
        let child = CHILD.load(Ordering::SeqCst);
        if child > 0 {
            kill_tree(child);
        }
        say(b"carve-clang: error: ");
        say(step);
        let limit = LIMIT_MS.load(Ordering::SeqCst) as f64 / 1000.0;
        say(format!(" still ran after {limit} s (the limit, {}); stopped\n", model::env::CC_TIMEOUT).as_bytes());
        say(REPORT);
        // SAFETY: leaving at once: the main thread may hold any lock.
        unsafe { libc::_exit(1) };
    }
}

/// Kills `pid` and every process under it (a clang driver's linker, or
/// what a wrapper script started), children first seen before any dies.
fn kill_tree(pid: i32) {
    let mut parents: Vec<(i32, i32)> = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(p) = e.file_name().to_str().and_then(|s| s.parse::<i32>().ok()) else { continue };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{p}/stat")) else { continue };
        // The parent is the second field after the parenthesised name.
        let ppid = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse().ok());
        if let Some(ppid) = ppid {
            parents.push((p, ppid));
        }
    }
    let mut tree = vec![pid];
    let mut k = 0;
    while k < tree.len() {
        let p = tree[k];
        tree.extend(parents.iter().filter(|(_, pp)| *pp == p).map(|(c, _)| *c));
        k += 1;
    }
    for p in tree {
        // SAFETY: killing the clang we started and what it started.
        unsafe { libc::kill(p, libc::SIGKILL) };
    }
}

const FATAL: [(libc::c_int, &[u8]); 5] = [
    (libc::SIGSEGV, b"SIGSEGV"),
    (libc::SIGBUS, b"SIGBUS"),
    (libc::SIGILL, b"SIGILL"),
    (libc::SIGFPE, b"SIGFPE"),
    (libc::SIGABRT, b"SIGABRT"),
];

extern "C" fn on_crash(sig: libc::c_int) {
    let name = FATAL.iter().find(|(s, _)| *s == sig).map_or(&b"a signal"[..], |(_, n)| n);
    let mut buf = [0u8; MSG_CAP];
    let step = current(&mut buf);
    say(b"carve-clang: error: crashed (");
    say(name);
    if step.is_empty() {
        say(b")\n");
    } else {
        say(b") in ");
        say(step);
        say(b"\n");
    }
    say(REPORT);
    // The handler was reset to the default: the signal, raised again,
    // ends the process as it would have without us once we return.
    // SAFETY: raising a signal from its handler.
    unsafe { libc::raise(sig) };
}

fn install_crash_handler() {
    // An alternate stack, so that a stack overflow is reported too.
    const ALT: usize = 64 * 1024;
    let stack = Box::leak(vec![0u8; ALT].into_boxed_slice());
    // SAFETY: plain sigaltstack/sigaction calls with valid structures; the
    // alternate stack lives for the rest of the process.
    unsafe {
        let ss = libc::stack_t { ss_sp: stack.as_mut_ptr().cast(), ss_flags: 0, ss_size: ALT };
        libc::sigaltstack(&ss, std::ptr::null_mut());
        for (sig, _) in FATAL {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_crash as extern "C" fn(libc::c_int) as usize;
            sa.sa_flags = libc::SA_RESETHAND | libc::SA_ONSTACK;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_parse_and_name_their_step() {
        assert_eq!(Fault::parse("hang:pass"), Ok(Fault::Hang(Step::Pass)));
        assert_eq!(Fault::parse("crash:front"), Ok(Fault::Crash(Step::Front)));
        assert!(Fault::parse("hang").unwrap_err().contains("hang:STEP"));
        assert!(Fault::parse("hang:lunch").unwrap_err().contains("front, copies, optimise, pass, back, link"));
        assert!(Fault::parse("nap:pass").is_err());
    }
}
