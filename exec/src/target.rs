//! What to run and under which limits.

use std::path::PathBuf;
use std::time::Duration;

/// Where the target takes its input from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputMode {
    /// A file whose path replaces `@@` in the arguments.
    File,
    /// Standard input.
    Stdin,
}

/// A program and how to run it.
#[derive(Debug, Clone)]
pub struct Target {
    pub program: PathBuf,
    /// Arguments; `@@` stands for the input file.
    pub args: Vec<String>,
    /// Per-run wall-clock limit.
    pub timeout: Duration,
    /// Address-space limit of the target, in MiB (for a program built
    /// with ASan, the limit of ASan's allocator instead).
    pub mem_limit_mb: Option<u64>,
    /// Let the target's stdout and stderr through (default: /dev/null).
    pub show_output: bool,
    /// Extra environment for the target.
    pub env: Vec<(String, String)>,
    /// The first line of each test is the command line (`--args-in-input`).
    pub args_in_input: bool,
    /// Run in a scratch directory emptied after each run, as `nobody` when
    /// root (see `contain.rs`).
    pub contain: bool,
    /// Largest file the target may write, in MiB.
    pub fsize_limit_mb: Option<u64>,
    /// A program built with ASan looks for leaks at exit (off by default,
    /// as fuzzers run it).
    pub detect_leaks: bool,
    /// Runs a forked child of a libFuzzer harness may make before it
    /// exits (persistent mode; 1: a fork per run). Other programs, and
    /// runs that carve, replay, or look for leaks, make one.
    pub persistent: u32,
    /// The input file is also at this path for the target, in a mount
    /// namespace of its own (a file it reads where no argument names it:
    /// `/etc/passwd` for `getpwent`; see `input_at.rs`).
    pub input_at: Option<PathBuf>,
}

/// Runs per child of a harness in persistent mode, by default.
pub const DEFAULT_PERSISTENT: u32 = 1000;

impl Target {
    pub fn new(program: impl Into<PathBuf>, args: Vec<String>) -> Target {
        Target {
            program: program.into(),
            args,
            timeout: Duration::from_millis(1000),
            mem_limit_mb: Some(1024),
            show_output: false,
            env: Vec::new(),
            args_in_input: false,
            contain: true,
            fsize_limit_mb: Some(64),
            detect_leaks: false,
            persistent: DEFAULT_PERSISTENT,
            input_at: None,
        }
    }

    pub fn input_mode(&self) -> InputMode {
        if self.input_at.is_some() || self.args.iter().any(|a| a.contains("@@")) {
            InputMode::File
        } else {
            InputMode::Stdin
        }
    }

    /// The arguments with `@@` replaced by `input`.
    pub fn args_for(&self, input: &str) -> Vec<String> {
        self.args.iter().map(|a| a.replace("@@", input)).collect()
    }
}

/// A test that carries its command line: the arguments of its first line
/// (split as a shell splits words: whitespace, '...' and "..." quoting and
/// backslashes; a line with unbalanced quotes falls back to whitespace) and
/// the rest, the content.
pub fn split_test(test: &[u8]) -> (Vec<Vec<u8>>, &[u8]) {
    let (line, content) = match test.iter().position(|&b| b == b'\n') {
        Some(i) => (&test[..i], &test[i + 1..]),
        None => (test, &test[test.len()..]),
    };
    let args = shlex::bytes::split(line)
        .unwrap_or_else(|| model::shell::blank_words(line).into_iter().map(|w| w.text).collect());
    // NUL cannot travel in argv: it ends the argument there.
    let args = args.into_iter().map(|a| a.split(|&b| b == 0).next().unwrap_or_default().to_vec()).collect();
    (args, content)
}

/// Replaces every `@@` in `arg` with `path`.
pub fn substitute(arg: &[u8], path: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(arg.len());
    let mut i = 0;
    while i < arg.len() {
        if arg[i..].starts_with(b"@@") {
            out.extend_from_slice(path);
            i += 2;
        } else {
            out.push(arg[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tests_split_into_shell_words_and_content() {
        let (args, content) = split_test(b"-d , -f '1, 3' \"x y\"\na,b,c\n1,2,3\n");
        assert_eq!(args, [&b"-d"[..], b",", b"-f", b"1, 3", b"x y"]);
        assert_eq!(content, b"a,b,c\n1,2,3\n");
        let (args, content) = split_test(b"-n 'unbalanced\nbody");
        assert_eq!(args, [&b"-n"[..], b"'unbalanced"]);
        assert_eq!(content, b"body");
        let (args, content) = split_test(b"");
        assert!(args.is_empty() && content.is_empty());
        let (args, _) = split_test(b"a\0b c\n");
        assert_eq!(args, [&b"a"[..], b"c"]);
    }

    #[test]
    fn at_at_becomes_the_path() {
        assert_eq!(substitute(b"--file=@@", b"/t/in"), b"--file=/t/in");
        assert_eq!(substitute(b"@", b"/t/in"), b"@");
    }
}
