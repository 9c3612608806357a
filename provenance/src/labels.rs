//! Segment maps: every byte of a test labelled with where it came from.
//! A label is kept as runs; a run copied from another test says from
//! which test and offset, so byte `i` of the run is byte `offset + i` of
//! that test. Labels are transitive: bytes a mutator copies keep the
//! label they had in their parent, so a copied byte names the seed (or
//! the test where an operator or the lifter wrote it), not the parent.

use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The test a run was written for before that test has an id: runs made
/// while generating a test carry it until the test is kept ([`Labels::adopt`]).
pub const FRESH: u64 = u64::MAX;

/// Where a run of bytes came from.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "from", rename_all = "lowercase")]
pub enum Origin {
    /// Byte `i` of the run is byte `offset + i` of test `test`, which is
    /// where it was first written (a seed, or a test made by an operator
    /// or the lifter).
    Copied { test: u64, offset: u32 },
    /// Written by operator `op` when test `test` was made. (Names are
    /// shared, not copied: a test's labels are cloned for every test made
    /// from it.)
    Inserted { test: u64, op: Arc<str> },
    /// A unit-level value the lifter put back into test `test`: `unit`
    /// (the function and call) and `param` (the parameter).
    Lifted { test: u64, unit: Arc<str>, param: Arc<str> },
}

impl Origin {
    /// The test whose making wrote these bytes.
    pub fn test(&self) -> u64 {
        match self {
            Origin::Copied { test, .. } | Origin::Inserted { test, .. } | Origin::Lifted { test, .. } => *test,
        }
    }

    /// The origin of the byte `k` bytes into a run of this origin.
    fn advanced(&self, k: u32) -> Origin {
        match self {
            Origin::Copied { test, offset } => Origin::Copied { test: *test, offset: offset + k },
            other => other.clone(),
        }
    }

    /// Whether a run of `len` bytes of this origin followed by a run of
    /// `next` is one run.
    fn continues(&self, len: u32, next: &Origin) -> bool {
        match (self, next) {
            (Origin::Copied { test: a, offset: o }, Origin::Copied { test: b, offset: p }) => {
                a == b && o.checked_add(len) == Some(*p)
            }
            (Origin::Copied { .. }, _) | (_, Origin::Copied { .. }) => false,
            (a, b) => a == b,
        }
    }
}

/// A run of bytes of one origin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    pub len: u32,
    #[serde(flatten)]
    pub origin: Origin,
}

/// The labels of a test's bytes, as runs in order (written as the list of
/// runs alone).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Vec<Run>", into = "Vec<Run>")]
pub struct Labels {
    runs: Vec<Run>,
    /// The bytes the runs cover (asked for every test made).
    len: usize,
}

impl From<Vec<Run>> for Labels {
    fn from(runs: Vec<Run>) -> Labels {
        let mut l = Labels::default();
        for r in runs {
            l.push(r.len as usize, r.origin);
        }
        l
    }
}

impl From<Labels> for Vec<Run> {
    fn from(l: Labels) -> Vec<Run> {
        l.runs
    }
}

/// A byte whose label disagrees with its source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// Its place in the test.
    pub at: usize,
    pub origin: Origin,
    /// Why: the source test is unknown, too short, or holds another byte.
    pub why: &'static str,
}

impl Labels {
    /// The labels of test `test` of `len` bytes, all its own (a seed).
    pub fn own(test: u64, len: usize) -> Labels {
        let mut l = Labels::default();
        l.push(len, Origin::Copied { test, offset: 0 });
        l
    }

    /// `len` bytes written by operator `op` for the test being made.
    pub fn inserted(op: &str, len: usize) -> Labels {
        let mut l = Labels::default();
        l.push(len, Origin::Inserted { test: FRESH, op: op.into() });
        l
    }

    /// Bytes labelled.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// The runs, each with where it starts.
    pub fn runs(&self) -> impl Iterator<Item = (usize, &Run)> {
        self.runs.iter().scan(0usize, |at, r| {
            let start = *at;
            *at += r.len as usize;
            Some((start, r))
        })
    }

    /// Appends `len` bytes of `origin`, joining the last run when it goes on.
    pub fn push(&mut self, len: usize, origin: Origin) {
        let Ok(len) = u32::try_from(len) else { panic!("a test of 4 GiB or more") };
        if len == 0 {
            return;
        }
        self.len += len as usize;
        if let Some(last) = self.runs.last_mut() {
            if last.origin.continues(last.len, &origin) {
                last.len += len;
                return;
            }
        }
        self.runs.push(Run { len, origin });
    }

    /// Appends all of `other`.
    pub fn extend(&mut self, other: &Labels) {
        for r in &other.runs {
            self.push(r.len as usize, r.origin.clone());
        }
    }

    /// The labels of bytes `start..end` (clamped to the labelled length).
    pub fn slice(&self, start: usize, end: usize) -> Labels {
        let mut out = Labels::default();
        for (at, r) in self.runs() {
            let (a, b) = (at.max(start), (at + r.len as usize).min(end));
            if a < b {
                out.push(b - a, r.origin.advanced((a - at) as u32));
            }
        }
        out
    }

    /// The origin of byte `i`.
    pub fn at(&self, i: usize) -> Option<Origin> {
        self.runs().find(|(at, r)| i < at + r.len as usize).map(|(at, r)| r.origin.advanced((i - at) as u32))
    }

    /// Gives the runs written for the test being made ([`FRESH`]) its id.
    pub fn adopt(&mut self, id: u64) {
        for r in &mut self.runs {
            match &mut r.origin {
                Origin::Copied { test, .. } | Origin::Inserted { test, .. } | Origin::Lifted { test, .. } => {
                    if *test == FRESH {
                        *test = id;
                    }
                }
            }
        }
        // Runs of the new id may now continue each other.
        let runs = std::mem::take(&mut self.runs);
        self.len = 0;
        for r in runs {
            self.push(r.len as usize, r.origin);
        }
    }

    /// Checks that the labels cover `data` exactly and that every copied
    /// byte equals the byte of its source (`source(id)`: a test's bytes).
    pub fn check<'a>(&self, data: &[u8], source: impl Fn(u64) -> Option<&'a [u8]>) -> Result<(), Mismatch> {
        if self.len() != data.len() {
            let at = self.len().min(data.len());
            let origin = self.at(at.saturating_sub(1)).unwrap_or(Origin::Inserted { test: FRESH, op: "".into() });
            return Err(Mismatch { at, origin, why: "the labels do not cover the test" });
        }
        for (at, r) in self.runs() {
            let Origin::Copied { test, offset } = r.origin else { continue };
            let Some(src) = source(test) else {
                return Err(Mismatch { at, origin: r.origin.clone(), why: "unknown source test" });
            };
            let (o, n) = (offset as usize, r.len as usize);
            let Some(from) = src.get(o..o + n) else {
                return Err(Mismatch { at, origin: r.origin.clone(), why: "past the end of its source" });
            };
            if let Some(k) = (0..n).find(|&k| from[k] != data[at + k]) {
                return Err(Mismatch { at: at + k, origin: r.origin.advanced(k as u32), why: "another byte" });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_join_slice_and_check() {
        let seed = b"hello world".to_vec();
        let mut l = Labels::own(3, 5); // "hello"
        l.extend(&Labels::inserted("bi", 1)); // "_"
        l.extend(&Labels::own(3, 11).slice(6, 11)); // "world"
        assert_eq!(l.len(), 11);
        assert_eq!(l.runs().count(), 3);
        let data = b"hello_world";
        let src = |id| (id == 3).then_some(&seed[..]);
        assert_eq!(l.check(data, src), Ok(()));
        assert_eq!(l.at(7), Some(Origin::Copied { test: 3, offset: 7 }));
        // Copying on from where a run stopped joins it.
        let mut m = Labels::own(3, 11).slice(0, 4);
        m.extend(&Labels::own(3, 11).slice(4, 9));
        assert_eq!(m.runs().count(), 1);
        // A wrong byte is found where it is.
        let e = l.check(b"hello_wOrld", src).unwrap_err();
        assert_eq!((e.at, e.why), (7, "another byte"));
        assert!(l.check(b"hello_worl", src).is_err());
    }

    #[test]
    fn fresh_runs_take_the_new_id_and_serialise_compactly() {
        let mut l = Labels::own(1, 2);
        l.extend(&Labels::inserted("num", 2));
        l.adopt(9);
        assert_eq!(l.at(3), Some(Origin::Inserted { test: 9, op: "num".into() }));
        let j = serde_json::to_string(&l).unwrap();
        assert_eq!(
            j,
            r#"[{"len":2,"from":"copied","test":1,"offset":0},{"len":2,"from":"inserted","test":9,"op":"num"}]"#
        );
        assert_eq!(serde_json::from_str::<Labels>(&j).unwrap(), l);
        // Read back, the length is the runs' (runs that go on are joined).
        let split = r#"[{"len":2,"from":"copied","test":1,"offset":0},{"len":3,"from":"copied","test":1,"offset":2}]"#;
        let back = serde_json::from_str::<Labels>(split).unwrap();
        assert_eq!((back.len(), back.runs().count()), (5, 1));
        assert_eq!(l.len(), 4);
    }
}
