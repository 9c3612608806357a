//! Failures told apart by what they are: the runtime of a campaign's
//! target writes the stack of every crashing run (`CARVE_STACK_OUT`, set
//! for the fork server; nothing is written by runs that do not crash), and
//! a crash or a lifted alarm is kept when its key (signal and innermost
//! places of the program, see [`take_key`]) is new; later ones of the same
//! key are counted against the one kept. `bridge review` symbolizes the
//! kept ones. A run that left no stack falls back to the older rules.

use std::path::{Path, PathBuf};

/// Innermost frames of the program in a key, unless told otherwise
/// (`bridge run --signature-depth`).
pub const DEFAULT_DEPTH: usize = 3;

/// Where the runtime writes the stack of a crashing run.
pub fn stack_file(root: &Path) -> PathBuf {
    root.join(".stack")
}

/// The key of the crash the last run ended in: its signal and `depth`
/// innermost places (offsets) of the program's own code. `None` when the
/// run left no stack. The file is emptied, so that a later crash that
/// leaves none is not given this one's.
pub fn take_key(root: &Path, depth: usize) -> Option<String> {
    let path = stack_file(root);
    let bytes = std::fs::read(&path).ok().filter(|b| !b.is_empty())?;
    let _ = std::fs::OpenOptions::new().write(true).open(&path).and_then(|f| f.set_len(0));
    let dump = review::stack::Dump::parse(&String::from_utf8_lossy(&bytes));
    let signal = dump.signal?;
    // A hang (the fork server's SIGUSR2) by the function it was in.
    let hang = signal == libc::SIGUSR2;
    let own = if hang { dump.own_hang(depth) } else { dump.own(depth) };
    let what = if hang { "hang".to_string() } else { format!("signal {signal}") };
    Some(format!("{what} at {}", own.join(" ")))
}

/// The key of the failure the last run of `fs` ended in: from the
/// sanitizer's report when it left one (its type and `depth` innermost
/// places: a report's stack starts where the error is, while the
/// runtime's stack of the abort that ends it starts inside the
/// sanitizer), else [`take_key`]. The stack file is emptied either way.
pub fn failure_key(root: &Path, depth: usize, fs: &exec::ForkServer) -> Option<String> {
    let from_stack = take_key(root, depth);
    let from_report = fs.last_report().and_then(|r| report_key(r, &fs.target().program, depth));
    from_report.or(from_stack)
}

/// `heap-buffer-overflow WRITE 1 at 0x1a2b libfoo.so+0x30`: places in the
/// program by offset, in other modules by name and offset.
pub fn report_key(report: &str, program: &Path, depth: usize) -> Option<String> {
    let r = review::report::parse(report)?;
    let places: Vec<String> = r
        .frames
        .iter()
        .take(depth)
        .map(|p| {
            if Path::new(&p.module) == program {
                format!("{:#x}", p.offset)
            } else {
                format!("{}+{:#x}", p.module.rsplit('/').next().unwrap_or(&p.module), p.offset)
            }
        })
        .collect();
    Some(format!("{} at {}", r.kind, places.join(" ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_taken_once() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(take_key(dir.path(), 3), None);
        let stack =
            "signal 6\npc /lib/libc.so.6 8aeec\nframe /lib/libc.so.6 26472\nframe - 6482\nframe - 5601\nframe - 10\n";
        std::fs::write(stack_file(dir.path()), stack).unwrap();
        assert_eq!(take_key(dir.path(), 2).as_deref(), Some("signal 6 at 0x6482 0x5601"));
        assert_eq!(take_key(dir.path(), 2), None, "emptied");
        std::fs::write(stack_file(dir.path()), "signal 12\npc - 5c\nfunc - 40\nframe - 90\n").unwrap();
        assert_eq!(take_key(dir.path(), 3).as_deref(), Some("hang at 0x40 0x90"));
    }

    #[test]
    fn a_reports_key_is_its_kind_and_places() {
        let report = "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1 at pc 0x2 bp 0x3 sp 0x4\n\
                      WRITE of size 1 at 0x1 thread T0\n    #0 0x5  (/b/prog+0x1a2b)\n    #1 0x6  (/b/.libs/librec.so+0x30)\n    #2 0x7  (/b/prog+0x99)\n";
        let key = report_key(report, Path::new("/b/prog"), 2);
        assert_eq!(key.as_deref(), Some("heap-buffer-overflow WRITE 1 at 0x1a2b librec.so+0x30"));
        assert_eq!(report_key("no report here", Path::new("/b/prog"), 2), None);
    }
}
