//! How often each path has been run, as AFL++'s `fast` power schedule
//! counts them (AFLFast): a path is the checksum of a run's edges in their
//! hit-count buckets (`exec::coverage::checksum`), and every system run
//! that ends under the limit counts one for its path. An entry whose path
//! many runs took lies where mutants keep landing on what is known; one
//! whose path few runs took is where the search has been least. The
//! scheduler's cheap picks weigh a parent by its cost times its path's
//! count (`scheduler.rs`). The counts live in memory: a resumed campaign
//! starts them anew.

use std::collections::HashMap;

/// Runs per path checksum.
#[derive(Debug, Default)]
pub(super) struct PathCounts {
    runs: HashMap<u64, u32>,
}

impl PathCounts {
    /// A run took path `checksum`.
    pub(super) fn ran(&mut self, checksum: u64) {
        let n = self.runs.entry(checksum).or_default();
        *n = n.saturating_add(1);
    }

    /// Runs that took path `checksum`, at least 1 (the entry's own).
    pub(super) fn of(&self, checksum: u64) -> u32 {
        self.runs.get(&checksum).copied().unwrap_or(0).max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_path_counts_its_own_runs() {
        let mut p = PathCounts::default();
        assert_eq!(p.of(7), 1, "a path never run counts as its entry's run");
        for _ in 0..5 {
            p.ran(7);
        }
        p.ran(9);
        assert_eq!((p.of(7), p.of(9), p.of(8)), (5, 1, 1));
    }
}
