//! A campaign's tests and their parents: trails back to a seed, and what
//! each seed and each operator led to.

use crate::labels::Labels;
use crate::names::parse;
use crate::record::Record;
use crate::Error;
use model::layout;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Where a test is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Queue,
    Crash,
    Hang,
    Alarm,
}

/// A test and what made it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Test {
    pub kind: Kind,
    /// Its place in the campaign directory.
    pub path: String,
    pub id: u64,
    /// The queue entry it was made from (`None`: a seed).
    pub parent: Option<u64>,
    /// Other queue entries it took bytes from (a splice).
    pub donors: Vec<u64>,
    /// The operators that made it (for an alarm: the unit and how its
    /// value was found).
    pub ops: Vec<String>,
    /// A seed's original name.
    pub seed: Option<String>,
    /// Its bytes' origins, from its trail record.
    #[serde(skip)]
    pub labels: Option<Labels>,
    /// Whether it has a trail record (else its name is all there is).
    pub recorded: bool,
}

impl Test {
    /// Takes what its trail record says, when it has one: its parents
    /// (the names agree; a record also holds a splice's donors) and its
    /// labels. A record that cannot be read is an error.
    fn take_record(&mut self, root: &Path) -> Result<(), Error> {
        let Some(r) = Record::read(root, &self.path)? else { return Ok(()) };
        self.recorded = true;
        if let Some((&first, rest)) = r.parents.split_first() {
            self.parent = Some(first);
            self.donors = rest.to_vec();
        }
        if self.kind != Kind::Alarm && !r.ops.is_empty() {
            // (An alarm's name for what made it says more: the unit, its
            // parameter and how the value was found.)
            self.ops = r.ops;
        }
        self.labels = r.labels;
        Ok(())
    }
}

/// One step of a trail: a test and the operators that made it from the
/// next one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    pub path: String,
    pub ops: Vec<String>,
    /// The other parents of a splice (their paths), whose own trails
    /// [`Campaign::trail`] gives too.
    pub donors: Vec<String>,
}

/// What a seed (or an operator) led to.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Summary {
    pub name: String,
    /// Queue entries descended from it (itself not counted).
    pub descendants: u64,
    /// Of those, lifts from the unit level (`op:lift_...`).
    pub lifts: u64,
    pub crashes: u64,
    pub hangs: u64,
    pub alarms: u64,
}

/// A campaign's tests.
pub struct Campaign {
    pub(crate) root: std::path::PathBuf,
    pub(crate) queue: BTreeMap<u64, Test>,
    pub(crate) others: Vec<Test>,
}

fn names(dir: &Path) -> Result<Vec<String>, Error> {
    let read = std::fs::read_dir(dir);
    let Ok(entries) = read else { return Ok(Vec::new()) };
    let mut out: Vec<String> = entries.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    out.sort();
    Ok(out)
}

impl Campaign {
    /// Reads the tests of the campaign in `root`.
    pub fn read(root: &Path) -> Result<Campaign, Error> {
        let mut queue = BTreeMap::new();
        let mut others = Vec::new();
        for (dir, kind) in [(layout::QUEUE, Kind::Queue), (layout::CRASHES, Kind::Crash), (layout::HANGS, Kind::Hang)] {
            for name in names(&root.join(dir))? {
                let Some(n) = parse(&name) else { continue };
                let path = format!("{dir}/{name}");
                let mut t = Test {
                    kind,
                    path,
                    id: n.id,
                    parent: n.parent,
                    donors: n.donors,
                    ops: n.ops,
                    seed: n.seed,
                    labels: None,
                    recorded: false,
                };
                t.take_record(root)?;
                if kind == Kind::Queue {
                    queue.insert(n.id, t);
                } else {
                    others.push(t);
                }
            }
        }
        for name in names(&root.join(layout::ALARMS))? {
            let Ok(id) = name.parse::<u64>() else { continue };
            let path = root.join(layout::ALARMS).join(&name).join(layout::ALARM_REPORT);
            let bytes = std::fs::read(&path).map_err(|err| Error::Read { path: path.clone(), err })?;
            let Ok(a) = model::alarm::Alarm::from_json(&bytes) else { continue };
            let ops = vec![format!("unit {}() parameter {}: {}", a.function, a.parameter, a.generator_op)];
            let mut t = Test {
                kind: Kind::Alarm,
                path: format!("{}/{name}", layout::ALARMS),
                id,
                parent: a.system_test,
                donors: Vec::new(),
                ops,
                seed: None,
                labels: None,
                recorded: false,
            };
            t.take_record(root)?;
            others.push(t);
        }
        Ok(Campaign { root: root.to_path_buf(), queue, others })
    }

    /// Every test: the queue, then crashes, hangs and alarms.
    pub fn tests(&self) -> impl Iterator<Item = &Test> {
        self.queue.values().chain(&self.others)
    }

    /// The test whose path (or file name) is `name`.
    pub fn find(&self, name: &str) -> Result<&Test, Error> {
        let name = name.trim_end_matches('/');
        self.tests()
            .find(|t| {
                t.path == name || t.path.ends_with(&format!("/{name}")) || name.ends_with(&format!("/{}", t.path))
            })
            .ok_or_else(|| Error::NoSuchTest(name.to_string()))
    }

    /// `t`'s trail: `t` first, each parent after it, the seed last.
    pub fn trail(&self, t: &Test) -> Result<Vec<Step>, Error> {
        let donors = |x: &Test| x.donors.iter().filter_map(|d| self.queue.get(d)).map(|q| q.path.clone()).collect();
        let mut steps = vec![Step { path: t.path.clone(), ops: t.ops.clone(), donors: donors(t) }];
        let mut at = t.parent;
        while let Some(id) = at {
            let p = self
                .queue
                .get(&id)
                .ok_or_else(|| Error::Unresolved(t.path.clone(), format!("no queue entry {id:06}")))?;
            if steps.len() > self.queue.len() + 1 {
                return Err(Error::Unresolved(t.path.clone(), "its parents loop".into()));
            }
            steps.push(Step { path: p.path.clone(), ops: p.ops.clone(), donors: donors(p) });
            at = p.parent;
        }
        let last = steps.last().expect("one step at least");
        let seed = self.queue.values().any(|q| q.path == last.path && q.seed.is_some());
        if !seed {
            return Err(Error::Unresolved(t.path.clone(), format!("{} is no seed", last.path)));
        }
        Ok(steps)
    }

    /// What each seed led to, and how many tests reach no seed.
    pub fn by_seed(&self) -> (Vec<Summary>, usize) {
        let mut seeds: BTreeMap<u64, Summary> = self
            .queue
            .values()
            .filter_map(|q| Some((q.id, Summary { name: q.seed.clone()?, ..Summary::default() })))
            .collect();
        let mut unresolved = 0;
        for t in self.tests() {
            let Ok(trail) = self.trail(t) else {
                unresolved += 1;
                continue;
            };
            let seed = trail.last().and_then(|s| parse(s.path.rsplit('/').next()?)).map(|n| n.id);
            let Some(s) = seed.and_then(|id| seeds.get_mut(&id)) else { continue };
            count(s, t);
        }
        (seeds.into_values().collect(), unresolved)
    }

    /// What each operator led to: tests made with it, and the failures
    /// among them.
    pub fn by_operator(&self) -> Vec<Summary> {
        let mut ops: BTreeMap<String, Summary> = BTreeMap::new();
        for t in self.tests() {
            for op in &t.ops {
                let s = ops.entry(op.clone()).or_insert_with(|| Summary { name: op.clone(), ..Summary::default() });
                count(s, t);
            }
        }
        ops.into_values().collect()
    }
}

pub(crate) fn count(s: &mut Summary, t: &Test) {
    match t.kind {
        Kind::Queue if t.seed.is_none() => {
            s.descendants += 1;
            s.lifts += u64::from(t.ops.iter().any(|o| o.starts_with("lift_")));
        }
        Kind::Queue => {}
        Kind::Crash => s.crashes += 1,
        Kind::Hang => s.hangs += 1,
        Kind::Alarm => s.alarms += 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn campaign() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        for d in ["queue", "crashes", "hangs"] {
            std::fs::create_dir_all(r.join(d)).unwrap();
        }
        for n in [
            "queue/id:000000,orig:a",
            "queue/id:000001,orig:b",
            "queue/id:000002,src:000001,op:nd_num",
            "queue/id:000003,src:000002+000000,op:lift_main+word",
            "crashes/id:000000,sig:11,src:000003,op:bu_lr",
            "hangs/id:000000,src:000000,op:ft",
        ] {
            std::fs::write(r.join(n), b"x").unwrap();
        }
        dir
    }

    #[test]
    fn trails_lead_to_seeds_and_seeds_count_what_they_led_to() {
        let dir = campaign();
        let c = Campaign::read(dir.path()).unwrap();
        let crash = c.find("id:000000,sig:11,src:000003,op:bu_lr").unwrap();
        let steps = c.trail(crash).unwrap();
        let trail: Vec<&str> = steps.iter().map(|s| s.path.as_str()).collect();
        assert_eq!(
            trail,
            [
                "crashes/id:000000,sig:11,src:000003,op:bu_lr",
                "queue/id:000003,src:000002+000000,op:lift_main+word",
                "queue/id:000002,src:000001,op:nd_num",
                "queue/id:000001,orig:b"
            ]
        );
        // A splice names its other parent.
        assert_eq!(steps[1].donors, ["queue/id:000000,orig:a"]);
        let (seeds, unresolved) = c.by_seed();
        assert_eq!(unresolved, 0);
        let b = seeds.iter().find(|s| s.name == "b").unwrap();
        assert_eq!((b.descendants, b.lifts, b.crashes, b.hangs), (2, 1, 1, 0));
        let a = seeds.iter().find(|s| s.name == "a").unwrap();
        assert_eq!((a.descendants, a.hangs), (0, 1));
        let num = c.by_operator().into_iter().find(|s| s.name == "nd_num").unwrap();
        assert_eq!(num.descendants, 1);
        // A parent that is not there: the test does not reach a seed.
        std::fs::write(dir.path().join("crashes/id:000001,sig:06,src:000099,op:x"), b"y").unwrap();
        let c = Campaign::read(dir.path()).unwrap();
        assert_eq!(c.by_seed().1, 1);
        assert!(matches!(c.trail(c.find("id:000001,sig:06,src:000099,op:x").unwrap()), Err(Error::Unresolved(..))));
    }
}
