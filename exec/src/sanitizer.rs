//! Targets built with AddressSanitizer or UndefinedBehaviorSanitizer: how
//! to tell, the options a fuzzer runs them with, and where their reports
//! go.
//!
//! As AFL++ and libFuzzer run them: a report aborts the run (a crash by
//! SIGABRT), nothing is symbolized while fuzzing, leaks are not looked for
//! unless asked, and the memory limit is ASan's own (`malloc_limit_mb`):
//! its shadow memory reserves terabytes of address space, which an
//! `RLIMIT_AS` of any useful size forbids. Signals stay the program's
//! (`handle_segv=0`...): a segmentation fault is reported as one; locals
//! stay on the stack (`detect_stack_use_after_return=0`), where carving
//! finds them. Reports
//! go to a file per run (`log_path`), which the fork server reads after a
//! crash.

use std::path::Path;

/// The sanitizers a program carries.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sanitizers {
    pub address: bool,
    /// UBSan's handlers are in it: UBSan's checks, or ASan's runtime,
    /// which carries them.
    pub undefined: bool,
}

impl Sanitizers {
    pub fn any(self) -> bool {
        self.address || self.undefined
    }
}

/// What `program` (and nothing it loads) carries, from the names the
/// sanitizers' runtimes give themselves in their reports. (Not a symbol's
/// name: the carving runtime, linked into every program, asks the loader
/// for `__asan_init` itself.)
pub fn detect(program: &Path) -> Sanitizers {
    let Ok(bytes) = std::fs::read(program) else { return Sanitizers::default() };
    let has = |name: &str| memchr::memmem::find(&bytes, name.as_bytes()).is_some();
    Sanitizers { address: has("ERROR: AddressSanitizer"), undefined: has("UndefinedBehaviorSanitizer") }
}

/// How runs of a sanitized program are set up.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Look for leaks at exit (LeakSanitizer, part of ASan).
    pub detect_leaks: bool,
    /// The memory limit, for ASan's allocator (MiB).
    pub malloc_limit_mb: Option<u64>,
    /// Sanitizer options of the user's environment, which take precedence.
    pub user_asan: Option<String>,
    pub user_ubsan: Option<String>,
}

impl Options {
    /// With the user's `ASAN_OPTIONS` and `UBSAN_OPTIONS`.
    pub fn from_env(detect_leaks: bool, malloc_limit_mb: Option<u64>) -> Options {
        Options {
            detect_leaks,
            malloc_limit_mb,
            user_asan: std::env::var("ASAN_OPTIONS").ok().filter(|s| !s.is_empty()),
            user_ubsan: std::env::var("UBSAN_OPTIONS").ok().filter(|s| !s.is_empty()),
        }
    }
}

/// The environment of the runs: `ASAN_OPTIONS` and `UBSAN_OPTIONS`, ours
/// first and the user's after them (a sanitizer takes the last value of an
/// option). Reports go to `report_prefix.PID`.
pub fn environment(s: Sanitizers, opts: &Options, report_prefix: &Path) -> Vec<(String, String)> {
    let log = format!("log_path={}", report_prefix.display());
    let mut env = Vec::new();
    if s.address {
        let mut o = vec![
            "abort_on_error=1".to_string(),
            "symbolize=0".into(),
            format!("detect_leaks={}", u8::from(opts.detect_leaks)),
            "malloc_context_size=0".into(),
            "allocator_may_return_null=1".into(),
            "detect_odr_violation=0".into(),
            // Locals on the real stack, where the carving runtime finds a
            // frame's objects, not on ASan's fake stack.
            "detect_stack_use_after_return=0".into(),
            "handle_segv=0".into(),
            "handle_sigbus=0".into(),
            "handle_abort=0".into(),
            "handle_sigfpe=0".into(),
            "handle_sigill=0".into(),
            log.clone(),
        ];
        if let Some(mb) = opts.malloc_limit_mb {
            o.push(format!("malloc_limit_mb={mb}"));
        }
        o.extend(opts.user_asan.clone());
        env.push(("ASAN_OPTIONS".to_string(), o.join(":")));
    }
    if s.undefined {
        let mut o = vec![
            "halt_on_error=1".to_string(),
            "abort_on_error=1".into(),
            "print_stacktrace=1".into(),
            "symbolize=0".into(),
            log,
        ];
        o.extend(opts.user_ubsan.clone());
        env.push(("UBSAN_OPTIONS".to_string(), o.join(":")));
    }
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_put_the_users_last_and_the_limit_into_asan() {
        let s = Sanitizers { address: true, undefined: true };
        let opts = Options {
            detect_leaks: false,
            malloc_limit_mb: Some(512),
            user_asan: Some("detect_leaks=1".into()),
            user_ubsan: None,
        };
        let env = environment(s, &opts, Path::new("/tmp/r/report"));
        let asan = &env.iter().find(|(k, _)| k == "ASAN_OPTIONS").unwrap().1;
        assert!(asan.starts_with("abort_on_error=1:symbolize=0:detect_leaks=0:"), "{asan}");
        assert!(asan.contains(":log_path=/tmp/r/report:malloc_limit_mb=512:detect_leaks=1"), "{asan}");
        let ubsan = &env.iter().find(|(k, _)| k == "UBSAN_OPTIONS").unwrap().1;
        assert!(ubsan.contains("halt_on_error=1") && ubsan.ends_with("log_path=/tmp/r/report"), "{ubsan}");
        assert!(environment(Sanitizers::default(), &opts, Path::new("/r")).is_empty());
    }

    #[test]
    fn a_program_without_sanitizers_has_none() {
        assert_eq!(detect(Path::new("/bin/true")), Sanitizers::default());
        assert_eq!(detect(Path::new("/no/such/file")), Sanitizers::default());
        // The carving runtime names ASan's entry point (to ask whether it
        // is there): that is no ASan build.
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("prog");
        std::fs::write(&p, b"\x7fELF...__asan_init\0__carve_main_entry\0").unwrap();
        assert_eq!(detect(&p), Sanitizers::default());
        std::fs::write(&p, b"\x7fELF...==%d==ERROR: AddressSanitizer: %s\0").unwrap();
        assert!(detect(&p).address);
    }
}
