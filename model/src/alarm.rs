//! The records a user reads about a failure: a lifted true alarm
//! (`alarms/<id>/report.json`, written alike by `bridge run`, `fuzz-unit`
//! and `explore`) and a failure's signature (`signature.json` beside it,
//! written by `bridge review`). Versioned: a reader refuses a version it
//! does not know instead of guessing.

use crate::unit::Site;
use serde::{Deserialize, Serialize};

/// Version of [`Alarm`]'s file format.
pub const ALARM_VERSION: u32 = 2;

/// A true alarm lifted from a unit: what the unit level changed, and what
/// the whole program did with it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Alarm {
    pub version: u32,
    /// The command that found it: `run`, `fuzz-unit` or `explore`.
    pub found_by: String,
    /// The carved function whose parameter was changed.
    pub function: String,
    /// Which call of it was carved (0: the first).
    pub call: u32,
    /// The parameter's index among the unit's mapped parameters.
    pub parameter: usize,
    /// Where the parameter lives in the unit, in words (see [`describe_site`]).
    pub site: String,
    /// The parameter's value in the system test and the value lifted, as
    /// written in the input (`Param::shown`: a binary integer as its value
    /// and bytes, `48 (00 30)`).
    pub original_value: String,
    pub new_value: String,
    /// Parameters the unit generator set at once (a solver sets all).
    pub parameters_changed: usize,
    /// How the unit generator made the value (`solved`, a mutation's name).
    pub generator_op: String,
    /// The system run's outcome, in words (`crash (signal 11, SIGSEGV)`).
    pub outcome: String,
    /// The queue entry the unit was carved from (campaigns only).
    #[serde(default)]
    pub system_test: Option<u64>,
    /// The unit file, when it was read from one (`fuzz-unit`, `explore`).
    #[serde(default)]
    pub unit_file: Option<String>,
    /// Seconds into the campaign when it was found (campaigns only).
    #[serde(default)]
    pub found_after_s: Option<f64>,
    /// What the campaign told alarms apart by: the signal and innermost
    /// places of the program the lifted run crashed at (campaigns only).
    #[serde(default)]
    pub key: Option<String>,
}

impl Alarm {
    /// Reads a `report.json`, refusing other versions with a clear error.
    pub fn from_json(bytes: &[u8]) -> Result<Alarm, String> {
        let v: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))?;
        match v.get("version").and_then(|v| v.as_u64()) {
            Some(n) if n == u64::from(ALARM_VERSION) => {
                serde_json::from_value(v).map_err(|e| format!("not an alarm record: {e}"))
            }
            Some(n) => Err(format!("alarm record version {n}, this bridge reads version {ALARM_VERSION}")),
            None => Err("an alarm record of an older bridge (no version); run the campaign again".into()),
        }
    }
}

/// A site in words, for people: `the input file`, `argument 2 (4-byte
/// integer)`, `string in object 3 at offset 0`...
pub fn describe_site(site: &Site) -> String {
    match site {
        Site::Arg { index, size } => format!("argument {index} ({size}-byte integer)"),
        Site::Bytes { object, offset, len, nul } => {
            let what = if *nul { "string" } else { "bytes" };
            format!("{what} of {len} bytes in object {object} at offset {offset}")
        }
        Site::Stream { object } => format!("what was left to read from stream object {object}"),
        Site::InputFile => "the input file".into(),
        Site::NewWord { slot, .. } => format!("a new command-line word at argv[{slot}]"),
    }
}

/// How a run failed, as a signature names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum FailureKind {
    /// Killed by a signal (its name, e.g. `SIGSEGV`).
    Signal(String),
    /// Ran past its time limit.
    Hang,
    /// A sanitizer's report: its type, with the access and its size when
    /// the report gives them (`heap-buffer-overflow WRITE 1`).
    Sanitizer(String),
}

impl std::fmt::Display for FailureKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FailureKind::Signal(s) | FailureKind::Sanitizer(s) => f.write_str(s),
            FailureKind::Hang => f.write_str("hang"),
        }
    }
}

/// One frame of a failing stack, innermost first; an inlined function is
/// a frame of its own.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Frame {
    pub function: String,
    /// Source file and line, when the program has debug information.
    pub file: Option<String>,
    pub line: Option<u32>,
    /// `-` for the program, else the shared object's path.
    pub module: String,
}

impl Frame {
    /// In the program or in an instrumented library (`+PATH`): code the
    /// user builds, not libc's.
    pub fn in_program(&self) -> bool {
        self.module == "-" || self.module.starts_with('+')
    }

    /// `function (file:line)`, or the function alone.
    pub fn place(&self) -> String {
        match (&self.file, self.line) {
            (Some(f), Some(l)) => format!("{} ({f}:{l})", self.function),
            _ => self.function.clone(),
        }
    }
}

/// What a failure is: its kind and the innermost frames of its stack.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Signature {
    pub kind: FailureKind,
    /// The whole stack, innermost first (libc's frames included).
    pub frames: Vec<Frame>,
}

impl Signature {
    /// The frames that name the failure: the program's own, innermost
    /// first (libc's `abort` and `__assert_fail` say nothing of which bug
    /// it is); all frames when none is the program's.
    pub fn telling(&self) -> Vec<&Frame> {
        let own: Vec<&Frame> = self.frames.iter().filter(|f| f.in_program()).collect();
        if own.is_empty() {
            self.frames.iter().collect()
        } else {
            own
        }
    }

    /// The key failures are told apart by: the kind and the `depth`
    /// innermost telling frames (function, file and line).
    pub fn key(&self, depth: usize) -> String {
        let mut k = self.kind.to_string();
        for f in self.telling().into_iter().take(depth) {
            k.push_str(" | ");
            k.push_str(&f.place());
        }
        k
    }

    /// The innermost telling frame.
    pub fn top(&self) -> Option<&Frame> {
        self.telling().into_iter().next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(function: &str, line: u32, module: &str) -> Frame {
        Frame { function: function.into(), file: Some("p.c".into()), line: Some(line), module: module.into() }
    }

    #[test]
    fn keys_skip_libc_and_stop_at_the_depth() {
        let s = Signature {
            kind: FailureKind::Signal("SIGABRT".into()),
            frames: vec![
                frame("abort", 79, "/lib/libc.so.6"),
                frame("push_one", 221, "-"),
                frame("cmd_push", 244, "-"),
                frame("main", 312, "-"),
            ],
        };
        assert_eq!(s.key(2), "SIGABRT | push_one (p.c:221) | cmd_push (p.c:244)");
        assert_eq!(s.top().unwrap().function, "push_one");
        let libc_only = Signature { kind: FailureKind::Hang, frames: vec![frame("read", 1, "/lib/libc.so.6")] };
        assert_eq!(libc_only.key(3), "hang | read (p.c:1)");
    }

    #[test]
    fn alarm_records_of_other_versions_are_refused_clearly() {
        let a = Alarm {
            version: ALARM_VERSION,
            found_by: "run".into(),
            function: "main".into(),
            call: 0,
            parameter: 0,
            site: describe_site(&Site::InputFile),
            original_value: "a".into(),
            new_value: "b".into(),
            parameters_changed: 1,
            generator_op: "solved".into(),
            outcome: "crash".into(),
            system_test: Some(3),
            unit_file: None,
            found_after_s: Some(1.5),
            key: None,
        };
        let json = serde_json::to_vec(&a).unwrap();
        assert_eq!(Alarm::from_json(&json).unwrap(), a);
        let old = br#"{"function": "main", "site": "InputFile"}"#;
        assert!(Alarm::from_json(old).unwrap_err().contains("older bridge"));
        let newer = String::from_utf8(json).unwrap().replace("\"version\":2", "\"version\":9");
        assert!(Alarm::from_json(newer.as_bytes()).unwrap_err().contains("version 9"));
    }
}
