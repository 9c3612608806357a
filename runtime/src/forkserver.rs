//! The fork server (protocol in `model::protocol`): started at `main` when
//! `CARVE_FORKSRV=1`, or when AFL++ gave the map (its own hello then); the
//! parent stays here forking one child per run, each child returns into
//! `main` and runs the program once, or, a harness in persistent mode
//! (`persistent.rs`), many times, stopping itself after each run.

use crate::model::protocol::{afl, Hello, CTL_FD, PROTOCOL_VERSION, ST_FD};
use crate::{map, sys};

pub fn start_if_asked() {
    if sys::getenv(sys::FORKSRV) != Some(b"1") {
        map::get();
        if map::from_afl() {
            start_for_afl();
        }
        return;
    }
    // Programs this target runs must not take themselves for fork servers.
    // SAFETY: before main's body runs, single-threaded.
    unsafe { libc::unsetenv(sys::FORKSRV.as_ptr()) };
    map::get();
    if !drop_privileges() {
        // The client sees no hello and reports why the target did not start.
        sys::debug("cannot switch to CARVE_RUN_AS");
        unsafe { libc::_exit(1) };
    }
    // A unit fork server restores its unit here, once for all tries.
    crate::replay::prepare_for_serving();
    crate::persistent::decide();
    let (edges, branches) = map::totals();
    let hello = Hello { version: PROTOCOL_VERSION, edges, branches }.encode();
    if !sys::write_all(ST_FD, &hello) {
        sys::debug("no fork-server client on fd 199; running once");
        return;
    }
    let modules = map::modules();
    if !sys::write_all(ST_FD, &(modules.len() as u32).to_le_bytes()) {
        return;
    }
    for m in modules {
        if !sys::write_all(ST_FD, &m.encode()) {
            return;
        }
    }
    serve();
}

/// AFL++ started the target: its hello announces the map size, and when
/// fd 199 is not open (the program run by hand with `__AFL_SHM_ID` set) the
/// program runs once, as AFL++'s own runtime does.
fn start_for_afl() {
    // AFL++ reads maps in words of 64 bytes.
    let hello = afl::hello(map::used().max(1).next_multiple_of(64));
    if !sys::write_all(ST_FD, &hello.to_le_bytes()) {
        return;
    }
    serve();
}

fn serve() {
    map::serving();
    // A persistent child that stopped itself after its last run (0: none).
    let mut stopped: i32 = 0;
    loop {
        let mut cmd = [0u8; 4];
        if !sys::read_exact(CTL_FD, &mut cmd) {
            // The client went away.
            quit(stopped, 0);
        }
        let pid = if stopped > 0 && still_stopped(stopped) {
            // SAFETY: continuing our own stopped child.
            unsafe { libc::kill(stopped, libc::SIGCONT) };
            stopped
        } else {
            // SAFETY: getpid cannot fail.
            let server = unsafe { libc::getpid() };
            // SAFETY: fork in a single-threaded process.
            let pid = unsafe { libc::fork() };
            if pid < 0 {
                sys::debug("fork failed");
                quit(0, 1);
            }
            if pid == 0 {
                // The child: its own process group (so a timeout kills all
                // it started), no protocol fds, then on into main.
                unsafe {
                    libc::setpgid(0, 0);
                    libc::close(CTL_FD);
                    libc::close(ST_FD);
                }
                crate::persistent::on_fork(server);
                return;
            }
            pid
        };
        stopped = 0;
        if !sys::write_all(ST_FD, &pid.to_le_bytes()) {
            quit(pid, 0);
        }
        let mut status: i32 = 0;
        loop {
            // SAFETY: waiting for our own child; a stop ends a persistent run.
            let r = unsafe { libc::waitpid(pid, &mut status, libc::WUNTRACED) };
            if r == pid || (r < 0 && sys::errno() != libc::EINTR) {
                break;
            }
        }
        if libc::WIFSTOPPED(status) {
            stopped = pid;
        }
        if !sys::write_all(ST_FD, &status.to_le_bytes()) {
            quit(stopped, 0);
        }
    }
}

/// Whether the stopped child `pid` is still there (the client may have
/// killed it between runs): else it is reaped, and the next run forks.
fn still_stopped(pid: i32) -> bool {
    let mut status = 0;
    // SAFETY: polling our own child.
    unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) == 0 }
}

/// Ends the fork server, and the stopped child it holds (when not 0).
fn quit(stopped: i32, code: i32) -> ! {
    // SAFETY: killing our own child, then a plain exit.
    unsafe {
        if stopped > 0 {
            libc::kill(stopped, libc::SIGKILL);
        }
        libc::_exit(code)
    }
}

/// Switches to `CARVE_RUN_AS=UID:GID` when set. False when that fails.
fn drop_privileges() -> bool {
    let Some(spec) = sys::getenv(sys::RUN_AS) else {
        return true;
    };
    let mut parts = spec.split(|&b| b == b':');
    let (Some(uid), Some(gid)) = (parts.next().and_then(sys::parse_int), parts.next().and_then(sys::parse_int)) else {
        return false;
    };
    // SAFETY: plain credential calls, single-threaded, before main's body.
    unsafe {
        libc::setgroups(0, core::ptr::null()) == 0
            && libc::setgid(gid as libc::gid_t) == 0
            && libc::setuid(uid as libc::uid_t) == 0
            && libc::getuid() == uid as libc::uid_t
    }
}
