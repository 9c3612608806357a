//! Culling of the parents (`--parents diverse` and `--parents sample`):
//! only part of the corpus is mutated. `diverse` keeps the farthest-first
//! half (GNAST's ranking, here on the branch outcomes each entry reaches:
//! an entry that reaches nearly what one before it does is the redundant
//! tail); `sample` keeps a random half, the control that tells ranking
//! from fewer parents.
//!
//! Entries are compared by the Jaccard distance of their sets of branch
//! outcomes, estimated from MinHash sketches of [`SKETCH`] values, so a
//! ranking of n entries costs O(n²·SKETCH) at most. It is redone when the
//! corpus has grown by a tenth, and at least every [`EVERY`].

use rand::seq::IndexedRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

/// Values in a sketch.
const SKETCH: usize = 32;
/// The longest a culling is kept while the corpus grows.
const EVERY: Duration = Duration::from_secs(30);
/// Parents kept at least (when the corpus has as many).
const MIN_KEPT: usize = 16;

/// How parents are culled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum How {
    Diverse,
    Sample,
}

/// The parents kept, by id, and when they were chosen.
pub(crate) struct Cull {
    how: How,
    kept: HashSet<u64>,
    /// How many entries the culling was chosen among, and the newest.
    among: usize,
    newest: u64,
    at: Instant,
    sketches: HashMap<u64, [u32; SKETCH]>,
    rng: ChaCha8Rng,
}

impl Cull {
    pub(crate) fn new(how: How, seed: u64) -> Cull {
        let rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_c011);
        Cull { how, kept: HashSet::new(), among: 0, newest: 0, at: Instant::now(), sketches: HashMap::new(), rng }
    }

    /// Whether entry `id` is a parent. Entries newer than the culling are
    /// until the next one: what was just found is mutated at once.
    pub(crate) fn keeps(&self, id: u64) -> bool {
        id > self.newest || self.kept.contains(&id)
    }

    /// Chooses the parents again among `entries` (id, branch outcomes)
    /// when the corpus grew by a tenth since, or [`EVERY`] passed.
    pub(crate) fn refresh(&mut self, entries: &[(u64, &[u32])]) {
        let n = entries.len();
        let due = self.kept.is_empty() || n * 10 >= self.among * 11 || self.at.elapsed() >= EVERY;
        if !due || n == self.among {
            return;
        }
        let keep = (n / 2).max(MIN_KEPT.min(n));
        self.kept = match self.how {
            How::Sample => entries.choose_multiple(&mut self.rng, keep).map(|e| e.0).collect(),
            How::Diverse => {
                for (id, hits) in entries {
                    self.sketches.entry(*id).or_insert_with(|| sketch(hits));
                }
                let s: Vec<&[u32; SKETCH]> = entries.iter().map(|e| &self.sketches[&e.0]).collect();
                let order = gnast::fft::order_by(n, keep, |i, j| distance(s[i], s[j]));
                order.iter().map(|&(i, _)| entries[i].0).collect()
            }
        };
        self.among = n;
        self.newest = entries.iter().map(|e| e.0).max().unwrap_or(0);
        self.at = Instant::now();
    }
}

/// The MinHash sketch of a set of branch outcomes: per value, the least
/// of a hash of every outcome (its own hash function per value).
fn sketch(hits: &[u32]) -> [u32; SKETCH] {
    let mut out = [u32::MAX; SKETCH];
    for &h in hits {
        for (k, o) in out.iter_mut().enumerate() {
            let x = (u64::from(h) ^ (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)).wrapping_mul(0xff51_afd7_ed55_8ccd);
            *o = (*o).min((x >> 32) as u32);
        }
    }
    out
}

/// Estimated Jaccard distance: the share of sketch values that differ.
fn distance(a: &[u32; SKETCH], b: &[u32; SKETCH]) -> f32 {
    a.iter().zip(b).filter(|(x, y)| x != y).count() as f32 / SKETCH as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sketches_estimate_how_much_two_sets_differ() {
        let a: Vec<u32> = (0..400).collect();
        let b: Vec<u32> = (0..400).map(|x| if x < 200 { x } else { x + 1000 }).collect();
        assert_eq!(distance(&sketch(&a), &sketch(&a)), 0.0);
        // Jaccard distance 1 - 200/600 = 0.67.
        let d = distance(&sketch(&a), &sketch(&b));
        assert!((0.45..0.85).contains(&d), "{d}");
        let c: Vec<u32> = (5000..5400).collect();
        assert!(distance(&sketch(&a), &sketch(&c)) > 0.9);
    }

    #[test]
    fn diverse_keeps_one_of_each_kind_before_copies() {
        // 20 entries: 16 copies of one set, and 4 sets of their own.
        let same: Vec<u32> = (0..50).collect();
        let others: Vec<Vec<u32>> = (1..=4).map(|k| (k * 1000..k * 1000 + 50).collect()).collect();
        let mut entries: Vec<(u64, &[u32])> = (0..16).map(|i| (i, same.as_slice())).collect();
        entries.extend(others.iter().enumerate().map(|(k, o)| (100 + k as u64, o.as_slice())));
        let mut c = Cull::new(How::Diverse, 1);
        c.refresh(&entries);
        assert_eq!(c.kept.len(), 16);
        for k in 100..104 {
            assert!(c.keeps(k), "{k}");
        }
        // Newer entries are parents until the next culling.
        assert!(c.keeps(200));
        let mut s = Cull::new(How::Sample, 1);
        s.refresh(&entries);
        assert_eq!(s.kept.len(), 16);
    }
}
