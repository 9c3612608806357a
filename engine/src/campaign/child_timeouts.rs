//! What a parent's mutants cost beyond its own run time: the share of them
//! that ran into the calibrated time limit, each paying the whole limit.
//! On dc a third of a campaign's time went to such runs (a loop a mutant
//! made endless: `[lax]sx`), and a few parents' mutants make most of
//! them. The scheduler's cheap picks weigh a parent by what a mutant of it
//! is expected to cost, `run_us + share × limit`, so the cheaper parent
//! of two is also the one whose mutants end. (Which entries are favoured
//! is settled when each comes, by its run time alone: it has no mutants
//! yet.) The counts live in memory: a resumed campaign starts them anew.

use std::collections::HashMap;

/// Mutants judged before a parent's share counts in full: a share is
/// `timeouts / (mutants + PRIOR)`.
const PRIOR: f64 = 8.0;

/// Per parent id: its mutants run, and how many ran into the limit.
#[derive(Debug, Default)]
pub(super) struct ChildTimeouts {
    by_parent: HashMap<u64, (u32, u32)>,
}

impl ChildTimeouts {
    /// A mutant of `parent` ran; `timed_out`: into the calibrated limit.
    pub(super) fn ran(&mut self, parent: u64, timed_out: bool) {
        let c = self.by_parent.entry(parent).or_default();
        c.0 = c.0.saturating_add(1);
        c.1 = c.1.saturating_add(u32::from(timed_out));
    }

    /// What a mutant of `parent` (its own run `run_us`) is expected to
    /// cost under a limit of `limit_us` (none: no calibrated limit, its
    /// run time alone).
    pub(super) fn cost_us(&self, parent: u64, run_us: u32, limit_us: Option<u32>) -> u32 {
        let (Some(limit), Some(&(n, t))) = (limit_us, self.by_parent.get(&parent)) else { return run_us };
        let share = f64::from(t) / (f64::from(n) + PRIOR);
        (f64::from(run_us) + share * f64::from(limit)).min(f64::from(u32::MAX)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parent_whose_mutants_time_out_costs_its_share_of_the_limit() {
        let mut c = ChildTimeouts::default();
        for k in 0..92 {
            c.ran(1, k % 4 == 0);
            c.ran(2, false);
        }
        assert_eq!(c.cost_us(2, 200, Some(20_000)), 200);
        // 23 of 92 timed out: 23 / 100 of 20 ms.
        assert_eq!(c.cost_us(1, 200, Some(20_000)), 200 + 4_600);
        assert_eq!(c.cost_us(1, 200, None), 200, "no calibrated limit");
        assert_eq!(c.cost_us(3, 300, Some(20_000)), 300, "never a parent yet");
        c.ran(4, true);
        assert_eq!(c.cost_us(4, 0, Some(18_000)), 2_000, "one timeout weighs little at first");
    }
}
