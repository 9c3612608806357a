//! What the seeds' tokens led to, read from the tests' labels: a test
//! descends from a token of a seed when it holds bytes copied from it.
//! Tokens are lines (with their newline); and what each step of a trail
//! wrote (the runs its labels give to the test itself).

use crate::graph::{count, Campaign, Kind, Summary, Test};
use crate::labels::{Origin, FRESH};
use crate::Error;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// Bytes a step of a trail wrote: where, what and how.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub at: usize,
    /// The bytes, as text (escaped, at most 64 characters shown).
    pub text: String,
    /// The operator, or the unit and parameter of a lift.
    pub by: String,
}

/// The lines of `data`: each one's start and end (newline included).
fn lines(data: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut at = 0;
    for (i, &b) in data.iter().enumerate() {
        if b == b'\n' {
            out.push((at, i + 1));
            at = i + 1;
        }
    }
    if at < data.len() {
        out.push((at, data.len()));
    }
    out
}

/// `bytes` shown as text, cut at `max` characters.
pub fn shown(bytes: &[u8], max: usize) -> String {
    let s: String = bytes.escape_ascii().map(char::from).collect();
    if s.chars().count() > max {
        format!("{}...", s.chars().take(max).collect::<String>())
    } else {
        s
    }
}

impl Campaign {
    /// For each line of each seed, what the tests holding bytes of it led
    /// to (tests without labels are not counted); the lines no test
    /// holds are left out.
    pub fn by_token(&self) -> Result<Vec<Summary>, Error> {
        let mut seeds = BTreeMap::new();
        for q in self.queue.values().filter(|q| q.seed.is_some()) {
            let path = self.root.join(&q.path);
            let data = std::fs::read(&path).map_err(|err| Error::Read { path, err })?;
            seeds.insert(q.id, (q, lines(&data), data));
        }
        let mut out: BTreeMap<(u64, usize), Summary> = BTreeMap::new();
        for t in self.tests().filter(|t| t.seed.is_none()) {
            let Some(l) = &t.labels else { continue };
            let mut held = BTreeSet::new();
            for (_, r) in l.runs() {
                let Origin::Copied { test, offset } = r.origin else { continue };
                let Some((_, ls, _)) = seeds.get(&test) else { continue };
                let (a, b) = (offset as usize, offset as usize + r.len as usize);
                held.extend(ls.iter().enumerate().filter(|(_, &(s, e))| s < b && a < e).map(|(k, _)| (test, k)));
            }
            for key in held {
                let s = out.entry(key).or_insert_with(|| {
                    let (q, ls, data) = &seeds[&key.0];
                    let (s, e) = ls[key.1];
                    let name = format!("{}:{} {}", q.seed.as_deref().unwrap_or("?"), key.1 + 1, shown(&data[s..e], 24));
                    Summary { name, ..Summary::default() }
                });
                count(s, t);
            }
        }
        Ok(out.into_values().collect())
    }

    /// The bytes the making of `t` wrote (its labels' runs written for
    /// it), or `None` when it has no labels.
    pub fn changes(&self, t: &Test) -> Result<Option<Vec<Change>>, Error> {
        let Some(l) = &t.labels else { return Ok(None) };
        let path = self.root.join(if t.kind == Kind::Alarm { format!("{}/input", t.path) } else { t.path.clone() });
        let data = std::fs::read(&path).map_err(|err| Error::Read { path, err })?;
        let own = |id: u64| id == FRESH || (t.kind == Kind::Queue && id == t.id);
        let mut out = Vec::new();
        for (at, r) in l.runs() {
            let by = match &r.origin {
                Origin::Inserted { test, op } if own(*test) => op.to_string(),
                Origin::Lifted { test, unit, param } if own(*test) => format!("lift {unit} {param}"),
                _ => continue,
            };
            let bytes = data.get(at..at + r.len as usize).unwrap_or_default();
            out.push(Change { at, text: shown(bytes, 64), by });
        }
        Ok(Some(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labels::Labels;
    use crate::record::{record_path, Maker, Record, RECORD_VERSION};

    #[test]
    fn tokens_count_the_tests_holding_them_and_steps_show_what_they_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        for d in ["queue", "trails/queue", "crashes", "trails/crashes"] {
            std::fs::create_dir_all(r.join(d)).unwrap();
        }
        let seed = "queue/id:000000,orig:s";
        std::fs::write(r.join(seed), b"one\ntwo\n").unwrap();
        // Entry 1: "two\n" of the seed, then "X" an operator wrote.
        let q1 = "queue/id:000001,src:000000,op:od_bi";
        let mut l = Labels::own(0, 8).slice(4, 8);
        l.extend(&Labels::inserted("bi", 1));
        l.adopt(1);
        let rec = |test: &str, labels: Labels| Record {
            version: RECORD_VERSION,
            test: test.into(),
            parents: vec![0],
            maker: Maker::System("radamsa-like".into()),
            ops: vec!["bi".into()],
            lift: None,
            labels: Some(labels),
        };
        std::fs::write(r.join(q1), b"two\nX").unwrap();
        std::fs::write(r.join(record_path(q1)), rec(q1, l.clone()).to_json()).unwrap();
        // A crash of entry 1 with both lines of the seed.
        let c1 = "crashes/id:000000,sig:11,src:000001,op:od_bi";
        std::fs::write(r.join(c1), b"one\ntwo\n").unwrap();
        std::fs::write(r.join(record_path(c1)), rec(c1, Labels::own(0, 8)).to_json()).unwrap();
        let c = Campaign::read(r).unwrap();
        let tokens = c.by_token().unwrap();
        let names: Vec<_> = tokens.iter().map(|s| (s.name.as_str(), s.descendants, s.crashes)).collect();
        assert_eq!(names, [("s:1 one\\n", 0, 1), ("s:2 two\\n", 1, 1)]);
        let t = c.find(q1).unwrap();
        let changes = c.changes(t).unwrap().unwrap();
        assert_eq!(changes, [Change { at: 4, text: "X".into(), by: "bi".into() }]);
        assert_eq!(c.changes(c.find(seed).unwrap()).unwrap(), None);
    }
}
