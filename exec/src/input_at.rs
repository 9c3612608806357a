//! The input at a fixed path (`Target::input_at`): for what a program
//! reads where no argument names it, most often through libc (`getpwent`
//! reads `/etc/passwd`, `gethostbyname` and `getaddrinfo` read
//! `/etc/hosts`, `getservbyname` `/etc/services`). The fork server (and
//! so every run it forks) gets a mount namespace of its own, in which the
//! test's input file is bind-mounted over that path; the file is rewritten
//! in place for every run, so the mount shows each test. The machine's
//! file is not touched. Mount namespaces need root (`CAP_SYS_ADMIN`).
//! A lookup that a daemon answers (nscd, systemd-resolved, as
//! `/etc/nsswitch.conf` says) never reads the file.

use crate::Error;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The input file and where the target sees it.
#[derive(Debug, Clone)]
pub struct Bind {
    input: CString,
    at: CString,
}

impl Bind {
    /// Checks that it can be done: root, and a file at `at` to mount over.
    pub fn new(input: &Path, at: &Path) -> Result<Bind, Error> {
        let fail = |why: &str| Error::InputAt(at.to_path_buf(), why.to_string());
        // SAFETY: geteuid cannot fail.
        if unsafe { libc::geteuid() } != 0 {
            return Err(fail("a mount namespace of the target's own needs root"));
        }
        if !at.is_absolute() {
            return Err(fail("the path must be absolute"));
        }
        match std::fs::metadata(at) {
            Ok(m) if m.is_file() => {}
            Ok(_) => return Err(fail("it is not a regular file")),
            Err(e) => return Err(fail(&format!("{e} (the input is mounted over a file that is there)"))),
        }
        // Runs start in a scratch directory: the input's path is absolute.
        let input = std::fs::canonicalize(input).map_err(|e| fail(&format!("the input file: {e}")))?;
        let c = |p: &Path| CString::new(p.as_os_str().as_bytes()).map_err(|_| fail("a NUL in a path"));
        Ok(Bind { input: c(&input)?, at: c(at)? })
    }

    /// Between fork and exec, in the child: a mount namespace of its own
    /// (whose mounts do not reach the machine's), the input over `at`.
    /// Only system calls: it is async-signal-safe.
    pub fn apply(&self) -> std::io::Result<()> {
        let check = |r: libc::c_int| if r == 0 { Ok(()) } else { Err(std::io::Error::last_os_error()) };
        // SAFETY: system calls on NUL-terminated strings that outlive them.
        unsafe {
            check(libc::unshare(libc::CLONE_NEWNS))?;
            let none = c"none".as_ptr();
            check(libc::mount(
                none,
                c"/".as_ptr(),
                std::ptr::null(),
                libc::MS_REC | libc::MS_PRIVATE,
                std::ptr::null(),
            ))?;
            check(libc::mount(self.input.as_ptr(), self.at.as_ptr(), std::ptr::null(), libc::MS_BIND, std::ptr::null()))
        }
    }

    /// Where the target sees its input.
    pub fn at(&self) -> PathBuf {
        PathBuf::from(std::ffi::OsStr::from_bytes(self.at.as_bytes()))
    }

    /// What a failed start of a target with this input means: no right to
    /// make a mount namespace (root without `CAP_SYS_ADMIN`, as in a
    /// container), said so; any other error as it is.
    pub fn failed_start(&self, program: &Path, err: std::io::Error) -> Error {
        match err.raw_os_error() {
            Some(libc::EPERM) => Error::InputAt(
                self.at(),
                "no right to make a mount namespace (root without CAP_SYS_ADMIN, as in a container?)".to_string(),
            ),
            _ => Error::Spawn { path: program.to_path_buf(), err },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_that_is_not_a_file_there_is_refused_with_its_reason() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("input");
        std::fs::write(&input, b"").unwrap();
        let err = |at: &Path| Bind::new(&input, at).unwrap_err().to_string();
        if unsafe { libc::geteuid() } != 0 {
            assert!(err(Path::new("/etc/passwd")).contains("needs root"));
            return;
        }
        assert!(
            err(&dir.path().join("absent")).contains("mounted over a file that is there"),
            "{}",
            err(&dir.path().join("absent"))
        );
        assert!(err(dir.path()).contains("not a regular file"));
        assert!(err(Path::new("etc/passwd")).contains("absolute"));
        assert_eq!(Bind::new(&input, Path::new("/etc/passwd")).unwrap().at(), Path::new("/etc/passwd"));
    }
}
