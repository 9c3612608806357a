//! Pseudo-provenance over a campaign: a test's labels rebuilt from its
//! seeds and ancestors when they were not recorded, and, to measure how
//! good that is, every recorded queue entry's labels rebuilt and compared
//! with what was recorded.

use crate::graph::{Campaign, Kind, Test};
use crate::labels::{Labels, Origin};
use crate::pseudo::{measure, pseudo, Pseudo};
use crate::Error;
use serde::Serialize;

/// How rebuilt labels agree with recorded ones, over many tests.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Rebuilt {
    /// Tests measured (queue entries with labels, seeds left out).
    pub tests: usize,
    pub tokens: usize,
    /// Tokens whose rebuilt source is the recorded one.
    pub same_source: usize,
    pub same_source_share: f64,
    /// Mean length of a run of one origin, rebuilt and recorded.
    pub mean_run_rebuilt: f64,
    pub mean_run_recorded: f64,
}

/// Pseudo-provenance of the tests kept without recorded labels (those of
/// a generator whose tests have no trail, as a generative network's).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Unrecorded {
    pub tests: usize,
    pub tokens: usize,
    /// Tokens whose every byte the rebuilt labels copy from a seed.
    pub from_seeds: usize,
    pub from_seeds_share: f64,
    /// Their bytes, and those the rebuilt labels copy from a seed.
    pub bytes: usize,
    pub bytes_from_seeds: usize,
}

/// A source test's id, bytes and labels.
type Owned = (u64, Vec<u8>, Option<Labels>);

impl Campaign {
    fn bytes(&self, t: &Test) -> Result<Vec<u8>, Error> {
        let rel = if t.kind == Kind::Alarm { format!("{}/input", t.path) } else { t.path.clone() };
        let path = self.root.join(rel);
        std::fs::read(&path).map_err(|err| Error::Read { path, err })
    }

    /// The seeds and `t`'s ancestors (and their donors), with their bytes
    /// and labels: what its bytes may have come from.
    fn sources_of(&self, t: &Test) -> Result<Vec<Owned>, Error> {
        let mut ids: Vec<u64> = self.queue.values().filter(|q| q.seed.is_some()).map(|q| q.id).collect();
        if let Ok(trail) = self.trail(t) {
            for step in trail.iter().skip(1) {
                let q = self.find(&step.path)?;
                ids.push(q.id);
                ids.extend(&q.donors);
            }
        }
        ids.sort_unstable();
        ids.dedup();
        let mut out = Vec::new();
        for id in ids {
            if let Some(q) = self.queue.get(&id).filter(|q| !(q.kind == t.kind && q.id == t.id)) {
                out.push((id, self.bytes(q)?, q.labels.clone()));
            }
        }
        Ok(out)
    }

    /// `t`'s labels rebuilt greedily from its seeds and ancestors (all
    /// pseudo), whatever was recorded.
    pub fn pseudo_labels(&self, t: &Test, args_in_input: bool) -> Result<Pseudo, Error> {
        let data = self.bytes(t)?;
        let owned = self.sources_of(t)?;
        let sources: Vec<_> = owned.iter().map(|(id, d, l)| (*id, &d[..], l.as_ref())).collect();
        Ok(pseudo(&data, &sources, args_in_input))
    }

    /// Every queue entry with recorded labels (seeds aside, at most
    /// `limit`, the latest first), its labels stripped, rebuilt and
    /// compared with the recorded ones.
    pub fn rebuild_all(&self, args_in_input: bool, limit: usize) -> Result<Rebuilt, Error> {
        let mut r = Rebuilt::default();
        let (mut runs_rebuilt, mut runs_recorded) = (0.0, 0.0);
        let picked = self.queue.values().rev().filter(|q| q.seed.is_none() && q.labels.is_some()).take(limit);
        for q in picked {
            let data = self.bytes(q)?;
            let owned = self.sources_of(q)?;
            let sources: Vec<_> = owned.iter().map(|(id, d, l)| (*id, &d[..], l.as_ref())).collect();
            let recorded = q.labels.as_ref().expect("filtered");
            if recorded.len() != data.len() {
                continue;
            }
            let a = measure(q.id, &data, recorded, &sources, args_in_input);
            r.tests += 1;
            r.tokens += a.tokens;
            r.same_source += a.same_source;
            runs_rebuilt += a.mean_run_rebuilt;
            runs_recorded += a.mean_run_recorded;
        }
        if r.tests > 0 {
            r.same_source_share = r.same_source as f64 / r.tokens.max(1) as f64;
            r.mean_run_rebuilt = runs_rebuilt / r.tests as f64;
            r.mean_run_recorded = runs_recorded / r.tests as f64;
        }
        Ok(r)
    }

    /// The queue entries made by an operator but recorded without labels
    /// (at most `limit`, the latest first), their labels rebuilt: how many
    /// of their tokens come from the seeds.
    pub fn unrecorded(&self, args_in_input: bool, limit: usize) -> Result<Unrecorded, Error> {
        let seeds: std::collections::HashSet<u64> =
            self.queue.values().filter(|q| q.seed.is_some()).map(|q| q.id).collect();
        let mut u = Unrecorded::default();
        let picked = (self.queue.values().rev())
            .filter(|q| q.recorded && q.seed.is_none() && q.labels.is_none() && !q.ops.is_empty())
            .take(limit);
        for q in picked {
            let p = self.pseudo_labels(q, args_in_input)?;
            u.tests += 1;
            let seeded =
                |i: usize| matches!(p.labels.at(i), Some(Origin::Copied { test, .. }) if seeds.contains(&test));
            for span in &p.tokens {
                u.tokens += 1;
                u.from_seeds += usize::from(span.clone().all(seeded));
            }
            u.bytes += p.labels.len();
            u.bytes_from_seeds += (0..p.labels.len()).filter(|&i| seeded(i)).count();
        }
        u.from_seeds_share = u.from_seeds as f64 / u.tokens.max(1) as f64;
        Ok(u)
    }
}
