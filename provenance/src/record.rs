//! A test's trail record, written beside it before the test itself (so a
//! test is never without one, whatever kills the campaign): its parents,
//! what made it, for a lift the unit value it carries, and its labels.
//! A test at `queue/NAME` has its record at `trails/queue/NAME.json`; an
//! alarm's (`alarms/ID/`) is `alarms/ID/trail.json`.

use crate::labels::Labels;
use crate::Error;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The version of the record's layout.
pub const RECORD_VERSION: u32 = 1;

/// Who made a test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Maker {
    /// A seed the user gave.
    Seed,
    /// A system generator (its name).
    System(String),
    /// The lifter, from a unit-level value.
    Lifter,
    /// Another tool's queue (its directory), imported as it was.
    Imported(String),
}

/// Where a lifted value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lift {
    /// The unit: its function and the index of its call.
    pub function: String,
    pub call: u64,
    /// The parameters whose values changed, as `model::alarm` names a
    /// parameter's site.
    pub params: Vec<String>,
    /// How the unit generator found it (a fuzzer operator, or the
    /// solver's direction with its branch site).
    pub found_by: String,
}

/// A test's trail record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub version: u32,
    /// The test's place in the campaign directory.
    pub test: String,
    /// The queue entries it was made from: the parent first, then the
    /// donors of a splice.
    pub parents: Vec<u64>,
    pub maker: Maker,
    /// The operators that made it, in order.
    pub ops: Vec<String>,
    pub lift: Option<Lift>,
    /// Its bytes' origins, when known.
    pub labels: Option<Labels>,
}

pub use model::layout::record_path;

impl Record {
    /// The record of the test at `test` in the campaign at `root`:
    /// `Ok(None)` when there is none (a campaign from before records, or
    /// a test another tool wrote).
    pub fn read(root: &Path, test: &str) -> Result<Option<Record>, Error> {
        let path = root.join(record_path(test));
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(err) => return Err(Error::Read { path, err }),
        };
        let r: Record =
            serde_json::from_slice(&bytes).map_err(|e| Error::BadRecord { path: path.clone(), why: e.to_string() })?;
        if r.version != RECORD_VERSION {
            return Err(Error::BadRecord {
                path,
                why: format!("version {} (this build reads {RECORD_VERSION})", r.version),
            });
        }
        Ok(Some(r))
    }

    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("a record serialises")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_sit_beside_their_tests_and_read_back() {
        assert_eq!(
            record_path("queue/id:000001,src:000000,op:od_bf"),
            "trails/queue/id:000001,src:000000,op:od_bf.json"
        );
        assert_eq!(record_path("alarms/000003"), "alarms/000003/trail.json");
        let dir = tempfile::tempdir().unwrap();
        let r = Record {
            version: RECORD_VERSION,
            test: "queue/id:000001,src:000000,op:od_bf".into(),
            parents: vec![0],
            maker: Maker::System("radamsa-like".into()),
            ops: vec!["od".into(), "bf".into()],
            lift: None,
            labels: Some(Labels::own(1, 4)),
        };
        let path = dir.path().join(record_path(&r.test));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, r.to_json()).unwrap();
        assert_eq!(Record::read(dir.path(), &r.test).unwrap(), Some(r.clone()));
        assert_eq!(Record::read(dir.path(), "queue/other").unwrap(), None);
        // A truncated record is an error that names the file.
        let json = r.to_json();
        std::fs::write(&path, &json[..json.len() / 2]).unwrap();
        let e = Record::read(dir.path(), &r.test).unwrap_err().to_string();
        assert!(e.contains("trails/queue/id:000001"), "{e}");
    }
}
