//! Command lines carried by the test itself, for fuzzers that know nothing
//! of the tool: with `CARVE_ARGS_IN_INPUT=1`, a run started as `prog TEST
//! [ARGS...]` (as `afl-fuzz ... -- prog @@` starts it) takes its command
//! line from TEST, as `bridge run --args-in-input` tests carry it. The
//! first line is split into words as `exec::split_test` splits it (the
//! `shlex` crate's shell words; at blanks alone when its quotes do not
//! balance; a word ends at a NUL), ARGS follow them, and `@@` in any of
//! them is a file holding the rest of TEST. When none names that file, the
//! rest of TEST is the standard input, as with `bridge`.
//!
//! That file lives in memory (`memfd_create`) and is named by its
//! descriptor (`/proc/self/fd/N`, left open and inherited by what the
//! program runs), so it goes with the run and nothing is left behind
//! however the run ends; a program that renames or replaces its input
//! file (`sed -i`) cannot do so there.

use crate::sys;
use alloc::vec::Vec;
use core::ffi::{c_char, c_int, CStr};

fn asked() -> bool {
    sys::getenv(sys::ARGS_IN_INPUT) == Some(b"1") && sys::getenv(sys::ARGS_FILE).is_none()
}

/// `/proc/self/fd/FD`.
fn fd_path(fd: c_int) -> Vec<u8> {
    let mut path = Vec::with_capacity(32);
    path.extend_from_slice(b"/proc/self/fd/");
    sys::push_decimal(&mut path, u64::from(fd.unsigned_abs()));
    path
}

/// The words of a test's first line followed by `extra`, `@@` in each
/// replaced by `content`; and whether any named it.
pub fn command_line(line: &[u8], extra: &[&[u8]], content: &[u8]) -> (Vec<Vec<u8>>, bool) {
    let words = shlex::bytes::split(line).unwrap_or_else(|| {
        line.split(|c| c.is_ascii_whitespace()).filter(|w| !w.is_empty()).map(<[u8]>::to_vec).collect()
    });
    let mut named = false;
    let mut out = Vec::new();
    for w in words.iter().map(|w| w.split(|&b| b == 0).next().unwrap_or_default()).chain(extra.iter().copied()) {
        let mut arg = Vec::with_capacity(w.len());
        let mut i = 0;
        while i < w.len() {
            if w[i..].starts_with(b"@@") {
                arg.extend_from_slice(content);
                named = true;
                i += 2;
            } else {
                arg.push(w[i]);
                i += 1;
            }
        }
        out.push(arg);
    }
    (out, named)
}

/// # Safety
/// `argc`/`argv` point to `main`'s argument slots.
pub unsafe fn replace_if_asked(argc: *mut c_int, argv: *mut *mut *mut c_char) {
    if !asked() {
        return;
    }
    let old = *argv;
    if old.is_null() || *argc < 2 || (*old.add(1)).is_null() {
        sys::debug("CARVE_ARGS_IN_INPUT: no test file in argv[1]; keeping the command line");
        return;
    }
    let Some((buf, len)) = crate::args::read_file(*old.add(1), usize::MAX) else {
        sys::debug("CARVE_ARGS_IN_INPUT: cannot read the test file; keeping the command line");
        return;
    };
    let test: &[u8] = core::slice::from_raw_parts(buf, len);
    let (line, content) = match test.iter().position(|&b| b == b'\n') {
        Some(i) => (&test[..i], &test[i + 1..]),
        None => (test, &test[test.len()..]),
    };
    let fd = libc::memfd_create(c"carve-input".as_ptr(), 0);
    if fd < 0 || !sys::write_all(fd, content) {
        sys::debug("CARVE_ARGS_IN_INPUT: cannot write the test's content; keeping the command line");
        if fd >= 0 {
            libc::close(fd);
        }
        return;
    }
    let extra: Vec<&[u8]> = (2..*argc as usize).map(|i| CStr::from_ptr(*old.add(i)).to_bytes()).collect();
    let (args, named) = command_line(line, &extra, &fd_path(fd));
    libc::lseek(fd, 0, libc::SEEK_SET);
    if !named {
        libc::dup2(fd, 0);
        libc::close(fd);
    }
    // The strings and the table live as long as the run, like a real argv.
    let mut table: Vec<*mut c_char> = Vec::with_capacity(args.len() + 2);
    table.push(*old);
    for mut a in args {
        a.push(0);
        table.push(a.leak().as_mut_ptr().cast());
    }
    *argc = (table.len()) as c_int;
    table.push(core::ptr::null_mut());
    *argv = table.leak().as_mut_ptr();
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;

    fn line(l: &str, extra: &[&str]) -> (Vec<std::string::String>, bool) {
        let extra: Vec<&[u8]> = extra.iter().map(|e| e.as_bytes()).collect();
        let (args, named) = command_line(l.as_bytes(), &extra, b"/tmp/c");
        (args.into_iter().map(|a| std::string::String::from_utf8(a).unwrap()).collect(), named)
    }

    #[test]
    fn the_first_line_splits_as_the_bridge_splits_it() {
        assert_eq!(line("-n 's/a b/c/p' @@", &[]), (vec!["-n".into(), "s/a b/c/p".into(), "/tmp/c".into()], true));
        assert_eq!(
            line("-f x\\ y --file=@@.bak # a comment", &[]),
            (vec!["-f".into(), "x y".into(), "--file=/tmp/c.bak".into()], true)
        );
        // Unbalanced quotes: blanks alone.
        assert_eq!(line("-e 'p x", &[]), (vec!["-e".into(), "'p".into(), "x".into()], false));
        // ARGS after the words; `@@` there too.
        assert_eq!(line("-d ,", &["-f1", "@@"]), (vec!["-d".into(), ",".into(), "-f1".into(), "/tmp/c".into()], true));
        assert_eq!(line("", &[]), (vec![], false));
    }

    #[test]
    fn a_word_ends_at_a_nul_and_the_file_is_named_by_its_descriptor() {
        assert_eq!(line("ab\0cd ef", &[]).0, vec!["ab", "ef"]);
        assert_eq!(fd_path(7), b"/proc/self/fd/7");
        assert_eq!(fd_path(1234), b"/proc/self/fd/1234");
    }
}
