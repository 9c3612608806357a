//! How one run ended: one closed list.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Exited with this status (0 included).
    Exit(i32),
    /// Killed by this signal (not ours): a crash.
    Crash(i32),
    /// Ran past the time limit and was killed.
    Timeout,
    /// Killed for going past a resource limit (file size): not a bug of
    /// the target, and not a hang.
    Limit(i32),
}

impl Outcome {
    /// Classifies a raw `waitpid` status; `timed_out` when we killed it.
    pub fn from_wait_status(status: i32, timed_out: bool) -> Outcome {
        if timed_out {
            Outcome::Timeout
        } else if libc::WIFSIGNALED(status) {
            match libc::WTERMSIG(status) {
                libc::SIGXCPU => Outcome::Timeout,
                libc::SIGXFSZ => Outcome::Limit(libc::SIGXFSZ),
                sig => Outcome::Crash(sig),
            }
        } else {
            Outcome::Exit(libc::WEXITSTATUS(status))
        }
    }

    pub fn is_crash(self) -> bool {
        matches!(self, Outcome::Crash(_))
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Exit(c) => write!(f, "exit {c}"),
            Outcome::Crash(s) => write!(f, "crash (signal {s}, {})", signal_name(*s).unwrap_or("other")),
            Outcome::Timeout => write!(f, "timeout"),
            Outcome::Limit(s) => write!(f, "resource limit (signal {s}, {})", signal_name(*s).unwrap_or("other")),
        }
    }
}

/// The name of a signal a run may end by (`None` for one not listed).
pub fn signal_name(sig: i32) -> Option<&'static str> {
    Some(match sig {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGILL => "SIGILL",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGSYS => "SIGSYS",
        libc::SIGUSR2 => "SIGUSR2",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_wait_statuses() {
        assert_eq!(Outcome::from_wait_status(3 << 8, false), Outcome::Exit(3));
        assert_eq!(Outcome::from_wait_status(libc::SIGSEGV, false), Outcome::Crash(libc::SIGSEGV));
        assert_eq!(Outcome::from_wait_status(libc::SIGKILL, true), Outcome::Timeout);
        assert_eq!(Outcome::from_wait_status(libc::SIGXCPU, false), Outcome::Timeout);
        assert_eq!(Outcome::from_wait_status(libc::SIGXFSZ, false), Outcome::Limit(libc::SIGXFSZ));
        assert_eq!(Outcome::Crash(11).to_string(), "crash (signal 11, SIGSEGV)");
    }
}
