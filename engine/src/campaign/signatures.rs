//! Failures told apart by what they are: the runtime of a campaign's
//! target writes the stack of every crashing run (`CARVE_STACK_OUT`, set
//! for the fork server; nothing is written by runs that do not crash), and
//! a crash or a lifted alarm is kept when its key (its
//! `review::identity::Identity`: kind and innermost places of the
//! program) is new; later ones of the same key are counted against the
//! one kept. `bridge review` symbolizes the kept ones. A run that left no
//! stack falls back to the older rules.

use review::identity::Identity;
use review::stack::Dump;
use std::path::{Path, PathBuf};

/// Innermost frames of the program in a key, unless told otherwise
/// (`bridge run --signature-depth`).
pub const DEFAULT_DEPTH: usize = 3;

/// Where the runtime writes the stack of a crashing run.
pub fn stack_file(root: &Path) -> PathBuf {
    root.join(".stack")
}

/// The key of the failure the last run ended in, from the stack the
/// runtime wrote (see `review::identity`); `None` when the run left none.
/// The file is emptied, so that a later failure that leaves none is not
/// given this one's.
pub fn take_key(root: &Path, depth: usize) -> Option<String> {
    let path = stack_file(root);
    let bytes = std::fs::read(&path).ok().filter(|b| !b.is_empty())?;
    let _ = std::fs::OpenOptions::new().write(true).open(&path).and_then(|f| f.set_len(0));
    Identity::of_stack(&Dump::parse(&String::from_utf8_lossy(&bytes)), depth).map(|id| id.key())
}

/// The key of the failure the last run of `fs` ended in: its sanitizer
/// report's when it left one, else [`take_key`]'s. The stack file is
/// emptied either way.
pub fn failure_key(root: &Path, depth: usize, fs: &exec::ForkServer) -> Option<String> {
    let from_stack = take_key(root, depth);
    let from_report = fs.last_report().and_then(|r| Identity::of_report(r, &fs.target().program, depth));
    from_report.map(|id| id.key()).or(from_stack)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_taken_once() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(take_key(dir.path(), 3), None);
        std::fs::write(stack_file(dir.path()), "signal 6\npc /lib/libc.so.6 8aeec\nframe - 6482\nframe - 5601\n")
            .unwrap();
        assert_eq!(take_key(dir.path(), 2).as_deref(), Some("SIGABRT at 0x6482 0x5601"));
        assert_eq!(take_key(dir.path(), 2), None, "emptied");
    }
}
