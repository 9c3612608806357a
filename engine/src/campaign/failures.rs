//! The failing runs of one kind a campaign keeps (crashes, hangs): one
//! test per key (see `signatures.rs`), the later ones of a key counted
//! against it; a run that left no key is kept when it showed an edge no
//! earlier one of its kind did, and only counted otherwise.

use exec::{Coverage, Newness};
use std::collections::{BTreeMap, HashMap};

#[derive(Default)]
pub struct Failures {
    /// The edges the kind's runs showed.
    pub cov: Coverage,
    /// The id kept for each key.
    keys: HashMap<String, u64>,
    next: u64,
}

/// What became of a failing run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sorted {
    /// Counted against the test kept as this id.
    Counted(u64),
    /// No key and no new edge: counted only.
    Unsigned,
    /// To be kept as this id.
    New(u64),
}

impl Failures {
    /// A test kept as `id` by an earlier run of the campaign, its key and
    /// edges those of its run again.
    pub fn remember(&mut self, id: u64, key: Option<String>, map: &[u8]) {
        self.cov.add(map);
        self.next = self.next.max(id + 1);
        if let Some(k) = key {
            self.keys.entry(k).or_insert(id);
        }
    }

    /// The id kept for `key`, if any.
    pub fn kept(&self, key: &str) -> Option<u64> {
        self.keys.get(key).copied()
    }

    /// Sorts a failing run whose key is `key` and whose map is `map`
    /// (`known`: the id it was already found to count against), and counts
    /// it in `counts` (runs per kept id).
    pub fn sort(
        &mut self,
        key: Option<String>,
        map: &[u8],
        known: Option<u64>,
        counts: &mut BTreeMap<String, u64>,
    ) -> Sorted {
        let new_edges = self.cov.add(map) == Newness::NewEdges;
        let kept = known.or_else(|| key.as_deref().and_then(|k| self.kept(k)));
        if let Some(id) = kept {
            *counts.entry(format!("{id:06}")).or_insert(1) += 1;
            return Sorted::Counted(id);
        }
        if key.is_none() && !new_edges {
            return Sorted::Unsigned;
        }
        let id = self.next;
        self.next += 1;
        counts.insert(format!("{id:06}"), 1);
        if let Some(k) = key {
            self.keys.insert(k, id);
        }
        Sorted::New(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_test_per_key_and_unsigned_runs_by_their_edges() {
        let mut f = Failures::default();
        let mut counts = BTreeMap::new();
        let map = |slot: usize| {
            let mut m = vec![0u8; model::MAP_SIZE];
            m[slot] = 1;
            m
        };
        let (a, b, c) = (map(0), map(1), map(2));
        f.remember(4, Some("SIGABRT at 0x10".into()), &a);
        assert_eq!(f.sort(Some("SIGABRT at 0x10".into()), &a, None, &mut counts), Sorted::Counted(4));
        assert_eq!(f.sort(Some("SIGSEGV at 0x20".into()), &a, None, &mut counts), Sorted::New(5));
        assert_eq!(f.sort(Some("SIGSEGV at 0x20".into()), &b, None, &mut counts), Sorted::Counted(5));
        // Without a key: kept for a new edge only.
        assert_eq!(f.sort(None, &b, None, &mut counts), Sorted::Unsigned);
        assert_eq!(f.sort(None, &c, None, &mut counts), Sorted::New(6));
        assert_eq!(f.sort(None, &a, Some(6), &mut counts), Sorted::Counted(6));
        assert_eq!(counts.get("000004"), Some(&2));
        assert_eq!(counts.get("000005"), Some(&2));
        assert_eq!(counts.get("000006"), Some(&2));
    }
}
